//! The 2024-11-05 HTTP+SSE transport beside `/mcp`: endpoint event, POSTed messages, answers
//! on the stream.

use std::time::Duration;

use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, ServerCapabilities, Tool,
};
use mcp_wire_transport::server::{
    BearerTokens, Change, Handler, HandlerResult, Principal, RequestContext, Server, ServerConfig,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Echo;

impl Handler for Echo {
    fn server_info(&self) -> Implementation {
        Implementation::new("echo", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {}})).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(vec![Tool::new("echo", Tool::empty_input_schema())])
    }

    async fn call_tool(
        &self,
        _: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        Ok(CallToolResult::text(format!("echo {}", params.name)))
    }
}

/// Reads from `stream` until `buf` holds `needle` (bounded in time).
async fn read_until(stream: &mut TcpStream, buf: &mut Vec<u8>, needle: &str) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !String::from_utf8_lossy(buf).contains(needle) {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "stream closed before {needle:?}");
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .expect("the event arrived in time");
}

async fn post(addr: std::net::SocketAddr, path: &str, body: &Value) -> u16 {
    post_as(addr, path, "", body).await
}

/// A POST with `extra` header lines (each ending in CRLF); the status.
async fn post_as(addr: std::net::SocketAddr, path: &str, extra: &str, body: &Value) -> u16 {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    String::from_utf8_lossy(&raw)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap()
}

#[tokio::test]
async fn a_2024_11_05_client_talks_over_http_sse() {
    let server = Server::new(Echo, ServerConfig::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let task = tokio::spawn(async move {
        let _ = s.serve(listener).await;
    });

    let mut sse = TcpStream::connect(addr).await.unwrap();
    sse.write_all(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    read_until(&mut sse, &mut buf, "sessionId=").await;
    read_until(&mut sse, &mut buf, "\n\n").await;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let endpoint = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("an endpoint event")
        .to_owned();
    assert!(text.contains("event: endpoint"));
    assert!(endpoint.starts_with("/messages?sessionId="));

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    assert_eq!(post(addr, &endpoint, &init).await, 202);
    read_until(&mut sse, &mut buf, "\"protocolVersion\":\"2024-11-05\"").await;
    assert_eq!(
        post(
            addr,
            &endpoint,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .await,
        202
    );
    let call =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo"}});
    assert_eq!(post(addr, &endpoint, &call).await, 202);
    read_until(&mut sse, &mut buf, "echo echo").await;
    // 2024-11-05 results carry no 2026-07-28 fields.
    assert!(!String::from_utf8_lossy(&buf).contains("resultType"));
    assert_eq!(post(addr, "/messages?sessionId=nope", &call).await, 404);

    // Server-wide changes reach the initialized connection's stream, written at 2024-11-05.
    server.notifier().announce(Change::ToolsListChanged);
    read_until(&mut sse, &mut buf, "notifications/tools/list_changed").await;
    // An update of a resource this session never subscribed to is not sent.
    server
        .notifier()
        .announce(Change::ResourceUpdated("file:///unsubscribed".into()));
    server.notifier().announce(Change::PromptsListChanged);
    read_until(&mut sse, &mut buf, "notifications/prompts/list_changed").await;
    assert!(!String::from_utf8_lossy(&buf).contains("file:///unsubscribed"));
    task.abort();
}

/// Opens `GET /sse` with `extra` header lines; the stream and what it read so far (up to the
/// `endpoint` event when it opened, the whole head otherwise).
async fn open_sse(addr: std::net::SocketAddr, extra: &str) -> (TcpStream, String) {
    let mut sse = TcpStream::connect(addr).await.unwrap();
    let head =
        format!("GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Accept: text/event-stream\r\n\r\n");
    sse.write_all(head.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    read_until(&mut sse, &mut buf, "\r\n\r\n").await;
    if String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 200") {
        read_until(&mut sse, &mut buf, "sessionId=").await;
        read_until(&mut sse, &mut buf, "\n\n").await;
    }
    (sse, String::from_utf8_lossy(&buf).into_owned())
}

#[tokio::test]
async fn http_sse_routes_authenticate_and_bind_the_connection_to_its_opener() {
    let tokens = BearerTokens::new()
        .with_token("alice-token", Principal::new("alice", vec![]))
        .with_token("bob-token", Principal::new("bob", vec![]));
    let config = ServerConfig {
        authenticator: std::sync::Arc::new(tokens),
        ..ServerConfig::default()
    };
    let server = Server::new(Echo, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let task = tokio::spawn(async move {
        let _ = s.serve(listener).await;
    });

    // The stream itself needs a token.
    let (_, head) = open_sse(addr, "").await;
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(head.contains("www-authenticate: Bearer"), "{head}");
    let (_, head) = open_sse(addr, "Authorization: Bearer nobody\r\n").await;
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(head.contains("error=\"invalid_token\""), "{head}");

    let (mut sse, text) = open_sse(addr, "Authorization: Bearer alice-token\r\n").await;
    let endpoint = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("an endpoint event")
        .to_owned();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    // A POST without a token is refused before the connection is looked up; bob does not
    // find alice's connection; alice does.
    assert_eq!(post(addr, &endpoint, &init).await, 401);
    assert_eq!(post(addr, "/messages?sessionId=nope", &init).await, 401);
    let bob = "Authorization: Bearer bob-token\r\n";
    assert_eq!(post_as(addr, &endpoint, bob, &init).await, 404);
    let alice = "Authorization: Bearer alice-token\r\n";
    assert_eq!(post_as(addr, &endpoint, alice, &init).await, 202);
    let mut buf = Vec::new();
    read_until(&mut sse, &mut buf, "\"protocolVersion\":\"2024-11-05\"").await;
    task.abort();
}
