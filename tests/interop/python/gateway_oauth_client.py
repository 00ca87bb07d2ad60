"""A Python SDK client of a gateway that requires OAuth, for tests/gateway_oauth.rs.

    python gateway_oauth_client.py GATEWAY_URL ISSUER CLIENT_ID CLIENT_SECRET TOOL ARGUMENTS_JSON...

The SDK's ClientCredentialsOAuthProvider finds the gateway's authorization
server from its 401 and Protected Resource Metadata, gets a token for the
gateway (client credentials, resource indicator), initializes, lists the
tools and calls each TOOL with its ARGUMENTS_JSON in turn. It prints one JSON
object on stdout: the access token it got (so the test can check that the
gateway never passed it on), the tool names, and each call's structured
content or error text. Exits 1 with the reason on stderr if anything fails;
every step has a timeout.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from token_storage import MemoryStorage

STEP_SECONDS = 30


async def run(url: str, issuer: str, client_id: str, secret: str, calls: list[tuple[str, Any]]) -> dict[str, Any]:
    storage = MemoryStorage()
    auth = ClientCredentialsOAuthProvider(
        server_url=url, storage=storage, client_id=client_id, client_secret=secret, issuer=issuer
    )
    report: dict[str, Any] = {"calls": []}
    async with create_mcp_http_client(auth=auth) as http_client:
        async with streamable_http_client(url, http_client=http_client) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(STEP_SECONDS):
                    init = await session.initialize()
                report["server"] = init.server_info.name
                report["token"] = storage.tokens.access_token if storage.tokens else None
                with anyio.fail_after(STEP_SECONDS):
                    listed = await session.list_tools()
                report["tools"] = [tool.name for tool in listed.tools]
                for name, arguments in calls:
                    with anyio.fail_after(STEP_SECONDS):
                        result = await session.call_tool(name, arguments)
                    text = " ".join(block.text for block in result.content if block.type == "text")
                    report["calls"].append(
                        {"tool": name, "is_error": result.is_error, "structured": result.structured_content, "text": text}
                    )
    return report


def main() -> None:
    if len(sys.argv) < 5 or len(sys.argv) % 2 == 0:
        sys.exit(f"usage: {sys.argv[0]} GATEWAY_URL ISSUER CLIENT_ID CLIENT_SECRET [TOOL ARGUMENTS_JSON]...")
    url, issuer, client_id, secret = sys.argv[1:5]
    rest = sys.argv[5:]
    calls = [(rest[i], json.loads(rest[i + 1])) for i in range(0, len(rest), 2)]
    try:
        report = anyio.run(run, url, issuer, client_id, secret, calls)
    except BaseException as error:  # noqa: BLE001 - the reason, for the test's message
        # The whole story, task groups' sub-exceptions included.
        sys.stderr.write("".join(traceback.format_exception(error)))
        sys.exit(f"gateway_oauth_client.py: {type(error).__name__}: {error}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
