//! The direct path of `translate` (`mcp_wire_frames::direct`) against the general path: the same
//! stdout and stderr, byte for byte, over the shared corpus, the shipped session, the bad-input
//! stream and a set of odd but valid lines; and the direct path really carries the traffic.

mod common;

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use common::{corpus_files, example_session};
use mcp_wire::ProtocolVersion;
use mcp_wire::session::Envelope;
use mcp_wire_frames::session::Session;
use mcp_wire_frames::stream::{self, Fault, LineHandler, Output, Placed};
use mcp_wire_frames::translate::{Mode, OnRefuse, Translate};

/// A `Write` into a shared buffer.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `Translate` with the direct path turned off (the trait's default `direct` declines).
struct General(Translate);

impl LineHandler for General {
    fn frame(&mut self, placed: Placed, session: &mut Session, out: &mut Output) -> io::Result<()> {
        self.0.frame(placed, session, out)
    }
    fn fault(&mut self, fault: Fault, out: &mut Output) -> io::Result<()> {
        self.0.fault(fault, out)
    }
    fn summary(&self) -> String {
        self.0.summary()
    }
    fn all_fine(&self) -> bool {
        self.0.all_fine()
    }
}

struct Ran {
    stdout: String,
    stderr: String,
    direct: usize,
}

fn run(input: &[u8], to: ProtocolVersion, on_refuse: OnRefuse, direct: bool) -> Ran {
    run_with(
        input,
        Translate::new(to, Mode::Translate(on_refuse)),
        direct,
    )
}

fn run_with(input: &[u8], translate: Translate, direct: bool) -> Ran {
    let (stdout, stderr) = (Shared::default(), Shared::default());
    let mut out = Output::new(Box::new(stdout.clone()), Box::new(stderr.clone()));
    let mut session = Session::new();
    let count = if direct {
        let mut h = translate;
        stream::run(input, 1 << 24, &mut session, &mut h, &mut out).unwrap();
        h.direct_count()
    } else {
        let mut h = General(translate);
        stream::run(input, 1 << 24, &mut session, &mut h, &mut out).unwrap();
        h.0.direct_count()
    };
    let text = |s: Shared| String::from_utf8(s.0.borrow().clone()).unwrap();
    Ran {
        stdout: text(stdout),
        stderr: text(stderr),
        direct: count,
    }
}

/// Valid lines that exercise the direct path's corners: member order, whitespace, escapes,
/// unknown members, numbers, big ids, identity injection, discover fallback.
const ODD: &str = r#"{"id":7,"jsonrpc":"2.0","params":{"cursor":"c\u00e9\/x"},"method":"tools\/list"}
{ "jsonrpc" : "2.0" , "id" : 7 , "result" : { "tools" : [ ] , "nextCursor":"n" } }
{"t":1,"frame":{"jsonrpc":"2.0","method":"notifications/initialized"},"dir":"c2s","x":[1, 2.50,1e3,{"a" :null}]}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":"s1","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":"s1","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{"name":"x","arguments":{"n":1.0,"m":12345678901234567890,"e":-0,"z":"\ud83d\ude00 \u0000 \t"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":-3,"result":{"content":[{"type":"text","text":"ok"}],"isError":false,"extra":{"k":1}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"arguments":{}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":40,"result":{"content":[]}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":41,"method":"tools/list"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":41,"result":{"tools":[{"name":5,"inputSchema":{"type":"object"}}]}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"resource_link","uri":"file:///a","name":"a"}]}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/list"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":18446744073709551615,"result":{"tools":[]}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"nope","data":{"x":[1,2]}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a","arguments":{"q":1,"q":2}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":11,"result":{"tools":[],"resultType":"complete"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":12,"method":"tools/list"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":12,"result":{"tools":[],"ttlMs":5}}}
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":0.5}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1,"io.modelcontextprotocol/clientInfo":{"name":"o","version":"2"}}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"x"},"extra":1}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"_meta":{},"name":"x"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"x","_meta":5}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":17,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":17,"error":{"code":-32601,"message":"Method not found"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":18,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c2","version":"9"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":18,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"x","arguments":{}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":19,"result":{"content":[],"task":{"taskId":"t"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":20,"method":"roots/list"}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":20,"result":{"roots":[{"uri":"file:///x"}]}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":21,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":21,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":22,"method":"tools/list"},"dir":"s2c"}
{"method":"tools/list","jsonrpc":"2.0","id":23}
{"method":"tools/list","params":{},"id":24,"jsonrpc":"2.0"}
{"jsonrpc":"2.0","method":"tools/list","id":25}
{"jsonrpc":"2.0","params":{"cursor":"x"},"id":26,"method":"tools/list"}
{"id":26,"result":{"tools":[]},"jsonrpc":"2.0"}
{"dir":"c2s","frame":{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}}
{"frame":{"jsonrpc":"2.0","id":27,"method":"tools/list","params":{"cursor":"y"}},"dir":"c2s"}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":28,"method":"tools/list"}}
{"dir":"s2c","frame":{ "error" : {"message":"caf\u00e9 \/ x","code":-32000,"data":[1.0,1e3,-0,12345678901234567890]}, "id":28,"jsonrpc":"2.0","x":{"y":null}},"t":2}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}}
{"jsonrpc":"2.0","id":"e1","error":{"code":-32603,"message":"bare"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","error":{"code":-32603,"message":"no id"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":29,"error":"not an object"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":30,"error":{"code":1.5,"message":"odd code"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":31,"error":{"code":-1}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":32,"result":{},"error":{"code":-1,"message":"both"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1.5,"error":{"code":-1,"message":"float id"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":33,"error":{"code":-1,"message":"dup","message":"dup"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":34,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":34,"error":{"code":-32602,"message":"answer to a handshake"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":35,"method":"no/such"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":35,"error":{"code":-32601,"message":"Method not found"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":36,"result":{}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":37,"method":"prompts/get","paraeCms":{"name":"review_code"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":38,"method":"tools/call"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":3,"data":"x"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":{"info":null},"data":"x"}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":"i\u0064\/","method":"tools/list"},"ts":"2026-12-07T10:00:00Z","n":-0,"s":"caf\u00e9","result":{"a":1}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":"i\u0064\/","result":{"tools":[]}},"result":{"a":[1,{"b":2.50}]},"r":{"a":1,"a":2}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":"id/","result":{"tools":[]}},"result":{"a":1,"a":2}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":-0,"method":"tools/list"}}
{"jsonrpc":"2.0","id":"a\"b","method":"tools/list","x":"\u001f","y":-12,"z":123456789012345678,"w":1234567890123456789}
{"jsonrpc":"2.0","id":"a\"b","result":{"tools":[]},"x":"\u001F\/","y":1.0E2}
"#;

/// An `initialize` without `params` leaves the session a client identity with no entries; the
/// requests after it have nothing lent (found by the `translate` fuzz target).
const EMPTY_IDENTITY: &str = r#"{"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "paarms": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}}
{"dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}, "protocolVersion": "2025-03-26", "serverInfo": {"name": "s", "version": "1"}}}}
{"dir": "c2s", "frame": {"jsonrpc": "2.0", "method": "notifications/initialized"}}
{"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 27, "method": "prompts/get", "params": {"name": "missing_prompt"}}}
{"dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 27, "error": {"code": 0, "message": "Unknown prompt: missing_prompt"}}}
{"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 28, "method": "tools/list"}}
"#;

/// Error responses, which the direct path writes as they stand: with and without `data`, ids of
/// every kind (string, integer, `null`, absent), escaped strings and numbers `serde_json` writes
/// otherwise, other members in the frame and the record; answers to a refused request and to
/// unknown ids; and error envelopes the judge refuses, one after another for a pending request
/// (the general path reports them), in capture records and bare frames.
const ERRORS: &str = r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}}
{"jsonrpc":"2.0","id":"s","method":"tools/list"}
{"jsonrpc":"2.0","id":"s","error":{"code":-32000,"message":"caf\u00e9 \/ \"q\"","data":{"n":1E2,"z":-0,"f":1.0,"b":12345678901234567890,"s":"\u001f"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}
{ "error" : {"data":null,"message":"m","code":-9223372036854775808,"x":[1e-2]} , "id":2,"jsonrpc":"2.0","extra":{"a":-0} }
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}},"t":1.5E1,"error":{"a":1}}
{"t":"x","frame":{"error":{"code":-32600,"message":"no id","data":"d"},"jsonrpc":"2.0"},"dir":"c2s"}
{"jsonrpc":"2.0","error":{"code":-32600,"message":"no id"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"null id"},"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"task":{}}}
{"jsonrpc":"2.0","id":404,"error":{"code":1,"message":"answers nothing"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":"nope","error":{"code":1,"message":"answers nothing"}}}
{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"answered already"}}
{"jsonrpc":"2.0","id":3,"method":"no/such"}
{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"n":1E2}}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"t"}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown task"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/list"}
{"jsonrpc":"2.0","id":5,"error":{"code":1.0,"message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":1e2,"message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":-0,"message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":9223372036854775808,"message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":"1","message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":null}}
{"jsonrpc":"2.0","id":5,"error":{"message":"m"}}
{"jsonrpc":"2.0","id":5,"error":{"code":1}}
{"jsonrpc":"2.0","id":5,"error":[1,"m"]}
{"jsonrpc":"2.0","id":5,"error":null}
{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m","code":2}}
{"jsonrpc":"2.0","id":5,"method":"x","error":{"code":1,"message":"m"}}
{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"m"}}
{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"m"}}
{"jsonrpc":"2.0","id":1.5,"error":{"code":1,"message":"m"}}
{"jsonrpc":"2.0","id":18446744073709551615,"error":{"code":1,"message":"m"}}
{"jsonrpc":"1.0","id":5,"error":{"code":1,"message":"m"}}
{"id":5,"error":{"code":1,"message":"m"}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m","data":{"a":1,"a":2}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}},"error":{"a":1,"a":2}}
{"dir":"up","frame":{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}}
{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"finally"},"params":[1]}
{"jsonrpc":"2.0","id":6,"method":"tools/list"}
{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"m"},"params":"p","x":"\ud83d\ude00"}
"#;

/// Responses whose `result` the direct path checks as it reads it, before the session may learn
/// from the line: results the strict reader refuses (a repeated key at any depth, escaped or
/// not, in typed, open and ignored members; nesting past the direct path's bound and the
/// reader's; numbers out of range; lone surrogates), results followed by other members (in the
/// frame or the record), results the typed read decides (translated, invalid) or leaves to the
/// `Value` path, at 2025-11-25 and 2026-07-28, in capture records and bare frames.
fn checked_results() -> Vec<u8> {
    let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let mut results: Vec<String> = [
        r#"{"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":1,"b":{"c":[1,2]}}}"#,
        r#"{"content":[],"structuredContent":{"a":1,"a":2}}"#,
        r#"{"content":[],"structuredContent":{"a":1,"\u0061":2}}"#,
        r#"{"content":[{"type":"text","text":"x","text":"y"}]}"#,
        r#"{"content":[{"text":"x","type":"text","text":"y"}]}"#,
        r#"{"content":[{"text":"x","text":"y","type":"text"}]}"#,
        r#"{"content":[],"x":{"k":[{"q":1,"q":1}]}}"#,
        r#"{"content":[],"_meta":{"m":1,"m":2}}"#,
        r#"{"content":[],"content":[]}"#,
        r#"{"content":[],"isError":false,"isError":true}"#,
        r#"{"content":[],"x":1e400}"#,
        r#"{"content":[],"x":[-0,1.5e3,12345678901234567890]}"#,
        r#"{"content":[{"type":"text","text":"\ud800"}]}"#,
        r#"{"content":[{"type":"text","text":"\ud83d\ude00 \u00e9"}]}"#,
        r#"{"isError":false}"#,
        r#"{"content":{}}"#,
        r#"{"content":[],"resultType":"complete"}"#,
        r#"{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}}},"requestState":"s"}"#,
        r#"{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"m","message":"m","requestedSchema":{"type":"object","properties":{}}}}}}"#,
    ]
    .map(String::from)
    .to_vec();
    for n in [93, 94, 95, 96, 97, 98, 122, 123, 124, 125, 126, 127, 130] {
        results.push(format!(
            r#"{{"content":[],"structuredContent":{{"d":{}}}}}"#,
            nest(n)
        ));
    }
    let mut lines = Vec::new();
    for revision in ["2025-11-25", "2026-07-28"] {
        let meta = if revision == "2026-07-28" {
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"#
        } else {
            lines.push(format!(
                r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
            ));
            lines.push(format!(
                r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{revision}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}}}"#
            ));
            ""
        };
        let request = |id: usize, capture: bool| {
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta}"name":"t","arguments":{{}}}}}}"#
            );
            match capture {
                true => format!(r#"{{"dir":"c2s","frame":{frame}}}"#),
                false => frame,
            }
        };
        let mut id = 100;
        for result in &results {
            for capture in [true, false] {
                id += 1;
                lines.push(request(id, capture));
                let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
                lines.push(match capture {
                    true => format!(r#"{{"dir":"s2c","frame":{frame}}}"#),
                    false => frame,
                });
            }
            // The result first, as some SDKs write it: not the last member.
            id += 1;
            lines.push(request(id, true));
            lines.push(format!(
                r#"{{"dir":"s2c","frame":{{"result":{result},"jsonrpc":"2.0","id":{id}}}}}"#
            ));
        }
        // Members after the result, in the frame or the record; and whitespace around the
        // closing braces.
        for (answer, frame_end) in [
            (r#"{"content":[]},"x":{"y":{}}"#, "}"),
            (r#"{"content":[]},"id":{}"#, "}"),
            (r#"{"content":[]},"x":{}"#, "}"),
            (r#"{"content":[]} "#, " } \r"),
            (r#"{"content":[]}"#, "}\t"),
        ] {
            id += 1;
            lines.push(request(id, true));
            lines.push(format!(
                r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{answer}{frame_end},"t":{{"a":{{}}}}}}"#
            ));
            id += 1;
            lines.push(request(id, true));
            lines.push(format!(
                r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{answer}{frame_end} }}"#
            ));
            id += 1;
            lines.push(request(id, false));
            lines.push(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{answer}{frame_end}"#
            ));
        }
        // A refused answer leaves its request pending (the general path never places a line
        // that is not JSON): the next answer to it is the one translated.
        id += 1;
        lines.push(request(id, true));
        lines.push(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"k":1,"k":2}}}}}}"#
        ));
        lines.push(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}}}"#
        ));
        // Answers to nothing, and to an `initialize` (decided by the session as before).
        lines.push(
            r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":999,"result":{"content":[]}}}"#.into(),
        );
        lines.push(r#"{"jsonrpc":"2.0","id":998,"result":{"content":[],"a":1,"a":1}}"#.into());
    }
    let mut out = lines.join("\n").into_bytes();
    out.push(b'\n');
    out
}

/// Requests (and an error response) whose `params` the strict reader refuses (repeated keys,
/// escaped or not, at any depth; a number out of range; a lone surrogate), before the session
/// may learn from them: an `initialize` offer and identity, a `_meta` revision claim, a task
/// augmentation and a request id are never learnt from such a line, so the valid lines after it
/// (answers to those ids, a `tasks/result`, requests at the previous revision) are placed as the
/// general path places them.
const CHECKED_PARAMS: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bad","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","name":"t"}}
{"jsonrpc":"2.0","id":2,"result":{"content":[]}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","task":{},"arguments":{"a":1,"\u0061":2}}}
{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t-3","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}
{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"t-3"}}
{"jsonrpc":"2.0","id":4,"result":{"content":[]}}
{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","name":"c"}}}}
{"jsonrpc":"2.0","id":6,"method":"tools/list"}
{"jsonrpc":"2.0","id":6,"result":{"tools":[]}}
{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}
{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"m"},"params":{"n":1E400}}
{"jsonrpc":"2.0","id":7,"result":{"tools":[],"nextCursor":"d"}}
{"dir":"c2s","frame":{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t","arguments":{"s":"\ud800"}}}}
{"dir":"s2c","frame":{"jsonrpc":"2.0","id":8,"result":{"content":[]}}}
{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"progressToken":1,"progressToken":2}}}
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"progress":2}}
{"jsonrpc":"2.0","id":9,"result":{}}
"#;

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = corpus_files().into_iter().map(|(p, _)| p).collect();
    files.push(example_session());
    let here = mcp_wire_schemas::workspace_root().join("crates/mcp-wire-frames/tests");
    files.push(here.join("tasks-2025-11-25.jsonl"));
    files.push(here.join("ts-offers-2026.jsonl"));
    let mut out: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.push((
        "bad-stream.jsonl".into(),
        include_bytes!("bad-stream.jsonl").to_vec(),
    ));
    out.push(("odd lines".into(), ODD.as_bytes().to_vec()));
    out.push((
        "an identity with no entries".into(),
        EMPTY_IDENTITY.as_bytes().to_vec(),
    ));
    out.push(("error responses".into(), ERRORS.as_bytes().to_vec()));
    out.push(("checked results".into(), checked_results()));
    out.push(("checked params".into(), CHECKED_PARAMS.as_bytes().to_vec()));
    out.push(("deep nesting".into(), deep_nesting()));
    out
}

/// A value nested 98 levels deep, near the direct path's bound, on which the former byte scanner
/// and the strict reader disagreed (found by the `scan` fuzz target), as a request's `params`
/// and a response's `result`, in bare frames and capture records.
fn deep_nesting() -> Vec<u8> {
    let value = include_str!("deep-nesting.json").trim();
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let lines = [
        initialize.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{value}}}"#),
        format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{value}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":3,"result":{value}}}"#),
    ];
    let mut out = lines.join("\n").into_bytes();
    out.push(b'\n');
    out
}

#[test]
fn the_direct_path_writes_what_the_general_path_writes() {
    let mut direct_frames = 0;
    for (name, input) in inputs() {
        for to in ProtocolVersion::ALL {
            for on_refuse in [OnRefuse::Skip, OnRefuse::Error] {
                let ctx = format!("{name} --to {to} {on_refuse:?}");
                let fast = run(&input, to, on_refuse, true);
                let slow = run(&input, to, on_refuse, false);
                assert_eq!(slow.direct, 0, "{ctx}");
                assert_eq!(fast.stdout, slow.stdout, "{ctx}: stdout");
                assert_eq!(fast.stderr, slow.stderr, "{ctx}: stderr");
                direct_frames += fast.direct;
            }
        }
    }
    assert!(direct_frames > 1000, "only {direct_frames} direct frames");
}

#[test]
fn strings_of_every_body_may_pass_through_as_the_general_path_writes_them() {
    // Every body looked through, every string of 64 bytes and more (far longer than any tag,
    // name or revision) passed through: the real traffic's descriptions, texts, images and
    // schemas' strings take the placeholder route, and the output stays the general path's.
    for (name, input) in inputs() {
        for to in ProtocolVersion::ALL {
            let ctx = format!("{name} --to {to}");
            let mode = Mode::Translate(OnRefuse::Skip);
            let fast = run_with(
                &input,
                Translate::new(to, mode).with_pass_through(0, 64),
                true,
            );
            let slow = run(&input, to, OnRefuse::Skip, false);
            assert_eq!(fast.stdout, slow.stdout, "{ctx}: stdout");
            assert_eq!(fast.stderr, slow.stderr, "{ctx}: stderr");
        }
    }
}

#[test]
fn the_shipped_session_takes_the_direct_path() {
    // Every line of the shipped session takes the direct path: translated frames, error
    // responses (written as they stand, or refused as answers to what was not translated), the
    // frames the session or the method tables refuse or find invalid, and those the boundary
    // itself refuses (line 18's `resource_link` block has no form before 2025-06-18), reported
    // from the boundary's own error.
    let input = std::fs::read(example_session()).unwrap();
    let lines = input.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let errors = lines
        .clone()
        .filter(|l| l.windows(8).any(|w| w == b"\"error\":"));
    assert_eq!(errors.count(), 4);
    let lines = lines.count();
    for to in ProtocolVersion::ALL {
        let r = run(&input, to, OnRefuse::Skip, true);
        assert!(r.stdout.lines().count() > 20, "--to {to}");
        assert_eq!(r.direct, lines, "--to {to}");
        let boundary_refused = match to {
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => 1,
            _ => 0,
        };
        assert_eq!(
            r.stderr.matches("refused: cannot emit at").count(),
            boundary_refused,
            "--to {to}: {}",
            r.stderr
        );
    }
}

/// A session at `revision` whose frames carry long strings: base64 data and blobs, text with
/// the escapes the writer writes and with others, long keys, long strings in open members, and
/// bodies the boundary refuses or finds invalid; an error response right after a large result
/// (written with none of that result's long strings).
fn large_frames(revision: &str) -> Vec<u8> {
    let b64: String = (0..96 * 1024)
        .map(|i| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64] as char
        })
        .collect();
    let text = "line of text with \\\"quotes\\\" and a tab\\t\\n".repeat(2048);
    let foreign = "caf\\u00e9 \\/ x ".repeat(4096);
    let key = "k".repeat(2048);
    let (hello, meta) = if revision == "2026-07-28" {
        (
            String::new(),
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"#.to_owned(),
        )
    } else {
        (
            format!(
                r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}","capabilities":{{"roots":{{}}}},"clientInfo":{{"name":"c","version":"1"}}}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{revision}","capabilities":{{"tools":{{}},"resources":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}}}
{{"dir":"c2s","frame":{{"jsonrpc":"2.0","method":"notifications/initialized"}}}}
"#
            ),
            String::new(),
        )
    };
    let result_type = if revision == "2026-07-28" {
        r#","resultType":"complete""#
    } else {
        ""
    };
    format!(
        r#"{hello}{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{meta}"name":"upload","arguments":{{"image":"{b64}","note":"{text}","{key}":"{b64}"}}}}}}}}
{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{{{meta}"cursor":"c"}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{b64}","mimeType":"image/png"}},{{"type":"audio","data":"{b64}","mimeType":"audio/wav"}},{{"type":"text","text":"{foreign}"}}],"structuredContent":{{"echo":"{text}","n":1}}{result_type}}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":6,"error":{{"code":-32000,"message":"after a large result","data":{{"n":1E2}}}}}}}}
{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{{meta}"uri":"file:///{b64}"}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":2,"result":{{"contents":[{{"uri":"file:///a","blob":"{b64}"}},{{"uri":"file:///b","mimeType":"text/plain","text":"{text}"}}]{result_type}}}}}}}
{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{meta}"name":"x","arguments":{{"a":"{b64}"}}}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"image","data":"{b64}"}}]{result_type}}}}}}}
{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{meta}"name":"{b64}","arguments":{{}}}}}}}}
{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":4,"result":{{"content":[{{"type":"{b64}","text":"x"}}]{result_type}}}}}}}
{{"jsonrpc":"2.0","id":5,"error":{{"code":-32000,"message":"{b64}"}}}}
{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{text}"}}}}
"#
    )
    .into_bytes()
}

#[test]
fn long_strings_of_large_frames_pass_through_as_the_general_path_writes_them() {
    let mut direct_frames = 0;
    for revision in ProtocolVersion::ALL {
        let input = large_frames(revision.as_str());
        let lines = input
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        for to in ProtocolVersion::ALL {
            for on_refuse in [OnRefuse::Skip, OnRefuse::Error] {
                let ctx = format!("{revision} --to {to} {on_refuse:?}");
                let fast = run(&input, to, on_refuse, true);
                let slow = run(&input, to, on_refuse, false);
                assert_eq!(fast.stdout, slow.stdout, "{ctx}: stdout");
                assert_eq!(fast.stderr, slow.stderr, "{ctx}: stderr");
                assert!(fast.stdout.lines().count() >= 4, "{ctx}: {}", fast.stderr);
                assert!(
                    fast.direct * 2 >= lines,
                    "{ctx}: {} of {lines}",
                    fast.direct
                );
                direct_frames += fast.direct;
            }
        }
    }
    assert!(direct_frames > 500, "only {direct_frames} direct frames");
}

#[test]
fn error_responses_are_read_as_the_envelope_judge_reads_them() {
    // The direct read takes an error response exactly when the envelope judge accepts it, with
    // the same id and code: codes that are not an `i64` (`1.0`, `1e2`, `-0`, beyond the range,
    // a string), messages that are not strings, missing members, an `error` that is not an
    // object (a derived struct would read an array), ids of every kind, other members beside it.
    let errors = [
        r#"{"code":1,"message":"m"}"#,
        r#"{"message":"caf\u00e9 \"q\"","code":-9223372036854775808,"data":null}"#,
        r#"{"code":9223372036854775807,"message":"","data":{"x":[1.0,-0,1E2]},"x":1}"#,
        r#"{"code":-0,"message":"m"}"#,
        r#"{"code":1.0,"message":"m"}"#,
        r#"{"code":1e2,"message":"m"}"#,
        r#"{"code":9223372036854775808,"message":"m"}"#,
        r#"{"code":-9223372036854775809,"message":"m"}"#,
        r#"{"code":"1","message":"m"}"#,
        r#"{"code":null,"message":"m"}"#,
        r#"{"code":1,"message":null}"#,
        r#"{"code":1,"message":["m"]}"#,
        r#"{"code":1}"#,
        r#"{"message":"m"}"#,
        r#"{}"#,
        r#"[1,"m"]"#,
        r#""m""#,
        "null",
        "1",
    ];
    let ids = [
        "",
        r#""id":null,"#,
        r#""id":"a\"b","#,
        r#""id":-7,"#,
        r#""id":-0,"#,
        r#""id":1.5,"#,
        r#""id":true,"#,
        r#""id":9223372036854775808,"#,
    ];
    let others = [
        "",
        r#","x":{"y":1}"#,
        r#","params":{"_meta":{},"task":{}}"#,
        r#","method":"x""#,
        r#","result":{}"#,
    ];
    let mut read = 0;
    for (error, id, other) in errors
        .iter()
        .flat_map(|e| ids.iter().flat_map(move |i| others.map(move |o| (e, i, o))))
    {
        let text = format!(r#"{{"jsonrpc":"2.0",{id}"error":{error}{other}}}"#);
        let frame: serde_json::Value = serde_json::from_str(&text).unwrap();
        let judged = Envelope::of(&frame).ok();
        let mut slot = None;
        let direct = mcp_wire_frames::direct::read(text.as_bytes(), &mut slot);
        assert_eq!(direct.map(|l| &l.envelope), judged.as_ref(), "{text}");
        read += usize::from(direct.is_some());
    }
    // Three error objects, four ids (absent, `null`, a string, an integer), three neighbours.
    assert_eq!(read, 3 * 4 * 3, "error responses read");
}
