//! The spans, events and metrics of a live server and of the bridge, end to end: traffic over
//! HTTP to an authenticated server (the conformance fixtures behind `BearerTokens`) and over
//! stdio through a bridge (a 2025-06-18 client, a 2026-07-28 upstream), the logs captured as
//! JSON lines by a subscriber of this test, the metrics scraped from a `MetricsEndpoint`.
//!
//! One test in its own binary: the subscriber and the metrics recorder are the process's.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire_bridge::{Bridge, BridgeLimits, BridgeOptions, UpstreamTarget};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{BearerTokens, Principal, Server, ServerConfig};
use mcp_wire_transport::stdio::{StdioOptions, pipe};
use mcp_wire_transport::telemetry::MetricsEndpoint;
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const LIMIT: Duration = Duration::from_secs(20);
const TOKEN: &str = "s3cret-token-5f2a9c";

/// Every line the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    fn lines(&self) -> Vec<Value> {
        self.text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

/// One HTTP/1.1 exchange (`Connection: close`): the status, the headers (lowercased names)
/// and the body.
async fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(LIMIT, stream.read_to_end(&mut raw))
        .await
        .expect("an answer in time")
        .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// A POST of one JSON-RPC message to the authenticated server.
async fn post(addr: &str, session: Option<&str>, token: &str, message: Value) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", auth.as_str()),
    ];
    if let Some(id) = session {
        headers.push(("mcp-session-id", id));
    }
    let (status, _, body) = http(addr, "POST", "/mcp", &headers, &message.to_string()).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// The value of one series in a Prometheus text exposition (`0` when absent).
fn sample(metrics: &str, series: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

async fn scrape(endpoint: &MetricsEndpoint) -> String {
    let (status, _, body) = http(
        &endpoint.local_addr().to_string(),
        "GET",
        "/metrics",
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);
    body
}

/// The captured events whose message is `message`.
fn events<'a>(lines: &'a [Value], message: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["fields"]["message"] == message)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_events_and_metrics_follow_the_traffic() {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::registry().with(
        tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .with_writer(move || writer.clone())
            .with_filter(tracing_subscriber::filter::LevelFilter::DEBUG),
    );
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let endpoint = MetricsEndpoint::bind("127.0.0.1:0").await.unwrap();

    // An authenticated server over HTTP.
    let tokens = BearerTokens::new().with_token(TOKEN, Principal::new("alice", vec![]));
    let server = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            authenticator: Arc::new(tokens),
            ..ServerConfig::default()
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let serving = server.clone();
    let http_task = tokio::spawn(async move {
        let _ = serving.serve(listener).await;
    });

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "telemetry-test", "version": "1"}}});
    let auth = format!("Bearer {TOKEN}");
    let (status, headers, _) = http(
        &addr,
        "POST",
        "/mcp",
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("authorization", &auth),
        ],
        &init.to_string(),
    )
    .await;
    assert_eq!(status, 200);
    let session = headers
        .iter()
        .find(|(n, _)| n == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session id");
    let s = Some(session.as_str());
    let (status, _) = post(
        &addr,
        s,
        TOKEN,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(status, 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}}});
    let (_, answer) = post(&addr, s, TOKEN, call).await;
    assert!(answer["result"]["content"].is_array(), "{answer}");
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
        "params": {"uri": "test://nope"}});
    let (_, answer) = post(&addr, s, TOKEN, unknown).await;
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
    let subscribe = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe",
        "params": {"uri": "test://static-text"}});
    let (_, answer) = post(&addr, s, TOKEN, subscribe).await;
    assert!(answer["result"].is_object(), "{answer}");
    // A token the server does not know.
    let (status, _) = post(
        &addr,
        s,
        "wrong",
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    )
    .await;
    assert_eq!(status, 401);

    let metrics = scrape(&endpoint).await;
    assert_eq!(sample(&metrics, "mcp_sessions_open"), 1.0, "{metrics}");
    assert_eq!(
        sample(&metrics, "mcp_subscriptions_open{kind=\"resource\"}"),
        1.0,
        "{metrics}"
    );
    let requests = |method: &str, outcome: &str| {
        sample(
            &metrics,
            &format!(
                "mcp_requests_total{{method=\"{method}\",revision=\"2025-11-25\",outcome=\"{outcome}\"}}"
            ),
        )
    };
    assert_eq!(requests("initialize", "result"), 1.0, "{metrics}");
    assert_eq!(requests("tools/call", "result"), 1.0, "{metrics}");
    assert_eq!(requests("resources/read", "-32002"), 1.0, "{metrics}");
    assert_eq!(
        sample(&metrics, "mcp_auth_failures_total"),
        1.0,
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "mcp_request_duration_seconds_count{method=\"tools/call\",revision=\"2025-11-25\"}"
        ),
        1.0,
        "{metrics}"
    );
    assert!(sample(&metrics, "mcp_bytes_received_total{transport=\"http\"}") > 100.0);
    assert!(sample(&metrics, "mcp_bytes_sent_total{transport=\"http\"}") > 100.0);

    // DELETE ends the session: its gauge and its subscription's go back to zero.
    let (status, _, _) = http(
        &addr,
        "DELETE",
        "/mcp",
        &[("authorization", &auth), ("mcp-session-id", &session)],
        "",
    )
    .await;
    assert_eq!(status, 200);
    let metrics = scrape(&endpoint).await;
    assert_eq!(sample(&metrics, "mcp_sessions_open"), 0.0, "{metrics}");
    assert_eq!(
        sample(&metrics, "mcp_subscriptions_open{kind=\"resource\"}"),
        0.0,
        "{metrics}"
    );

    // The bridge: a 2025-06-18 client on stdio, a 2026-07-28 upstream.
    let upstream = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            revisions: vec![ProtocolVersion::V2026_07_28],
            ..ServerConfig::default()
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let upstream_task = tokio::spawn(async move {
        let _ = upstream.serve(listener).await;
    });
    let bridge = Bridge::connect(
        &UpstreamTarget::Url(url),
        BridgeOptions::default().limits(BridgeLimits::default().max_frame_bytes(4096)),
    )
    .await
    .expect("the bridge connects");
    let (client_io, bridge_io) = tokio::io::duplex(1 << 16);
    let (bridge_read, bridge_write) = tokio::io::split(bridge_io);
    let bridging = tokio::spawn(async move {
        let _ = bridge.serve_lines(bridge_read, bridge_write).await;
    });
    let (client_read, client_write) = tokio::io::split(client_io);
    let mut client = pipe(client_read, client_write, StdioOptions::default()).connection;
    let answer = exchange(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "telemetry-test", "version": "1"}}}),
    )
    .await;
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
    send(
        &client,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let answer = exchange(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "test_simple_text", "arguments": {}}}),
    )
    .await;
    assert!(answer["result"]["content"].is_array(), "{answer}");
    // A line over the bridge's frame bound: refused `limit_exceeded`.
    let long = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {"pad": "x".repeat(8192)}}});
    let refused = exchange(&mut client, long).await;
    assert_eq!(
        refused["error"]["data"]["reason"], "limit_exceeded",
        "{refused}"
    );

    let metrics = scrape(&endpoint).await;
    assert_eq!(
        sample(
            &metrics,
            "mcp_bridge_refusals_total{reason=\"limit_exceeded\"}"
        ),
        1.0,
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "mcp_requests_total{method=\"tools/call\",revision=\"2025-06-18\",outcome=\"result\"}"
        ),
        1.0,
        "{metrics}"
    );
    assert_eq!(
        sample(
            &metrics,
            "mcp_requests_total{method=\"tools/call\",revision=\"2026-07-28\",outcome=\"result\"}"
        ),
        1.0,
        "{metrics}"
    );
    assert!(sample(&metrics, "mcp_bytes_received_total{transport=\"stdio\"}") > 100.0);
    client.close();
    let _ = tokio::time::timeout(LIMIT, bridging).await;
    upstream_task.abort();
    http_task.abort();

    // The logs.
    let text = captured.text();
    assert!(!text.contains(TOKEN), "the token was logged");
    let lines = captured.lines();
    let answered = events(&lines, "answered");
    let span_of = |method: &str, revision: &str| {
        answered
            .iter()
            .map(|l| &l["span"])
            .find(|s| s["method"] == method && s["revision"] == revision)
            .unwrap_or_else(|| panic!("no {method} at {revision}: {text}"))
            .clone()
    };
    let call = span_of("tools/call", "2025-11-25");
    assert_eq!(call["name"], "mcp.request");
    assert_eq!(call["wire"], "http-session");
    assert_eq!(call["session"], session.as_str());
    assert_eq!(call["principal"], "alice");
    assert_eq!(call["id"], "2");
    assert_eq!(call["outcome"], "result");
    assert!(call["duration_us"].is_u64(), "{call}");
    let read = span_of("resources/read", "2025-11-25");
    assert_eq!(read["outcome"], "error");
    assert_eq!(read["code"], -32002);
    // The bridge's client side (stdio at 2025-06-18) and the upstream's (2026-07-28).
    assert_eq!(span_of("tools/call", "2025-06-18")["wire"], "stdio");
    let upstream_call = span_of("tools/call", "2026-07-28");
    assert_eq!(upstream_call["wire"], "http-stateless");
    assert_eq!(upstream_call["outcome"], "result");

    let failed = events(&lines, "authentication failed");
    assert_eq!(failed.len(), 1, "{text}");
    assert_eq!(failed[0]["level"], "INFO");
    assert_eq!(
        failed[0]["fields"]["challenge"],
        "Bearer error=\"invalid_token\""
    );
    let opened = events(&lines, "session opened");
    assert!(
        opened
            .iter()
            .any(|e| e["fields"]["session"] == session.as_str()),
        "{text}"
    );
    let closed = events(&lines, "session closed");
    assert!(
        closed
            .iter()
            .any(|e| e["fields"]["session"] == session.as_str()
                && e["fields"]["reason"] == "deleted"),
        "{text}"
    );
    let refusals = events(&lines, "the bridge refused");
    assert!(
        refusals
            .iter()
            .any(|e| e["fields"]["reason"] == "limit_exceeded"),
        "{text}"
    );
    let translated = events(&lines, "translated");
    assert!(
        translated
            .iter()
            .any(|e| e["fields"]["method"] == "tools/call"
                && e["fields"]["dir"] == "s2c"
                && e["fields"]["from"] == "2026-07-28"
                && e["fields"]["to"] == "2025-06-18"
                && e["fields"]["stripped"]
                    .as_str()
                    .is_some_and(|s| s.contains("/result/resultType"))),
        "{text}"
    );
    // Nothing at info or above but the authentication failure and the endpoint's address.
    let loud: Vec<&Value> = lines
        .iter()
        .filter(|l| l["level"] != "DEBUG" && l["level"] != "TRACE")
        .collect();
    assert!(
        loud.iter()
            .all(|l| l["fields"]["message"] == "authentication failed"
                || l["fields"]["message"] == "serving metrics at /metrics"),
        "{loud:?}"
    );
}

async fn send(conn: &Connection, value: Value) {
    let frame = Frame::parse(serde_json::to_vec(&value).unwrap()).unwrap();
    conn.sender.send(frame).await.unwrap();
}

/// Sends a request and returns the next frame that answers it (matched by id, or with a null
/// id for a line the bridge could not read).
async fn exchange(conn: &mut Connection, request: Value) -> Value {
    let id = request["id"].clone();
    send(conn, request).await;
    loop {
        let frame = tokio::time::timeout(LIMIT, conn.receiver.recv())
            .await
            .expect("an answer in time")
            .expect("the connection is open");
        let value = frame.to_value().unwrap();
        if value.get("method").is_none() && (value["id"] == id || value["id"].is_null()) {
            return value;
        }
    }
}
