"""Which protocol era a client ends up in with the weather example, and that
the example serves it: the Python SDK's `mcp.Client` in `mode="auto"` (its
default) probes `server/discover` and then speaks 2026-07-28, with no
`initialize`; forced to `mode="legacy"` it initializes at 2025-11-25. Both
over stdio and over Streamable HTTP, against the same binary, and both
list the tools, call one, read a resource, get a prompt, and answer the
two tools that ask the client (`subscribe_alerts` elicits a confirmation,
`summarize_forecast` samples the client's model): in 2026-07-28 as
`input_required` results retried with `inputResponses`, in 2025-11-25 as
requests to the client.

The era is checked on the wire, not only by what the client says: stdio
sessions run under tests/interop/record, HTTP ones through the recording
proxy of wire.py.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/era.py`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio

from asking import MODEL, User
from harness import WEATHER, Check, HttpServer, Server, StepFailed, main
from mcp import Client
from weather import WEATHER_TOOLS, structured
from wire import WireRecorder

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


class Wire(Protocol):
    """What went over the wire of one session."""

    def sent(self) -> list[dict[str, Any]]: ...

    def answer(self, request_id: Any) -> dict[str, Any] | None: ...


class StdioWire:
    def __init__(self, server: Server) -> None:
        self.server = server

    def sent(self) -> list[dict[str, Any]]:
        return self.server.sent()

    def answer(self, request_id: Any) -> dict[str, Any] | None:
        found = [m for m in self.server.received() if "method" not in m and m.get("id") == request_id]
        return found[-1] if found else None


class HttpWire:
    def __init__(self, proxy: WireRecorder) -> None:
        self.proxy = proxy

    def sent(self) -> list[dict[str, Any]]:
        return self.proxy.sent()

    def answer(self, request_id: Any) -> dict[str, Any] | None:
        found = [
            m
            for exchange in self.proxy.posts()
            for m in exchange.answers()
            if "method" not in m and m.get("id") == request_id
        ]
        return found[-1] if found else None


# How long a record may lag the client: `record` (stdio) passes each line on
# before it writes it to its file. The HTTP proxy's record does not lag.
LAG = 2.0


async def requests(wire: Wire, method: str, name: str | None = None, *, count: int = 1) -> list[dict[str, Any]]:
    """The requests the client sent with this method (and tool name), in
    order, once there are `count` of them or the record stopped lagging."""
    deadline = time.monotonic() + LAG
    while True:
        found = [
            m
            for m in wire.sent()
            if m.get("method") == method and "id" in m and (name is None or (m.get("params") or {}).get("name") == name)
        ]
        if len(found) >= count or time.monotonic() >= deadline:
            return found
        await anyio.sleep(0.01)


async def result_of(wire: Wire, request: dict[str, Any]) -> dict[str, Any]:
    """The result the server sent for `request`, waiting for the record to catch up."""
    deadline = time.monotonic() + LAG
    while (answer := wire.answer(request["id"])) is None and time.monotonic() < deadline:
        await anyio.sleep(0.01)
    if answer is None or "result" not in answer:
        raise StepFailed(f"{request['method']} (id {request['id']!r}): expected a result on the wire, got {answer}")
    return answer["result"]


def check_modern_request(request: dict[str, Any]) -> None:
    """A request of the 2026-07-28 era says so in `_meta`."""
    meta = (request.get("params") or {}).get("_meta") or {}
    Check.equal(meta.get(PROTOCOL_VERSION), MODERN, f"{request['method']}: _meta protocolVersion")
    Check.expect(isinstance(meta.get(CLIENT_CAPABILITIES), dict), f"{request['method']}: no clientCapabilities in _meta")


async def check_rounds(wire: Wire, tool: str, asked: str, count: int) -> dict[str, Any]:
    """In 2026-07-28, the last call of `tool` (the `count`th on the wire
    with its retries) was answered `input_required` with one `asked`
    request, and its retry carried the answer and the state, and was
    answered `complete`. Returns the answers the retry carried."""
    calls = await requests(wire, "tools/call", tool, count=count)
    Check.equal(len(calls), count, f"tools/call {tool} on the wire (each call and its retry)")
    calls = calls[-2:]
    first, retry = [await result_of(wire, call) for call in calls]
    Check.equal(first.get("resultType"), "input_required", "resultType of the first answer")
    input_requests = first.get("inputRequests") or {}
    Check.equal([r.get("method") for r in input_requests.values()], [asked], "inputRequests")
    Check.expect(isinstance(first.get("requestState"), str), f"no requestState: {first}")
    params = calls[1]["params"]
    Check.equal(sorted(params.get("inputResponses") or {}), sorted(input_requests), "inputResponses keys")
    Check.equal(params.get("requestState"), first["requestState"], "requestState sent back")
    check_modern_request(calls[1])
    Check.equal(retry.get("resultType"), "complete", "resultType of the retry's answer")
    return params["inputResponses"]


async def drive(check: Check, label: str, client: Client, user: User, wire: Wire, era: str) -> None:
    """The same application on every connection: list, call, and the two tools that ask."""
    with check.step(f"{label}: tools/list: the six weather tools"):
        listed = await client.list_tools()
        check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
        if era == MODERN:
            (request,) = (await requests(wire, "tools/list"))[-1:]
            check_modern_request(request)
            check.equal((await result_of(wire, request)).get("resultType"), "complete", "resultType")

    with check.step(f"{label}: tools/call get_forecast"):
        forecast = structured(await client.call_tool("get_forecast", {"city": "Cairo", "days": 2}))
        check.equal((forecast["city"], len(forecast["days"])), ("Cairo", 2), "city and days")

    with check.step(f"{label}: resources/read of a city and prompts/get plan_trip"):
        read = await client.read_resource("weather://cities/Nairobi")
        check.equal([str(c.uri) for c in read.contents], ["weather://cities/Nairobi"], "contents")
        prompt = await client.get_prompt("plan_trip", {"city": "Nairobi", "days": "5"})
        check.equal([m.role for m in prompt.messages], ["user", "user"], "prompt messages")
        if era == MODERN:
            for method in ("resources/read", "prompts/get"):
                (request,) = await requests(wire, method)
                check_modern_request(request)
                check.equal((await result_of(wire, request)).get("resultType"), "complete", f"{method}: resultType")

    with check.step(f"{label}: subscribe_alerts asks the user (elicitation), who confirms"):
        done = structured(await client.call_tool("subscribe_alerts", {"city": "paris"}))
        check.equal(done, {"city": "Paris", "subscribed": True, "level": "emergency"}, "result")
        check.equal([e.message for e in user.elicitations], ["Send severe-weather alerts for Paris, France?"], "asked")
        if era == MODERN:
            (answer,) = (await check_rounds(wire, "subscribe_alerts", "elicitation/create", 2)).values()
            check.equal(answer.get("action"), "accept", "the answer sent back")

    with check.step(f"{label}: subscribe_alerts again: the user declines, nothing is subscribed"):
        user.answer = None
        done = structured(await client.call_tool("subscribe_alerts", {"city": "Cairo"}))
        check.equal(done, {"city": "Cairo", "subscribed": False, "level": None}, "result")
        check.equal(len(user.elicitations), 2, "questions asked")
        if era == MODERN:
            (answer,) = (await check_rounds(wire, "subscribe_alerts", "elicitation/create", 4)).values()
            check.equal(answer.get("action"), "decline", "the answer sent back")

    with check.step(f"{label}: summarize_forecast asks the client's model (sampling)"):
        summary = structured(await client.call_tool("summarize_forecast", {"city": "Tokyo", "days": 2}))
        check.equal(
            summary,
            {"city": "Tokyo", "summary": "Mild and mostly dry, a little rain later.", "model": MODEL},
            "result",
        )
        check.equal(len(user.samplings), 1, "samplings")
        check.expect("The forecast for Tokyo, Japan" in str(user.samplings[0].messages[0].content), "sampling prompt")
        if era == MODERN:
            (answer,) = (await check_rounds(wire, "summarize_forecast", "sampling/createMessage", 2)).values()
            check.equal(answer.get("model"), MODEL, "the answer sent back")


async def sent_methods(wire: Wire, count: int) -> list[str | None]:
    """The methods of the messages the client sent, once there are `count`
    of them (or 2 seconds have passed): a record may lag the client a little."""
    deadline = time.monotonic() + 2
    while len(sent := wire.sent()) < count and time.monotonic() < deadline:
        await anyio.sleep(0.01)
    return [m.get("method") for m in sent]


async def check_connected(check: Check, label: str, client: Client, wire: Wire, era: str) -> None:
    with check.step(f"{label}: negotiated {era}"):
        check.equal(client.protocol_version, era, "the client's protocol_version")
        methods = await sent_methods(wire, 1 if era == MODERN else 2)
        if era == MODERN:
            check.expect(client.session.discover_result is not None, "the client holds no server/discover result")
            check.equal(methods[:1], ["server/discover"], "the first message")
            (discover,) = (await requests(wire, "server/discover"))[:1]
            supported = (await result_of(wire, discover)).get("supportedVersions")
            check.expect(MODERN in (supported or []), f"supportedVersions: {supported}")
            for removed in ("initialize", "notifications/initialized"):
                check.expect(removed not in methods, f"the client sent {removed}: {methods}")
        else:
            check.equal(methods[:2], ["initialize", "notifications/initialized"], "the first messages")
            check.expect("server/discover" not in methods, f"the client sent server/discover: {methods}")


def client_for(target: Any, mode: str, user: User) -> Client:
    return Client(target, mode=mode, elicitation_callback=user.elicit, sampling_callback=user.sample)


async def over_stdio(check: Check, mode: str, era: str) -> None:
    label = f"stdio, mode={mode}"
    server = Server(f"python-era/stdio-{mode}", WEATHER)
    wire = StdioWire(server)
    user = User()
    async with client_for(server.params, mode, user) as client:
        await check_connected(check, label, client, wire, era)
        await drive(check, label, client, user, wire, era)
    with check.step(f"{label}: close, exit 0"):
        server.check_clean_exit(check)


@contextlib.asynccontextmanager
async def recorded_http(name: str) -> AsyncIterator[tuple[HttpServer, WireRecorder]]:
    async with HttpServer(f"python-era/{name}", WEATHER) as server, WireRecorder(f"python-era/{name}", server.url) as proxy:
        yield server, proxy


async def over_http(check: Check, mode: str, era: str) -> None:
    label = f"http, mode={mode}"
    async with recorded_http(f"http-{mode}") as (server, proxy):
        wire = HttpWire(proxy)
        user = User()
        async with client_for(proxy.url, mode, user) as client:
            await check_connected(check, label, client, wire, era)
            await drive(check, label, client, user, wire, era)

        with check.step(f"{label}: the HTTP requests of the era"):
            posts = proxy.posts()
            check.expect(posts, "no POST went through the proxy")
            for post in posts:
                version = post.header("mcp-protocol-version")
                session = post.header("mcp-session-id") or post.response_headers.get("mcp-session-id")
                what = f"POST {[m.get('method', 'response') for m in post.messages()]}"
                check.expect(200 <= post.status < 300, f"{what}: HTTP {post.status}: {post.response[:300]}")
                if era == MODERN:
                    check.equal(version, MODERN, f"{what}: MCP-Protocol-Version")
                    check.expect(session is None, f"{what}: a session id in the 2026-07-28 era: {session}")
                    (message,) = post.messages()
                    check.equal(post.header("mcp-method"), message.get("method"), f"{what}: Mcp-Method")
                    if message.get("method") == "tools/call":
                        check.equal(post.header("mcp-name"), message["params"]["name"], f"{what}: Mcp-Name")
                elif post.messages()[0].get("method") != "initialize":
                    check.equal(version, LEGACY, f"{what}: MCP-Protocol-Version")
                    check.expect(session, f"{what}: no session id in the 2025-11-25 era")
            if era == MODERN:
                gets = [e for e in proxy.exchanges if e.method != "POST"]
                check.equal([(e.method, e.status) for e in gets], [], "requests other than POST")

        with check.step(f"{label}: SIGTERM, exit 0"):
            await server.stop(check)


async def auto_over_stdio_is_modern(check: Check) -> None:
    await over_stdio(check, "auto", MODERN)


async def auto_over_http_is_modern(check: Check) -> None:
    await over_http(check, "auto", MODERN)


async def legacy_over_stdio_still_works(check: Check) -> None:
    await over_stdio(check, "legacy", LEGACY)


async def legacy_over_http_still_works(check: Check) -> None:
    await over_http(check, "legacy", LEGACY)


if __name__ == "__main__":
    main(
        "python-era",
        [
            auto_over_stdio_is_modern,
            auto_over_http_is_modern,
            legacy_over_stdio_still_works,
            legacy_over_http_still_works,
        ],
    )
