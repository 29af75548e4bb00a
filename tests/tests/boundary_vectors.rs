//! Worked cases of the boundary on the real superset model: emission (E1–E18) and parsing
//! (P1–P17, C1–C5), each with its expected output. Where the boundary deliberately does
//! something other than the most literal translation (a null answer, an ambiguous result), the
//! case says what and why.

use mcp_wire::ProtocolVersion::{self, *};
use mcp_wire::model::*;
use mcp_wire::wire::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The compact text output of `b` at `v`.
fn text_of<B: WireBody>(b: &B, v: ProtocolVersion) -> Result<String, EmitError> {
    let mut out = Vec::new();
    serialize_for_vec(b, v, &mut out).map(|()| String::from_utf8(out).expect("UTF-8"))
}

fn from<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test input parses as the superset type")
}

/// Emits as text, and checks the `Value` and byte outputs agree.
fn emit<B: WireBody>(b: &B, v: ProtocolVersion) -> String {
    let text = text_of(b, v).unwrap_or_else(|e| panic!("emit at {v}: {e}"));
    let value = serialize_for(b, v).unwrap();
    assert_eq!(serde_json::to_string(&value).unwrap(), text);
    text
}

fn plain<T: serde::Serialize>(b: &T) -> String {
    serde_json::to_string(b).unwrap()
}

fn identity() -> Value {
    json!({
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn e1_empty_result() {
    let r = EmptyResult::new();
    for v in [V2024_11_05, V2025_11_25] {
        assert_eq!(emit(&r, v), "{}");
    }
    assert_eq!(emit(&r, V2026_07_28), r#"{"resultType":"complete"}"#);
}

#[test]
fn e2_e3_call_tool_result() {
    let r: CallToolResult = from(json!({"content":[{"type":"text","text":"hi"}]}));
    assert_eq!(emit(&r, V2025_11_25), plain(&r), "byte identity");
    assert_eq!(
        emit(&r, V2026_07_28),
        format!(
            "{},\"resultType\":\"complete\"}}",
            plain(&r).trim_end_matches('}')
        )
    );
    let r: CallToolResult = from(json!({"content":[],"resultType":"complete"}));
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert!(v.get("resultType").is_none());
    assert_eq!(report.stripped_pointers(), ["/resultType"]);
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap()["resultType"],
        "complete"
    );
}

#[test]
fn e4_e5_e12_cache_defaults() {
    let r: ListToolsResult = from(json!({"tools":[{"name":"t","inputSchema":{"type":"object"}}]}));
    assert_eq!(emit(&r, V2025_11_25), plain(&r));
    let d = serialize_for(&r, V2026_07_28).unwrap();
    let keys: Vec<_> = d.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["tools", "resultType", "ttlMs", "cacheScope"]);
    assert_eq!(d["ttlMs"], 0);
    assert_eq!(d["cacheScope"], "private");

    let r: ListToolsResult = from(json!({"tools":[],"ttlMs":60000,"cacheScope":"public"}));
    assert_eq!(serialize_for(&r, V2025_11_25).unwrap(), json!({"tools":[]}));
    let d = serialize_for(&r, V2026_07_28).unwrap();
    assert_eq!(d["ttlMs"], 60000);
    assert_eq!(d["cacheScope"], "public");
    assert_eq!(d["resultType"], "complete");

    let r: DiscoverResult = from(json!({
        "supportedVersions":["2025-11-25","2026-07-28"],
        "capabilities":{}
    }));
    let (d, report) = serialize_for_report(&r, V2026_07_28).unwrap();
    assert_eq!(
        report.injected_pointers(),
        ["/resultType", "/ttlMs", "/cacheScope"]
    );
    assert_eq!(d["supportedVersions"], json!(["2025-11-25", "2026-07-28"]));
    // Absent below 2026-07-28.
    let e = serialize_for(&r, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
}

#[test]
fn e7_input_required_result() {
    let r: InputRequiredResult = from(json!({
        "inputRequests":{"r1":{"method":"roots/list"}},
        "requestState":"s1"
    }));
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"inputRequests":{"r1":{"method":"roots/list"}},"requestState":"s1","resultType":"input_required"}"#
    );
    let e = serialize_for(&r, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    assert!(e.to_string().contains("InputRequiredResult"));
    // D11 (fixed): an empty inputRequests map counts as absent.
    let r: InputRequiredResult = from(json!({"inputRequests":{}}));
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::MissingRequired
    );
    // D10 (fixed): a contradicting caller resultType is refused.
    let r: InputRequiredResult = from(json!({"requestState":"x","resultType":"complete"}));
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::InvalidValue
    );
}

#[test]
fn e8_protocol_version_injected() {
    let r: ListToolsRequest = from(json!({
        "method":"tools/list",
        "params":{"_meta": identity(), "cursor":"c1"}
    }));
    assert_eq!(emit(&r, V2025_11_25), plain(&r));
    let d = serialize_for(&r, V2026_07_28).unwrap();
    let meta = d["params"]["_meta"].as_object().unwrap();
    assert_eq!(
        meta.keys().collect::<Vec<_>>(),
        [
            "io.modelcontextprotocol/clientInfo",
            "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/protocolVersion"
        ]
    );
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // Bare request: refused (identity is never synthesized).
    let r = ListToolsRequest::new();
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::MissingRequired);
    assert_eq!(e.code(), -32602);
    assert_eq!(e.path.pointer(), "/params");
}

#[test]
fn e9_task_only_at_2025_11_25() {
    let r: CallToolRequest = from(json!({
        "method":"tools/call",
        "params":{"_meta": identity(), "name":"x", "task":{"ttl":5}}
    }));
    assert!(
        serialize_for(&r, V2025_06_18).unwrap()["params"]
            .get("task")
            .is_none()
    );
    assert_eq!(
        serialize_for(&r, V2025_11_25).unwrap()["params"]["task"],
        json!({"ttl":5})
    );
    let d = serialize_for(&r, V2026_07_28).unwrap();
    assert!(d["params"].get("task").is_none());
    assert_eq!(
        d["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[test]
fn e10_cancelled() {
    let r: CancelledNotification = from(json!({
        "method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}
    }));
    for v in [V2024_11_05, V2026_07_28] {
        assert_eq!(
            emit(&r, v),
            r#"{"method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}}"#
        );
    }
    // Without requestId: legal only at 2025-11-25 (required before, and again at 2026-07-28).
    let r: CancelledNotification =
        from(json!({"method":"notifications/cancelled","params":{"reason":"user"}}));
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    for v in [V2024_11_05, V2025_06_18, V2026_07_28] {
        assert_eq!(
            serialize_for(&r, v).unwrap_err().path.pointer(),
            "/params/requestId"
        );
    }
}

#[test]
fn e11_capability_extensions() {
    let r: InitializeResult = from(json!({
        "protocolVersion":"2025-11-25",
        "capabilities":{"tools":{"listChanged":true},"extensions":{"io.x/y":{}}},
        "serverInfo":{"name":"s","version":"1"}
    }));
    // Extension entries pass at handshake revisions (the schemas leave capabilities open).
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(
        v["capabilities"],
        json!({"tools":{"listChanged":true},"extensions":{"io.x/y":{}}})
    );
    assert!(report.stripped.is_empty());
    assert_eq!(report.passed_pointers(), ["/capabilities/extensions"]);
}

#[test]
fn e13_e17_elicit_result() {
    let r: ElicitResult = from(json!({"action":"accept","content":{"name":"Ada"}}));
    for v in [V2025_06_18, V2025_11_25] {
        assert_eq!(
            emit(&r, v),
            r#"{"action":"accept","content":{"name":"Ada"}}"#
        );
    }
    // E17, deliberately: a literal translation would emit null answers, which no revision's
    // pinned schema admits; an absent answer means the same, so they are stripped and reported.
    let r: ElicitResult = from(json!({"action":"accept","content":{"x":null,"y":"ok"}}));
    for v in [V2025_06_18, V2025_11_25] {
        let (value, report) = serialize_for_report(&r, v).unwrap();
        assert_eq!(value, json!({"action":"accept","content":{"y":"ok"}}));
        assert_eq!(report.stripped_pointers(), ["/content/x"]);
    }
    // Fractional answers: schema.ts types them `number` (schema.json renders `integer`, an
    // upstream rendering mistake corrected by a named fix), so they are written as they came.
    let r: ElicitResult = from(json!({"action":"accept","content":{"x":1.5}}));
    for v in [V2025_06_18, V2025_11_25] {
        assert_eq!(emit(&r, v), r#"{"action":"accept","content":{"x":1.5}}"#);
    }
    // What schema.ts does not allow is still refused, with its pointer.
    let r: ElicitResult = from(json!({"action":"accept","content":{"x":{"a":1}}}));
    assert_eq!(
        serialize_for(&r, V2025_11_25).unwrap_err().path.pointer(),
        "/content/x"
    );
    // D13 (fixed): standalone at 2026-07-28 it is refused; it travels in inputResponses.
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
}

#[test]
fn e14_e15_envelopes() {
    let ping = mcp_wire::jsonrpc::JsonRpcRequest::new(1, PingRequest::new());
    for v in [V2024_11_05, V2025_11_25] {
        assert_eq!(
            emit(&ping, v),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        );
    }
    // Ping does not exist at 2026-07-28: the interior decides.
    assert_eq!(
        serialize_for(&ping, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
    let err = mcp_wire::jsonrpc::JsonRpcError::new(
        Some(5.into()),
        mcp_wire::jsonrpc::ErrorData::new(-32601, "Method not found"),
    );
    assert_eq!(
        emit(&err, V2024_11_05),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}"#
    );
    // D1 (fixed): an unknown id is emitted as null.
    let err = mcp_wire::jsonrpc::JsonRpcError::new(
        None,
        mcp_wire::jsonrpc::ErrorData::new(-32700, "Parse error"),
    );
    assert_eq!(
        emit(&err, V2026_07_28),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
    );
    // A typed response envelope shapes its result, and reports paths under /result.
    let resp = mcp_wire::jsonrpc::JsonRpcResponse::new(2, ListToolsResult::new(vec![]));
    let (v, report) = serialize_for_report(&resp, V2026_07_28).unwrap();
    assert_eq!(v["result"]["ttlMs"], 0);
    assert_eq!(
        report.injected_pointers(),
        ["/result/resultType", "/result/ttlMs", "/result/cacheScope"]
    );
}

#[test]
fn e16_absent_types() {
    let r: ListTasksResult = from(json!({"tasks":[]}));
    assert_eq!(
        serialize_for(&r, V2025_06_18).unwrap_err().kind,
        EmitErrorKind::TypeAbsent
    );
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    // Fragments (`TextContent`) are not `WireBody`: a compile error (see the doc test of
    // `mcp_wire::wire::WireBody`).
}

#[test]
fn e18_embedded_responses_are_shaped_by_owner() {
    // An embedded result's resultType is not kept verbatim. The superset's
    // CreateMessageResult has no resultType (no revision gives it one), so it is gone after the
    // parse; were it present, the owner-typed ledger row `CreateMessageResult.resultType` would
    // strip it at every depth (deliberately: embedded payloads are shaped like any other).
    // `_meta` passes.
    let r: CallToolRequest = from(json!({
        "method":"tools/call",
        "params":{
            "_meta": identity(),
            "name":"retry-me",
            "inputResponses":{"r1":{
                "role":"assistant","content":{"type":"text","text":"x"},"model":"m",
                "resultType":"complete","_meta":{"k":"v"}
            }}
        }
    }));
    let (d, report) = serialize_for_report(&r, V2026_07_28).unwrap();
    let r1 = &d["params"]["inputResponses"]["r1"];
    assert_eq!(r1["_meta"], json!({"k":"v"}));
    assert!(r1.get("resultType").is_none());
    assert!(report.stripped.is_empty());
    // D9 (fixed): below 2026-07-28 the retry fields are stripped.
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert!(v["params"].get("inputResponses").is_none());
    assert_eq!(report.stripped_pointers(), ["/params/inputResponses"]);
}

#[test]
fn content_members_absent_at_a_revision_are_refused() {
    let r: CallToolResult = from(json!({"content":[
        {"type":"text","text":"a"},
        {"type":"audio","data":"AAAA","mimeType":"audio/wav"}
    ]}));
    let e = serialize_for(&r, V2024_11_05).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    assert_eq!(e.path.pointer(), "/content/1");
    assert_eq!(emit(&r, V2025_03_26), plain(&r));
    let r: CallToolResult = from(json!({"content":[
        {"type":"resource_link","uri":"file:///a","name":"a"}
    ]}));
    assert!(serialize_for(&r, V2025_03_26).is_err());
    assert_eq!(emit(&r, V2025_06_18), plain(&r));
}

#[test]
fn sampling_tool_content_before_2025_11_25() {
    let r: CreateMessageRequest = from(json!({
        "method":"sampling/createMessage",
        "params":{"messages":[{"role":"assistant","content":
            {"type":"tool_use","id":"call-1","name":"get_weather","input":{}}}],
            "maxTokens":10}
    }));
    let e = serialize_for(&r, V2025_06_18).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    assert_eq!(e.path.pointer(), "/params/messages/0/content");
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    let r: CreateMessageResult = from(json!({
        "role":"assistant","model":"m",
        "content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]
    }));
    assert_eq!(
        serialize_for(&r, V2025_06_18).unwrap_err().kind,
        EmitErrorKind::NotExpressible
    );
    assert_eq!(emit(&r, V2025_11_25), plain(&r));
}

// ---- parsing ----

fn server(json: Value, v: impl Into<mcp_wire::VersionLike>) -> Result<ServerResult, ParseError> {
    parse_as::<ServerResult>(&json, v)
}

#[test]
fn p1_p3_empty_results() {
    assert!(matches!(
        server(json!({}), V2025_11_25),
        Ok(ServerResult::Empty(_))
    ));
    let Ok(ServerResult::Empty(e)) = server(json!({"_meta":{"vendor":"x"}}), V2026_07_28) else {
        panic!("P2")
    };
    assert_eq!(e.meta.unwrap()["vendor"], "x");
    assert!(matches!(
        server(json!({"someVendorKey":1}), V2025_11_25),
        Ok(ServerResult::Empty(_))
    ));
}

#[test]
fn p4_p5_structural_selection() {
    assert!(matches!(
        server(
            json!({"content":[{"type":"text","text":"hi"}]}),
            V2024_11_05
        ),
        Ok(ServerResult::CallTool(_))
    ));
    assert!(matches!(
        server(json!({"tools":[],"nextCursor":"c"}), V2025_11_25),
        Ok(ServerResult::ListTools(_))
    ));
}

#[test]
fn p6_ties_never_silently_drop_fields() {
    // D8: picking ListPromptsResult would silently drop `tools`; we refuse the guess.
    let e = server(json!({"tools":[],"prompts":[]}), V2025_11_25).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Invalid);
    assert!(e.message.contains("ambiguous"), "{e}");
    // With the method known there is no guess.
    let r = parse_result_for("tools/list", &json!({"tools":[],"prompts":[]}), V2025_11_25).unwrap();
    assert!(matches!(
        r,
        MethodResult::Server(ServerResult::ListTools(_))
    ));
}

#[test]
fn p7_p8_discover_shapes() {
    // P7: a discover body is a DiscoverResult, even below 2026-07-28 (lenient superset).
    assert!(matches!(
        server(
            json!({"supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"s","version":"1"}}),
            V2025_11_25
        ),
        Ok(ServerResult::Discover(_))
    ));
    // P8/P9: missing supportedVersions is rejected, never read as an empty result. (With cache
    // keys treated as base keys, InitializeResult ranks first here and its error is the one
    // reported, not DiscoverResult's.)
    for body in [
        json!({"capabilities":{},"serverInfo":{"name":"s","version":"1"},"ttlMs":1000,"cacheScope":"public"}),
        json!({"capabilities":{},"serverInfo":{"name":"s","version":"1"},"ttlMs":1000,"cacheScope":"public","resultType":"complete"}),
    ] {
        let e = server(body, V2026_07_28).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Missing, "{e}");
    }
}

#[test]
fn p10_cache_only_body_is_empty() {
    // D6 (fixed): ttlMs/cacheScope are base keys, so a cache-only body is an empty result.
    assert!(matches!(
        server(json!({"ttlMs":0}), V2026_07_28),
        Ok(ServerResult::Empty(_))
    ));
}

#[test]
fn p11_to_p14_result_type_discrimination() {
    assert!(matches!(
        server(
            json!({"resultType":"complete","content":[{"type":"text","text":"done"}]}),
            V2026_07_28
        ),
        Ok(ServerResult::CallTool(_))
    ));
    let p12 = json!({"resultType":"input_required","content":[{"type":"text","text":"partial"}],"requestState":"opaque"});
    let Ok(ServerResult::InputRequired(irr)) = server(p12.clone(), V2026_07_28) else {
        panic!("P12")
    };
    assert_eq!(irr.request_state.as_deref(), Some("opaque"));
    // P13: below 2026-07-28, resultType does not route; the keys do.
    assert!(matches!(
        server(p12, V2025_11_25),
        Ok(ServerResult::CallTool(_))
    ));
    // P14 / D5 (fixed): resultType complete never becomes input-required.
    assert!(matches!(
        server(
            json!({"resultType":"complete","requestState":"s"}),
            V2026_07_28
        ),
        Ok(ServerResult::Empty(_))
    ));
}

#[test]
fn p15_unknown_content_tag() {
    for v in [V2025_11_25, V2026_07_28] {
        let e = server(
            json!({"resultType":"complete","content":[{"type":"carousel-deck","slides":["aGVsbG8="]}]}),
            v,
        )
        .unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::UnknownTag, "{e}");
        assert_eq!(e.path.pointer(), "/content/0");
        assert!(e.more.is_empty());
    }
}

#[test]
fn p16_p17_unknown_result_type() {
    let e = server(json!({"resultType":"finished"}), V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::ResultTypeInvalid);
    assert_eq!(e.path.pointer(), "/resultType");
    assert_eq!(e.code(), -32602);
    assert!(matches!(
        server(json!({"resultType":"finished"}), V2025_11_25),
        Ok(ServerResult::Empty(_))
    ));
    assert!(matches!(
        server(json!({"resultType":"finished"}), "2099-01-01"),
        Ok(ServerResult::Empty(_))
    ));
    // Concrete targets are checked too.
    let e = parse_as::<CallToolResult>(&json!({"content":[],"resultType":"task"}), V2026_07_28)
        .unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::ResultTypeInvalid);
}

fn client(json: Value, v: ProtocolVersion) -> Result<ClientResult, ParseError> {
    parse_as::<ClientResult>(&json, v)
}

#[test]
fn c1_to_c5_client_results() {
    let c1 = json!({"role":"assistant","content":{"type":"text","text":"sunny"},"model":"m"});
    assert!(matches!(
        client(c1, V2024_11_05),
        Ok(ClientResult::CreateMessage(_))
    ));
    // C2/C3: the superset has one CreateMessageResult whose content is one block or a list
    // (no separate result type for sampling with tools: that is a content shape here).
    let c2 = json!({"role":"assistant","model":"m","content":[
        {"type":"text","text":"x"},{"type":"tool_use","id":"call-1","name":"get_weather","input":{}}]});
    for v in [V2024_11_05, V2025_11_25, V2026_07_28] {
        assert!(matches!(
            client(c2.clone(), v),
            Ok(ClientResult::CreateMessage(_))
        ));
    }
    // C4: no input-required member in ClientResult: an empty result.
    assert!(matches!(
        client(json!({"resultType":"input_required"}), V2026_07_28),
        Ok(ClientResult::Empty(_))
    ));
    // C5: the best-ranked candidate's error.
    let e = client(
        json!({"role":"robot","content":{"type":"text","text":"x"},"model":"m"}),
        V2025_11_25,
    )
    .unwrap_err();
    assert_eq!(e.path.pointer(), "/role");
}

#[test]
fn m3_reserved_meta_on_client_requests() {
    let e = parse_as::<ClientRequest>(&json!({"method":"tools/list"}), V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingRequiredMeta);
    assert_eq!(e.code(), -32602);
    // Published 2026-07-28: protocolVersion and clientCapabilities are required; clientInfo is not.
    let pointers: Vec<_> = e.all().map(|e| e.path.pointer()).collect();
    assert_eq!(
        pointers,
        [
            "/params/_meta/io.modelcontextprotocol~1protocolVersion",
            "/params/_meta/io.modelcontextprotocol~1clientCapabilities"
        ]
    );
    let ok = json!({"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}});
    assert!(parse_as::<ClientRequest>(&ok, V2026_07_28).is_ok());
    // Below 2026-07-28 and for unknown versions: no mandate.
    assert!(parse_as::<ClientRequest>(&json!({"method":"tools/list"}), V2025_11_25).is_ok());
    assert!(parse_as::<ClientRequest>(&json!({"method":"tools/list"}), "2030-01-01").is_ok());
    // Notifications are exempt.
    assert!(
        parse_as::<ClientNotification>(
            &json!({"method":"notifications/cancelled","params":{"requestId":1}}),
            V2026_07_28
        )
        .is_ok()
    );
}

#[test]
fn d4_method_less_request_is_an_error() {
    let e = parse_as::<ClientRequest>(&json!({"params":{"name":"x"}}), V2025_11_25).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingMethod);
    assert_eq!(e.code(), -32600);
    let e = parse_as::<CallToolRequest>(&json!({"params":{"name":"x"}}), V2025_11_25).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingMethod);
    let e = parse_as::<ClientRequest>(&json!({"method":"tools/dance"}), V2025_11_25).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
    assert_eq!(e.code(), -32601);
}

#[test]
fn m2_embedded_input_requests_need_method() {
    let e = parse_as::<ServerResult>(
        &json!({"resultType":"input_required","inputRequests":{"elicit-1":{"params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}}}),
        V2026_07_28,
    )
    .unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingMethod);
    assert_eq!(e.path.pointer(), "/inputRequests/elicit-1/method");
}

#[test]
fn parse_result_for_routes_by_method() {
    let irr = json!({"resultType":"input_required","requestState":"s"});
    assert!(matches!(
        parse_result_for("tools/call", &irr, V2026_07_28).unwrap(),
        MethodResult::Server(ServerResult::InputRequired(_))
    ));
    // Not an input-required method: its own result type.
    assert!(parse_result_for("tools/list", &irr, V2026_07_28).is_err());
    assert!(matches!(
        parse_result_for("roots/list", &json!({"roots":[]}), V2025_06_18).unwrap(),
        MethodResult::Client(ClientResult::ListRoots(_))
    ));
    let e = parse_result_for("nope/nope", &json!({}), V2025_06_18).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
}

#[test]
fn parse_result_for_types_task_answers_by_the_request_and_its_augmentation() {
    let task = json!({"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z",
        "lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}});
    let augmented = |m| ResultFor::method(m).task_augmented(true);
    // A task-augmented request is answered by the task it created, on the side that answers.
    assert!(matches!(
        parse_result_for(augmented("tools/call"), &task, V2025_11_25).unwrap(),
        MethodResult::Server(ServerResult::CreateTask(_))
    ));
    for m in ["sampling/createMessage", "elicitation/create"] {
        assert!(matches!(
            parse_result_for(augmented(m), &task, V2025_11_25).unwrap(),
            MethodResult::Client(ClientResult::CreateTask(_))
        ));
    }
    // Not augmented, the method decides: a created task is no CallToolResult (no guessing).
    let e = parse_result_for("tools/call", &task, V2025_11_25).unwrap_err();
    assert!(e.message.contains("content"), "{e}");
    // An augmented request's own result is not a created task either.
    let call = json!({"content":[{"type":"text","text":"done"}]});
    assert!(parse_result_for(augmented("tools/call"), &call, V2025_11_25).is_err());
    // Where tasks do not exist (or the method cannot be augmented), augmentation means nothing.
    assert!(matches!(
        parse_result_for(augmented("tools/call"), &call, V2025_06_18).unwrap(),
        MethodResult::Server(ServerResult::CallTool(_))
    ));
    assert_eq!(
        augmented("tools/list").typing(V2025_11_25),
        ResultTyping::Method("tools/list")
    );
    // `tasks/result` is typed by the request that created the task.
    let payload = ResultFor::task_payload("tools/call");
    assert!(matches!(
        parse_result_for(payload, &call, V2025_11_25).unwrap(),
        MethodResult::Server(ServerResult::CallTool(_))
    ));
    assert!(parse_result_for(payload, &json!({}), V2025_11_25).is_err());
    let answer = json!({"action":"accept","content":{"ok":true}});
    assert!(matches!(
        parse_result_for(
            ResultFor::task_payload("elicitation/create"),
            &answer,
            V2025_11_25
        )
        .unwrap(),
        MethodResult::Client(ClientResult::Elicit(_))
    ));
    // Without the original request, the payload is the open GetTaskPayloadResult.
    assert!(matches!(
        parse_result_for("tasks/result", &call, V2025_11_25).unwrap(),
        MethodResult::Server(ServerResult::GetTaskPayload(_))
    ));
    // The text entry points type alike.
    let text = task.to_string();
    assert_eq!(
        parse_result_for(augmented("tools/call"), &text, V2025_11_25).unwrap(),
        parse_result_for(augmented("tools/call"), &task, V2025_11_25).unwrap()
    );
    assert_eq!(
        parse_result_for(payload, call.to_string().as_bytes(), V2025_11_25).unwrap(),
        parse_result_for(payload, &call, V2025_11_25).unwrap()
    );
}

#[test]
fn task_augmentation_exists_where_the_schema_gives_params_a_task() {
    let augmentable = |v: ProtocolVersion| -> Vec<&str> {
        [
            "tools/call",
            "sampling/createMessage",
            "elicitation/create",
            "tools/list",
            "prompts/get",
        ]
        .into_iter()
        .filter(|m| {
            matches!(
                ResultFor::method(m).task_augmented(true).typing(v),
                ResultTyping::CreatedTask(_)
            )
        })
        .collect()
    };
    assert_eq!(
        augmentable(V2025_11_25),
        ["tools/call", "sampling/createMessage", "elicitation/create"]
    );
    for v in [V2024_11_05, V2025_03_26, V2025_06_18, V2026_07_28] {
        assert!(augmentable(v).is_empty(), "{v}");
    }
}

#[test]
fn lenient_parse_ignores_unknown_fields() {
    let r = parse_as::<CallToolResult>(&json!({"content":[],"futureField":{"x":1}}), V2024_11_05)
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"content":[]})
            .as_object()
            .map(|_| serde_json::to_value(&r).unwrap())
            .unwrap()
    );
    assert!(
        serde_json::to_value(&r)
            .unwrap()
            .get("futureField")
            .is_none()
    );
    // Newer fields parse at older revisions.
    let r = parse_as::<ListToolsResult>(&json!({"tools":[],"ttlMs":5}), V2024_11_05).unwrap();
    assert_eq!(r.ttl_ms, Some(5));
}
