//! Three `variants_http` replicas sharing a real `redis-server` (`--store redis://…`, one
//! `--secret-file`) behind HAProxy round-robin without stickiness, each on a free loopback
//! port; every process is killed by its own handle when the test ends.
//!
//! - A session opened through the balancer keeps its negotiated list and default on every
//!   replica; a page cursor one replica signs, another accepts; a 2026-07-28 client gets the
//!   plain first-ranked variant from any of them.
//! - A subscription made on one replica sends its tagged updates to the session's standalone
//!   stream held by another; unsubscribing on a third stops them.
//! - Every key the variants layer writes in Redis has a time to live.

mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use axum::body::Bytes;
use common::tool_names;
use http::Method;
use http_body_util::Empty;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_wire_tests::oauth::{send, sse_messages};
use mcp_wire_tests::services::{self, Cluster};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const EXT: &str = "io.modelcontextprotocol/server-variants";
const SELECTOR: &str = "io.modelcontextprotocol/server-variant";
const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
const ALICE: (&str, &str) = ("authorization", "Bearer alice");

/// The keys under `prefix` in the cluster's Redis, each with its time to live in seconds.
fn keys_with_ttl(cluster: &Cluster, prefix: &str) -> Vec<(String, i64)> {
    let cli = services::program("redis-cli").expect("redis-cli installed");
    let port = cluster.redis.port.to_string();
    let out = Command::new(&cli)
        .args(["-p", &port, "--scan", "--pattern", &format!("{prefix}*")])
        .output()
        .expect("redis-cli runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|key| {
            let ttl = Command::new(&cli)
                .args(["-p", &port, "TTL", key])
                .output()
                .expect("redis-cli runs");
            let ttl = String::from_utf8_lossy(&ttl.stdout).trim().parse().unwrap();
            (key.to_owned(), ttl)
        })
        .collect()
}

/// Three `variants_http` replicas with Redis behind HAProxy (`REPLICA_LOG` sets their
/// `RUST_LOG`).
async fn start_cluster() -> Cluster {
    let command = || {
        let mut command = Command::new(common::example("variants_http"));
        command
            .args(["--listen", "127.0.0.1:0", "--tick-ms", "100"])
            .env(
                "RUST_LOG",
                std::env::var("REPLICA_LOG").unwrap_or("error".into()),
            );
        command
    };
    tokio::task::spawn_blocking(move || Cluster::start(3, command))
        .await
        .expect("the cluster starts")
}

/// Opens a 2025-11-25 session opted in to the extension at `addr`: its id and the
/// advertised variant ids.
async fn open_session(addr: SocketAddr) -> (String, Vec<String>) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"extensions": {EXT: {}}},
        "clientInfo": {"name": "replicas", "version": "0"}}});
    let reply = send(addr, Method::POST, "/mcp", &[ACCEPT, ALICE], &init).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let session = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let ids = reply.messages()[0]["result"]["capabilities"]["extensions"][EXT]["availableVariants"]
        .as_array()
        .expect("availableVariants")
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(
        addr,
        Method::POST,
        "/mcp",
        &[ACCEPT, ALICE, ("mcp-session-id", &session)],
        &initialized,
    )
    .await;
    assert_eq!(reply.status, 202, "{}", reply.body);
    (session, ids)
}

/// One request of `session` at `addr`: its JSON-RPC answer.
async fn call(addr: SocketAddr, session: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = send(
        addr,
        Method::POST,
        "/mcp",
        &[ACCEPT, ALICE, ("mcp-session-id", session)],
        &body,
    )
    .await;
    assert_eq!(reply.status, 200, "{method} at {addr}: {}", reply.body);
    reply.messages().pop().expect("an answer")
}

/// Opens the session's standalone GET stream at `addr`; its JSON-RPC messages arrive on the
/// receiver.
async fn open_stream(addr: SocketAddr, session: &str) -> mpsc::UnboundedReceiver<Value> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let request = http::Request::get(format!("http://{addr}/mcp"))
        .header("accept", "text/event-stream")
        .header(ALICE.0, ALICE.1)
        .header("mcp-session-id", session)
        .body(Empty::new())
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), client.request(request))
        .await
        .expect("the stream opens in time")
        .expect("the stream opens");
    assert_eq!(response.status(), 200);
    sse_messages(response.into_body())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_the_same_on_every_replica() {
    let cluster = start_cluster().await;
    let (session, ids) = open_session(cluster.balancer()).await;
    assert_eq!(ids, ["compact", "full", "preview", "legacy"]);
    let replicas: Vec<SocketAddr> = cluster.replicas.iter().map(|r| r.addr).collect();
    // Each replica directly, then the balancer (round-robin) as often.
    let targets: Vec<SocketAddr> = replicas
        .iter()
        .copied()
        .chain(std::iter::repeat_n(cluster.balancer(), 3))
        .collect();
    for (n, addr) in targets.iter().enumerate() {
        // The session default (the head of the list) without a selector.
        let plain = call(*addr, &session, "tools/list", json!({})).await;
        assert_eq!(tool_names(&plain), ["search"], "default at {addr}");
        // Alice's preview variant, selected in _meta.
        let preview = call(
            *addr,
            &session,
            "tools/list",
            json!({"_meta": {SELECTOR: "preview"}}),
        )
        .await;
        assert_eq!(tool_names(&preview), ["search", "fetch"], "{preview}");
        // Its cursor, signed here, is accepted by the next replica.
        let cursor = preview["result"]["nextCursor"]
            .as_str()
            .expect("a second page")
            .to_owned();
        let next = replicas[(n + 1) % replicas.len()];
        let page = call(
            next,
            &session,
            "tools/list",
            json!({"cursor": cursor, "_meta": {SELECTOR: "preview"}}),
        )
        .await;
        assert_eq!(tool_names(&page), ["summarize", "translate"], "{page}");
    }
    // A 2026-07-28 request through the balancer: the plain first-ranked stable variant.
    for id in 0..3 {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "0"}}}});
        let reply = send(
            cluster.balancer(),
            Method::POST,
            "/mcp",
            &[
                ACCEPT,
                ALICE,
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
            ],
            &body,
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(tool_names(&reply.messages()[0]), ["search"]);
    }
    // The snapshot is in Redis, with the session's idle limit as its time to live.
    let keys = keys_with_ttl(&cluster, "mcp-wire-variants:");
    assert_eq!(
        keys.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        [format!("mcp-wire-variants:session:{session}")]
    );
    assert!(keys.iter().all(|(_, ttl)| *ttl > 0), "{keys:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_reach_the_stream_on_another_replica() {
    let cluster = start_cluster().await;
    let [a, b, c] = [0, 1, 2].map(|i| cluster.replicas[i].addr);
    let (session, _) = open_session(a).await;
    let mut stream = open_stream(c, &session).await;
    let subscribe = json!({"uri": "demo://index", "_meta": {SELECTOR: "full"}});
    let answer = call(b, &session, "resources/subscribe", subscribe.clone()).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    // Updates from the provider stream on b arrive on c's standalone stream, tagged.
    for _ in 0..3 {
        let update = tokio::time::timeout(Duration::from_secs(5), stream.recv())
            .await
            .expect("an update within 5 s")
            .expect("the stream is open");
        assert_eq!(update["method"], "notifications/resources/updated");
        assert_eq!(update["params"]["uri"], "demo://index");
        assert_eq!(update["params"]["_meta"][SELECTOR], "full");
    }
    // Unsubscribed on a: the stream on b stops; after what was in flight, nothing arrives.
    let answer = call(a, &session, "resources/unsubscribe", subscribe).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    while stream.try_recv().is_ok() {}
    let late = tokio::time::timeout(Duration::from_millis(800), stream.recv()).await;
    assert!(late.is_err(), "an update after unsubscribing: {late:?}");
}
