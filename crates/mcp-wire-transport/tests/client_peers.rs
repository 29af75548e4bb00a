//! The client transports against real servers installed from the registries (`tests/peers/`):
//! `@modelcontextprotocol/server-everything` over stdio, Streamable HTTP (stateful wire) and
//! 2024-11-05's HTTP+SSE, and a TypeScript SDK v2 server on the 2026-07-28 stateless wire; plus the
//! answers the transport makes itself when a server is unreachable or silent. Loopback only;
//! every wait is bounded.

use std::process::Stdio;
use std::time::Duration;

use mcp_wire_tests::peers::peers;
use mcp_wire_transport::client::{ClientOptions, Wire, connect_legacy_sse, connect_streamable};
use mcp_wire_transport::stdio::{StdioOptions, spawn_child};
use mcp_wire_transport::{Connection, ConnectionEnd, Frame};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

/// The longest any single step may take.
const STEP: Duration = Duration::from_secs(30);

/// The 2026-07-28 identity every stateless request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-wire-transport-tests", "version": "0"}
    })
}

/// Sends `message`; if it is a request, waits for its answer and returns it with every other
/// frame that arrived first.
async fn exchange(conn: &mut Connection, message: Value) -> (Value, Vec<Value>) {
    let frame = Frame::parse(message.to_string()).unwrap();
    conn.sender.send(frame).await.expect("connection open");
    let Some(id) = message.get("id").cloned() else {
        return (Value::Null, Vec::new());
    };
    let mut others = Vec::new();
    loop {
        let frame = tokio::time::timeout(STEP, conn.receiver.recv())
            .await
            .unwrap_or_else(|_| panic!("no answer to {message} within {STEP:?}"))
            .unwrap_or_else(|| panic!("connection ended before answering {message}"));
        let value = frame.to_value().unwrap();
        if value.get("id") == Some(&id) && value.get("method").is_none() {
            return (value, others);
        }
        others.push(value);
    }
}

/// The `result` of a request, failing on an error answer.
async fn request(
    conn: &mut Connection,
    id: i64,
    method: &str,
    params: Value,
) -> (Value, Vec<Value>) {
    let (answer, others) = exchange(
        conn,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    assert!(answer.get("error").is_none(), "{method} failed: {answer}");
    (answer["result"].clone(), others)
}

async fn notify(conn: &mut Connection, method: &str) {
    exchange(conn, json!({"jsonrpc": "2.0", "method": method})).await;
}

/// The handshake, a tool list, a call, and a call with progress: what every legacy transport
/// must carry.
async fn legacy_session(conn: &mut Connection, revision: &str) {
    let (init, _) = request(
        conn,
        1,
        "initialize",
        json!({
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "mcp-wire-transport-tests", "version": "0"}
        }),
    )
    .await;
    assert_eq!(init["protocolVersion"], revision);
    assert_eq!(init["serverInfo"]["name"], "mcp-servers/everything");
    notify(conn, "notifications/initialized").await;

    let (tools, _) = request(conn, 2, "tools/list", json!({})).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");

    let (echo, _) = request(
        conn,
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "grüße"}}),
    )
    .await;
    assert_eq!(echo["content"][0]["text"], "Echo: grüße");

    let (done, others) = request(
        conn,
        4,
        "tools/call",
        json!({
            "name": "trigger-long-running-operation",
            "arguments": {"duration": 0.3, "steps": 3},
            "_meta": {"progressToken": "p-4"}
        }),
    )
    .await;
    assert!(
        done["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Long running operation completed")
    );
    let progress: Vec<i64> = others
        .iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p-4"
        })
        .filter_map(|m| m["params"]["progress"].as_i64())
        .collect();
    assert_eq!(progress, [1, 2, 3], "{others:?}");
}

/// A free loopback port (bound and released; the server binds it next).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts server-everything with `transport` on a free port and waits until it accepts.
async fn everything_http(transport: &str) -> (Child, u16) {
    let port = free_port();
    let script = peers()
        .package("@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    let mut command = Command::from(peers().node_command(script));
    command
        .arg(transport)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let child = command.spawn().expect("node starts");
    let deadline = tokio::time::Instant::now() + STEP;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "server-everything {transport} did not listen on {port}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (child, port)
}

async fn closed(conn: &Connection) -> ConnectionEnd {
    conn.close();
    tokio::time::timeout(STEP, conn.ended())
        .await
        .expect("the connection ends after close")
}

#[tokio::test]
async fn server_everything_over_stdio() {
    let script = peers()
        .package("@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    let mut command = Command::from(peers().node_command(script));
    command.arg("stdio").stderr(Stdio::null());
    let mut child = spawn_child(command, StdioOptions::default()).expect("node starts");
    legacy_session(&mut child.connection, "2025-11-25").await;
    let end = closed(&child.connection).await;
    let status = tokio::time::timeout(STEP, child.exit.wait())
        .await
        .expect("the child exits after its stdin closes")
        .expect("an exit status");
    // Node exits by itself once stdin ends; the transport reports how.
    assert_eq!(
        matches!(end, ConnectionEnd::Closed),
        status.success(),
        "{end:?} vs {status}"
    );
    assert_eq!(child.stats.oversized() + child.stats.malformed(), 0);
}

#[tokio::test]
async fn server_everything_over_streamable_http() {
    let (_server, port) = everything_http("streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut conn = connect_streamable(&url, Wire::Stateful, ClientOptions::default()).unwrap();
    legacy_session(&mut conn, "2025-06-18").await;
    assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
}

#[tokio::test]
async fn server_everything_over_2024_11_05_http_sse() {
    let (_server, port) = everything_http("sse").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    let mut conn = tokio::time::timeout(STEP, connect_legacy_sse(&url, ClientOptions::default()))
        .await
        .expect("the endpoint event arrives")
        .expect("connected");
    legacy_session(&mut conn, "2024-11-05").await;
    assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
}

#[tokio::test]
async fn ts_v2_server_over_the_stateless_wire() {
    let mut command = Command::from(peers().script("ts-v2-server.mjs").unwrap());
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut server = command.spawn().expect("node starts");
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(STEP, lines.next_line())
        .await
        .expect("the server prints its URL")
        .unwrap()
        .expect("a URL line");
    let mut conn = connect_streamable(&url, Wire::Stateless, ClientOptions::default()).unwrap();

    let (discover, _) = request(&mut conn, 1, "server/discover", json!({"_meta": meta()})).await;
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discover["resultType"], "complete");

    let (tools, _) = request(&mut conn, 2, "tools/list", json!({"_meta": meta()})).await;
    assert_eq!(tools["tools"][0]["name"], "echo");

    // The server checks Mcp-Method and Mcp-Name against the body (-32020 on a mismatch).
    let (echo, _) = request(
        &mut conn,
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}, "_meta": meta()}),
    )
    .await;
    assert_eq!(echo["content"][0]["text"], "echo: hi");

    // A name that is not visible ASCII travels base64-wrapped in Mcp-Name.
    let (prompt, _) = request(
        &mut conn,
        4,
        "prompts/get",
        json!({"name": "grüße", "_meta": meta()}),
    )
    .await;
    assert_eq!(prompt["messages"][0]["content"]["text"], "hallo");

    // A server's JSON-RPC error in a 4xx body is its answer, passed through as sent.
    let (answer, _) = exchange(
        &mut conn,
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"_meta": meta()}}),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert!(answer["error"]["data"].get("reason").is_none(), "{answer}");

    assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
    drop(server.stdin.take());
}

#[tokio::test]
async fn an_unreachable_server_gets_every_request_answered() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    for wire in [Wire::Stateful, Wire::Stateless] {
        let mut conn = connect_streamable(&url, wire, ClientOptions::default()).unwrap();
        let (answer, _) = exchange(
            &mut conn,
            json!({"jsonrpc": "2.0", "id": "x", "method": "tools/list", "params": {"_meta": meta()}}),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32603, "{answer}");
        assert_eq!(answer["error"]["data"]["reason"], "upstream_unavailable");
        assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
    }
}

#[tokio::test]
async fn a_silent_server_times_out_and_a_cancel_closes_the_stream() {
    // Accepts connections and reads them to their end, never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (accepted_tx, mut accepted) = tokio::sync::mpsc::unbounded_channel();
    let (ended_tx, mut ended) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let _ = accepted_tx.send(());
            let ended = ended_tx.clone();
            tokio::spawn(async move {
                let mut sink = tokio::io::sink();
                let _ = tokio::io::copy(&mut socket, &mut sink).await;
                let _ = ended.send(());
            });
        }
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let options = ClientOptions::default().request_timeout(Duration::from_millis(300));
    let mut conn = connect_streamable(&url, Wire::Stateless, options).unwrap();
    let (answer, _) = exchange(
        &mut conn,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}),
    )
    .await;
    assert_eq!(answer["error"]["data"]["reason"], "timeout", "{answer}");

    // On the stateless wire a cancel is the closing of the request's stream: nothing is sent
    // for it, and the cancelled request gets no answer.
    let options = ClientOptions::default().request_timeout(Duration::from_secs(20));
    let mut conn = connect_streamable(&url, Wire::Stateless, options).unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow", "_meta": meta()}});
    conn.sender
        .send(Frame::parse(call.to_string()).unwrap())
        .await
        .unwrap();
    // The first exchange's connection, then the call's.
    for _ in 0..2 {
        tokio::time::timeout(STEP, accepted.recv()).await.unwrap();
    }
    // The timed-out exchange closed its connection.
    tokio::time::timeout(STEP, ended.recv()).await.unwrap();
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "_meta": meta()}});
    conn.sender
        .send(Frame::parse(cancel.to_string()).unwrap())
        .await
        .unwrap();
    // The call's connection is closed by the client...
    tokio::time::timeout(STEP, ended.recv())
        .await
        .expect("the cancelled request's stream is closed");
    // ...no connection carries the cancel, and the cancelled request gets no answer.
    assert!(
        tokio::time::timeout(Duration::from_millis(300), conn.receiver.recv())
            .await
            .is_err(),
        "a cancelled request is not answered"
    );
    assert!(
        accepted.try_recv().is_err(),
        "nothing was sent for the cancel"
    );
    assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
}

/// `conformance_server` (this crate's fixture server) on a free port; returns it and its URL.
async fn conformance_server(revisions: &str) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance_server"));
    command
        .args(["--listen", "127.0.0.1:0", "--revisions", revisions])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("conformance_server starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(STEP, lines.next_line())
        .await
        .expect("conformance_server prints its URL")
        .unwrap()
        .expect("a URL line");
    (child, url)
}

#[tokio::test]
async fn the_stateful_client_resumes_a_closed_stream_and_hears_the_get_stream() {
    let (_server, url) = conformance_server("2025-11-25").await;
    let mut conn = connect_streamable(&url, Wire::Stateful, ClientOptions::default()).unwrap();
    let (init, _) = request(
        &mut conn,
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "mcp-wire-transport-tests", "version": "0"}}),
    )
    .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    notify(&mut conn, "notifications/initialized").await;

    // The server closes the call's SSE stream after its priming event and answers later: the
    // answer arrives only through a GET carrying Last-Event-ID.
    let (done, _) = request(
        &mut conn,
        2,
        "tools/call",
        json!({"name": "test_reconnection"}),
    )
    .await;
    assert_eq!(done["content"][0]["text"], "Reconnection test completed");

    // A list change goes out on the standalone GET stream the client opened after initialized.
    let (_, early) = request(
        &mut conn,
        3,
        "tools/call",
        json!({"name": "test_trigger_tool_change"}),
    )
    .await;
    let heard = |m: &Value| m["method"] == "notifications/tools/list_changed";
    let changed = if early.iter().any(heard) {
        Ok(())
    } else {
        tokio::time::timeout(STEP, async {
            loop {
                let frame = conn.receiver.recv().await.expect("connection open");
                if frame.to_value().unwrap()["method"] == "notifications/tools/list_changed" {
                    return;
                }
            }
        })
        .await
    };
    assert!(changed.is_ok(), "no list_changed on the GET stream");
    assert!(matches!(closed(&conn).await, ConnectionEnd::Closed));
}

#[tokio::test]
async fn the_stdio_server_sends_progress_before_the_result() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance_server"));
    command
        .args(["--stdio", "--revisions", "2025-11-25"])
        .stderr(Stdio::null());
    let mut child = spawn_child(command, StdioOptions::default()).expect("the server starts");
    let conn = &mut child.connection;
    request(
        conn,
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "mcp-wire-transport-tests", "version": "0"}}),
    )
    .await;
    notify(conn, "notifications/initialized").await;
    let (done, before) = request(
        conn,
        2,
        "tools/call",
        json!({"name": "test_tool_with_progress", "_meta": {"progressToken": 9}}),
    )
    .await;
    assert_eq!(
        done["content"][0]["text"],
        "Tool with progress executed successfully"
    );
    let progress: Vec<f64> = before
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .filter_map(|m| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0], "{before:?}");
    assert!(matches!(closed(conn).await, ConnectionEnd::Closed));
    let status = tokio::time::timeout(STEP, child.exit.wait()).await.unwrap();
    assert!(status.unwrap().success());
}
