//! Real clients judge our server: the official SDK clients (the plan clients of `tests/peers/`,
//! pinned and installed by `mcp_wire_tests::peers`) run the fixture plan against
//! `conformance_server` (`mcp_wire_tests::plans::fixture_plan`: list, call, read, get,
//! subscribe, follow a list change, take progress and cancel) and print what they saw; these
//! tests assert on it. The Python SDK and TypeScript SDK v1 clients over Streamable HTTP at 2025-06-18 and
//! 2025-11-25 and over stdio, the TypeScript SDK v2 client at 2026-07-28 (HTTP and stdio), and SDK
//! 1.9.0 (newest revision 2024-11-05) over HTTP+SSE. Loopback only; each client run is bounded.

use std::process::Stdio;
use std::time::Duration;

use mcp_wire_tests::peers::peers;
use mcp_wire_tests::plans::{Outcome, Step, assert_fixtures, fixture_plan, plan_env};
use serde_json::json;
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

/// Runs a plan client with `plan` to its end and reads the JSON object it prints.
async fn observe(mut command: std::process::Command, plan: &[Step]) -> Outcome {
    command.env("PLAN", plan_env(plan));
    let report = mcp_wire_tests::peers::run_to_json(command, RUN).await;
    Outcome::new(plan, report)
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

fn assert_progress(outcome: &Outcome, expected: Progress) {
    let seen = outcome.progress("progress");
    match expected {
        Progress::All => assert_eq!(seen, [0.0, 50.0, 100.0], "{}", outcome.report),
        Progress::PrefixOnSingleStream => assert!(
            seen.len() >= 2 && [0.0, 50.0, 100.0].starts_with(&seen),
            "{}",
            outcome.report
        ),
    }
}

/// The fixture plan by a handshake-era client; what it must see at `revision` (SDK 1.9.0 does
/// not report the revision it negotiated: `None`).
async fn handshake_session(
    command: std::process::Command,
    revision: Option<&str>,
    expected: Progress,
) {
    let outcome = observe(command, &fixture_plan(false)).await;
    if let Some(revision) = revision {
        assert_eq!(
            outcome.report["protocolVersion"], revision,
            "{}",
            outcome.report
        );
    }
    assert_fixtures(&outcome, false);
    assert_progress(&outcome, expected);
}

/// The fixture plan by the TypeScript SDK v2 client at 2026-07-28, its listen stream closed by
/// the client at the end.
async fn modern_session(command: std::process::Command, expected: Progress) {
    let mut plan = fixture_plan(true);
    plan.push(("close", json!({"op": "close"})));
    let outcome = observe(command, &plan).await;
    assert_eq!(
        outcome.report["protocolVersion"], "2026-07-28",
        "{}",
        outcome.report
    );
    assert_eq!(outcome.report["era"], "modern", "{}", outcome.report);
    assert_fixtures(&outcome, true);
    assert_progress(&outcome, expected);
    assert_eq!(
        outcome.step("close"),
        &json!(["local"]),
        "{}",
        outcome.report
    );
}

fn ts_client(sdk: &str, args: &[&str]) -> std::process::Command {
    let mut command = peers().script("ts-plan-client.mjs").unwrap();
    command.arg(sdk).args(args);
    command
}

fn py_client(args: &[&str]) -> std::process::Command {
    let mut command = peers().python_script("py-plan-client.py");
    command.arg("legacy").args(args);
    command
}

fn ts_v2_client(args: &[&str]) -> std::process::Command {
    let mut command = peers().script("ts-v2-plan-client.mjs").unwrap();
    command.args(args);
    command
}

/// `conformance_server` as a stdio child: the command line a client launches.
const SERVER: &str = env!("CARGO_BIN_EXE_conformance_server");

#[tokio::test]
async fn typescript_sdk_v1_client_over_streamable_http() {
    for revision in ["2025-06-18", "2025-11-25"] {
        let (_server, url) = server(Some(revision)).await;
        let client = ts_client("@modelcontextprotocol/sdk", &["streamable", &url]);
        handshake_session(client, Some(revision), Progress::All).await;
    }
}

#[tokio::test]
async fn python_sdk_client_over_streamable_http() {
    for revision in ["2025-06-18", "2025-11-25"] {
        let (_server, url) = server(Some(revision)).await;
        handshake_session(py_client(&[&url]), Some(revision), Progress::All).await;
    }
}

#[tokio::test]
async fn typescript_sdk_v2_client_at_2026_07_28() {
    // All five revisions offered; the client, pinned to 2026-07-28, gets it.
    let (_server, url) = server(None).await;
    modern_session(ts_v2_client(&[&url]), Progress::All).await;
}

#[tokio::test]
async fn a_2024_11_05_client_over_http_sse() {
    let (_server, url) = server(Some("2024-11-05")).await;
    let sse = url.replace("/mcp", "/sse");
    // The change is pushed on the HTTP+SSE event stream, as on the other transports.
    handshake_session(
        ts_client("mcp-sdk-2024-11-05", &["sse", &sse]),
        None,
        Progress::PrefixOnSingleStream,
    )
    .await;
}

#[tokio::test]
async fn sdk_clients_over_stdio() {
    let legacy = ["--stdio", "--revisions", "2025-11-25"];
    let mut args = vec!["stdio", SERVER];
    args.extend(legacy);
    let client = ts_client("@modelcontextprotocol/sdk", &args);
    handshake_session(client, Some("2025-11-25"), Progress::PrefixOnSingleStream).await;

    let mut args = vec!["--stdio", SERVER];
    args.extend(legacy);
    handshake_session(py_client(&args), Some("2025-11-25"), Progress::All).await;

    let client = ts_v2_client(&["stdio", SERVER, "--stdio"]);
    modern_session(client, Progress::PrefixOnSingleStream).await;
}
