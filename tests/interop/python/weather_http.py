"""The weather example over Streamable HTTP, driven by the Python SDK.

Each check starts `weather --http 127.0.0.1:PORT` on a free loopback port,
talks to it with `mcp.client.streamable_http`, then stops it with SIGTERM:
it must exit 0.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/weather_http.py`.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import mcp.types as types
from harness import WEATHER, Check, HttpServer, main
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from weather import INVALID_PARAMS, WEATHER_TOOLS, structured, tool_error


async def the_weather_server_works_over_http(check: Check) -> None:
    async with HttpServer("python-http/weather", WEATHER) as server:
        async with streamable_http_client(server.url) as (read, write):
            async with ClientSession(read, write) as session:
                with check.step("initialize: version 2025-11-25, server info, tools capability"):
                    init = await session.initialize()
                    check.equal(init.protocol_version, "2025-11-25", "protocolVersion")
                    check.equal(init.server_info.name, "weather", "serverInfo.name")
                    check.expect(init.capabilities.tools is not None, "no tools capability")

                with check.step("tools/list: the six tools with their output schemas"):
                    listed = await session.list_tools()
                    check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
                    check.expect(all(tool.output_schema for tool in listed.tools), "a tool without outputSchema")

                # call_tool validates structuredContent against the outputSchema.
                with check.step("tools/call get_forecast: valid per its outputSchema"):
                    forecast = structured(await session.call_tool("get_forecast", {"city": "Cairo", "days": 2}))
                    check.equal((forecast["city"], len(forecast["days"])), ("Cairo", 2), "city and days")
                    found = structured(await session.call_tool("search_cities", {"query": "san"}))
                    check.equal([city["name"] for city in found["result"]], ["San Francisco", "Santiago"], "cities")

                with check.step("progress: one notification per day, in order, before the result"):
                    updates: list[tuple[float, float | None, str | None]] = []

                    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                        updates.append((progress, total, message))

                    result = await session.call_tool(
                        "get_forecast", {"city": "Lima", "days": 3}, progress_callback=on_progress
                    )
                    check.equal(len(structured(result)["days"]), 3, "days")
                    check.equal(updates, [(day, 3.0, f"day {day} of 3 ready") for day in (1, 2, 3)], "progress")

                with check.step("tools/call with invalid arguments: isError naming the problem"):
                    message = tool_error(await session.call_tool("get_forecast", {"city": "Cairo", "days": 9}))
                    check.expect("/days" in message and "maximum of 7" in message, f"days=9: {message!r}")
                    message = tool_error(await session.call_tool("get_forecast", {"city": "Pariss"}))
                    check.expect("Did you mean Paris?" in message, f"unknown city: {message!r}")

                with check.step("tools/call of an unknown tool: JSON-RPC error -32602 naming it"):
                    try:
                        result = await session.call_tool("no_such_tool", {})
                    except MCPError as error:
                        check.equal(error.error.code, INVALID_PARAMS, "error code")
                        check.expect("no_such_tool" in error.error.message, f"message: {error.error.message!r}")
                    else:
                        check.fail(f"expected an error, got {result}")

                with check.step("ping"):
                    check.equal(await session.send_ping(), types.EmptyResult(), "ping result")

        with check.step("SIGTERM after the client closed its session: exit 0"):
            await server.stop(check)


async def the_stateless_server_serves_without_a_session(check: Check) -> None:
    async with HttpServer("python-http/stateless", WEATHER, "--stateless") as server:
        async with streamable_http_client(server.url) as (read, write):
            async with ClientSession(read, write) as session:
                with check.step("--stateless: initialize, tools/list and tools/call without a session"):
                    await session.initialize()
                    listed = await session.list_tools()
                    check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
                    forecast = structured(await session.call_tool("get_forecast", {"city": "Cairo", "days": 1}))
                    check.equal(forecast["city"], "Cairo", "city")

        with check.step("--stateless: no session id is issued, GET is 405"):
            body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            request = urllib.request.Request(server.url, data=body, headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=10) as reply:
                check.equal(reply.headers.get("mcp-session-id"), None, "Mcp-Session-Id")
            request = urllib.request.Request(server.url, headers={"Accept": "text/event-stream"}, method="GET")
            try:
                urllib.request.urlopen(request, timeout=10)
                check.expect(False, "GET was answered 2xx")
            except urllib.error.HTTPError as error:
                check.equal(error.code, 405, "GET status")

        with check.step("--stateless: SIGTERM, exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main(
        "python-http",
        [
            the_weather_server_works_over_http,
            the_stateless_server_serves_without_a_session,
        ],
    )
