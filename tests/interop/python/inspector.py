"""The weather example, driven by the MCP Inspector CLI (2.12.0, on Node 22),
over stdio and over Streamable HTTP (`--transport http`): its tools, its
resources and resource template (with get_forecast's MCP Apps view and the
tool's link to it), and its prompt.

Each step runs one `mcp-inspector --cli ...` command line, printed before it
runs, and checks its exit code (0 ok, 5 for a result with `isError`, 1 for
anything else, including a `structuredContent` that breaks the tool's
`outputSchema`) and its JSON output. The server runs under
tests/interop/record, so every step also checks that it exited 0.

Run by tests/interop/run, with the pinned Inspector and Node 22 first on
PATH: `target/interop/venv/bin/python tests/interop/python/inspector.py`.
"""

from __future__ import annotations

import functools
import json
import shlex
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

from harness import ROOT, WEATHER, Check, HttpServer, Server, main, relative
from weather import WEATHER_TOOLS

OK, FAILURE, TOOL_ERROR = 0, 1, 5
# get_forecast's view (MCP Apps) and the MIME type the extension gives views.
VIEW = "ui://weather/forecast"
VIEW_MIME_TYPE = "text/html;profile=mcp-app"


def inspector(check: Check, name: str, *args: str, expect_exit: int = OK) -> tuple[Any, Any]:
    """Runs the Inspector CLI against a recorded weather server; returns (stdout JSON, stderr JSON)."""
    executable = shutil.which("mcp-inspector")
    check.expect(executable, "mcp-inspector is not on PATH: tests/interop/run puts the pinned one there")
    server = Server(f"inspector/{name}", WEATHER)
    command = ["mcp-inspector", "--cli", *args, "--format", "json", "--", *server.command]
    print(f"     $ {shlex.join(command)}", flush=True)
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    (server.dir / "inspector.stdout").write_text(run.stdout, encoding="utf-8")
    (server.dir / "inspector.stderr").write_text(run.stderr, encoding="utf-8")
    # On failure its last line on stderr is a JSON error envelope.
    check.expect(
        run.returncode == expect_exit,
        f"exit code {run.returncode}, expected {expect_exit}: {last_line(run.stderr)}\n"
        f"(its output: {relative(server.dir)}/inspector.stdout, inspector.stderr)",
    )
    server.check_clean_exit(check)
    return parse(run.stdout), parse(last_line(run.stderr))


def parse(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        return None


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


async def the_inspector_cli_drives_the_weather_server(check: Check) -> None:
    with check.step("initialize: version 2025-11-25 and server info"):
        out, _ = inspector(check, "initialize", "--method", "initialize")
        check.equal(out["result"]["protocolVersion"], "2025-11-25", "protocolVersion")
        check.equal(out["result"]["serverInfo"]["name"], "weather", "serverInfo.name")

    with check.step("tools/list: the six tools with their output schemas"):
        out, _ = inspector(check, "tools-list", "--method", "tools/list")
        tools = out["result"]["tools"]
        check.equal([t["name"] for t in tools], WEATHER_TOOLS, "tools")
        check.expect(all("outputSchema" in t for t in tools), "a tool without outputSchema")

    calls = {
        "get_forecast": ({"city": "Nairobi", "days": 7}, lambda s: len(s["days"]) == 7 and s["city"] == "Nairobi"),
        "current_conditions": ({"city": "Mumbai", "unit": "fahrenheit"}, lambda s: s["unit"] == "fahrenheit"),
        "search_cities": ({"query": "york"}, lambda s: [c["name"] for c in s["result"]] == ["New York"]),
    }
    for tool, (arguments, looks_right) in calls.items():
        with check.step(f"tools/call {tool}: exit 0, structuredContent valid per its outputSchema"):
            out, _ = inspector(
                check,
                f"call-{tool}",
                "--method", "tools/call",
                "--tool-name", tool,
                "--tool-args-json", json.dumps(arguments),
            )  # fmt: skip
            result = out["result"]
            check.equal(result["isError"], False, "isError")
            check.equal(json.loads(result["content"][0]["text"]), result["structuredContent"], "text block's JSON")
            check.expect(looks_right(result["structuredContent"]), f"unexpected result: {result['structuredContent']}")

    with check.step("tools/call with invalid arguments: exit 5, isError naming the problem"):
        out, err = inspector(
            check,
            "call-invalid",
            "--method", "tools/call",
            "--tool-name", "get_forecast",
            "--tool-args-json", '{"city": "Paris", "days": 0}',
            expect_exit=TOOL_ERROR,
        )  # fmt: skip
        check.equal(out["result"]["isError"], True, "isError")
        message = out["result"]["content"][0]["text"]
        check.expect("/days" in message and "minimum of 1" in message, f"message: {message!r}")
        check.equal(err["error"]["code"], "tool_is_error", "error envelope")

    with check.step("tools/call of an unknown tool: exit 5, tool_not_found"):
        # The Inspector looks the name up in tools/list and does not send the
        # call; the server's own answer is checked with the SDK clients.
        _, err = inspector(
            check,
            "call-unknown",
            "--method", "tools/call",
            "--tool-name", "no_such_tool",
            "--tool-args-json", "{}",
            expect_exit=TOOL_ERROR,
        )  # fmt: skip
        check.equal(err["error"]["code"], "tool_not_found", "error envelope")

    check_primitives(check, functools.partial(inspector, check), "")

    # Every step above checked that the server exited 0 after the CLI was
    # done with it. The CLI has no ping command (no --method ping): ping is
    # checked with the Python and TypeScript SDKs.
    print("note inspector: ping is not checked here: the Inspector CLI cannot send one", flush=True)


def check_primitives(check: Check, run: Callable[..., tuple[Any, Any]], on: str) -> None:
    """Lists and reads the weather example's resources, lists and gets its prompt.

    `run(name, *args, expect_exit=0)` runs the CLI with those arguments. The
    CLI has no completion or subscription method: those are checked with the
    SDK clients (primitives.py, primitives.mjs).
    """
    with check.step(f"{on}resources/list: the skill's files, the view {VIEW} (HTML) and weather://cities (JSON)"):
        out, _ = run("resources-list", "--method", "resources/list")
        resources = [(r["uri"], r["name"], r["mimeType"]) for r in out["result"]["resources"]]
        skill = "skill://weather/trip-briefing"
        expected = [
            # By URI: the trip-briefing skill's files (SEP-2640), the view, the cities.
            (f"{skill}/SKILL.md", "trip-briefing", "text/markdown"),
            (f"{skill}/references/briefing-template.md", "trip-briefing/references/briefing-template.md", "text/markdown"),
            (VIEW, "forecast_view", VIEW_MIME_TYPE),
            ("weather://cities", "cities", "application/json"),
        ]
        check.equal(resources, expected, "resources")

    # What the issue asks of the Inspector: it shows the view and the tool's link.
    with check.step(f"{on}MCP Apps: tools/list links get_forecast to {VIEW}, resources/read --uri {VIEW} gives its HTML"):
        out, _ = run("tools-list-view", "--method", "tools/list")
        meta = next(t for t in out["result"]["tools"] if t["name"] == "get_forecast").get("_meta", {})
        check.equal(meta.get("ui", {}).get("resourceUri"), VIEW, "get_forecast _meta.ui.resourceUri")
        check.equal(meta.get("ui/resourceUri"), VIEW, 'get_forecast _meta["ui/resourceUri"] (the older key)')
        out, _ = run("resources-read-view", "--method", "resources/read", "--uri", VIEW)
        contents = out["result"]["contents"]
        check.equal([(c["uri"], c["mimeType"]) for c in contents], [(VIEW, VIEW_MIME_TYPE)], "contents")
        check.expect(contents[0]["text"].startswith("<!doctype html>"), f"not HTML: {contents[0]['text'][:60]!r}")
        check.expect('<svg id="chart"' in contents[0]["text"], 'no chart (<svg id="chart">) in the view')

    with check.step(f"{on}resources/read --uri weather://cities: 36 cities as JSON"):
        out, _ = run("resources-read-cities", "--method", "resources/read", "--uri", "weather://cities")
        contents = out["result"]["contents"]
        check.equal([(c["uri"], c["mimeType"]) for c in contents], [("weather://cities", "application/json")], "contents")
        cities = json.loads(contents[0]["text"])
        check.equal(len(cities), 36, "number of cities")
        check.equal(cities[0], {
            "name": "Amsterdam", "country": "Netherlands", "latitude": 52.3676, "longitude": 4.9041,
            "uri": "weather://cities/Amsterdam",
        }, "the first city")  # fmt: skip

    with check.step(f"{on}resources/templates/list: weather://cities/{{name}}"):
        out, _ = run("resources-templates-list", "--method", "resources/templates/list")
        templates = [(t["uriTemplate"], t["name"]) for t in out["result"]["resourceTemplates"]]
        check.equal(templates, [("weather://cities/{name}", "city")], "templates")

    with check.step(f"{on}resources/read --uri weather://cities/Nairobi: the city's data"):
        uri = "weather://cities/Nairobi"
        out, _ = run("resources-read-nairobi", "--method", "resources/read", "--uri", uri)
        contents = out["result"]["contents"]
        check.equal([c["uri"] for c in contents], [uri], "contents")
        nairobi = json.loads(contents[0]["text"])
        check.equal((nairobi["name"], nairobi["country"], nairobi["elevation_m"]), ("Nairobi", "Kenya", 1795), "city")
        check.equal(len(nairobi["forecast"]), 7, "forecast days")

    with check.step(f"{on}resources/read of an unknown city: exit 1, resource not found"):
        uri = "weather://cities/Atlantis"
        _, err = run("resources-read-unknown", "--method", "resources/read", "--uri", uri, expect_exit=FAILURE)
        check.expect(err and "Resource not found" in err["error"]["message"], f"error envelope: {err}")

    with check.step(f"{on}prompts/list: plan_trip with its arguments"):
        out, _ = run("prompts-list", "--method", "prompts/list")
        prompts = out["result"]["prompts"]
        check.equal([p["name"] for p in prompts], ["plan_trip"], "prompts")
        arguments = [(a["name"], a["required"]) for a in prompts[0]["arguments"]]
        check.equal(arguments, [("city", True), ("days", False)], "arguments")

    with check.step(f"{on}prompts/get --prompt-name plan_trip --prompt-args city=Nairobi days=5"):
        args = ["--method", "prompts/get", "--prompt-name", "plan_trip", "--prompt-args", "city=Nairobi", "days=5"]
        out, _ = run("prompts-get", *args)
        messages = out["result"]["messages"]
        check.equal([(m["role"], m["content"]["type"]) for m in messages], [("user", "resource"), ("user", "text")], "messages")
        check.equal(messages[0]["content"]["resource"]["uri"], "weather://cities/Nairobi", "embedded resource")
        ask = messages[1]["content"]["text"]
        check.expect("5-day trip to Nairobi, Kenya" in ask, f"request: {ask!r}")

    with check.step(f"{on}prompts/get with an unknown city: exit 1, the server's suggestion"):
        args = ["--method", "prompts/get", "--prompt-name", "plan_trip", "--prompt-args", "city=Nairobii"]
        _, err = run("prompts-get-unknown", *args, expect_exit=FAILURE)
        check.expect(err and "Did you mean Nairobi?" in err["error"]["message"], f"error envelope: {err}")


def inspector_http(check: Check, server: HttpServer, *args: str, expect_exit: int = OK) -> tuple[Any, Any]:
    """Runs the Inspector CLI against a weather server serving HTTP; returns (stdout JSON, stderr JSON)."""
    command = ["mcp-inspector", "--cli", "--transport", "http", "--server-url", server.url, *args, "--format", "json"]
    print(f"     $ {shlex.join(command)}", flush=True)
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    check.expect(
        run.returncode == expect_exit,
        f"exit code {run.returncode}, expected {expect_exit}: {last_line(run.stderr)}",
    )
    return parse(run.stdout), parse(last_line(run.stderr))


async def the_inspector_cli_drives_the_weather_server_over_http(check: Check) -> None:
    async with HttpServer("inspector/http", WEATHER) as server:
        with check.step("http: tools/list: the six tools with their output schemas"):
            out, _ = inspector_http(check, server, "--method", "tools/list")
            tools = out["result"]["tools"]
            check.equal([t["name"] for t in tools], WEATHER_TOOLS, "tools")
            check.expect(all("outputSchema" in t for t in tools), "a tool without outputSchema")

        with check.step("http: tools/call get_forecast: exit 0, structuredContent valid per its outputSchema"):
            out, _ = inspector_http(
                check,
                server,
                "--method", "tools/call",
                "--tool-name", "get_forecast",
                "--tool-args-json", '{"city": "Nairobi", "days": 2}',
            )  # fmt: skip
            result = out["result"]
            check.equal(result["isError"], False, "isError")
            check.equal(json.loads(result["content"][0]["text"]), result["structuredContent"], "text block's JSON")
            check.equal(len(result["structuredContent"]["days"]), 2, "days")

        with check.step("http: tools/call with invalid arguments: exit 5, isError naming the problem"):
            out, err = inspector_http(
                check,
                server,
                "--method", "tools/call",
                "--tool-name", "get_forecast",
                "--tool-args-json", '{"city": "Paris", "days": 0}',
                expect_exit=TOOL_ERROR,
            )  # fmt: skip
            check.equal(out["result"]["isError"], True, "isError")
            check.expect("/days" in out["result"]["content"][0]["text"], f"message: {out['result']}")
            check.equal(err["error"]["code"], "tool_is_error", "error envelope")


        def run(_name: str, *args: str, expect_exit: int = OK) -> tuple[Any, Any]:
            return inspector_http(check, server, *args, expect_exit=expect_exit)

        check_primitives(check, run, "http: ")

        with check.step("http: SIGTERM after the CLI runs: exit 0"):
            await server.stop(check)


if __name__ == "__main__":
    main("inspector", [the_inspector_cli_drives_the_weather_server, the_inspector_cli_drives_the_weather_server_over_http])
