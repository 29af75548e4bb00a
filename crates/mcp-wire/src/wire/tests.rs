//! Engine tests on the superset model's bodies (`_meta` an open map, content internally
//! tagged); the ledger, type and union tables against the generated facts.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::json::tests::{json_value, tricky_string};
use super::*;
use crate::ProtocolVersion::{self, *};
use crate::model::{
    CacheScope, CallToolRequest, CallToolResult, CancelledNotification, ContentBlock,
    CreateMessageRequest, ElicitResult, EmptyResult, InitializeResult, InputRequiredResult,
    ListToolsRequest, ListToolsResult, Meta, ResultType,
};

fn text(t: &str) -> ContentBlock {
    ContentBlock::text(t)
}

/// The compact text output of `b` at `v`.
pub(super) fn text_of<B: WireBody + ?Sized>(
    b: &B,
    v: ProtocolVersion,
) -> Result<String, EmitError> {
    let mut out = Vec::new();
    serialize_for_vec(b, v, &mut out).map(|()| String::from_utf8(out).expect("UTF-8"))
}

fn emit<B: WireBody>(b: &B, v: ProtocolVersion) -> String {
    let value = serialize_for(b, v).unwrap();
    let text = text_of(b, v).unwrap();
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        text,
        "value and bytes agree"
    );
    text
}

/// A body read from its JSON.
fn body<T: DeserializeOwned>(json: Value) -> T {
    serde_json::from_value(json).expect("a body")
}

/// A `tools/list` request whose params hold only `meta` as `_meta`.
fn list_tools(meta: Map<String, Value>) -> ListToolsRequest {
    body(json!({"method": "tools/list", "params": {"_meta": meta}}))
}

fn identity() -> Map<String, Value> {
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
    let r = CallToolResult::new(vec![text("hi")]);
    assert_eq!(
        emit(&r, V2025_11_25),
        r#"{"content":[{"type":"text","text":"hi"}]}"#
    );
    assert_eq!(
        emit(&r, V2025_11_25),
        serde_json::to_string(&r).unwrap(),
        "byte identity"
    );
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}"#
    );
    // The caller's resultType stays where it stands (before `_meta`); an injected one comes
    // after the caller's keys.
    let meta = Meta(Map::from_iter([("k".to_owned(), json!(1))]));
    let r = CallToolResult::new(vec![]).with_meta(meta);
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"content":[],"_meta":{"k":1},"resultType":"complete"}"#
    );
    let r = r.with_result_type(ResultType::Complete);
    assert_eq!(emit(&r, V2025_11_25), r#"{"content":[],"_meta":{"k":1}}"#);
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"content":[],"resultType":"complete","_meta":{"k":1}}"#
    );
}

#[test]
fn e4_e5_cache_defaults() {
    let r: ListToolsResult = body(json!({"tools": [{"name":"t","inputSchema":{"type":"object"}}]}));
    assert_eq!(
        emit(&r, V2025_11_25),
        r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}"#
    );
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#
    );
    let r = ListToolsResult::new(vec![])
        .with_ttl_ms(60000)
        .with_cache_scope(CacheScope::Public);
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(v, json!({"tools":[]}));
    assert_eq!(report.stripped_pointers(), ["/ttlMs", "/cacheScope"]);
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"tools":[],"ttlMs":60000,"cacheScope":"public","resultType":"complete"}"#
    );
}

#[test]
fn e7_input_required_result() {
    let r: InputRequiredResult =
        body(json!({"inputRequests": {"r1": {"method": "roots/list"}}, "requestState": "s1"}));
    assert_eq!(
        emit(&r, V2026_07_28),
        r#"{"inputRequests":{"r1":{"method":"roots/list"}},"requestState":"s1","resultType":"input_required"}"#
    );
    let e = serialize_for(&r, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    // A result we cannot express is our own failure to answer, not a missing method.
    assert_eq!(e.code(), -32603);
    assert!(e.message.contains("InputRequiredResult"), "{e}");
}

#[test]
fn d10_d11_input_required_rules() {
    // D11: an empty inputRequests map counts as absent.
    let mut r = InputRequiredResult::new();
    r.input_requests = Some(Default::default());
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::MissingRequired);
    assert!(matches!(e.cause, Some(Cause::Shaping(r)) if r.id == "S5"));
    // D10: a contradicting caller resultType is refused, not emitted.
    let r = InputRequiredResult::new()
        .with_request_state("x")
        .with_result_type(ResultType::Complete);
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::InvalidValue);
    assert_eq!(e.path.pointer(), "/resultType");
    let r = CallToolResult::new(vec![]).with_result_type(ResultType::Task);
    assert_eq!(
        serialize_for(&r, V2026_07_28).unwrap_err().kind,
        EmitErrorKind::InvalidValue
    );
}

#[test]
fn e8_protocol_version_injected_and_identity_required() {
    let r: ListToolsRequest =
        body(json!({"method": "tools/list", "params": {"_meta": identity(), "cursor": "c1"}}));
    let plain = serde_json::to_string(&r).unwrap();
    assert_eq!(emit(&r, V2025_11_25), plain);
    let (v, report) = serialize_for_report(&r, V2026_07_28).unwrap();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"method":"tools/list","params":{"cursor":"c1","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
    );
    assert_eq!(
        report.injected_pointers(),
        ["/params/_meta/io.modelcontextprotocol~1protocolVersion"]
    );
    // Without clientCapabilities: refused (clientInfo alone is not enough).
    let mut meta = identity();
    meta.remove("io.modelcontextprotocol/clientCapabilities");
    let e = serialize_for(&list_tools(meta), V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::MissingRequired);
    assert_eq!(
        e.path.pointer(),
        "/params/_meta/io.modelcontextprotocol~1clientCapabilities"
    );
    // No params at all: refused too, with the path of what is missing.
    let r: ListToolsRequest = body(json!({"method": "tools/list"}));
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.path.pointer(), "/params");
    // clientInfo is optional in the published schema.
    let meta = json!({"io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/protocolVersion": "caller-pinned"});
    assert_eq!(
        emit(&list_tools(body(meta)), V2026_07_28),
        r#"{"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"caller-pinned"}}}"#
    );
}

#[test]
fn reserved_meta_values_are_typed() {
    for (key, value) in [
        ("logLevel", json!("loud")),
        ("clientCapabilities", json!("all")),
    ] {
        let mut meta = identity();
        meta.insert(format!("io.modelcontextprotocol/{key}"), value);
        let e = serialize_for(&list_tools(meta), V2026_07_28).unwrap_err();
        assert_eq!(e.kind, EmitErrorKind::InvalidValue, "{key}");
    }
}

#[test]
fn roots_list_changed_stripped_inside_meta_capabilities() {
    let mut meta = identity();
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        json!({"roots": {"listChanged": true}, "tasks": {"list": {}}, "extensions": {"x": {}}}),
    );
    let r = list_tools(meta);
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
    let r: CallToolRequest = body(json!({"method": "tools/call",
        "params": {"_meta": identity(), "name": "x", "task": {"ttl": 5}}}));
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
    let r: CallToolRequest = body(
        json!({"method": "tools/call", "params": {"name": "retry-me",
        "inputResponses": {"r1": {"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}}}),
    );
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(
        v,
        json!({"method":"tools/call","params":{"name":"retry-me"}})
    );
    assert_eq!(report.stripped_pointers(), ["/params/inputResponses"]);
}

#[test]
fn e10_cancelled_requires_request_id_where_the_revision_does() {
    let r: CancelledNotification = body(json!({"method": "notifications/cancelled",
        "params": {"requestId": "abc", "reason": "user"}}));
    for v in ProtocolVersion::ALL {
        assert_eq!(
            emit(&r, v),
            r#"{"method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}}"#
        );
    }
    let r: CancelledNotification =
        body(json!({"method": "notifications/cancelled", "params": {"reason": "user"}}));
    assert!(serialize_for(&r, V2025_11_25).is_ok());
    for v in [V2024_11_05, V2025_06_18, V2026_07_28] {
        let e = serialize_for(&r, v).unwrap_err();
        assert_eq!(e.kind, EmitErrorKind::MissingRequired);
        assert_eq!(e.path.pointer(), "/params/requestId");
    }
}

#[test]
fn e11_capability_extensions_and_tasks() {
    let r: InitializeResult = body(json!({"protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": true}, "tasks": {"list": {}}, "extensions": {"io.x/y": {}}},
        "serverInfo": {"name": "s", "version": "1"}}));
    // Extension entries pass at handshake revisions (server variants live only there).
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(
        v["capabilities"],
        json!({"tools":{"listChanged":true},"tasks":{"list":{}},"extensions":{"io.x/y":{}}})
    );
    assert!(report.stripped.is_empty());
    assert_eq!(report.passed_pointers(), ["/capabilities/extensions"]);
    let (v, report) = serialize_for_report(&r, V2025_06_18).unwrap();
    assert_eq!(
        v["capabilities"],
        json!({"tools":{"listChanged":true},"extensions":{"io.x/y":{}}})
    );
    assert_eq!(report.stripped_pointers(), ["/capabilities/tasks"]);
    assert_eq!(report.passed_pointers(), ["/capabilities/extensions"]);
    assert!(matches!(
        report.stripped[0].cause,
        Cause::Ledger(row) if row.owner == "ServerCapabilities" && row.field == "tasks"
    ));
    // A strict emission writes only what 2025-06-18 declares.
    let strict = EmitOptions::new().strict(true);
    let (v, report) = serialize_for_report(&r, (V2025_06_18, strict)).unwrap();
    assert_eq!(v["capabilities"], json!({"tools":{"listChanged":true}}));
    assert_eq!(
        report.stripped_pointers(),
        ["/capabilities/tasks", "/capabilities/extensions"]
    );
    let e = serialize_for(&r, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
}

#[test]
fn e13_e17_elicit_result() {
    let r: ElicitResult = body(json!({"action": "accept", "content": {"x": null, "y": "ok"}}));
    // Deliberately not the literal translation (which emits the null): no revision's schema
    // admits a null answer, and an absent answer means the same, so null answers are stripped.
    for v in [V2025_06_18, V2025_11_25] {
        let (value, report) = serialize_for_report(&r, v).unwrap();
        assert_eq!(value, json!({"action":"accept","content":{"y":"ok"}}));
        assert_eq!(report.stripped_pointers(), ["/content/x"]);
    }
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
    let r: ElicitResult = body(json!({"action": "accept", "content": {"pick": ["a", "b"]}}));
    let e = serialize_for(&r, V2025_06_18).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::NotExpressible);
    assert_eq!(e.path.pointer(), "/content/pick");
    let (v, report) = serialize_for_report(&r, V2025_11_25).unwrap();
    assert_eq!(v, json!({"action":"accept","content":{"pick":["a","b"]}}));
    assert!(report.stripped.is_empty());
}

#[test]
fn absent_union_members_are_refused() {
    let r = CallToolResult::new(vec![text("a"), ContentBlock::audio("AAAA", "audio/wav")]);
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
    let tool_use = json!({"type": "tool_use", "id": "call-1", "name": "get_weather", "input": {}});
    let r: CreateMessageRequest = body(json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": [{"type":"text","text":"hi"}, tool_use]}], "maxTokens": 10}}));
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
    let r = CallToolResult::new(vec![]).with_structured_content(json!(5));
    let (v, report) = serialize_for_report(&r, V2024_11_05).unwrap();
    assert_eq!(v, json!({"content":[],"structuredContent":5}));
    assert_eq!(report.passed_pointers(), ["/structuredContent"]);
    // Written as plain serde writes it, but with a member 2024-11-05 does not declare.
    assert!(report.is_plain());
    assert!(!report.writes_only_declared());
    // A strict emission strips it, and says so.
    let strict = EmitOptions::new().strict(true);
    let (v, report) = serialize_for_report(&r, (V2024_11_05, strict)).unwrap();
    assert_eq!(v, json!({"content":[]}));
    assert_eq!(report.stripped_pointers(), ["/structuredContent"]);
    assert!(report.passed.is_empty() && !report.is_plain() && report.writes_only_declared());
    assert_eq!(serialize_for(&r, (V2024_11_05, strict)).unwrap(), v);
    let mut bytes = Vec::new();
    serialize_for_vec(&r, (V2024_11_05, strict), &mut bytes).unwrap();
    assert_eq!(bytes, serde_json::to_vec(&v).unwrap());
    // At a revision that declares it, strict changes nothing.
    assert_eq!(
        serialize_for(&r, (V2026_07_28, strict)).unwrap(),
        serialize_for(&r, V2026_07_28).unwrap()
    );
}

#[test]
fn vec_appends_to_what_the_buffer_holds() {
    let r = ListToolsResult::new(vec![]);
    let mut out = b"[".to_vec();
    serialize_for_vec(&r, V2026_07_28, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"[{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#
    );
}

proptest::proptest! {
    /// The text output writes strings, keys and numbers as `serde_json` writes the same
    /// emission's `Value`: escapes included, in keys of open maps and in values.
    #[test]
    fn text_is_serde_json_text_of_the_value(s in tricky_string(), any in json_value()) {
        let meta = Map::from_iter([(s.clone(), json!([s, any.clone(), -1, u64::MAX, 0.5]))]);
        let r = CallToolResult::new(vec![text(&s)])
            .with_meta(Meta(meta))
            .with_structured_content(Value::Object(Map::from_iter([(s.clone(), any)])));
        for v in ProtocolVersion::ALL {
            let mut bytes = Vec::new();
            serialize_for_vec(&r, v, &mut bytes).unwrap();
            proptest::prop_assert_eq!(&bytes, &serde_json::to_vec(&serialize_for(&r, v).unwrap()).unwrap());
        }
    }
}

/// The ledger against the generated field tables.
mod completeness {
    use std::collections::BTreeMap;

    use crate::ProtocolVersion;
    use crate::facts::{self, TypeKind, TypeRef};
    use crate::wire::ledger::{Action, LEDGER, TYPES};
    use crate::wire::revs::Revisions;

    /// Owner → field → revisions defining it, and owner → revisions defining the owner.
    /// Inline `params` objects of `XRequest`/`XNotification` are named `XRequestParams` /
    /// `XNotificationParams`, the names 2025-11-25 gives them.
    type Fields = BTreeMap<&'static str, BTreeMap<&'static str, Revisions>>;

    fn field_tables() -> (Fields, BTreeMap<&'static str, Revisions>) {
        let mut fields_by_owner = Fields::new();
        let mut owners: BTreeMap<&'static str, Revisions> = BTreeMap::new();
        for v in ProtocolVersion::ALL {
            let only = Revisions::only(v);
            let rev = facts::revision(v);
            let mut add = |owner: &'static str, list: &'static [crate::facts::FieldFact]| {
                let o = owners.entry(owner).or_insert(Revisions::NONE);
                *o = o.or(only);
                let map = fields_by_owner.entry(owner).or_default();
                for f in list {
                    let r = map.entry(f.name).or_insert(Revisions::NONE);
                    *r = r.or(only);
                }
            };
            for t in rev.types {
                // An alias of an object definition (`EmptyResult = Result`) has its fields.
                let fields = match (t.kind, t.target) {
                    (TypeKind::Object, _) => t.fields,
                    (TypeKind::Other, Some(TypeRef::Named(target))) => {
                        match rev.type_fact(target) {
                            Some(o) if o.kind == TypeKind::Object => o.fields,
                            _ => continue,
                        }
                    }
                    _ => continue,
                };
                add(t.name, fields);
                if let Some(p) = t.field("params")
                    && let TypeRef::Object { fields: inner, .. } = p.ty
                    && (t.name.ends_with("Request") || t.name.ends_with("Notification"))
                {
                    let name: &'static str =
                        Box::leak(format!("{}Params", t.name).into_boxed_str());
                    add(name, inner);
                }
            }
        }
        (fields_by_owner, owners)
    }

    /// Envelope members folded into request/notification definitions from 2025-11-25 on:
    /// bodies never carry them (the session layer adds them).
    fn is_envelope_member(owner: &str, field: &str) -> bool {
        (field == "jsonrpc" || field == "id")
            && (owner.ends_with("Request") || owner.ends_with("Notification"))
    }

    #[test]
    fn every_field_some_revision_lacks_has_a_ledger_row() {
        let (fields, owners) = field_tables();
        let mut missing = Vec::new();
        for (owner, map) in &fields {
            let owner_revs = owners[owner];
            for (field, defined) in map {
                let lacking =
                    Revisions::from_iter(owner_revs.iter().filter(|v| !defined.contains(*v)));
                if lacking.is_empty() || is_envelope_member(owner, field) {
                    continue;
                }
                let covered = LEDGER.iter().any(|r| {
                    r.owner == *owner && r.field == *field && r.revisions.contains_all(lacking)
                });
                // A type absent as a body and as a member at the lacking revisions needs no row.
                let type_absent = TYPES.iter().any(|t| {
                    t.name == *owner && t.nested.or(t.body).complement().contains_all(lacking)
                });
                if !covered && !type_absent {
                    missing.push(format!("{owner}.{field} (lacking at {lacking})"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "ledger rows missing for:\n  {}",
            missing.join("\n  ")
        );
    }

    /// Superset owners that no schema revision names (inline objects there).
    const SUPERSET_OWNERS: &[&str] = &["RootsCapability"];

    #[test]
    fn every_ledger_row_names_a_real_field() {
        let (fields, owners) = field_tables();
        for r in LEDGER {
            if SUPERSET_OWNERS.contains(&r.owner) {
                continue;
            }
            assert!(
                fields.contains_key(r.owner),
                "{r}: no revision defines {}",
                r.owner
            );
            let Some(defined) = fields[r.owner].get(r.field) else {
                // A superset-only field (e.g. `resultType` on a result type that never had it):
                // it must be stripped everywhere.
                assert!(
                    r.action == Action::Strip && r.revisions.contains_all(owners[r.owner]),
                    "{r}: no revision defines {}.{}, so it must be stripped wherever the owner exists",
                    r.owner,
                    r.field
                );
                continue;
            };
            match r.action {
                // A strip or pass row applies where the field is not defined.
                Action::Strip | Action::Pass => {
                    for v in r.revisions.iter() {
                        assert!(!defined.contains(v), "{r}: {v} defines the field");
                    }
                }
                // Value rows apply where the field exists (or, for `Absent`, is required).
                Action::Refuse(_) => {
                    for v in r.revisions.iter() {
                        assert!(defined.contains(v), "{r}: {v} does not define the field");
                    }
                }
            }
        }
    }
}

/// The type table against the generated facts.
mod type_table {
    use crate::ProtocolVersion;
    use crate::facts;
    use crate::wire::ledger::{TYPES, extension_only};

    #[test]
    fn nested_availability_matches_the_schemas() {
        for t in TYPES {
            for v in ProtocolVersion::ALL {
                if extension_only(t.name, v) {
                    assert!(t.nested.contains(v), "{t}: its extension revision {v}");
                    continue;
                }
                assert_eq!(
                    t.nested.contains(v),
                    facts::revision(v).has_type(t.name),
                    "{t} at {v}"
                );
            }
        }
    }

    #[test]
    fn body_availability_matches_the_method_tables() {
        for t in TYPES {
            for v in ProtocolVersion::ALL {
                if extension_only(t.name, v) {
                    assert!(t.body.contains(v), "{t}: its extension revision {v}");
                    continue;
                }
                let f = facts::revision(v);
                let tables = f
                    .client_requests
                    .iter()
                    .chain(f.server_requests)
                    .chain(f.client_notifications)
                    .chain(f.server_notifications);
                let mut is_body = false;
                let mut is_member = false;
                for m in tables {
                    is_body |= m.type_name == t.name || m.result == Some(t.name);
                    is_member = true;
                }
                // Results that answer a request in place of its table result: a task handle
                // (task-augmented requests) and the 2026-07-28 input-required interim result; and
                // EmptyResult, which 2026-07-28 defines though no core method of it returns one.
                if ["CreateTaskResult", "InputRequiredResult", "EmptyResult"].contains(&t.name)
                    || !is_member
                {
                    continue;
                }
                // Results of methods and messages of the tables are bodies; the rest of TYPES are
                // union members (content blocks, elicitation shapes) that are never bodies.
                if t.body.is_empty() {
                    assert!(!is_body, "{t}: a body at {v}");
                } else {
                    assert_eq!(t.body.contains(v), is_body, "{t} at {v}");
                }
            }
        }
    }
}

/// The member ledger against the generated facts: every union whose member set differs between
/// revisions is decided, member by member.
mod union_members {
    use std::collections::{BTreeMap, BTreeSet};

    use crate::ProtocolVersion;
    use crate::facts::{self, TypeKind, TypeRef};
    use crate::wire::ledger::{MEMBERS, MemberAction, TYPES};
    use crate::wire::revs::Revisions;

    /// Site (a union definition, or `Owner.field` typed as a union) → revision → member names.
    type Sites = BTreeMap<String, BTreeMap<ProtocolVersion, BTreeSet<&'static str>>>;

    /// The named members of a union type (through arrays and maps), or `None` if `t` is not one.
    fn members_of(rev: &facts::RevisionFacts, t: &TypeRef) -> Option<BTreeSet<&'static str>> {
        let named = |ms: &[TypeRef]| {
            ms.iter()
                .filter_map(|m| match m {
                    TypeRef::Named(n) => Some(*n),
                    _ => None,
                })
                .collect::<BTreeSet<_>>()
        };
        match t {
            TypeRef::Array(item) | TypeRef::Map(item) => members_of(rev, item),
            TypeRef::Union(ms) => Some(named(ms)),
            TypeRef::Named(n) => rev
                .type_fact(n)
                .filter(|u| u.kind == TypeKind::Union)
                .map(|u| named(u.members)),
            _ => None,
        }
    }

    /// Every union site of every revision, with the superset names of its members (a member
    /// row `Same(name)` says which superset member a revision's differently named one is).
    pub(super) fn sites() -> Sites {
        sites_named(true)
    }

    /// [`sites`], with the revisions' own member names when `!same`.
    fn sites_named(same: bool) -> Sites {
        let mut out = Sites::new();
        for v in ProtocolVersion::ALL {
            let rev = facts::revision(v);
            let mut add = |site: String, members: BTreeSet<&'static str>| {
                let members = members
                    .into_iter()
                    .flat_map(|m| {
                        let renamed: Vec<&'static str> = MEMBERS
                            .iter()
                            .filter(|r| {
                                same && r.union == site
                                    && r.revisions.contains(v)
                                    && r.action == MemberAction::Same(m)
                            })
                            .map(|r| r.member)
                            .collect();
                        if renamed.is_empty() { vec![m] } else { renamed }
                    })
                    .collect();
                out.entry(site).or_default().insert(v, members);
            };
            for t in rev.types {
                match t.kind {
                    TypeKind::Union => add(
                        t.name.to_owned(),
                        members_of(rev, &TypeRef::Union(t.members)).unwrap_or_default(),
                    ),
                    TypeKind::Object => {
                        for f in t.fields {
                            if let Some(ms) = members_of(rev, &f.ty) {
                                add(format!("{}.{}", t.name, f.name), ms);
                            }
                            // Inline params objects, named as 2025-11-25 names them.
                            if f.name == "params"
                                && let TypeRef::Object { fields, .. } = f.ty
                            {
                                for p in fields.iter() {
                                    if let Some(ms) = members_of(rev, &p.ty) {
                                        add(format!("{}Params.{}", t.name, p.name), ms);
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// `(site, member, revisions of the site that lack it)` for every member some revision of
    /// its site lacks.
    pub(super) fn differing() -> Vec<(String, &'static str, Revisions)> {
        let mut out = Vec::new();
        for (site, by_rev) in sites() {
            let all: BTreeSet<&'static str> = by_rev.values().flatten().copied().collect();
            for m in all {
                let lacking = Revisions::from_iter(
                    by_rev
                        .iter()
                        .filter(|(_, ms)| !ms.contains(m))
                        .map(|(v, _)| *v),
                );
                if !lacking.is_empty() {
                    out.push((site.clone(), m, lacking));
                }
            }
        }
        out
    }

    #[test]
    fn every_union_member_some_revision_lacks_is_decided() {
        let mut undecided = Vec::new();
        for (site, m, lacking) in differing() {
            // Where an extension adds the member (its EXTENSION_TYPES row), it is decided.
            let lacking = Revisions::from_iter(
                lacking
                    .iter()
                    .filter(|v| !crate::wire::ledger::extension_only(m, *v)),
            );
            let row = MEMBERS
                .iter()
                .any(|r| r.union == site && r.member == m && r.revisions.contains_all(lacking));
            // A member whose type does not exist at the lacking revisions is refused there by its
            // type row, wherever it appears.
            let absent = TYPES
                .iter()
                .any(|t| t.name == m && !t.nested.contains_any(lacking));
            if !row && !absent {
                undecided.push(format!("{m} in {site} (lacking at {lacking})"));
            }
        }
        assert!(
            undecided.is_empty(),
            "member rows missing for:\n  {}",
            undecided.join("\n  ")
        );
    }

    #[test]
    fn every_member_row_names_a_member_its_union_lacks() {
        let raw = sites_named(false);
        for r in MEMBERS {
            let by_rev = raw
                .get(r.union)
                .unwrap_or_else(|| panic!("{r}: no revision has the union {}", r.union));
            for v in r.revisions.iter() {
                let members = by_rev
                    .get(&v)
                    .unwrap_or_else(|| panic!("{r}: {v} has no {}", r.union));
                assert!(!members.contains(r.member), "{r}: {v} lists the member");
                if let MemberAction::Same(name) = r.action {
                    assert!(members.contains(name), "{r}: {v} has no {name}");
                }
            }
            // A refused or rewritten member names the revision it arrived in.
            if !matches!(r.action, MemberAction::Same(_)) {
                let arrived = r.arrived().expect("the member arrived somewhere");
                assert!(!r.revisions.contains(arrived), "{r}");
            }
        }
    }

    /// The unions found: a new one (a regenerated schema) must be looked at, not slip through.
    #[test]
    fn the_differing_unions_are_the_known_ones() {
        let found: BTreeSet<String> = differing().into_iter().map(|(s, _, _)| s).collect();
        let known = [
            "CallToolResult.content",
            "ClientNotification",
            "ClientRequest",
            "ClientResult",
            "CreateMessageResult.content",
            "PrimitiveSchemaDefinition",
            "PromptMessage.content",
            "SamplingMessage.content",
            "ServerNotification",
            "ServerRequest",
            "ServerResult",
        ];
        assert_eq!(
            found,
            known.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()
        );
        // The nested schema union of issue 14: three 2025-11-25 members 2025-06-18 lacks.
        let psd: Vec<&str> = differing()
            .into_iter()
            .filter(|(s, _, _)| s == "PrimitiveSchemaDefinition")
            .map(|(_, m, _)| m)
            .collect();
        assert_eq!(
            psd,
            [
                "TitledMultiSelectEnumSchema",
                "TitledSingleSelectEnumSchema",
                "UntitledMultiSelectEnumSchema"
            ]
        );
    }
}

/// Elicitation form members of 2025-11-25 at 2025-06-18: refused, rewritten or written as is,
/// the same by every output.
mod elicitation_members {
    use serde_json::{Value, json};

    use super::super::*;
    use crate::ProtocolVersion::{self, *};
    use crate::model::ElicitRequest;

    fn request(property: Value) -> ElicitRequest {
        let body = json!({
            "method": "elicitation/create",
            "params": {
                "message": "m",
                "requestedSchema": {"type": "object", "properties": {"p": property}}
            }
        });
        parse_as::<ElicitRequest>(&body, V2025_11_25).expect("a 2025-11-25 elicitation")
    }

    /// The property as written at `v` by every output, which must agree.
    fn emitted(
        r: &ElicitRequest,
        v: ProtocolVersion,
    ) -> Result<(Value, EmissionReport), EmitError> {
        let value = serialize_for(r, v);
        let mut bytes = Vec::new();
        let text = serialize_for_vec(r, v, &mut bytes).map(|()| bytes);
        let report = serialize_for_report(r, v);
        match (&value, &text, &report) {
            (Ok(a), Ok(b), Ok((c, _))) => {
                assert_eq!(a, c);
                assert_eq!(serde_json::from_slice::<Value>(b).unwrap(), *a);
                assert_eq!(*b, serde_json::to_vec(a).unwrap());
            }
            (Err(a), Err(b), Err(c)) => {
                assert_eq!((a.kind, &a.message), (b.kind, &b.message));
                assert_eq!((a.kind, &a.message), (c.kind, &c.message));
            }
            _ => panic!("outputs disagree at {v}: {value:?} / {text:?} / {report:?}"),
        }
        report
    }

    fn property(v: &Value) -> &Value {
        &v["params"]["requestedSchema"]["properties"]["p"]
    }

    #[test]
    fn a_titled_single_select_is_written_with_enum_names_at_2025_06_18() {
        let titled = json!({
            "type": "string", "title": "Colour",
            "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
            "default": "r"
        });
        let r = request(titled.clone());
        let (v, report) = emitted(&r, V2025_06_18).unwrap();
        assert_eq!(
            property(&v),
            &json!({"type": "string", "title": "Colour", "enum": ["r", "g"],
                    "enumNames": ["Red", "Green"], "default": "r"})
        );
        assert_eq!(
            report.rewritten_pointers(),
            ["/params/requestedSchema/properties/p"]
        );
        assert!(matches!(
            report.rewritten[0].cause,
            Cause::Member(row) if row.member == "TitledSingleSelectEnumSchema"
        ));
        assert_eq!(report.rewritten[0].value.as_ref(), Some(property(&v)));
        assert!(!report.is_plain());
        // 2025-06-18's EnumSchema has no default: passed, and stripped when strict.
        assert_eq!(
            report.passed_pointers(),
            ["/params/requestedSchema/properties/p/default"]
        );
        let strict = EmitOptions::new().strict(true);
        let (s, sr) = serialize_for_report(&r, (V2025_06_18, strict)).unwrap();
        assert!(property(&s).get("default").is_none());
        assert_eq!(
            sr.stripped_pointers(),
            ["/params/requestedSchema/properties/p/default"]
        );
        // Where it exists it is written as it is (2026-07-28 has no elicitation request body).
        let (out, report) = emitted(&r, V2025_11_25).unwrap();
        assert_eq!(property(&out), &titled);
        assert!(report.rewritten.is_empty() && report.is_plain());
    }

    #[test]
    fn multi_selects_are_refused_at_2025_06_18_naming_the_member_and_its_revision() {
        for (member, p) in [
            (
                "UntitledMultiSelectEnumSchema",
                json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}),
            ),
            (
                "TitledMultiSelectEnumSchema",
                json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
            ),
        ] {
            let r = request(p.clone());
            let e = emitted(&r, V2025_06_18).unwrap_err();
            assert_eq!(e.kind, EmitErrorKind::NotExpressible, "{member}");
            assert!(e.message.contains(member), "{}", e.message);
            assert!(e.message.contains("arrived in 2025-11-25"), "{}", e.message);
            assert!(matches!(e.cause, Some(Cause::Member(row)) if row.member == member));
            assert_eq!(e.path.pointer(), "/params/requestedSchema/properties/p");
            assert_eq!(
                property(&emitted(&r, V2025_11_25).unwrap().0),
                &p,
                "{member}"
            );
        }
    }

    #[test]
    fn the_shapes_2025_06_18_knows_are_written_as_they_are() {
        for p in [
            json!({"type": "string", "enum": ["a", "b"]}),
            json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
            json!({"type": "string", "minLength": 1}),
            json!({"type": "boolean", "default": true}),
        ] {
            let r = request(p.clone());
            let (v, report) = emitted(&r, V2025_06_18).unwrap();
            assert_eq!(property(&v), &p);
            assert!(report.is_plain(), "{p}: {report}");
        }
    }

    #[test]
    fn a_rewrite_that_would_lose_meaning_is_refused() {
        // Extra keys that collide with the older form's own cannot be rewritten faithfully.
        let r = request(json!({
            "type": "string", "oneOf": [{"const": "r", "title": "Red"}], "enumNames": ["x"]
        }));
        let e = emitted(&r, V2025_06_18).unwrap_err();
        assert_eq!(e.kind, EmitErrorKind::NotExpressible);
        assert!(e.message.contains("as its EnumSchema"), "{}", e.message);
    }
}

/// The model's retry members (`ClientRequest::retry_members_mut`) are those of the methods the
/// boundary lets answer `input_required`.
#[test]
fn retry_members_are_those_of_the_input_required_methods() {
    let requests = [
        json!({"method": "tools/call", "params": {"name": "t", "requestState": "s"}}),
        json!({"method": "prompts/get", "params": {"name": "p", "requestState": "s"}}),
        json!({"method": "resources/read", "params": {"uri": "file:///a", "requestState": "s"}}),
        json!({"method": "tools/list"}),
        json!({"method": "ping"}),
        json!({"method": "resources/subscribe", "params": {"uri": "file:///a"}}),
    ];
    for value in requests {
        let method = value["method"].as_str().unwrap().to_owned();
        let mut request: crate::model::ClientRequest = serde_json::from_value(value).unwrap();
        let retried = INPUT_REQUIRED_METHODS.contains(&method.as_str());
        match request.retry_members_mut() {
            Some(members) => {
                assert!(retried, "{method}");
                assert_eq!(members.request_state.as_deref(), Some("s"), "{method}");
                *members.request_state = None;
                *members.input_responses = Some(crate::model::InputResponses::new());
            }
            None => assert!(!retried, "{method}"),
        }
        if retried {
            let params = serde_json::to_value(&request).unwrap()["params"].clone();
            assert!(params.get("requestState").is_none(), "{method}");
            assert_eq!(params["inputResponses"], json!({}), "{method}");
        }
    }
}
