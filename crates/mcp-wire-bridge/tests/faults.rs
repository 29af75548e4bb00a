//! Faults through the bridge (the Failures section of `docs/bridge.md`): each test runs on
//! loopback with a scripted upstream in `sh` (a real child process, killed for real where the
//! fault is a death) and a scripted client on an in-memory stdio pipe, and every wait is
//! bounded by [`LIMIT`], so a hang fails the test instead of stalling CI.
//!
//! The bridge's upstream ids are a counter from 1 (the probe or `initialize` is 1), so the
//! scripts answer by id without parsing JSON.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wire::ProtocolVersion;
use mcp_wire_bridge::{Bridge, BridgeError, BridgeLimits, BridgeOptions, UpstreamTarget};
use mcp_wire_transport::stdio::{StdioOptions, pipe};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};

/// The bound on every wait of these tests.
const LIMIT: Duration = Duration::from_secs(20);

/// A handshake-era (2025-06-18) server's answer to the bridge's `initialize` (id 1).
const HANDSHAKE_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}"#;

/// A 2026-07-28 server's answer to the bridge's probe (id 1); nothing to listen to, so no
/// listen leg takes an id.
const STATELESS_DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted-stateless","version":"1"}}}}"#;

/// A scripted upstream: `sh -c script`.
fn sh(script: &str) -> UpstreamTarget {
    UpstreamTarget::Command(["sh", "-c", script].map(Into::into).to_vec())
}

/// A handshake-era server that answers `initialize`, reads `notifications/initialized`, then runs
/// `then`.
fn handshake_server(then: &str) -> UpstreamTarget {
    sh(&format!("read l; echo '{HANDSHAKE_INIT}'; read l; {then}"))
}

/// A 2026-07-28 server that answers the probe, then runs `then`.
fn stateless_server(then: &str) -> UpstreamTarget {
    sh(&format!("read l; echo '{STATELESS_DISCOVER}'; {then}"))
}

/// A file of this test run (removed by the caller).
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "mcp-wire-bridge-faults-{name}-{}",
        std::process::id()
    ))
}

/// Waits until `path` holds `lines` complete lines, and returns them.
async fn wait_file(path: &Path, lines: usize) -> Vec<String> {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
            && text.lines().count() >= lines
        {
            return text.lines().map(str::to_owned).collect();
        }
        assert!(
            Instant::now() < deadline,
            "{} did not get {lines} lines",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The first `lines` JSON lines of a file a script writes (the file is removed).
async fn wait_json(path: &Path, lines: usize) -> Vec<Value> {
    let read = wait_file(path, lines).await;
    std::fs::remove_file(path).ok();
    read.iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The pid a script wrote to `path` (the file is removed).
async fn wait_pid(path: &Path) -> String {
    let pid = wait_file(path, 1).await.remove(0);
    std::fs::remove_file(path).ok();
    pid
}

/// Whether process `pid` is still alive.
fn alive(pid: &str) -> bool {
    std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn kill(pid: &str) {
    let status = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -9 {pid}");
}

/// A scripted client on one stdio connection of the bridge.
struct Client {
    conn: Connection,
    /// Frames that arrived while waiting for another one.
    seen: Vec<Value>,
}

impl Client {
    async fn send(&self, value: Value) {
        let frame = Frame::parse(serde_json::to_vec(&value).unwrap()).unwrap();
        self.conn.sender.send(frame).await.unwrap();
    }

    /// The next frame (`None`: the bridge closed the connection).
    async fn next(&mut self) -> Option<Value> {
        let frame = tokio::time::timeout(LIMIT, self.conn.receiver.recv())
            .await
            .expect("a frame in time")?;
        Some(frame.to_value().unwrap())
    }

    /// The frame with `id` that is not a request (an answer).
    async fn answer(&mut self, id: Value) -> Value {
        if let Some(i) = self
            .seen
            .iter()
            .position(|f| f["id"] == id && f.get("method").is_none())
        {
            return self.seen.remove(i);
        }
        loop {
            let frame = self.next().await.expect("the answer before the end");
            if frame["id"] == id && frame.get("method").is_none() {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    /// The next server→client request.
    async fn request(&mut self) -> Value {
        loop {
            let frame = self.next().await.expect("a request before the end");
            if frame.get("method").is_some() && frame.get("id").is_some() {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.answer(json!(id)).await
    }

    async fn initialize(&mut self, revision: &str, capabilities: Value) {
        let init = self
            .call(
                0,
                "initialize",
                json!({"protocolVersion": revision, "capabilities": capabilities,
                       "clientInfo": {"name": "faults", "version": "1.0.0"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }
}

/// A client on a new stdio connection of `bridge` (lines of at most `max_line` bytes each
/// way), and the task serving it.
fn attach(
    bridge: &Arc<Bridge>,
    max_line: usize,
) -> (Client, tokio::task::JoinHandle<Result<(), BridgeError>>) {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(theirs);
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.serve_lines(r, w).await })
    };
    let (r, w) = tokio::io::split(ours);
    let conn = pipe(r, w, StdioOptions::default().max_line_bytes(max_line)).connection;
    (
        Client {
            conn,
            seen: Vec::new(),
        },
        serving,
    )
}

async fn connect(
    target: UpstreamTarget,
    limits: BridgeLimits,
    revisions: &[ProtocolVersion],
) -> Arc<Bridge> {
    Arc::new(
        Bridge::connect(
            &target,
            BridgeOptions::default()
                .server_revisions(revisions.to_vec())
                .limits(limits),
        )
        .await
        .expect("the bridge connects"),
    )
}

/// The client goes away; the bridge's side of its connection ends cleanly, within the bound.
async fn finish(client: Client, serving: tokio::task::JoinHandle<Result<(), BridgeError>>) {
    drop(client);
    assert!(ended(serving).await.is_ok());
}

/// The bridge's end, within the bound.
async fn ended(
    serving: tokio::task::JoinHandle<Result<(), BridgeError>>,
) -> Result<(), BridgeError> {
    tokio::time::timeout(LIMIT, serving)
        .await
        .expect("the bridge ends by itself")
        .expect("the serving task does not panic")
}

fn reason(answer: &Value) -> &str {
    answer["error"]["data"]["reason"].as_str().unwrap_or("")
}

const HANDSHAKE_CLIENTS: &[ProtocolVersion] = &[ProtocolVersion::V2025_06_18];
const STATELESS_CLIENTS: &[ProtocolVersion] = &[ProtocolVersion::V2026_07_28];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_killed_mid_call_fails_every_pending_request_and_ends_the_bridge() {
    // Three calls arrive, then the server is killed (SIGKILL, by itself: no clean exit).
    let bridge = connect(
        handshake_server("read a; read b; read c; kill -9 $$"),
        // Room for the late request below before the bridge ends.
        BridgeLimits::default().drain_grace(Duration::from_secs(2)),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client.initialize("2025-11-25", json!({})).await;
    for id in 1..=3 {
        client
            .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": format!("t{id}"), "arguments": {}}}))
            .await;
    }
    for id in 1..=3 {
        let answer = client.answer(json!(id)).await;
        assert_eq!(answer["error"]["code"], -32603, "{answer}");
        assert_eq!(reason(&answer), "upstream_closed", "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains("tools/call"), "{answer}");
        assert!(message.contains("signal: 9"), "{answer}");
    }
    // A request after the death is refused at once, not queued.
    let late = client.call(4, "tools/list", json!({})).await;
    assert_eq!(reason(&late), "upstream_closed", "{late}");
    let end = ended(serving).await;
    assert!(
        matches!(&end, Err(BridgeError::UpstreamClosed(why)) if why.contains("signal: 9")),
        "{end:?}"
    );
    // The bridge closed the client's connection after the answers.
    assert!(client.next().await.is_none());
}

/// A 2026-07-28 answer to the call with bridge id 2: a question for the client.
const QUESTION: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"mode":"form","message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"s1"}}"#;

/// The server answers the client's call by asking it something (`ask`, one line), then is
/// killed before the client answers: the call fails at once (nothing is in flight upstream)
/// and the bridge ends. `upstream` is [`handshake_server`] or [`stateless_server`],
/// `revisions` what the bridge may speak to it, `revision` the client's.
async fn killed_while_the_client_holds_a_question(
    upstream: fn(&str) -> UpstreamTarget,
    ask: &str,
    revisions: &[ProtocolVersion],
    revision: &str,
) {
    let pid = scratch(&format!("hold-{revision}.pid"));
    let bridge = connect(
        upstream(&format!(
            "read -r call; echo '{ask}'; echo $$ > {}; exec sleep 30",
            pid.display()
        )),
        BridgeLimits::default(),
        revisions,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client
        .initialize(revision, json!({"elicitation": {}}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "ask", "arguments": {}}}))
        .await;
    let question = client.request().await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    kill(&wait_pid(&pid).await);
    let answer = client.answer(json!(1)).await;
    assert_eq!(reason(&answer), "upstream_closed", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("signal: 9") && m.contains("tools/call")),
        "{answer}"
    );
    let end = ended(serving).await;
    assert!(
        matches!(end, Err(BridgeError::UpstreamClosed(_))),
        "{end:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_killed_while_the_client_holds_a_bridged_question_fails_the_call_at_once() {
    // Direction A: the server's InputRequiredResult became an elicitation/create to the client.
    killed_while_the_client_holds_a_question(
        stateless_server,
        QUESTION,
        STATELESS_CLIENTS,
        "2025-06-18",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_killed_while_the_client_holds_its_server_request_fails_the_call_at_once() {
    // Direction C: a handshake-era server's elicitation/create rides on the call to the client.
    let ask = r#"{"jsonrpc":"2.0","id":"s-1","method":"elicitation/create","params":{"message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}"#;
    killed_while_the_client_holds_a_question(
        handshake_server,
        ask,
        HANDSHAKE_CLIENTS,
        "2025-11-25",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_client_connection_cancels_its_upstream_call_and_frees_its_slot() {
    // One request may be in flight upstream. The server logs the call and the cancel, then
    // answers the next call (bridge id 3).
    let log = scratch("drop.log");
    let second =
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"second"}]}}"#;
    let bridge = connect(
        handshake_server(&format!(
            "read -r call; printf '%s\n' \"$call\" >> {0}; read -r cancel; printf '%s\n' \"$cancel\" >> {0}; read -r again; echo '{second}'; exec sleep 30",
            log.display()
        )),
        BridgeLimits::default().max_pending(1),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut first, serving) = attach(&bridge, 1 << 20);
    first.initialize("2025-11-25", json!({})).await;
    first
        .send(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                     "params": {"name": "slow", "arguments": {}}}))
        .await;
    wait_file(&log, 1).await;
    // The client goes away mid-request.
    finish(first, serving).await;
    let seen = wait_json(&log, 2).await;
    assert_eq!(seen[0]["method"], "tools/call", "{seen:?}");
    assert_eq!(seen[1]["method"], "notifications/cancelled", "{seen:?}");
    assert_eq!(seen[1]["params"]["requestId"], seen[0]["id"], "{seen:?}");
    // The slot is free: another client's call is carried, not refused `limit_exceeded`.
    let (mut second_client, serving) = attach(&bridge, 1 << 20);
    second_client.initialize("2025-11-25", json!({})).await;
    let answer = second_client
        .call(1, "tools/call", json!({"name": "x", "arguments": {}}))
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "second", "{answer}");
    finish(second_client, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_upstream_times_out_within_the_bound_and_the_call_is_cancelled() {
    let log = scratch("silent.log");
    let timeout = Duration::from_millis(400);
    let bridge = connect(
        handshake_server(&format!(
            "read -r call; read -r cancel; printf '%s\n' \"$cancel\" > {}; exec sleep 30",
            log.display()
        )),
        BridgeLimits::default().request_timeout(timeout),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client.initialize("2025-11-25", json!({})).await;
    let started = Instant::now();
    let answer = client
        .call(1, "tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    let took = started.elapsed();
    assert_eq!(reason(&answer), "timeout", "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    // Not before the configured bound, and well within it plus slack for a loaded machine.
    assert!(took >= timeout, "{took:?}");
    assert!(took < timeout + Duration::from_secs(10), "{took:?}");
    let cancel = wait_json(&log, 1).await.remove(0);
    assert_eq!(cancel["method"], "notifications/cancelled", "{cancel}");
    assert_eq!(cancel["params"]["requestId"], 2, "{cancel}");
    assert_eq!(cancel["params"]["reason"], "timeout", "{cancel}");
    // The bridge is still serving: ping is its own.
    let ping = client.call(2, "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "{ping}");
    finish(client, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_upstream_at_start_fails_the_connect_within_its_bounds_and_is_stopped() {
    // Reads everything, answers nothing, ends when its stdin closes.
    let pid = scratch("mute.pid");
    let target = sh(&format!(
        "echo $$ > {}; while read -r l; do :; done",
        pid.display()
    ));
    let limits = BridgeLimits::default()
        .probe_timeout(Duration::from_millis(300))
        .initialize_timeout(Duration::from_millis(300));
    let connecting = Bridge::connect(&target, BridgeOptions::default().limits(limits));
    let error = match tokio::time::timeout(LIMIT, connecting)
        .await
        .expect("connect gives up by itself")
    {
        Ok(_) => panic!("a bridge without an upstream"),
        Err(e) => e,
    };
    assert!(
        matches!(&error, BridgeError::UpstreamUnavailable(m) if m.contains("initialize") && m.contains("300ms")),
        "{error}"
    );
    // The child does not outlive the failed start.
    let pid = wait_pid(&pid).await;
    let deadline = Instant::now() + LIMIT;
    while alive(&pid) {
        assert!(Instant::now() < deadline, "upstream {pid} still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_client_line_is_refused_with_a_reason_and_the_session_goes_on() {
    let limit = 64 << 10;
    let bridge = connect(
        handshake_server("while read -r l; do :; done"),
        BridgeLimits::default().max_frame_bytes(limit),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 4 << 20);
    client.initialize("2025-11-25", json!({})).await;
    let big = "a".repeat(1 << 20);
    client
        .send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "x", "arguments": {"big": big}}}))
        .await;
    // The line was not read, so its id is unknown: the refusal has id null.
    let refusal = client.answer(Value::Null).await;
    assert_eq!(reason(&refusal), "limit_exceeded", "{refusal}");
    assert_eq!(refusal["error"]["data"]["limit"], limit, "{refusal}");
    assert!(
        refusal["error"]["data"]["size"]
            .as_u64()
            .is_some_and(|s| s > 1 << 20),
        "{refusal}"
    );
    let ping = client.call(8, "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "{ping}");
    finish(client, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_upstream_line_ends_the_upstream_with_its_reason_instead_of_a_timeout() {
    // The answer to the call is a 200 000-byte line; the bridge reads at most 64 KiB.
    let bridge = connect(
        handshake_server(
            r#"read -r call; printf '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"'; head -c 200000 /dev/zero | tr '\0' a; printf '"}]}}\n'; exec sleep 30"#,
        ),
        BridgeLimits::default().max_frame_bytes(64 << 10),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client.initialize("2025-11-25", json!({})).await;
    let answer = client
        .call(1, "tools/call", json!({"name": "big", "arguments": {}}))
        .await;
    assert_eq!(reason(&answer), "upstream_closed", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("over the limit of 65536 bytes")),
        "{answer}"
    );
    let end = ended(serving).await;
    assert!(
        matches!(&end, Err(BridgeError::UpstreamClosed(why)) if why.contains("line of 2000")),
        "{end:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_http_body_is_refused_413_at_the_bridges_limit() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let bridge = connect(
        handshake_server("while read -r l; do :; done"),
        BridgeLimits::default().max_frame_bytes(64 << 10),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.serve_http(listener, "/mcp").await })
    };
    let post = |body: Vec<u8>| async move {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        let (mut r, mut w) = stream.split();
        let writing = async {
            // The server may stop reading at its limit: a failed write is its refusal.
            let _ = w.write_all(head.as_bytes()).await;
            let _ = w.write_all(&body).await;
        };
        let mut response = Vec::new();
        let reading = r.read_to_end(&mut response);
        let ((), read) = tokio::join!(writing, reading);
        let _ = read;
        String::from_utf8_lossy(&response).into_owned()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "faults", "version": "1"}, "pad": "a".repeat(200_000)}});
    let response = tokio::time::timeout(LIMIT, post(serde_json::to_vec(&init).unwrap()))
        .await
        .expect("an answer in time");
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    // A body under the limit is served.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "faults", "version": "1"}}});
    let response = tokio::time::timeout(LIMIT, post(serde_json::to_vec(&init).unwrap()))
        .await
        .expect("an answer in time");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    serving.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstreams_request_state_travels_opaquely_and_its_refusal_reaches_the_client() {
    // Direction A: the client never sees `requestState` (the bridge holds it), so it cannot
    // tamper with it; the bridge returns it byte for byte, and the server's verdict on it (a
    // -32602 here) reaches the client as the server wrote it.
    let log = scratch("state.log");
    let state = "v1.opaque~state/+=_é.!*-";
    let question = json!({"jsonrpc": "2.0", "id": 2, "result": {
        "resultType": "input_required", "requestState": state,
        "inputRequests": {"who": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "who?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}}});
    let refusal = json!({"jsonrpc": "2.0", "id": 3, "error": {
        "code": -32602, "message": "requestState failed verification",
        "data": {"reason": "tampered", "detail": [1, 2]}}});
    let bridge = connect(
        stateless_server(&format!(
            "read -r call; echo '{question}'; read -r retry; printf '%s\n' \"$retry\" > {}; echo '{refusal}'; exec sleep 30",
            log.display()
        )),
        BridgeLimits::default(),
        STATELESS_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "ask", "arguments": {}}}))
        .await;
    let asked = client.request().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert!(asked["params"].get("requestState").is_none(), "{asked}");
    client
        .send(json!({"jsonrpc": "2.0", "id": asked["id"],
                     "result": {"action": "accept", "content": {"name": "ada"}}}))
        .await;
    let answer = client.answer(json!(1)).await;
    assert_eq!(answer["error"], refusal["error"], "{answer}");
    let retry = wait_json(&log, 1).await.remove(0);
    assert_eq!(retry["id"], 3, "{retry}");
    assert_eq!(retry["params"]["requestState"], state, "{retry}");
    assert_eq!(
        retry["params"]["inputResponses"]["who"],
        json!({"action": "accept", "content": {"name": "ada"}}),
        "{retry}"
    );
    assert_eq!(retry["params"]["name"], "ask", "{retry}");
    finish(client, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_result_type_is_an_error_with_its_reason_and_the_bridge_goes_on() {
    let later = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"deferred","content":[]}}"#;
    let list_question = r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"s"}}"#;
    let fine = r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"fine"}]}}"#;
    let bridge = connect(
        stateless_server(&format!(
            "read -r a; echo '{later}'; read -r b; echo '{list_question}'; read -r c; echo '{fine}'; exec sleep 30"
        )),
        BridgeLimits::default(),
        STATELESS_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client.initialize("2025-06-18", json!({"roots": {}})).await;
    let answer = client
        .call(1, "tools/call", json!({"name": "x", "arguments": {}}))
        .await;
    assert_eq!(reason(&answer), "unknown_result_type", "{answer}");
    assert_eq!(
        answer["error"]["data"]["resultType"], "deferred",
        "{answer}"
    );
    // input_required where 2026-07-28 forbids it is refused too, not unpacked.
    let list = client.call(2, "tools/list", json!({})).await;
    assert_eq!(reason(&list), "mrtr_forbidden_method", "{list}");
    let call = client
        .call(3, "tools/call", json!({"name": "x", "arguments": {}}))
        .await;
    assert_eq!(call["result"]["content"][0]["text"], "fine", "{call}");
    assert!(call["result"].get("resultType").is_none(), "{call}");
    finish(client, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_era_client_cannot_slip_its_own_request_state_to_a_2026_07_28_server() {
    // `requestState` and `inputResponses` are the bridge's to send in direction A: a
    // handshake-era client's own copies (members its revision does not have) never reach the
    // server.
    let log = scratch("forged.log");
    let done = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}"#;
    let bridge = connect(
        stateless_server(&format!(
            "read -r call; printf '%s\n' \"$call\" > {}; echo '{done}'; exec sleep 30",
            log.display()
        )),
        BridgeLimits::default(),
        STATELESS_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    client
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    let answer = client
        .call(
            1,
            "tools/call",
            json!({"name": "ask", "arguments": {}, "requestState": "forged",
                   "inputResponses": {"who": {"action": "accept", "content": {"name": "eve"}}}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "ok", "{answer}");
    let call = wait_json(&log, 1).await.remove(0);
    assert_eq!(call["params"]["name"], "ask", "{call}");
    assert!(call["params"].get("requestState").is_none(), "{call}");
    assert!(call["params"].get("inputResponses").is_none(), "{call}");
    finish(client, serving).await;
}

/// The filters of the `subscriptions/listen` requests in an upstream's log, in order.
fn listen_filters(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|f| f["method"] == "subscriptions/listen")
        .map(|f| f["params"]["notifications"].clone())
        .collect()
}

/// Waits until the newest listen stream's URIs are `uris`.
async fn wait_listening(log: &Path, uris: Value) {
    let deadline = Instant::now() + LIMIT;
    loop {
        let filters = listen_filters(log);
        let newest = filters
            .last()
            .map(|f| f.get("resourceSubscriptions").cloned().unwrap_or(json!([])));
        if newest.as_ref() == Some(&uris) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "listening to {newest:?}, not {uris}: {filters:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_subscribed_gives_its_uris_back_to_the_upstream_listen_stream() {
    // Direction A: a 2026-07-28 server that offers subscriptions and acknowledges every
    // listen stream with the filter it asked for (its id from the frame), logging each line.
    let log = scratch("listen.log");
    let discover = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"resources":{"subscribe":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted-stateless","version":"1"}}}}"#;
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":%s,"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}\n"#;
    let script = r#"read l; echo 'DISCOVER'; while read -r l; do printf '%s\n' "$l" >> LOG; case "$l" in *'"subscriptions/listen"'*) id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9]*\).*/\1/p'); f=$(printf '%s' "$l" | sed -n 's/.*"notifications":\({[^}]*}\).*/\1/p'); printf 'ACK' "$f" "$id";; esac; done"#
        .replace("DISCOVER", discover)
        .replace("LOG", &log.display().to_string())
        .replace("ACK", ack);
    let bridge = connect(sh(&script), BridgeLimits::default(), STATELESS_CLIENTS).await;
    let (mut first, first_serving) = attach(&bridge, 1 << 20);
    first.initialize("2025-11-25", json!({})).await;
    let (mut second, second_serving) = attach(&bridge, 1 << 20);
    second.initialize("2025-06-18", json!({})).await;
    let subscribe = |uri: &str| json!({"uri": uri});
    let sub = first
        .call(1, "resources/subscribe", subscribe("pair://a"))
        .await;
    assert_eq!(sub["result"], json!({}), "{sub}");
    wait_listening(&log, json!(["pair://a"])).await;
    // The second client subscribes twice: one reference, so one unsubscribe lets go.
    for id in [1, 2] {
        let sub = second
            .call(id, "resources/subscribe", subscribe("pair://b"))
            .await;
        assert_eq!(sub["result"], json!({}), "{sub}");
    }
    wait_listening(&log, json!(["pair://a", "pair://b"])).await;
    let streams = listen_filters(&log).len();
    // The first client goes away without unsubscribing: its URI leaves the stream.
    finish(first, first_serving).await;
    wait_listening(&log, json!(["pair://b"])).await;
    assert_eq!(listen_filters(&log).len(), streams + 1);
    let unsub = second
        .call(3, "resources/unsubscribe", subscribe("pair://b"))
        .await;
    assert_eq!(unsub["result"], json!({}), "{unsub}");
    wait_listening(&log, json!([])).await;
    finish(second, second_serving).await;
    std::fs::remove_file(&log).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_request_the_client_cannot_answer_is_refused_upstream_and_its_failure_is_minus_32021()
 {
    // Direction B (Q20): a handshake-era server that asks for sampling without checking
    // the capabilities of its session, then fails the call when refused. Every session the
    // bridge opens runs this script (its own probe session never gets a call).
    let log = scratch("q20.log");
    let ask = r#"{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}"#;
    let failed =
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"sampling was refused"}}"#;
    let bridge = connect(
        handshake_server(&format!(
            "read -r call; echo '{ask}'; read -r answer; printf '%s\n' \"$answer\" > {}; echo '{failed}'; exec sleep 30",
            log.display()
        )),
        BridgeLimits::default(),
        HANDSHAKE_CLIENTS,
    )
    .await;
    let (mut client, serving) = attach(&bridge, 1 << 20);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "faults", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let answer = client
        .call(
            1,
            "tools/call",
            json!({"name": "ask", "arguments": {}, "_meta": meta}),
        )
        .await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{answer}"
    );
    assert_eq!(
        answer["error"]["data"]["upstreamError"]["message"], "sampling was refused",
        "{answer}"
    );
    // The server was told -32601, not asked to wait.
    let refusal = wait_json(&log, 1).await.remove(0);
    assert_eq!(refusal["id"], "s-1", "{refusal}");
    assert_eq!(refusal["error"]["code"], -32601, "{refusal}");
    finish(client, serving).await;
}
