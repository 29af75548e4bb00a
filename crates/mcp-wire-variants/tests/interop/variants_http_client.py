"""The official MCP Python SDK client against the `variants_http` example over Streamable HTTP.

Usage: python variants_http_client.py <url>. As alice (bearer token), it initializes with the
server-variants extension and hints, reads availableVariants, selects per request by _meta and by
the MCP-Server-Variant header, pages through variant-bound cursors, provokes the -32602 errors
(cross-variant cursor, tampered cursor, invalid variant), subscribes and waits for a tagged update
on the GET stream, unsubscribes, and closes (DELETE). Then bob initializes without the payload.
Prints one JSON object of observations for the Rust test.
"""

import asyncio
import warnings
import json
import sys

import httpx2
from mcp import Client
from mcp.client import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

EXT = "io.modelcontextprotocol/server-variants"
SEL = "io.modelcontextprotocol/server-variant"

# subscribe/unsubscribe are handshake-era methods; the SDK warns about 2026-07-28 on every call.
warnings.filterwarnings("ignore", message="resources/(un)?subscribe is removed")


def error_of(e):
    return {"code": e.error.code, "message": e.error.message, "data": e.error.data}


async def expect_error(call):
    try:
        await call
    except MCPError as e:
        return error_of(e)
    return "no error"


def http_client(token, seen):
    async def on_response(response):
        sid = response.headers.get("mcp-session-id")
        if sid:
            seen["session"] = sid
        if response.request.method == "DELETE":
            seen["delete"] = response.status_code

    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [on_response]},
    )


def names(result):
    return [t.name for t in result.tools]


async def alice(url):
    seen = {}
    updates = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(root.model_dump(by_alias=True, mode="json", exclude_none=True))

    out = {}
    hints = {"variantHints": {"hints": {"contextSize": "verbose"}}}
    http = http_client("alice", seen)
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(
            transport, mode="legacy", extensions=[advertise(EXT, hints)], message_handler=on_message
        ) as client:
            caps = client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
            ext = caps["extensions"][EXT]
            out["advertised"] = [v["id"] for v in ext["availableVariants"]]
            out["more"] = ext["moreVariantsAvailable"]
            out["default"] = names(await client.list_tools())
            # Select by _meta, paging through variant-bound cursors.
            first = await client.list_tools(meta={SEL: "preview"})
            second = await client.list_tools(cursor=first.next_cursor, meta={SEL: "preview"})
            out["previewPages"] = [names(first), names(second), second.next_cursor]
            call = await client.call_tool("translate", {"text": "hallo"}, meta={SEL: "preview"})
            out["call"] = call.content[0].text
            # Select by header (and _meta wins over it).
            http.headers["MCP-Server-Variant"] = "legacy"
            out["byHeader"] = names(await client.list_tools())
            out["metaWins"] = names(await client.list_tools(meta={SEL: "compact"}))
            del http.headers["MCP-Server-Variant"]
            # The errors, with their data.
            out["crossVariantCursor"] = await expect_error(
                client.list_tools(cursor=first.next_cursor, meta={SEL: "full"})
            )
            tampered = first.next_cursor[:-1] + ("0" if first.next_cursor[-1] != "0" else "1")
            out["tamperedCursor"] = await expect_error(client.list_tools(cursor=tampered, meta={SEL: "preview"}))
            out["invalidVariant"] = await expect_error(client.list_tools(meta={SEL: "gpt-optimized"}))
            # Subscribe in `full`; the update arrives on the GET stream, tagged.
            await client.subscribe_resource("demo://index", meta={SEL: "full"})
            for _ in range(500):
                if updates:
                    break
                await asyncio.sleep(0.02)
            out["update"] = updates[0] if updates else None
            await client.unsubscribe_resource("demo://index", meta={SEL: "full"})
            out["session"] = seen.get("session")
        out["delete"] = seen.get("delete")
    # After the DELETE the session id is unknown.
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer alice"}) as raw:
        r = await raw.post(
            url,
            headers={
                "mcp-session-id": out["session"] or "",
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
            },
            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        )
        out["afterDelete"] = r.status_code
    return out


async def bob(url):
    seen = {}
    out = {}
    http = http_client("bob", seen)
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="legacy") as client:
            caps = client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)
            out["extensionAdvertised"] = EXT in (caps.get("extensions") or {})
            out["tools"] = names(await client.list_tools())
            out["preview"] = await expect_error(client.list_tools(meta={SEL: "preview"}))
    return out


async def main(url):
    print(json.dumps({"alice": await alice(url), "bob": await bob(url)}))


asyncio.run(main(sys.argv[1]))
