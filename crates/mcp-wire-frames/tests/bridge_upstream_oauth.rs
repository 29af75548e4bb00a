//! `mcp-frames bridge --upstream-oauth` as a process (feature `bridge`): before a fixtures
//! server that accepts only JWTs of the mock authorization server (`mcp_wire_tests::oauth`), the
//! bridge obtains a token with the client credentials grant of its pre-registered client and
//! relays a client's call.
#![cfg(feature = "bridge")]

use std::sync::Arc;
use std::time::Duration;

use mcp_wire_tests::oauth::{PEER_CLIENT, SCOPE, TestKey, greet_alice, start_as};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::oauth::{JwtValidator, ResourceServer};
use mcp_wire_transport::server::{Server, ServerConfig};
use tokio::io::{AsyncBufReadExt as _, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_signs_in_upstream_by_its_options() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    authz.sign_with(&key);
    let upstream_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", upstream_listener.local_addr().unwrap());
    let validator = JwtValidator::new(vec![authz.issuer.clone()], &upstream_url);
    let protected = ResourceServer::new(&upstream_url, vec![authz.issuer.clone()], validator)
        .with_required_scopes(vec![SCOPE.into()]);
    let upstream = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            authenticator: Arc::new(protected),
            ..ServerConfig::default()
        },
    );
    let upstream_task = tokio::spawn(async move {
        let _ = upstream.serve(upstream_listener).await;
    });

    let mut bridge = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
        .args(["bridge", "--listen", "http://127.0.0.1:0/mcp"])
        .args([
            "--server-url",
            &upstream_url,
            "--server-revisions",
            "2025-11-25",
        ])
        .args(["--upstream-oauth", "--upstream-client-credentials"])
        .args(["--upstream-client-id", PEER_CLIENT.0])
        .env("MCP_UPSTREAM_CLIENT_SECRET", PEER_CLIENT.1)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("mcp-frames bridge starts");
    let mut lines = BufReader::new(bridge.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the bridge prints its URL in time")
        .unwrap()
        .expect("a first line");
    let addr = url
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();

    assert_eq!(greet_alice(addr, None).await, "Hello, alice!");
    let requests = authz.state.token_requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["grant_type"], "client_credentials");
    let _ = bridge.kill().await;
    upstream_task.abort();
}
