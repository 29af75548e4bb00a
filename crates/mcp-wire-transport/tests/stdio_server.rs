//! `conformance_server --stdio` driven as a child process over stdio: both eras on one pipe,
//! a clean exit when the client closes stdin, and every request read before then answered.

use std::time::Duration;

use mcp_wire_transport::Frame;
use mcp_wire_transport::stdio::{StdioOptions, spawn_child};
use serde_json::{Value, json};

async fn next(receiver: &mut mcp_wire_transport::FrameReceiver) -> Value {
    tokio::time::timeout(Duration::from_secs(10), receiver.recv())
        .await
        .expect("a frame in time")
        .expect("the child is running")
        .to_value()
        .unwrap()
}

#[tokio::test]
async fn the_fixture_server_speaks_stdio() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_conformance_server"));
    command.arg("--stdio");
    let mut child = spawn_child(command, StdioOptions::default()).expect("the child starts");
    let c = &mut child.connection;
    let send = |v: Value| Frame::parse(v.to_string()).unwrap();
    c.sender
        .send(send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "stdio-test", "version": "1"}}}),
        ))
        .await
        .unwrap();
    assert_eq!(
        next(&mut c.receiver).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    c.sender
        .send(send(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ))
        .await
        .unwrap();
    c.sender
        .send(send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "test_simple_text"}}),
        ))
        .await
        .unwrap();
    let answer = next(&mut c.receiver).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "This is a simple text response for testing."
    );
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    c.sender
        .send(send(
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
            "params": {"uri": "test://static-text", "_meta": meta}}),
        ))
        .await
        .unwrap();
    let read = next(&mut c.receiver).await;
    assert_eq!(read["result"]["resultType"], "complete");
    assert!(read["result"]["ttlMs"].is_u64(), "{read}");
    child.connection.close();
    let status = tokio::time::timeout(Duration::from_secs(15), child.exit.wait())
        .await
        .expect("the child exits")
        .expect("an exit status");
    assert!(status.success(), "{status:?}");
}

/// Every request read before stdin closes is answered, written and flushed before the process
/// exits, when the end of input follows the requests at once: both eras, the handshake's answer
/// and the answers of requests run as tasks. Many runs, since losing an answer was a race.
#[tokio::test]
async fn every_request_read_before_stdin_closes_is_answered() {
    use tokio::io::AsyncWriteExt;
    const RUNS: usize = 50;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "eof-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "test_simple_text"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
            "params": {"uri": "test://static-text", "_meta": meta}}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut lost = Vec::new();
    for run in 0..RUNS {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_conformance_server"))
            .arg("--stdio")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).await.unwrap();
        // The end of input right after the requests.
        drop(stdin);
        let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
            .await
            .expect("the server exits once its input ended")
            .unwrap();
        assert!(out.status.success(), "run {run}: {:?}", out.status);
        let answers: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut ids: Vec<i64> = answers.iter().filter_map(|a| a["id"].as_i64()).collect();
        ids.sort_unstable();
        if ids != [1, 2, 3] {
            lost.push((run, answers));
            continue;
        }
        let answer = |id: i64| answers.iter().find(|a| a["id"] == id).unwrap();
        assert_eq!(answer(1)["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(
            answer(2)["result"]["content"][0]["text"],
            "This is a simple text response for testing."
        );
        assert_eq!(answer(3)["result"]["resultType"], "complete");
    }
    assert!(
        lost.is_empty(),
        "{} of {RUNS} runs lost answers; first: {:?}",
        lost.len(),
        lost.first()
    );
}
