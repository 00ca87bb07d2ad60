"""One tool call with progress whose answer stream is cut, driven by the
Python SDK (`mcp` 2.3.0): the client resumes it with `Last-Event-ID`.

Run by tests/http_resume.rs through its cutting proxy:
`target/interop/venv/bin/python tests/interop/python/resume.py URL`.
Calls the progress example's `count_slowly` and prints one JSON line:
{"outcome": "result" | "error" | "timeout", "text" | "code" + "message",
"progress": the number of progress notifications seen}. Gives up after
LIMIT seconds (20): a client that keeps resuming, or waits, never answers.
Then waits LINGER seconds before it closes, so that any resuming the SDK
still does reaches the proxy.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client

LIMIT = 20
LINGER = 2.5


async def main(url: str) -> None:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    outcome: dict[str, object]
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            try:
                with anyio.fail_after(LIMIT):
                    result = await session.call_tool(
                        "count_slowly", {"to": 5, "delay_ms": 20}, progress_callback=on_progress
                    )
                text = "".join(block.text for block in result.content if block.type == "text")
                outcome = {"outcome": "result", "text": text}
            except MCPError as error:
                outcome = {"outcome": "error", "code": error.code, "message": error.message}
            except TimeoutError:
                outcome = {"outcome": "timeout"}
            outcome["progress"] = len(progress)
            print(json.dumps(outcome), flush=True)
            # Any resuming left to do happens now, for the proxy to see.
            await anyio.sleep(LINGER)


anyio.run(main, sys.argv[1])
