//! `parse_as` and `parse_result_for` on text and bytes (and `in_place`'s forms that fill a
//! caller's slot) against the same functions on the text's `Value`, on the real superset model:
//! for the same input every route gives the same value, or the same error (kind, JSON Pointer,
//! message, JSON-RPC code). `mcp-frames`' direct path reads bodies as text and its general path
//! as `Value`s, so a difference here would be a difference in what `translate` reports.

use std::fmt::Debug;

use serde_json::{Value, json};

use super::tests::{check, parsed};
use super::*;
use crate::ProtocolVersion::{self, *};
use crate::model::{
    ClientNotification, ClientRequest, ListRootsRequest, ListToolsRequest, ServerNotification,
    ServerRequest,
};
use crate::{Era, VersionLike};

/// `text` read as `T` at `v` as text, as bytes, from its `Value` (when it is one) and into a
/// slot that held a body already: one answer, returned.
#[track_caller]
pub(super) fn body<T: WireParse + PartialEq + Debug>(
    text: &str,
    v: ProtocolVersion,
) -> Result<T, ParseError> {
    let by_text = parse_as::<T>(text, v);
    let name = format!("{} {text} at {v}", T::TYPE_NAME);
    assert_eq!(parse_as::<T>(text.as_bytes(), v), by_text, "{name} (bytes)");
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        assert_eq!(parse_as::<T>(&value, v), by_text, "{name} (Value)");
    }
    let slot = parse_as::<T>(text, V2025_06_18).or_else(|_| parse_as(text, V2024_11_05));
    let mut slot = slot.ok();
    let into = in_place::parse_str::<T>(text, v, &mut slot).map(|()| slot.take());
    let into = into.as_ref().map(Option::as_ref);
    assert_eq!(into, by_text.as_ref().map(Some), "{name} (slot)");
    assert!(slot.is_none(), "{name} (slot left full)");
    by_text
}

/// A result read as `answering` says at `v`, as [`body`] reads a body (into a slot that held a
/// result already too): one answer, returned.
#[track_caller]
pub(super) fn result<'a>(
    answering: impl Into<ResultFor<'a>>,
    text: &str,
    v: impl Into<VersionLike>,
) -> Result<MethodResult, ParseError> {
    let (answering, v) = (answering.into(), v.into());
    let by_text = parse_result_for(answering, text, v.clone());
    let name = format!("{} {text} at {v}", answering.method_answered());
    let by_bytes = parse_result_for(answering, text.as_bytes(), v.clone());
    assert_eq!(by_bytes, by_text, "{name} (bytes)");
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let by_value = parse_result_for(answering, &value, v.clone());
        assert_eq!(by_value, by_text, "{name} (Value)");
    }
    let mut slot = parse_result_for("ping", "{}", v.clone()).ok();
    let into = in_place::parse_result_str(answering, text, v, &mut slot).map(|()| slot.take());
    assert_eq!(into, by_text.clone().map(Some), "{name} (slot)");
    assert!(slot.is_none(), "{name} (slot left full)");
    by_text
}

/// Requests (and notifications) whose params are required, optional or absent, with a missing,
/// `null`, empty, `_meta`-only or partial `params`.
fn bodies(methods: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    #[rustfmt::skip]
    let params = ["null", "{}", r#"{"_meta":{}}"#, r#"{"_meta":{"progressToken":1}}"#, r#"{"name":"x"}"#,
        r#"{"uri":7}"#, "[]"];
    for m in methods {
        out.push(format!(r#"{{"method":"{m}"}}"#));
        for p in params {
            out.push(format!(r#"{{"method":"{m}","params":{p}}}"#));
            // The same body with an unknown member and the method last.
            out.push(format!(r#"{{"paraeCms":{p},"method":"{m}"}}"#));
        }
    }
    out
}

/// [`body`] on each text as `T` at every revision; how many reads failed.
fn failures<T: WireParse + PartialEq + Debug>(texts: &[String]) -> usize {
    let reads = texts
        .iter()
        .flat_map(|t| ProtocolVersion::ALL.map(|v| body::<T>(t, v)));
    reads.filter(Result::is_err).count()
}

#[test]
fn missing_and_empty_params_and_results_read_alike_from_text_and_from_values() {
    #[rustfmt::skip]
    let client = ["tools/call", "prompts/get", "resources/read", "completion/complete", "initialize", "tools/list", "ping",
        "tasks/get", "no/such"];
    let server = ["sampling/createMessage", "elicitation/create", "roots/list"];
    let client_notes = ["notifications/cancelled", "notifications/initialized"];
    let server_notes = ["notifications/progress", "notifications/message"];
    let failed = failures::<ClientRequest>(&bodies(&client))
        + failures::<ServerRequest>(&bodies(&server))
        + failures::<ClientNotification>(&bodies(&client_notes))
        + failures::<ServerNotification>(&bodies(&server_notes));
    // The comparison is over failures as much as successes.
    assert!(failed > 100, "only {failed} failing inputs");
    // The wording every route gives a request without its required params: the missing member,
    // where it is missing.
    let v = V2025_06_18;
    #[rustfmt::skip]
    let rows = [
        ("no params", parsed(body::<ClientRequest>(r#"{"method":"tools/call"}"#, v)),
            json!({"kind": "Missing", "at": "/params"})),
        ("no name", parsed(body::<ClientRequest>(r#"{"method":"tools/call","params":{"_meta":{}}}"#, v)),
            json!({"kind": "Missing", "at": "/params/name"})),
    ];
    check(rows);
    // Results: missing, empty or partial members, of methods that have them or not.
    #[rustfmt::skip]
    let methods = ["tools/call", "tools/list", "resources/read", "prompts/get", "initialize", "ping",
        "sampling/createMessage", "no/such"];
    #[rustfmt::skip]
    let texts = ["{}", r#"{"_meta":{}}"#, r#"{"content":[]}"#, r#"{"content":7}"#, r#"{"tools":[{"name":"x"}]}"#,
        r#"{"resultType":"input_required"}"#, r#"{"resultType":"bogus","content":[]}"#];
    let mut failed = 0;
    for (method, text) in methods.iter().flat_map(|m| texts.map(|t| (*m, t))) {
        for v in ProtocolVersion::ALL {
            failed += usize::from(result(method, text, v).is_err());
        }
    }
    assert!(failed > 50, "only {failed} failing inputs");
}

/// Found by the `parse_as` fuzz target (10-minute run): serde's derived structs also read a
/// JSON array field by field, so `[""]` answering `ping` at 2026-07-28 was an `EmptyResult`
/// with `resultType` `""` from a `Value` and a `resultType` error from text. Every result is
/// an object: each form, and a frame's `result` member, refuses the rest alike.
#[test]
fn a_result_that_is_not_an_object_is_invalid_in_every_form() {
    for text in [
        r#"[""]"#,
        r#"["complete"]"#,
        "[]",
        "\"complete\"",
        "7",
        "null",
    ] {
        for v in [V2024_11_05, V2025_11_25, V2026_07_28] {
            for method in ["ping", "tools/list", "tools/call", "sampling/createMessage"] {
                let e = result(method, text, v).unwrap_err();
                assert_eq!(e.kind, ParseErrorKind::Invalid, "{method} {text}");
                assert!(e.message.contains("result object"), "{e}");
            }
        }
    }
    // Objects still parse, on every route.
    let ok = result("ping", r#"{"resultType":"complete"}"#, V2026_07_28);
    assert!(ok.is_ok(), "{ok:?}");
}

/// Found by the `parse_as` fuzz target (issue 14): `serde_json` skips the value of a member
/// the type ignores without reading it as a value, so what a `Value` cannot hold parsed there
/// from text or bytes: an out-of-range number (`"ttnMs":6E9373`, a misspelt `ttlMs`), a lone
/// surrogate, a string that is not UTF-8 (the frame's `id`). Every route refuses it as a syntax
/// error, in ignored members too; in range or as UTF-8, the same shapes parse.
#[test]
fn input_a_value_cannot_hold_is_a_syntax_error_in_ignored_members_too() {
    let crash = r#"{"resultType":"complete","contents":[{"uri":"file:///proect/src/main.rs","mimeType":"txx-e/trust","text":"fn main() {}"}],"ttnMs":6E9373,"cac*heScope              ":"p)ivate"}"#;
    assert!(serde_json::from_str::<Value>(crash).is_err());
    let e = result("resources/read", crash, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    assert!(e.message.contains("number out of range"), "{e}");
    // Deeper, in other bodies and revisions: an ignored number, a lone surrogate.
    #[rustfmt::skip]
    let texts = [
        (r#"{"method":"tools/list","params":{"x":[1,{"y":-1e999}]}}"#, V2025_06_18),
        (r#"{"method":"tools/list","params":{"cursor":"c","x":"\udc00"}}"#, V2024_11_05),
    ];
    for (text, v) in texts {
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        let e = body::<ListToolsRequest>(text, v).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        let e = body::<ClientRequest>(text, v).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    }
    let frame = b"{\"id\":\"list-ro\xdes-example\",\"method\":\"roots/list\"}";
    for v in [V2024_11_05, V2026_07_28] {
        let e = parse_as::<ListRootsRequest>(frame, v).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        let e = parse_as::<ListToolsRequest>(b"{\"method\":\"tools/list\",\"x\":\"\xff\"}", v)
            .unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        let e = parse_result_for("tools/list", b"{\"tools\":[],\"x\":\"\xc3\"}", v).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    }
    // In range, or as UTF-8, the same shapes parse, on every route.
    let fine = crash.replace("6E9373", "6E3");
    assert!(result("resources/read", &fine, V2026_07_28).is_ok());
    let fixed = r#"{"id":"list-roots-example","method":"roots/list"}"#;
    assert!(body::<ListRootsRequest>(fixed, V2025_06_18).is_ok());
    assert!(result("tools/list", r#"{"tools":[],"x":"\u00ff"}"#, V2025_06_18).is_ok());
}

/// Issue 14: serde's derived structs read a JSON array field by field, so `["…"]` stood
/// for an object anywhere below the result (params, content blocks, tools, schemas). Every
/// type the model reads as a struct is an object: the array form is `Invalid` at its JSON
/// Pointer, the same from text, bytes and a `Value`.
#[test]
fn arrays_are_not_objects_at_any_depth() {
    let tool = r#"{"name":"t","inputSchema":{"type":"object"}}"#;
    let second = r#"{"name":"u","inputSchema":{"type":"object"},"annotations":["x"]}"#;
    #[rustfmt::skip]
    let results = [
        // A tagged union (content block) finds no tag in an array.
        ("tools/call", r#"{"content":[["text","hi"]]}"#.to_owned(), "/content/0/type"),
        ("tools/list", r#"{"tools":[["t",{"type":"object"}]]}"#.to_owned(), "/tools/0"),
        ("tools/list", r#"{"tools":[{"name":"t","inputSchema":["object"]}]}"#.to_owned(), "/tools/0/inputSchema"),
        ("tools/list", format!(r#"{{"tools":[{tool},{second}]}}"#), "/tools/1/annotations"),
        ("prompts/get", r#"{"messages":[{"role":"user","content":["text","hi"]}]}"#.to_owned(),
            "/messages/0/content/type"),
        ("resources/read", r#"{"contents":[["file:///a","text/plain","x"]]}"#.to_owned(), "/contents/0"),
    ];
    for (method, text, pointer) in &results {
        for v in [V2024_11_05, V2025_06_18, V2026_07_28] {
            let text = match v.era() {
                Era::Stateless => text.replacen('{', r#"{"resultType":"complete","#, 1),
                _ => text.clone(),
            };
            let e = result(*method, &text, v).unwrap_err();
            assert_eq!(e.path.pointer(), *pointer, "{method} at {v}: {e}");
            let tagged = pointer.ends_with("/type");
            assert!(tagged || e.message.contains("sequence"), "{e}");
        }
    }
    #[rustfmt::skip]
    let requests = [
        (r#"{"method":"tools/call","params":["t",{}]}"#, "/params"),
        (r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":["roots"],"clientInfo":{"name":"c","version":"1"}}}"#,
            "/params/capabilities"),
        (r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":["c","1"]}}"#,
            "/params/clientInfo"),
        (r#"{"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":["a","b"]}}"#,
            "/params/argument"),
    ];
    for (text, pointer) in requests {
        let e = body::<ClientRequest>(text, V2025_06_18).unwrap_err();
        assert_eq!(e.path.pointer(), pointer, "{text}: {e}");
    }
    let sampling = r#"{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"modelPreferences":["fast"]}}"#;
    let e = body::<ServerRequest>(sampling, V2025_03_26).unwrap_err();
    assert_eq!(e.path.pointer(), "/params/modelPreferences", "{e}");
    // The object forms parse.
    let fine = sampling.replace(r#"["fast"]"#, r#"{"speedPriority":1}"#);
    assert!(body::<ServerRequest>(&fine, V2025_03_26).is_ok());
    let fine = format!(r#"{{"tools":[{tool}]}}"#);
    assert!(result("tools/list", &fine, V2025_06_18).is_ok());
}

/// An enum member (`ElicitResult.action`, a log level) that is not one of its strings: the same
/// answer from text as from its `Value`, whatever the JSON type (found by the `parse_as` and
/// `translate` fuzz targets: `serde_json` words a number there `expected value` from text).
#[test]
fn enum_members_of_any_json_type_read_alike() {
    let members = [
        "7",
        "-1",
        "1.5",
        "777777777777",
        "true",
        "null",
        "[]",
        "[\"accept\"]",
        "{}",
        r#"{"accept":null}"#,
        r#"{"accept":1}"#,
        r#"{"accept":null,"cancel":null}"#,
        r#"{"accept":null,"accept":null}"#,
        r#""bogus""#,
        r#""accept""#,
        "\r\r 3",
    ];
    for member in members {
        for v in [V2025_06_18, V2025_11_25, V2026_07_28] {
            let result = format!(r#"{{"action":{member}}}"#);
            // A variant is its string, or (serde's enum form) an object of it and `null`; a
            // repeated key reads last-wins, as from text everywhere.
            let forms = [
                r#""accept""#,
                r#"{"accept":null}"#,
                r#"{"accept":null,"accept":null}"#,
            ];
            let variant = forms.contains(&member);
            let read = body::<crate::model::ElicitResult>(&result, v);
            assert_eq!(read.is_ok(), variant, "{result} at {v}");
            let note = format!(
                r#"{{"method":"notifications/message","params":{{"level":{member},"data":"x"}}}}"#
            );
            let read = body::<ServerNotification>(&note, v);
            // (No member is a level.)
            assert!(read.is_err(), "{note} at {v}");
        }
    }
}
