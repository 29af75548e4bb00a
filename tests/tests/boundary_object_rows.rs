//! The ledger rows that want an open JSON value to be an object (`Tool.inputSchema`,
//! `Tool.outputSchema`, `CallToolResult.structuredContent`): checked while the value is written,
//! with the same verdict, path and cause whether the output is text, a `Value` or a report.

use mcp_wire::ProtocolVersion::{self, *};
use mcp_wire::model::*;
use mcp_wire::wire::*;
use serde_json::{Value, json};

/// The compact text output of `b` at `v`.
fn text_of<B: WireBody>(b: &B, v: ProtocolVersion) -> Result<String, EmitError> {
    let mut out = Vec::new();
    serialize_for_vec(b, v, &mut out).map(|()| String::from_utf8(out).expect("UTF-8"))
}

fn from<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test input parses as the superset type")
}

/// Emits through every output form; all must refuse alike, and the refusal is returned.
fn refusal<B: WireBody>(b: &B, v: ProtocolVersion) -> EmitError {
    let text = text_of(b, v).expect_err("text output refuses");
    let value = serialize_for(b, v).expect_err("value output refuses");
    let report = serialize_for_report(b, v).expect_err("report output refuses");
    let mut buf = b"kept".to_vec();
    serialize_for_vec(b, v, &mut buf).expect_err("vec output refuses");
    assert_eq!(
        buf, b"kept",
        "a refused emission leaves the buffer as it was"
    );
    for other in [&value, &report] {
        assert_eq!(other.kind, text.kind);
        assert_eq!(other.path, text.path);
        assert_eq!(other.message, text.message);
        assert_eq!(other.cause, text.cause);
    }
    text
}

fn assert_row(e: &EmitError, owner: &str, field: &str, pointer: &str) {
    assert_eq!(e.kind, EmitErrorKind::NotExpressible, "{e}");
    assert_eq!(e.path.pointer(), pointer, "{e}");
    match e.cause {
        Some(Cause::Ledger(row)) => assert_eq!((row.owner, row.field), (owner, field)),
        ref other => panic!("expected a ledger row, got {other:?}"),
    }
}

fn tools(input_schema: Value) -> ListToolsResult {
    from(json!({"tools": [
        {"name": "ok", "inputSchema": {"type": "object"}},
        {"name": "bad", "inputSchema": input_schema}
    ]}))
}

#[test]
fn input_schema_without_root_object_type_is_refused_at_every_revision() {
    for schema in [
        json!({}),
        json!({"properties": {"a": {"type": "object"}}}),
        json!({"type": "string"}),
        json!({"type": ["object", "null"]}),
        json!({"type": {"const": "object"}}),
    ] {
        for v in ProtocolVersion::ALL {
            let e = refusal(&tools(schema.clone()), v);
            assert_row(&e, "Tool", "inputSchema", "/tools/1/inputSchema");
            assert!(e.message.contains("root type"), "{e}");
        }
    }
}

#[test]
fn input_schema_with_root_object_type_is_written_verbatim() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"type": {"type": "string"}, "n": {"type": ["integer", "null"]}},
        "type": "object",
        "required": ["type"],
        "additionalProperties": false
    });
    let r = tools(schema.clone());
    for v in ProtocolVersion::ALL {
        let text = text_of(&r, v).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["tools"][1]["inputSchema"], schema, "at {v}");
        // Member order as given (not sorted, not moved).
        assert!(text.contains(r#""inputSchema":{"$schema":"#), "{text}");
        let (_, report) = serialize_for_report(&r, v).unwrap();
        assert!(
            report
                .stripped_pointers()
                .iter()
                .all(|p| !p.contains("inputSchema")),
            "nothing inside a schema is stripped at {v}"
        );
    }
}

#[test]
fn output_schema_is_checked_only_where_its_row_refuses() {
    let r: ListToolsResult = from(json!({"tools": [
        {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}
    ]}));
    for v in [V2024_11_05, V2025_03_26] {
        // Passed verbatim: those revisions do not define it, peers ignore it.
        let out = serialize_for(&r, v).unwrap();
        assert_eq!(
            out["tools"][0]["outputSchema"],
            json!({"type": "array"}),
            "{v}"
        );
    }
    for v in [V2025_06_18, V2025_11_25] {
        let e = refusal(&r, v);
        assert_row(&e, "Tool", "outputSchema", "/tools/0/outputSchema");
    }
}

#[test]
fn structured_content_must_be_an_object_where_its_row_says_so() {
    for sc in [
        json!([1, 2]),
        json!("text"),
        json!(5),
        json!(null),
        json!(true),
    ] {
        let r: CallToolResult = from(json!({"content": [], "structuredContent": sc}));
        for v in [V2025_06_18, V2025_11_25] {
            let e = refusal(&r, v);
            assert_row(
                &e,
                "CallToolResult",
                "structuredContent",
                "/structuredContent",
            );
        }
    }
    let r: CallToolResult = from(json!({
        "content": [],
        "structuredContent": {"type": 3, "nested": {"type": "object", "list": [null]}}
    }));
    for v in ProtocolVersion::ALL {
        let out = serialize_for(&r, v).unwrap();
        assert_eq!(
            out["structuredContent"],
            json!({"type": 3, "nested": {"type": "object", "list": [null]}}),
            "any object is fine, whatever its members, at {v}"
        );
    }
}
