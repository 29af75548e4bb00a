//! `parse_as` and `parse_result_for` on text and bytes give exactly what they give on the same
//! JSON as a `Value`:
//! the same `Ok` value, or the same error (kind, JSON path, JSON-RPC code, message).
//!
//! Inputs: every body of the real-peer corpus and of the 2026-07-28 examples, read at each of
//! the five revisions, as sent and mutated so that every branch of the text path runs: keys in
//! reverse order at every depth (tags last: the buffered replay), the whole JSON-RPC frame
//! (`jsonrpc`/`id` before `method`), missing reserved `_meta` keys (the typed 2026-07-28
//! mandate), bad and input-required `resultType`s, unknown nested tags, wrong types, duplicate
//! keys (the text path's last-wins fallback), and text that is not JSON.

use std::collections::HashMap;

use mcp_wire::ProtocolVersion;
use mcp_wire::model::*;
use mcp_wire::wire::*;
use serde_json::{Value, json};

/// What a body is read as.
#[derive(Clone, Copy, Debug)]
enum Kind {
    ClientRequest,
    ServerRequest,
    ClientNotification,
    ServerNotification,
    Result(&'static str),
}

/// One comparison; counts how many inputs parsed and how many were refused.
#[derive(Default)]
struct Tally {
    ok: usize,
    err: usize,
    kinds: HashMap<String, usize>,
}

impl Tally {
    fn record<T: PartialEq + std::fmt::Debug>(
        &mut self,
        label: &str,
        by_value: Result<T, ParseError>,
        by_text: Result<T, ParseError>,
    ) {
        assert_eq!(by_text, by_value, "{label}: the text path differs");
        match by_value {
            Ok(_) => self.ok += 1,
            Err(e) => {
                self.err += 1;
                *self.kinds.entry(format!("{:?}", e.kind)).or_default() += 1;
                assert_eq!(by_text.unwrap_err().code(), e.code(), "{label}");
            }
        }
    }
}

/// The request body type named by `method`, parsed both ways.
fn concrete_request(tally: &mut Tally, label: &str, value: &Value, text: &str, v: ProtocolVersion) {
    macro_rules! both {
        ($($ty:ident),*) => {
            match value.get("method").and_then(Value::as_str) {
                $(Some(<$ty as Request>::METHOD) => tally.record(
                    label,
                    parse_as::<$ty>(value, v),
                    parse_as::<$ty>(text, v),
                ),)*
                _ => {}
            }
        };
    }
    both!(
        PingRequest,
        InitializeRequest,
        CompleteRequest,
        SetLevelRequest,
        GetPromptRequest,
        ListPromptsRequest,
        ListResourcesRequest,
        ListResourceTemplatesRequest,
        ReadResourceRequest,
        SubscribeRequest,
        UnsubscribeRequest,
        CallToolRequest,
        ListToolsRequest,
        DiscoverRequest,
        SubscriptionsListenRequest,
        GetTaskRequest,
        GetTaskPayloadRequest,
        ListTasksRequest,
        CancelTaskRequest,
        CreateMessageRequest,
        ListRootsRequest,
        ElicitRequest
    );
}

/// Compares both paths for one JSON input (given as a value and as its text).
fn compare(tally: &mut Tally, kind: Kind, label: &str, value: &Value, text: &str) {
    for v in ProtocolVersion::ALL {
        let label = format!("{label} at {v}");
        let bytes = text.as_bytes();
        match kind {
            Kind::ClientRequest => {
                tally.record(
                    &label,
                    parse_as::<ClientRequest>(value, v),
                    parse_as(text, v),
                );
                tally.record(
                    &label,
                    parse_as::<ClientRequest>(value, v),
                    parse_as(bytes, v),
                );
                concrete_request(tally, &label, value, text, v);
            }
            Kind::ServerRequest => {
                tally.record(
                    &label,
                    parse_as::<ServerRequest>(value, v),
                    parse_as(text, v),
                );
                concrete_request(tally, &label, value, text, v);
            }
            Kind::ClientNotification => tally.record(
                &label,
                parse_as::<ClientNotification>(value, v),
                parse_as(bytes, v),
            ),
            Kind::ServerNotification => tally.record(
                &label,
                parse_as::<ServerNotification>(value, v),
                parse_as(text, v),
            ),
            Kind::Result(method) => {
                tally.record(
                    &label,
                    parse_result_for(method, value, v),
                    parse_result_for(method, text, v),
                );
                tally.record(
                    &label,
                    parse_result_for(method, value, v),
                    parse_result_for(method, bytes, v),
                );
                tally.record(
                    &label,
                    parse_as::<ServerResult>(value, v),
                    parse_as(text, v),
                );
                tally.record(
                    &label,
                    parse_as::<ClientResult>(value, v),
                    parse_as(text, v),
                );
            }
        }
    }
}

/// `value` with the keys of every object in reverse order.
fn reversed(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reversed(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// `value` with the first nested `type` discriminator (depth first) set to `tag`.
fn retag_first_type(value: &Value, tag: &str) -> Option<Value> {
    fn walk(v: &mut Value, tag: &str) -> bool {
        match v {
            Value::Object(m) => {
                if let Some(t) = m.get_mut("type")
                    && t.is_string()
                {
                    *t = json!(tag);
                    return true;
                }
                m.values_mut().any(|c| walk(c, tag))
            }
            Value::Array(a) => a.iter_mut().any(|c| walk(c, tag)),
            _ => false,
        }
    }
    let mut out = value.clone();
    walk(&mut out, tag).then_some(out)
}

/// The text of an object with its first entry repeated at the end (a duplicate key; a `Value`
/// keeps the last one).
fn with_duplicate_first(value: &Value, replacement: Value) -> Option<String> {
    let m = value.as_object()?;
    let (k, _) = m.iter().next()?;
    let text = serde_json::to_string(value).unwrap();
    let body = text.strip_suffix('}')?;
    Some(format!(
        "{body},{}:{}}}",
        serde_json::to_string(k).unwrap(),
        replacement
    ))
}

fn set(value: &Value, key: &str, to: Value) -> Value {
    let mut out = value.clone();
    if let Some(m) = out.as_object_mut() {
        m.insert(key.to_owned(), to);
    }
    out
}

/// Every input derived from one body, compared both ways.
fn run_body(tally: &mut Tally, kind: Kind, label: &str, body: &Value, frame: Option<&Value>) {
    let text = |v: &Value| serde_json::to_string(v).unwrap();
    compare(tally, kind, label, body, &text(body));
    // Pretty text (whitespace) parses the same.
    compare(
        tally,
        kind,
        &format!("{label} (pretty)"),
        body,
        &serde_json::to_string_pretty(body).unwrap(),
    );
    let rev = reversed(body);
    compare(
        tally,
        kind,
        &format!("{label} (reversed)"),
        &rev,
        &text(&rev),
    );
    if let Some(frame) = frame {
        compare(
            tally,
            kind,
            &format!("{label} (frame)"),
            frame,
            &text(frame),
        );
    }
    if let Some(bad) = retag_first_type(body, "hologram") {
        compare(
            tally,
            kind,
            &format!("{label} (bad type)"),
            &bad,
            &text(&bad),
        );
        let rev = reversed(&bad);
        let label = format!("{label} (bad type, reversed)");
        compare(tally, kind, &label, &rev, &text(&rev));
    }
    let first = body.as_object().and_then(|m| m.values().next()).cloned();
    if let Some(dup) = first.and_then(|first| with_duplicate_first(body, first)) {
        let value: Value = serde_json::from_str(&dup).unwrap();
        compare(
            tally,
            kind,
            &format!("{label} (duplicate key)"),
            &value,
            &dup,
        );
    }
    match kind {
        Kind::Result(_) => {
            for rt in [
                json!("bogus"),
                json!("input_required"),
                json!("complete"),
                json!(5),
            ] {
                let changed = set(body, "resultType", rt.clone());
                let label = format!("{label} (resultType {rt})");
                compare(tally, kind, &label, &changed, &text(&changed));
            }
            let label = format!("{label} (duplicate resultType)");
            let first = set(body, "resultType", json!("complete"));
            if let Some(dup) = with_duplicate_first(&reversed(&first), json!("bogus")) {
                let value: Value = serde_json::from_str(&dup).unwrap();
                compare(tally, kind, &label, &value, &dup);
            }
        }
        _ => {
            if let Some(params) = body.get("params").and_then(Value::as_object) {
                if let Some(meta) = params.get("_meta").and_then(Value::as_object) {
                    // Each reserved key missing in turn, then no `_meta` at all.
                    for k in meta.keys() {
                        let mut changed = body.clone();
                        changed["params"]["_meta"]
                            .as_object_mut()
                            .unwrap()
                            .remove(k);
                        let label = format!("{label} (no _meta {k})");
                        compare(tally, kind, &label, &changed, &text(&changed));
                    }
                    let mut changed = body.clone();
                    changed["params"].as_object_mut().unwrap().remove("_meta");
                    compare(
                        tally,
                        kind,
                        &format!("{label} (no _meta)"),
                        &changed,
                        &text(&changed),
                    );
                }
                let changed = set(body, "params", json!(5));
                compare(
                    tally,
                    kind,
                    &format!("{label} (params 5)"),
                    &changed,
                    &text(&changed),
                );
            }
            let changed = set(body, "method", json!("no/such"));
            compare(
                tally,
                kind,
                &format!("{label} (unknown method)"),
                &changed,
                &text(&changed),
            );
        }
    }
}

fn body_of(frame: &Value) -> Value {
    let mut m = frame.as_object().cloned().unwrap_or_default();
    m.shift_remove("jsonrpc");
    m.shift_remove("id");
    Value::Object(m)
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

#[test]
fn text_path_equals_value_path_on_the_corpus() {
    let mut tally = Tally::default();
    let mut bodies = 0;
    for file in mcp_wire_tests::corpus() {
        let mut pending: HashMap<(String, String), &'static str> = HashMap::new();
        for (line, f) in &file.frames {
            let label = format!("{}:{line}", file.name);
            let frame = &f.frame;
            let c2s = f.dir == "c2s";
            let id = frame.get("id").map(|i| i.to_string());
            let (kind, body) = if let Some(m) = frame.get("method").and_then(Value::as_str) {
                let kind = match (&id, c2s) {
                    (Some(id), _) => {
                        pending.insert((f.dir.clone(), id.clone()), leak(m));
                        if c2s {
                            Kind::ClientRequest
                        } else {
                            Kind::ServerRequest
                        }
                    }
                    (None, true) => Kind::ClientNotification,
                    (None, false) => Kind::ServerNotification,
                };
                (kind, body_of(frame))
            } else if let Some(result) = frame.get("result") {
                let other = if c2s { "s2c" } else { "c2s" };
                let Some(method) = pending.get(&(other.to_owned(), id.unwrap_or_default())) else {
                    continue;
                };
                (Kind::Result(method), result.clone())
            } else {
                continue;
            };
            bodies += 1;
            let frame = (!matches!(kind, Kind::Result(_))).then_some(frame);
            run_body(&mut tally, kind, &label, &body, frame);
        }
    }
    eprintln!(
        "corpus: {bodies} bodies, {} equal Ok, {} equal errors {:?}",
        tally.ok, tally.err, tally.kinds
    );
    assert!(bodies >= 400, "the corpus has {bodies} bodies");
    // Every error family the mutations aim at was reached.
    for kind in [
        "UnknownTag",
        "UnknownMethod",
        "MissingRequiredMeta",
        "ResultTypeInvalid",
        "Invalid",
    ] {
        assert!(
            tally.kinds.contains_key(kind),
            "no {kind} error: {:?}",
            tally.kinds
        );
    }
    assert!(tally.ok > tally.err);
}

/// The method whose result is `name`, from the generated method tables.
fn method_of_result(name: &str) -> &'static str {
    match name {
        "InputRequiredResult" => return "tools/call",
        "EmptyResult" => return "ping",
        _ => {}
    }
    for v in ProtocolVersion::ALL.into_iter().rev() {
        let f = mcp_wire::facts::revision(v);
        if let Some(m) = f
            .client_requests
            .iter()
            .chain(f.server_requests)
            .find(|m| m.result == Some(name))
        {
            return m.method;
        }
    }
    panic!("no method returns {name}")
}

#[test]
fn text_path_equals_value_path_on_the_2026_07_28_examples() {
    let dir = mcp_wire_schemas::SchemaStore::discover()
        .examples_dir()
        .expect("the pinned 2026-07-28 examples are present (run `cargo xtask schemas`)");
    let facts = mcp_wire::facts::revision(ProtocolVersion::V2026_07_28);
    let mut tally = Tally::default();
    let mut bodies = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let ty = entry.file_name().to_string_lossy().into_owned();
        let kind = if facts.client_requests.iter().any(|m| m.type_name == ty) {
            Kind::ClientRequest
        } else if ["CreateMessageRequest", "ListRootsRequest", "ElicitRequest"]
            .contains(&ty.as_str())
        {
            Kind::ServerRequest
        } else if facts.client_notifications.iter().any(|m| m.type_name == ty) {
            Kind::ClientNotification
        } else if facts.server_notifications.iter().any(|m| m.type_name == ty) {
            Kind::ServerNotification
        } else if ty.ends_with("Result") {
            Kind::Result(method_of_result(&ty))
        } else if let Some(result) = ty
            .strip_suffix("Response")
            .filter(|r| r.ends_with("Result"))
        {
            Kind::Result(method_of_result(result))
        } else {
            // Fragments: content blocks and the like parse the same both ways too.
            let mut files: Vec<_> = std::fs::read_dir(entry.path()).unwrap().flatten().collect();
            files.sort_by_key(|e| e.file_name());
            for file in files {
                let text = std::fs::read_to_string(file.path()).unwrap();
                let value: Value = serde_json::from_str(&text).unwrap();
                let label = format!("examples/{ty}/{}", file.file_name().to_string_lossy());
                for v in ProtocolVersion::ALL {
                    let label = format!("{label} at {v}");
                    match ty.as_str() {
                        "ContentBlock" | "TextContent" | "ImageContent" | "AudioContent"
                        | "EmbeddedResource" | "ResourceLink" | "ToolUseContent"
                        | "ToolResultContent" => tally.record(
                            &label,
                            parse_as::<ContentBlock>(&value, v),
                            parse_as(&text, v),
                        ),
                        "SamplingMessage" => tally.record(
                            &label,
                            parse_as::<SamplingMessage>(&value, v),
                            parse_as(&text, v),
                        ),
                        "Tool" => {
                            tally.record(&label, parse_as::<Tool>(&value, v), parse_as(&text, v))
                        }
                        _ => {}
                    }
                }
            }
            continue;
        };
        let mut files: Vec<_> = std::fs::read_dir(entry.path()).unwrap().flatten().collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let label = format!("examples/{ty}/{}", file.file_name().to_string_lossy());
            let text = std::fs::read_to_string(file.path()).unwrap();
            let json: Value = serde_json::from_str(&text).unwrap();
            let (body, frame) = if ty.ends_with("ResultResponse") {
                (json["result"].clone(), None)
            } else if matches!(kind, Kind::Result(_)) {
                (json, None)
            } else {
                (body_of(&json), Some(json))
            };
            bodies += 1;
            run_body(&mut tally, kind, &label, &body, frame.as_ref());
            // The file's own text (its formatting and key order) too.
            if frame.is_some() {
                let value: Value = serde_json::from_str(&text).unwrap();
                compare(&mut tally, kind, &format!("{label} (file)"), &value, &text);
            }
        }
    }
    eprintln!(
        "examples: {bodies} bodies, {} equal Ok, {} equal errors {:?}",
        tally.ok, tally.err, tally.kinds
    );
    assert!(bodies >= 50, "{bodies} example bodies");
    for kind in ["MissingRequiredMeta", "ResultTypeInvalid", "UnknownMethod"] {
        assert!(
            tally.kinds.contains_key(kind),
            "no {kind} error: {:?}",
            tally.kinds
        );
    }
}

#[test]
fn text_that_is_not_json_is_the_same_syntax_error() {
    let v = ProtocolVersion::V2026_07_28;
    for text in [
        "",
        "{",
        "{\"method\":\"tools/list\"",
        "{\"method\":\"tools/list\"} trailing",
        "[1,2",
        "nul",
    ] {
        let by_text = parse_as::<ClientRequest>(text, v).unwrap_err();
        assert_eq!(by_text.kind, ParseErrorKind::Syntax, "{text:?}");
        assert_eq!(by_text.code(), -32700, "{text:?}");
        let by_result = parse_result_for("tools/list", text, v).unwrap_err();
        assert_eq!(by_result.kind, ParseErrorKind::Syntax, "{text:?}");
        // An unknown method still reports the syntax error first, as the `Value` path does.
        let unknown = parse_result_for("no/such", text, v).unwrap_err();
        assert_eq!(unknown.kind, ParseErrorKind::Syntax, "{text:?}");
    }
    let bytes = b"{\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xff\"}}";
    let e = parse_as::<ClientRequest>(bytes, v).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Syntax);
}

#[test]
fn duplicate_keys_read_last_wins_as_the_value_path_does() {
    let v = ProtocolVersion::V2025_06_18;
    // A duplicate tag: the `Value` path keeps the last one.
    let text = r#"{"method":"tools/list","method":"ping"}"#;
    let parsed = parse_as::<ClientRequest>(text, v).unwrap();
    assert!(matches!(parsed, ClientRequest::Ping(_)), "{parsed:?}");
    // A duplicate field of a member.
    let text = r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#;
    let MethodResult::Server(ServerResult::CallTool(r)) =
        parse_result_for("tools/call", text, v).unwrap()
    else {
        panic!("not a CallToolResult")
    };
    assert_eq!(serde_json::to_value(&r.content[0]).unwrap()["text"], "b");
    // A duplicate `resultType` at 2026-07-28: the last (bad) one is checked.
    let text = r#"{"content":[],"resultType":"complete","resultType":"bogus"}"#;
    let e = parse_result_for("tools/call", text, ProtocolVersion::V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::ResultTypeInvalid);
    assert_eq!(e.path.to_string(), "/resultType");
    // And a duplicate reserved `_meta` key does not hide a missing one.
    let text = r#"{"method":"tools/list","params":{"_meta":{"a":1,"a":2}}}"#;
    let e = parse_as::<ClientRequest>(text, ProtocolVersion::V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingRequiredMeta);
}

#[test]
fn deep_nesting_and_huge_numbers_are_errors_not_panics() {
    let v = ProtocolVersion::V2025_06_18;
    let deep = format!(
        "{{\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"a\":{}1{}}}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = parse_as::<ClientRequest>(&deep, v).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    // Nested unions, tag last at every level, deeper than the recursion limit.
    let mut nested = String::from("{\"type\":\"text\",\"text\":\"x\"}");
    for _ in 0..200 {
        nested = format!("{{\"content\":[{nested}],\"type\":\"tool_result\",\"toolUseId\":\"t\"}}");
    }
    let text = format!("{{\"role\":\"user\",\"content\":{nested}}}");
    assert!(parse_as::<SamplingMessage>(&text, v).is_err());
    let huge =
        r#"{"method":"notifications/progress","params":{"progressToken":1,"progress":1e400}}"#;
    let e = parse_as::<ClientNotification>(huge, v).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    let big_int =
        r#"{"method":"tools/list","params":{"cursor":"c"},"id":123456789012345678901234567890}"#;
    let parsed = parse_as::<ClientRequest>(big_int, v).unwrap();
    assert!(matches!(parsed, ClientRequest::ListTools(_)));
}
