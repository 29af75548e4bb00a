//! Real clients judge our server: the official SDK clients (`tests/peers/`, pinned and installed
//! by `mcp_wire_tests::peers`) drive `conformance_server` — list, call, read, get, subscribe,
//! follow a list change, take progress and cancel — and print what they saw; these tests assert
//! on it. The Python SDK and TypeScript SDK v1 clients over Streamable HTTP at 2025-06-18 and
//! 2025-11-25 and over stdio, the TypeScript SDK v2 client at 2026-07-28 (HTTP and stdio), and SDK
//! 1.9.0 (newest revision 2024-11-05) over HTTP+SSE. Loopback only; each client run is bounded.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use mcp_wire_tests::peers::peers;
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

/// The longest a client run may take.
const RUN: Duration = Duration::from_secs(60);

/// `conformance_server` on a free loopback port offering `revisions` (all five when `None`);
/// returns it and its `/mcp` URL.
async fn server(revisions: Option<&str>) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance_server"));
    command.args(["--listen", "127.0.0.1:0"]);
    if let Some(revisions) = revisions {
        command.args(["--revisions", revisions]);
    }
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("conformance_server starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(RUN, lines.next_line())
        .await
        .expect("conformance_server prints its URL")
        .unwrap()
        .expect("a URL line");
    (child, url)
}

/// Runs a client to its end and reads the JSON object it prints.
async fn observe(command: std::process::Command) -> Value {
    let mut command = Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(RUN, command.output())
        .await
        .unwrap_or_else(|_| panic!("{command:?} did not finish within {RUN:?}"))
        .expect("the client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client failed ({}):\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("the client printed no JSON ({e}):\n{stderr}"))
}

/// The progress values a client saw, as numbers (Python reports floats, TypeScript integers).
fn progress(report: &Value) -> Vec<f64> {
    report["progress"]
        .as_array()
        .expect("a progress list")
        .iter()
        .filter_map(Value::as_f64)
        .collect()
}

/// What every client must see of the fixtures.
fn assert_fixtures(report: &Value) {
    assert_eq!(report["tools"], 28, "{report}");
    assert_eq!(
        report["text"], "This is a simple text response for testing.",
        "{report}"
    );
    assert_eq!(
        report["resource"], "This is the content of the static text resource.",
        "{report}"
    );
    assert_eq!(
        report["prompt"], "Prompt with arguments: arg1='a', arg2='b'",
        "{report}"
    );
    assert_eq!(report["cancel"], "cancelled", "{report}");
}

/// How much of the progress a client reports.
#[derive(Clone, Copy)]
enum Progress {
    /// All three notifications, in order.
    All,
    /// A TypeScript SDK client (v1 or v2) on a single-stream transport (stdio, HTTP+SSE): the server
    /// sends 0, 50, 100 and then the result in that order (`the_stdio_server_sends_progress_before_
    /// the_result` in client_peers.rs checks the wire), but when the last notification and the
    /// result arrive in one read the client drops the notification with its handler. The prefix
    /// up to 50 must be there, in order.
    PrefixOnSingleStream,
}

fn assert_progress(report: &Value, expected: Progress) {
    let seen = progress(report);
    match expected {
        Progress::All => assert_eq!(seen, [0.0, 50.0, 100.0], "{report}"),
        Progress::PrefixOnSingleStream => assert!(
            seen.len() >= 2 && [0.0, 50.0, 100.0].starts_with(&seen),
            "{report}"
        ),
    }
}

/// What a handshake-era client of 2025-06-18 or later must see.
fn assert_handshake_session(report: &Value, revision: &str, expected: Progress) {
    assert_eq!(report["protocolVersion"], revision, "{report}");
    assert_fixtures(report);
    assert_progress(report, expected);
    assert_eq!(report["listChanged"], true, "{report}");
    assert_eq!(report["addedTool"], true, "{report}");
    assert_eq!(report["afterCancel"], "ok", "{report}");
}

/// What the TypeScript SDK v2 client must see at 2026-07-28.
fn assert_modern_session(report: &Value, expected: Progress) {
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    assert_eq!(report["era"], "modern", "{report}");
    assert_eq!(report["server"], "mcp-wire-conformance-server");
    assert_fixtures(report);
    assert_progress(report, expected);
    assert_eq!(
        report["honored"],
        json!({"toolsListChanged": true}),
        "{report}"
    );
    assert_eq!(report["listChanged"], true, "{report}");
    assert_eq!(report["subscriptionEnd"], "local", "{report}");
    assert_eq!(
        report["afterCancel"], "This is a simple text response for testing.",
        "{report}"
    );
}

fn ts_client(sdk: &str, args: &[&str]) -> std::process::Command {
    let mut command = peers().script("ts-client.mjs").unwrap();
    command.arg(sdk).args(args);
    command
}

fn py_client(args: &[&str]) -> std::process::Command {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py-client.py");
    let mut command = std::process::Command::new(peers().python());
    command.arg(script).args(args);
    command
}

/// `conformance_server` as a stdio child: the command line a client launches.
const SERVER: &str = env!("CARGO_BIN_EXE_conformance_server");

#[tokio::test]
async fn typescript_sdk_v1_client_over_streamable_http() {
    for revision in ["2025-06-18", "2025-11-25"] {
        let (_server, url) = server(Some(revision)).await;
        let report = observe(ts_client(
            "@modelcontextprotocol/sdk",
            &["streamable", &url],
        ))
        .await;
        assert_handshake_session(&report, revision, Progress::All);
        assert_eq!(report["server"], "mcp-wire-conformance-server");
        assert_eq!(report["subscribe"], json!({}), "{report}");
    }
}

#[tokio::test]
async fn python_sdk_client_over_streamable_http() {
    for revision in ["2025-06-18", "2025-11-25"] {
        let (_server, url) = server(Some(revision)).await;
        let report = observe(py_client(&[&url])).await;
        assert_handshake_session(&report, revision, Progress::All);
        assert_eq!(report["subscribe"], "ok", "{report}");
    }
}

#[tokio::test]
async fn typescript_sdk_v2_client_at_2026_07_28() {
    // All five revisions offered: the client discovers and picks 2026-07-28 itself.
    let (_server, url) = server(None).await;
    let mut command = peers().script("ts-v2-client.mjs").unwrap();
    command.arg(&url);
    assert_modern_session(&observe(command).await, Progress::All);
}

#[tokio::test]
async fn a_2024_11_05_client_over_http_sse() {
    let (_server, url) = server(Some("2024-11-05")).await;
    let sse = url.replace("/mcp", "/sse");
    let report = observe(ts_client("mcp-sdk-2024-11-05", &["sse", &sse])).await;
    assert_eq!(report["server"], "mcp-wire-conformance-server");
    assert_fixtures(&report);
    assert_eq!(report["subscribe"], json!({}), "{report}");
    assert_eq!(report["addedTool"], true, "{report}");
    assert_eq!(report["afterCancel"], "ok", "{report}");
    assert_progress(&report, Progress::PrefixOnSingleStream);
    // The change is pushed on the HTTP+SSE event stream, as on the other transports.
    assert_eq!(report["listChanged"], true, "{report}");
}

#[tokio::test]
async fn sdk_clients_over_stdio() {
    let legacy = ["--stdio", "--revisions", "2025-11-25"];
    let mut args = vec!["stdio", SERVER];
    args.extend(legacy);
    let report = observe(ts_client("@modelcontextprotocol/sdk", &args)).await;
    assert_handshake_session(&report, "2025-11-25", Progress::PrefixOnSingleStream);
    assert_eq!(report["subscribe"], json!({}), "{report}");

    let mut args = vec!["--stdio", SERVER];
    args.extend(legacy);
    let report = observe(py_client(&args)).await;
    assert_handshake_session(&report, "2025-11-25", Progress::All);

    let mut command = peers().script("ts-v2-client.mjs").unwrap();
    command.args(["stdio", SERVER, "--stdio"]);
    assert_modern_session(&observe(command).await, Progress::PrefixOnSingleStream);
}
