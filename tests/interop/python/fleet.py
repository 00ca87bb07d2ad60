"""An interactive Python SDK client of the fleet example (examples/fleet.rs),
for the fleet tests (tests/fleet/legacy.rs): one `mcp.Client` in the
legacy era (`mode="legacy"`, so `initialize` at 2025-11-25 and a session)
over Streamable HTTP to the URL given, driven one command per line on
stdin, each answered by exactly one JSON line on stdout, so that a test can
kill instances or stop a store between steps.

Usage: `target/interop/venv/bin/python tests/interop/python/fleet.py URL`

The first line is the connection's own step, `{"step": "connect", ...}`.
Then, per command, `{"step": COMMAND, "ok": true, ...}` with what the step
saw, or `{"step": COMMAND, "ok": false, "error": "..."}`; a failed step
does not end the driver. Every line also has `"http"`: the requests the
SDK made since the line before and their statuses ("POST 200", "GET 404",
..., and "GET 200 last-event-id=ID" for a stream resumed).

Commands (the fleet example's tools, and what a client does between them):

    list              tools/list: "tools", the names
    whoami            the tool whoami: "instance"
    count N           count_slowly(n=N): "n", "instance", and "progress", the
                      progress notifications received during the call
    subscribe URI     resources/subscribe to URI
    touch             the tool touch: "instance", "counter", "told"
    await_update SECS waits up to SECS for notifications/resources/updated of
                      the subscribed URI (one not awaited before): "uri"
    ask NAME          ask_name, the elicitation answered NAME: "name",
                      "instance", "asked" (elicitations received so far)
    log MSG           the tool log(message=MSG): "instance", "told"
    await_log SECS    waits up to SECS for a notifications/message whose data
                      is the last MSG logged (one not awaited before):
                      "data", "level", "logger"
    sleep SECS        the tool sleep(secs=SECS): "instance"
    session           "session", the Mcp-Session-Id
    quit              closes the client, which DELETEs the session: "deleted",
                      the DELETE's status (ok if 2xx); then the driver exits

Each step has a bound (SECS and 30 s more, or 30 s) after which it fails;
nothing waits forever. The SDK's client runs in a task of its own: when it
breaks (its transport fails, as when an instance dies under a request),
the step under way fails with its error, and so do the later ones
("not connected: the client stopped: ...").
"""

from __future__ import annotations

import contextlib
import json
import sys
import warnings
from typing import Any

import anyio
import httpx2
import mcp.types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

# The client speaks 2025-11-25, whose resources/subscribe the SDK marks deprecated.
warnings.simplefilter("ignore")

DEFAULT_BOUND = 30.0


class Driver:
    def __init__(self, url: str) -> None:
        self.url = url
        self.client: Client | None = None
        self.session_id: str | None = None
        self.http: list[str] = []
        self.deleted: int | None = None
        self.subscribed: str | None = None
        self.updates: list[str] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.logged: str | None = None
        self.answer: str | None = None
        self.asked = 0
        self.changed = anyio.Event()
        # The client's life, run by `hold` in a task of its own.
        self.connection: dict[str, Any] = {}
        self.broken: Exception | None = None
        self.ready = anyio.Event()
        self.closing = anyio.Event()
        self.closed = anyio.Event()
        self.running_step: anyio.CancelScope | None = None

    # --- What the server sends -------------------------------------------

    async def on_response(self, response: httpx2.Response) -> None:
        method = response.request.method
        resumed = response.request.headers.get("last-event-id")
        self.http.append(f"{method} {response.status_code}" + (f" last-event-id={resumed}" if resumed else ""))
        if method == "DELETE":
            self.deleted = response.status_code
        session = response.headers.get("mcp-session-id")
        if session and self.session_id is None:
            self.session_id = session

    def wake(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updates.append(str(message.params.uri))
            self.wake()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self.wake()

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked += 1
        if self.answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"name": self.answer})

    async def wait_for(self, found: Any, secs: float, what: str) -> Any:
        """The first thing `found()` returns that is not None, waiting up to `secs`."""
        with anyio.move_on_after(secs):
            while (value := found()) is None:
                await self.changed.wait()
            return value
        raise TimeoutError(f"no {what} within {secs} s")

    # --- The client's life --------------------------------------------------

    async def hold(self) -> None:
        """Connects, keeps the client until `quit` (or the end of stdin),
        then closes it, which DELETEs the session. In a task of its own: a
        client that breaks (the SDK's transport fails its task group, as it
        does when an instance dies under a request) ends this task only,
        and the step under way fails with the error."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                self.connection = {"ok": True, **(await self.connect(stack))}
                self.ready.set()
                await self.closing.wait()
        except Exception as error:  # noqa: BLE001 - reported by the steps
            self.client = None
            self.broken = error
            if not self.ready.is_set():
                self.connection = {"ok": False, "error": describe(error), "session": self.session_id}
            if self.running_step is not None:
                self.running_step.cancel()
        finally:
            self.ready.set()
            self.closed.set()

    async def connect(self, stack: contextlib.AsyncExitStack) -> dict[str, Any]:
        # A request whose answer does not come fails after the bound of its
        # step (read_timeout_seconds, as entering and leaving the client
        # cannot run under a cancel scope of their own); a stream silent for
        # a minute is broken (the server sends keep-alives every 15 s).
        http = create_mcp_http_client(timeout=httpx2.Timeout(DEFAULT_BOUND, read=60.0))
        http.event_hooks = {"response": [self.on_response]}
        await stack.enter_async_context(http)
        client = Client(
            streamable_http_client(self.url, http_client=http),
            mode="legacy",
            cache=None,
            read_timeout_seconds=DEFAULT_BOUND,
            elicitation_callback=self.elicit,
            logging_callback=self.on_log,
            message_handler=self.on_message,
            client_info=types.Implementation(name="fleet-python", version="1.0.0"),
        )
        await stack.enter_async_context(client)
        self.client = client
        return {"protocol": client.protocol_version, "session": self.session_id}

    def connected(self) -> Client:
        if self.client is None:
            why = f": the client stopped: {describe(self.broken)}" if self.broken else ""
            raise RuntimeError(f"not connected{why}")
        return self.client

    async def run(self, command: str, argument: str) -> dict[str, Any]:
        """Runs a step within its bound; if the client breaks meanwhile, the
        step fails with the client's error."""
        bound, running = self.step(command, argument)
        with anyio.CancelScope() as scope:
            self.running_step = scope
            try:
                with anyio.fail_after(bound):
                    return await running
            finally:
                self.running_step = None
        raise RuntimeError(f"the client stopped: {describe(self.broken)}")

    async def call(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
        result = await self.connected().call_tool(name, arguments or {}, **options)
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise RuntimeError(f"{name}: the tool failed: {text}")
        return dict(result.structured_content or {})

    def step(self, command: str, argument: str) -> tuple[float, Any]:
        """The bound of `command` and the coroutine that runs it."""
        match command:
            case "list":
                return DEFAULT_BOUND, self.list()
            case "whoami":
                return DEFAULT_BOUND, self.call("whoami")
            case "count":
                n = int(argument)
                bound = DEFAULT_BOUND + n * 0.05
                return bound, self.count(n, bound)
            case "subscribe":
                return DEFAULT_BOUND, self.subscribe(argument)
            case "touch":
                return DEFAULT_BOUND, self.call("touch")
            case "await_update":
                secs = float(argument)
                return secs + 1, self.await_update(secs)
            case "ask":
                return DEFAULT_BOUND, self.ask(argument)
            case "log":
                return DEFAULT_BOUND, self.log(argument)
            case "await_log":
                secs = float(argument)
                return secs + 1, self.await_log(secs)
            case "sleep":
                secs = float(argument)
                bound = DEFAULT_BOUND + secs
                return bound, self.call("sleep", {"secs": secs}, read_timeout_seconds=bound)
            case "session":
                return DEFAULT_BOUND, self.session()
            case _:
                raise ValueError(f"unknown command {command!r}")

    async def list(self) -> dict[str, Any]:
        listed = await self.connected().list_tools()
        return {"tools": [tool.name for tool in listed.tools]}

    async def count(self, n: int, bound: float) -> dict[str, Any]:
        seen: list[float] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        done = await self.call("count_slowly", {"n": n}, progress_callback=progress, read_timeout_seconds=bound)
        return {**done, "progress": len(seen)}

    async def subscribe(self, uri: str) -> dict[str, Any]:
        await self.connected().subscribe_resource(uri)
        self.subscribed = uri
        return {"uri": uri}

    async def await_update(self, secs: float) -> dict[str, Any]:
        uri = self.subscribed
        if uri is None:
            raise RuntimeError("nothing subscribed")

        def found() -> str | None:
            if uri in self.updates:
                self.updates.remove(uri)
                return uri
            return None

        return {"uri": await self.wait_for(found, secs, f"notifications/resources/updated for {uri}")}

    async def ask(self, name: str) -> dict[str, Any]:
        self.answer = name
        done = await self.call("ask_name")
        return {**done, "asked": self.asked}

    async def log(self, message: str) -> dict[str, Any]:
        self.logged = message
        return await self.call("log", {"message": message})

    async def await_log(self, secs: float) -> dict[str, Any]:
        wanted = self.logged

        def found() -> types.LoggingMessageNotificationParams | None:
            for params in self.logs:
                if wanted is None or params.data == wanted:
                    self.logs.remove(params)
                    return params
            return None

        params = await self.wait_for(found, secs, f"notifications/message with data {wanted!r}")
        return {"data": params.data, "level": params.level, "logger": params.logger}

    async def session(self) -> dict[str, Any]:
        return {"session": self.session_id}

    def say(self, line: dict[str, Any]) -> None:
        """Prints a step's line, with the requests made since the last line."""
        print(json.dumps({**line, "http": self.http}), flush=True)
        self.http = []


async def main(url: str) -> None:
    driver = Driver(url)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(driver.hold)
        await driver.ready.wait()
        driver.say({"step": "connect", **driver.connection})
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            if not line:
                break
            command, _, argument = line.strip().partition(" ")
            if not command:
                continue
            if command == "quit":
                driver.closing.set()
                with anyio.move_on_after(DEFAULT_BOUND):
                    await driver.closed.wait()
                deleted = driver.deleted
                ended: dict[str, Any] = {"ok": deleted is not None and 200 <= deleted < 300, "deleted": deleted}
                if deleted is None:
                    ended["error"] = describe(driver.broken) if driver.broken else "no DELETE was answered"
                elif not ended["ok"]:
                    ended["error"] = f"the DELETE was answered {deleted}"
                driver.say({"step": "quit", **ended})
                break
            try:
                driver.say({"step": command, "ok": True, **(await driver.run(command, argument.strip()))})
            except Exception as error:  # noqa: BLE001 - reported, and the driver goes on
                driver.say({"step": command, "ok": False, "error": describe(error)})
        driver.closing.set()
        with anyio.move_on_after(DEFAULT_BOUND):
            await driver.closed.wait()
        tasks.cancel_scope.cancel()


def describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError) and not str(error):
        return "timed out"
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fleet.py URL")
    anyio.run(main, sys.argv[1])
