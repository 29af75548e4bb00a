//! The bridge end to end on loopback, with the project's conformance fixtures as the upstream
//! (in-process, at one revision) and a scripted client speaking another revision: direction C
//! (2025-11-25 client → 2025-03-26 server over HTTP), direction A (2025-06-18 client over
//! stdio → 2026-07-28-only server: synthesized initialize, stamped requests, input-required
//! rounds unpacked into server→client requests, results shaped), and the faults: upstream
//! death fails the pending request and ends the bridge; upstream silence is a timeout.

use std::sync::Arc;
use std::time::Duration;

use mcp_wire::{Era, ProtocolVersion};
use mcp_wire_bridge::{Bridge, BridgeLimits, BridgeOptions, Report, UpstreamTarget};
use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Change, Server, ServerConfig};
use mcp_wire_transport::stdio::{StdioOptions, pipe};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(20);

/// The conformance fixtures served over HTTP on a free port at exactly `revisions`.
async fn upstream_http(
    revisions: &[ProtocolVersion],
) -> (
    String,
    tokio::task::JoinHandle<()>,
    Arc<Server<ConformanceFixtures>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            revisions: revisions.to_vec(),
            ..ServerConfig::default()
        },
    );
    let serving = server.clone();
    let task = tokio::spawn(async move {
        let _ = serving.serve(listener).await;
    });
    (url, task, server)
}

/// A scripted client on a frame connection.
struct Client {
    conn: Connection,
    next: i64,
    /// Frames that arrived while waiting for another one.
    seen: Vec<Value>,
}

impl Client {
    fn new(conn: Connection) -> Self {
        Self {
            conn,
            next: 1,
            seen: Vec::new(),
        }
    }

    async fn send(&self, value: Value) {
        let frame = Frame::parse(serde_json::to_vec(&value).unwrap()).unwrap();
        self.conn.sender.send(frame).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let frame = tokio::time::timeout(LIMIT, self.conn.receiver.recv())
            .await
            .expect("a frame in time")
            .expect("the connection is open");
        frame.to_value().unwrap()
    }

    /// Sends a request and returns its answer, answering server→client requests with
    /// `answer(method, params)` meanwhile.
    async fn call_with(
        &mut self,
        method: &str,
        params: Value,
        answer: impl Fn(&str, &Value) -> Value,
    ) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let frame = self.recv().await;
            if frame.get("id") == Some(&json!(id)) && frame.get("method").is_none() {
                return frame;
            }
            if let Some(m) = frame.get("method").and_then(Value::as_str)
                && frame.get("id").is_some()
            {
                let result = answer(m, &frame["params"]);
                self.send(json!({"jsonrpc": "2.0", "id": frame["id"], "result": result}))
                    .await;
            }
            self.seen.push(frame);
        }
    }

    /// The first notification `method` seen so far or arriving next.
    async fn wait_for(&mut self, method: &str) -> Value {
        if let Some(i) = self.seen.iter().position(|f| f["method"] == method) {
            return self.seen.remove(i);
        }
        loop {
            let frame = self.recv().await;
            if frame["method"] == method {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.call_with(method, params, |m, _| {
            panic!("unexpected server request {m}")
        })
        .await
    }

    async fn initialize(&mut self, revision: &str, capabilities: Value) -> Value {
        let r = self
            .call(
                "initialize",
                json!({"protocolVersion": revision, "capabilities": capabilities,
                       "clientInfo": {"name": "scripted", "version": "1.0.0"}}),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        r
    }
}

fn report_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "mcp-wire-bridge-{name}-{}.jsonl",
        std::process::id()
    ))
}

fn report_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direction_c_a_2025_11_25_client_uses_a_2025_03_26_server_over_http() {
    let (url, upstream, _) = upstream_http(&[ProtocolVersion::V2025_03_26]).await;
    let bridge = Arc::new(
        Bridge::connect(&UpstreamTarget::Url(url), BridgeOptions::default())
            .await
            .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().revision, ProtocolVersion::V2025_03_26);
    assert_eq!(bridge.snapshot().era(), Era::Handshake);
    // 2026-07-28 clients are served in front of a legacy server too (direction B,
    // tests/stateless_to_handshake.rs).
    assert!(
        bridge
            .client_revisions()
            .contains(&ProtocolVersion::V2026_07_28)
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = format!("http://{}/mcp", listener.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.serve_http(listener, "/mcp").await })
    };
    let conn = connect_streamable(&front, Wire::Stateful, ClientOptions::default()).unwrap();
    let mut client = Client::new(conn);
    let init = client.initialize("2025-11-25", json!({})).await;
    // The client's own revision is presented (Q16), with the upstream's identity.
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["result"]["serverInfo"]["name"],
        "mcp-wire-conformance-server"
    );

    let tools = client.call("tools/list", json!({})).await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"test_simple_text"), "{names:?}");

    let call = client
        .call(
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}}),
        )
        .await;
    assert_eq!(
        call["result"]["content"][0]["text"],
        "This is a simple text response for testing."
    );

    // Progress crosses with the client's own token (the upstream saw the bridge's).
    let progress = client
        .call(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p-1"}}),
        )
        .await;
    assert!(progress.get("result").is_some(), "{progress}");
    let tokens: Vec<&Value> = client
        .seen
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .map(|f| &f["params"]["progressToken"])
        .collect();
    assert!(!tokens.is_empty(), "progress crossed: {:?}", client.seen);
    assert!(tokens.iter().all(|t| **t == json!("p-1")), "{tokens:?}");

    // A method the upstream's revision does not have is refused before it leaves.
    let tasks = client.call("tasks/list", json!({})).await;
    assert_eq!(tasks["error"]["code"], -32601, "{tasks}");

    // A legacy server's unknown resource error passes unchanged (Q5).
    let missing = client
        .call("resources/read", json!({"uri": "test://nope"}))
        .await;
    assert_eq!(missing["error"]["code"], -32002, "{missing}");

    client.conn.close();
    serving.abort();
    upstream.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direction_a_a_2025_06_18_stdio_client_uses_a_2026_07_28_server() {
    let (url, upstream, server) = upstream_http(&[ProtocolVersion::V2026_07_28]).await;
    let path = report_path("a");
    let bridge = Arc::new(
        Bridge::connect(
            &UpstreamTarget::Url(url),
            BridgeOptions::default().report(Report::to_file(&path).unwrap()),
        )
        .await
        .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().era(), Era::Stateless);
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(theirs);
    let serving = {
        let bridge = bridge.clone();
        let conn = pipe(r, w, StdioOptions::default()).connection;
        tokio::spawn(async move { bridge.serve_connection(conn).await })
    };
    let (r, w) = tokio::io::split(ours);
    let mut client = Client::new(pipe(r, w, StdioOptions::default()).connection);
    let init = client
        .initialize("2025-06-18", json!({"elicitation": {}, "sampling": {}}))
        .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    // Subscriptions and list changes are offered: the bridge listens upstream (A8–A10).
    assert_eq!(
        init["result"]["capabilities"]["resources"]["subscribe"], true,
        "{init}"
    );
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"], true,
        "{init}"
    );
    assert!(init["result"]["capabilities"].get("extensions").is_none());

    // ping is answered by the bridge.
    assert_eq!(client.call("ping", json!({})).await["result"], json!({}));

    // The list comes back without 2026-07-28's result members.
    let tools = client.call("tools/list", json!({})).await;
    let result = &tools["result"];
    assert!(
        result["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{tools}"
    );
    for key in ["resultType", "ttlMs", "cacheScope"] {
        assert!(result.get(key).is_none(), "{key} leaked: {result}");
    }
    assert!(
        result
            .get("_meta")
            .is_none_or(|m| m.get("io.modelcontextprotocol/serverInfo").is_none())
    );

    // The server asks for input with an InputRequiredResult; the bridge asks the client with
    // a real elicitation/create and retries.
    let asked = std::sync::Mutex::new(Vec::new());
    let call = client
        .call_with(
            "tools/call",
            json!({"name": "test_elicitation", "arguments": {"message": "who?"}}),
            |m, p| {
                asked.lock().unwrap().push((m.to_owned(), p.clone()));
                json!({"action": "accept", "content": {"username": "ada", "email": "a@b.c"}})
            },
        )
        .await;
    let asked = asked.into_inner().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0, "elicitation/create");
    let text = call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("ada"), "{call}");
    assert!(call["result"].get("resultType").is_none(), "{call}");

    // Two rounds: each answered by the client, the server's final answer reaches it.
    let rounds = std::sync::Mutex::new(0);
    let multi = client
        .call_with(
            "tools/call",
            json!({"name": "test_input_required_result_multi_round", "arguments": {}}),
            |m, _| {
                *rounds.lock().unwrap() += 1;
                match m {
                    "elicitation/create" => json!({"action": "accept", "content": {"name": "ada", "confirm": true, "answer": "yes"}}),
                    "sampling/createMessage" => json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}),
                    _ => json!({"roots": []}),
                }
            },
        )
        .await;
    assert!(multi.get("result").is_some(), "{multi}");
    assert!(*rounds.lock().unwrap() >= 2, "two rounds asked");

    // The stamped capabilities are the client's own: a 2026-07-28 server gates on them, and
    // its -32021 reaches the client unchanged (errors pass, Q5).
    let roots = client
        .call(
            "tools/call",
            json!({"name": "test_input_required_result_list_roots", "arguments": {}}),
        )
        .await;
    assert_eq!(roots["error"]["code"], -32021, "{roots}");
    assert_eq!(
        roots["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}}),
        "{roots}"
    );

    // A subscription joins the upstream listen stream; the server's update reaches the client
    // as a legacy notification without the listen tag; unsubscribing an unknown URI is fine.
    let sub = client
        .call(
            "resources/subscribe",
            json!({"uri": "test://watched-resource"}),
        )
        .await;
    assert_eq!(sub["result"], json!({}), "{sub}");
    server
        .notifier()
        .announce(Change::ResourceUpdated("test://watched-resource".into()));
    let updated = client.wait_for("notifications/resources/updated").await;
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    assert!(updated["params"].get("_meta").is_none(), "{updated}");
    let change = client
        .call(
            "tools/call",
            json!({"name": "test_trigger_tool_change", "arguments": {}}),
        )
        .await;
    assert!(change.get("result").is_some(), "{change}");
    client.wait_for("notifications/tools/list_changed").await;
    let unsub = client
        .call(
            "resources/unsubscribe",
            json!({"uri": "test://never-subscribed"}),
        )
        .await;
    assert_eq!(unsub["result"], json!({}), "{unsub}");

    client.conn.close();
    let _ = tokio::time::timeout(LIMIT, serving).await;
    let lines = report_lines(&path);
    std::fs::remove_file(&path).ok();
    assert!(
        lines
            .iter()
            .any(|l| l["method"] == "initialize" && l["status"] == "synthesized"),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l["method"] == "tools/list"
            && l["dir"] == "s2c"
            && l["stripped"]
                .as_array()
                .is_some_and(|s| s.iter().any(|p| p == "/result/resultType"))),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l["dir"] == "c2s"
            && l["to"] == "2026-07-28"
            && l["status"] == "written"
            && l["injected"].as_array().is_some_and(|i| i
                .iter()
                .any(|p| p == "/params/_meta/io.modelcontextprotocol~1clientCapabilities"))),
        "{lines:?}"
    );
    upstream.abort();
}

/// A legacy "server" in sh: answers initialize, then `after_init` runs.
fn scripted_server(after_init: &str) -> UpstreamTarget {
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}"#;
    UpstreamTarget::Command(
        [
            "sh",
            "-c",
            &format!("read l; echo '{init}'; read l; {after_init}"),
        ]
        .map(Into::into)
        .to_vec(),
    )
}

async fn bridged_stdio(
    target: UpstreamTarget,
    limits: BridgeLimits,
) -> (
    Client,
    tokio::task::JoinHandle<Result<(), mcp_wire_bridge::BridgeError>>,
) {
    let bridge = Bridge::connect(
        &target,
        BridgeOptions::default()
            .server_revisions(vec![ProtocolVersion::V2025_06_18])
            .limits(limits),
    )
    .await
    .expect("the bridge connects");
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(theirs);
    let conn = pipe(r, w, StdioOptions::default()).connection;
    let serving = tokio::spawn(async move { bridge.serve_connection(conn).await });
    let (r, w) = tokio::io::split(ours);
    (
        Client::new(pipe(r, w, StdioOptions::default()).connection),
        serving,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_death_fails_the_pending_call_and_ends_the_bridge() {
    // The server exits when the call arrives.
    let (mut client, serving) =
        bridged_stdio(scripted_server("read l; exit 3"), BridgeLimits::default()).await;
    client.initialize("2025-11-25", json!({})).await;
    let call = client
        .call("tools/call", json!({"name": "anything", "arguments": {}}))
        .await;
    assert_eq!(call["error"]["code"], -32603, "{call}");
    assert_eq!(call["error"]["data"]["reason"], "upstream_closed", "{call}");
    let ended = tokio::time::timeout(LIMIT, serving)
        .await
        .expect("the bridge ends")
        .unwrap();
    assert!(
        matches!(&ended, Err(mcp_wire_bridge::BridgeError::UpstreamClosed(why)) if why.contains("exit status: 3")),
        "{ended:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_upstream_is_a_timeout() {
    let (mut client, serving) = bridged_stdio(
        scripted_server("read l; sleep 30"),
        BridgeLimits::default().request_timeout(Duration::from_millis(300)),
    )
    .await;
    client.initialize("2025-06-18", json!({})).await;
    let call = client
        .call("tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    assert_eq!(call["error"]["data"]["reason"], "timeout", "{call}");
    client.conn.close();
    let _ = tokio::time::timeout(LIMIT, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_cancel_reaches_the_upstream_naming_the_leg_id() {
    // The server writes the line after the call (the cancel) to a file, then waits.
    let seen = std::env::temp_dir().join(format!("mcp-wire-bridge-cancel-{}", std::process::id()));
    let (mut client, serving) = bridged_stdio(
        scripted_server(&format!(
            "read call; read cancel; echo \"$call\" > {0}.call; echo \"$cancel\" > {0}; sleep 30",
            seen.display()
        )),
        BridgeLimits::default(),
    )
    .await;
    client.initialize("2025-11-25", json!({})).await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "c-1", "method": "tools/call",
                     "params": {"name": "slow", "arguments": {}}}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": "c-1", "reason": "user"}}),
        )
        .await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    let cancel = loop {
        if let Ok(text) = std::fs::read_to_string(&seen)
            && !text.trim().is_empty()
        {
            break serde_json::from_str::<Value>(text.trim()).unwrap();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no cancel reached the server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let call: Value = serde_json::from_str(
        std::fs::read_to_string(seen.with_extension("call"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    std::fs::remove_file(&seen).ok();
    std::fs::remove_file(seen.with_extension("call")).ok();
    // The upstream saw the bridge's id, never the client's, and the cancel names it.
    assert_ne!(call["id"], "c-1", "{call}");
    assert_eq!(cancel["method"], "notifications/cancelled", "{cancel}");
    assert_eq!(cancel["params"]["requestId"], call["id"], "{cancel} {call}");
    client.conn.close();
    let _ = tokio::time::timeout(LIMIT, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_03_26_batch_on_stdio_is_split_upstream_and_joined_for_the_client() {
    // The server answers two calls (bridge ids 2 and 3) and logs every line it gets.
    let log = std::env::temp_dir().join(format!("mcp-wire-bridge-batch-{}", std::process::id()));
    let answer = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"call {id}"}}]}}}}"#
        )
    };
    let (mut client, serving) = bridged_stdio(
        scripted_server(&format!(
            "read -r a; printf '%s\\n' \"$a\" >> {0}; echo '{1}'; read -r c; printf '%s\\n' \"$c\" >> {0}; echo '{2}'; exec sleep 30",
            log.display(),
            answer(2),
            answer(3)
        )),
        BridgeLimits::default(),
    )
    .await;
    client.initialize("2025-03-26", json!({})).await;
    client
        .send(json!([
            {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x", "arguments": {}}},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nobody"}},
            {"jsonrpc": "2.0", "id": "b", "method": "ping"},
            {"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "y", "arguments": {}}}
        ]))
        .await;
    let joined = client.recv().await;
    let answers = joined
        .as_array()
        .unwrap_or_else(|| panic!("one array: {joined}"));
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!("a"), &json!("b"), &json!("c")], "{joined}");
    assert_eq!(
        answers[0]["result"]["content"][0]["text"], "call 2",
        "{joined}"
    );
    assert_eq!(answers[1]["result"], json!({}), "{joined}");
    assert_eq!(
        answers[2]["result"]["content"][0]["text"], "call 3",
        "{joined}"
    );
    // Upstream, the members went one by one: never a batch.
    let seen: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    std::fs::remove_file(&log).ok();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|f| f["method"] == "tools/call"), "{seen:?}");
    // initialize cannot be batched.
    client
        .send(
            json!([{"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}}}]),
        )
        .await;
    let refused = client.recv().await;
    assert_eq!(refused[0]["error"]["code"], -32600, "{refused}");
    client.conn.close();
    let _ = tokio::time::timeout(LIMIT, serving).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_at_another_revision_is_one_invalid_request() {
    let (mut client, serving) =
        bridged_stdio(scripted_server("exec sleep 30"), BridgeLimits::default()).await;
    client.initialize("2025-11-25", json!({})).await;
    client
        .send(json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .await;
    let refused = client.recv().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    client.conn.close();
    let _ = tokio::time::timeout(LIMIT, serving).await;
}

/// A bridge in front of `url`, served over HTTP; its URL and serving task.
async fn bridge_http(url: &str, options: BridgeOptions) -> (String, tokio::task::JoinHandle<()>) {
    let bridge = Bridge::connect(&UpstreamTarget::Url(url.to_owned()), options)
        .await
        .expect("the bridge connects");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = bridge.serve_http(listener, "/mcp").await;
    });
    (front, task)
}

/// What a client at `revision` gets for a list, a call and a call with progress, ids aside.
async fn session_answers(front: &str, revision: &str) -> Vec<Value> {
    let conn = connect_streamable(front, Wire::Stateful, ClientOptions::default()).unwrap();
    let mut client = Client::new(conn);
    let init = client.initialize(revision, json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
    let mut answers = Vec::new();
    for (method, params) in [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}}),
        ),
        (
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 7}}),
        ),
        (
            "tools/call",
            json!({"name": "test_error_handling", "arguments": {}}),
        ),
        ("resources/read", json!({"uri": "test://nope"})),
    ] {
        let mut answer = client.call(method, params).await;
        answer.as_object_mut().unwrap().remove("id");
        answers.push(answer);
    }
    let progress: Vec<&Value> = client
        .seen
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .map(|f| &f["params"]["progressToken"])
        .collect();
    assert!(!progress.is_empty(), "{:?}", client.seen);
    assert!(progress.iter().all(|t| **t == json!(7)), "{progress:?}");
    client.conn.close();
    answers
}

/// The shortcuts a same-revision frame takes (`engine::same_wire`: the upstream's frames
/// routed by the transport's tap, no second emission check of a result read at the client's
/// own revision) answer exactly as the translating path does, and a client at another
/// revision through the same bridge still gets its frames translated by the boundary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_revision_shortcuts_answer_as_the_translating_path_does() {
    let (url, upstream, _) = upstream_http(&[ProtocolVersion::V2025_11_25]).await;
    // No report: the shortcuts.
    let (fast, fast_task) = bridge_http(&url, BridgeOptions::default()).await;
    // A report: every frame takes the translating path (and nothing is reported changed).
    let path = report_path("same-revision");
    let (checked, checked_task) = bridge_http(
        &url,
        BridgeOptions::default().report(Report::to_file(&path).unwrap()),
    )
    .await;
    let shortcut = session_answers(&fast, "2025-11-25").await;
    let translated = session_answers(&checked, "2025-11-25").await;
    assert_eq!(shortcut, translated);
    assert!(
        shortcut[1]["result"]["content"][0]["text"].is_string(),
        "{shortcut:?}"
    );
    assert_eq!(shortcut[4]["error"]["code"], -32002, "{shortcut:?}");
    let changed: Vec<Value> = report_lines(&path)
        .into_iter()
        .filter(|l| l["method"] == "tools/call" || l["method"] == "tools/list")
        .collect();
    assert!(changed.is_empty(), "{changed:?}");

    // A 2025-06-18 client of the shortcut bridge: the 2025-11-25 result is emitted at
    // 2025-06-18 by the boundary, exactly as `serialize_for` writes it.
    let older = session_answers(&fast, "2025-06-18").await;
    let upstream_list = mcp_wire::wire::parse_result_for(
        "tools/list",
        &translated[0]["result"],
        ProtocolVersion::V2025_11_25,
    )
    .unwrap();
    let mcp_wire::wire::MethodResult::Server(list) = upstream_list else {
        panic!("a server result");
    };
    let expected = mcp_wire::wire::serialize_for(&list, ProtocolVersion::V2025_06_18).unwrap();
    assert_eq!(older[0]["result"], expected);
    assert_ne!(
        older[0]["result"], translated[0]["result"],
        "the 2025-11-25 tool list has members 2025-06-18 lacks"
    );
    let _ = std::fs::remove_file(&path);
    fast_task.abort();
    checked_task.abort();
    upstream.abort();
}
