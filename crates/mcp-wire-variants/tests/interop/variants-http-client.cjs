// The official TypeScript SDK v1 client (@modelcontextprotocol/sdk, pinned in tests/peers/)
// against the `variants_http` example over Streamable HTTP. Usage: node variants-http-client.cjs <url>
// (CommonJS, so NODE_PATH finds the installed packages). As alice it initializes with the
// server-variants extension and hints, reads availableVariants, selects per request by _meta and
// by the MCP-Server-Variant header, pages through variant-bound cursors, provokes the -32602
// errors, subscribes and waits for a tagged update on the GET stream, unsubscribes and DELETEs the
// session; bob initializes without the payload. Prints one JSON object of observations.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const types = require('@modelcontextprotocol/sdk/types.js');

const EXT = 'io.modelcontextprotocol/server-variants';
const SEL = 'io.modelcontextprotocol/server-variant';
const url = new URL(process.argv[2]);

function connect(token, extensions) {
    const state = { header: null, deletes: [] };
    const fetchWithVariant = async (input, init = {}) => {
        const headers = new Headers(init.headers);
        headers.set('Authorization', `Bearer ${token}`);
        if (state.header) headers.set('MCP-Server-Variant', state.header);
        const response = await fetch(input, { ...init, headers });
        if ((init.method ?? 'GET') === 'DELETE') state.deletes.push(response.status);
        return response;
    };
    const transport = new StreamableHTTPClientTransport(url, { fetch: fetchWithVariant });
    const capabilities = extensions ? { extensions } : {};
    const client = new Client({ name: 'variants-judge', version: '1.0.0' }, { capabilities });
    return { client, transport, state };
}

const names = result => result.tools.map(t => t.name);

async function errorOf(promise) {
    try {
        await promise;
        return 'no error';
    } catch (e) {
        return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, ''), data: e.data };
    }
}

async function alice() {
    const hints = { variantHints: { hints: { contextSize: 'verbose' } } };
    const { client, transport, state } = connect('alice', { [EXT]: hints });
    const updates = [];
    client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, n => updates.push(n));
    await client.connect(transport);
    const out = {};
    const ext = client.getServerCapabilities().extensions[EXT];
    out.advertised = ext.availableVariants.map(v => v.id);
    out.more = ext.moreVariantsAvailable;
    out.default = names(await client.listTools());
    const first = await client.listTools({ _meta: { [SEL]: 'preview' } });
    const second = await client.listTools({ cursor: first.nextCursor, _meta: { [SEL]: 'preview' } });
    out.previewPages = [names(first), names(second), second.nextCursor ?? null];
    const call = await client.callTool({ name: 'translate', arguments: { text: 'hallo' }, _meta: { [SEL]: 'preview' } });
    out.call = call.content[0].text;
    state.header = 'legacy';
    out.byHeader = names(await client.listTools());
    out.metaWins = names(await client.listTools({ _meta: { [SEL]: 'compact' } }));
    state.header = null;
    out.crossVariantCursor = await errorOf(client.listTools({ cursor: first.nextCursor, _meta: { [SEL]: 'full' } }));
    const c = first.nextCursor;
    const tampered = c.slice(0, -1) + (c.endsWith('0') ? '1' : '0');
    out.tamperedCursor = await errorOf(client.listTools({ cursor: tampered, _meta: { [SEL]: 'preview' } }));
    out.invalidVariant = await errorOf(client.listTools({ _meta: { [SEL]: 'gpt-optimized' } }));
    await client.subscribeResource({ uri: 'demo://index', _meta: { [SEL]: 'full' } });
    for (let i = 0; i < 500 && updates.length === 0; i++) await new Promise(r => setTimeout(r, 20));
    out.update = updates[0] ?? null;
    await client.unsubscribeResource({ uri: 'demo://index', _meta: { [SEL]: 'full' } });
    const session = transport.sessionId;
    await transport.terminateSession();
    out.delete = state.deletes[0] ?? null;
    await client.close();
    const after = await fetch(url, {
        method: 'POST',
        headers: {
            Authorization: 'Bearer alice',
            'mcp-session-id': session,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    out.afterDelete = after.status;
    return out;
}

async function bob() {
    const { client, transport } = connect('bob', null);
    await client.connect(transport);
    const out = {};
    out.extensionAdvertised = EXT in (client.getServerCapabilities().extensions ?? {});
    out.tools = names(await client.listTools());
    out.preview = await errorOf(client.listTools({ _meta: { [SEL]: 'preview' } }));
    await transport.terminateSession();
    await client.close();
    return out;
}

(async () => {
    const out = { alice: await alice(), bob: await bob() };
    console.log(JSON.stringify(out));
    process.exit(0);
})().catch(e => {
    console.error(e);
    process.exit(1);
});
