//! A small HTTP client for the tests that drive servers over Streamable HTTP by hand: POSTs
//! with the session headers, bodies read whole or as SSE events, stream resumption. Every
//! exchange is bounded by [`EXCHANGE`].
#![allow(dead_code)]

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use std::time::Duration;

pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

pub fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// Within this, every exchange of the fault tests ends.
pub const EXCHANGE: Duration = Duration::from_secs(15);

/// A POST of `body` (to a session when `session` names one); the response with its body
/// still to read.
pub async fn post(
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
pub async fn text(response: http::Response<hyper::body::Incoming>) -> (StatusCode, String) {
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
pub fn message(body: &str) -> Value {
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|l| !l.trim().is_empty())
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))
}

/// `initialize` (declaring sampling) and `notifications/initialized` at `url`: the session id.
pub async fn open_session(client: &HttpClient, url: &str) -> String {
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

pub fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// One SSE event: its id and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: String,
    pub data: String,
}

/// Reads events from an SSE body until `count` have come (keep-alive comments skipped).
pub async fn events(body: &mut hyper::body::Incoming, count: usize) -> Vec<Event> {
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
pub async fn resume(
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
