//! The emitter on the decisions it makes (injections, checks, refusals, answers, flattened
//! structs): what it writes, and that text and value agree, or refuse alike. (The corpus-wide
//! checks are in `walk_tests`.)

use serde_json::{Value, json};

use super::super::{
    MethodResult, WireBody, parse_as, parse_result_for, serialize_for, serialize_for_vec,
};
use crate::ProtocolVersion::{self, *};
use crate::model::{ClientNotification, ClientRequest};

/// What became of one body: the emitter's text, or its refusal's message.
struct Outcome {
    emitted: Result<String, String>,
}

/// Emits `body` at `v` to text and to a value, and requires the two to agree.
fn run<B: WireBody>(body: &B, v: ProtocolVersion) -> Outcome {
    let mut out = Vec::new();
    let emitted = serialize_for_vec(body, v, &mut out)
        .map(|()| String::from_utf8(out).expect("JSON text is UTF-8"))
        .map_err(|e| e.message);
    let value = serialize_for(body, v)
        .map(|value| serde_json::to_string(&value).expect("a Value serializes"))
        .map_err(|e| e.message);
    assert_eq!(emitted, value, "the emitter's text and value differ");
    Outcome { emitted }
}

/// A client request parsed at `from` (2025-11-25 for a 2026-07-28 request whose `_meta` the
/// 2026-07-28 parse would refuse) and emitted at `at`.
fn request(json: Value, from: ProtocolVersion, at: ProtocolVersion) -> Outcome {
    let body: ClientRequest = parse_as(&json, from).expect("a client request");
    run(&body, at)
}

fn result(method: &str, json: Value, from: ProtocolVersion, at: ProtocolVersion) -> Outcome {
    match parse_result_for(method, &json, from).expect("a result") {
        MethodResult::Server(r) => run(&r, at),
        MethodResult::Client(r) => run(&r, at),
    }
}

fn call_tool_2026(meta: Value) -> Value {
    json!({
        "method": "tools/call",
        "params": {"_meta": meta, "name": "get_weather", "arguments": {"location": "NYC"}}
    })
}

#[test]
fn client_requests_at_2026_are_planned_with_the_version_injected() {
    let with_all = request(
        call_tool_2026(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "debug"
        })),
        V2025_11_25,
        V2026_07_28,
    );
    assert!(with_all.emitted.is_ok());
    let injected = request(
        call_tool_2026(json!({"io.modelcontextprotocol/clientCapabilities": {}})),
        V2025_11_25,
        V2026_07_28,
    );
    assert_eq!(
        injected.emitted.as_deref().ok(),
        Some(
            r#"{"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"NYC"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        )
    );
}

#[test]
fn client_capabilities_in_meta_are_shaped_as_their_type() {
    // Roots' `listChanged` is stripped inside 2026-07-28 `_meta` capabilities.
    let out = request(
        call_tool_2026(json!({
            "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": true}, "x": 1}
        })),
        V2025_11_25,
        V2026_07_28,
    );
    let text = out.emitted.expect("emitted");
    assert!(!text.contains("listChanged"), "{text}");
    assert!(text.contains(r#""x":1"#), "{text}");
}

#[test]
fn client_requests_breaking_the_meta_rules_are_refused() {
    for meta in [
        json!({}),
        json!({"io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}),
        json!({"io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/protocolVersion": 7}),
        json!({"io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": "c"}),
        json!({"io.modelcontextprotocol/clientCapabilities": []}),
    ] {
        let out = request(call_tool_2026(meta.clone()), V2025_11_25, V2026_07_28);
        assert!(out.emitted.is_err(), "{meta}");
    }
    let no_params = request(json!({"method": "tools/list"}), V2025_11_25, V2026_07_28);
    assert!(no_params.emitted.is_err());
}

/// What an emission must give: this text, any text, text holding each piece, or a refusal.
#[derive(Clone, Copy)]
enum Expect {
    Text(&'static str),
    Written,
    Holding(&'static [&'static str]),
    Refused,
}
use Expect::*;

/// Each row: a result of `method`, read at the first revision from its text and emitted at the
/// second, gives what the row expects.
fn results(rows: &[(&str, &str, ProtocolVersion, ProtocolVersion, Expect)]) {
    for &(method, text, from, at, expect) in rows {
        let json: Value = serde_json::from_str(text).expect("a row's JSON");
        let emitted = result(method, json, from, at).emitted;
        let row = format!("{method} {text} from {from} at {at}: {emitted:?}");
        match expect {
            Text(want) => assert_eq!(emitted.as_deref(), Ok(want), "{row}"),
            Written => assert!(emitted.is_ok(), "{row}"),
            Holding(pieces) => {
                let text = emitted.as_deref().expect(&row);
                assert!(pieces.iter().all(|p| text.contains(p)), "{row}");
            }
            Refused => assert!(emitted.is_err(), "{row}"),
        }
    }
}

#[test]
fn results_at_2026_get_their_defaults_and_keep_valid_caller_values() {
    // Below 2026-07-28 the same fields are stripped.
    #[rustfmt::skip]
    let rows = [
        ("tools/list", r#"{"tools":[]}"#, V2025_11_25, V2026_07_28, Text(r#"{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#)),
        ("tools/list", r#"{"tools":[],"ttlMs":30,"cacheScope":"public","resultType":"complete"}"#, V2026_07_28, V2026_07_28, Holding(&[r#""ttlMs":30"#, r#""cacheScope":"public""#])),
        ("tools/list", r#"{"tools":[],"ttlMs":30,"cacheScope":"public","resultType":"complete"}"#, V2026_07_28, V2025_11_25, Text(r#"{"tools":[]}"#)),
    ];
    results(&rows);
}

#[test]
fn results_the_planned_emitter_does_not_decide_are_handed_over() {
    results(&[(
        "tools/list",
        r#"{"tools":[],"resultType":"input_required"}"#,
        V2026_07_28,
        V2026_07_28,
        Refused,
    )]);
}

#[test]
fn input_required_results_need_requests_or_state() {
    // Neither (an empty `inputRequests` does not count): refused when the object ends.
    #[rustfmt::skip]
    let rows = [
        ("tools/call", r#"{"resultType":"input_required","requestState":"s"}"#, V2026_07_28, V2026_07_28, Text(r#"{"requestState":"s","resultType":"input_required"}"#)),
        ("tools/call", r#"{"resultType":"input_required","inputRequests":{"r1":{"method":"roots/list"}}}"#, V2026_07_28, V2026_07_28, Written),
        ("tools/call", r#"{"resultType":"input_required"}"#, V2026_07_28, V2026_07_28, Refused),
        ("tools/call", r#"{"resultType":"input_required","inputRequests":{}}"#, V2026_07_28, V2026_07_28, Refused),
    ];
    results(&rows);
}

#[test]
fn the_ledgers_checks_of_shape_are_made_before_writing() {
    #[rustfmt::skip]
    let rows = [
        ("tools/call", r#"{"content":[],"structuredContent":{"a":1}}"#, V2025_11_25, V2025_06_18, Written),
        ("tools/call", r#"{"content":[],"structuredContent":[1,2]}"#, V2025_11_25, V2025_06_18, Refused),
        ("tools/list", r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}"#, V2025_11_25, V2025_06_18, Written),
        ("tools/list", r#"{"tools":[{"name":"t","inputSchema":{"type":"string"}}]}"#, V2025_11_25, V2025_06_18, Refused),
        ("sampling/createMessage", r#"{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}"#, V2025_11_25, V2025_06_18, Written),
        ("sampling/createMessage", r#"{"role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]}"#, V2025_11_25, V2025_06_18, Refused),
    ];
    results(&rows);
}

#[test]
fn elicitation_answers_are_planned_only_when_nothing_is_stripped_or_refused() {
    #[rustfmt::skip]
    let rows = [
        ("elicitation/create", r#"{"action":"accept","content":{"a":"x","b":2,"c":true}}"#, V2025_11_25, V2025_06_18, Written),
        ("elicitation/create", r#"{"action":"accept","content":{"a":"x","b":null}}"#, V2025_11_25, V2025_06_18, Text(r#"{"action":"accept","content":{"a":"x"}}"#)),
        ("elicitation/create", r#"{"action":"accept","content":{"a":{"b":1}}}"#, V2025_11_25, V2025_06_18, Refused),
    ];
    results(&rows);
}

#[test]
fn required_members_are_checked_when_the_object_ends() {
    let cancelled = |params: Value| {
        let body: ClientNotification = parse_as(
            &json!({"method": "notifications/cancelled", "params": params}),
            V2025_11_25,
        )
        .expect("a notification");
        run(&body, V2025_06_18)
    };
    assert!(cancelled(json!({"requestId": 3})).emitted.is_ok());
    let missing = cancelled(json!({"reason": "x"}));
    assert!(missing.emitted.is_err());
}

#[test]
fn types_a_revision_lacks_are_handed_over() {
    // Audio content does not exist at 2024-11-05.
    #[rustfmt::skip]
    let rows = [
        ("tools/call", r#"{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}"#, V2025_11_25, V2024_11_05, Refused),
    ];
    results(&rows);
    // `initialize` does not exist at 2026-07-28.
    let init = request(
        json!({"method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        V2025_11_25,
        V2026_07_28,
    );
    assert!(init.emitted.is_err());
}

#[test]
fn flattened_structs_are_planned_with_their_members_decided_by_the_owner() {
    // 2025-11-25's core tasks: `tasks/get` answers with the task's fields at the top level.
    let task = json!({"taskId": "t1", "status": "working",
        "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
        "ttl": 30_000, "pollInterval": 500});
    let core = result("tasks/get", task.clone(), V2025_11_25, V2025_11_25);
    assert_eq!(
        core.emitted
            .as_deref()
            .ok()
            .map(|t| serde_json::from_str::<Value>(t).unwrap()),
        Some(task),
        "written by the emitter, member for member"
    );
    // The tasks extension at 2026-07-28: the flattened task plus the role's `resultType`.
    let detailed = json!({"taskId": "t1", "status": "completed",
        "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
        "ttlMs": 60_000, "result": {"content": [], "resultType": "complete"}});
    let got = result("tasks/get", detailed, V2026_07_28, V2026_07_28);
    let text = got.emitted.expect("emitted");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["resultType"], "complete", "{text}");
    assert_eq!(v["taskId"], "t1");
    // A task result a revision cannot carry is still handed over, and refused there.
    #[rustfmt::skip]
    let rows = [
        ("tasks/get", r#"{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000}"#, V2025_11_25, V2025_06_18, Refused),
    ];
    results(&rows);
}
