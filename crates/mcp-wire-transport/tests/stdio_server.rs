//! `conformance_server --stdio` driven as a child process over stdio: both eras on one pipe,
//! and a clean exit when the client closes stdin.

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
