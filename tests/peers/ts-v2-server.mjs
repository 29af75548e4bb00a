// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) server on the 2026-07-28 stateless
// wire, for the mcp-transport client tests. Usage: node ts-v2-server.mjs
// Listens on a free loopback port and prints its endpoint URL as the first stdout line.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

function factory() {
    const server = new McpServer({ name: 'ts-v2-peer', version: '1.0.0' });
    server.registerTool(
        'echo',
        { description: 'Echoes its message', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] })
    );
    // A name that is not visible ASCII: its Mcp-Name header must travel base64-wrapped.
    server.registerPrompt('grüße', { description: 'A greeting' }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hallo' } }],
    }));
    return server;
}

const handler = createMcpHandler(factory, { legacy: 'reject' });

const server = http.createServer(async (req, res) => {
    try {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
            if (name !== 'host' && typeof value === 'string') headers.set(name, value);
        }
        const request = new Request(`http://${req.headers.host}${req.url}`, {
            method: req.method,
            headers,
            body: hasBody ? Buffer.concat(chunks) : undefined,
        });
        const response = await handler.fetch(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body) {
            for await (const chunk of response.body) res.write(chunk);
        }
        res.end();
    } catch (error) {
        console.error(error);
        res.writeHead(500).end();
    }
});
server.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${server.address().port}/mcp`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
