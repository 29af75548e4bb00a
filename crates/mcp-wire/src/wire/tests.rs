//! Engine tests on the superset model's bodies (`_meta` an open map, content internally
//! tagged); the ledger, type and union tables against the generated facts. An emission is
//! checked as a row: a name, the emission by every output ([`emitted`]) and the parts of its
//! [`outcome`] the row expects ([`expect`]).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::json::tests::{json_value, tricky_string};
use super::*;
use crate::ProtocolVersion::{self, *};
use crate::facts::{FieldFact, RevisionFacts, TypeKind, TypeRef};
use crate::model::{
    CacheScope, CallToolRequest, CallToolResult, CancelledNotification, ContentBlock,
    CreateMessageRequest, ElicitRequest, ElicitResult, EmptyResult, InitializeResult,
    InputRequiredResult, ListToolsRequest, ListToolsResult, Meta, ResultType,
};

/// An emission: the value and its report, or the refusal.
pub(super) type Emitted = Result<(Value, EmissionReport), EmitError>;

/// `b` emitted at `at` by every output, which must agree: the value, the report's value and the
/// text (appended to what the buffer held); or one refusal, with nothing written.
pub(super) fn emitted<B: WireBody + ?Sized>(b: &B, at: impl Into<EmitTarget>) -> Emitted {
    let at = at.into();
    let mut text = b"[".to_vec();
    let written = serialize_for_vec(b, at, &mut text);
    let (value, report) = (serialize_for(b, at), serialize_for_report(b, at));
    match (&value, &written, &report) {
        (Ok(v), Ok(()), Ok((r, _))) => {
            assert_eq!(v, r, "value and report at {at:?}");
            let text = String::from_utf8_lossy(&text[1..]);
            assert_eq!(text, serde_json::to_string(v).unwrap(), "text at {at:?}");
        }
        (Err(e), Err(w), Err(r)) => {
            assert!(e == w && e == r, "one refusal at {at:?}: {e} / {w} / {r}");
            assert_eq!(text, b"[", "nothing written on a refusal at {at:?}");
        }
        _ => panic!("outputs disagree at {at:?}: {value:?} / {written:?} / {report:?}"),
    }
    report
}

/// An emission as a value whose parts a row names: the `body`, the report's pointer lists, the
/// keys of the rows behind strips and rewrites (`stripped_by`, `rewritten_by`), the rewritten
/// values (`rewritten_as`), `plain` and `declared`; or the refusal's kind (`refused`), pointer
/// (`at`), `code`, `cause` and `message`.
pub(super) fn outcome(got: &Emitted) -> Value {
    let key = |c: &Cause| match c {
        Cause::Ledger(r) => format!("{}.{}", r.owner, r.field),
        Cause::Type(r) => r.name.to_owned(),
        Cause::Shaping(r) => r.id.to_owned(),
        Cause::Member(r) => r.member.to_owned(),
    };
    let keys = |l: &[ReportEntry]| l.iter().map(|e| key(&e.cause)).collect::<Vec<_>>();
    match got {
        Ok((body, r)) => json!({"body": body, "stripped": r.stripped_pointers(),
            "injected": r.injected_pointers(), "passed": r.passed_pointers(),
            "rewritten": r.rewritten_pointers(), "stripped_by": keys(&r.stripped),
            "rewritten_by": keys(&r.rewritten),
            "rewritten_as": r.rewritten.iter().map(|e| &e.value).collect::<Vec<_>>(),
            "plain": r.is_plain(), "declared": r.writes_only_declared()}),
        Err(e) => json!({"refused": format!("{:?}", e.kind), "at": e.path.pointer(),
            "code": e.code(), "cause": e.cause.as_ref().map(key), "message": e.message}),
    }
}

/// A parse as a value whose parts a row names: the `body` read (as serde writes it), or the
/// fault's `kind`, `code`, pointer (`at`) and `message`.
pub(super) fn parsed<T: serde::Serialize>(got: Result<T, ParseError>) -> Value {
    got.map_or_else(|e| fault(&e), |body| json!({"body": body}))
}

/// A typed result as [`parsed`] gives it, with its `typed` variant (see [`variant`]).
pub(super) fn typed(got: Result<MethodResult, ParseError>) -> Value {
    let variant = got.as_ref().map(variant).ok();
    let mut got = parsed(got);
    got["typed"] = json!(variant);
    got
}

/// A result's variant, as `Side::Variant` (`Server::CallTool`).
pub(super) fn variant(r: &MethodResult) -> String {
    let debug = format!("{r:?}");
    debug.split('(').take(2).collect::<Vec<_>>().join("::")
}

/// A parse's fault as a value (see [`parsed`]).
pub(super) fn fault(e: &ParseError) -> Value {
    json!({"kind": format!("{:?}", e.kind), "code": e.code(), "at": e.path.pointer(),
        "message": e.message})
}

/// Each row: a name, an emission, and the parts of its [`outcome`] it must have (see [`check`]).
#[track_caller]
pub(super) fn expect<N: std::fmt::Display>(rows: impl IntoIterator<Item = (N, Emitted, Value)>) {
    check(
        rows.into_iter()
            .map(|(name, got, want)| (name, outcome(&got), want)),
    );
}

/// Each row: a name, a value, and the parts it must have, compared as text so that member order
/// counts; `says` lists parts of its `message`.
#[track_caller]
pub(super) fn check<N: std::fmt::Display>(rows: impl IntoIterator<Item = (N, Value, Value)>) {
    for (name, got, want) in rows {
        for (part, w) in want.as_object().expect("a row wants an object") {
            if part == "says" {
                let message = got["message"].as_str().unwrap_or_default();
                for s in w.as_array().expect("says lists strings") {
                    let s = s.as_str().unwrap();
                    assert!(message.contains(s), "{name}: does not say {s}: {got}");
                }
            } else {
                let (g, w) = (got[part].to_string(), w.to_string());
                assert_eq!(g, w, "{name}: {part} of {got}");
            }
        }
    }
}

/// A body read from its JSON.
fn body<T: DeserializeOwned>(json: Value) -> T {
    serde_json::from_value(json).expect("a body")
}

/// The `_meta` of a 2026-07-28 request: the client's identity, then `more`.
fn identity(more: Value) -> Value {
    let mut meta: Map<String, Value> = body(json!({
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    }));
    meta.extend(body::<Map<String, Value>>(more));
    Value::Object(meta)
}

/// A `tools/list` request whose params hold only `meta` as `_meta`.
fn list_tools(meta: Value) -> ListToolsRequest {
    body(json!({"method": "tools/list", "params": {"_meta": meta}}))
}

/// Results: 2026-07-28's `resultType` and cache defaults injected (after the caller's keys; a
/// caller's own `resultType` stays where it stands, before `_meta`), valid caller values kept,
/// contradicting or empty ones refused (D10, D11), and the same members stripped below.
#[test]
fn results_get_the_2026_members_and_lose_them_below() {
    let hi = CallToolResult::new(vec![ContentBlock::text("hi")]);
    let k = CallToolResult::new(vec![]).with_meta(Meta(Map::from_iter([("k".into(), json!(1))])));
    let typed = k.clone().with_result_type(ResultType::Complete);
    let tool = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let tools: ListToolsResult = body(json!({"tools": tool}));
    let cached = ListToolsResult::new(vec![]).with_ttl_ms(60000);
    let cached = cached.with_cache_scope(CacheScope::Public);
    let input: InputRequiredResult =
        body(json!({"inputRequests": {"r1": {"method": "roots/list"}}, "requestState": "s1"}));
    let mut no_requests = InputRequiredResult::new();
    no_requests.input_requests = Some(Default::default());
    let contradicting = InputRequiredResult::new().with_request_state("x");
    let contradicting = contradicting.with_result_type(ResultType::Complete);
    let task = CallToolResult::new(vec![]).with_result_type(ResultType::Task);
    let empty = EmptyResult::default();
    #[rustfmt::skip]
    let rows = [
        ("e1 at 2024-11-05", emitted(&empty, V2024_11_05), json!({"body": {}})),
        ("e1 at 2025-11-25", emitted(&empty, V2025_11_25), json!({"body": {}})),
        ("e1 at 2026-07-28", emitted(&empty, V2026_07_28), json!({"body": {"resultType": "complete"}})),
        ("e2 at 2025-11-25", emitted(&hi, V2025_11_25), json!({"body": {"content": [{"type": "text", "text": "hi"}]}})),
        ("e2 is serde's text", emitted(&hi, V2025_11_25), json!({"body": serde_json::to_value(&hi).unwrap()})),
        ("e3 at 2026-07-28", emitted(&hi, V2026_07_28),
            json!({"body": {"content": [{"type": "text", "text": "hi"}], "resultType": "complete"}})),
        ("injected after _meta", emitted(&k, V2026_07_28),
            json!({"body": {"content": [], "_meta": {"k": 1}, "resultType": "complete"}})),
        ("the caller's below", emitted(&typed, V2025_11_25), json!({"body": {"content": [], "_meta": {"k": 1}}})),
        ("the caller's where it stands", emitted(&typed, V2026_07_28),
            json!({"body": {"content": [], "resultType": "complete", "_meta": {"k": 1}}})),
        ("e4 at 2025-11-25", emitted(&tools, V2025_11_25), json!({"body": {"tools": tool}})),
        ("e4 at 2026-07-28", emitted(&tools, V2026_07_28),
            json!({"body": {"tools": tool, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}})),
        ("e5 at 2025-11-25", emitted(&cached, V2025_11_25),
            json!({"body": {"tools": []}, "stripped": ["/ttlMs", "/cacheScope"]})),
        ("e5 at 2026-07-28", emitted(&cached, V2026_07_28),
            json!({"body": {"tools": [], "ttlMs": 60000, "cacheScope": "public", "resultType": "complete"}})),
        ("empty tools at 2026-07-28", emitted(&ListToolsResult::new(vec![]), V2026_07_28),
            json!({"body": {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}})),
        ("e7 at 2026-07-28", emitted(&input, V2026_07_28), json!({"body": {"inputRequests":
            {"r1": {"method": "roots/list"}}, "requestState": "s1", "resultType": "input_required"}})),
        // A result we cannot express is our own failure to answer, not a missing method.
        ("e7 at 2025-11-25", emitted(&input, V2025_11_25),
            json!({"refused": "TypeAbsent", "code": -32603, "says": ["InputRequiredResult"]})),
        // An empty inputRequests map counts as absent.
        ("d11", emitted(&no_requests, V2026_07_28), json!({"refused": "MissingRequired", "cause": "S5"})),
        ("d10", emitted(&contradicting, V2026_07_28), json!({"refused": "InvalidValue", "at": "/resultType"})),
        ("d10 task", emitted(&task, V2026_07_28), json!({"refused": "InvalidValue", "at": "/resultType"})),
    ];
    expect(rows);
}

/// Requests: at 2026-07-28 the protocol version injected into `_meta`, the identity required
/// (clientCapabilities; clientInfo is optional in the published schema) and the reserved keys
/// typed; roots' `listChanged` and tasks stripped from the capabilities there; `_meta`
/// verbatim below, where it is opaque metadata; members of other revisions stripped.
#[test]
fn requests_carry_the_meta_and_members_of_their_revision() {
    let pv = "io.modelcontextprotocol/protocolVersion";
    let caps = "io.modelcontextprotocol/clientCapabilities";
    #[rustfmt::skip]
    let (cursor, no_params, task, retry): (ListToolsRequest, ListToolsRequest, CallToolRequest, CallToolRequest) = (
        body(json!({"method": "tools/list", "params": {"_meta": identity(json!({})), "cursor": "c1"}})),
        body(json!({"method": "tools/list"})),
        body(json!({"method": "tools/call", "params": {"_meta": identity(json!({})), "name": "x", "task": {"ttl": 5}}})),
        body(json!({"method": "tools/call", "params": {"name": "retry-me", "inputResponses":
            {"r1": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}}}})),
    );
    let info = json!({"name": "c", "version": "1"});
    let no_caps = list_tools(json!({"io.modelcontextprotocol/clientInfo": info}));
    let no_info = list_tools(json!({caps: {}, pv: "caller-pinned"}));
    let loud = list_tools(identity(
        json!({"io.modelcontextprotocol/logLevel": "loud"}),
    ));
    let all = list_tools(identity(json!({caps: "all"})));
    let roots =
        json!({"roots": {"listChanged": true}, "tasks": {"list": {}}, "extensions": {"x": {}}});
    let roots = list_tools(identity(json!({caps: roots})));
    #[rustfmt::skip]
    let rows = [
        ("e8 at 2025-11-25", emitted(&cursor, V2025_11_25), json!({"body": serde_json::to_value(&cursor).unwrap()})),
        ("e8 at 2026-07-28", emitted(&cursor, V2026_07_28), json!({
            "body": {"method": "tools/list", "params": {"cursor": "c1", "_meta": identity(json!({pv: "2026-07-28"}))}},
            "injected": ["/params/_meta/io.modelcontextprotocol~1protocolVersion"]})),
        ("e8 without clientCapabilities", emitted(&no_caps, V2026_07_28), json!({"refused": "MissingRequired",
            "at": "/params/_meta/io.modelcontextprotocol~1clientCapabilities"})),
        ("e8 without params", emitted(&no_params, V2026_07_28), json!({"refused": "MissingRequired", "at": "/params"})),
        ("e8 without clientInfo", emitted(&no_info, V2026_07_28), json!({"body": {"method": "tools/list", "params":
            {"_meta": {caps: {}, pv: "caller-pinned"}}}})),
        ("a loud logLevel", emitted(&loud, V2026_07_28), json!({"refused": "InvalidValue"})),
        ("capabilities \"all\"", emitted(&all, V2026_07_28), json!({"refused": "InvalidValue"})),
        ("roots at 2026-07-28", emitted(&roots, V2026_07_28), json!({
            "body": {"method": "tools/list", "params": {"_meta": identity(json!({
                caps: {"roots": {}, "extensions": {"x": {}}}, pv: "2026-07-28"}))}},
            "stripped": ["/params/_meta/io.modelcontextprotocol~1clientCapabilities/roots/listChanged",
                "/params/_meta/io.modelcontextprotocol~1clientCapabilities/tasks"]})),
        ("roots at 2025-11-25", emitted(&roots, V2025_11_25), json!({"body": serde_json::to_value(&roots).unwrap()})),
        ("e9 at 2025-06-18", emitted(&task, V2025_06_18),
            json!({"body": {"method": "tools/call", "params": {"name": "x", "_meta": identity(json!({}))}}})),
        ("e9 at 2025-11-25", emitted(&task, V2025_11_25),
            json!({"body": {"method": "tools/call", "params": {"name": "x", "task": {"ttl": 5}, "_meta": identity(json!({}))}}})),
        ("e9 at 2026-07-28", emitted(&task, V2026_07_28), json!({"body": {"method": "tools/call",
            "params": {"name": "x", "_meta": identity(json!({pv: "2026-07-28"}))}}})),
        ("d9", emitted(&retry, V2025_11_25), json!({"body": {"method": "tools/call", "params": {"name": "retry-me"}},
            "stripped": ["/params/inputResponses"]})),
    ];
    expect(rows);
    // E10: requestId is required except at 2025-11-25.
    let cancelled = |params: Value| json!({"method": "notifications/cancelled", "params": params});
    let full: CancelledNotification =
        body(cancelled(json!({"requestId": "abc", "reason": "user"})));
    let bare: CancelledNotification = body(cancelled(json!({"reason": "user"})));
    #[rustfmt::skip]
    let rows = ProtocolVersion::ALL.into_iter().flat_map(|v| [
        (format!("e10 at {v}"), emitted(&full, v), json!({"body": cancelled(json!({"requestId": "abc", "reason": "user"}))})),
        (format!("e10 without requestId at {v}"), emitted(&bare, v), match v {
            V2025_11_25 => json!({"body": cancelled(json!({"reason": "user"}))}),
            _ => json!({"refused": "MissingRequired", "at": "/params/requestId"}),
        }),
    ]);
    expect(rows);
}

/// Members and types a revision lacks: stripped, passed (written as they are, and stripped
/// when strict) or refused, the same by every output.
#[test]
fn what_a_revision_lacks_is_stripped_passed_or_refused() {
    let server = json!({"name": "s", "version": "1"});
    let init_body =
        |caps| json!({"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": server});
    let caps = json!({"tools": {"listChanged": true}, "tasks": {"list": {}}, "extensions": {"io.x/y": {}}});
    let init: InitializeResult = body(init_body(caps.clone()));
    #[rustfmt::skip]
    let (null_answer, list_answer): (ElicitResult, ElicitResult) = (
        body(json!({"action": "accept", "content": {"x": null, "y": "ok"}})),
        body(json!({"action": "accept", "content": {"pick": ["a", "b"]}})),
    );
    let audio = ContentBlock::audio("AAAA", "audio/wav");
    let audio = CallToolResult::new(vec![ContentBlock::text("a"), audio]);
    let tool_use = json!({"type": "tool_use", "id": "call-1", "name": "get_weather", "input": {}});
    let sampling = json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": [{"type":"text","text":"hi"}, tool_use]}], "maxTokens": 10}});
    let create: CreateMessageRequest = body(sampling.clone());
    let structured = CallToolResult::new(vec![]).with_structured_content(json!(5));
    let strict = EmitOptions::new().strict(true);
    #[rustfmt::skip]
    let rows = [
        // E11: extension entries pass at handshake revisions (server variants live only there).
        ("e11 at 2025-11-25", emitted(&init, V2025_11_25), json!({"body": init_body(caps), "stripped": [], "passed": ["/capabilities/extensions"]})),
        ("e11 at 2025-06-18", emitted(&init, V2025_06_18), json!({"body": init_body(json!({"tools": {"listChanged": true},
            "extensions": {"io.x/y": {}}})), "stripped": ["/capabilities/tasks"], "stripped_by": ["ServerCapabilities.tasks"],
            "passed": ["/capabilities/extensions"]})),
        // A strict emission writes only what 2025-06-18 declares.
        ("e11 strict at 2025-06-18", emitted(&init, (V2025_06_18, strict)), json!({"body": init_body(json!({"tools":
            {"listChanged": true}})), "stripped": ["/capabilities/tasks", "/capabilities/extensions"]})),
        ("e11 at 2026-07-28", emitted(&init, V2026_07_28), json!({"refused": "TypeAbsent"})),
        // E13: deliberately not the literal translation (which emits the null): no revision's
        // schema admits a null answer, and an absent answer means the same.
        ("e13 at 2025-06-18", emitted(&null_answer, V2025_06_18),
            json!({"body": {"action": "accept", "content": {"y": "ok"}}, "stripped": ["/content/x"]})),
        ("e13 at 2025-11-25", emitted(&null_answer, V2025_11_25),
            json!({"body": {"action": "accept", "content": {"y": "ok"}}, "stripped": ["/content/x"]})),
        // Absent as a body at 2025-03-26 and (standalone) at 2026-07-28.
        ("e13 at 2025-03-26", emitted(&null_answer, V2025_03_26), json!({"refused": "TypeAbsent"})),
        ("e13 at 2026-07-28", emitted(&null_answer, V2026_07_28), json!({"refused": "TypeAbsent"})),
        // E17: a list-valued answer cannot be carried at 2025-06-18.
        ("e17 at 2025-06-18", emitted(&list_answer, V2025_06_18), json!({"refused": "NotExpressible", "at": "/content/pick"})),
        ("e17 at 2025-11-25", emitted(&list_answer, V2025_11_25),
            json!({"body": {"action": "accept", "content": {"pick": ["a", "b"]}}, "stripped": []})),
        ("audio at 2024-11-05", emitted(&audio, V2024_11_05),
            json!({"refused": "TypeAbsent", "at": "/content/1", "cause": "AudioContent"})),
        ("audio at 2025-03-26", emitted(&audio, V2025_03_26), json!({"body": serde_json::to_value(&audio).unwrap()})),
        ("tool use at 2025-06-18", emitted(&create, V2025_06_18),
            json!({"refused": "NotExpressible", "at": "/params/messages/0/content"})),
        ("tool use at 2025-11-25", emitted(&create, V2025_11_25), json!({"body": sampling})),
        // D13: a standalone server-to-client request does not exist at 2026-07-28.
        ("tool use at 2026-07-28", emitted(&create, V2026_07_28), json!({"refused": "TypeAbsent"})),
        // Written as plain serde writes it, but with a member 2024-11-05 does not declare.
        ("structured at 2024-11-05", emitted(&structured, V2024_11_05), json!({"body": {"content": [],
            "structuredContent": 5}, "passed": ["/structuredContent"], "plain": true, "declared": false})),
        ("structured strict at 2024-11-05", emitted(&structured, (V2024_11_05, strict)), json!({"body": {"content": []},
            "stripped": ["/structuredContent"], "passed": [], "plain": false, "declared": true})),
        // At a revision that declares it, strict changes nothing.
        ("structured at 2026-07-28", emitted(&structured, V2026_07_28),
            json!({"body": {"content": [], "structuredContent": 5, "resultType": "complete"}})),
        ("structured strict at 2026-07-28", emitted(&structured, (V2026_07_28, strict)),
            json!({"body": {"content": [], "structuredContent": 5, "resultType": "complete"}})),
    ];
    expect(rows);
}

proptest::proptest! {
    /// The text output writes strings, keys and numbers as `serde_json` writes the same
    /// emission's `Value` (see [`emitted`]): escapes included, in keys of open maps and in values.
    #[test]
    fn text_is_serde_json_text_of_the_value(s in tricky_string(), any in json_value()) {
        let meta = Map::from_iter([(s.clone(), json!([s, any.clone(), -1, u64::MAX, 0.5]))]);
        let r = CallToolResult::new(vec![ContentBlock::text(&s)])
            .with_meta(Meta(meta))
            .with_structured_content(Value::Object(Map::from_iter([(s.clone(), any)])));
        for v in ProtocolVersion::ALL {
            emitted(&r, v).unwrap();
        }
    }
}

/// The objects of revision `rev` with their fields: object definitions, aliases of one
/// (`EmptyResult = Result`), and the inline `params` objects of `XRequest`/`XNotification`,
/// named `XRequestParams`/`XNotificationParams` as 2025-11-25 names them.
fn objects(rev: &RevisionFacts) -> Vec<(String, &'static [FieldFact])> {
    let mut out = Vec::new();
    for t in rev.types {
        let fields = match (t.kind, t.target) {
            (TypeKind::Object, _) => t.fields,
            (TypeKind::Other, Some(TypeRef::Named(target))) => match rev.type_fact(target) {
                Some(o) if o.kind == TypeKind::Object => o.fields,
                _ => continue,
            },
            _ => continue,
        };
        out.push((t.name.to_owned(), fields));
        if let Some(p) = t.field("params")
            && let TypeRef::Object { fields: inner, .. } = p.ty
            && (t.name.ends_with("Request") || t.name.ends_with("Notification"))
        {
            out.push((format!("{}Params", t.name), inner));
        }
    }
    out
}

/// The ledger against the generated field tables.
mod completeness {
    use std::collections::BTreeMap;

    use crate::ProtocolVersion;
    use crate::facts;
    use crate::wire::ledger::{Action, LEDGER, TYPES};
    use crate::wire::revs::Revisions;

    /// Owner → field → revisions defining it, and owner → revisions defining the owner (see
    /// `objects`).
    type Fields = BTreeMap<String, BTreeMap<&'static str, Revisions>>;

    fn field_tables() -> (Fields, BTreeMap<String, Revisions>) {
        let (mut fields_by_owner, mut owners) = (Fields::new(), BTreeMap::new());
        for v in ProtocolVersion::ALL {
            for (owner, fields) in super::objects(facts::revision(v)) {
                let o = owners.entry(owner.clone()).or_insert(Revisions::NONE);
                *o = o.or(Revisions::only(v));
                let map = fields_by_owner.entry(owner).or_default();
                for f in fields {
                    let r = map.entry(f.name).or_insert(Revisions::NONE);
                    *r = r.or(Revisions::only(v));
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
        let missing = missing.join("\n  ");
        assert!(missing.is_empty(), "ledger rows missing for:\n  {missing}");
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
            let (owner, field) = (r.owner, r.field);
            assert!(fields.contains_key(owner), "{r}: no revision has {owner}");
            let Some(defined) = fields[owner].get(field) else {
                // A superset-only field (e.g. `resultType` on a result type that never had it):
                // it must be stripped wherever the owner exists.
                let stripped = r.action == Action::Strip && r.revisions.contains_all(owners[owner]);
                assert!(stripped, "{r}: no revision defines {owner}.{field}");
                continue;
            };
            // A strip or pass row applies where the field is not defined; a value row where it
            // exists (or, for `Absent`, is required).
            let value_row = matches!(r.action, Action::Refuse(_));
            for v in r.revisions.iter() {
                assert_eq!(defined.contains(v), value_row, "{r}: defined at {v}?");
            }
        }
    }
}

/// The type table against the generated facts.
mod type_table {
    use crate::ProtocolVersion;
    use crate::facts;
    use crate::wire::ledger::{TYPES, extension_only};

    /// Nested availability matches the schemas, body availability the method tables.
    #[test]
    fn availability_matches_the_schemas_and_method_tables() {
        for t in TYPES {
            for v in ProtocolVersion::ALL {
                // A type an extension adds exists at its extension revision.
                let defined = extension_only(t.name, v) || facts::revision(v).has_type(t.name);
                assert_eq!(t.nested.contains(v), defined, "{t} at {v}");
                if extension_only(t.name, v) {
                    assert!(t.body.contains(v), "{t}: its extension revision {v}");
                    continue;
                }
                let f = facts::revision(v);
                let requests = [f.client_requests, f.server_requests].concat();
                let methods = [
                    requests,
                    [f.client_notifications, f.server_notifications].concat(),
                ];
                let methods = methods.concat();
                let is_body = methods
                    .iter()
                    .any(|m| m.type_name == t.name || m.result == Some(t.name));
                // Results that answer a request in place of its table result: a task handle
                // (task-augmented requests) and the 2026-07-28 input-required interim result; and
                // EmptyResult, which 2026-07-28 defines though no core method of it returns one.
                let in_place = ["CreateTaskResult", "InputRequiredResult", "EmptyResult"];
                if in_place.contains(&t.name) || methods.is_empty() {
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
    use crate::wire::ledger::{MEMBERS, MemberAction, TYPES, extension_only};
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

    /// Every union site of every revision, with the superset names of its members when `same`
    /// (a member row `Same(name)` says which superset member a revision's differently named one
    /// is), or the revisions' own names.
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
            for t in rev.types.iter().filter(|t| t.kind == TypeKind::Union) {
                let members = members_of(rev, &TypeRef::Union(t.members));
                add(t.name.to_owned(), members.unwrap_or_default());
            }
            for (owner, fields) in super::objects(rev) {
                for f in fields {
                    if let Some(ms) = members_of(rev, &f.ty) {
                        add(format!("{owner}.{}", f.name), ms);
                    }
                }
            }
        }
        out
    }

    /// `(site, member, revisions of the site that lack it)` for every member some revision of
    /// its site lacks.
    fn differing() -> Vec<(String, &'static str, Revisions)> {
        let mut out = Vec::new();
        for (site, by_rev) in sites_named(true) {
            let all: BTreeSet<&'static str> = by_rev.values().flatten().copied().collect();
            for m in all {
                let lacking = by_rev.iter().filter(|(_, ms)| !ms.contains(m));
                let lacking = Revisions::from_iter(lacking.map(|(v, _)| *v));
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
            let lacking = lacking.iter().filter(|v| !extension_only(m, *v));
            let lacking = Revisions::from_iter(lacking);
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
        let missing = undecided.join("\n  ");
        assert!(missing.is_empty(), "member rows missing for:\n  {missing}");
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
        let differing = differing();
        let found: BTreeSet<&str> = differing.iter().map(|(s, _, _)| s.as_str()).collect();
        #[rustfmt::skip]
        let known = ["CallToolResult.content", "ClientNotification", "ClientRequest", "ClientResult",
            "CreateMessageResult.content", "PrimitiveSchemaDefinition", "PromptMessage.content",
            "SamplingMessage.content", "ServerNotification", "ServerRequest", "ServerResult"];
        assert_eq!(found, BTreeSet::from(known));
        // The nested schema union of issue 14: three 2025-11-25 members 2025-06-18 lacks.
        let psd = differing
            .iter()
            .filter(|(s, _, _)| s == "PrimitiveSchemaDefinition");
        let psd: Vec<&str> = psd.map(|(_, m, _)| *m).collect();
        #[rustfmt::skip]
        assert_eq!(psd, ["TitledMultiSelectEnumSchema", "TitledSingleSelectEnumSchema", "UntitledMultiSelectEnumSchema"]);
    }
}

/// Elicitation form members of 2025-11-25 at 2025-06-18: refused, rewritten or written as is,
/// the same by every output. 2026-07-28 has no elicitation request body.
#[test]
fn elicitation_members_are_refused_rewritten_or_kept_at_2025_06_18() {
    fn elicit(p: &Value) -> Value {
        json!({"method": "elicitation/create", "params": {"message": "m",
            "requestedSchema": {"type": "object", "properties": {"p": p}}}})
    }
    fn at(p: &Value, v: impl Into<EmitTarget>) -> Emitted {
        let r: ElicitRequest = parse_as(&elicit(p), V2025_11_25).expect("a 2025-11-25 elicitation");
        emitted(&r, v)
    }
    let titled = json!({"type": "string", "title": "Colour",
        "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}], "default": "r"});
    let strict_form = json!({"type": "string", "title": "Colour", "enum": ["r", "g"],
        "enumNames": ["Red", "Green"]});
    let mut written = strict_form.clone();
    written["default"] = json!("r");
    let untitled = json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}});
    let multi = json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}});
    let colliding =
        json!({"type": "string", "oneOf": [{"const": "r", "title": "Red"}], "enumNames": ["x"]});
    let known = [
        json!({"type": "string", "enum": ["a", "b"]}),
        json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
        json!({"type": "string", "minLength": 1}),
        json!({"type": "boolean", "default": true}),
    ];
    let p = "/params/requestedSchema/properties/p";
    let strict = (V2025_06_18, EmitOptions::new().strict(true));
    let refused = |member| {
        json!({"refused": "NotExpressible", "at": p, "cause": member,
        "says": [member, "arrived in 2025-11-25"]})
    };
    #[rustfmt::skip]
    let rows = [
        // 2025-06-18's EnumSchema has no default: passed, and stripped when strict.
        ("titled single at 2025-06-18", at(&titled, V2025_06_18), json!({"body": elicit(&written),
            "rewritten": [p], "rewritten_by": ["TitledSingleSelectEnumSchema"], "rewritten_as": [written],
            "plain": false, "passed": [format!("{p}/default")]})),
        ("titled single strict at 2025-06-18", at(&titled, strict),
            json!({"body": elicit(&strict_form), "stripped": [format!("{p}/default")]})),
        ("titled single at 2025-11-25", at(&titled, V2025_11_25), json!({"body": elicit(&titled), "rewritten": [], "plain": true})),
        // Extra keys that collide with the older form's own cannot be rewritten faithfully.
        ("a colliding rewrite", at(&colliding, V2025_06_18), json!({"refused": "NotExpressible", "says": ["as its EnumSchema"]})),
        ("untitled multi at 2025-06-18", at(&untitled, V2025_06_18), refused("UntitledMultiSelectEnumSchema")),
        ("untitled multi at 2025-11-25", at(&untitled, V2025_11_25), json!({"body": elicit(&untitled)})),
        ("titled multi at 2025-06-18", at(&multi, V2025_06_18), refused("TitledMultiSelectEnumSchema")),
        ("titled multi at 2025-11-25", at(&multi, V2025_11_25), json!({"body": elicit(&multi)})),
        // The shapes 2025-06-18 knows are written as they are.
        ("a plain enum", at(&known[0], V2025_06_18), json!({"body": elicit(&known[0]), "plain": true})),
        ("enumNames", at(&known[1], V2025_06_18), json!({"body": elicit(&known[1]), "plain": true})),
        ("a string", at(&known[2], V2025_06_18), json!({"body": elicit(&known[2]), "plain": true})),
        ("a boolean", at(&known[3], V2025_06_18), json!({"body": elicit(&known[3]), "plain": true})),
    ];
    expect(rows);
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
        let Some(members) = request.retry_members_mut() else {
            assert!(!retried, "{method}");
            continue;
        };
        assert!(retried, "{method}");
        assert_eq!(members.request_state.as_deref(), Some("s"), "{method}");
        *members.request_state = None;
        *members.input_responses = Some(crate::model::InputResponses::new());
        let params = &serde_json::to_value(&request).unwrap()["params"];
        assert!(params.get("requestState").is_none(), "{method}");
        assert_eq!(params["inputResponses"], json!({}), "{method}");
    }
}
