// A real TypeScript SDK v1 client that runs a plan of operations against any server and prints
// what it saw, for the bridge's SDK-pair tests. Usage:
//   PLAN='[...]' node ts-plan-client.mjs <sdk> streamable|sse <url>
//   PLAN='[...]' node ts-plan-client.mjs <sdk> stdio <command> [args...]
// <sdk>: `@modelcontextprotocol/sdk` (1.32.x) or `mcp-sdk-2024-11-05` (1.9.0). The client
// declares sampling and roots (and elicitation where the SDK has it) and answers them with fixed
// values. Each plan step is {"op": ..., ...} (the plan format of `py-plan-client.py`); its
// outcome (or {"error": message}) is printed in order, with the notifications seen, as one JSON
// object.
const [sdk, kind, ...target] = process.argv.slice(2);
const plan = JSON.parse(process.env.PLAN ?? '[]');
const { Client } = await import(`${sdk}/client/index.js`);
const types = await import(`${sdk}/types.js`);
const module = { sse: 'sse', streamable: 'streamableHttp', stdio: 'stdio' }[kind];
const transports = await import(`${sdk}/client/${module}.js`);
const transport =
    kind === 'stdio'
        ? new transports.StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'ignore' })
        : new transports[kind === 'sse' ? 'SSEClientTransport' : 'StreamableHTTPClientTransport'](new URL(target[0]));
let negotiated = null;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = version => {
    negotiated = version;
    setProtocolVersion?.(version);
};
const capabilities = { sampling: {}, roots: { listChanged: true } };
if (types.ElicitRequestSchema) capabilities.elicitation = {};
const client = new Client({ name: 'mcp-wire-pair', version: '1.0.0' }, { capabilities });
const seen = { logs: 0, updated: [], asked: [], toolsChanged: 0 };
client.setNotificationHandler(types.LoggingMessageNotificationSchema, () => seen.logs++);
client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => seen.toolsChanged++);
client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, n => seen.updated.push(n.params.uri));
client.setRequestHandler(types.CreateMessageRequestSchema, () => {
    seen.asked.push('sampling/createMessage');
    return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'pair-model', stopReason: 'endTurn' };
});
client.setRequestHandler(types.ListRootsRequestSchema, () => {
    seen.asked.push('roots/list');
    return { roots: [{ uri: 'file:///tmp/pair', name: 'pair' }] };
});
if (types.ElicitRequestSchema) {
    client.setRequestHandler(types.ElicitRequestSchema, () => {
        seen.asked.push('elicitation/create');
        return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com' } };
    });
}
await client.connect(transport);

const text = result => (result.content ?? []).map(c => c.text ?? `[${c.type}]`).join('\n');
async function step(s) {
    switch (s.op) {
        case 'tools':
            return (await client.listTools()).tools.map(t => t.name).sort();
        case 'call': {
            const progress = [];
            const options = s.progress ? { onprogress: p => progress.push(p.progress) } : {};
            if (s.cancelAfterMs) {
                const abort = new AbortController();
                options.signal = abort.signal;
                setTimeout(() => abort.abort('pair cancels'), s.cancelAfterMs);
                const call = client.callTool({ name: s.name, arguments: s.arguments ?? {} }, undefined, options);
                return await call.then(() => ({ error: 'not cancelled' }), () => (abort.signal.aborted ? { cancelled: true } : { error: 'failed' }));
            }
            const result = await client.callTool({ name: s.name, arguments: s.arguments ?? {} }, undefined, options);
            if (s.full) return { text: text(result), structured: result.structuredContent ?? null, isError: result.isError ?? false };
            return s.progress ? { text: text(result), progress } : text(result);
        }
        case 'change': {
            // Calls the tool, then waits (at most 2 s) for a tool list change.
            const before = seen.toolsChanged;
            await client.callTool({ name: s.name, arguments: s.arguments ?? {} });
            for (let i = 0; i < 100 && seen.toolsChanged === before; i++) await new Promise(r => setTimeout(r, 20));
            return seen.toolsChanged > before;
        }
        case 'resources':
            return (await client.listResources()).resources.map(r => r.uri).sort();
        case 'read':
            return (await client.readResource({ uri: s.uri })).contents.map(c => c.text ?? c.blob?.length ?? null);
        case 'subscribe':
            return await client.subscribeResource({ uri: s.uri });
        case 'resources':
            return (await client.listResources()).resources.map(r => r.uri);
        case 'templates':
            return (await client.listResourceTemplates()).resourceTemplates.map(t => t.uriTemplate);
        case 'prompts':
            return (await client.listPrompts()).prompts.map(p => p.name).sort();
        case 'prompt':
            return (await client.getPrompt({ name: s.name, arguments: s.arguments ?? {} })).messages.map(m => m.content.text ?? m.content.type);
        case 'complete':
            return (await client.complete({ ref: s.ref, argument: s.argument, ...(s.context ? { context: s.context } : {}) })).completion.values;
        case 'level':
            return await client.setLoggingLevel(s.level);
        case 'ping':
            return await client.ping();
        case 'wait':
            await new Promise(r => setTimeout(r, s.ms));
            return null;
        default:
            throw new Error(`unknown op ${s.op}`);
    }
}
const out = { protocolVersion: negotiated, server: client.getServerVersion()?.name, steps: [] };
for (const s of plan) {
    try {
        out.steps.push(await step(s));
    } catch (e) {
        out.steps.push({ error: String(e?.message ?? e) });
    }
}
out.seen = seen;
await client.close();
console.log(JSON.stringify(out));
