// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.x) pinned to 2026-07-28, running
// a plan of operations, for the bridge's SDK-pair tests (direction B: a 2026-07-28 client in front
// of a legacy server). Usage:
//   PLAN='[...]' node ts-v2-plan-client.mjs <url> | stdio <command> [args...]
// Prints one JSON object: the negotiated revision, the server's name, each step's outcome (or
// {"error": message}) in order.
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
    { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }
);
await client.connect(transport);

const text = result => (result.content ?? []).map(c => c.text ?? `[${c.type}]`).join('\n');
async function step(s) {
    switch (s.op) {
        case 'tools':
            return (await client.listTools()).tools.map(t => t.name).sort();
        case 'call': {
            const progress = [];
            const options = s.progress ? { onprogress: p => progress.push(p.progress) } : {};
            const result = await client.callTool({ name: s.name, arguments: s.arguments ?? {} }, options);
            return s.progress ? { text: text(result), progress } : text(result);
        }
        case 'read':
            return (await client.readResource({ uri: s.uri })).contents.map(c => c.text ?? c.blob?.length ?? null);
        case 'prompts':
            return (await client.listPrompts()).prompts.map(p => p.name).sort();
        case 'prompt':
            return (await client.getPrompt({ name: s.name, arguments: s.arguments ?? {} })).messages.map(m => m.content.text ?? m.content.type);
        case 'complete':
            return (await client.complete({ ref: s.ref, argument: s.argument })).completion.values;
        default:
            throw new Error(`unknown op ${s.op}`);
    }
}
const out = { protocolVersion: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra(), server: client.getServerVersion()?.name, steps: [] };
for (const s of plan) {
    try {
        out.steps.push(await step(s));
    } catch (e) {
        out.steps.push({ error: String(e?.message ?? e) });
    }
}
await client.close();
console.log(JSON.stringify(out));
