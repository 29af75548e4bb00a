//! `parse_as` and `parse_result_for` on text and bytes (and `in_place`'s forms that fill a
//! caller's slot) against the same functions on the text's `Value`, on the real superset model:
//! for the same input both routes give the same value, or the same error (kind, JSON Pointer, message, JSON-RPC
//! code). `mcp-frames`' direct path reads bodies as text and its general path as `Value`s, so a
//! difference here would be a difference in what `translate` reports.

use serde_json::{Value, json};

use super::tests::{check, parsed};
use super::*;
use crate::ProtocolVersion;
use crate::model::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};

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

/// Both routes on `text` as `T` at every revision; returns how many inputs failed.
fn same_verdict<T>(text: &str) -> usize
where
    T: WireParse + PartialEq + std::fmt::Debug,
{
    let value: Value = serde_json::from_str(text).unwrap();
    let mut failed = 0;
    // The slot of the `_into` form: whatever it held before is replaced or emptied.
    let mut slot: Option<T> = None;
    for v in ProtocolVersion::ALL {
        let by_value = parse_as::<T>(&value, v);
        let by_text = parse_as::<T>(text, v);
        let by_bytes = parse_as::<T>(text.as_bytes(), v);
        let into = in_place::parse_str::<T>(text, v, &mut slot).map(|()| slot.take());
        let name = format!("{} {text} at {v}", T::TYPE_NAME);
        assert_eq!(by_text, by_value, "{name}");
        assert_eq!(by_bytes, by_value, "{name} (bytes)");
        let into = into.as_ref().map(Option::as_ref);
        assert_eq!(into, by_value.as_ref().map(Some), "{name} (slot)");
        assert!(slot.is_none());
        // A slot left full by an earlier frame.
        slot = parse_as::<T>(&value, ProtocolVersion::V2025_06_18)
            .or_else(|_| parse_as::<T>(&value, ProtocolVersion::V2024_11_05))
            .ok();
        failed += usize::from(by_value.is_err());
    }
    failed
}

#[test]
fn missing_and_empty_params_read_alike_from_text_and_from_values() {
    #[rustfmt::skip]
    let client = ["tools/call", "prompts/get", "resources/read", "completion/complete", "initialize", "tools/list", "ping",
        "tasks/get", "no/such"];
    let server = ["sampling/createMessage", "elicitation/create", "roots/list"];
    let client_notes = ["notifications/cancelled", "notifications/initialized"];
    let server_notes = ["notifications/progress", "notifications/message"];
    let failed = bodies(&client)
        .iter()
        .map(|b| same_verdict::<ClientRequest>(b))
        .sum::<usize>()
        + bodies(&server)
            .iter()
            .map(|b| same_verdict::<ServerRequest>(b))
            .sum::<usize>()
        + bodies(&client_notes)
            .iter()
            .map(|b| same_verdict::<ClientNotification>(b))
            .sum::<usize>()
        + bodies(&server_notes)
            .iter()
            .map(|b| same_verdict::<ServerNotification>(b))
            .sum::<usize>();
    // The comparison is over failures as much as successes.
    assert!(failed > 100, "only {failed} failing inputs");
    // The wording both routes give a request without its required params: the missing member,
    // where it is missing.
    let v = ProtocolVersion::V2025_06_18;
    #[rustfmt::skip]
    let rows = [
        ("no params", parsed(parse_as::<ClientRequest>(r#"{"method":"tools/call"}"#, v)),
            json!({"kind": "Missing", "at": "/params"})),
        ("no name", parsed(parse_as::<ClientRequest>(r#"{"method":"tools/call","params":{"_meta":{}}}"#, v)),
            json!({"kind": "Missing", "at": "/params/name"})),
    ];
    check(rows);
}

#[test]
fn missing_and_empty_results_read_alike_from_text_and_from_values() {
    let mut failed = 0;
    #[rustfmt::skip]
    let methods = ["tools/call", "tools/list", "resources/read", "prompts/get", "initialize", "ping",
        "sampling/createMessage", "no/such"];
    for method in methods {
        for text in [
            "{}",
            r#"{"_meta":{}}"#,
            r#"{"content":[]}"#,
            r#"{"content":7}"#,
            r#"{"tools":[{"name":"x"}]}"#,
            r#"{"resultType":"input_required"}"#,
            r#"{"resultType":"bogus","content":[]}"#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            for v in ProtocolVersion::ALL {
                let by_value = parse_result_for(method, &value, v);
                let by_text = parse_result_for(method, text, v);
                assert_eq!(by_text, by_value, "{method} {text} at {v}");
                // Into a slot that holds an earlier result.
                let mut slot = parse_result_for("ping", "{}", v).ok();
                let into = in_place::parse_result_str(method, text, v, &mut slot).map(|()| slot);
                failed += usize::from(by_value.is_err());
                assert_eq!(into, by_value.map(Some), "{method} {text} at {v} (slot)");
            }
        }
    }
    assert!(failed > 50, "only {failed} failing inputs");
}
