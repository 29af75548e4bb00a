//! Interop with a real client: the official MCP Python SDK drives the `variants_stdio` example.
//!
//! The SDK is one of the pinned peers (`tests/peers/requirements.txt` at the workspace root), which
//! `mcp_wire_tests::peers` installs under `target/peers/` on first use. When it cannot, this test
//! fails and says why; it never skips.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

#[test]
fn python_sdk_client_lists_and_calls_with_and_without_selector() {
    let python = mcp_wire_tests::peers::peers().python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/client.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(common::example_binary())
        .output()
        .expect("running the Python client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "python client failed ({}):\n{stderr}",
        output.status
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("client printed no JSON ({e}):\n{stderr}"));

    // A client that knows nothing about variants: it probes server/discover (2026-07-28), gets
    // "method not found", falls back to initialize and negotiates 2025-11-25; default variant.
    assert_eq!(
        report["plain"],
        json!({
            "protocolVersion": "2025-11-25",
            "advertised": ["compact", "full", "preview", "legacy"],
            "tools": ["search"],
            "pages": 1,
            "call": ["search (query) served by variant compact: rust"]
        })
    );

    // A client that advertises the extension with hints and selects variants in _meta.
    assert_eq!(
        report["aware"],
        json!({
            "protocolVersion": "2025-11-25",
            "advertised": ["full", "preview", "compact", "legacy"],
            "legacyDeprecation": {
                "message": "search_v1 is superseded by search in the full variant.",
                "replacement": "full",
                "removalDate": "2027-06-30"
            },
            "defaultTools": ["search", "fetch", "summarize"],
            "defaultPages": 2,
            "previewTools": ["search", "fetch", "summarize", "translate"],
            "previewPages": 2,
            "previewCall": ["translate (text) served by variant preview: hallo"],
            "legacyCall": ["search_v1 (q) served by variant legacy: old"],
            "invalidVariant": {
                "code": -32602,
                "message": "Invalid server variant",
                "data": {
                    "requestedVariant": "gpt-optimized",
                    "availableVariants": ["full", "preview", "compact", "legacy"]
                }
            }
        })
    );
}
