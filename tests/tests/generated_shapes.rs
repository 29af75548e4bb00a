//! Shape guarantees of the generated modules that the examples do not pin on their own:
//! discriminators are checked on read and written on emit, optional empty collections survive,
//! numbers keep their wire text, open objects keep unknown keys.

use mcp_wire::{v2024_11_05 as v1, v2025_03_26 as v2, v2025_11_25 as v4, v2026_07_28 as d};
use serde_json::{Value, json};

fn read<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

#[test]
fn a_wrong_discriminator_never_reads_as_that_type() {
    assert!(read::<d::TextContent>(json!({"type": "image", "text": "hi"})).is_err());
    assert!(read::<d::TextContent>(json!({"type": "text", "text": "hi"})).is_ok());
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"name": "x", "_meta": {}}});
    assert!(read::<v4::CallToolRequest>(call).is_err());
    let bad_version = json!({"jsonrpc": "1.0", "id": 1, "method": "ping"});
    assert!(read::<v4::JSONRPCRequest>(bad_version).is_err());
    assert!(read::<d::ParseError>(json!({"code": -32700, "message": "m"})).is_ok());
    let wrong_code = json!({"code": -32600, "message": "m"});
    let err = read::<d::ParseError>(wrong_code).unwrap_err();
    assert!(err.contains("expected the integer -32700"), "{err}");
    let err = read::<d::TextContent>(json!({"type": "image", "text": "hi"})).unwrap_err();
    assert!(err.contains("expected the string \"text\""), "{err}");
}

#[test]
fn discriminators_are_written_on_emit() {
    let block = d::TextContent {
        annotations: None,
        meta: None,
        text: "hi".into(),
        type_: d::TextContentType,
    };
    assert_eq!(
        serde_json::to_value(&block).unwrap(),
        json!({"type": "text", "text": "hi"})
    );
    assert_eq!(
        serde_json::to_value(d::JSONRPCVersion).unwrap(),
        json!("2.0")
    );
}

#[test]
fn unions_route_by_discriminator() {
    let audio = json!({"type": "audio", "data": "AAA=", "mimeType": "audio/wav"});
    let block: d::ContentBlock = read(audio).unwrap();
    assert!(matches!(block, d::ContentBlock::AudioContent(_)));
    let req: v1::ClientRequest = read(json!({"method": "ping"})).unwrap();
    assert!(matches!(req, v1::ClientRequest::PingRequest(_)));
    // 2025-03-26 batches are their own members.
    let batch: v2::JSONRPCMessage =
        read(json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])).unwrap();
    assert!(matches!(batch, v2::JSONRPCMessage::JSONRPCBatchRequest(_)));
}

#[test]
fn empty_optional_collections_and_numbers_survive() {
    let caps = json!({"roots": {}, "sampling": {}, "experimental": {}});
    let typed: v1::ClientCapabilities = read(caps.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), caps);
    let progress = json!({"method": "notifications/progress",
                          "params": {"progressToken": 1, "progress": 50, "total": 100.5}});
    let typed: v1::ProgressNotification = read(progress.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), progress);
}

#[test]
fn open_objects_keep_unknown_keys() {
    let tool = json!({
        "name": "t",
        "inputSchema": {"type": "object", "$defs": {"x": {"type": "string"}},
                        "additionalProperties": false, "properties": {"a": {"$ref": "#/$defs/x"}}}
    });
    let typed: v1::Tool = read(tool.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), tool);
    let result = json!({"_meta": {"vendor/x": 1}, "extra": [1, 2]});
    let typed: v1::Result = read(result.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), result);
    // 2026-07-28 `JSONValue` admits null and fractions (upstream schema fix).
    let typed: d::JSONValue = read(json!({"a": null, "b": 0.5})).unwrap();
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        json!({"a": null, "b": 0.5})
    );
}
