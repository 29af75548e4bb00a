// A loopback HTTP relay that logs every JSON-RPC frame it carries, for the bridge's SDK-pair tests
// over HTTP (the stdio pairs tee the pipes instead). Usage:
//   node http-tap.mjs <target origin, e.g. http://127.0.0.1:PORT> <sent.jsonl> <received.jsonl>
// Listens on a free loopback port and prints its origin as the first stdout line; forwards every
// request (method, path, headers, body) to the target and streams the answer back unchanged.
// Frames in request bodies go to <sent.jsonl>, frames in answers (a JSON body, or each `data:` of
// an event stream) to <received.jsonl>, one per line; a batch is logged element by element and
// data that is not JSON (the HTTP+SSE `endpoint` event) is skipped. Exits when stdin closes.
import fs from 'node:fs';
import http from 'node:http';

const [target, sentPath, receivedPath] = process.argv.slice(2);
const upstream = new URL(target);

function log(path, text) {
    let value;
    try {
        value = JSON.parse(text);
    } catch {
        return;
    }
    for (const frame of Array.isArray(value) ? value : [value]) {
        fs.appendFileSync(path, JSON.stringify(frame) + '\n');
    }
}

const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', chunk => chunks.push(chunk));
    req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (body.length) log(sentPath, body.toString('utf8'));
        const headers = { ...req.headers, host: upstream.host };
        const forward = http.request(
            { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
            answer => {
                res.writeHead(answer.statusCode, answer.headers);
                const stream = (answer.headers['content-type'] ?? '').includes('text/event-stream');
                let pending = '';
                const bodyChunks = [];
                answer.on('data', chunk => {
                    res.write(chunk);
                    if (!stream) return bodyChunks.push(chunk);
                    pending += chunk.toString('utf8');
                    let end;
                    while ((end = pending.search(/\r?\n\r?\n/)) >= 0) {
                        const event = pending.slice(0, end);
                        pending = pending.slice(end).replace(/^\r?\n\r?\n/, '');
                        const data = event
                            .split(/\r?\n/)
                            .filter(line => line.startsWith('data:'))
                            .map(line => line.slice(5).replace(/^ /, ''))
                            .join('\n');
                        if (data) log(receivedPath, data);
                    }
                });
                answer.on('end', () => {
                    if (!stream && bodyChunks.length) log(receivedPath, Buffer.concat(bodyChunks).toString('utf8'));
                    res.end();
                });
            }
        );
        forward.on('error', () => res.headersSent ? res.end() : res.writeHead(502).end());
        res.on('close', () => forward.destroy());
        forward.end(body);
    });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
