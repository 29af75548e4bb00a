// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.x) server that speaks 2026-07-28 only
// (`legacy: 'reject'`): the mcp-wire-transport client tests' stateless-wire peer and the bridge's
// SDK-pair upstream for direction A (legacy clients reach it only through the bridge).
// Usage: node ts-v2-server.mjs [http | stdio]
// In http mode (the default) it listens on a free loopback port and prints its endpoint URL as
// the first stdout line, and exits when its stdin closes.
//
// It offers, the 2026-07-28 way: tools `echo`, `add`, `progress` (three progress notifications
// to the caller's token, 50 ms apart), `slow` (ten seconds unless cancelled), `log` (a debug and an info log,
// sent only at or above the request's `logLevel`), `ask` (elicits a name), `sample` (samples the
// client's model), `roots` (lists the client's roots) — the last three through
// `input_required` rounds — and `touch` (publishes an update of `pair://note`); prompts
// `greeting`, `grüße` and `pick` (argument `colour`, completable); resource `pair://note`,
// subscribable.
import http from 'node:http';
import {
    McpServer,
    acceptedContent,
    completable,
    createMcpHandler,
    inputRequired,
    inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const NOTE = 'pair://note';
const COLOURS = ['red', 'green', 'blue'];
const text = value => ({ content: [{ type: 'text', text: value }] });
// How `touch` publishes a resource update: set below for the mode served.
let publish = () => {};

function factory() {
    const server = new McpServer(
        { name: 'ts-v2-pair', version: '1.0.0' },
        { capabilities: { logging: {}, resources: { subscribe: true } } }
    );
    server.registerTool(
        'echo',
        { description: 'Echoes its message', inputSchema: z.object({ message: z.string() }) },
        async ({ message }) => text(`echo: ${message}`)
    );
    server.registerTool(
        'add',
        { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
        async ({ a, b }) => text(String(a + b))
    );
    server.registerTool('progress', { description: 'Three progress steps', inputSchema: z.object({}) }, async (_args, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (let step = 1; step <= 3; step++) {
            await new Promise(resolve => setTimeout(resolve, 50));
            if (progressToken !== undefined) {
                await ctx.mcpReq.notify({
                    method: 'notifications/progress',
                    params: { progressToken, progress: step, total: 3 },
                });
            }
        }
        return text('progress done');
    });
    server.registerTool('slow', { description: 'Ten seconds unless cancelled', inputSchema: z.object({}) }, async (_args, ctx) => {
        await new Promise(resolve => {
            const timer = setTimeout(resolve, 10_000);
            ctx.mcpReq.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                resolve();
            });
        });
        return text(ctx.mcpReq.signal.aborted ? 'slow cancelled' : 'slow done');
    });
    server.registerTool('log', { description: 'Logs at debug and info', inputSchema: z.object({}) }, async (_args, ctx) => {
        await ctx.mcpReq.log('debug', 'a debug line');
        await ctx.mcpReq.log('info', 'an info line');
        return text('logged');
    });
    server.registerTool('ask', { description: 'Elicits a name', inputSchema: z.object({}) }, async (_args, ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', z.object({ name: z.string() }));
        if (answer === undefined) {
            return inputRequired({
                inputRequests: {
                    name: inputRequired.elicit({
                        message: 'Your name?',
                        requestedSchema: {
                            type: 'object',
                            properties: { name: { type: 'string' } },
                            required: ['name'],
                        },
                    }),
                },
            });
        }
        return text(`hello, ${answer.name}`);
    });
    server.registerTool('sample', { description: "Samples the client's model", inputSchema: z.object({}) }, async (_args, ctx) => {
        const view = inputResponse(ctx.mcpReq.inputResponses, 'model');
        if (view.kind !== 'sampling') {
            return inputRequired({
                inputRequests: {
                    model: inputRequired.createMessage({
                        messages: [{ role: 'user', content: { type: 'text', text: 'a colour' } }],
                        maxTokens: 10,
                    }),
                },
            });
        }
        return text(`sampled: ${view.result.content.text}`);
    });
    server.registerTool('roots', { description: "Lists the client's roots", inputSchema: z.object({}) }, async (_args, ctx) => {
        const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
        if (view.kind !== 'roots') {
            return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
        }
        return text(`roots: ${view.roots.map(r => r.uri).join(' ')}`);
    });
    server.registerTool('touch', { description: `Publishes an update of ${NOTE}`, inputSchema: z.object({}) }, async () => {
        publish(server, NOTE);
        return text('touched');
    });
    server.registerPrompt('greeting', { description: 'A greeting' }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hello from v2' } }],
    }));
    // A name that is not visible ASCII: its Mcp-Name header must travel base64-wrapped.
    server.registerPrompt('grüße', { description: 'A greeting' }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hallo' } }],
    }));
    server.registerPrompt(
        'pick',
        {
            description: 'Picks a colour',
            argsSchema: z.object({
                colour: completable(z.string(), value => COLOURS.filter(c => c.startsWith(value))),
            }),
        },
        async ({ colour }) => ({
            messages: [{ role: 'user', content: { type: 'text', text: `you picked ${colour}` } }],
        })
    );
    server.registerResource('note', NOTE, { mimeType: 'text/plain' }, async uri => ({
        contents: [{ uri: uri.href, text: 'a note from v2' }],
    }));
    return server;
}

if (process.argv[2] === 'stdio') {
    // One instance serves the connection; its own update reaches the open listen stream.
    publish = (server, uri) => server.server.sendResourceUpdated({ uri });
    serveStdio(factory, { legacy: 'reject' });
} else {
    const handler = createMcpHandler(factory, { legacy: 'reject' });
    // An instance per request: updates go through the handler's listen streams.
    publish = (_server, uri) => handler.notify.resourceUpdated(uri);
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
