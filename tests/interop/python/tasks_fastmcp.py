"""Tasks in the 2026-07-28 era (the extension `io.modelcontextprotocol/tasks`,
SEP-2663) with FastMCP's client and its `fastmcp-tasks` package, against the
weather example's slow tool `weather_report` (36 cities, 100 ms each), over
stdio (under tests/interop/record) and over Streamable HTTP (through the
recording proxy of wire.py).

FastMCP's client speaks tasks only in this era (`mode="auto"`, which probes
`server/discover`); the Python SDK (`mcp` 2.3.0) has no tasks client in
either era, and the TypeScript SDK's (2025-11-25) is checked by
tests/interop/ts/tasks.mjs. Each transport: the extension declared by
`server/discover` (and no legacy `tasks` capability), a plain `call_tool`
that the server turns into a task and the client polls to the report, a
task driven by hand with `call_tool_task` (status, wait, result), one
cancelled mid-way, a cancel of a finished task acknowledged, and -32602 for
an unknown task id.

Run by tests/interop/run in its own venv (FastMCP pinned in
tests/interop/fastmcp/requirements.txt):
`target/interop/fastmcp-venv/bin/python tests/interop/python/tasks_fastmcp.py`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import anyio
import fastmcp_tasks  # noqa: F401  (importing it turns task support on in every Client)
from era import MODERN, HttpWire, StdioWire, Wire, requests, result_of
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from fastmcp_tasks.client import ToolTask, call_tool_task
from fastmcp_tasks.client_models import (
    CancelTaskRequest,
    ClientGetTaskResult,
    GetTaskRequest,
    GetTaskRequestParams,
    UpdateTaskRequest,
)
from harness import WEATHER, Check, HttpServer, Server, main, rpc_error
from wire import WireRecorder

EXTENSION = "io.modelcontextprotocol/tasks"
TOOL = "weather_report"
CITIES = 36


@contextlib.contextmanager
def mcp_name_for_tasks() -> Iterator[None]:
    """Makes fastmcp-tasks send the `Mcp-Name` header on tasks/get, tasks/update
    and tasks/cancel over HTTP, as SEP-2663 (§Streamable HTTP: Routing
    Headers) says a client MUST (`Mcp-Name: <taskId>`): fastmcp-tasks 4.1.4
    sends none, and the server refuses such a request (-32020, HTTP 400).
    The SDK under it mirrors `params[name_param]` into the header."""
    classes = (GetTaskRequest, UpdateTaskRequest, CancelTaskRequest)
    for request in classes:
        request.name_param = "taskId"
    try:
        yield
    finally:
        for request in classes:
            request.name_param = None


def check_report(report: Any, days: int) -> None:
    Check.expect(isinstance(report, dict), f"no structured report: {report!r}")
    Check.equal(report.get("days"), days, "the report's days")
    Check.equal(len(report.get("cities") or []), CITIES, "cities in the report")


async def drive(check: Check, label: str, client: Client, wire: Wire) -> None:
    with check.step(f"{label}: mode=auto: {MODERN}, the tasks extension declared by server/discover"):
        check.equal(client.session.protocol_version, MODERN, "protocol version")
        discover = client.session.discover_result
        check.expect(discover is not None, "no server/discover result")
        capabilities = discover.capabilities.model_dump(by_alias=True, exclude_none=True)
        check.expect(EXTENSION in (capabilities.get("extensions") or {}), f"extensions: {capabilities.get('extensions')}")
        # SEP-2663 §Backward Compatibility: not the 2025-11-25 capability.
        check.expect("tasks" not in capabilities, f"the legacy tasks capability in {MODERN}: {capabilities.get('tasks')}")

    with check.step(f"{label}: call_tool: the server answers with a task, the client polls it to the report"):
        result = await client.call_tool(TOOL, {"days": 2})
        check_report(result.structured_content, 2)
        (call,) = (await requests(wire, "tools/call", TOOL))[-1:]
        created = await result_of(wire, call)
        check.equal(created.get("resultType"), "task", "resultType of the tools/call answer")
        polls = [
            poll
            for poll in await requests(wire, "tasks/get", count=1)
            if (poll.get("params") or {}).get("taskId") == created.get("taskId")
        ]
        check.expect(polls, f"no tasks/get for the task {created.get('taskId')}")
        last = await result_of(wire, polls[-1])
        check.equal(last.get("status"), "completed", "the last tasks/get's status")
        check.equal((last.get("result") or {}).get("structuredContent"), result.structured_content, "the inlined result")

    task: ToolTask | None = None
    with check.step(f"{label}: call_tool_task: working, then completed; result() gives the report"):
        task = await call_tool_task(client, TOOL, {"days": 1})
        check.equal(task.create_result.status, "working", "status when created")
        check.equal((await task.status()).status, "working", "tasks/get at once")
        finished = await task.wait(timeout=30)
        check.equal(finished.status, "completed", "status at the end")
        check_report((await task.result()).structured_content, 1)

    with check.step(f"{label}: tasks/cancel mid-way: acknowledged, the task ends cancelled, result() raises"):
        running = await call_tool_task(client, TOOL, {})
        await anyio.sleep(0.5)
        await running.cancel()
        ended = await running.wait(timeout=10)
        check.equal(ended.status, "cancelled", "status after the cancel")
        check.expect(ended.result is None, f"a cancelled task with a result: {ended.result}")
        await anyio.sleep(0.5)
        check.equal((await running.status()).status, "cancelled", "status half a second later")
        try:
            await running.result()
        except ToolError as error:
            check.expect("cancelled" in str(error), f"result(): {error}")
        else:
            check.fail("result() of a cancelled task returned")

    with check.step(f"{label}: tasks/cancel of a finished task: acknowledged, it stays completed"):
        check.expect(task is not None, "no task was created")
        await task.cancel()
        check.equal((await task.status()).status, "completed", "status after the cancel")

    with check.step(f"{label}: tasks/get of an unknown task id: -32602"):
        request = GetTaskRequest(params=GetTaskRequestParams(task_id="no-such-task"))
        error = await rpc_error(client.session.send_request(request, ClientGetTaskResult))
        check.equal(error.code, -32602, f"error code ({error.message})")


async def over_stdio(check: Check) -> None:
    server = Server("fastmcp-tasks/stdio", WEATHER)
    params = server.params
    transport = StdioTransport(params.command, params.args, cwd=params.cwd, keep_alive=False)
    async with Client(transport) as client:
        await drive(check, "stdio", client, StdioWire(server))
    with check.step("stdio: close, exit 0"):
        server.check_clean_exit(check)


async def over_http(check: Check) -> None:
    async with (
        HttpServer("fastmcp-tasks/http", WEATHER) as server,
        WireRecorder("fastmcp-tasks/http", server.url) as proxy,
    ):
        async with Client(proxy.url) as client:
            with check.step("http: tasks/get without Mcp-Name, as fastmcp-tasks 4.1.4 sends it: -32020, HTTP 400"):
                request = GetTaskRequest(params=GetTaskRequestParams(task_id="no-such-task"))
                error = await rpc_error(client.session.send_request(request, ClientGetTaskResult))
                check.equal(error.code, -32020, f"error code ({error.message})")
                gets = [post for post in proxy.posts() if post.messages()[0].get("method") == "tasks/get"]
                check.equal([(post.header("mcp-name"), post.status) for post in gets], [(None, 400)], "Mcp-Name and status")
            with mcp_name_for_tasks():
                await drive(check, "http", client, HttpWire(proxy))
        with check.step("http: SIGTERM, exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main("fastmcp-tasks", [over_stdio, over_http])
