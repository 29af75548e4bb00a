//! The seven tasks of the new-user trial (issue 17), each as a user writes it now, each with
//! assertions. `cargo run -p mcp-wire-frames --example trial_tasks` runs them; `cargo test -p
//! mcp-frames --example trial_tasks` (and so `cargo test -p mcp-wire-frames`) runs them as a test.
//!
//! The tasks: parse a request; build a tool result and emit it at three revisions with the
//! report; type a result by the method it answers; answer a bad frame with its id and the path
//! of the fault; use a generated module; the README snippets; the CLI.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use mcp_wire::ProtocolVersion::{self, V2024_11_05, V2025_06_18, V2025_11_25, V2026_07_28};
use mcp_wire::convert::ToSuperset;
use mcp_wire::jsonrpc::{JsonRpcResponse, RequestId};
use mcp_wire::model::{CallToolResult, ClientNotification, ClientRequest, ServerResult};
use mcp_wire::wire::{
    MethodResult, TypedFrame, parse_frame, parse_result_for, serialize_for_report,
    serialize_for_vec,
};
use mcp_wire_frames::session::Session;
use mcp_wire_frames::stream::{self, Output};
use mcp_wire_frames::translate::{Mode, OnRefuse, Translate};
use serde_json::{Value, json};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One task of the trial: what it is called, and the code a user writes for it.
type Task = (&'static str, fn() -> Result);

/// 1. A server reads a request at the session's revision: the envelope and the typed body in
///    one call, the method checked against that revision.
fn parse_a_request() -> Result {
    let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    let TypedFrame::Request(call) =
        parse_frame::<ClientRequest, ClientNotification>(text, V2025_06_18)?
    else {
        return Err("not a request".into());
    };
    let ClientRequest::CallTool(request) = &call.request else {
        return Err("not tools/call".into());
    };
    assert_eq!(request.params.name, "add");
    assert_eq!(call.id, RequestId::Integer(7));
    // A method the revision lacks is -32601: `initialize` at 2026-07-28.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let absent = parse_frame::<ClientRequest, ClientNotification>(init, V2026_07_28).unwrap_err();
    assert_eq!(absent.code(), -32601);
    Ok(())
}

/// 2. A tool result with structured content, written at three revisions; the report says
///    what the boundary did at each.
fn emit_a_tool_result_at_three_revisions() -> Result {
    let result = CallToolResult::structured(json!({"sum": 5}));
    let answer = JsonRpcResponse::new(RequestId::Integer(7), result);

    // 2025-06-18 declares structuredContent: the plain serialization.
    let (_, report) = serialize_for_report(&answer, V2025_06_18)?;
    assert!(report.is_plain() && report.writes_only_declared());

    // 2024-11-05 does not declare it: written anyway (peers ignore unknown keys) and reported.
    let (v, report) = serialize_for_report(&answer, V2024_11_05)?;
    assert_eq!(v["result"]["structuredContent"], json!({"sum": 5}));
    assert_eq!(report.passed_pointers(), ["/result/structuredContent"]);

    // 2026-07-28 requires the result type and cache hints: injected and reported.
    let (v, report) = serialize_for_report(&answer, V2026_07_28)?;
    assert_eq!(v["result"]["resultType"], "complete");
    assert!(
        report
            .injected_pointers()
            .contains(&"/result/resultType".to_owned())
    );

    // The line a server writes: one call, the envelope around the body.
    let mut line = Vec::new();
    serialize_for_vec(&answer, V2025_06_18, &mut line)?;
    assert!(line.starts_with(br#"{"jsonrpc":"2.0","id":7,"result":{"#));
    Ok(())
}

/// 3. A client types the answer by the method of the request it sent.
fn type_a_result_by_method() -> Result {
    let json = json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]});
    let MethodResult::Server(ServerResult::ListTools(list)) =
        parse_result_for("tools/list", &json, V2025_11_25)?
    else {
        return Err("not a tools/list result".into());
    };
    assert_eq!(list.tools[0].name, "add");
    Ok(())
}

/// 4. A bad frame is answered at its own id, with the JSON Pointer of the fault.
fn answer_a_bad_frame() -> Result {
    let bad = r#"{"jsonrpc":"2.0","id":"req-9","method":"tools/call","params":{"name":5}}"#;
    let e = parse_frame::<ClientRequest, ClientNotification>(bad, V2025_06_18).unwrap_err();
    let reply = serde_json::to_value(e.reply().ok_or("requests are answered")?)?;
    assert_eq!(reply["id"], "req-9");
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["pointer"], "/params/name");
    Ok(())
}

/// 5. One revision's exact types, and the way to the superset and back.
fn use_a_generated_module() -> Result {
    use mcp_wire::v2025_06_18 as d;
    let json = r#"{"content":[{"type":"text","text":"5"}],"structuredContent":{"sum":5}}"#;
    let generated: d::CallToolResult = serde_json::from_str(json)?;
    assert!(matches!(
        generated.content[0],
        d::ContentBlock::TextContent(_)
    ));
    let superset: CallToolResult = generated.to_superset(V2025_06_18)?;
    assert_eq!(superset.content[0].as_text(), Some("5"));
    let back: d::CallToolResult = mcp_wire::convert::from_superset(&superset, V2025_06_18)?;
    assert_eq!(back, generated);
    // A value no member of a generated (untagged) union accepts is located.
    let wrong = json!({"content": [{"type": "text"}]});
    let e = mcp_wire::convert::from_generated_json::<d::CallToolResult>(wrong).unwrap_err();
    assert_eq!(e.path.pointer(), "/content/0");
    Ok(())
}

/// 6. The README's Rust blocks are doctests of `mcp-wire-tests` (`cargo test -p mcp-wire-tests
///    --doc`): each is compiled, and each is run but the servers, which serve until stopped
///    (`no_run`); none is `ignore`d.
fn the_readme_snippets_all_run() -> Result {
    let readme = std::fs::read_to_string(mcp_wire_schemas::workspace_root().join("README.md"))?;
    let fences: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("```rust"))
        .collect();
    assert!(fences.len() >= 6, "{fences:?}");
    assert!(
        fences
            .iter()
            .all(|f| matches!(f.trim(), "```rust" | "```rust,no_run")),
        "a README block is excluded from the doctests: {fences:?}"
    );
    Ok(())
}

/// A writer whose bytes can be read back after the stream ends.
#[derive(Clone, Default)]
struct Captured(Rc<RefCell<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// 7. The CLI: `mcp-frames translate --to 2024-11-05 --on-refuse error session.jsonl`, run
///    here through the library the binary runs (same handler, same stream driver).
fn the_cli() -> Result {
    let session = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tasks/list","params":{}}"#,
        "\n",
    );
    let (stdout, stderr) = (Captured::default(), Captured::default());
    let mut out = Output::new(Box::new(stdout.clone()), Box::new(stderr.clone()));
    let to: ProtocolVersion = "2024-11-05".parse()?;
    let mut translate = Translate::new(to, Mode::Translate(OnRefuse::Error));
    stream::run(
        session.as_bytes(),
        1 << 20,
        &mut Session::default(),
        &mut translate,
        &mut out,
    )?;
    out.flush()?;
    drop(out);
    let written = String::from_utf8(stdout.0.borrow().clone())?;
    let lines: Vec<Value> = written
        .lines()
        .map(serde_json::from_str)
        .collect::<std::result::Result<_, _>>()?;
    // initialize is restated at the target revision.
    assert_eq!(lines[0]["params"]["protocolVersion"], "2024-11-05");
    // tasks/list has no 2024-11-05 form: its sender is answered at its id.
    assert_eq!(lines[1]["id"], 2);
    assert_eq!(lines[1]["error"]["code"], -32601);
    let report = String::from_utf8(stderr.0.borrow().clone())?;
    assert!(report.contains("line 2: refused"), "{report}");
    Ok(())
}

fn main() -> Result {
    let tasks: [Task; 7] = [
        ("parse a request", parse_a_request),
        (
            "emit a tool result at three revisions",
            emit_a_tool_result_at_three_revisions,
        ),
        ("type a result by method", type_a_result_by_method),
        ("answer a bad frame", answer_a_bad_frame),
        ("use a generated module", use_a_generated_module),
        ("the README snippets", the_readme_snippets_all_run),
        ("the CLI", the_cli),
    ];
    for (name, task) in tasks {
        task().map_err(|e| format!("{name}: {e}"))?;
        println!("ok  {name}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seven_trial_tasks() {
        super::main().unwrap();
    }
}
