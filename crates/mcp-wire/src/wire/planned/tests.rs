//! The emitter on the decisions it makes (injections, checks, refusals, answers, flattened
//! structs): what it writes, by every output alike (see `tests::emitted`). (The corpus-wide
//! checks are in `walk_tests`.)

use serde_json::{Value, json};

use super::super::tests::{Emitted, emitted, expect};
use super::super::{parse_as, parse_result_for};
use crate::ProtocolVersion::{self, *};
use crate::model::{ClientNotification, ClientRequest};

/// A client request parsed at 2025-11-25 (a 2026-07-28 request whose `_meta` the 2026-07-28
/// parse would refuse reads there) and emitted at 2026-07-28.
fn request(json: Value) -> Emitted {
    let body: ClientRequest = parse_as(&json, V2025_11_25).expect("a client request");
    emitted(&body, V2026_07_28)
}

/// A result of `method` read from its text at `from` and emitted at `at`.
fn result(method: &str, text: &str, from: ProtocolVersion, at: ProtocolVersion) -> Emitted {
    emitted(&parse_result_for(method, text, from).expect("a result"), at)
}

/// A 2026-07-28 `tools/call` with `meta` as its `_meta`.
fn call_tool(meta: Value) -> Value {
    json!({"method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"location": "NYC"}, "_meta": meta}})
}

/// Requests: at 2026-07-28 the version injected, the client capabilities in `_meta` shaped as
/// their type (roots' `listChanged` stripped), and the `_meta` rules enforced.
#[test]
fn client_requests_at_2026_are_planned_with_the_meta_rules() {
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let pv = "io.modelcontextprotocol/protocolVersion";
    let all = json!({pv: "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}, caps: {},
        "io.modelcontextprotocol/logLevel": "debug"});
    let cancelled = |params: Value| -> Emitted {
        let body = json!({"method": "notifications/cancelled", "params": params});
        let body: ClientNotification = parse_as(&body, V2025_11_25).expect("a notification");
        emitted(&body, V2025_06_18)
    };
    let init = json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    #[rustfmt::skip]
    let rows = [
        ("all of _meta", request(call_tool(all.clone())), json!({"body": call_tool(all)})),
        ("the version injected", request(call_tool(json!({caps: {}}))),
            json!({"body": call_tool(json!({caps: {}, pv: "2026-07-28"}))})),
        ("roots in _meta", request(call_tool(json!({caps: {"roots": {"listChanged": true}, "x": 1}}))),
            json!({"body": call_tool(json!({caps: {"roots": {}, "x": 1}, pv: "2026-07-28"}))})),
        ("no identity", request(call_tool(json!({}))), json!({"refused": "MissingRequired", "at": "/params/_meta/io.modelcontextprotocol~1clientCapabilities"})),
        ("a loud logLevel", request(call_tool(json!({caps: {}, "io.modelcontextprotocol/logLevel": "loud"}))), json!({"refused": "InvalidValue", "at": "/params/_meta/io.modelcontextprotocol~1logLevel"})),
        ("a numeric version", request(call_tool(json!({caps: {}, "io.modelcontextprotocol/protocolVersion": 7}))), json!({"refused": "InvalidValue", "at": "/params/_meta/io.modelcontextprotocol~1protocolVersion"})),
        ("a string clientInfo", request(call_tool(json!({caps: {}, "io.modelcontextprotocol/clientInfo": "c"}))), json!({"refused": "InvalidValue", "at": "/params/_meta/io.modelcontextprotocol~1clientInfo"})),
        ("capabilities in an array", request(call_tool(json!({caps: []}))), json!({"refused": "InvalidValue", "at": "/params/_meta/io.modelcontextprotocol~1clientCapabilities"})),
        ("no params", request(json!({"method": "tools/list"})), json!({"refused": "MissingRequired", "at": "/params"})),
        // Required members are checked when the object ends.
        ("cancelled", cancelled(json!({"requestId": 3})), json!({"body": {"method":"notifications/cancelled","params":{"requestId":3}}})),
        ("cancelled without requestId", cancelled(json!({"reason": "x"})), json!({"refused": "MissingRequired", "at": "/params/requestId"})),
        // `initialize` does not exist at 2026-07-28.
        ("initialize", request(init), json!({"refused": "TypeAbsent", "at": ""})),
    ];
    expect(rows);
}

/// Results: 2026-07-28's defaults injected and valid caller values kept (stripped below), an
/// input-required result needing requests or state (an empty `inputRequests` does not count),
/// the ledger's checks of shape made before writing, elicitation answers with null answers
/// stripped, types a revision lacks refused, and flattened structs (tasks) with their members
/// decided by the owner.
#[test]
fn results_are_planned_or_refused() {
    let cached = r#"{"tools":[],"ttlMs":30,"cacheScope":"public","resultType":"complete"}"#;
    let task = r#"{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000,"pollInterval":500}"#;
    let detailed = r#"{"taskId":"t1","status":"completed","createdAt":"2026-12-02T04:05:06.789Z","lastUpdatedAt":"2026-12-02T04:05:07.000Z","ttlMs":60000,"result":{"content":[],"resultType":"complete"}}"#;
    let no_poll = r#"{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000}"#;
    let tool = |schema: &str| {
        format!(r#"{{"tools":[{{"name":"t","inputSchema":{{"type":"{schema}"}}}}]}}"#)
    };
    #[rustfmt::skip]
    let rows = [
        ("tools/list defaults", result("tools/list", r#"{"tools":[]}"#, V2025_11_25, V2026_07_28),
            json!({"body": {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}})),
        ("tools/list cached", result("tools/list", cached, V2026_07_28, V2026_07_28), json!({"body": {"tools":[],"ttlMs":30,"cacheScope":"public","resultType":"complete"}})),
        ("tools/list cached below", result("tools/list", cached, V2026_07_28, V2025_11_25), json!({"body": {"tools": []}})),
        // The planned emitter hands over what it does not decide.
        ("tools/list input_required", result("tools/list", r#"{"tools":[],"resultType":"input_required"}"#, V2026_07_28, V2026_07_28),
            json!({"refused": "InvalidValue", "at": "/resultType"})),
        ("input_required with state", result("tools/call", r#"{"resultType":"input_required","requestState":"s"}"#, V2026_07_28, V2026_07_28),
            json!({"body": {"requestState": "s", "resultType": "input_required"}})),
        ("input_required with requests", result("tools/call", r#"{"resultType":"input_required","inputRequests":{"r1":{"method":"roots/list"}}}"#,
            V2026_07_28, V2026_07_28), json!({"body": {"inputRequests":{"r1":{"method":"roots/list"}},"resultType":"input_required"}})),
        ("input_required with neither", result("tools/call", r#"{"resultType":"input_required"}"#, V2026_07_28, V2026_07_28),
            json!({"refused": "MissingRequired", "at": "/inputRequests"})),
        ("input_required with empty requests", result("tools/call", r#"{"resultType":"input_required","inputRequests":{}}"#,
            V2026_07_28, V2026_07_28), json!({"refused": "MissingRequired", "at": "/inputRequests"})),
        ("structured object", result("tools/call", r#"{"content":[],"structuredContent":{"a":1}}"#, V2025_11_25, V2025_06_18),
            json!({"body": {"content":[],"structuredContent":{"a":1}}})),
        ("structured array", result("tools/call", r#"{"content":[],"structuredContent":[1,2]}"#, V2025_11_25, V2025_06_18),
            json!({"refused": "NotExpressible", "at": "/structuredContent"})),
        ("an object schema", result("tools/list", &tool("object"), V2025_11_25, V2025_06_18), json!({"body": {"tools":[{"name":"t","inputSchema":{"type":"object"}}]}})),
        ("a string schema", result("tools/list", &tool("string"), V2025_11_25, V2025_06_18), json!({"refused": "NotExpressible", "at": "/tools/0/inputSchema"})),
        ("sampled text", result("sampling/createMessage", r#"{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}"#,
            V2025_11_25, V2025_06_18), json!({"body": {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}})),
        ("sampled text in an array", result("sampling/createMessage", r#"{"role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]}"#,
            V2025_11_25, V2025_06_18), json!({"refused": "NotExpressible", "at": "/content"})),
        ("answers", result("elicitation/create", r#"{"action":"accept","content":{"a":"x","b":2,"c":true}}"#, V2025_11_25, V2025_06_18),
            json!({"body": {"action":"accept","content":{"a":"x","b":2,"c":true}}})),
        ("a null answer", result("elicitation/create", r#"{"action":"accept","content":{"a":"x","b":null}}"#, V2025_11_25, V2025_06_18),
            json!({"body": {"action": "accept", "content": {"a": "x"}}})),
        ("an object answer", result("elicitation/create", r#"{"action":"accept","content":{"a":{"b":1}}}"#, V2025_11_25, V2025_06_18),
            json!({"refused": "NotExpressible", "at": "/content/a"})),
        // Audio content does not exist at 2024-11-05.
        ("audio", result("tools/call", r#"{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}"#, V2025_11_25, V2024_11_05),
            json!({"refused": "TypeAbsent", "at": "/content/0"})),
        // 2025-11-25's core tasks: `tasks/get` answers with the task's fields at the top level.
        ("a core task", result("tasks/get", task, V2025_11_25, V2025_11_25), json!({"body": serde_json::from_str::<Value>(task).unwrap()})),
        // The tasks extension at 2026-07-28: the flattened task plus the role's `resultType`.
        ("a detailed task", result("tasks/get", detailed, V2026_07_28, V2026_07_28), json!({"body": {"taskId":"t1","status":"completed","createdAt":"2026-12-02T04:05:06.789Z","lastUpdatedAt":"2026-12-02T04:05:07.000Z","ttlMs":60000,"result":{"content":[],"resultType":"complete"},"resultType":"complete"}})),
        // A task result a revision cannot carry is still handed over, and refused there.
        ("a task at 2025-06-18", result("tasks/get", no_poll, V2025_11_25, V2025_06_18), json!({"refused": "TypeAbsent", "at": ""})),
    ];
    expect(rows);
}
