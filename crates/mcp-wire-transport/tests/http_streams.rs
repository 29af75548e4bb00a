//! SSE streams of the handshake era: resource updates on the standalone GET stream, and a
//! stream the server closes mid-call (2025-11-25 polling) resumed with `Last-Event-ID`.

use std::time::Duration;

use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, ServerCapabilities, Tool,
};
use mcp_wire_transport::server::{
    Change, Handler, HandlerResult, RequestContext, Server, ServerConfig,
};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Streams;

impl Handler for Streams {
    fn server_info(&self) -> Implementation {
        Implementation::new("streams", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {}, "resources": {"subscribe": true}})).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(vec![Tool::new("poll", Tool::empty_input_schema())])
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        _: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        ctx.progress(1.0, Some(2.0), None).await;
        ctx.close_stream(Duration::from_millis(10)).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        ctx.progress(2.0, Some(2.0), None).await;
        Ok(CallToolResult::text("polled"))
    }
}

async fn open(addr: std::net::SocketAddr, head: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{head}\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Reads until `needle` appears or the stream closes.
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !String::from_utf8_lossy(&buf).contains(needle) {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .expect("read in time");
    String::from_utf8_lossy(&buf).into_owned()
}

async fn session(addr: std::net::SocketAddr) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "streams", "version": "1"}}})
    .to_string();
    let mut s = open(
        addr,
        "POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json",
        &init,
    )
    .await;
    let head = read_until(&mut s, "\r\n\r\n").await;
    head.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .map(|id| id.trim().to_owned())
        .expect("a session id")
}

async fn start() -> (
    std::sync::Arc<Server<Streams>>,
    std::net::SocketAddr,
    tokio::task::JoinHandle<()>,
) {
    let server = Server::new(Streams, ServerConfig::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let task = tokio::spawn(async move {
        let _ = s.serve(listener).await;
    });
    (server, addr, task)
}

#[tokio::test]
async fn subscribed_resource_updates_arrive_on_the_standalone_stream() {
    let (server, addr, task) = start().await;
    let id = session(addr).await;
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
        "params": {"uri": "test://watched"}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\nMcp-Session-Id: {id}"
    );
    let mut s = open(addr, &head, &subscribe).await;
    assert!(read_until(&mut s, "\"result\"").await.contains("\"id\":2"));
    let mut get = open(
        addr,
        &format!("GET /mcp HTTP/1.1\r\nMcp-Session-Id: {id}"),
        "",
    )
    .await;
    // The priming event shows the stream is open before anything is announced.
    read_until(&mut get, "data: \n\n").await;
    server
        .notifier()
        .announce(Change::ResourceUpdated("test://other".into()));
    server
        .notifier()
        .announce(Change::ResourceUpdated("test://watched".into()));
    let events = read_until(&mut get, "notifications/resources/updated").await;
    assert!(events.contains("test://watched"));
    assert!(
        !events.contains("test://other"),
        "only subscribed URIs: {events}"
    );
    // A second standalone stream is refused while the first is open.
    let mut second = open(
        addr,
        &format!("GET /mcp HTTP/1.1\r\nMcp-Session-Id: {id}"),
        "",
    )
    .await;
    assert!(
        read_until(&mut second, "\r\n\r\n")
            .await
            .starts_with("HTTP/1.1 409")
    );
    task.abort();
}

#[tokio::test]
async fn a_closed_stream_resumes_from_last_event_id() {
    let (_server, addr, task) = start().await;
    let id = session(addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "poll", "_meta": {"progressToken": "t"}}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\nMcp-Session-Id: {id}"
    );
    let mut post = open(addr, &head, &call).await;
    // Read until the server closes the stream (after its retry event).
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), post.read_to_end(&mut raw))
        .await
        .expect("the server closes the stream")
        .unwrap();
    let first = String::from_utf8_lossy(&raw).into_owned();
    assert!(first.contains("retry: 10"), "{first}");
    assert!(
        !first.contains("polled"),
        "the answer comes after the reconnect: {first}"
    );
    let last_id = first
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("event ids")
        .to_owned();
    let mut get = open(
        addr,
        &format!("GET /mcp HTTP/1.1\r\nMcp-Session-Id: {id}\r\nLast-Event-ID: {last_id}"),
        "",
    )
    .await;
    let rest = read_until(&mut get, "polled").await;
    assert!(rest.contains("\"progress\":2"), "{rest}");
    assert!(rest.contains("\"id\":7"), "{rest}");
    task.abort();
}
