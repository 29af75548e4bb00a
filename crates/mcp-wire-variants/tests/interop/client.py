"""Interop check: the official MCP Python SDK client against the variants_stdio example.

Usage: python client.py <path to the variants_stdio binary>
Prints one JSON object (the observations) on stdout; the Rust test asserts on it.
"""

import asyncio
import json
import sys

from mcp import Client, MCPError, StdioServerParameters
from mcp.client import advertise

EXTENSION_ID = "io.modelcontextprotocol/server-variants"
SELECTOR = "io.modelcontextprotocol/server-variant"


async def list_all(client, meta=None):
    names, pages, cursor = [], 0, None
    while True:
        result = await client.list_tools(cursor=cursor, meta=meta)
        pages += 1
        names += [tool.name for tool in result.tools]
        cursor = result.next_cursor
        if cursor is None:
            return names, pages


def text_of(result):
    return [block.text for block in result.content if block.type == "text"]


def variants_payload(client):
    caps = client.server_capabilities
    return (caps.extensions or {}).get(EXTENSION_ID)


async def plain(server):
    """A client that knows nothing about variants: default variant, no selector."""
    async with Client(server) as client:
        names, pages = await list_all(client)
        call = await client.call_tool("search", {"query": "rust"})
        payload = variants_payload(client)
        return {
            "protocolVersion": client.protocol_version,
            "advertised": [v["id"] for v in payload["availableVariants"]] if payload else None,
            "tools": names,
            "pages": pages,
            "call": text_of(call),
        }


async def aware(server):
    """A client that advertises the extension with hints and selects variants in _meta."""
    hints = {"variantHints": {"hints": {"contextSize": ["verbose", "standard"]}}}
    async with Client(server, extensions=[advertise(EXTENSION_ID, hints)]) as client:
        payload = variants_payload(client)
        default_names, default_pages = await list_all(client)
        preview_names, preview_pages = await list_all(client, meta={SELECTOR: "preview"})
        call = await client.call_tool("translate", {"text": "hallo"}, meta={SELECTOR: "preview"})
        legacy = await client.call_tool("search_v1", {"q": "old"}, meta={SELECTOR: "legacy"})
        try:
            await client.list_tools(meta={SELECTOR: "gpt-optimized"})
            invalid = None
        except MCPError as e:
            invalid = {"code": e.code, "message": e.message, "data": e.data}
        return {
            "protocolVersion": client.protocol_version,
            "advertised": [v["id"] for v in payload["availableVariants"]],
            "legacyDeprecation": payload["availableVariants"][-1].get("deprecationInfo"),
            "defaultTools": default_names,
            "defaultPages": default_pages,
            "previewTools": preview_names,
            "previewPages": preview_pages,
            "previewCall": text_of(call),
            "legacyCall": text_of(legacy),
            "invalidVariant": invalid,
        }


async def main(binary):
    server = StdioServerParameters(command=binary)
    report = {"plain": await plain(server), "aware": await aware(server)}
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
