//! Typed tools (`mcp_wire::tool`, feature `schemars`) against the schema oracle: a tool whose
//! schemas come from Rust types, listed and answered with structured output, is valid at every
//! revision that has tools, emitted by the boundary.

mod common;

use common::oracle;
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{CallToolRequestParams, ListToolsResult, ModelErrorKind, Tool};
use mcp_wire::tool::{OutputCheck, ToolSchemaErrorKind};
use mcp_wire::wire::{EmitOptions, serialize_for};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Arguments with the shapes schemars writes differently: an optional field, a nested struct,
/// an enum of strings, a list, documentation.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Search {
    /// What to look for.
    query: String,
    limit: Option<u32>,
    scope: Scope,
    filters: Vec<Filter>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Scope {
    Files,
    Issues,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Filter {
    field: String,
    value: String,
}

#[derive(Serialize, JsonSchema)]
struct Hits {
    total: u64,
    hits: Vec<Filter>,
}

fn revisions_with_tools() -> impl Iterator<Item = ProtocolVersion> {
    ProtocolVersion::ALL.into_iter().filter(|v| {
        mcp_wire::facts::revision(*v)
            .request("tools/call")
            .is_some()
    })
}

#[test]
fn a_typed_tool_and_its_structured_result_validate_at_every_revision_with_tools() {
    let tool = Tool::typed::<Search>("search")
        .expect("a struct is an object schema")
        .with_output_type::<Hits>()
        .expect("a struct is an object schema")
        .with_description("Search the workspace");
    let check = OutputCheck::for_tool(&tool).expect("a usable output schema");
    let result = check
        .result(&Hits {
            total: 1,
            hits: vec![Filter {
                field: "author".into(),
                value: "ana".into(),
            }],
        })
        .expect("the output fits its own schema");
    let list = ListToolsResult::new(vec![tool]);
    let mut checked = 0;
    for v in revisions_with_tools() {
        for strict in [false, true] {
            let options = EmitOptions::new().strict(strict);
            let listed = serialize_for(&list, (v, options)).expect("a tool list emits");
            let violations = oracle(v)
                .violations("ListToolsResult", &listed)
                .expect("the oracle has ListToolsResult");
            assert!(violations.is_empty(), "{v} strict={strict}: {violations:?}");
            let answered = serialize_for(&result, (v, options)).expect("a result emits");
            let violations = oracle(v)
                .violations("CallToolResult", &answered)
                .expect("the oracle has CallToolResult");
            assert!(violations.is_empty(), "{v} strict={strict}: {violations:?}");
            checked += 1;
        }
        // The schema the peer sees is the one schemars wrote (its root `type: object`).
        let listed = serialize_for(&list, v).unwrap();
        assert_eq!(listed["tools"][0]["inputSchema"]["type"], "object");
        assert_eq!(
            listed["tools"][0]["inputSchema"]["required"],
            json!(["query", "scope", "filters"])
        );
    }
    assert_eq!(
        checked, 10,
        "five revisions have tools, each loose and strict"
    );
}

#[test]
fn arguments_are_read_as_the_type_with_a_pointer_on_mismatch() {
    let params: CallToolRequestParams = serde_json::from_value(json!({
        "name": "search",
        "arguments": {"query": "q", "scope": "files", "filters": [{"field": "a", "value": 1}]}
    }))
    .unwrap();
    let e = params.arguments_as::<Search>().unwrap_err();
    assert_eq!(e.path.pointer(), "/arguments/filters/0/value");
    assert!(matches!(e.kind, ModelErrorKind::Invalid(_)));
    assert_eq!(e.code(), -32602);
    let ok: CallToolRequestParams = serde_json::from_value(json!({
        "name": "search",
        "arguments": {"query": "q", "scope": "issues", "filters": []}
    }))
    .unwrap();
    let args = ok.arguments_as::<Search>().unwrap();
    assert_eq!(args.query, "q");
    assert!(matches!(args.scope, Scope::Issues));
}

#[test]
fn a_type_that_is_not_an_object_is_refused_when_the_tool_is_built() {
    let e = Tool::typed::<Scope>("scope").unwrap_err();
    assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
    assert!(e.message.contains("Scope"), "{}", e.message);
    let e = Tool::typed::<Search>("s")
        .unwrap()
        .with_output_type::<Vec<Filter>>()
        .unwrap_err();
    assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
}
