// A stdio relay that records the session it carries, for `cargo xtask corpus`. Usage:
//   node stdio-tap.mjs <session.jsonl> <command> [args...]
// Runs <command> as the server, passes our stdin to its stdin and its stdout to our stdout
// unchanged, and appends every line either way to <session.jsonl> as a capture record
// `{"dir":"c2s"|"s2c","frame":<the line's text as sent>}`: the peer's own bytes, key order and
// number forms kept. One process sees both directions, so the records are in causal order (an
// answer after its request). Lines that are not one JSON value (a peer's stray output) are
// passed on but not recorded. Exits with the server, which is given two seconds to end after
// its input does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const [session, command, ...args] = process.argv.slice(2);
const out = fs.openSync(session, 'a');
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });

function record(dir, line) {
    const text = line.replace(/\r$/, '');
    try {
        JSON.parse(text);
    } catch {
        return;
    }
    fs.writeSync(out, `{"dir":"${dir}","frame":${text}}\n`);
}

// Splits a stream into lines, records each, and forwards the bytes as they came.
function relay(from, to, dir) {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    from.on('data', chunk => {
        to.write(chunk);
        pending += decoder.write(chunk);
        let end;
        while ((end = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, end);
            pending = pending.slice(end + 1);
            if (line.trim()) record(dir, line);
        }
    });
}

relay(process.stdin, server.stdin, 'c2s');
relay(server.stdout, process.stdout, 's2c');
// The server gets two seconds to end after its input does (some keep timers running).
process.stdin.on('end', () => {
    server.stdin.end();
    setTimeout(() => server.kill('SIGKILL'), 2000).unref();
});
process.on('SIGTERM', () => server.kill('SIGKILL'));
server.on('exit', code => {
    fs.closeSync(out);
    process.exit(code ?? 0);
});
