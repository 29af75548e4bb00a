//! Golden outputs: representative bodies emitted at all five revisions (`insta` snapshots).
//! Each snapshot maps a revision to the emitted body, or to the refusal and its table row.

mod common;

use common::{Body, Kind};
use mcp_wire::ProtocolVersion::{self, *};
use serde_json::{Map, Value, json};

fn translations(kind: Kind<'_>, json: Value, source: ProtocolVersion) -> Value {
    let body = Body::parse(kind, &json, source).expect("snapshot input parses");
    let mut out = Map::new();
    for v in ProtocolVersion::ALL {
        let entry = match body.emit(v) {
            Ok((value, report)) => json!({
                "body": value,
                "stripped": report.stripped_pointers(),
                "injected": report.injected_pointers(),
                "passed": report.passed_pointers(),
            }),
            Err(e) => json!({
                "refused": e.message,
                "kind": format!("{:?}", e.kind),
                "path": e.path.pointer(),
                "code": e.code(),
                "cause": e.cause.map(|c| c.to_string()),
            }),
        };
        out.insert(v.to_string(), entry);
    }
    Value::Object(out)
}

fn identity() -> Value {
    json!({
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": true}}
    })
}

#[test]
fn call_tool_result() {
    insta::assert_json_snapshot!(translations(
        Kind::Result("tools/call"),
        json!({"content":[{"type":"text","text":"5"}],"structuredContent":{"sum":5},"resultType":"complete"}),
        V2026_07_28
    ));
}

#[test]
fn list_tools_result() {
    insta::assert_json_snapshot!(translations(
        Kind::Result("tools/list"),
        json!({"tools":[{
            "name":"add","title":"Add","icons":[{"src":"https://x/i.png"}],
            "inputSchema":{"type":"object","properties":{"a":{"type":"number"}}},
            "outputSchema":{"type":"object"},
            "annotations":{"readOnlyHint":true},
            "execution":{"taskSupport":"optional"}
        }],"ttlMs":60000,"cacheScope":"public"}),
        V2025_11_25
    ));
}

#[test]
fn initialize_result() {
    insta::assert_json_snapshot!(translations(
        Kind::Result("initialize"),
        json!({
            "protocolVersion":"2025-11-25",
            "capabilities":{"tools":{"listChanged":true},"tasks":{"list":{}},"extensions":{"io.x/y":{}}},
            "serverInfo":{"name":"s","version":"1","title":"Server"}
        }),
        V2025_11_25
    ));
}

#[test]
fn call_tool_request() {
    insta::assert_json_snapshot!(translations(
        Kind::ClientRequest,
        json!({"method":"tools/call","params":{
            "_meta": identity(),
            "name":"add","arguments":{"a":1},"task":{"ttl":1000}
        }}),
        V2025_11_25
    ));
}

#[test]
fn input_required_result() {
    insta::assert_json_snapshot!(translations(
        Kind::Result("tools/call"),
        json!({"resultType":"input_required","inputRequests":{"r1":{"method":"roots/list"}},"requestState":"s1"}),
        V2026_07_28
    ));
}

#[test]
fn sampling_request_with_tools() {
    insta::assert_json_snapshot!(translations(
        Kind::ServerRequest,
        json!({"method":"sampling/createMessage","params":{
            "messages":[{"role":"user","content":{"type":"text","text":"weather?"}}],
            "maxTokens":100,
            "tools":[{"name":"get_weather","inputSchema":{"type":"object"}}]
        }}),
        V2025_11_25
    ));
}

#[test]
fn url_elicitation() {
    insta::assert_json_snapshot!(translations(
        Kind::ServerRequest,
        json!({"method":"elicitation/create","params":{
            "mode":"url","message":"Sign in","url":"https://x/login","elicitationId":"e1"
        }}),
        V2025_11_25
    ));
}

#[test]
fn cancelled_without_request_id() {
    insta::assert_json_snapshot!(translations(
        Kind::ClientNotification,
        json!({"method":"notifications/cancelled","params":{"reason":"user"}}),
        V2025_11_25
    ));
}

#[test]
fn discover_result() {
    insta::assert_json_snapshot!(translations(
        Kind::Result("server/discover"),
        json!({"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}}}),
        V2026_07_28
    ));
}
