//! Faults and bad input against the Streamable HTTP server, on loopback, each bounded in time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, ServerCapabilities, Tool,
};
use mcp_wire_transport::server::{
    BearerTokens, Handler, HandlerResult, Principal, RequestContext, Server, ServerConfig,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

static SLOW_TOOL_DONE: AtomicBool = AtomicBool::new(false);

/// Tags of `sleep` calls whose handler future was dropped (cancelled).
static DROPPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

struct NoteDrop(String);

impl Drop for NoteDrop {
    fn drop(&mut self) {
        DROPPED.lock().unwrap().push(self.0.clone());
    }
}

struct Faulty;

impl Handler for Faulty {
    fn server_info(&self) -> Implementation {
        Implementation::new("faulty", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {}})).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(vec![Tool::new("echo", Tool::empty_input_schema())])
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        match params.name.as_str() {
            "panic" => panic!("this handler panics on purpose"),
            "flood" => {
                // Far more progress than a stream queue holds, for a reader that never reads.
                for i in 0..5_000 {
                    ctx.progress(f64::from(i), None, Some(&"x".repeat(200)))
                        .await;
                }
                SLOW_TOOL_DONE.store(true, Ordering::SeqCst);
                Ok(CallToolResult::text("flooded"))
            }
            "sleep" => {
                let tag = params
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("tag"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let _noted = NoteDrop(tag);
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(CallToolResult::text("woke"))
            }
            _ => Ok(CallToolResult::text("echo")),
        }
    }
}

struct Running {
    server: Arc<Server<Faulty>>,
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn start(configure: impl FnOnce(&mut ServerConfig)) -> Running {
    let mut config = ServerConfig::default();
    configure(&mut config);
    let server = Server::new(Faulty, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let task = tokio::spawn(async move {
        let _ = s.serve(listener).await;
    });
    Running { server, addr, task }
}

/// One HTTP/1.1 exchange on a fresh connection: (status, headers lowercased, body).
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body (JSON, or the data lines of an SSE stream).
    fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        if self.header("content-type") == Some("text/event-stream") {
            text.lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter_map(|d| serde_json::from_str(d).ok())
                .collect()
        } else {
            serde_json::from_str(&text).into_iter().collect()
        }
    }
}

const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

async fn exchange(
    addr: std::net::SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    tokio::time::timeout(Duration::from_secs(20), async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
            addr.port(),
            body.len()
        );
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        parse_reply(&raw)
    })
    .await
    .expect("the server answered in time")
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked")
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

async fn initialize(addr: std::net::SocketAddr) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "fault-test", "version": "1"}}});
    let reply = exchange(
        addr,
        "POST",
        &[JSON, ACCEPT_BOTH],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(reply.status, 200);
    reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned()
}

async fn call(addr: std::net::SocketAddr, session: &str, id: u64, tool: &str) -> Reply {
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}});
    exchange(
        addr,
        "POST",
        &[
            JSON,
            ACCEPT_BOTH,
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        body.to_string().as_bytes(),
    )
    .await
}

#[tokio::test]
async fn a_panicking_handler_gets_internal_error_and_the_server_lives_on() {
    let run = start(|_| {}).await;
    let a = initialize(run.addr).await;
    let b = initialize(run.addr).await;
    let reply = call(run.addr, &a, 2, "panic").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.messages()[0]["error"]["code"], -32603);
    for session in [&a, &b] {
        let ok = call(run.addr, session, 3, "echo").await;
        assert_eq!(ok.messages()[0]["result"]["content"][0]["text"], "echo");
    }
}

#[tokio::test]
async fn bad_input_gets_the_matching_status() {
    let run = start(|c| c.limits.max_body_bytes = 1024).await;
    let malformed = exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], b"{\"jsonrpc\":").await;
    assert_eq!(malformed.status, 400);
    assert_eq!(malformed.messages()[0]["error"]["code"], -32700);
    let big = vec![b' '; 4096];
    assert_eq!(
        exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], &big)
            .await
            .status,
        413
    );
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let text_plain = ("Content-Type", "text/plain");
    assert_eq!(
        exchange(run.addr, "POST", &[text_plain, ACCEPT_BOTH], body)
            .await
            .status,
        415
    );
    assert_eq!(exchange(run.addr, "POST", &[JSON], body).await.status, 406);
    let unknown = [JSON, ACCEPT_BOTH, ("Mcp-Session-Id", "no-such-session")];
    assert_eq!(exchange(run.addr, "POST", &unknown, body).await.status, 404);
    let evil = [JSON, ACCEPT_BOTH, ("Origin", "http://evil.example")];
    assert_eq!(exchange(run.addr, "POST", &evil, body).await.status, 403);
}

#[tokio::test]
async fn a_missing_session_is_400_on_a_handshake_only_server() {
    let run =
        start(|c| c.revisions = vec![ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25])
            .await;
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert_eq!(
        exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], body)
            .await
            .status,
        400
    );
}

#[tokio::test]
async fn delete_twice_ends_the_session_then_404() {
    let run = start(|_| {}).await;
    let id = initialize(run.addr).await;
    let session = [("Mcp-Session-Id", id.as_str())];
    assert_eq!(
        exchange(run.addr, "DELETE", &session, b"").await.status,
        200
    );
    assert_eq!(
        exchange(run.addr, "DELETE", &session, b"").await.status,
        404
    );
    assert_eq!(call(run.addr, &id, 2, "echo").await.status, 404);
    assert_eq!(run.server.session_count(), 0);
}

#[tokio::test]
async fn idle_sessions_expire() {
    let run = start(|c| c.limits.session_idle = Duration::from_millis(100)).await;
    let id = initialize(run.addr).await;
    assert_eq!(run.server.session_count(), 1);
    tokio::time::sleep(Duration::from_millis(250)).await;
    run.server.expire_idle_sessions();
    assert_eq!(run.server.session_count(), 0);
    assert_eq!(call(run.addr, &id, 2, "echo").await.status, 404);
}

#[tokio::test]
async fn a_slow_sse_reader_does_not_block_the_handler() {
    let run = start(|c| {
        c.limits.stream_queue = 8;
        c.limits.slow_reader_timeout = Duration::from_millis(100);
    })
    .await;
    let id = initialize(run.addr).await;
    // Ask for progress, read only the response head, then stop reading.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "flood", "_meta": {"progressToken": "p"}}});
    let mut stream = TcpStream::connect(run.addr).await.unwrap();
    let body = body.to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {id}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut first = [0u8; 64];
    let _ = stream.read(&mut first).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !SLOW_TOOL_DONE.load(Ordering::SeqCst) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the handler stayed blocked on a slow reader"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(stream);
}

#[tokio::test]
async fn ten_thousand_sessions_opened_and_deleted_leave_nothing_behind() {
    let count: usize = std::env::var("MCP_FAULT_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let run = start(|_| {}).await;
    let metrics = tokio::runtime::Handle::current().metrics();
    // Warm up one session so lazily created runtime state is not counted as growth.
    let warm = initialize(run.addr).await;
    exchange(
        run.addr,
        "DELETE",
        &[("Mcp-Session-Id", warm.as_str())],
        b"",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let tasks_before = metrics.num_alive_tasks();
    for _ in 0..count {
        let id = initialize(run.addr).await;
        let reply = exchange(run.addr, "DELETE", &[("Mcp-Session-Id", id.as_str())], b"").await;
        assert_eq!(reply.status, 200);
    }
    assert_eq!(run.server.session_count(), 0);
    // Connection tasks end shortly after their connection closes.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while metrics.num_alive_tasks() > tasks_before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "tasks grew: {} > {tasks_before}",
            metrics.num_alive_tasks()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn stateless_requests_are_checked_against_their_headers() {
    let run = start(|_| {}).await;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}})
            .to_string();
    let base = [JSON, ACCEPT_BOTH, ("MCP-Protocol-Version", "2026-07-28")];
    let ok = exchange(
        run.addr,
        "POST",
        &[base[0], base[1], base[2], ("Mcp-Method", "tools/list")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.messages()[0]["result"]["resultType"], "complete");
    let wrong = exchange(
        run.addr,
        "POST",
        &[base[0], base[1], base[2], ("Mcp-Method", "tools/call")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert_eq!(wrong.messages()[0]["error"]["code"], -32020);
    let removed =
        json!({"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"_meta": meta}}).to_string();
    let gone = exchange(
        run.addr,
        "POST",
        &[base[0], base[1], base[2], ("Mcp-Method", "ping")],
        removed.as_bytes(),
    )
    .await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.messages()[0]["error"]["code"], -32601);
    assert_eq!(gone.messages()[0]["id"], 8);
}

#[tokio::test]
async fn a_server_offers_only_its_revisions() {
    let modern = start(|c| c.revisions = vec![ProtocolVersion::V2026_07_28]).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let refused = exchange(
        modern.addr,
        "POST",
        &[JSON, ACCEPT_BOTH],
        init.to_string().as_bytes(),
    )
    .await;
    assert_eq!(refused.status, 400);
    let error = &refused.messages()[0]["error"];
    assert_eq!(error["code"], -32022);
    assert_eq!(error["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(
        exchange(modern.addr, "GET", &[ACCEPT_BOTH], b"")
            .await
            .status,
        405
    );

    let legacy = start(|c| c.revisions = vec![ProtocolVersion::V2025_06_18]).await;
    let reply = exchange(
        legacy.addr,
        "POST",
        &[JSON, ACCEPT_BOTH],
        init.to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        reply.messages()[0]["result"]["protocolVersion"],
        "2025-06-18"
    );
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let stateless =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}});
    let headers = [
        JSON,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];
    assert_eq!(
        exchange(
            legacy.addr,
            "POST",
            &headers,
            stateless.to_string().as_bytes()
        )
        .await
        .status,
        400
    );
}

#[tokio::test]
async fn a_2025_03_26_batch_gets_one_array_of_answers() {
    let run = start(|_| {}).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "batcher", "version": "1"}}});
    let reply = exchange(
        run.addr,
        "POST",
        &[JSON, ACCEPT_BOTH],
        init.to_string().as_bytes(),
    )
    .await;
    let session = reply.header("mcp-session-id").unwrap().to_owned();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    ]);
    let headers = [JSON, ACCEPT_BOTH, ("Mcp-Session-Id", session.as_str())];
    let reply = exchange(run.addr, "POST", &headers, batch.to_string().as_bytes()).await;
    assert_eq!(reply.status, 200);
    let answers: Value = serde_json::from_slice(&reply.body).unwrap();
    let ids: Vec<&Value> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["id"])
        .collect();
    assert_eq!(ids, [&json!(2), &json!(3)]);
    assert_eq!(answers[1]["result"]["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn the_authentication_hook_refuses_unknown_bearers() {
    let run = start(|c| {
        c.authenticator =
            Arc::new(BearerTokens::new().with_token("s3cret", Principal::new("alice", vec![])));
    })
    .await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}})
    .to_string();
    let refused = exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], body.as_bytes()).await;
    assert_eq!(refused.status, 401);
    assert!(
        refused
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    let wrong = [JSON, ACCEPT_BOTH, ("Authorization", "Bearer nope")];
    assert_eq!(
        exchange(run.addr, "POST", &wrong, body.as_bytes())
            .await
            .status,
        401
    );
    let right = [JSON, ACCEPT_BOTH, ("Authorization", "Bearer s3cret")];
    assert_eq!(
        exchange(run.addr, "POST", &right, body.as_bytes())
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn a_cancelled_request_ends_without_an_answer() {
    let run = start(|_| {}).await;
    let id = initialize(run.addr).await;
    let addr = run.addr;
    let session = id.clone();
    let started = std::time::Instant::now();
    let slow = tokio::spawn(async move { call(addr, &session, 9, "sleep").await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "reason": "test"}});
    let headers = [JSON, ACCEPT_BOTH, ("Mcp-Session-Id", id.as_str())];
    assert_eq!(
        exchange(run.addr, "POST", &headers, cancel.to_string().as_bytes())
            .await
            .status,
        202
    );
    let reply = slow.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the request was not stopped"
    );
    assert_eq!(reply.status, 200);
    assert!(
        reply.messages().is_empty(),
        "no answer after a cancel: {:?}",
        reply.messages()
    );
}

#[tokio::test]
async fn closing_a_stateless_response_stream_cancels_the_request() {
    let run = start(|_| {}).await;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"tag": "stateless"}, "_meta": meta}})
    .to_string();
    let mut stream = TcpStream::connect(run.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: sleep\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(stream);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !DROPPED.lock().unwrap().iter().any(|t| t == "stateless") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the handler kept running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn sessions_beyond_the_limit_are_refused_with_503() {
    let run = start(|c| c.limits.max_sessions = 2).await;
    initialize(run.addr).await;
    initialize(run.addr).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}})
    .to_string();
    let reply = exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], body.as_bytes()).await;
    assert_eq!(reply.status, 503);
    assert_eq!(run.server.session_count(), 2);
}

#[tokio::test]
async fn a_session_with_a_request_in_flight_does_not_expire() {
    let run = start(|c| c.limits.session_idle = Duration::from_millis(100)).await;
    let id = initialize(run.addr).await;
    let addr = run.addr;
    let session = id.clone();
    let slow = tokio::spawn(async move { call(addr, &session, 4, "sleep").await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    run.server.expire_idle_sessions();
    assert_eq!(
        run.server.session_count(),
        1,
        "a running request keeps its session"
    );
    slow.abort();
}

#[tokio::test]
async fn a_session_post_is_judged_by_its_envelope_then_its_body() {
    let run = start(|_| {}).await;
    let session = initialize(run.addr).await;
    let on_session = [
        JSON,
        ACCEPT_BOTH,
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    // Not a JSON-RPC envelope (no `jsonrpc`; `method` and `result` at once): 400, -32600, to
    // the id (it can be read), with the pointer of the fault.
    for (bad, pointer) in [
        (br#"{"id":1,"method":"tools/list"}"#.as_slice(), ""),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","result":{}}"#.as_slice(),
            "",
        ),
    ] {
        let reply = exchange(run.addr, "POST", &on_session, bad).await;
        let answer = &reply.messages()[0];
        assert_eq!(reply.status, 400, "{}", String::from_utf8_lossy(bad));
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert_eq!(answer["id"], 1, "{answer}");
        assert_eq!(answer["error"]["data"]["pointer"], pointer, "{answer}");
    }
    // A good envelope with a bad body: answered to its id, with the pointer.
    let reply = exchange(
        run.addr,
        "POST",
        &on_session,
        br#"{"jsonrpc":"2.0","id":"x-7","method":"tools/call","params":{"name":5}}"#,
    )
    .await;
    assert_eq!(reply.status, 200);
    let answer = &reply.messages()[0];
    assert_eq!(answer["id"], "x-7");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["data"]["pointer"], "/params/name",
        "{answer}"
    );
    // `initialize` with a bad body is answered the same way.
    let init = br#"{"jsonrpc":"2.0","id":"i-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":5,"version":"1"}}}"#;
    let reply = exchange(run.addr, "POST", &[JSON, ACCEPT_BOTH], init).await;
    let answer = &reply.messages()[0];
    assert_eq!(reply.status, 400);
    assert_eq!(answer["id"], "i-1");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(
        answer["error"]["data"]["pointer"], "/params/clientInfo/name",
        "{answer}"
    );
    // Members in any order and spacing; a client's response and error are accepted (202).
    let reply = exchange(
        run.addr,
        "POST",
        &on_session,
        br#"{ "params" : {"name":"echo"}, "method":"tools/call", "id": 9, "jsonrpc":"2.0" }"#,
    )
    .await;
    assert_eq!(reply.messages()[0]["result"]["content"][0]["text"], "echo");
    for client_answer in [
        br#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#.as_slice(),
        br#"{"jsonrpc":"2.0","id":"s-2","error":{"code":-1,"message":"no"}}"#.as_slice(),
    ] {
        let reply = exchange(run.addr, "POST", &on_session, client_answer).await;
        assert_eq!(reply.status, 202);
    }
}

/// A stateless POST of `body` with the routing headers of `method` (and `Mcp-Name`).
async fn stateless(
    addr: std::net::SocketAddr,
    method: &str,
    name: Option<&str>,
    body: &str,
) -> Reply {
    let mut headers = vec![
        JSON,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    headers.extend(name.map(|name| ("Mcp-Name", name)));
    exchange(addr, "POST", &headers, body.as_bytes()).await
}

#[tokio::test]
async fn a_stateless_post_is_judged_by_its_envelope_then_its_headers_then_its_body() {
    let run = start(|_| {}).await;
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    // A bad envelope names its id when it has a usable one: 400, -32600.
    let bad = format!(r#"{{"id":3,"method":"tools/list","params":{{{meta}}}}}"#);
    let reply = stateless(run.addr, "tools/list", None, &bad).await;
    assert_eq!(reply.status, 400, "{bad}");
    assert_eq!(reply.messages()[0]["error"]["code"], -32600);
    assert_eq!(reply.messages()[0]["id"], 3);
    // A batch is one message too many on this wire.
    let batch =
        format!(r#"[{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{meta}}}}}]"#);
    let reply = stateless(run.addr, "tools/list", None, &batch).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.messages()[0]["error"]["code"], -32600);
    // A notification and a client's answer need nothing back.
    for quiet in [
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":1,{meta}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#.to_owned(),
    ] {
        let reply = stateless(run.addr, "notifications/cancelled", None, &quiet).await;
        assert_eq!(reply.status, 202, "{quiet}");
    }
    // `Mcp-Name` is checked against the member its method names, read alone: members in any
    // order, an `arguments` of any size beside it.
    let call = format!(
        r#"{{"params":{{"arguments":{{"text":"a \"b\""}},"name":"echo",{meta}}},"id":5,"method":"tools/call","jsonrpc":"2.0"}}"#
    );
    let reply = stateless(run.addr, "tools/call", Some("echo"), &call).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.messages()[0]["id"], 5);
    assert!(
        reply.messages()[0]["result"]["content"].is_array(),
        "{:?}",
        reply.messages()
    );
    let reply = stateless(run.addr, "tools/call", Some("other"), &call).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.messages()[0]["error"]["code"], -32020);
    assert_eq!(reply.messages()[0]["id"], 5);
    // A good envelope and headers with a bad body: answered to its id, with the pointer.
    let bad_body = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","arguments":7,{meta}}}}}"#
    );
    let reply = stateless(run.addr, "tools/call", Some("echo"), &bad_body).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.messages()[0]["error"]["code"], -32602);
    assert_eq!(reply.messages()[0]["id"], 6);
    assert_eq!(
        reply.messages()[0]["error"]["data"]["pointer"],
        "/params/arguments"
    );
    // The `_meta` revision is required.
    let bare = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#;
    let reply = stateless(run.addr, "tools/list", None, bare).await;
    assert_eq!(reply.messages()[0]["error"]["code"], -32602);
}

/// `initialize` under `MCP-Protocol-Version: 2026-07-28` declares a revision without the
/// handshake: it is answered `-32601` (404, as any method the revision lacks) with what to do
/// instead, and the versions offered.
#[tokio::test]
async fn initialize_declared_at_2026_07_28_is_told_what_to_do() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "confused", "version": "1"}}})
    .to_string();
    let declared = [JSON, ACCEPT_BOTH, ("MCP-Protocol-Version", "2026-07-28")];
    let both = start(|_| {}).await;
    let reply = exchange(both.addr, "POST", &declared, init.as_bytes()).await;
    let answer = &reply.messages()[0];
    assert_eq!(reply.status, 404, "{answer}");
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("server/discover"), "{message}");
    assert!(
        message.contains("initialize without that header"),
        "{message}"
    );
    assert_eq!(
        answer["error"]["data"]["supported"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    // What it says works: the handshake without that header.
    let reply = exchange(both.addr, "POST", &[JSON, ACCEPT_BOTH], init.as_bytes()).await;
    assert_eq!(
        reply.messages()[0]["result"]["protocolVersion"],
        "2025-11-25"
    );
    // A server without the handshake era names only server/discover.
    let modern = start(|c| c.revisions = vec![ProtocolVersion::V2026_07_28]).await;
    let reply = exchange(modern.addr, "POST", &declared, init.as_bytes()).await;
    let answer = &reply.messages()[0];
    assert_eq!(
        (reply.status, &answer["error"]["code"]),
        (404, &json!(-32601))
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("server/discover"), "{message}");
    assert!(!message.contains("without that header"), "{message}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
}

/// `server/discover` lists every revision the server offers, the handshake era's too.
#[tokio::test]
async fn server_discover_lists_every_revision_offered() {
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    for (revisions, listed) in [
        (
            ProtocolVersion::ALL.to_vec(),
            json!([
                "2024-11-05",
                "2025-03-26",
                "2025-06-18",
                "2025-11-25",
                "2026-07-28"
            ]),
        ),
        (
            vec![ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28],
            json!(["2025-06-18", "2026-07-28"]),
        ),
        (vec![ProtocolVersion::V2026_07_28], json!(["2026-07-28"])),
    ] {
        let run = start(|c| c.revisions = revisions).await;
        let reply = stateless(run.addr, "server/discover", None, &discover).await;
        let answer = &reply.messages()[0];
        assert_eq!(answer["result"]["supportedVersions"], listed, "{answer}");
    }
}
