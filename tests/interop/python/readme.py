"""The README's "Connect a client" section, run as written.

Its Inspector command lines run with the pinned Inspector in place of what
`npx -p ...` would download (the packages named there must be the pinned
ones), its Python snippet runs with the pinned SDK, and the server in its
Claude Desktop configuration is started the way Claude Desktop starts it.
A change to the README that breaks one of them fails the suite.

Run by tests/interop/run: `target/interop/venv/bin/python tests/interop/python/readme.py`.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from harness import LOGS, ROOT, Check, main, relative
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SECTION = "## Connect a client"
# What the Claude Desktop example writes for the repository's path.
REPOSITORY_PLACEHOLDER = "/path/to/mcp-rs"
WEATHER_TOOLS = ["current_conditions", "get_forecast", "search_cities", "subscribe_alerts", "summarize_forecast", "weather_report"]


def section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.find(f"\n{SECTION}\n")
    if start < 0:
        Check.fail(f"README.md has no {SECTION!r} section")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end >= 0 else len(readme)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", section(), flags=re.MULTILINE | re.DOTALL)


def error_line(stderr: str) -> str:
    """The line of a failed command's stderr that says what went wrong: the
    last Python exception line, or else the last line."""
    lines = stderr.strip().splitlines()
    errors = [line for line in lines if re.match(r"^[\s|+]*[\w.]+(Error|Exception): ", line)]
    return (errors or lines or [""])[-1].strip(" |+")


def inspector_npx_prefix() -> list[str]:
    """`npx -y -p node@MAJOR -p @modelcontextprotocol/inspector@VERSION --`, for the pinned versions."""
    pinned = json.loads((ROOT / "tests/interop/inspector/package.json").read_text())["dependencies"]
    node_major = pinned["node"].split(".")[0]
    inspector = pinned["@modelcontextprotocol/inspector"]
    return ["npx", "-y", "-p", f"node@{node_major}", "-p", f"@modelcontextprotocol/inspector@{inspector}", "--"]


async def the_inspector_command_lines_work(check: Check) -> None:
    commands = [
        shlex.split(line)
        for block in blocks("sh")
        for line in block.replace("\\\n", " ").splitlines()
        if "mcp-inspector" in line
    ]
    with check.step("README: has Inspector command lines for tools/list and tools/call"):
        methods = [command[command.index("--method") + 1] for command in commands if "--method" in command]
        check.expect({"tools/list", "tools/call"} <= set(methods), f"methods in the README: {methods}")
    prefix = inspector_npx_prefix()
    for command in commands:
        with check.step(f"README: {shlex.join(command)}"):
            check.equal(command[: len(prefix)], prefix, "the npx prefix (the packages and versions the suite pins)")
            # The pinned Inspector (with Node 22) is first on PATH.
            run = subprocess.run(command[len(prefix) :], cwd=ROOT, capture_output=True, text=True, timeout=120)
            check.equal(run.returncode, 0, f"exit code ({error_line(run.stderr)})")
            output = json.loads(run.stdout)
            if "tools" in output:
                check.equal([tool["name"] for tool in output["tools"]], WEATHER_TOOLS, "tools")
            else:
                check.equal(output.get("isError"), False, f"isError in {output}")
                check.expect(output.get("structuredContent"), f"no structuredContent in {output}")


async def the_python_snippet_works(check: Check) -> None:
    with check.step("README: the Python snippet prints the tools and a forecast"):
        snippets = blocks("python")
        check.equal(len(snippets), 1, "Python snippets in the section")
        script = ROOT / "target/interop/readme_snippet.py"
        script.write_text(snippets[0], encoding="utf-8")
        run = subprocess.run([sys.executable, script], cwd=ROOT, capture_output=True, text=True, timeout=60)
        (LOGS / "readme").mkdir(parents=True, exist_ok=True)
        (LOGS / "readme/snippet.stderr").write_text(run.stderr, encoding="utf-8")
        check.equal(run.returncode, 0, f"exit code ({error_line(run.stderr)}; all of it in {relative(LOGS / 'readme/snippet.stderr')})")
        check.expect(str(WEATHER_TOOLS) in run.stdout, f"no tool list in its output:\n{run.stdout}")
        check.expect("'city': 'Paris'" in run.stdout, f"no forecast for Paris in its output:\n{run.stdout}")


async def the_claude_desktop_configuration_works(check: Check) -> None:
    with check.step("README: the Claude Desktop configuration starts a server with the weather tools"):
        configs = [json.loads(block) for block in blocks("json") if "mcpServers" in block]
        check.equal(len(configs), 1, "Claude Desktop configurations in the section")
        (name, entry), *_ = configs[0]["mcpServers"].items()
        command = entry["command"]
        check.expect(command.startswith(REPOSITORY_PLACEHOLDER), f"{command!r} does not start with {REPOSITORY_PLACEHOLDER}")
        command = str(ROOT) + command[len(REPOSITORY_PLACEHOLDER) :]
        check.expect(Path(command).is_file(), f"{command} does not exist")
        # As Claude Desktop does: the command and args, from another directory.
        params = StdioServerParameters(command=command, args=entry.get("args", []), cwd="/")
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check.equal(init.server_info.name, name, "serverInfo.name (the configuration's key)")
                listed = await session.list_tools()
                check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tools")


if __name__ == "__main__":
    main(
        "readme",
        [
            the_inspector_command_lines_work,
            the_python_snippet_works,
            the_claude_desktop_configuration_works,
        ],
    )
