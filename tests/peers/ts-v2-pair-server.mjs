// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.x) server that speaks 2026-07-28 only
// (`legacy: 'reject'`), for the bridge's SDK-pair tests (direction A: legacy clients reach it
// only through the bridge). Usage: node ts-v2-pair-server.mjs stdio | http
// In http mode it listens on a free loopback port and prints its endpoint URL first on stdout.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function factory() {
    const server = new McpServer({ name: 'ts-v2-pair', version: '1.0.0' });
    server.registerTool(
        'echo',
        { description: 'Echoes its message', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] })
    );
    server.registerTool(
        'add',
        { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
    );
    server.registerPrompt('greeting', { description: 'A greeting' }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hello from v2' } }],
    }));
    server.registerResource('note', 'pair://note', { mimeType: 'text/plain' }, async uri => ({
        contents: [{ uri: uri.href, text: 'a note from v2' }],
    }));
    return server;
}

if (process.argv[2] === 'stdio') {
    serveStdio(factory, { legacy: 'reject' });
} else {
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
}
