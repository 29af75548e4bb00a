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

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcp_wire_tests::services::{self, Service};
use serde_json::{Value, json};

/// One `conformance_server` replica, killed (SIGKILL, by its own handle) when dropped.
struct Replica {
    child: Child,
    addr: SocketAddr,
}

impl Replica {
    fn start(redis_port: u16, secret: &std::path::Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
            .args(["--listen", "127.0.0.1:0", "--store"])
            .arg(format!("redis://127.0.0.1:{redis_port}"))
            .arg("--secret-file")
            .arg(secret)
            .env("RUST_LOG", "error")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("conformance_server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("conformance_server prints its URL");
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|s| s.strip_suffix("/mcp"))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        Self { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Redis, the replicas and the balancer in front of them.
struct Cluster {
    replicas: Vec<Replica>,
    balancer: Service,
    redis: Service,
    _dir: TempDir,
}

impl Cluster {
    fn start(replicas: usize) -> Self {
        let dir = TempDir::new();
        let secret = dir.0.join("secret");
        let mut bytes = [0u8; 48];
        getrandom::fill(&mut bytes).expect("OS randomness");
        std::fs::write(&secret, bytes).expect("the secret file");
        let redis = services::start_redis(None);
        let replicas: Vec<Replica> = (0..replicas)
            .map(|_| Replica::start(redis.port, &secret))
            .collect();
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let balancer = services::start_haproxy(&dir.0, &addrs);
        Self {
            replicas,
            balancer,
            redis,
            _dir: dir,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.balancer.port)
    }
}

/// A directory under the target dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        let mut n = [0u8; 8];
        getrandom::fill(&mut n).expect("OS randomness");
        let dir = mcp_wire_tests::peers::target_dir()
            .join("scale")
            .join(format!("{:016x}", u64::from_le_bytes(n)));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_suite_passes_through_the_balancer() {
    let cluster = Cluster::start(3);
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

type HttpClient = Client<HttpConnector, Full<Bytes>>;

fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// Within this, every exchange of the fault tests ends.
const EXCHANGE: Duration = Duration::from_secs(15);

/// A POST of `body` (to a session when `session` names one); the response with its body
/// still to read.
async fn post(
    client: &HttpClient,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> http::Response<hyper::body::Incoming> {
    let mut request = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(s) = session {
        request = request
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request");
    tokio::time::timeout(EXCHANGE, client.request(request))
        .await
        .expect("an answer in time")
        .expect("the exchange")
}

/// The whole body of `response`, bounded in time.
async fn text(response: http::Response<hyper::body::Incoming>) -> (StatusCode, String) {
    let status = response.status();
    let body = tokio::time::timeout(EXCHANGE, response.into_body().collect())
        .await
        .expect("the body in time")
        .expect("the body");
    (
        status,
        String::from_utf8_lossy(&body.to_bytes()).into_owned(),
    )
}

/// The JSON-RPC message of an answer sent as JSON or as one SSE `data:` line.
fn message(body: &str) -> Value {
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|l| !l.trim().is_empty())
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))
}

/// `initialize` (declaring sampling) and `notifications/initialized` at `url`: the session id.
async fn open_session(client: &HttpClient, url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"sampling": {}},
        "clientInfo": {"name": "scale-test", "version": "1"}}});
    let response = post(client, url, None, init).await;
    let session = session_id(response.headers()).expect("Mcp-Session-Id");
    let (status, body) = text(response).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(message(&body)["result"]["protocolVersion"], "2025-11-25");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) = text(post(client, url, Some(&session), initialized).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    session
}

fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// One SSE event: its id and its data.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: String,
    data: String,
}

/// Reads events from an SSE body until `count` have come (keep-alive comments skipped).
async fn events(body: &mut hyper::body::Incoming, count: usize) -> Vec<Event> {
    let mut buffer = String::new();
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + EXCHANGE;
    while out.len() < count {
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .expect("events in time");
        let Some(frame) = frame else { break };
        if let Ok(data) = frame.expect("a body frame").into_data() {
            buffer.push_str(&String::from_utf8_lossy(&data));
        }
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let mut event = Event {
                id: String::new(),
                data: String::new(),
            };
            for line in block.lines() {
                if let Some(id) = line.strip_prefix("id: ") {
                    event.id = id.to_owned();
                } else if let Some(data) = line.strip_prefix("data: ") {
                    event.data.push_str(data);
                }
            }
            if !event.id.is_empty() {
                out.push(event);
            }
        }
    }
    out
}

/// A GET resuming a stream after `last_event_id`: every event it replays until it ends.
async fn resume(
    client: &HttpClient,
    url: &str,
    session: &str,
    last_event_id: &str,
) -> (StatusCode, Vec<Event>) {
    let request = Request::get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last_event_id)
        .body(Full::new(Bytes::new()))
        .expect("a request");
    let response = tokio::time::timeout(EXCHANGE, client.request(request))
        .await
        .expect("an answer in time")
        .expect("the exchange");
    let status = response.status();
    let mut body = response.into_body();
    (status, events(&mut body, usize::MAX).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_replica_loses_nothing_written_and_redis_outages_are_errors() {
    let mut cluster = tokio::task::spawn_blocking(|| Cluster::start(3))
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
