"""The weather example and the progress example, driven by the Python SDK.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/weather.py`.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import mcp.types as types
from harness import PROGRESS, WEATHER, Check, Server, main
from mcp import ClientSession, MCPError
from mcp.client.stdio import stdio_client

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
WEATHER_TOOLS = ["current_conditions", "get_forecast", "search_cities", "subscribe_alerts", "summarize_forecast", "weather_report"]
INVALID_PARAMS = -32602


def text_of(result: types.CallToolResult) -> str:
    """The text of a result's single text block."""
    Check.equal([block.type for block in result.content], ["text"], "content block types")
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def structured(result: types.CallToolResult) -> Any:
    """The structured content of a successful result, checked against its text block."""
    Check.expect(not result.is_error, f"the call failed: {result.content}")
    Check.expect(result.structured_content is not None, "no structuredContent")
    Check.equal(json.loads(text_of(result)), result.structured_content, "the text block's JSON")
    return result.structured_content


def tool_error(result: types.CallToolResult) -> str:
    """The message of a result with `isError: true`."""
    Check.expect(result.is_error, f"expected isError: true, got a result: {result}")
    Check.expect(result.structured_content is None, "an error result carries structuredContent")
    return text_of(result)


async def the_weather_server_works_end_to_end(check: Check) -> None:
    """Everything a client does with a server, in one session, as an application would."""
    server = Server("python/weather", WEATHER)
    async with stdio_client(server.params) as (read, write):
        async with ClientSession(read, write) as session:
            with check.step("initialize: version 2025-11-25, server info, tools capability, instructions"):
                init = await session.initialize()
                check.equal(init.protocol_version, "2025-11-25", "protocolVersion")
                check.equal(init.server_info.name, "weather", "serverInfo.name")
                check.expect(init.server_info.version, "serverInfo.version is empty")
                check.expect(init.capabilities.tools is not None, "no tools capability")
                check.expect("search_cities" in (init.instructions or ""), f"instructions: {init.instructions!r}")

            with check.step("tools/list: the six tools, each with a title, schemas and annotations"):
                listed = await session.list_tools()
                check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
                for tool in listed.tools:
                    check.expect(tool.title and tool.description, f"{tool.name}: no title or description")
                    check.equal(tool.input_schema.get("type"), "object", f"{tool.name} inputSchema type")
                    check.equal(tool.input_schema.get("additionalProperties"), False, f"{tool.name} additionalProperties")
                    check.expect(tool.output_schema, f"{tool.name}: no outputSchema")
                    # subscribe_alerts changes what the server will send.
                    read_only = tool.name != "subscribe_alerts"
                    check.equal(
                        bool(tool.annotations and tool.annotations.read_only_hint), read_only, f"{tool.name}: read-only"
                    )
                check.expect(listed.next_cursor is None, "a second page for six tools")

            # call_tool validates structuredContent against the outputSchema
            # listed above and raises if it does not conform.
            with check.step("tools/call get_forecast: a 2-day forecast in Fahrenheit, valid per its outputSchema"):
                forecast = structured(
                    await session.call_tool("get_forecast", {"city": "Paris", "days": 2, "unit": "fahrenheit"})
                )
                check.equal((forecast["city"], forecast["country"]), ("Paris", "France"), "city")
                check.equal(forecast["unit"], "fahrenheit", "unit")
                check.equal([day["day"] for day in forecast["days"]], [0, 1], "days")
                celsius = structured(await session.call_tool("get_forecast", {"city": "Paris", "days": 2}))
                for f, c in zip(forecast["days"], celsius["days"], strict=True):
                    check.expect(f["low"] <= f["high"], f"low above high: {f}")
                    # Both are rounded to one decimal from the same value.
                    check.expect(abs(f["high"] - (c["high"] * 9 / 5 + 32)) <= 0.2, f"{c['high']} °C is not {f['high']} °F")

            with check.step("tools/call get_forecast with only the required argument: 3 days"):
                forecast = structured(await session.call_tool("get_forecast", {"city": "Tokyo"}))
                check.equal((len(forecast["days"]), forecast["unit"]), (3, "celsius"), "default days and unit")

            with check.step("tools/call current_conditions: a city name without its accent"):
                now = structured(await session.call_tool("current_conditions", {"city": "sao paulo"}))
                check.equal((now["city"], now["country"]), ("São Paulo", "Brazil"), "city")
                check.expect(0 <= now["humidity_percent"] <= 100, f"humidity {now['humidity_percent']}")

            with check.step("tools/call search_cities: a list, wrapped as {result: [...]}"):
                found = structured(await session.call_tool("search_cities", {"query": "san"}))
                check.equal([city["name"] for city in found["result"]], ["San Francisco", "Santiago"], "cities")
                # Countries match after names: then by city name.
                found = structured(await session.call_tool("search_cities", {"query": "united", "limit": 2}))
                check.equal([city["name"] for city in found["result"]], ["Chicago", "Dubai"], "cities")
                none = structured(await session.call_tool("search_cities", {"query": "atlantis"}))
                check.equal(none, {"result": []}, "no match")

            with check.step("tools/call with invalid arguments: isError, naming each problem"):
                message = tool_error(await session.call_tool("get_forecast", {"city": "Paris", "days": 9}))
                check.expect("/days" in message and "maximum of 7" in message, f"days=9: {message!r}")
                message = tool_error(await session.call_tool("search_cities", {"limit": 5}))
                check.expect("query" in message, f"missing query: {message!r}")
                message = tool_error(await session.call_tool("get_forecast", {"city": "Paris", "dayz": 2}))
                check.expect("dayz" in message and "days" in message, f"unknown argument: {message!r}")
                message = tool_error(await session.call_tool("current_conditions", {"city": 42}))
                check.expect("/city" in message, f"city=42: {message!r}")

            with check.step("tools/call for a city it does not know: isError with a suggestion"):
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

    with check.step("close: the server exits 0 when its stdin closes"):
        server.check_clean_exit(check)


async def progress_arrives_for_each_forecast_day(check: Check) -> None:
    server = Server("python/weather-progress", WEATHER)
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with stdio_client(server.params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with check.step("progress: one notification per day, in order, before the result"):
                result = await session.call_tool(
                    "get_forecast", {"city": "Lima", "days": 4}, progress_callback=on_progress
                )
                check.equal(len(structured(result)["days"]), 4, "days")
                check.equal(
                    updates,
                    [(day, 4.0, f"day {day} of 4 ready") for day in (1, 2, 3, 4)],
                    "progress notifications",
                )
                # On the wire too: every notification came before the response.
                call_id = server.request_id("tools/call", name="get_forecast")
                response = await server.response(call_id)
                lines = server.received()
                answer = lines.index(response)
                token = next(m for m in server.sent() if m.get("id") == call_id)["params"]["_meta"]["progressToken"]
                progress = [
                    i
                    for i, m in enumerate(lines)
                    if m.get("method") == "notifications/progress" and m["params"]["progressToken"] == token
                ]
                check.equal(len(progress), 4, "progress notifications on the wire")
                check.expect(max(progress) < answer, "a progress notification came after the result")
    with check.step("close after progress: exit 0"):
        server.check_clean_exit(check)


async def a_cancelled_call_gets_no_result(check: Check) -> None:
    server = Server("python/progress-cancel", PROGRESS)
    seen = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.set()

    async with stdio_client(server.params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            with check.step("cancel: a call cancelled by the client never gets a result"):
                # 10 numbers, 100 ms apart: about 1 s if it ran to the end.
                started = time.monotonic()
                with anyio.move_on_after(5):
                    async with anyio.create_task_group() as group:

                        async def call() -> None:
                            await session.call_tool(
                                "count_slowly", {"to": 10, "delay_ms": 100}, progress_callback=on_progress
                            )
                            check.fail("the call finished although it was cancelled")

                        group.start_soon(call)
                        await seen.wait()  # the tool is running
                        # Leaving the cancel scope makes the SDK send notifications/cancelled.
                        group.cancel_scope.cancel()
                # Past the time the whole count would have taken, and a ping
                # answered, so anything the server meant to send has arrived.
                await anyio.sleep(max(0.0, started + 1.5 - time.monotonic()))
                await session.send_ping()
                await server.result(server.request_id("ping"))
                call_id = server.request_id("tools/call", name="count_slowly")
                cancels = [m for m in server.sent() if m.get("method") == "notifications/cancelled"]
                check.equal([m["params"]["requestId"] for m in cancels], [call_id], "notifications/cancelled sent")
                check.equal(await server.response(call_id, wait=0), None, "a response to the cancelled call")
                progress = [m for m in server.received() if m.get("method") == "notifications/progress"]
                check.expect(len(progress) < 10, f"the count ran to the end ({len(progress)} progress notifications)")

            with check.step("cancel: the session goes on, the next call gets its result"):
                result = await session.call_tool("count_slowly", {"to": 2, "delay_ms": 10})
                check.equal(text_of(result), "counted to 2", "result")
    with check.step("close after a cancelled call: exit 0"):
        server.check_clean_exit(check)


async def initialize_at(session: ClientSession, version: str) -> types.InitializeResult:
    """The initialize handshake, offering `version` (ClientSession.initialize offers only the latest)."""
    result = await session.send_request(
        types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=version,
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="interop-legacy", version="1.0.0"),
            )
        ),
        types.InitializeResult,
    )
    session.adopt(result)
    await session.send_notification(types.InitializedNotification())
    return result


async def each_protocol_version_gets_results_shaped_for_it(check: Check) -> None:
    for offered in [*LEGACY_VERSIONS, "2099-01-01"]:
        expected = offered if offered in LEGACY_VERSIONS else "2025-11-25"
        structured_era = expected >= "2025-06-18"
        server = Server(f"python/version-{offered}", WEATHER)
        async with stdio_client(server.params) as (read, write):
            async with ClientSession(read, write) as session:
                with check.step(f"{offered}: initialize answers {expected}"):
                    result = await initialize_at(session, offered)
                    check.equal(result.protocol_version, expected, "protocolVersion")

                with check.step(f"{offered}: tools/list has only the fields {expected} defines"):
                    listed = await session.list_tools()
                    check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
                    raw = (await server.result(server.request_id("tools/list")))["tools"]
                    for tool in raw:
                        check.equal("title" in tool, structured_era, f"{tool['name']}: has title")
                        check.equal("outputSchema" in tool, structured_era, f"{tool['name']}: has outputSchema")
                        check.equal("annotations" in tool, expected >= "2025-03-26", f"{tool['name']}: has annotations")

                with check.step(f"{offered}: tools/call result has structuredContent only from 2025-06-18"):
                    result = await session.call_tool("get_forecast", {"city": "Cairo", "days": 1})
                    check.expect(not result.is_error, f"the call failed: {result.content}")
                    raw = await server.result(server.request_id("tools/call", name="get_forecast"))
                    check.equal("structuredContent" in raw, structured_era, "has structuredContent")
                    data = json.loads(text_of(result))
                    check.equal(data["city"], "Cairo", "the text block's city")
                    if structured_era:
                        check.equal(raw["structuredContent"], data, "structuredContent")

                with check.step(f"{offered}: invalid arguments are an isError result"):
                    message = tool_error(await session.call_tool("get_forecast", {"city": "Cairo", "days": 0}))
                    check.expect("/days" in message, f"days=0: {message!r}")

                with check.step(f"{offered}: ping"):
                    await session.send_ping()
        with check.step(f"{offered}: close, exit 0"):
            server.check_clean_exit(check)


if __name__ == "__main__":
    main(
        "python",
        [
            the_weather_server_works_end_to_end,
            progress_arrives_for_each_forecast_day,
            a_cancelled_call_gets_no_result,
            each_protocol_version_gets_results_shaped_for_it,
        ],
    )
