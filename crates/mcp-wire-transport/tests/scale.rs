//! Replicas behind a load balancer: three `conformance_server` processes sharing a real
//! `redis-server` (`--store redis://…`, one `--secret-file`) behind HAProxy round-robin
//! without stickiness, every one on a free loopback port, every process killed by its own
//! handle when the test ends.
//!
//! - The official conformance suite through the balancer, at `--requirements 2025-11-25` and
//!   `--requirements 2026-07-28`: no failed check (totals in `<target>/conformance/scale.txt`).
//! - Faults: a replica killed with SIGKILL in the middle of a streamed answer; the client
//!   resumes the stream on another replica with `Last-Event-ID` and gets the events it missed,
//!   and the session goes on. Redis stopped: a request that needs it gets a JSON-RPC error
//!   naming the reason at once; Redis back: new sessions are served again.
//! - 2025-11-25 core tasks on two of the processes: each lists the other's task, and
//!   `tasks/result` on one carries the other's task's questions and result.

use std::process::Command;
use std::time::{Duration, Instant};

use http::StatusCode;
use mcp_wire_tests::services::{self, Cluster};
use serde_json::json;

#[path = "support/http.rs"]
mod http_client;
use http_client::{
    EXCHANGE, client, events, message, open_session, post, resume, session_id, text,
};
#[path = "support/replicated_tasks.rs"]
mod replicated_tasks;

/// Three (or `n`) `conformance_server` replicas with Redis behind HAProxy.
fn cluster(n: usize) -> Cluster {
    Cluster::start(n, || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_conformance_server"));
        command
            .args(["--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "error");
        command
    })
}

#[test]
fn the_suite_passes_through_the_balancer() {
    let cluster = cluster(3);
    let url = cluster.url();
    let mut totals = Vec::new();
    for revision in ["2025-11-25", "2026-07-28"] {
        let run = mcp_wire_tests::peers::peers().run_server_suite(
            &format!("3 replicas + Redis behind HAProxy, --requirements {revision}"),
            &url,
            &["--requirements", revision],
        );
        assert!(
            run.passed,
            "the suite through the balancer at {revision}:\n{}\n{}",
            run.stdout, run.stderr
        );
        totals.push(run.summary);
    }
    mcp_wire_tests::peers::write_totals("scale.txt", &totals);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_replica_loses_nothing_written_and_redis_outages_are_errors() {
    let mut cluster = tokio::task::spawn_blocking(|| cluster(3))
        .await
        .expect("the cluster starts");
    let client = client();
    let balanced = cluster.url();
    // A session opened on the first replica, and a tool that asks the client for a sampling
    // answer: its streamed answer holds the priming event and the request.
    let first = cluster.replicas[0].url();
    let session = open_session(&client, &first).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    let response = post(&client, &first, Some(&session), call).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let seen = events(&mut body, 2).await;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].data, "", "the priming event");
    let asked = message(&format!("data: {}", seen[1].data));
    assert_eq!(asked["method"], "sampling/createMessage");
    // Give the event log writer a moment, then kill the replica mid-answer.
    tokio::time::sleep(Duration::from_millis(300)).await;
    cluster.replicas[0].kill();
    drop(body);
    // The client lost its connection after the priming event: it resumes through the balancer
    // (on another replica) and gets the request it missed, under the same id, then the end.
    let started = Instant::now();
    let (status, replayed) = resume(&client, &balanced, &session, &seen[0].id).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(replayed, vec![seen[1].clone()]);
    assert!(started.elapsed() < EXCHANGE);
    // The session goes on on the two others, whichever the balancer picks.
    for n in 0..4 {
        let ping = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "ping"});
        let (status, body) = text(post(&client, &balanced, Some(&session), ping).await).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(message(&body)["result"], json!({}));
    }
    let list = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/list"});
    let (_, body) = text(post(&client, &balanced, Some(&session), list).await).await;
    let tools = message(&body)["result"]["tools"].clone();
    assert!(
        tools
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "test_simple_text")),
        "{body}"
    );

    // Redis stops: a request on the session is refused at once with the reason.
    let redis_port = cluster.redis.port;
    cluster.redis.kill();
    let started = Instant::now();
    let ping = json!({"jsonrpc": "2.0", "id": 30, "method": "ping"});
    let (status, body) = text(post(&client, &balanced, Some(&session), ping).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let error = message(&body)["error"].clone();
    assert_eq!(error["code"], -32603, "{body}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("the shared store is unavailable")),
        "{body}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once"
    );
    // Redis is back (empty: it kept nothing on disk): new sessions are served again.
    cluster.redis = tokio::task::spawn_blocking(move || services::start_redis(Some(redis_port)))
        .await
        .expect("Redis restarts");
    let deadline = Instant::now() + EXCHANGE;
    let session = loop {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "scale-test", "version": "1"}}});
        let response = post(&client, &balanced, None, init).await;
        if response.status() == StatusCode::OK {
            break session_id(response.headers()).expect("Mcp-Session-Id");
        }
        assert!(
            Instant::now() < deadline,
            "no session after Redis came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for n in 0..3 {
        let ping = json!({"jsonrpc": "2.0", "id": 40 + n, "method": "ping"});
        let (status, body) = text(post(&client, &balanced, Some(&session), ping).await).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_tasks_are_listed_and_their_results_carried_on_any_replica() {
    let cluster = tokio::task::spawn_blocking(|| cluster(2))
        .await
        .expect("the cluster starts");
    let (a, b) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    replicated_tasks::listed_and_carried_on_any_replica(&a, &b).await;
}
