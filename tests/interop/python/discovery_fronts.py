"""Tool transforms and progressive discovery in the chain's config and the
gateway's command line, in front of a server we did not write, driven by
the Python SDK's `mcp.Client` in `mode="auto"` (2026-07-28) and
`mode="legacy"` (2025-11-25).

Both fronts mount the reference server `@modelcontextprotocol/server-everything`
(npm, pinned in tests/upstreams) as `everything`, tagged `demo`, with its
`echo` served as `say` (argument `message` renamed `text`, tagged `core`),
its `get-sum` served as `increment` with `b` fixed to 1 (a `b` a client
sends is dropped: the schema allows other properties), and its `get-env`
blocked; discovery pins `increment` and the tag `core`. The chain
(examples/chain, over stdio) reads that from its config file
(`[servers.tools.*]`, `tags`, `blocked_tools`, `[tool_search]`); the
gateway (examples/gateway, over Streamable HTTP) from `--transforms FILE`,
`--tags`, `--tool-search`, `--pin` and `--pin-tag`. Each client checks:
the listed view is the pinned set plus `search_tools` and `call_tool`; the
search finds `say` with its renamed argument and tags; calling `say`
returns server-everything's echo (its `message` mapped back), directly and
through `call_tool`; a client cannot override the fixed `b`; the blocked
tool and the original names are unknown tools. A table that cannot apply to
its tool (an argument it does not have) stops either front, naming the
table.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/discovery_fronts.py`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import mcp.types as types
from harness import CHAIN, EVERYTHING, GATEWAY, LOGS, NODE, ROOT, Check, HttpServer, Server, main, rpc_error
from mcp import Client

INVALID_PARAMS = -32602
# What each client's tools/list shows: the pinned tools and the two synthetic ones.
LISTED = ["call_tool", "increment", "say", "search_tools"]


def toml_string(value: str | Path) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(str(value))


def needs_upstreams() -> None:
    for needed in (NODE, EVERYTHING):
        if not needed.exists():
            Check.fail(f"{needed} does not exist: tests/interop/run runs tests/upstreams/install first")


def chain_config() -> Path:
    """The chain's config: server-everything, transformed, with discovery."""
    needs_upstreams()
    config = LOGS / "discovery-fronts/chain.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"""# Written by tests/interop/python/discovery_fronts.py
blocked_tools = ["everything_get-env"]

[tool_search]
pin = ["increment"]
pin_tags = ["core"]

[[servers]]
name = "everything"
command = [{toml_string(NODE)}, {toml_string(EVERYTHING)}, "stdio"]
tags = ["demo"]

[servers.tools.echo]
name = "say"
description = "Repeats the text it is given."
tags = ["core"]
[servers.tools.echo.arguments.message]
name = "text"
description = "What to repeat."

[servers.tools.get-sum]
name = "increment"
description = "Adds one to a number."
[servers.tools.get-sum.arguments.b]
value = 1
"""
    )
    return config


def gateway_transforms() -> Path:
    """The gateway's --transforms file: the same changes, by served names."""
    needs_upstreams()
    path = LOGS / "discovery-fronts/transforms.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        """# Written by tests/interop/python/discovery_fronts.py
[tools."everything_echo"]
name = "say"
description = "Repeats the text it is given."
tags = ["core"]
[tools."everything_echo".arguments.message]
name = "text"
description = "What to repeat."

[tools."everything_get-sum"]
name = "increment"
description = "Adds one to a number."
[tools."everything_get-sum".arguments.b]
value = 1

[tools."everything_get-env"]
hidden = true
"""
    )
    return path


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def search(client: Client, query: str) -> list[dict[str, Any]]:
    found = await client.call_tool("search_tools", {"query": query})
    Check.expect(not found.is_error, f"search_tools failed: {found.content}")
    Check.expect(isinstance(found.structured_content, dict), f"no structuredContent: {found}")
    assert isinstance(found.structured_content, dict)
    return found.structured_content["tools"]


async def drive(check: Check, label: str, client: Client, tags: list[str]) -> None:
    """The checks every front and mode share; `tags` are those `say` has."""
    original = "everything_echo"
    with check.step(f"{label}: tools/list shows the pinned tools, search_tools and call_tool"):
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        check.equal(names, LISTED, "the listed tools")

    with check.step(f"{label}: the search finds `say` with its renamed argument and tags"):
        found = await search(client, "repeats the text")
        say = [tool for tool in found if tool["name"] == "say"]
        check.expect(say, f"`say` not found: {[tool['name'] for tool in found]}")
        schema = say[0]["inputSchema"]
        check.equal(sorted(schema["properties"]), ["text"], "say's arguments")
        check.equal(schema["properties"]["text"].get("description"), "What to repeat.", "text's description")
        check.equal(schema.get("required"), ["text"], "say's required arguments")
        check.equal(say[0].get("tags"), tags, "say's tags")
        check.expect(all(tool["name"] != original for tool in found), f"{original} was found: {found}")

    with check.step(f"{label}: `say` returns server-everything's echo, directly and through call_tool"):
        said = await client.call_tool("say", {"text": "through the front"})
        check.expect(not said.is_error, f"say: {said.content}")
        check.equal(text_of(said), "Echo: through the front", "say's answer")
        proxied = await client.call_tool("call_tool", {"name": "say", "arguments": {"text": "proxied"}})
        check.expect(not proxied.is_error, f"call_tool: {proxied.content}")
        check.equal(text_of(proxied), "Echo: proxied", "call_tool's answer")

    with check.step(f"{label}: the fixed argument is hidden and cannot be overridden"):
        found = await search(client, "adds one to a number")
        increment = [tool for tool in found if tool["name"] == "increment"]
        check.expect(increment, f"`increment` not found: {[tool['name'] for tool in found]}")
        check.equal(sorted(increment[0]["inputSchema"]["properties"]), ["a"], "increment's arguments")
        # Its table has no tags: it keeps its server's (Upstream::tags).
        check.equal(increment[0].get("tags"), ["demo"], "increment's tags")
        tagged = await client.call_tool("search_tools", {"query": "", "tags": ["demo"], "limit": 50})
        assert isinstance(tagged.structured_content, dict)
        demo = [tool["name"] for tool in tagged.structured_content["tools"]]
        check.expect("increment" in demo and "everything_get-tiny-image" in demo, f"the demo tools: {demo}")
        added = await client.call_tool("increment", {"a": 41})
        check.equal(text_of(added), "The sum of 41 and 1 is 42.", "increment's answer")
        overridden = await client.call_tool("call_tool", {"name": "increment", "arguments": {"a": 41, "b": 100}})
        # server-everything's schema allows other properties: the client's b is dropped.
        check.equal(text_of(overridden), "The sum of 41 and 1 is 42.", "increment's answer to a client's b")

    with check.step(f"{label}: the blocked tool and the original names are unknown tools"):
        for unknown in ("everything_get-env", original):
            error = await rpc_error(client.call_tool(unknown, {"message": "x"}))
            check.equal(error.code, INVALID_PARAMS, f"{unknown}: error code")
            check.equal(error.message, f"Unknown tool: {unknown}", f"{unknown}: message")
        proxied = await client.call_tool("call_tool", {"name": "everything_get-env"})
        check.expect(proxied.is_error, f"call_tool called a blocked tool: {proxied.content}")
        check.expect("Unknown tool: everything_get-env" in text_of(proxied), f"{proxied.content}")
        found = await search(client, "environment variables")
        check.expect(all(tool["name"] != "everything_get-env" for tool in found), f"the blocked tool was found: {found}")


async def chain(check: Check, mode: str) -> None:
    server = Server(f"discovery-fronts/chain-{mode}", CHAIN, str(chain_config()))
    async with Client(server.params, mode=mode) as client:
        # The chain adds a tool table's tags to its server's.
        await drive(check, f"chain, mode={mode}", client, ["demo", "core"])
    with check.step(f"chain, mode={mode}: stdin closed, exit 0"):
        server.check_clean_exit(check)


async def gateway(check: Check, mode: str) -> None:
    args = ["--transforms", str(gateway_transforms()), "--tool-search", "--pin", "increment", "--pin-tag", "core"]
    command = ["--name", "everything", "--tags", "demo", str(NODE), str(EVERYTHING), "stdio"]
    async with HttpServer(f"discovery-fronts/gateway-{mode}", GATEWAY, *args, "--", *command) as server:
        async with Client(server.url, mode=mode) as client:
            # A --transforms table's tags replace the tool's (--tags's).
            await drive(check, f"gateway, mode={mode}", client, ["core"])
        with check.step(f"gateway, mode={mode}: SIGTERM, exit 0"):
            await server.stop(check)


async def the_chain_config_auto(check: Check) -> None:
    await chain(check, "auto")


async def the_chain_config_legacy(check: Check) -> None:
    await chain(check, "legacy")


async def the_gateway_flags_auto(check: Check) -> None:
    await gateway(check, "auto")


async def the_gateway_flags_legacy(check: Check) -> None:
    await gateway(check, "legacy")


def run(*args: str) -> tuple[int, str]:
    """Runs a front with `args` (with --list-tools, it exits): its status and stderr."""
    done = subprocess.run(args, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return done.returncode, done.stderr.decode()


async def a_table_that_cannot_apply_is_named(check: Check) -> None:
    needs_upstreams()
    folder = LOGS / "discovery-fronts/bad"
    folder.mkdir(parents=True, exist_ok=True)
    with check.step("chain: an argument the tool does not have, named by its table; a typo warned about"):
        config = folder / "chain.toml"
        config.write_text(
            f"""[[servers]]
name = "everything"
command = [{toml_string(NODE)}, {toml_string(EVERYTHING)}, "stdio"]
[servers.tools.ecoh]
name = "say"
[servers.tools.get-sum.arguments.c]
value = 1
"""
        )
        status, stderr = run(str(CHAIN), str(config), "--list-tools")
        check.equal(status, 1, f"exit status (stderr: {stderr!r})")
        check.expect(
            f"error: {config}: [servers.tools.get-sum] of server `everything` cannot apply to `everything_get-sum`: "
            "it names the argument `c`, but the tool has no such argument; use one of `a`, `b`" in stderr,
            f"stderr: {stderr!r}",
        )
        check.expect(
            "[servers.tools.ecoh] of server `everything` names `everything_ecoh`, which no server serves (yet)" in stderr,
            f"stderr: {stderr!r}",
        )

    with check.step("gateway: the same in a --transforms file"):
        transforms = folder / "transforms.toml"
        transforms.write_text('[tools."get-sum".arguments.c]\nvalue = 1\n')
        status, stderr = run(str(GATEWAY), "--transforms", str(transforms), "--list-tools", "--", str(NODE), str(EVERYTHING), "stdio")
        check.equal(status, 1, f"exit status (stderr: {stderr!r})")
        check.expect(
            "error: --transforms: the table of `get-sum` cannot apply: it names the argument `c`" in stderr,
            f"stderr: {stderr!r}",
        )

    with check.step("gateway: a mistake in the --transforms file, named by its table (exit 2)"):
        transforms.write_text('[tools."get-sum".arguments.b]\nvalue = 1\nname = "bee"\n')
        status, stderr = run(str(GATEWAY), "--transforms", str(transforms), "--", str(NODE), str(EVERYTHING), "stdio")
        check.equal(status, 2, f"exit status (stderr: {stderr!r})")
        check.expect("has both `value` and `name`: a fixed argument is not shown" in stderr, f"stderr: {stderr!r}")


if __name__ == "__main__":
    main(
        "discovery-fronts",
        [
            the_chain_config_auto,
            the_chain_config_legacy,
            the_gateway_flags_auto,
            the_gateway_flags_legacy,
            a_table_that_cannot_apply_is_named,
        ],
    )
