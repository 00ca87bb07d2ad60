"""A server written with the Python SDK (mcp 2.3.0, `MCPServer`): an upstream
we did not write the server side of, for the gateway and chain checks
(tests/interop/python/gateway.py and chain.py).

    python python_server.py                  serves on stdin and stdout
    python python_server.py --http PORT      serves Streamable HTTP at
                                             http://127.0.0.1:PORT/mcp

It runs in the interop suite's venv (tests/interop/run makes it, from
tests/interop/python/requirements.txt). What it serves:

- tools `add` (structured output), `count` (one progress notification per
  step), `wait_for_cancel` (reports progress 0, then waits until it is
  cancelled, at most 60 s, and records that it was) and `cancelled_calls` (the tags of the
  `wait_for_cancel` calls that were cancelled so far, in this process);
- the resource `fixture://greeting` and the template `fixture://notes/{name}`;
- the prompt `review` (one argument, `code`).
"""

from __future__ import annotations

import argparse

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("python-fixture", version="1.0.0", instructions="A fixture server for the gateway and chain checks.")

# The tags of the `wait_for_cancel` calls that were cancelled.
cancelled: list[str] = []


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count to `steps`, reporting progress at each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await anyio.sleep(0.01)
    return f"counted to {steps}"


@server.tool()
async def wait_for_cancel(tag: str, ctx: Context) -> str:
    """Wait until this call is cancelled (at most 60 s); a cancelled call is recorded under `tag`.
    Reports progress 0 once it waits."""
    try:
        await ctx.report_progress(0, None, f"{tag}: waiting")
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        cancelled.append(tag)
        raise
    return f"{tag}: not cancelled within 60 s"


@server.tool()
def cancelled_calls() -> list[str]:
    """The tags of the `wait_for_cancel` calls cancelled so far."""
    return list(cancelled)


@server.resource("fixture://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting, to read."""
    return "Hello from the Python fixture server"


@server.resource("fixture://notes/{name}", mime_type="text/plain")
def note(name: str) -> str:
    """A note by name."""
    return f"the note called {name}"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n\n{code}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args()
    if args.http is None:
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
