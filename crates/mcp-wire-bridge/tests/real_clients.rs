//! Real SDK clients through the bridge: the TypeScript SDK v1 client (1.32.x, legacy), SDK
//! 1.9.0 (newest revision 2024-11-05) and the Python SDK's legacy client drive the project's
//! conformance fixtures served at 2026-07-28 only (direction A) or at an older revision
//! (direction C), the bridge in front over Streamable HTTP or HTTP+SSE; the TypeScript SDK v2
//! client at 2026-07-28 goes through to the 2026-07-28 server (pass-through). Each runs the
//! fixture plan (`mcp_wire_tests::plans::fixture_plan`: list, call, read, get a prompt,
//! subscribe, take progress, follow a list change, cancel) with the plan clients of
//! `tests/peers/`. Loopback only; each client run is bounded.

use std::sync::Arc;

use mcp_wire::ProtocolVersion;
use mcp_wire_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_wire_tests::peers::peers;
use mcp_wire_tests::plans::{Outcome, assert_fixtures, fixture_plan, plan_env};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};

mod common;

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

/// Runs a plan client through the fixture plan and checks what every client must see.
async fn fixtures(mut command: std::process::Command, modern: bool) -> Outcome {
    let plan = fixture_plan(modern);
    command.env("PLAN", plan_env(&plan));
    let outcome = Outcome::new(&plan, common::observe(command).await);
    assert_fixtures(&outcome, modern);
    outcome
}

fn ts_client(sdk: &str, args: &[&str]) -> std::process::Command {
    let mut command = peers().script("ts-plan-client.mjs").unwrap();
    command.arg(sdk).args(args);
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v1_client_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let outcome = fixtures(
        ts_client("@modelcontextprotocol/sdk", &["streamable", &url]),
        false,
    )
    .await;
    // The client's own revision is presented; the upstream speaks only 2026-07-28.
    assert_eq!(outcome.report["protocolVersion"], "2025-11-25");
    assert_eq!(outcome.progress("progress"), [0.0, 50.0, 100.0]);
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2024_11_05_client_over_http_sse_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let sse = url.replace("/mcp", "/sse");
    fixtures(ts_client("mcp-sdk-2024-11-05", &["sse", &sse]), false).await;
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v1_client_uses_a_2025_03_26_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2025_03_26]).await;
    let outcome = fixtures(
        ts_client("@modelcontextprotocol/sdk", &["streamable", &url]),
        false,
    )
    .await;
    assert_eq!(outcome.report["protocolVersion"], "2025-11-25");
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_legacy_client_uses_a_2026_07_28_server_through_the_bridge() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let mut command = peers().python_script("py-plan-client.py");
    command.arg("legacy").arg(&url);
    let outcome = fixtures(command, false).await;
    assert_eq!(outcome.report["protocolVersion"], "2025-11-25");
    assert_eq!(outcome.progress("progress"), [0.0, 50.0, 100.0]);
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_v2_client_at_2026_07_28_passes_through_to_a_2026_07_28_server() {
    let (url, tasks) = bridged(&[ProtocolVersion::V2026_07_28]).await;
    let mut command = peers().script("ts-v2-plan-client.mjs").unwrap();
    command.arg(&url);
    let outcome = fixtures(command, true).await;
    assert_eq!(outcome.report["protocolVersion"], "2026-07-28");
    assert_eq!(outcome.report["era"], "modern");
    tasks.iter().for_each(|t| t.abort());
}
