//! `ClientOptions::tap`: the frames a tap keeps never reach the connection's receiver, the
//! ones it passes on do, and the tap sees every frame in the order the server sent them
//! (a call's progress before its answer). Against the project's fixtures, in process.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_wire::session::Envelope;
use mcp_wire::wire::RawFrame;
use mcp_wire_transport::client::{ClientOptions, FrameTap, Wire, connect_streamable};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};

/// The longest any single step may take.
const STEP: Duration = Duration::from_secs(30);

/// What the tap saw, in order: each frame and whether it kept it.
type Seen = Arc<Mutex<Vec<(Value, bool)>>>;

async fn fixtures_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::new(ConformanceFixtures::new(), ServerConfig::default());
    tokio::spawn(async move {
        let _ = server.serve(listener).await;
    });
    url
}

/// A tap that keeps every response (by the envelope the transport split, which must agree
/// with the frame's text) and passes the rest.
fn keeping_answers(seen: Seen) -> FrameTap {
    FrameTap::new(move |frame: &Frame, raw: Option<&RawFrame<'_>>| {
        let value = frame.to_value().unwrap();
        let raw = raw.expect("every fixture frame is one valid message, split for the tap");
        assert_eq!(raw.text(), frame.as_str());
        let answer = matches!(raw.envelope(), Envelope::Response { .. });
        assert_eq!(
            answer,
            value.get("result").is_some() && value.get("method").is_none()
        );
        seen.lock().unwrap().push((value, answer));
        answer
    })
}

async fn send(conn: &Connection, message: Value) {
    let frame = Frame::parse(message.to_string()).unwrap();
    conn.sender.send(frame).await.expect("connection open");
}

/// Waits until the tap has kept the answer to `id`.
async fn kept(seen: &Seen, id: i64) -> Value {
    tokio::time::timeout(STEP, async {
        loop {
            let found = seen
                .lock()
                .unwrap()
                .iter()
                .find(|(v, kept)| *kept && v["id"] == json!(id))
                .map(|(v, _)| v.clone());
            if let Some(answer) = found {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no answer to {id} reached the tap"))
}

#[tokio::test]
async fn a_tap_takes_what_it_keeps_in_the_servers_order() {
    let url = fixtures_url().await;
    let seen: Seen = Arc::default();
    let options = ClientOptions::default()
        .open_get_stream(false)
        .tap(keeping_answers(seen.clone()));
    let mut conn = connect_streamable(&url, Wire::Stateful, options).unwrap();

    send(
        &conn,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "tap-test", "version": "1"}}}),
    )
    .await;
    let init = kept(&seen, 1).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    send(
        &conn,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;

    // A call that reports progress before it answers: the progress passes on to the
    // receiver, the answer stays with the tap, and the tap saw the progress first.
    send(
        &conn,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "test_tool_with_progress", "arguments": {},
            "_meta": {"progressToken": "p"}}}),
    )
    .await;
    let answer = kept(&seen, 2).await;
    assert!(answer.get("result").is_some(), "{answer}");
    let order: Vec<(Option<String>, bool)> = seen
        .lock()
        .unwrap()
        .iter()
        .skip(1)
        .map(|(v, kept)| (v["method"].as_str().map(str::to_owned), *kept))
        .collect();
    let progress = order
        .iter()
        .filter(|(m, _)| m.as_deref() == Some("notifications/progress"))
        .count();
    assert!(progress >= 1, "{order:?}");
    assert_eq!(order.last(), Some(&(None, true)), "{order:?}");

    // The receiver got exactly what the tap passed on: the progress, never an answer.
    let mut received = Vec::new();
    while received.len() < progress {
        let frame = tokio::time::timeout(STEP, conn.receiver.recv())
            .await
            .expect("the passed frames arrive")
            .expect("the connection is open");
        received.push(frame.to_value().unwrap());
    }
    assert!(
        received
            .iter()
            .all(|v| v["method"] == "notifications/progress" && v["params"]["progressToken"] == "p"),
        "{received:?}"
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(200), conn.receiver.recv())
            .await
            .is_err(),
        "nothing else reaches the receiver"
    );
    conn.close();
}
