// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.x) as a judge of our server at
// 2026-07-28. Usage: node ts-v2-client.mjs <url> | stdio <server command> [args...].
// Prints one JSON object of observations.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [first, ...rest] = process.argv.slice(2);
const transport =
    first === 'stdio'
        ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'ignore' })
        : new StreamableHTTPClientTransport(new URL(first));
const client = new Client(
    { name: 'mcp-wire-judge', version: '2.0.0' },
    { capabilities: {}, versionNegotiation: { mode: 'auto' } }
);
const changes = [];
client.setNotificationHandler('notifications/tools/list_changed', () => changes.push('tools'));
await client.connect(transport);

const out = {};
out.protocolVersion = client.getNegotiatedProtocolVersion();
out.era = client.getProtocolEra();
out.server = client.getServerVersion()?.name;
out.tools = (await client.listTools()).tools.length;
out.text = (await client.callTool({ name: 'test_simple_text', arguments: {} })).content[0].text;
out.resource = (await client.readResource({ uri: 'test://static-text' })).contents[0].text;
out.prompt = (
    await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
).messages[0].content.text;

const progress = [];
await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, {
    onprogress: p => progress.push(p.progress),
});
out.progress = progress;

const subscription = await client.listen({ toolsListChanged: true });
out.honored = subscription.honoredFilter;
await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
for (let i = 0; i < 100 && changes.length === 0; i++) await new Promise(r => setTimeout(r, 20));
out.listChanged = changes.length > 0;
await subscription.close();
out.subscriptionEnd = await subscription.closed;

const abort = new AbortController();
const slow = client.callTool({ name: 'test_reconnection', arguments: {} }, { signal: abort.signal });
setTimeout(() => abort.abort('judge cancels'), 100);
out.cancel = await slow.then(() => 'completed', () => 'cancelled');
out.afterCancel = (await client.callTool({ name: 'test_simple_text', arguments: {} })).content[0].text;

await client.close();
console.log(JSON.stringify(out));
