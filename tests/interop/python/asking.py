"""The Python SDK answering what our servers ask while a call runs: the
weather example's `subscribe_alerts` asks the user to confirm
(`elicitation_callback`), its `summarize_forecast` asks the client's model
(`sampling_callback`), and the conformance example's `list_roots` asks for
the client's roots (`list_roots_callback`), over stdio and over Streamable
HTTP.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/asking.py`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
from harness import CONFORMANCE, WEATHER, Check, HttpServer, Server, main
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from weather import structured, tool_error

MODEL = "interop-model"


class User:
    """The person and the model behind the client: answers each question
    as told, and keeps what it was asked."""

    def __init__(self) -> None:
        self.elicitations: list[types.ElicitRequestParams] = []
        self.samplings: list[types.CreateMessageRequestParams] = []
        self.answer: dict[str, Any] | None = {"confirm": True, "level": "emergency"}

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params)
        if self.answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=self.answer)

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.samplings.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="  Mild and mostly dry, a little rain later.  "),
            model=MODEL,
            stop_reason="endTurn",
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[
                types.Root(uri="file:///home/ada/forecasts", name="forecasts"),
                types.Root(uri="file:///tmp/scratch"),
            ]
        )


@contextlib.asynccontextmanager
async def session_over(transport: str, name: str, binary: Any, user: User | None) -> AsyncIterator[ClientSession]:
    """An initialized session with `binary` over `transport` ("stdio" or
    "http"), answering with `user`'s callbacks (none without a user)."""
    callbacks: dict[str, Any] = {}
    if user is not None:
        callbacks = {
            "elicitation_callback": user.elicit,
            "sampling_callback": user.sample,
            "list_roots_callback": user.roots,
        }
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            server = Server(f"python-asking/{name}", binary)
            read, write = await stack.enter_async_context(stdio_client(server.params))
        else:
            http = await stack.enter_async_context(HttpServer(f"python-asking-http/{name}", binary))
            read, write = await stack.enter_async_context(streamable_http_client(http.url))
        session = await stack.enter_async_context(ClientSession(read, write, **callbacks))
        await session.initialize()
        yield session


async def weather_asks(check: Check, transport: str) -> None:
    user = User()
    async with session_over(transport, "weather", WEATHER, user) as session:
        with check.step(f"{transport}: subscribe_alerts asks the user, who confirms with a level"):
            done = structured(await session.call_tool("subscribe_alerts", {"city": "paris"}))
            check.equal(done, {"city": "Paris", "subscribed": True, "level": "emergency"}, "result")
            check.equal(len(user.elicitations), 1, "questions asked")
            asked = user.elicitations[0]
            check.equal(asked.message, "Send severe-weather alerts for Paris, France?", "message")
            schema = asked.requested_schema
            check.equal(schema["properties"]["confirm"]["type"], "boolean", "confirm field")
            check.equal(
                schema["properties"]["level"]["oneOf"],
                [
                    {"const": "warning", "title": "Warnings and emergencies"},
                    {"const": "emergency", "title": "Emergencies only"},
                ],
                "level choices",
            )
            check.equal(schema["properties"]["level"]["default"], "warning", "level default")
            check.equal(schema["required"], ["confirm"], "required")

        with check.step(f"{transport}: the user leaves the level out: its default is used"):
            user.answer = {"confirm": True}
            done = structured(await session.call_tool("subscribe_alerts", {"city": "Lima"}))
            check.equal(done, {"city": "Lima", "subscribed": True, "level": "warning"}, "result")

        with check.step(f"{transport}: the user declines: nothing is subscribed, and it is not an error"):
            user.answer = None
            done = structured(await session.call_tool("subscribe_alerts", {"city": "Cairo"}))
            check.equal(done, {"city": "Cairo", "subscribed": False, "level": None}, "result")

        with check.step(f"{transport}: summarize_forecast asks the client's model"):
            summary = structured(await session.call_tool("summarize_forecast", {"city": "Tokyo", "days": 2}))
            check.equal(
                summary,
                {"city": "Tokyo", "summary": "Mild and mostly dry, a little rain later.", "model": MODEL},
                "result",
            )
            asked = user.samplings[0]
            check.equal(asked.system_prompt, "You summarize weather forecasts in one short sentence.", "systemPrompt")
            check.equal(asked.max_tokens, 200, "maxTokens")
            text = asked.messages[0].content
            check.expect(
                isinstance(text, types.TextContent) and text.text.startswith("The forecast for Tokyo, Japan:\nday 0: "),
                f"the user message: {text!r}",
            )

    async with session_over(transport, "weather-plain", WEATHER, None) as session:
        with check.step(f"{transport}: a client without the callbacks gets isError saying what it lacks"):
            message = tool_error(await session.call_tool("subscribe_alerts", {"city": "Paris"}))
            check.equal(
                message,
                "Could not ask the user: the client did not declare the `elicitation` capability, "
                "so it cannot be asked for it",
                "message",
            )
            message = tool_error(await session.call_tool("summarize_forecast", {"city": "Paris"}))
            check.expect("`sampling` capability" in message, f"sampling: {message!r}")


async def roots_are_listed(check: Check, transport: str) -> None:
    async with session_over(transport, "conformance", CONFORMANCE, User()) as session:
        with check.step(f"{transport}: list_roots gets the client's roots from list_roots_callback"):
            roots = structured(await session.call_tool("list_roots", {}))
            check.equal(roots, {"result": ["forecasts: file:///home/ada/forecasts", "file:///tmp/scratch"]}, "roots")


async def the_weather_example_asks_over_stdio(check: Check) -> None:
    await weather_asks(check, "stdio")


async def the_weather_example_asks_over_http(check: Check) -> None:
    await weather_asks(check, "http")


async def roots_over_stdio(check: Check) -> None:
    await roots_are_listed(check, "stdio")


async def roots_over_http(check: Check) -> None:
    await roots_are_listed(check, "http")


if __name__ == "__main__":
    main(
        "python-asking",
        [the_weather_example_asks_over_stdio, the_weather_example_asks_over_http, roots_over_stdio, roots_over_http],
    )
