"""Which protocol era the MCP Inspector CLI (2.12.0, on Node 22) ends up in
with the weather example: with `--protocol-era auto` it probes
`server/discover` and speaks 2026-07-28 (no `initialize`), over stdio and
over Streamable HTTP; with `--protocol-era legacy` it initializes at
2025-11-25 against the same binary. On stdio, the resource and prompt
steps of inspector.py run in 2026-07-28 too. (Without the option, ad-hoc
runs are legacy: inspector.py checks those.)

The era is checked on the wire: stdio servers run under
tests/interop/record, HTTP ones behind the recording proxy of wire.py.

Run by tests/interop/run, with the pinned Inspector and Node 22 first on
PATH: `target/interop/venv/bin/python tests/interop/python/inspector_era.py`.
"""

from __future__ import annotations

import json
import shlex
import shutil
from typing import Any

import anyio

from era import CLIENT_CAPABILITIES, LEGACY, MODERN, PROTOCOL_VERSION
from harness import ROOT, WEATHER, Check, HttpServer, Server, main, relative
from inspector import OK, check_primitives, inspector, last_line, parse
from weather import WEATHER_TOOLS
from wire import WireRecorder

FORECAST = ["--method", "tools/call", "--tool-name", "get_forecast", "--tool-args-json", '{"city": "Lima", "days": 3}']


async def run_cli(check: Check, logs: Any, args: list[str]) -> Any:
    """Runs `mcp-inspector --cli ARGS` (which ask for JSON); returns its output, parsed."""
    check.expect(shutil.which("mcp-inspector"), "mcp-inspector is not on PATH: tests/interop/run puts the pinned one there")
    command = ["mcp-inspector", "--cli", *args]
    print(f"     $ {shlex.join(command)}", flush=True)
    # Not subprocess.run: the recording proxy runs on this event loop.
    with anyio.fail_after(120):
        run = await anyio.run_process(command, cwd=ROOT, check=False)
    stdout, stderr = run.stdout.decode(), run.stderr.decode()
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "inspector.stdout").write_text(stdout, encoding="utf-8")
    (logs / "inspector.stderr").write_text(stderr, encoding="utf-8")
    check.expect(
        run.returncode == OK,
        f"exit code {run.returncode}: {last_line(stderr)}\n(its output: {relative(logs)}/inspector.stdout, inspector.stderr)",
    )
    return parse(stdout)


def check_output(check: Check, out: Any, method: str) -> None:
    if method == "tools/list":
        check.equal([t["name"] for t in out["result"]["tools"]], WEATHER_TOOLS, "tools")
    else:
        result = out["result"]
        check.equal(result.get("isError"), False, "isError")
        check.equal(result["structuredContent"]["city"], "Lima", "city")
        check.equal(len(result["structuredContent"]["days"]), 3, "days")


def check_wire(check: Check, sent: list[dict[str, Any]], era: str, method: str) -> None:
    """The messages the CLI sent: the era's opening, then `method` in that era."""
    methods = [m.get("method") for m in sent]
    if era == MODERN:
        check.equal(methods[:1], ["server/discover"], "the first message")
        for removed in ("initialize", "notifications/initialized"):
            check.expect(removed not in methods, f"the CLI sent {removed}: {methods}")
        # Requests carry the era in `_meta` (notifications need not).
        for message in sent:
            if "method" in message and "id" in message:
                meta = (message.get("params") or {}).get("_meta") or {}
                check.equal(meta.get(PROTOCOL_VERSION), MODERN, f"{message['method']}: _meta protocolVersion")
                check.expect(isinstance(meta.get(CLIENT_CAPABILITIES), dict), f"{message['method']}: no clientCapabilities")
    else:
        check.equal(methods[:2], ["initialize", "notifications/initialized"], "the first messages")
        check.expect("server/discover" not in methods, f"the CLI sent server/discover: {methods}")
        initialize = sent[0]["params"]
        check.equal(initialize.get("protocolVersion"), LEGACY, "the version initialize asks for")
    check.expect(method in methods, f"the CLI sent no {method}: {methods}")


async def the_inspector_negotiates_over_stdio(check: Check) -> None:
    for era, option in ((MODERN, "auto"), (LEGACY, "legacy")):
        for method, args in (("tools/list", ["--method", "tools/list"]), ("tools/call", FORECAST)):
            with check.step(f"stdio, --protocol-era {option}: {method} in {era}"):
                server = Server(f"inspector-era/stdio-{option}-{method.replace('/', '-')}", WEATHER)
                out = await run_cli(check, server.dir, ["--protocol-era", option, *args, "--format", "json", "--", *server.command])
                check_output(check, out, method)
                server.check_clean_exit(check)
                check_wire(check, server.sent(), era, method)
                if era == MODERN:
                    discover = await server.result(server.request_id("server/discover"))
                    check.expect(MODERN in discover.get("supportedVersions", []), f"server/discover: {discover}")
                    answer = await server.result(server.request_id(method))
                    check.equal(answer.get("resultType"), "complete", f"{method}: resultType")


async def the_inspector_reads_resources_and_prompts_in_2026(check: Check) -> None:
    """The resources, resource template and prompt steps of inspector.py,
    with --protocol-era auto on stdio; each run checked to be 2026-07-28."""

    def run(name: str, *args: str, expect_exit: int = OK) -> tuple[Any, Any]:
        out = inspector(check, f"auto-{name}", "--protocol-era", "auto", *args, expect_exit=expect_exit)
        # What inspector() ran went through tests/interop/record in this directory.
        sent = Server(f"inspector/auto-{name}", WEATHER).sent()
        methods = [m.get("method") for m in sent]
        check.equal(methods[:1], ["server/discover"], "the first message")
        check.expect("initialize" not in methods, f"the CLI sent initialize: {methods}")
        return out

    check_primitives(check, run, "stdio, --protocol-era auto: ")


async def the_inspector_negotiates_over_http(check: Check) -> None:
    async with HttpServer("inspector-era/http", WEATHER) as server:
        for era, option in ((MODERN, "auto"), (LEGACY, "legacy")):
            for method, args in (("tools/list", ["--method", "tools/list"]), ("tools/call", FORECAST)):
                name = f"inspector-era/http-{option}-{method.replace('/', '-')}"
                with check.step(f"http, --protocol-era {option}: {method} in {era}"):
                    async with WireRecorder(name, server.url) as proxy:
                        cli = ["--transport", "http", "--server-url", proxy.url, "--protocol-era", option]
                        out = await run_cli(check, proxy.dir, [*cli, *args, "--format", "json"])
                    check_output(check, out, method)
                    check_wire(check, proxy.sent(), era, method)
                    for post in proxy.posts():
                        methods = [m.get("method", "response") for m in post.messages()]
                        what = f"POST {methods}"
                        # In 2026-07-28 the CLI also opens subscriptions/listen,
                        # and goes on without it if the server refuses it (HTTP
                        # 404, -32601): not what this check is about.
                        if methods != ["subscriptions/listen"]:
                            check.expect(200 <= post.status < 300, f"{what}: HTTP {post.status}: {post.response[:300]}")
                        if era == MODERN:
                            check.equal(post.header("mcp-protocol-version"), MODERN, f"{what}: MCP-Protocol-Version")
                            check.expect(not post.response_headers.get("mcp-session-id"), f"{what}: a session id")
                    if era == MODERN:
                        answers = [m for post in proxy.posts() for m in post.answers() if "result" in m]
                        types = [a["result"].get("resultType") for a in answers]
                        check.expect(types and all(t == "complete" for t in types), f"resultTypes: {types}")
                        check.expect(
                            all(e.method == "POST" for e in proxy.exchanges),
                            f"requests other than POST: {[(e.method, e.status) for e in proxy.exchanges]}",
                        )
        with check.step("http: SIGTERM after the CLI runs: exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main(
        "inspector-era",
        [
            the_inspector_negotiates_over_stdio,
            the_inspector_reads_resources_and_prompts_in_2026,
            the_inspector_negotiates_over_http,
        ],
    )
