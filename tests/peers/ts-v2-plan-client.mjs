// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.x) pinned to 2026-07-28, running
// a plan of operations, for the bridge's SDK-pair tests (direction B: a 2026-07-28 client in front
// of a legacy server). Usage:
//   PLAN='[...]' node ts-v2-plan-client.mjs <url> | stdio <command> [args...]
// The plan format is `py-plan-client.py`'s: `subscribe` and `listen {filter}` open a listen
// stream (kept open until `close` or the end), `level` puts `logLevel` in later requests' `_meta`. The client declares sampling, roots and
// form elicitation and answers them with the same fixed values as the other plan clients (its
// elicitation answer also carries a fractional `number`). Prints
// one JSON object: the negotiated revision and era, the server's name, each step's outcome (or
// {"error": message}) in order, and what it saw.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [first, ...rest] = process.argv.slice(2);
const plan = JSON.parse(process.env.PLAN ?? '[]');
const transport =
    first === 'stdio'
        ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'ignore' })
        : new StreamableHTTPClientTransport(new URL(first));
const client = new Client(
    { name: 'mcp-wire-pair-v2', version: '2.0.0' },
    {
        capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
    }
);
const seen = { logs: 0, updated: [], asked: [], toolsChanged: 0 };
client.setNotificationHandler('notifications/message', () => seen.logs++);
client.setNotificationHandler('notifications/tools/list_changed', () => seen.toolsChanged++);
client.setNotificationHandler('notifications/resources/updated', n => seen.updated.push(n.params.uri));
client.setRequestHandler('sampling/createMessage', () => {
    seen.asked.push('sampling/createMessage');
    return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'pair-model', stopReason: 'endTurn' };
});
client.setRequestHandler('roots/list', () => {
    seen.asked.push('roots/list');
    return { roots: [{ uri: 'file:///tmp/pair', name: 'pair' }] };
});
client.setRequestHandler('elicitation/create', () => {
    seen.asked.push('elicitation/create');
    // A fraction for a `number` field: schema.ts allows it (schema.json renders `integer`).
    return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com', number: 3.14 } };
});
await client.connect(transport);

const meta = {};
const subscriptions = [];
const text = result => (result.content ?? []).map(c => c.text ?? `[${c.type}]`).join('\n');
async function step(s) {
    const _meta = Object.keys(meta).length ? { _meta: { ...meta } } : {};
    switch (s.op) {
        case 'tools':
            return (await client.listTools()).tools.map(t => t.name).sort();
        case 'call': {
            const progress = [];
            const options = s.progress ? { onprogress: p => progress.push(p.progress) } : {};
            const params = { name: s.name, arguments: s.arguments ?? {}, ..._meta };
            if (s.cancelAfterMs) {
                const abort = new AbortController();
                options.signal = abort.signal;
                setTimeout(() => abort.abort('pair cancels'), s.cancelAfterMs);
                return await client.callTool(params, options).then(
                    () => ({ error: 'not cancelled' }),
                    () => (abort.signal.aborted ? { cancelled: true } : { error: 'failed' })
                );
            }
            const result = await client.callTool(params, options);
            if (s.full) return { text: text(result), structured: result.structuredContent ?? null, isError: result.isError ?? false };
            return s.progress ? { text: text(result), progress } : text(result);
        }
        case 'resources':
            return (await client.listResources()).resources.map(r => r.uri).sort();
        case 'read':
            return (await client.readResource({ uri: s.uri, ..._meta })).contents.map(c => c.text ?? c.blob?.length ?? null);
        case 'subscribe': {
            const subscription = await client.listen({ resourceSubscriptions: [s.uri] });
            subscriptions.push(subscription);
            return subscription.honoredFilter.resourceSubscriptions ?? [];
        }
        case 'listen': {
            const subscription = await client.listen(s.filter);
            subscriptions.push(subscription);
            return subscription.honoredFilter;
        }
        case 'change': {
            // Calls the tool, then waits (at most 2 s) for a tool list change.
            const before = seen.toolsChanged;
            await client.callTool({ name: s.name, arguments: s.arguments ?? {}, ..._meta });
            for (let i = 0; i < 100 && seen.toolsChanged === before; i++) await new Promise(r => setTimeout(r, 20));
            return seen.toolsChanged > before;
        }
        case 'close': {
            // Closes every listen stream; how each ended.
            const ended = [];
            for (const subscription of subscriptions.splice(0)) {
                await subscription.close();
                ended.push(await subscription.closed);
            }
            return ended;
        }
        case 'resources':
            return (await client.listResources()).resources.map(r => r.uri);
        case 'templates':
            return (await client.listResourceTemplates()).resourceTemplates.map(t => t.uriTemplate);
        case 'prompts':
            return (await client.listPrompts()).prompts.map(p => p.name).sort();
        case 'prompt':
            return (await client.getPrompt({ name: s.name, arguments: s.arguments ?? {}, ..._meta })).messages.map(
                m => m.content.text ?? m.content.type
            );
        case 'complete':
            return (await client.complete({ ref: s.ref, argument: s.argument })).completion.values;
        case 'level':
            meta['io.modelcontextprotocol/logLevel'] = s.level;
            return {};
        case 'wait':
            await new Promise(r => setTimeout(r, s.ms));
            return null;
        default:
            throw new Error(`unknown op ${s.op}`);
    }
}
const out = {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    era: client.getProtocolEra(),
    server: client.getServerVersion()?.name,
    steps: [],
};
for (const s of plan) {
    try {
        out.steps.push(await step(s));
    } catch (e) {
        out.steps.push({ error: String(e?.message ?? e) });
    }
}
out.seen = seen;
for (const subscription of subscriptions) await subscription.close();
await client.close();
console.log(JSON.stringify(out));
