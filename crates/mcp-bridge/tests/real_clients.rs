//! Real SDK clients through the bridge: the TypeScript SDK v1 client (1.32.x, legacy), SDK
//! 1.9.0 (newest revision 2024-11-05) and the Python SDK's legacy client drive the project's
//! conformance fixtures served at 2026-07-28 only (direction A) or at an older revision
//! (direction C), the bridge in front over Streamable HTTP or HTTP+SSE; the TypeScript SDK v2
//! client at 2026-07-28 goes through to the 2026-07-28 server (pass-through). The client script (`tests/peers/ts-client.mjs`) lists,
//! calls, reads, gets a prompt, subscribes, takes progress, follows a list change and
//! cancels, and prints what it saw. Loopback only; each client run is bounded.

use std::sync::Arc;
use std::time::Duration;

use mcp_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_transport::fixtures::ConformanceFixtures;
use mcp_transport::server::{Server, ServerConfig};
use mcp_types::ProtocolVersion;
use mcp_wire_tests::peers::peers;
use serde_json::{Value, json};

const RUN: Duration = Duration::from_secs(60);

/// The fixtures at `revisions` and the bridge in front of them; the bridge's `/mcp` URL.
async fn bridged(revisions: &[ProtocolVersion]) -> (String, Vec<tokio::task::JoinHandle<()>>) {
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", upstream.local_addr().unwrap());
    let server = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            revisions: revisions.to_vec(),
            ..ServerConfig::default()
        },
    );
    let up = tokio::spawn(async move {
        let _ = server.serve(upstream).await;
    });
    let bridge = Arc::new(
        Bridge::connect(&UpstreamTarget::Url(upstream_url), BridgeOptions::default())
            .await
            .expect("the bridge connects"),
    );
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = tokio::spawn(async move {
        let _ = bridge.serve_http(front, "/mcp").await;
    });
    (url, vec![up, serving])
}

async fn observe(command: std::process::Command) -> Value {
    let mut command = tokio::process::Command::from(command);
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

fn ts_client(sdk: &str, args: &[&str]) -> std::process::Command {
    let mut command = peers().script("ts-client.mjs").unwrap();
    command.arg(sdk).args(args);
    command
}

fn assert_fixtures(report: &Value) {
    assert_eq!(report["server"], "mcp-wire-conformance-server", "{report}");
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
    assert_eq!(report["subscribe"], json!({}), "{report}");
    assert_eq!(report["listChanged"], true, "{report}");
    assert_eq!(report["addedTool"], true, "{report}");
    assert_eq!(report["cancel"], "cancelled", "{report}");
    assert_eq!(report["afterCancel"], "ok", "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v1_client_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let report = observe(ts_client(
        "@modelcontextprotocol/sdk",
        &["streamable", &url],
    ))
    .await;
    // The client's own revision is presented; the upstream speaks only 2026-07-28.
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_fixtures(&report);
    assert_eq!(report["progress"], json!([0, 50, 100]), "{report}");
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2024_11_05_client_over_http_sse_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let sse = url.replace("/mcp", "/sse");
    let report = observe(ts_client("mcp-sdk-2024-11-05", &["sse", &sse])).await;
    assert_fixtures(&report);
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v1_client_uses_a_2025_03_26_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2025_03_26]).await;
    let report = observe(ts_client(
        "@modelcontextprotocol/sdk",
        &["streamable", &url],
    ))
    .await;
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_fixtures(&report);
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_legacy_client_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/py-client.py");
    let mut command = std::process::Command::new(peers().python());
    command.arg(script).arg(&url);
    let report = observe(command).await;
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(report["tools"], 28, "{report}");
    assert_eq!(
        report["text"], "This is a simple text response for testing.",
        "{report}"
    );
    assert_eq!(report["subscribe"], "ok", "{report}");
    assert_eq!(report["listChanged"], true, "{report}");
    assert_eq!(report["cancel"], "cancelled", "{report}");
    assert_eq!(report["afterCancel"], "ok", "{report}");
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v2_client_at_2026_07_28_passes_through_to_a_2026_07_28_server() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let mut command = peers().script("ts-v2-client.mjs").unwrap();
    command.arg(&url);
    let report = observe(command).await;
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    println!("{report}");
    assert_eq!(report["era"], "modern", "{report}");
    assert_eq!(report["tools"], 28, "{report}");
    assert_eq!(
        report["text"], "This is a simple text response for testing.",
        "{report}"
    );
    tasks.iter().for_each(|t| t.abort());
}
