//! Helpers shared by the integration tests: locating the example binary and the target dir.
// Each integration-test crate compiles this module and uses only some of it.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// The cargo target directory this test binary was built into (`…/target`).
pub fn target_dir() -> PathBuf {
    // The test binary lives at <target>/<profile>/deps/<name>-<hash>.
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    exe.ancestors()
        .nth(3)
        .expect("test binaries live in <target>/<profile>/deps")
        .to_path_buf()
}

/// The `variants_stdio` example, which `cargo test` builds alongside the integration tests.
pub fn example_binary() -> PathBuf {
    example("variants_stdio")
}

/// An example of this crate, which `cargo test` builds alongside the integration tests.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in <target>/<profile>/deps");
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let path = profile_dir.join("examples").join(file);
    assert!(
        path.exists(),
        "{} is missing: `cargo test -p mcp-wire-variants` builds it (or `cargo build -p mcp-wire-variants --example {name}`)",
        path.display()
    );
    path
}

/// The tool names of a `tools/list` answer, in its order.
pub fn tool_names(answer: &Value) -> Vec<String> {
    answer["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools/list result: {answer}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}
