"""The gateway example in front of servers we did not write, driven by the Python SDK.

The gateway (examples/gateway) serves, over Streamable HTTP, three stdio
servers it mounts: the reference server `@modelcontextprotocol/server-everything`,
`@modelcontextprotocol/server-filesystem` on a scratch folder this check
makes (both npm, pinned in tests/upstreams), and a server written with the
Python SDK (tests/upstreams/python_server.py). The Python SDK's client, on
the other side, sees their tools under their prefixes, calls them, reads
their resources, gets their prompts, with progress and cancellation passing
through; the rate limit and `--per-session` are checked on gateways of
their own. Each gateway is stopped with SIGTERM and must exit 0.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/gateway.py`.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from harness import EVERYTHING, FILESYSTEM, GATEWAY, LOGS, NODE, PYTHON_SERVER, Check, HttpServer, main, rpc_error
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from weather import text_of

INVALID_REQUEST = -32600

# The three upstreams, each command after a `--` with the name that prefixes it.
EVERYTHING_COMMAND = ("--name", "everything", str(NODE), str(EVERYTHING), "stdio")
PYTHON_COMMAND = ("--name", "py", sys.executable, str(PYTHON_SERVER))
# The Python server alone, unnamed: its tools keep their names.
PYTHON_ALONE = (sys.executable, str(PYTHON_SERVER))


def result_of(result: types.CallToolResult) -> Any:
    """What a tool of the Python server returned: the SDK wraps it as
    `{"result": ...}` in structuredContent."""
    Check.expect(not result.is_error, f"the call failed: {result.content}")
    Check.expect(isinstance(result.structured_content, dict), f"no structuredContent: {result}")
    assert isinstance(result.structured_content, dict)
    return result.structured_content["result"]


def filesystem_command(folder: Path) -> tuple[str, ...]:
    return ("--name", "files", str(NODE), str(FILESYSTEM), str(folder))


def scratch_folder(name: str) -> Path:
    """An empty folder for the filesystem server, with one file in it."""
    folder = LOGS / name / "scratch"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "hello.txt").write_text("hello from the scratch folder\n")
    return folder


def gateway(name: str, *options: str, upstreams: list[tuple[str, ...]]) -> HttpServer:
    """The gateway with `--http` on a free port, these options, and these upstreams."""
    for needed in (NODE, EVERYTHING, FILESYSTEM):
        if not needed.exists():
            Check.fail(f"{needed} does not exist: tests/interop/run runs tests/upstreams/install first")
    args: list[str] = list(options)
    for command in upstreams:
        args += ["--", *command]
    return HttpServer(name, GATEWAY, *args)


@asynccontextmanager
async def session_with(server: HttpServer) -> AsyncIterator[ClientSession]:
    """An initialized session of the Python SDK's Streamable HTTP client."""
    async with streamable_http_client(server.url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def cancel_a_waiting_call(check: Check, session: ClientSession, tool: str, tag: str) -> None:
    """Starts `tool` (the fixture's wait_for_cancel) and cancels it once it
    reported that it waits; the call must not finish."""
    waiting = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        waiting.set()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:

            async def call() -> None:
                await session.call_tool(tool, {"tag": tag}, progress_callback=on_progress)
                check.fail("the call finished although it was cancelled")

            group.start_soon(call)
            await waiting.wait()  # the upstream tool is running
            # Leaving the cancel scope makes the SDK send notifications/cancelled.
            group.cancel_scope.cancel()


async def cancelled_tags(session: ClientSession, tool: str, expected: list[str]) -> Any:
    """What `tool` (the fixture's cancelled_calls) answers, asked again for up
    to 5 s until it is `expected` (the cancellation travels on its own)."""
    deadline = time.monotonic() + 5
    while True:
        tags = result_of(await session.call_tool(tool, {}))
        if tags == expected or time.monotonic() > deadline:
            return tags
        await anyio.sleep(0.1)


async def three_servers_behind_one_gateway(check: Check) -> None:
    folder = scratch_folder("gateway/three")
    upstreams = [EVERYTHING_COMMAND, filesystem_command(folder), PYTHON_COMMAND]
    async with gateway("gateway/three", upstreams=upstreams) as server:
        async with session_with(server) as session:
            with check.step("tools/list: every server's tools, prefixed with its name"):
                names = [tool.name for tool in (await session.list_tools()).tools]
                for expected in (
                    "everything_echo",
                    "everything_trigger-long-running-operation",
                    "files_read_text_file",
                    "files_list_directory",
                    "py_add",
                    "py_wait_for_cancel",
                ):
                    check.expect(expected in names, f"{expected} is not among the tools: {names}")
                check.expect(not [n for n in names if n in ("echo", "add")], f"an unprefixed tool: {names}")

            with check.step("tools/call through the gateway: each server's answer as it gave it"):
                echo = await session.call_tool("everything_echo", {"message": "through the gateway"})
                check.expect("through the gateway" in text_of(echo), f"echo: {echo}")
                check.equal(result_of(await session.call_tool("py_add", {"a": 2, "b": 40})), 42, "py_add")
                listing = await session.call_tool("files_list_directory", {"path": str(folder)})
                check.expect("hello.txt" in text_of(listing), f"list_directory: {listing}")
                read = await session.call_tool("files_read_text_file", {"path": str(folder / "hello.txt")})
                check.expect("hello from the scratch folder" in text_of(read), f"read_text_file: {read}")

            with check.step("a tool error of the upstream stays a tool error (isError)"):
                outside = await session.call_tool("files_read_text_file", {"path": "/etc/hostname"})
                check.expect(outside.is_error, f"reading outside the allowed folder: {outside}")

            with check.step("resources: both servers' resources listed and read, URIs unchanged"):
                uris = [str(resource.uri) for resource in (await session.list_resources()).resources]
                check.expect("fixture://greeting" in uris, f"fixture://greeting in {uris}")
                static = [uri for uri in uris if uri.startswith("demo://resource/static/")]
                check.expect(static, f"no static resource of server-everything in {uris}")
                greeting = (await session.read_resource("fixture://greeting")).contents
                check.equal(
                    [getattr(c, "text", None) for c in greeting], ["Hello from the Python fixture server"], "greeting"
                )
                document = (await session.read_resource(static[0])).contents
                check.expect(document and str(document[0].uri) == static[0], f"reading {static[0]}: {document}")
                templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
                check.expect("fixture://notes/{name}" in templates, f"templates: {templates}")
                note = (await session.read_resource("fixture://notes/todo")).contents
                check.equal([getattr(c, "text", None) for c in note], ["the note called todo"], "a templated read")

            with check.step("prompts: prefixed, and got with their arguments"):
                prompts = [prompt.name for prompt in (await session.list_prompts()).prompts]
                for expected in ("py_review", "everything_simple-prompt", "everything_args-prompt"):
                    check.expect(expected in prompts, f"{expected} in {prompts}")
                review = await session.get_prompt("py_review", {"code": "x = 1"})
                message = review.messages[0].content
                check.expect(isinstance(message, types.TextContent) and "x = 1" in message.text, f"review: {review}")
                simple = await session.get_prompt("everything_simple-prompt", {})
                check.expect(simple.messages, f"simple-prompt: {simple}")

            with check.step("progress: the upstream's notifications reach our progress callback"):
                updates: list[tuple[float, float | None]] = []

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    updates.append((progress, total))

                await session.call_tool(
                    "everything_trigger-long-running-operation",
                    {"duration": 0.4, "steps": 4},
                    progress_callback=on_progress,
                )
                check.equal(updates, [(step, 4.0) for step in (1, 2, 3, 4)], "server-everything's progress")
                updates.clear()
                counted = await session.call_tool("py_count", {"steps": 3}, progress_callback=on_progress)
                check.equal(result_of(counted), "counted to 3", "py_count")
                check.equal(updates, [(step, 3.0) for step in (1, 2, 3)], "the Python server's progress")

            with check.step("cancellation: a call cancelled by the client is cancelled in the upstream"):
                await cancel_a_waiting_call(check, session, "py_wait_for_cancel", "first")
                tags = await cancelled_tags(session, "py_cancelled_calls", ["first"])
                check.equal(tags, ["first"], "the calls the Python server saw cancelled")

        async with session_with(server) as other:
            with check.step("shared upstream: a second session reaches the same upstream process"):
                tags = await cancelled_tags(other, "py_cancelled_calls", ["first"])
                check.equal(tags, ["first"], "what the second session's upstream recorded")

        with check.step("SIGTERM: the gateway and its upstreams stop, exit 0"):
            await server.stop(check)


async def the_rate_limit_is_per_client(check: Check) -> None:
    async with gateway("gateway/rate-limit", "--rate-limit", "2", upstreams=[PYTHON_ALONE]) as server:
        async with session_with(server) as first, session_with(server) as second:
            with check.step("one upstream without --name: its tools keep their names"):
                names = [tool.name for tool in (await first.list_tools()).tools]
                check.expect("add" in names and "py_add" not in names, f"tools: {names}")

            with check.step("--rate-limit 2: the third call in a burst is refused with -32600, saying when to retry"):
                for _ in range(2):
                    result_of(await first.call_tool("add", {"a": 1, "b": 1}))
                error = await rpc_error(first.call_tool("add", {"a": 1, "b": 1}))
                check.equal(error.code, INVALID_REQUEST, "error code")
                check.expect(
                    "rate limit exceeded" in error.message and "retry in" in error.message, f"message: {error.message!r}"
                )

            with check.step("--rate-limit: another client (session) has its own quota; lists are not counted"):
                await second.list_tools()
                for _ in range(2):
                    result_of(await second.call_tool("add", {"a": 2, "b": 2}))
                await first.list_tools()

            with check.step("--rate-limit: the quota refills (2 calls a second)"):
                await anyio.sleep(0.6)
                check.equal(result_of(await first.call_tool("add", {"a": 3, "b": 3})), 6, "add")

        with check.step("--rate-limit: SIGTERM, exit 0"):
            await server.stop(check)


async def per_session_gives_each_client_its_own_upstream(check: Check) -> None:
    async with gateway("gateway/per-session", "--per-session", upstreams=[PYTHON_ALONE]) as server:
        async with session_with(server) as first, session_with(server) as second:
            with check.step("--per-session: a cancellation is recorded by the cancelling session's process only"):
                await cancel_a_waiting_call(check, first, "wait_for_cancel", "mine")
                check.equal(await cancelled_tags(first, "cancelled_calls", ["mine"]), ["mine"], "first session")
                check.equal(await cancelled_tags(second, "cancelled_calls", []), [], "second session")

        with check.step("--per-session: SIGTERM, exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main(
        "gateway",
        [
            three_servers_behind_one_gateway,
            the_rate_limit_is_per_client,
            per_session_gives_each_client_its_own_upstream,
        ],
    )
