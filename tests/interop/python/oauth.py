"""The weather example secured with OAuth, driven by the Python SDK's OAuth client.

The weather example runs with `--auth-issuer` naming a real authorization
server (tests/oidc/provider.mjs, npm oidc-provider) and `--auth-audience` its
own URL. The SDK's ClientCredentialsOAuthProvider finds the authorization
server from the server's 401 and Protected Resource Metadata (RFC 9728),
picks the scope from the challenge, gets a token with the client-credentials
grant and the resource indicator (RFC 8707), and calls a tool that needs the
scope `weather:read`.

Run by tests/interop/run with the pinned SDK (`mcp` 2.3.0):
`target/interop/venv/bin/python tests/interop/python/oauth.py`.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from harness import WEATHER, Check, HttpServer, OidcProvider, main
from mcp import ClientSession
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from token_storage import MemoryStorage
from weather import WEATHER_TOOLS, structured


def claims(token: str) -> dict[str, Any]:
    """The claims of a JWT, decoded (not verified: the server does that)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


async def a_client_gets_a_token_and_calls_a_scoped_tool(check: Check) -> None:
    async with OidcProvider("python-oauth/provider") as provider:
        args = ("--auth-issuer", provider.issuer, "--auth-audience", "{url}")
        async with HttpServer("python-oauth/weather", WEATHER, *args) as server:
            storage = MemoryStorage()
            auth = ClientCredentialsOAuthProvider(
                server_url=server.url,
                storage=storage,
                client_id="mcp-test",
                client_secret="mcp-test-secret",
                issuer=provider.issuer,
            )
            async with create_mcp_http_client(auth=auth) as http_client:
                async with streamable_http_client(server.url, http_client=http_client) as (read, write):
                    async with ClientSession(read, write) as session:
                        with check.step("ClientCredentialsOAuthProvider: discovery, a token, initialize"):
                            init = await session.initialize()
                            check.equal(init.server_info.name, "weather", "serverInfo.name")
                            check.expect(storage.tokens is not None, "no token was stored")
                            assert storage.tokens is not None
                            token = claims(storage.tokens.access_token)
                            check.equal(
                                (token["iss"], token["aud"], token["sub"], token.get("scope")),
                                (provider.issuer, server.url, "mcp-test", "weather:read"),
                                "the token's iss, aud, sub and scope (the scope picked from the challenge)",
                            )

                        with check.step("tools/list and tools/call get_forecast (needs weather:read)"):
                            listed = await session.list_tools()
                            check.equal([tool.name for tool in listed.tools], WEATHER_TOOLS, "tool names")
                            forecast = structured(await session.call_tool("get_forecast", {"city": "Cairo", "days": 2}))
                            check.equal((forecast["city"], len(forecast["days"])), ("Cairo", 2), "city and days")

            with check.step("SIGTERM after the client closed its session: exit 0"):
                await server.stop(check)


if __name__ == "__main__":
    main("python-oauth", [a_client_gets_a_token_and_calls_a_scoped_tool])
