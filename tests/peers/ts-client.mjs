// A real TypeScript SDK client as a judge of our server. Usage:
//   node ts-client.mjs <sdk> streamable|sse <url>
//   node ts-client.mjs <sdk> stdio <server command> [args...]
// <sdk> is the installed package to drive: `@modelcontextprotocol/sdk` (v1, 1.32.x) or
// `mcp-sdk-2024-11-05` (v1 1.9.0, newest revision 2024-11-05). It lists, calls, reads, gets,
// subscribes, follows a list change, takes progress and cancels, then prints one JSON object of
// observations on stdout for the Rust test to assert on.
const [sdk, kind, ...target] = process.argv.slice(2);
const { Client } = await import(`${sdk}/client/index.js`);
const types = await import(`${sdk}/types.js`);
const module = { sse: 'sse', streamable: 'streamableHttp', stdio: 'stdio' }[kind];
const transports = await import(`${sdk}/client/${module}.js`);
const transport =
    kind === 'stdio'
        ? new transports.StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'ignore' })
        : new transports[kind === 'sse' ? 'SSEClientTransport' : 'StreamableHTTPClientTransport'](new URL(target[0]));
// The v1 client hands the negotiated revision to transports that take it; note it on every one.
let negotiated = null;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = version => {
    negotiated = version;
    setProtocolVersion?.(version);
};
const client = new Client({ name: 'mcp-wire-judge', version: '1.0.0' }, { capabilities: {} });
const changes = [];
client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => changes.push('tools'));
await client.connect(transport);

const out = {};
out.protocolVersion = negotiated;
out.server = client.getServerVersion()?.name;
out.tools = (await client.listTools()).tools.length;
out.text = (await client.callTool({ name: 'test_simple_text', arguments: {} })).content[0].text;
out.resource = (await client.readResource({ uri: 'test://static-text' })).contents[0].text;
out.prompt = (
    await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
).messages[0].content.text;
out.subscribe = await client.subscribeResource({ uri: 'test://watched-resource' });

const progress = [];
await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: p => progress.push(p.progress),
});
out.progress = progress;

await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
for (let i = 0; i < 100 && changes.length === 0; i++) await new Promise(r => setTimeout(r, 20));
out.listChanged = changes.length > 0;
out.addedTool = (await client.listTools()).tools.some(t => t.name === 'test_added_tool');

const abort = new AbortController();
const slow = client.callTool({ name: 'test_reconnection', arguments: {} }, undefined, { signal: abort.signal });
setTimeout(() => abort.abort('judge cancels'), 100);
out.cancel = await slow.then(() => 'completed', () => 'cancelled');
out.afterCancel = await client.ping().then(() => 'ok', e => String(e));

await client.close();
console.log(JSON.stringify(out));
