"""The official MCP Python SDK client with its own OAuth support (client credentials grant)
against a protected server: it meets the 401, finds the authorization server through the
protected resource metadata, gets a token, then lists the tools and calls `greet`.

Usage: python py-oauth-client.py <url> <issuer> <client id> <client secret> <scope>
Prints one JSON object: {tools, greeting}.
"""

import asyncio
import json
import sys
import warnings

from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

warnings.simplefilter("ignore")


class MemoryStorage:
    """Tokens and client information kept for the run only."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def main(url, issuer, client_id, client_secret, scope):
    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id=client_id,
        client_secret=client_secret,
        scope=scope,
        issuer=issuer,
    )
    http_client = create_mcp_http_client(auth=provider)
    async with http_client, Client(
        streamable_http_client(url, http_client=http_client), mode="legacy", cache=None
    ) as client:
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        called = await client.call_tool("greet", {"name": "py"})
        greeting = "\n".join(getattr(c, "text", "") for c in called.content)
    print(json.dumps({"tools": tools, "greeting": greeting}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
