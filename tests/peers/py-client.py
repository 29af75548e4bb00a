"""The official MCP Python SDK client as a judge of our server (handshake era; Streamable HTTP or stdio).

Usage: python py-client.py <url> | python py-client.py --stdio <command> [args...]. Lists, calls, reads, gets, subscribes, follows a list change,
takes progress and cancels; prints one JSON object of observations for the Rust test.
"""

import asyncio
import json
import sys

import anyio
from mcp import Client, StdioServerParameters


async def main(argv):
    if argv[0] == "--stdio":
        server = StdioServerParameters(command=argv[1], args=argv[2:])
    else:
        server = argv[0]
    changes = []

    async def on_message(message):
        method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
        if method == "notifications/tools/list_changed":
            changes.append(method)

    out = {}
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        out["protocolVersion"] = client.protocol_version
        out["tools"] = len((await client.list_tools()).tools)
        out["text"] = (await client.call_tool("test_simple_text", {})).content[0].text
        out["resource"] = (await client.read_resource("test://static-text")).contents[0].text
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        out["prompt"] = prompt.messages[0].content.text
        await client.subscribe_resource("test://watched-resource")
        out["subscribe"] = "ok"

        progress = []

        async def on_progress(value, total, message):
            progress.append(value)

        await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        out["progress"] = progress

        await client.call_tool("test_trigger_tool_change", {})
        for _ in range(100):
            if changes:
                break
            await asyncio.sleep(0.02)
        out["listChanged"] = bool(changes)
        out["addedTool"] = any(t.name == "test_added_tool" for t in (await client.list_tools()).tools)

        with anyio.move_on_after(0.1) as scope:
            await client.call_tool("test_reconnection", {})
        out["cancel"] = "cancelled" if scope.cancelled_caught else "completed"
        await client.send_ping()
        out["afterCancel"] = "ok"
    print(json.dumps(out))


asyncio.run(main(sys.argv[1:]))
