"""The downstream crate's server (tests/downstream), driven by the Python SDK
over stdio and over Streamable HTTP.

That crate uses mcp-runtime the way a user's crate does, from outside the
workspace. Its binary serves tools from two private modules of its library,
from a second library crate it links with `use extra as _;` only, and from
its own main.rs: all of them must be listed and callable. The library's two
modules also declare resources, resource templates, prompts and
completions: they must be listed, read, got and completed, on both
transports.

Run by tests/interop/run after it builds the crate:
`target/interop/venv/bin/python tests/interop/python/downstream.py`.
"""

from __future__ import annotations

import json

import mcp.types as types
from harness import DOWNSTREAM, Check, HttpServer, Server, main, rpc_error
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

# Where each tool is defined.
TOOLS = {
    "about": "src/main.rs",
    "add": "src/lib.rs",
    "count_words": "extra/src/lib.rs",
    "repeat": "extra/src/lib.rs",
    "save_note": "src/notes.rs",
}


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), result.content
    return block.text


async def every_tool_of_the_downstream_crate_is_served(check: Check) -> None:
    server = Server("python/downstream", DOWNSTREAM)
    async with stdio_client(server.params) as (read, write):
        async with ClientSession(read, write) as session:
            with check.step("initialize"):
                init = await session.initialize()
                check.equal(init.server_info.name, "downstream", "serverInfo.name")

            with check.step(f"tools/list: {', '.join(TOOLS)} (from the library, `extra` and main.rs)"):
                listed = await session.list_tools()
                check.equal([tool.name for tool in listed.tools], list(TOOLS), "tool names")

            with check.step("tools/call about (main.rs): text, no outputSchema"):
                result = await session.call_tool("about", {})
                check.expect(not result.is_error and result.structured_content is None, f"result: {result}")
                check.expect(text_of(result).startswith("downstream:"), f"text: {text_of(result)!r}")

            with check.step("tools/call add (library): an integer, wrapped as {result: n}"):
                result = await session.call_tool("add", {"a": 40, "b": 2})
                check.equal(result.structured_content, {"result": 42}, "structuredContent")
                check.equal((await session.call_tool("add", {"a": -1})).structured_content, {"result": -1}, "b left out")

            with check.step("tools/call save_note (library module, shared state): the count grows"):
                first = await session.call_tool("save_note", {"note": {"title": "milk", "tags": ["errands"]}})
                second = await session.call_tool("save_note", {"note": {"title": "bread"}})
                check.equal([first.structured_content, second.structured_content], [{"count": 1}, {"count": 2}], "counts")
                refused = await session.call_tool("save_note", {"note": {"title": "  "}})
                check.equal((refused.is_error, text_of(refused)), (True, "a note needs a title"), "blank title")

            with check.step("tools/call count_words (extra crate): structured, valid per its outputSchema"):
                result = await session.call_tool("count_words", {"text": "naïve café au lait"})
                check.equal(result.structured_content, {"words": 4, "characters": 18}, "structuredContent")
                check.equal(json.loads(text_of(result)), result.structured_content, "text block's JSON")

            with check.step("tools/call repeat (extra crate, a plain fn): text; invalid arguments are isError"):
                check.equal(text_of(await session.call_tool("repeat", {"text": "ab", "times": 3})), "ab ab ab", "text")
                invalid = await session.call_tool("repeat", {"text": "ab", "times": 11})
                check.expect(invalid.is_error and "/times" in text_of(invalid), f"times=11: {invalid}")
                blank = await session.call_tool("repeat", {"text": " ", "times": 2})
                check.equal((blank.is_error, text_of(blank)), (True, "nothing to repeat: the text is blank"), "blank")

            with check.step("ping"):
                await session.send_ping()

            # save_note above saved two notes: milk, then bread.
            await check_primitives(check, session, "stdio")
    with check.step("close: the server exits 0"):
        server.check_clean_exit(check)


async def the_resources_and_prompts_of_the_downstream_crate_over_http(check: Check) -> None:
    async with HttpServer("python-http/downstream", DOWNSTREAM) as server:
        async with streamable_http_client(server.url) as (read, write):
            async with ClientSession(read, write) as session:
                with check.step("http: initialize, save two notes"):
                    init = await session.initialize()
                    check.equal(init.server_info.name, "downstream", "serverInfo.name")
                    for title, tags in [("milk", ["errands"]), ("bread", [])]:
                        saved = await session.call_tool("save_note", {"note": {"title": title, "tags": tags}})
                        check.expect(not saved.is_error, f"save_note: {saved}")
                await check_primitives(check, session, "http")
        with check.step("http: SIGTERM: exit 0"):
            await server.stop(check)


def text_contents(result: types.ReadResourceResult, uri: str, mime_type: str) -> str:
    """The text of a read's single text contents, checked to be `uri`'s with `mime_type`."""
    contents = result.contents
    Check.equal([(str(c.uri), c.mime_type) for c in contents], [(uri, mime_type)], f"{uri}: contents")
    assert isinstance(contents[0], types.TextResourceContents), contents
    return contents[0].text


async def check_primitives(check: Check, session: ClientSession, on: str) -> None:
    """The resources, templates, prompts and completions of src/math.rs and src/notes.rs."""
    with check.step(f"{on}: capabilities, and resources/list: math://constants and notes://all"):
        caps = session.server_capabilities
        check.expect(caps and caps.resources and caps.prompts and caps.completions, f"capabilities: {caps}")
        listed = await session.list_resources()
        check.equal([str(r.uri) for r in listed.resources], ["math://constants", "notes://all"], "resources")

    with check.step(f"{on}: resources/templates/list: math://squares/{{n}} and notes://{{number}}"):
        templates = (await session.list_resource_templates()).resource_templates
        check.equal([t.uri_template for t in templates], ["math://squares/{n}", "notes://{number}"], "templates")

    with check.step(f"{on}: resources/read: constants (JSON), a square (text), notes (JSON, from the tool's state)"):
        read = await session.read_resource("math://constants")
        constants = json.loads(text_contents(read, "math://constants", "application/json"))
        check.expect(abs(constants["pi"] - 3.14159) < 1e-5, f"constants: {constants}")
        square = text_contents(await session.read_resource("math://squares/12"), "math://squares/12", "text/plain")
        check.equal(square, "144", "the square of 12")
        notes = json.loads(text_contents(await session.read_resource("notes://all"), "notes://all", "application/json"))
        check.equal([note["title"] for note in notes], ["milk", "bread"], "notes")
        second = json.loads(text_contents(await session.read_resource("notes://2"), "notes://2", "application/json"))
        check.equal(second, {"title": "bread", "tags": []}, "notes://2")

    with check.step(f"{on}: resources/read of what does not exist: -32002 naming the URI"):
        for uri in ["notes://3", "math://squares/twelve", "math://nothing"]:
            error = await rpc_error(session.read_resource(uri))
            check.equal((error.code, error.data), (-32002, {"uri": uri}), f"{uri}: code and data")

    with check.step(f"{on}: prompts/list and prompts/get practice, summarize_notes"):
        prompts = (await session.list_prompts()).prompts
        check.equal([p.name for p in prompts], ["practice", "summarize_notes"], "prompts")
        arguments = {p.name: [(a.name, a.required) for a in p.arguments or []] for p in prompts}
        check.equal(arguments["practice"], [("operation", True), ("level", False)], "practice's arguments")
        got = await session.get_prompt("practice", {"operation": "multiplication"})
        texts = [m.content.text for m in got.messages if isinstance(m.content, types.TextContent)]
        check.equal(texts, ["Give me five easy multiplication exercises, one at a time, and check my answers."], "practice")
        got = await session.get_prompt("summarize_notes", {"style": "paragraph"})
        texts = [m.content.text for m in got.messages if isinstance(m.content, types.TextContent)]
        check.equal(texts, ["My notes:\n- milk [errands]\n- bread []", "Summarize these 2 notes as one paragraph."], "summary")

    with check.step(f"{on}: prompts/get with a bad argument: -32602 naming it"):
        error = await rpc_error(session.get_prompt("summarize_notes", {"style": "poem"}))
        check.expect(error.code == -32602 and "style" in error.message, f"style=poem: {error}")
        error = await rpc_error(session.get_prompt("practice", {}))
        check.expect(error.code == -32602 and "operation" in error.message, f"no operation: {error}")

    with check.step(f"{on}: completion/complete: a function's values, an enum's values"):
        practice = types.PromptReference(type="ref/prompt", name="practice")
        summary = types.PromptReference(type="ref/prompt", name="summarize_notes")
        square = types.ResourceTemplateReference(type="ref/resource", uri="math://squares/{n}")
        for ref, argument, prefix, expected in [
            (practice, "operation", "mu", ["multiplication"]),
            (practice, "operation", "", ["addition", "division", "multiplication", "subtraction"]),
            (practice, "level", "h", ["hard"]),
            (summary, "style", "", ["bullets", "paragraph"]),
            (square, "n", "1", ["1", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"]),
        ]:
            result = await session.complete(ref, {"name": argument, "value": prefix})
            check.equal(result.completion.values, expected, f"{argument}={prefix!r}")


if __name__ == "__main__":
    main(
        "downstream",
        [every_tool_of_the_downstream_crate_is_served, the_resources_and_prompts_of_the_downstream_crate_over_http],
    )
