"""The chain example in front of servers we did not write, driven by the Python SDK.

The chain (examples/chain) runs over stdio with a config file this check
writes: it mounts the reference server `@modelcontextprotocol/server-everything`
and `@modelcontextprotocol/server-filesystem` (npm, pinned in tests/upstreams)
over stdio, and a server written with the Python SDK
(tests/upstreams/python_server.py) that this check runs with Streamable
HTTP on a free loopback port, by its URL. The Python SDK's client, on the
other side, sees their tools under their prefixes, calls them, reads their
resources, gets their prompts, with progress and cancellation passing
through; a tool the config blocks is not listed, and a call of it is
answered as for an unknown tool; every call is in the chain's log. A config with mistakes is refused with a sentence naming the
file and the place.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/chain.py`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import mcp.types as types
from gateway import cancel_a_waiting_call, cancelled_tags, result_of
from harness import (
    CHAIN,
    EVERYTHING,
    FILESYSTEM,
    LOGS,
    NODE,
    PYTHON_SERVER,
    ROOT,
    Check,
    Server,
    StepFailed,
    main,
    relative,
    rpc_error,
)
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from weather import text_of

INVALID_PARAMS = -32602


@contextlib.contextmanager
def python_server_over_http(name: str) -> Iterator[str]:
    """tests/upstreams/python_server.py with Streamable HTTP on a free
    loopback port; yields its URL. Its log is LOGS/NAME/stderr."""
    folder = LOGS / name
    folder.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (folder / "stderr").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, PYTHON_SERVER, "--http", str(port)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            if process.poll() is not None:
                raise StepFailed(f"the Python server exited before listening (log: {relative(folder / 'stderr')})")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise StepFailed(f"the Python server did not listen on port {port} within 20 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def toml_string(value: str | Path) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(str(value))


def write_config(name: str, folder: Path, url: str) -> Path:
    """The chain's config: server-everything and server-filesystem over
    stdio, the Python server by URL (prefix `remote`), one tool blocked."""
    for needed in (NODE, EVERYTHING, FILESYSTEM):
        if not needed.exists():
            Check.fail(f"{needed} does not exist: tests/interop/run runs tests/upstreams/install first")
    config = LOGS / name / "chain.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"""# Written by tests/interop/python/chain.py
blocked_tools = ["everything_get-env"]

[[servers]]
name = "everything"
command = [{toml_string(NODE)}, {toml_string(EVERYTHING)}, "stdio"]

[[servers]]
name = "files"
command = {toml_string(NODE)}
args = [{toml_string(FILESYSTEM)}, {toml_string(folder)}]

[[servers]]
name = "python"
url = {toml_string(url)}
prefix = "remote"
"""
    )
    return config


async def three_servers_behind_the_chain(check: Check) -> None:
    folder = LOGS / "chain/three/scratch"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "hello.txt").write_text("hello from the scratch folder\n")
    with python_server_over_http("chain/python-http") as url:
        config = write_config("chain/three", folder, url)
        server = Server("chain/three", CHAIN, str(config))
        async with stdio_client(server.params) as (read, write):
            async with ClientSession(read, write) as session:
                with check.step("initialize: the chain over stdio"):
                    init = await session.initialize()
                    check.equal(init.server_info.name, "chain", "serverInfo.name")

                with check.step("tools/list: every server's tools under its prefix (the URL one's: `remote`)"):
                    names = [tool.name for tool in (await session.list_tools()).tools]
                    for expected in ("everything_echo", "files_write_file", "remote_add", "remote_wait_for_cancel"):
                        check.expect(expected in names, f"{expected} is not among the tools: {names}")

                with check.step("tools/call over stdio and HTTP upstreams"):
                    echo = await session.call_tool("everything_echo", {"message": "through the chain"})
                    check.expect("through the chain" in text_of(echo), f"echo: {echo}")
                    added = result_of(await session.call_tool("remote_add", {"a": 20, "b": 22}))
                    check.equal(added, 42, "remote_add")
                    target = folder / "written.txt"
                    written = await session.call_tool("files_write_file", {"path": str(target), "content": "chained"})
                    check.expect(not written.is_error, f"write_file: {written}")
                    check.equal(target.read_text(), "chained", "the file server-filesystem wrote")

                with check.step("resources and templates of the HTTP upstream, read through the chain"):
                    uris = [str(resource.uri) for resource in (await session.list_resources()).resources]
                    check.expect("fixture://greeting" in uris, f"fixture://greeting in {uris}")
                    greeting = (await session.read_resource("fixture://greeting")).contents
                    check.equal(
                        [getattr(c, "text", None) for c in greeting],
                        ["Hello from the Python fixture server"],
                        "greeting",
                    )
                    note = (await session.read_resource("fixture://notes/chain")).contents
                    check.equal([getattr(c, "text", None) for c in note], ["the note called chain"], "templated read")

                with check.step("prompts of both kinds of upstream"):
                    prompts = [prompt.name for prompt in (await session.list_prompts()).prompts]
                    for expected in ("remote_review", "everything_simple-prompt"):
                        check.expect(expected in prompts, f"{expected} in {prompts}")
                    review = await session.get_prompt("remote_review", {"code": "y = 2"})
                    message = review.messages[0].content
                    check.expect(isinstance(message, types.TextContent) and "y = 2" in message.text, f"{review}")

                with check.step("progress from a stdio upstream and an HTTP one"):
                    updates: list[tuple[float, float | None]] = []

                    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                        updates.append((progress, total))

                    await session.call_tool(
                        "everything_trigger-long-running-operation",
                        {"duration": 0.3, "steps": 3},
                        progress_callback=on_progress,
                    )
                    check.equal(updates, [(step, 3.0) for step in (1, 2, 3)], "server-everything's progress")
                    updates.clear()
                    await session.call_tool("remote_count", {"steps": 2}, progress_callback=on_progress)
                    check.equal(updates, [(1, 2.0), (2, 2.0)], "the HTTP Python server's progress")

                with check.step("cancellation reaches the HTTP upstream, which records it"):
                    await cancel_a_waiting_call(check, session, "remote_wait_for_cancel", "chained")
                    tags = await cancelled_tags(session, "remote_cancelled_calls", ["chained"])
                    check.equal(tags, ["chained"], "the calls the Python server saw cancelled")

                with check.step("a blocked tool: not listed, and called all the same, an unknown tool"):
                    check.expect("everything_get-env" not in names, f"a blocked tool is listed: {names}")
                    error = await rpc_error(session.call_tool("everything_get-env", {}))
                    check.equal(error.code, INVALID_PARAMS, "error code")
                    check.equal(error.message, "Unknown tool: everything_get-env", "message")

        with check.step("stdin closed: the chain exits 0"):
            server.check_clean_exit(check)

        with check.step("the call log: one line per request, with the tool and its outcome"):
            log = (server.dir / "stderr").read_text()
            lines = [line for line in log.splitlines() if " chain:" in line and "request" in line]
            echo = [line for line in lines if "tool=everything_echo" in line]
            check.expect(echo and "outcome=ok" in echo[0], f"no ok line for everything_echo in {lines}")
            refused = [line for line in lines if "tool=everything_get-env" in line]
            check.expect(refused and "outcome=error -32602" in refused[0], f"no refusal in {lines}")
            cancelled = [line for line in lines if "tool=remote_wait_for_cancel" in line]
            check.expect(cancelled and "outcome=cancelled" in cancelled[0], f"no cancelled call in {lines}")


def chain_refuses(config_text: str, suffix: str = ".toml") -> tuple[int, str]:
    """Runs the chain on a config with this text: its exit status and stderr."""
    config = LOGS / "chain/bad" / f"chain{suffix}"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(config_text)
    done = subprocess.run(
        [CHAIN, str(config)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
    )
    return done.returncode, done.stderr.decode()


async def mistakes_in_the_config_are_named(check: Check) -> None:
    with check.step("a config mistake: exit 2, the file, the line and the fix"):
        status, stderr = chain_refuses('[[servers]]\nname = "a"\ncommand = ["x"]\nurl = "http://127.0.0.1:1/mcp"\n')
        check.equal(status, 2, f"exit status (stderr: {stderr!r})")
        check.expect("chain.toml line 1" in stderr and "both `command` and `url`" in stderr, f"stderr: {stderr!r}")
        status, stderr = chain_refuses('[[servers]]\nname = "a"\ncomand = ["x"]\n')
        check.equal(status, 2, f"exit status (stderr: {stderr!r})")
        check.expect("line 3" in stderr and "unknown field `comand`" in stderr, f"stderr: {stderr!r}")

    with check.step("a JSON config's mistake: the line and column"):
        status, stderr = chain_refuses('{"servers": [{"name": "a", "command": 3}]}', ".json")
        check.equal(status, 2, f"exit status (stderr: {stderr!r})")
        check.expect("chain.json line 1, column" in stderr and "a string (the program)" in stderr, f"{stderr!r}")

    with check.step("a server that cannot start: exit 1, naming it"):
        status, stderr = chain_refuses('[[servers]]\nname = "gone"\ncommand = ["/no/such/server"]\n')
        check.equal(status, 1, f"exit status (stderr: {stderr!r})")
        check.expect("gone" in stderr, f"stderr: {stderr!r}")


if __name__ == "__main__":
    main("chain", [three_servers_behind_the_chain, mistakes_in_the_config_are_named])
