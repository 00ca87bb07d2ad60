"""The downstream crate's server (tests/downstream), driven by the Python SDK.

That crate uses mcp-runtime the way a user's crate does, from outside the
workspace. Its binary serves tools from two private modules of its library,
from a second library crate it links with `use extra as _;` only, and from
its own main.rs: all of them must be listed and callable.

Run by tests/interop/run after it builds the crate:
`target/interop/venv/bin/python tests/interop/python/downstream.py`.
"""

from __future__ import annotations

import json

import mcp.types as types
from harness import DOWNSTREAM, Check, Server, main
from mcp import ClientSession
from mcp.client.stdio import stdio_client

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
    with check.step("close: the server exits 0"):
        server.check_clean_exit(check)


if __name__ == "__main__":
    main("downstream", [every_tool_of_the_downstream_crate_is_served])
