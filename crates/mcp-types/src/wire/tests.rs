//! Engine tests on a small stand-in model shaped like the superset (same spec names, serde
//! layout: optional fields skipped when `None`, `_meta` an open map, content internally tagged).

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::body::sealed::Sealed;
use super::*;
use crate::ProtocolVersion::{self, *};

type Meta = Map<String, Value>;

#[derive(Serialize, Clone)]
#[serde(tag = "type")]
enum ContentBlock {
    #[serde(rename = "text")]
    Text(TextContent),
    #[serde(rename = "audio")]
    Audio(AudioContent),
}

#[derive(Serialize, Clone)]
struct TextContent {
    text: String,
}

#[derive(Serialize, Clone)]
struct AudioContent {
    data: String,
    #[serde(rename = "mimeType")]
    mime_type: String,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallToolResult {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
    content: Vec<ContentBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<Value>,
    is_error: bool,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListToolsResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<String>,
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct EmptyResult {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct InputRequiredResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallToolRequestParams {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    task: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_responses: Option<Map<String, Value>>,
}

#[derive(Serialize)]
struct CallToolRequest {
    method: &'static str,
    params: CallToolRequestParams,
}

#[derive(Serialize, Default)]
struct PaginatedRequestParams {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
}

#[derive(Serialize)]
struct ListToolsRequest {
    method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<PaginatedRequestParams>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct CancelledNotificationParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct CancelledNotification {
    method: &'static str,
    params: CancelledNotificationParams,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ServerCapabilities {
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tasks: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult {
    protocol_version: String,
    capabilities: ServerCapabilities,
    server_info: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ElicitResult {
    action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
}

#[derive(Serialize)]
struct SamplingMessage {
    role: String,
    content: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreateMessageRequestParams {
    messages: Vec<SamplingMessage>,
    max_tokens: u32,
}

#[derive(Serialize)]
struct CreateMessageRequest {
    method: &'static str,
    params: CreateMessageRequestParams,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolUseContent {
    id: String,
    name: String,
    input: Value,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum SamplingBlock {
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
}

macro_rules! body {
    ($t:ident, $info:expr) => {
        impl Sealed for $t {}
        impl WireBody for $t {
            fn body_info(&self) -> BodyInfo {
                $info
            }
        }
    };
}

body!(CallToolResult, BodyInfo::result("CallToolResult"));
body!(ListToolsResult, BodyInfo::result("ListToolsResult"));
body!(EmptyResult, BodyInfo::result("EmptyResult"));
body!(InputRequiredResult, BodyInfo::result("InputRequiredResult"));
body!(InitializeResult, BodyInfo::result("InitializeResult"));
body!(ElicitResult, BodyInfo::result("ElicitResult"));
body!(
    CallToolRequest,
    BodyInfo::request("CallToolRequest", "tools/call")
);
body!(
    ListToolsRequest,
    BodyInfo::request("ListToolsRequest", "tools/list")
);
body!(
    CreateMessageRequest,
    BodyInfo::request("CreateMessageRequest", "sampling/createMessage")
);
body!(
    CancelledNotification,
    BodyInfo::notification("CancelledNotification", "notifications/cancelled")
);

fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextContent { text: t.into() })
}

fn emit<B: WireBody>(b: &B, v: ProtocolVersion) -> String {
    let value = serialize_for(b, v).unwrap();
    let text = serialize_for_string(b, v).unwrap();
    assert_eq!(serde_json::to_string(&value).unwrap(), text, "value and bytes agree");
    text
}

fn identity() -> Meta {
    json!({
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
    .as_object()
    .unwrap()
    .clone()
}

#[test]
fn e1_empty_result() {
    let r = EmptyResult::default();
    assert_eq!(emit(&r, V2024_11_05), "{}");
    assert_eq!(emit(&r, V2025_11_25), "{}");
    assert_eq!(emit(&r, V2026_07_28), r#"{"resultType":"complete"}"#);
}

#[test]
fn e2_e3_call_tool_result() {
    let r = CallToolResult {
        content: vec![text("hi")],
        ..Default::default()
    };
    assert_eq!(
        emit(&r, V2025_11_25),
        r#"{"content":[{"type":"text","text":"hi"}],"isError":false}"#
    );
    assert_eq!(
        emit(&r, V2025_11_25),
        serde_json::to_string(&r).unwrap(),
        "byte identity"
    );
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"content":[{"type":"text","text":"hi"}],"isError":false,"resultType":"complete"}"#
    );
    let r = CallToolResult {
        result_type: Some("complete".into()),
        ..Default::default()
    };
    assert_eq!(emit(&r, V2025_11_25), r#"{"content":[],"isError":false}"#);
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"resultType":"complete","content":[],"isError":false}"#
    );
}

#[test]
fn e4_e5_cache_defaults() {
    let r = ListToolsResult {
        tools: vec![json!({"name":"t","inputSchema":{"type":"object"}})],
        ..Default::default()
    };
    assert_eq!(
        emit(&r, V2025_11_25),
        r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}"#
    );
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#
    );
    let r = ListToolsResult {
        ttl_ms: Some(60000),
        cache_scope: Some("public".into()),
        ..Default::default()
    };
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(v, json!({"tools":[]}));
    assert_eq!(report.stripped_pointers(), ["/ttlMs", "/cacheScope"]);
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"ttlMs":60000,"cacheScope":"public","tools":[],"resultType":"complete"}"#
    );
}

#[test]
fn cache_values_are_checked() {
    let r = ListToolsResult {
        ttl_ms: Some(-1),
        ..Default::default()
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::InvalidValue);
    assert_eq!(e.path.pointer(), "/ttlMs");
    // Below 2026-07-28 the field is stripped, so its value does not matter.
    assert_eq!(serialize_for(&r, V2025_06_18).unwrap(), json!({"tools":[]}));
}

#[test]
fn e7_input_required_result() {
    let mut reqs = Map::new();
    reqs.insert("r1".into(), json!({"method":"roots/list"}));
    let r = InputRequiredResult {
        input_requests: Some(reqs),
        request_state: Some("s1".into()),
        result_type: None,
    };
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"inputRequests":{"r1":{"method":"roots/list"}},"requestState":"s1","resultType":"input_required"}"#
    );
    let e = serialize_for(&r, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    assert_eq!(e.code(), -32601);
    assert!(e.message.contains("InputRequiredResult"), "{e}");
}

#[test]
fn d10_d11_input_required_rules() {
    // D11: an empty inputRequests map counts as absent.
    let r = InputRequiredResult {
        input_requests: Some(Map::new()),
        ..Default::default()
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::MissingRequired);
    assert!(matches!(e.cause, Some(Cause::Shaping(r)) if r.id == "S5"));
    // D10: a contradicting caller resultType is refused, not emitted.
    let r = InputRequiredResult {
        request_state: Some("x".into()),
        result_type: Some("complete".into()),
        ..Default::default()
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::InvalidValue);
    assert_eq!(e.path.pointer(), "/resultType");
    let r = CallToolResult {
        result_type: Some("task".into()),
        ..Default::default()
    };
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::InvalidValue
    );
}

#[test]
fn e8_protocol_version_injected_and_identity_required() {
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(identity()),
            cursor: Some("c1".into()),
        }),
    };
    let plain = serde_json::to_string(&r).unwrap();
    assert_eq!(emit(&r, V2025_11_25), plain);
    let (v, report) = serialize_for_report(&r, V2026_07_28).unwrap();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"cursor":"c1"}}"#
    );
    assert_eq!(
        report.injected_pointers(),
        ["/params/_meta/io.modelcontextprotocol~1protocolVersion"]
    );
    // Without clientCapabilities: refused (clientInfo alone is not enough).
    let mut meta = identity();
    meta.remove("io.modelcontextprotocol/clientCapabilities");
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(meta),
            cursor: None,
        }),
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::MissingRequired);
    assert_eq!(
        e.path.pointer(),
        "/params/_meta/io.modelcontextprotocol~1clientCapabilities"
    );
    // No params at all: refused too, with the path of what is missing.
    let r = ListToolsRequest {
        method: "tools/list",
        params: None,
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.path.pointer(), "/params");
    // clientInfo is optional in the published schema.
    let mut meta = Map::new();
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        json!({}),
    );
    meta.insert(
        "io.modelcontextprotocol/protocolVersion".into(),
        json!("caller-pinned"),
    );
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(meta),
            cursor: None,
        }),
    };
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"caller-pinned"}}}"#
    );
}

#[test]
fn reserved_meta_values_are_typed() {
    let mut meta = identity();
    meta.insert("io.modelcontextprotocol/logLevel".into(), json!("loud"));
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(meta),
            cursor: None,
        }),
    };
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::InvalidValue);
    let mut meta = identity();
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        json!("all"),
    );
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(meta),
            cursor: None,
        }),
    };
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::InvalidValue
    );
}

#[test]
fn roots_list_changed_stripped_inside_meta_capabilities() {
    let mut meta = identity();
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        json!({"roots": {"listChanged": true}, "tasks": {"list": {}}, "extensions": {"x": {}}}),
    );
    let r = ListToolsRequest {
        method: "tools/list",
        params: Some(PaginatedRequestParams {
            meta: Some(meta),
            cursor: None,
        }),
    };
    let (v, report) = serialize_for_report(&r, V2026_07_28).unwrap();
    assert_eq!(
        v["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"roots": {}, "extensions": {"x": {}}})
    );
    assert_eq!(
        report.stripped_pointers(),
        [
            "/params/_meta/io.modelcontextprotocol~1clientCapabilities/roots/listChanged",
            "/params/_meta/io.modelcontextprotocol~1clientCapabilities/tasks"
        ]
    );
    // Below 2026-07-28 `_meta` is opaque metadata: verbatim.
    let plain = serde_json::to_value(&r).unwrap();
    assert_eq!(serialize_for(&r, V2025_11_25).unwrap(), plain);
}

#[test]
fn e9_task_only_at_2025_11_25() {
    let r = CallToolRequest {
        method: "tools/call",
        params: CallToolRequestParams {
            meta: Some(identity()),
            name: "x".into(),
            task: Some(json!({"ttl":5})),
            input_responses: None,
        },
    };
    let v3 = serialize_for(&r, V2025_06_18).unwrap();
    assert!(v3["params"].get("task").is_none());
    let v4 = serialize_for(&r, V2025_11_25).unwrap();
    assert_eq!(v4["params"]["task"], json!({"ttl":5}));
    let d = serialize_for(&r, V2026_07_28).unwrap();
    assert!(d["params"].get("task").is_none());
    assert_eq!(
        d["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[test]
fn d9_retry_fields_stripped_below_2026() {
    let mut responses = Map::new();
    responses.insert(
        "r1".into(),
        json!({"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}),
    );
    let r = CallToolRequest {
        method: "tools/call",
        params: CallToolRequestParams {
            meta: None,
            name: "retry-me".into(),
            task: None,
            input_responses: Some(responses),
        },
    };
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(
        v,
        json!({"method":"tools/call","params":{"name":"retry-me"}})
    );
    assert_eq!(report.stripped_pointers(), ["/params/inputResponses"]);
}

#[test]
fn e10_cancelled_requires_request_id_where_the_revision_does() {
    let r = CancelledNotification {
        method: "notifications/cancelled",
        params: CancelledNotificationParams {
            request_id: Some(json!("abc")),
            reason: Some("user".into()),
        },
    };
    for v in ProtocolVersion::ALL {
        assert_eq!(
            emit(&r, v),
            r#"{"method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}}"#
        );
    }
    let r = CancelledNotification {
        method: "notifications/cancelled",
        params: CancelledNotificationParams {
            request_id: None,
            reason: Some("user".into()),
        },
    };
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    for v in [V2024_11_05, V2025_06_18, V2026_07_28] {
        let e = serialize_for(&r, v).unwrap_err();
        assert_eq!(e.kind, EmitErrorKind::MissingRequired);
        assert_eq!(e.path.pointer(), "/params/requestId");
    }
}

#[test]
fn e11_capability_extensions_and_tasks() {
    let r = InitializeResult {
        protocol_version: "2025-11-25".into(),
        capabilities: ServerCapabilities {
            tools: Some(json!({"listChanged": true})),
            tasks: Some(json!({"list": {}})),
            extensions: Some(json!({"io.x/y": {}})),
        },
        server_info: json!({"name":"s","version":"1"}),
    };
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(
        v["capabilities"],
        json!({"tools":{"listChanged":true},"tasks":{"list":{}}})
    );
    assert_eq!(report.stripped_pointers(), ["/capabilities/extensions"]);
    let (v, report) = serialize_for_report(&r, V2025_06_18).unwrap();
    assert_eq!(v["capabilities"], json!({"tools":{"listChanged":true}}));
    assert_eq!(
        report.stripped_pointers(),
        ["/capabilities/tasks", "/capabilities/extensions"]
    );
    assert!(matches!(
        report.stripped[0].cause,
        Cause::Ledger(row) if row.owner == "ServerCapabilities" && row.field == "tasks"
    ));
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
}

#[test]
fn e13_e17_elicit_result() {
    let mut content = Map::new();
    content.insert("x".into(), Value::Null);
    content.insert("y".into(), json!("ok"));
    let r = ElicitResult {
        action: "accept".into(),
        content: Some(content),
        result_type: None,
    };
    assert_eq!(
        emit(&r, V2025_06_18),
        r#"{"action":"accept","content":{"x":null,"y":"ok"}}"#
    );
    assert_eq!(
        emit(&r, V2025_11_25),
        r#"{"action":"accept","content":{"x":null,"y":"ok"}}"#
    );
    // Absent as a body at 2024-11-05 and (standalone) at 2026-07-28.
    assert_eq!(
        serialize_for(&r, V2025_03_26).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
    // A list-valued answer cannot be carried at 2025-06-18.
    let mut content = Map::new();
    content.insert("pick".into(), json!(["a", "b"]));
    let r = ElicitResult {
        action: "accept".into(),
        content: Some(content),
        result_type: Some("complete".into()),
    };
    let e = serialize_for(&r, V2025_06_18).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::NotExpressible);
    assert_eq!(e.path.pointer(), "/content/pick");
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(v, json!({"action":"accept","content":{"pick":["a","b"]}}));
    assert_eq!(report.stripped_pointers(), ["/resultType"]);
}

#[test]
fn absent_union_members_are_refused() {
    let r = CallToolResult {
        content: vec![
            text("a"),
            ContentBlock::Audio(AudioContent {
                data: "AAAA".into(),
                mime_type: "audio/wav".into(),
            }),
        ],
        ..Default::default()
    };
    let e = serialize_for(&r, V2024_11_05).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    assert_eq!(e.path.pointer(), "/content/1");
    assert!(matches!(e.cause, Some(Cause::Type(t)) if t.name == "AudioContent"));
    assert!(serialize_for(&r, V2025_03_26).is_ok());
    // Nothing reaches the buffer on a refusal.
    let mut buf = b"prefix".to_vec();
    assert!(serialize_for_vec(&r, V2024_11_05, &mut buf).is_err());
    assert_eq!(buf, b"prefix");
}

#[test]
fn sampling_tool_content_and_arrays_refused_before_2025_11_25() {
    let tool_use = serde_json::to_value(SamplingBlock::ToolUse(ToolUseContent {
        id: "call-1".into(),
        name: "get_weather".into(),
        input: json!({}),
    }))
    .unwrap();
    let r = CreateMessageRequest {
        method: "sampling/createMessage",
        params: CreateMessageRequestParams {
            messages: vec![SamplingMessage {
                role: "user".into(),
                content: json!([{"type":"text","text":"hi"}, tool_use]),
            }],
            max_tokens: 10,
        },
    };
    let e = serialize_for(&r, V2025_06_18).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::NotExpressible);
    assert_eq!(e.path.pointer(), "/params/messages/0/content");
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    // D13: a standalone server-to-client request does not exist at 2026-07-28.
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
}

#[test]
fn structured_content_passes_verbatim_and_is_reported() {
    let r = CallToolResult {
        content: vec![],
        structured_content: Some(json!(5)),
        ..Default::default()
    };
    let (v, report) = serialize_for_report(&r, V2024_11_05).unwrap();
    assert_eq!(v, json!({"content":[],"structuredContent":5,"isError":false}));
    assert_eq!(report.passed_pointers(), ["/structuredContent"]);
    assert!(report.is_identity());
}

#[test]
fn writer_and_vec_agree() {
    let r = ListToolsResult::default();
    let mut out = Vec::new();
    serialize_for_writer(&r, V2026_07_28, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#
    );
}
