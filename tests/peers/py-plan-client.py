"""The official MCP Python SDK client running a plan of operations, for the bridge's SDK-pair tests.

Usage: PLAN='[...]' python py-plan-client.py legacy|2026-07-28 <url> | --stdio <command> [args...]

`legacy` is the handshake era (`Client(mode="legacy")`), `2026-07-28` the stateless era. The
client registers sampling, roots, elicitation and logging callbacks answering fixed values (the
same as the TypeScript plan clients). Each plan step is {"op": ...}; its outcome, or
{"error": message}, is printed in order with what the client saw, as one JSON object:
  tools | call {name, arguments, progress?, cancelAfterMs?, full?} (full: {text, structured,
  isError}) | resources (their URIs) | change {name} (a call, then at most
  2 s for a tool list change: whether one came) | read {uri} | subscribe {uri} (legacy:
  resources/subscribe; 2026-07-28: a listen stream kept open to the end) | listen {filter}
  (2026-07-28: a listen stream, its honored filter) | prompts |
  resources | templates | prompt {name, arguments?} | complete {ref, argument} | level {level} (legacy: logging/setLevel;
  2026-07-28: `logLevel` in later requests' `_meta`) | ping | wait {ms}
"""

import asyncio
import json
import os
import sys
import warnings
from contextlib import AsyncExitStack

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import (
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    Root,
    TextContent,
)

warnings.simplefilter("ignore")
LOG_LEVEL = "io.modelcontextprotocol/logLevel"


async def main(argv):
    mode, target = argv[0], argv[1:]
    server = StdioServerParameters(command=target[1], args=target[2:]) if target[0] == "--stdio" else target[0]
    plan = json.loads(os.environ.get("PLAN", "[]"))
    seen = {"logs": 0, "updated": [], "asked": [], "toolsChanged": 0}

    async def sampling(context, params):
        seen["asked"].append("sampling/createMessage")
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="sampled"), model="pair-model", stop_reason="endTurn"
        )

    async def roots(context):
        seen["asked"].append("roots/list")
        return ListRootsResult(roots=[Root(uri="file:///tmp/pair", name="pair")])

    async def elicitation(context, params):
        seen["asked"].append("elicitation/create")
        if getattr(params, "mode", None) == "url":
            return ElicitResult(action="accept")
        return ElicitResult(action="accept", content={"name": "Ada", "check": True, "email": "ada@example.com"})

    async def logging(params):
        seen["logs"] += 1

    async def on_message(message):
        method = getattr(message, "method", None)
        if method == "notifications/resources/updated":
            seen["updated"].append(str(message.params.uri))
        elif method == "notifications/tools/list_changed":
            seen["toolsChanged"] += 1

    modern = mode != "legacy"
    level = {}
    text = lambda result: "\n".join(getattr(c, "text", f"[{c.type}]") for c in result.content)

    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            Client(
                server,
                mode=mode,
                sampling_callback=sampling,
                list_roots_callback=roots,
                elicitation_callback=elicitation,
                logging_callback=logging,
                message_handler=on_message,
                cache=None,
            )
        )
        followers = []

        async def follow(sub):
            async for event in sub:
                uri = getattr(event, "uri", None)
                if uri is not None:
                    seen["updated"].append(str(uri))
                elif type(event).__name__ == "ToolsListChanged":
                    seen["toolsChanged"] += 1

        async def step(s):
            op = s["op"]
            meta = dict(level) if modern and level else None
            if op == "tools":
                return sorted(t.name for t in (await client.list_tools()).tools)
            if op == "call":
                progress = []

                async def on_progress(value, total, message):
                    progress.append(value)

                callback = on_progress if s.get("progress") else None
                call = client.call_tool(s["name"], s.get("arguments", {}), progress_callback=callback, meta=meta)
                if s.get("cancelAfterMs"):
                    with anyio.move_on_after(s["cancelAfterMs"] / 1000) as scope:
                        await call
                    return {"cancelled": True} if scope.cancelled_caught else {"error": "not cancelled"}
                result = await call
                if s.get("full"):
                    return {"text": text(result), "structured": result.structured_content, "isError": bool(result.is_error)}
                return {"text": text(result), "progress": progress} if callback else text(result)
            if op == "change":
                # Calls the tool, then waits (at most 2 s) for a tool list change.
                before = seen["toolsChanged"]
                await client.call_tool(s["name"], s.get("arguments", {}), meta=meta)
                for _ in range(100):
                    if seen["toolsChanged"] > before:
                        break
                    await asyncio.sleep(0.02)
                return seen["toolsChanged"] > before
            if op == "listen":
                names = {
                    "toolsListChanged": "tools_list_changed",
                    "promptsListChanged": "prompts_list_changed",
                    "resourcesListChanged": "resources_list_changed",
                    "resourceSubscriptions": "resource_subscriptions",
                }
                sub = await stack.enter_async_context(client.listen(**{names[k]: v for k, v in s["filter"].items()}))
                followers.append(asyncio.create_task(follow(sub)))
                return sub.honored.model_dump(by_alias=True, exclude_none=True)
            if op == "resources":
                return sorted(str(r.uri) for r in (await client.list_resources()).resources)
            if op == "read":
                return [getattr(c, "text", None) for c in (await client.read_resource(s["uri"])).contents]
            if op == "subscribe":
                if not modern:
                    await client.subscribe_resource(s["uri"])
                    return {}
                sub = await stack.enter_async_context(client.listen(resource_subscriptions=[s["uri"]]))
                followers.append(asyncio.create_task(follow(sub)))
                return list(sub.honored.resource_subscriptions or [])
            if op == "resources":
                return [str(r.uri) for r in (await client.list_resources()).resources]
            if op == "templates":
                return [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            if op == "prompts":
                return sorted(p.name for p in (await client.list_prompts()).prompts)
            if op == "prompt":
                result = await client.get_prompt(s["name"], s.get("arguments", {}), meta=meta)
                return [getattr(m.content, "text", m.content.type) for m in result.messages]
            if op == "complete":
                ref = s["ref"]
                typed = (
                    PromptReference(type="ref/prompt", name=ref["name"])
                    if ref["type"] == "ref/prompt"
                    else ResourceTemplateReference(type="ref/resource", uri=ref["uri"])
                )
                argument = s["argument"]
                return (await client.complete(typed, {"name": argument["name"], "value": argument["value"]})).completion.values
            if op == "level":
                if modern:
                    level[LOG_LEVEL] = s["level"]
                    return {}
                await client.set_logging_level(s["level"])
                return {}
            if op == "ping":
                await client.send_ping()
                return {}
            if op == "wait":
                await asyncio.sleep(s["ms"] / 1000)
                return None
            raise ValueError(f"unknown op {op}")

        server_name = getattr(client.server_info, "name", None)
        if server_name is None and modern:
            # A pinned client adopts the revision without a probe: ask the server who it is.
            raw = await client.session.send_discover(mode)
            raw = raw if isinstance(raw, dict) else raw.model_dump(by_alias=True)
            server_name = ((raw.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}).get("name")
        out = {"protocolVersion": client.protocol_version, "server": server_name, "steps": []}
        for s in plan:
            try:
                out["steps"].append(await step(s))
            except Exception as e:  # the step's outcome, reported to the test
                out["steps"].append({"error": f"{type(e).__name__}: {e}"})
        out["seen"] = seen
        for follower in followers:
            follower.cancel()
    print(json.dumps(out))


asyncio.run(main(sys.argv[1:]))
