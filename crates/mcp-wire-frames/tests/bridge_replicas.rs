//! `mcp-frames bridge --listen http://… --store redis://… --secret-file …` as replicas (three, or
//! two) behind HAProxy round-robin without stickiness (feature `redis`), before one upstream (the
//! conformance fixtures at 2026-07-28, in this process). Every process on a free loopback
//! port, killed by its own handle when the test ends.
//!
//! - A 2025-11-25 client's session, opened through the balancer, is served by every replica
//!   (each bridges it to the upstream on its own connection).
//!   Its log level, set on one replica, is stamped upstream by the others.
//! - 2026-07-28 requests through the balancer are served by every replica.
//! - A server→client round trip in flight on one replica (the upstream's input request, sent
//!   to the client as `sampling/createMessage` on the call's stream) is completed by the
//!   client's answer posted to another.
#![cfg(feature = "redis")]

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_wire::ProtocolVersion;
use mcp_wire_tests::oauth::{send, sse_messages};
use mcp_wire_tests::services::Cluster;
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

/// `n` bridge replicas before `upstream`, with Redis behind HAProxy.
fn cluster(upstream: &str, n: usize) -> Cluster {
    Cluster::start(n, || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-frames"));
        command
            .args([
                "bridge",
                "--listen",
                "http://127.0.0.1:0/mcp",
                "--server-url",
            ])
            .arg(upstream)
            .env("RUST_LOG", "error");
        command
    })
}

/// The fixtures at `revisions`, served in this process: their URL.
async fn upstream(revisions: Vec<ProtocolVersion>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            revisions,
            ..ServerConfig::default()
        },
    );
    tokio::spawn(async move {
        let _ = server.serve(listener).await;
    });
    url
}

/// One POST at `addr`: the HTTP status and the last JSON-RPC message of the answer.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let reply = send(addr, Method::POST, "/mcp", headers, body).await;
    let last = reply.messages().pop().unwrap_or(Value::Null);
    (reply.status, last)
}

fn simple_text_call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_of_either_era_are_served_by_every_replica() {
    let url = upstream(vec![ProtocolVersion::V2026_07_28]).await;
    let cluster = tokio::task::spawn_blocking(move || cluster(&url, 3))
        .await
        .expect("the cluster starts");
    let balancer = cluster.balancer();
    // A 2025-11-25 session, opened through the balancer.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "replicas", "version": "0"}}});
    let reply = send(balancer, Method::POST, "/mcp", &[ACCEPT], &init).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.messages()[0]["result"]["protocolVersion"],
        "2025-11-25"
    );
    let session = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let with_session = [ACCEPT, ("mcp-session-id", session.as_str())];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) = post(balancer, &with_session, &initialized).await;
    assert_eq!(status, 202);
    // Each replica directly, then the balancer as often.
    let targets: Vec<SocketAddr> = cluster
        .replicas
        .iter()
        .map(|r| r.addr)
        .chain(std::iter::repeat_n(balancer, 3))
        .collect();
    for (n, addr) in (1..).zip(&targets) {
        let (status, answer) = post(*addr, &with_session, &simple_text_call(n)).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["id"], n);
        assert_eq!(
            answer["result"]["content"][0]["text"], "This is a simple text response for testing.",
            "{answer}"
        );
    }
    // The session's log level, set on one replica, is stamped upstream by the others: the
    // upstream logs only at a level it is given.
    let set_level = json!({"jsonrpc": "2.0", "id": 20, "method": "logging/setLevel",
        "params": {"level": "debug"}});
    let (status, answer) = post(cluster.replicas[0].addr, &with_session, &set_level).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"], json!({}), "{answer}");
    for (n, replica) in (21..).zip(&cluster.replicas[1..]) {
        let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "test_tool_with_logging", "arguments": {}}});
        let reply = send(replica.addr, Method::POST, "/mcp", &with_session, &call).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let logs: Vec<Value> = reply
            .messages()
            .into_iter()
            .filter(|m| m["method"] == "notifications/message")
            .map(|m| m["params"]["data"].clone())
            .collect();
        assert_eq!(
            logs,
            [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed"
            ],
            "at {}: {}",
            replica.addr,
            reply.body
        );
    }
    // 2026-07-28: no session; each request names its revision and client.
    for (n, addr) in (10..).zip(&targets) {
        let mut call = simple_text_call(n);
        call["params"]["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "0"}});
        let headers = [
            ACCEPT,
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_simple_text"),
        ];
        let (status, answer) = post(*addr, &headers, &call).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(
            answer["result"]["content"][0]["text"], "This is a simple text response for testing.",
            "{answer}"
        );
    }
    // DELETE on one replica ends the session on all of them.
    let reply = send(
        cluster.replicas[0].addr,
        Method::DELETE,
        "/mcp",
        &with_session,
        &Value::Null,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    for replica in &cluster.replicas {
        let (status, _) = post(replica.addr, &with_session, &simple_text_call(99)).await;
        assert_eq!(status, 404, "the ended session at {}", replica.addr);
    }
}

/// A POST at `addr` whose answer is an event stream: its JSON-RPC messages as they arrive.
async fn post_streaming(
    addr: SocketAddr,
    headers: &[(&str, &str)],
    body: &Value,
) -> mpsc::UnboundedReceiver<Value> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut request = http::Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), client.request(request))
        .await
        .expect("an answer in time")
        .expect("an answer");
    assert_eq!(response.status(), 200);
    sse_messages(response.into_body())
}

async fn next_message(rx: &mut mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a message within 10 s")
        .expect("the stream is open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_trip_started_on_one_replica_is_answered_on_another() {
    let url = upstream(vec![ProtocolVersion::V2026_07_28]).await;
    let cluster = tokio::task::spawn_blocking(move || cluster(&url, 2))
        .await
        .expect("the cluster starts");
    let [first, second] = [0, 1].map(|i| cluster.replicas[i].addr);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
        "clientInfo": {"name": "replicas", "version": "0"}}});
    let reply = send(cluster.balancer(), Method::POST, "/mcp", &[ACCEPT], &init).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let session = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let with_session = [
        ACCEPT,
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) = post(cluster.balancer(), &with_session, &initialized).await;
    assert_eq!(status, 202);
    // The call on the first replica: the upstream's input request reaches the client on the
    // call's stream.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    let mut stream = post_streaming(first, &with_session, &call).await;
    let asked = next_message(&mut stream).await;
    assert_eq!(asked["method"], "sampling/createMessage", "{asked}");
    // The client's answer, posted to the second replica.
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "sampled elsewhere"},
        "model": "test-model"}});
    let (status, body) = post(second, &with_session, &answer).await;
    assert_eq!(status, 202, "{body}");
    // The first replica completes the call with it.
    let done = next_message(&mut stream).await;
    assert_eq!(done["id"], 7, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "LLM response: sampled elsewhere",
        "{done}"
    );
}
