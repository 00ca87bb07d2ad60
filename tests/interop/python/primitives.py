"""The weather example's resources (with the MCP Apps view of get_forecast),
prompt, completions and subscriptions, driven by the Python SDK over stdio
and over Streamable HTTP.

The server runs with `WEATHER_REFRESH_SECS=0.2`, so its current conditions
are refreshed (and subscribers told) five times a second.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/primitives.py`.
"""

from __future__ import annotations

import json
import unicodedata
import warnings
from typing import Any

import anyio
import mcp.types as types
from harness import WEATHER, Check, HttpServer, Server, main, rpc_error
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

# The SDK marks resources/subscribe deprecated for the 2026-07-28 era; the
# server speaks 2025-11-25, where it is the way to subscribe.
warnings.filterwarnings("ignore", message="resources/subscribe is removed")
warnings.filterwarnings("ignore", message="resources/unsubscribe is removed")

FAST_REFRESH = {"WEATHER_REFRESH_SECS": "0.2"}
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002
CITY_COUNT = 36
SAO_PAULO = "weather://cities/S%C3%A3o%20Paulo"
# get_forecast's view (MCP Apps) and the MIME type the extension gives views.
VIEW = "ui://weather/forecast"
VIEW_MIME_TYPE = "text/html;profile=mcp-app"
PLAN_TRIP = types.PromptReference(type="ref/prompt", name="plan_trip")
CITY_TEMPLATE = types.ResourceTemplateReference(type="ref/resource", uri="weather://cities/{name}")


class Updates:
    """The `notifications/resources/updated` a session received, as a message handler."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self.arrived.set()

    async def next(self, seconds: float = 5) -> None:
        """Waits (at most `seconds`) for a notification after the ones seen so far."""
        self.arrived = anyio.Event()
        with anyio.fail_after(seconds):
            await self.arrived.wait()


def json_text(result: types.ReadResourceResult, uri: str) -> Any:
    """The JSON of a read's single text contents, checked to be `uri`'s, as JSON."""
    Check.equal(len(result.contents), 1, f"{uri}: number of contents")
    contents = result.contents[0]
    Check.expect(isinstance(contents, types.TextResourceContents), f"{uri}: not text: {contents}")
    assert isinstance(contents, types.TextResourceContents)
    Check.equal((str(contents.uri), contents.mime_type), (uri, "application/json"), f"{uri}: uri and mimeType")
    return json.loads(contents.text)


def without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


async def check_primitives(check: Check, session: ClientSession, on: str) -> None:
    """Lists, reads, gets and completes everything the weather example serves beside its tools."""
    with check.step(f"{on}: initialize: resources (with subscribe), prompts and completions capabilities"):
        init = await session.initialize()
        caps = init.capabilities
        check.expect(caps.resources and caps.resources.subscribe, f"resources capability: {caps.resources}")
        check.expect(caps.prompts is not None, "no prompts capability")
        check.expect(caps.completions is not None, "no completions capability")

    with check.step(f"{on}: resources/list: the skill's files, the view ui://weather/forecast (HTML) and weather://cities (JSON)"):
        listed = await session.list_resources()
        resources = [(str(r.uri), r.name, r.title, r.mime_type) for r in listed.resources]
        skill = "skill://weather/trip-briefing"
        check.equal(
            resources,
            [
                # By URI: the trip-briefing skill's files (SEP-2640), the view, the cities.
                (f"{skill}/SKILL.md", "trip-briefing", None, "text/markdown"),
                (
                    f"{skill}/references/briefing-template.md",
                    "trip-briefing/references/briefing-template.md",
                    None,
                    "text/markdown",
                ),
                (VIEW, "forecast_view", "Forecast chart", VIEW_MIME_TYPE),
                ("weather://cities", "cities", "Cities", "application/json"),
            ],
            "resources",
        )
        described = [r for r in listed.resources if not str(r.uri).startswith("skill://")]
        check.expect(all(r.description for r in described), "a resource without a description")

    with check.step(f"{on}: MCP Apps: tools/list links get_forecast to {VIEW}, resources/read gives its HTML"):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        meta = tools["get_forecast"].meta or {}
        check.equal(meta.get("ui", {}).get("resourceUri"), VIEW, "get_forecast _meta.ui.resourceUri")
        check.equal(meta.get("ui/resourceUri"), VIEW, 'get_forecast _meta["ui/resourceUri"] (the older key)')
        linked = [name for name, tool in tools.items() if tool.meta and "ui" in tool.meta]
        check.equal(linked, ["get_forecast"], "tools with a view")
        read = await session.read_resource(VIEW)
        check.equal(len(read.contents), 1, "number of contents")
        html = read.contents[0]
        check.expect(isinstance(html, types.TextResourceContents), f"not text: {html}")
        assert isinstance(html, types.TextResourceContents)
        check.equal((str(html.uri), html.mime_type), (VIEW, VIEW_MIME_TYPE), "uri and mimeType")
        check.expect(html.text.startswith("<!doctype html>"), f"not an HTML document: {html.text[:60]!r}")
        check.expect('<svg id="chart"' in html.text, "no chart (<svg id=\"chart\">) in the view")

    with check.step(f"{on}: resources/read weather://cities: JSON, 36 cities in order, each with its URI"):
        cities = json_text(await session.read_resource("weather://cities"), "weather://cities")
        check.equal(len(cities), CITY_COUNT, "number of cities")
        names = [city["name"] for city in cities]
        check.equal((names[0], names[-1]), ("Amsterdam", "Zürich"), "first and last")
        check.equal(names, sorted(names, key=without_accents), "alphabetical order (São Paulo after Santiago)")
        by_name = {city["name"]: city for city in cities}
        check.equal(by_name["Berlin"]["uri"], "weather://cities/Berlin", "Berlin's URI")
        check.equal(by_name["São Paulo"]["uri"], SAO_PAULO, "São Paulo's URI (percent-encoded)")
        check.equal(by_name["Paris"]["country"], "France", "Paris's country")

    with check.step(f"{on}: resources/templates/list: weather://cities/{{name}}"):
        templates = (await session.list_resource_templates()).resource_templates
        check.equal([(t.uri_template, t.name) for t in templates], [("weather://cities/{name}", "city")], "templates")
        check.equal(templates[0].mime_type, "application/json", "mimeType")

    with check.step(f"{on}: resources/read of each city's URI from the list: its data, 7 forecast days"):
        for city in cities:
            data = json_text(await session.read_resource(city["uri"]), city["uri"])
            check.equal((data["name"], data["country"]), (city["name"], city["country"]), city["uri"])
            check.equal([day["day"] for day in data["forecast"]], list(range(7)), f"{city['uri']}: forecast days")
            today, now = data["forecast"][0], data["current"]
            check.expect(today["low_c"] <= now["temperature_c"] <= today["high_c"], f"{city['name']}: {now} vs {today}")

    with check.step(f"{on}: resources/read of a city that does not exist: -32002 naming the URI"):
        error = await rpc_error(session.read_resource("weather://cities/Atlantis"))
        check.equal(error.code, RESOURCE_NOT_FOUND, f"error code ({error.message})")
        check.equal(error.data, {"uri": "weather://cities/Atlantis"}, "error data")

    with check.step(f"{on}: prompts/list: plan_trip, a required city and an optional days"):
        prompts = (await session.list_prompts()).prompts
        check.equal([(p.name, p.title) for p in prompts], [("plan_trip", "Plan a trip")], "prompts")
        arguments = [(a.name, a.required) for a in prompts[0].arguments or []]
        check.equal(arguments, [("city", True), ("days", False)], "arguments")

    with check.step(f"{on}: prompts/get plan_trip city=Lisbon days=2: the city's data, then the request"):
        got = await session.get_prompt("plan_trip", {"city": "Lisbon", "days": "2"})
        check.equal([m.role for m in got.messages], ["user", "user"], "roles")
        embedded, ask = got.messages[0].content, got.messages[1].content
        check.expect(isinstance(embedded, types.EmbeddedResource), f"first message: {embedded}")
        assert isinstance(embedded, types.EmbeddedResource)
        check.equal(str(embedded.resource.uri), "weather://cities/Lisbon", "embedded resource URI")
        assert isinstance(embedded.resource, types.TextResourceContents)
        check.equal(json.loads(embedded.resource.text)["name"], "Lisbon", "embedded city")
        check.expect(isinstance(ask, types.TextContent) and "2-day trip to Lisbon, Portugal" in ask.text, f"request: {ask}")

    with check.step(f"{on}: prompts/get with an unknown city or no city: -32602 saying why"):
        error = await rpc_error(session.get_prompt("plan_trip", {"city": "Lisbonn"}))
        check.equal(error.code, INVALID_PARAMS, "error code")
        check.expect("Did you mean Lisbon?" in error.message, f"message: {error.message!r}")
        error = await rpc_error(session.get_prompt("plan_trip", {}))
        check.equal(error.code, INVALID_PARAMS, "error code")
        check.expect("city" in error.message, f"message: {error.message!r}")

    with check.step(f"{on}: completion/complete: city names by prefix, any case or accent"):
        for ref, argument, prefix, expected in [
            (PLAN_TRIP, "city", "Be", ["Beijing", "Berlin"]),
            (PLAN_TRIP, "city", "sao", ["São Paulo"]),
            (PLAN_TRIP, "city", "NEW", ["New York"]),
            (PLAN_TRIP, "city", "x", []),
            (PLAN_TRIP, "days", "", []),
            (CITY_TEMPLATE, "name", "san", ["San Francisco", "Santiago"]),
        ]:
            result = await session.complete(ref, {"name": argument, "value": prefix})
            check.equal(result.completion.values, expected, f"{ref.type} {argument}={prefix!r}")
        everything = await session.complete(CITY_TEMPLATE, {"name": "name", "value": ""})
        check.equal(len(everything.completion.values), CITY_COUNT, "every city for an empty prefix")

    with check.step(f"{on}: completion/complete of an unknown prompt: -32602"):
        ref = types.PromptReference(type="ref/prompt", name="no_such_prompt")
        error = await rpc_error(session.complete(ref, {"name": "city", "value": "Be"}))
        check.equal(error.code, INVALID_PARAMS, "error code")


async def check_subscription(check: Check, session: ClientSession, updates: Updates, on: str, server: Server | None) -> None:
    """Subscribes to São Paulo's data (by the URI the city list gives), sees the refresh announced, unsubscribes.

    `server`, on stdio, is the record of what went over the wire.
    """
    with check.step(f"{on}: resources/subscribe: notifications/resources/updated for that URI, new data on read"):
        before = json_text(await session.read_resource(SAO_PAULO), SAO_PAULO)["current"]["refresh"]
        await session.subscribe_resource(SAO_PAULO)
        await updates.next()
        await updates.next()
        check.equal(set(updates.uris), {SAO_PAULO}, "URIs announced")
        after = json_text(await session.read_resource(SAO_PAULO), SAO_PAULO)["current"]["refresh"]
        check.expect(after > before, f"the data's refresh count went from {before} to {after}")

    with check.step(f"{on}: resources/unsubscribe: no more notifications"):
        await session.unsubscribe_resource(SAO_PAULO)
        if server is not None:
            # On stdio the answer and the notifications share one stream, in order.
            answer = await server.response(server.request_id("resources/unsubscribe"))
            await anyio.sleep(1)
            lines = server.received()
            updated = [
                (i, m["params"]["uri"]) for i, m in enumerate(lines) if m.get("method") == "notifications/resources/updated"
            ]
            check.expect(updated, "no notifications/resources/updated on the wire")
            check.equal({uri for _, uri in updated}, {SAO_PAULO}, "URIs announced on the wire")
            late = [i for i, _ in updated if i > lines.index(answer)]
            check.equal(late, [], "lines of notifications after the unsubscribe answer")
        else:
            # Over HTTP they travel on the GET stream: let those already sent arrive.
            await anyio.sleep(0.5)
            count = len(updates.uris)
            await anyio.sleep(1)
            check.equal(len(updates.uris), count, "notifications a second after unsubscribing")


async def the_weather_primitives_over_stdio(check: Check) -> None:
    server = Server("python-primitives/weather", WEATHER, env=FAST_REFRESH)
    updates = Updates()
    async with stdio_client(server.params) as (read, write):
        async with ClientSession(read, write, message_handler=updates) as session:
            await check_primitives(check, session, "stdio")
            await check_subscription(check, session, updates, "stdio", server)
    with check.step("stdio: close: the server exits 0"):
        server.check_clean_exit(check)


async def the_weather_primitives_over_http(check: Check) -> None:
    async with HttpServer("python-primitives/weather-http", WEATHER, env=FAST_REFRESH) as server:
        updates = Updates()
        async with streamable_http_client(server.url) as (read, write):
            async with ClientSession(read, write, message_handler=updates) as session:
                await check_primitives(check, session, "http")
                await check_subscription(check, session, updates, "http", None)
        with check.step("http: SIGTERM: exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main("python-primitives", [the_weather_primitives_over_stdio, the_weather_primitives_over_http])
