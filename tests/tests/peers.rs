//! The pinned peers install (or are found installed) and are the versions `tests/peers/` pins.

use std::process::Command;

use mcp_wire_tests::peers::peers;

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().expect("running an installed peer");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .trim()
        .to_owned()
}

fn package_version(name: &str) -> String {
    let manifest = peers().package(name).join("package.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("package.json is JSON");
    json["version"].as_str().expect("a version").to_owned()
}

#[test]
fn node_is_22_and_runs_the_pinned_conformance_suite() {
    let node = stdout_of(Command::new(peers().node()).arg("--version"));
    assert!(node.starts_with("v22."), "node {node}");
    assert_eq!(
        stdout_of(peers().conformance().arg("--version")),
        "0.2.0-alpha.12"
    );
}

#[test]
fn npm_packages_are_the_pinned_versions() {
    for (name, version) in [
        ("@modelcontextprotocol/sdk", "1.32.2"),
        ("@modelcontextprotocol/client", "2.4.0"),
        ("@modelcontextprotocol/server", "2.4.0"),
        ("@modelcontextprotocol/server-everything", "2026.8.31"),
        ("mcp-sdk-2024-11-05", "1.9.0"),
    ] {
        assert_eq!(package_version(name), version, "{name}");
    }
}

#[test]
fn the_2024_11_05_sdk_knows_no_newer_revision() {
    let script = "const t = require('mcp-sdk-2024-11-05/types.js'); \
                  console.log(JSON.stringify([t.LATEST_PROTOCOL_VERSION, t.SUPPORTED_PROTOCOL_VERSIONS]))";
    let mut command = Command::new(peers().node());
    command
        .env("NODE_PATH", peers().node_modules())
        .args(["-e", script]);
    let versions: serde_json::Value = serde_json::from_str(&stdout_of(&mut command)).expect("JSON");
    assert_eq!(versions[0], "2024-11-05");
    assert!(
        versions[1]
            .as_array()
            .expect("a list")
            .iter()
            .all(|v| v.as_str() <= Some("2024-11-05")),
        "{versions}"
    );
}

#[test]
fn python_sdk_is_the_pinned_version() {
    let version = stdout_of(Command::new(peers().python()).args([
        "-c",
        "import importlib.metadata as m, mcp; print(m.version('mcp'))",
    ]));
    assert_eq!(version, "2.3.0");
}
