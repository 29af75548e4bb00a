//! Direction B end to end on loopback (the B rows of `docs/bridge.md`): a scripted 2026-07-28 client over the
//! stateless HTTP wire → the bridge → the project's conformance fixtures served at 2025-11-25
//! only (in-process). Discover from the legacy handshake (B2), removed methods (B3), results
//! decorated (B4–B6), legacy errors mapped (B17), one legacy session per identity (bounded),
//! parked calls (B9: rounds, keys, tokens single use and bound, capability refusals as -32021,
//! expiry), progress (B12), logs only with a level (B13), list changes on a listen stream; the
//! tasks extension mapped onto the fixtures' 2025-11-25 core tasks and onto a real SDK server's
//! (server-everything's `simulate-research-query`), and hosted for a server without them (Q8).

use std::sync::Arc;
use std::time::Duration;

use mcp_wire::model::{CallToolRequestParams, CallToolResult, Implementation, ServerCapabilities};
use mcp_wire::{Era, ProtocolVersion};
use mcp_wire_bridge::{Bridge, BridgeLimits, BridgeOptions, UpstreamTarget};
use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{
    Change, Handler, HandlerResult, RequestContext, Server, ServerConfig,
};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(20);

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The fixtures at 2025-11-25 only, and a bridge in front of them serving HTTP.
struct Setup {
    bridge: Arc<Bridge>,
    url: String,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Setup {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

async fn setup(limits: BridgeLimits) -> Setup {
    setup_with(ConformanceFixtures::new(), limits).await
}

async fn setup_with<H: Handler>(handler: H, limits: BridgeLimits) -> Setup {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::new(
        handler,
        ServerConfig {
            revisions: vec![ProtocolVersion::V2025_11_25],
            ..ServerConfig::default()
        },
    );
    let upstream = tokio::spawn(async move {
        let _ = server.serve(listener).await;
    });
    let bridge = Arc::new(
        Bridge::connect(
            &UpstreamTarget::Url(upstream_url),
            BridgeOptions::default().limits(limits),
        )
        .await
        .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().era(), Era::Handshake);
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move {
            let _ = bridge.serve_http(front, "/mcp").await;
        })
    };
    Setup {
        bridge,
        url,
        tasks: vec![upstream, serving],
    }
}

/// A scripted 2026-07-28 client: every request carries `_meta` with its identity.
struct Client {
    conn: Connection,
    next: i64,
    capabilities: Value,
    seen: Vec<Value>,
}

impl Client {
    fn new(url: &str, capabilities: Value) -> Self {
        let conn = connect_streamable(url, Wire::Stateless, ClientOptions::default()).unwrap();
        Self {
            conn,
            next: 1,
            capabilities,
            seen: Vec::new(),
        }
    }

    fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "direction-b-test", "version": "1"},
        })
    }

    async fn send(&mut self, method: &str, mut params: Value, extra_meta: Value) -> i64 {
        let id = self.next;
        self.next += 1;
        let mut meta = self.meta();
        if let (Some(m), Value::Object(extra)) = (meta.as_object_mut(), extra_meta) {
            m.extend(extra);
        }
        params["_meta"] = meta;
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let frame = Frame::parse(serde_json::to_vec(&frame).unwrap()).unwrap();
        self.conn.sender.send(frame).await.unwrap();
        id
    }

    async fn recv(&mut self) -> Value {
        tokio::time::timeout(LIMIT, self.conn.receiver.recv())
            .await
            .expect("a frame in time")
            .expect("the connection is open")
            .to_value()
            .unwrap()
    }

    /// The answer to request `id` (notifications seen meanwhile are kept).
    async fn answer(&mut self, id: i64) -> Value {
        if let Some(i) = self.seen.iter().position(|f| f["id"] == id) {
            return self.seen.remove(i);
        }
        loop {
            let frame = self.recv().await;
            if frame["id"] == id && frame.get("method").is_none() {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params, json!({})).await;
        self.answer(id).await
    }
}

fn all_inputs() -> Value {
    json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {}})
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_comes_from_the_legacy_handshake_and_removed_methods_are_refused() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, json!({}));
    let d = c.call("server/discover", json!({})).await;
    let r = &d["result"];
    assert_eq!(r["supportedVersions"], json!(["2026-07-28"]), "{d}");
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-wire-conformance-server"
    );
    let caps = &r["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], true);
    assert!(caps["logging"].is_object(), "Q7: logging is offered");
    // Q8: the legacy server's core tasks are offered as the tasks extension.
    assert!(caps.get("tasks").is_none());
    assert_eq!(caps["extensions"], json!({TASKS: {}}), "{d}");
    assert_eq!(
        caps["resources"]["subscribe"], true,
        "emulated on listen streams (B7)"
    );
    // No legacy session was needed for that.
    assert_eq!(s.bridge.handler().handshake_sessions().await, 0);
    // Removed methods, and the 2025-11-25 task methods the extension does not have.
    for (method, params) in [
        ("ping", json!({})),
        ("logging/setLevel", json!({})),
        ("initialize", json!({})),
        ("tasks/result", json!({"taskId": "t"})),
        ("tasks/list", json!({})),
    ] {
        let e = c.call(method, params).await;
        assert_eq!(e["error"]["code"], -32601, "{method}: {e}");
    }
    // Well-formed params: the extension's methods, from a client that did not declare it.
    for (method, params) in [
        ("tasks/get", json!({"taskId": "t"})),
        ("tasks/update", json!({"taskId": "t", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "t"})),
    ] {
        let e = c.call(method, params).await;
        assert_eq!(e["error"]["code"], -32021, "{method}: {e}");
        assert!(
            e["error"]["data"]["requiredCapabilities"]["extensions"][TASKS].is_object(),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_decorated_and_legacy_errors_mapped() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, json!({}));
    let list = c.call("tools/list", json!({})).await;
    assert_eq!(list["result"]["resultType"], "complete", "{list}");
    assert_eq!(list["result"]["ttlMs"], 0);
    assert!(list["result"]["tools"].as_array().unwrap().len() > 10);
    let call = c
        .call(
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}}),
        )
        .await;
    assert_eq!(call["result"]["resultType"], "complete");
    assert_eq!(
        text_of(&call["result"]),
        "This is a simple text response for testing."
    );
    assert_eq!(
        call["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-wire-conformance-server"
    );
    // The legacy server's -32002 is 2026-07-28's -32602 with the URI.
    let missing = c
        .call("resources/read", json!({"uri": "test://nowhere"}))
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], "test://nowhere");
    // A legacy server's own -32021 (it checked the capabilities its session declared).
    let refused = c
        .call(
            "tools/call",
            json!({"name": "test_missing_capability", "arguments": {}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_identity_gets_its_own_legacy_session_and_the_count_is_bounded() {
    let s = setup(BridgeLimits::default().max_handshake_sessions(2)).await;
    let mut plain = Client::new(&s.url, json!({}));
    let mut sampler = Client::new(&s.url, json!({"sampling": {}}));
    let tool = json!({"name": "test_missing_capability", "arguments": {}});
    // The server decides on what each identity declared in its own initialize.
    assert_eq!(
        plain.call("tools/call", tool.clone()).await["error"]["code"],
        -32021
    );
    let ok = sampler.call("tools/call", tool.clone()).await;
    assert_eq!(
        text_of(&ok["result"]),
        "The client declared sampling",
        "{ok}"
    );
    assert_eq!(s.bridge.handler().handshake_sessions().await, 2);
    // The same identity again: the same session.
    plain.call("tools/list", json!({})).await;
    assert_eq!(s.bridge.handler().handshake_sessions().await, 2);
    // A third identity replaces the least recently used idle one.
    let mut third = Client::new(&s.url, json!({"roots": {}}));
    assert!(third.call("tools/list", json!({})).await["result"].is_object());
    assert_eq!(s.bridge.handler().handshake_sessions().await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_question_parks_the_call_and_the_retry_answers_it() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, all_inputs());
    let tool = json!({"name": "test_input_required_result_elicitation", "arguments": {}});
    let first = c.call("tools/call", tool.clone()).await;
    let r = &first["result"];
    assert_eq!(r["resultType"], "input_required", "{first}");
    // The handler's own key (the runtime names it in the legacy request's `_meta`), and the
    // question without that `_meta`.
    let question = &r["inputRequests"]["user_name"];
    assert_eq!(question["method"], "elicitation/create");
    assert!(question["params"].get("_meta").is_none());
    let token = r["requestState"].as_str().unwrap().to_owned();
    assert_eq!(s.bridge.handler().parked_calls(), 1);

    // Params other than the parked call's: refused, the park stays.
    let mut other = tool.clone();
    other["arguments"] = json!({"x": 1});
    other["requestState"] = json!(token);
    let e = c.call("tools/call", other).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
    // Tampered: refused.
    let mut tampered = tool.clone();
    tampered["requestState"] = json!(format!("{token}x"));
    assert_eq!(
        c.call("tools/call", tampered).await["error"]["code"],
        -32602
    );
    assert_eq!(s.bridge.handler().parked_calls(), 1);

    let mut retry = tool.clone();
    retry["requestState"] = json!(token);
    retry["inputResponses"] =
        json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let done = c.call("tools/call", retry.clone()).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(text_of(&done["result"]), "Hello, Alice!");
    assert_eq!(s.bridge.handler().parked_calls(), 0);
    // Single use.
    let replay = c.call("tools/call", retry).await;
    assert_eq!(replay["error"]["code"], -32602, "{replay}");
    assert_eq!(replay["error"]["data"]["requestState"], "was already used");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_get_fresh_tokens_and_parallel_questions_come_in_one_round() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, all_inputs());
    let tool = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    let r1 = c.call("tools/call", tool.clone()).await["result"].clone();
    assert!(r1["inputRequests"]["step1"].is_object(), "{r1}");
    let mut retry = tool.clone();
    retry["requestState"] = r1["requestState"].clone();
    retry["inputResponses"] = json!({"step1": {"action": "accept", "content": {"name": "Ann"}}});
    let r2 = c.call("tools/call", retry).await["result"].clone();
    assert!(r2["inputRequests"]["step2"].is_object(), "{r2}");
    assert_ne!(r2["requestState"], r1["requestState"]);
    let mut retry = tool.clone();
    retry["requestState"] = r2["requestState"].clone();
    retry["inputResponses"] = json!({"step2": {"action": "accept", "content": {"color": "red"}}});
    let r3 = c.call("tools/call", retry).await["result"].clone();
    assert_eq!(
        text_of(&r3),
        "Hello Ann, your favorite color is red",
        "{r3}"
    );

    // Three questions the server asks at once: one round; an answer missing is asked again.
    let tool = json!({"name": "test_input_required_result_multiple_inputs", "arguments": {}});
    let r = c.call("tools/call", tool.clone()).await["result"].clone();
    let keys: Vec<&String> = r["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["user_name", "greeting", "client_roots"], "{r}");
    let mut retry = tool.clone();
    retry["requestState"] = r["requestState"].clone();
    retry["inputResponses"] = json!({
        "user_name": {"action": "accept", "content": {"name": "Bo"}},
        "client_roots": {"roots": []},
        "unknown": {"action": "decline"}
    });
    let again = c.call("tools/call", retry).await["result"].clone();
    let keys: Vec<&String> = again["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["greeting"], "{again}");
    let mut retry = tool.clone();
    retry["requestState"] = again["requestState"].clone();
    retry["inputResponses"] = json!({"greeting": {"role": "assistant",
        "content": {"type": "text", "text": "hi"}, "model": "m"}});
    let done = c.call("tools/call", retry).await["result"].clone();
    assert_eq!(
        text_of(&done),
        "All inputs received: user_name, greeting, client_roots",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_sent_with_the_first_call_needs_no_round_and_a_wrong_shape_is_refused() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, all_inputs());
    let tool = json!({"name": "test_input_required_result_elicitation", "arguments": {},
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Eve"}},
            "extra": {"action": "accept", "content": {}}}});
    let done = c.call("tools/call", tool).await;
    assert_eq!(text_of(&done["result"]), "Hello, Eve!", "{done}");
    let tool = json!({"name": "test_input_required_result_elicitation", "arguments": {}});
    let r = c.call("tools/call", tool.clone()).await["result"].clone();
    let mut retry = tool;
    retry["requestState"] = r["requestState"].clone();
    retry["inputResponses"] = json!({"user_name": {"roots": []}});
    let e = c.call("tools/call", retry).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
    assert_eq!(
        s.bridge.handler().parked_calls(),
        0,
        "the call was abandoned"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_asks_only_what_the_identity_declared() {
    let s = setup(BridgeLimits::default()).await;
    // The session of a sampling-only client declared sampling only, so the server asks no
    // elicitation or roots of it.
    let mut c = Client::new(&s.url, json!({"sampling": {}}));
    let tool = json!({"name": "test_input_required_result_capabilities", "arguments": {}});
    let r = c.call("tools/call", tool).await["result"].clone();
    let keys: Vec<&String> = r["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["capital_question"],
        "only what was declared is asked: {r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parked_call_expires_its_token_and_ends_upstream() {
    let s = setup(BridgeLimits::default().park_ttl(Duration::from_secs(1))).await;
    let mut c = Client::new(&s.url, all_inputs());
    let tool = json!({"name": "test_input_required_result_elicitation", "arguments": {}});
    let r = c.call("tools/call", tool.clone()).await["result"].clone();
    assert_eq!(s.bridge.handler().parked_calls(), 1);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(s.bridge.handler().parked_calls(), 0, "expired and swept");
    let mut retry = tool;
    retry["requestState"] = r["requestState"].clone();
    retry["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": "Z"}}});
    let e = c.call("tools/call", retry).await;
    assert_eq!(e["error"]["code"], -32602, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_callers_token_and_logs_need_a_level() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, json!({}));
    let id = c
        .send(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}}),
            json!({"progressToken": "p-1"}),
        )
        .await;
    let done = c.answer(id).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let progress: Vec<&Value> = c
        .seen
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", c.seen);
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p-1")
    );
    c.seen.clear();
    let quiet = c
        .call(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    assert!(quiet["result"].is_object());
    assert!(c.seen.is_empty(), "no logs without a level: {:?}", c.seen);
    let id = c
        .send(
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
            json!({"io.modelcontextprotocol/logLevel": "info"}),
        )
        .await;
    c.answer(id).await;
    let logs = c
        .seen
        .iter()
        .filter(|f| f["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 3, "{:?}", c.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_reaches_a_listen_stream_once() {
    let s = setup(BridgeLimits::default()).await;
    let mut listener = Client::new(&s.url, json!({}));
    let listen = listener
        .send(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
            json!({}),
        )
        .await;
    let ack = listener.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let mut c = Client::new(&s.url, json!({}));
    // Two legacy sessions (the bridge's probe and this identity's) both hear the change.
    c.call(
        "tools/call",
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
    )
    .await;
    let change = listener.recv().await;
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    let more =
        tokio::time::timeout(Duration::from_millis(600), listener.conn.receiver.recv()).await;
    assert!(more.is_err(), "one change, one notification: {more:?}");
}

/// A legacy server with resource subscriptions but no list changes: it records every
/// `resources/subscribe` and announces an update of `test://r` when `touch` is called.
#[derive(Default)]
struct Watched {
    subscribed: Arc<std::sync::Mutex<Vec<String>>>,
}

impl Handler for Watched {
    fn server_info(&self) -> Implementation {
        Implementation::new("watched", "1")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"resources": {"subscribe": true}, "tools": {}})).unwrap()
    }

    fn subscribe(&self, _: &RequestContext, uri: &str) -> HandlerResult<()> {
        self.subscribed.lock().unwrap().push(uri.to_owned());
        Ok(())
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        _: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        ctx.notifier()
            .announce(Change::ResourceUpdated("test://r".into()));
        Ok(serde_json::from_value(json!({"content": []})).unwrap())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_are_narrowed_to_the_server_and_carry_subscribed_updates() {
    let watched = Watched::default();
    let subscribed = watched.subscribed.clone();
    let s = setup_with(watched, BridgeLimits::default()).await;
    let mut a = Client::new(&s.url, json!({}));
    let filter = json!({"notifications": {"toolsListChanged": true,
        "resourceSubscriptions": ["test://r", "test://r"]}});
    let listen = a
        .send("subscriptions/listen", filter.clone(), json!({}))
        .await;
    let ack = a.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // No tool list changes from this server; the URI once.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourceSubscriptions": ["test://r"]}),
        "{ack}"
    );
    // A second stream of the same identity: no second upstream subscribe.
    let mut b = Client::new(&s.url, json!({}));
    b.send("subscriptions/listen", filter, json!({})).await;
    assert_eq!(
        b.recv().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(*subscribed.lock().unwrap(), ["test://r"]);
    let mut c = Client::new(&s.url, json!({}));
    c.call("tools/call", json!({"name": "touch", "arguments": {}}))
        .await;
    for (client, id) in [(&mut a, Some(listen)), (&mut b, None)] {
        let update = client.recv().await;
        assert_eq!(
            update["method"], "notifications/resources/updated",
            "{update}"
        );
        assert_eq!(update["params"]["uri"], "test://r");
        if let Some(id) = id {
            assert_eq!(
                update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                id
            );
        }
    }
}

/// `tasks/get` until the status is one of `want` (at most 10 s).
async fn wait_for_task(c: &mut Client, id: &str, want: &[&str]) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let got = c.call("tasks/get", json!({"taskId": id})).await;
        let task = &got["result"];
        assert!(task.is_object(), "{got}");
        if want.contains(&task["status"].as_str().unwrap_or("")) {
            return task.clone();
        }
        assert!(std::time::Instant::now() < deadline, "task stuck at {got}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn with_tasks() -> Value {
    json!({"elicitation": {}, "sampling": {}, "extensions": {TASKS: {}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tasks_extension_maps_onto_the_legacy_servers_core_tasks() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, with_tasks());
    // A tool that runs no task answers at once, a client's `task` hint is not carried.
    let sync = c
        .call(
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "B"}, "task": {"ttl": 1000}}),
        )
        .await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");
    assert_eq!(text_of(&sync["result"]), "Hello, B!");

    // A task: the extension's flat form of the server's core task.
    let created = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.3, "label": "b"}}),
        )
        .await;
    let r = &created["result"];
    assert_eq!(r["resultType"], "task", "{created}");
    for absent in [
        "task",
        "ttl",
        "pollInterval",
        "requestState",
        "result",
        "inputRequests",
    ] {
        assert!(r.get(absent).is_none(), "{absent}: {created}");
    }
    assert_eq!(r["ttlMs"], 300_000);
    assert_eq!(r["pollIntervalMs"], 500);
    assert!(r["createdAt"].as_str().unwrap().ends_with('Z'));
    let id = r["taskId"].as_str().unwrap().to_owned();
    // Stored before the answer: an immediate tasks/get finds it.
    let now = c.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(now["result"]["taskId"], id.as_str(), "{now}");
    assert_eq!(now["result"]["resultType"], "complete");
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(text_of(&done["result"]), "slow_compute(b) done after 0.3s");
    assert_eq!(done["result"]["resultType"], "complete");
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none(),
        "{done}"
    );

    // A tool error is `completed` with isError (2025-11-25's `failed`), a protocol error
    // `failed` with the error and no result.
    let created = c
        .call(
            "tools/call",
            json!({"name": "failing_job", "arguments": {}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true);
    let created = c
        .call(
            "tools/call",
            json!({"name": "protocol_error_job", "arguments": {}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603);
    assert!(done.get("result").is_none());

    // Cancel: an empty ack, `cancelled` at once, the same ack again.
    let created = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 60}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let ack = c.call("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert!(ack["result"].get("status").is_none(), "{ack}");
        let got = c.call("tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["result"]["status"], "cancelled", "{got}");
    }
    let unknown = c.call("tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(s.bridge.handler().tasks(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_questions_are_its_input_requests_and_tasks_update_answers_them() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, with_tasks());
    let created = c
        .call(
            "tools/call",
            json!({"name": "multi_input", "arguments": {}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Both questions, under the server's own keys (the bridge holds tasks/result upstream).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let parked = loop {
        let t = wait_for_task(&mut c, &id, &["input_required"]).await;
        if t["inputRequests"].as_object().map_or(0, |m| m.len()) == 2 {
            break t;
        }
        assert!(std::time::Instant::now() < deadline, "{t}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    let mut keys: Vec<&String> = parked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    keys.sort();
    assert_eq!(keys, ["input-a", "input-b"], "{parked}");
    assert_eq!(
        parked["inputRequests"]["input-a"]["method"],
        "elicitation/create"
    );
    assert!(
        parked["inputRequests"]["input-a"]["params"]
            .get("_meta")
            .is_none(),
        "the legacy request's own _meta is not shown: {parked}"
    );
    // Unknown keys and answers of another shape are ignored; the ack is empty.
    let ack = c
        .call(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {
                "input-a": {"action": "accept", "content": {"value": "one"}},
                "zz": {"action": "accept"}, "input-b": {"roots": []}}}),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("taskId").is_none());
    let half = c.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(half["result"]["status"], "input_required", "{half}");
    let keys: Vec<&String> = half["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["input-b"]);
    c.call(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {
            "input-b": {"action": "accept", "content": {"value": "two"}}}}),
    )
    .await;
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(text_of(&done["result"]), "multi_input: one, two", "{done}");

    // Cancelling a task that waits for input answers the server's question for it.
    let created = c
        .call(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "f"}}),
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = wait_for_task(&mut c, &id, &["input_required"]).await;
    assert!(parked["inputRequests"]["confirm"].is_object(), "{parked}");
    c.call("tasks/cancel", json!({"taskId": id})).await;
    let got = c.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "cancelled");
    assert!(got["result"].get("inputRequests").is_none(), "{got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_task_tools_need_the_extension_and_a_request_may_opt_in() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, json!({"elicitation": {}}));
    let e = c
        .call(
            "tools/call",
            json!({"name": "failing_job", "arguments": {}}),
        )
        .await;
    assert_eq!(e["error"]["code"], -32021, "{e}");
    assert!(
        e["error"]["data"]["requiredCapabilities"]["extensions"][TASKS].is_object(),
        "{e}"
    );
    // An optional one runs synchronously.
    let sync = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0}}),
        )
        .await;
    assert_eq!(sync["result"]["resultType"], "complete", "{sync}");
    assert!(sync["result"].get("taskId").is_none());
    // One request declaring the extension in its own _meta gets a task.
    let id = c
        .send(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.1}}),
            json!({"io.modelcontextprotocol/clientCapabilities": with_tasks()}),
        )
        .await;
    let created = c.answer(id).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_round_before_the_task_composes_with_it() {
    let s = setup(BridgeLimits::default()).await;
    let mut c = Client::new(&s.url, with_tasks());
    let first = c
        .call(
            "tools/call",
            json!({"name": "test_tool_with_task", "arguments": {}}),
        )
        .await;
    let r = &first["result"];
    assert_eq!(r["resultType"], "input_required", "{first}");
    assert!(r.get("taskId").is_none());
    assert!(r["inputRequests"]["user_name"].is_object(), "{first}");
    let token = r["requestState"].as_str().unwrap().to_owned();
    let second = c
        .call(
            "tools/call",
            json!({"name": "test_tool_with_task", "arguments": {},
                   "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
                   "requestState": token}),
        )
        .await;
    let r = &second["result"];
    assert_eq!(r["resultType"], "task", "{second}");
    assert!(r.get("requestState").is_none() && r.get("inputRequests").is_none());
    let id = r["taskId"].as_str().unwrap().to_owned();
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(text_of(&done["result"]).contains("Alice"), "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_bounded_owned_and_expire() {
    let s = setup(
        BridgeLimits::default()
            .max_tasks(2)
            .task_ttl(Duration::from_millis(1500)),
    )
    .await;
    let mut c = Client::new(&s.url, with_tasks());
    let slow = || json!({"name": "slow_compute", "arguments": {"seconds": 60}});
    let a = c.call("tools/call", slow()).await;
    let b = c.call("tools/call", slow()).await;
    assert_eq!(a["result"]["ttlMs"], 1500, "{a}");
    assert_eq!(b["result"]["resultType"], "task", "{b}");
    // Two running tasks fill a store of two.
    let full = c.call("tools/call", slow()).await;
    assert_eq!(full["error"]["data"]["reason"], "limit_exceeded", "{full}");
    // A finished task makes room.
    let a_id = a["result"]["taskId"].as_str().unwrap().to_owned();
    c.call("tasks/cancel", json!({"taskId": a_id})).await;
    let third = c.call("tools/call", slow()).await;
    assert_eq!(third["result"]["resultType"], "task", "{third}");
    assert_eq!(s.bridge.handler().tasks(), 2);
    // Each ends with its TTL.
    tokio::time::sleep(Duration::from_millis(1700)).await;
    let gone = c
        .call("tasks/get", json!({"taskId": b["result"]["taskId"]}))
        .await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert_eq!(s.bridge.handler().tasks(), 0);
}

/// A legacy server without core tasks: `quick` answers at once, `slow` after 500 ms,
/// `ask_later` asks a question after 300 ms, `fail_later` fails after 300 ms, `sleepy` sleeps
/// 30 s (`ended` counts the calls that ended, cancelled ones included).
#[derive(Default)]
struct Later {
    ended: Arc<std::sync::atomic::AtomicUsize>,
}

struct Ended(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Handler for Later {
    fn server_info(&self) -> Implementation {
        Implementation::new("later", "1")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {}})).unwrap()
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        let _ended = Ended(self.ended.clone());
        let text = |t: String| -> CallToolResult {
            serde_json::from_value(json!({"content": [{"type": "text", "text": t}]})).unwrap()
        };
        match params.name.as_str() {
            "quick" => Ok(text("quick".into())),
            "slow" => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                Ok(text("slow".into()))
            }
            "sleepy" => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(text("sleepy".into()))
            }
            "fail_later" => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Err(mcp_wire_transport::server::HandlerError::internal(
                    "fail_later failed",
                ))
            }
            _ => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                let ask =
                    serde_json::from_value(json!({"method": "elicitation/create", "params": {
                    "message": "Name?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}}))
                    .unwrap();
                let answer = ctx.input("who", ask).await?;
                Ok(text(format!(
                    "asked: {}",
                    serde_json::to_string(&answer).unwrap()
                )))
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_hosts_tasks_for_a_server_without_core_tasks_when_asked_to() {
    let later = Later::default();
    let ended = later.ended.clone();
    let s = setup_with(
        later,
        BridgeLimits::default().host_tasks_after(Duration::from_millis(150)),
    )
    .await;
    let mut c = Client::new(&s.url, with_tasks());
    let d = c.call("server/discover", json!({})).await;
    assert_eq!(
        d["result"]["capabilities"]["extensions"],
        json!({TASKS: {}}),
        "{d}"
    );
    // Answered in time: no task.
    let quick = c
        .call("tools/call", json!({"name": "quick", "arguments": {}}))
        .await;
    assert_eq!(quick["result"]["resultType"], "complete", "{quick}");
    // Not answered in time: a task, the call going on upstream.
    let created = c
        .call("tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(text_of(&done["result"]), "slow", "{done}");
    // A question after the task began is its input request, under the server's key.
    let created = c
        .call("tools/call", json!({"name": "ask_later", "arguments": {}}))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = wait_for_task(&mut c, &id, &["input_required"]).await;
    assert_eq!(
        parked["inputRequests"]["who"]["method"], "elicitation/create",
        "{parked}"
    );
    c.call(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"who": {"action": "accept", "content": {"name": "Bo"}}}}),
    )
    .await;
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert!(text_of(&done["result"]).contains("Bo"), "{done}");
    // A protocol error: failed.
    let created = c
        .call("tools/call", json!({"name": "fail_later", "arguments": {}}))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for_task(&mut c, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603);
    // Cancelling a hosted task cancels its call upstream.
    let before = ended.load(std::sync::atomic::Ordering::SeqCst);
    let created = c
        .call("tools/call", json!({"name": "sleepy", "arguments": {}}))
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    c.call("tasks/cancel", json!({"taskId": id})).await;
    let got = c.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while ended.load(std::sync::atomic::Ordering::SeqCst) == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the upstream call was not cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Without the extension the same call is answered synchronously.
    let mut plain = Client::new(&s.url, json!({}));
    let sync = plain
        .call("tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    assert_eq!(text_of(&sync["result"]), "slow", "{sync}");
}

/// A real legacy server's core task through the bridge: `@modelcontextprotocol/server-everything`
/// (TS SDK v1, stdio, pinned in `tests/peers/`) and its `simulate-research-query`, a
/// `required`-task tool that asks for a clarification in the middle of its task (delivered on
/// `tasks/result` with `related-task`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everythings_core_task_is_an_extension_task_through_the_bridge() {
    let peers = mcp_wire_tests::peers::peers();
    let everything = peers
        .package("@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    let target =
        UpstreamTarget::Command(vec![peers.node().into(), everything.into(), "stdio".into()]);
    let bridge = Arc::new(
        Bridge::connect(&target, BridgeOptions::default())
            .await
            .expect("the bridge starts server-everything"),
    );
    assert_eq!(bridge.snapshot().era(), Era::Handshake);
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move {
            let _ = bridge.serve_http(front, "/mcp").await;
        })
    };
    let mut c = Client::new(&url, with_tasks());
    let d = c.call("server/discover", json!({})).await;
    assert_eq!(
        d["result"]["capabilities"]["extensions"],
        json!({TASKS: {}}),
        "{d}"
    );
    let created = c
        .call(
            "tools/call",
            json!({"name": "simulate-research-query",
                   "arguments": {"topic": "rust", "ambiguous": true}}),
        )
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Stage three asks which "rust" is meant: the task's input request.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let parked = loop {
        let got = c.call("tasks/get", json!({"taskId": id})).await;
        let task = got["result"].clone();
        assert!(
            !["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or("")),
            "ended without asking: {got}"
        );
        if task["status"] == "input_required" {
            break task;
        }
        assert!(std::time::Instant::now() < deadline, "{got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let requests = parked["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{parked}");
    let (key, ask) = requests.iter().next().unwrap();
    assert_eq!(ask["method"], "elicitation/create", "{parked}");
    c.call(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {key: {"action": "accept",
               "content": {"interpretation": "the language"}}}}),
    )
    .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let done = loop {
        let got = c.call("tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "completed" {
            break got["result"].clone();
        }
        assert!(
            got["result"]["status"] != "failed" && std::time::Instant::now() < deadline,
            "{got}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        text_of(&done["result"]).contains("rust (the language)"),
        "{done}"
    );
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
    // Without the extension the required-task tool is refused, naming it.
    let mut plain = Client::new(&url, json!({"elicitation": {}}));
    let e = plain
        .call(
            "tools/call",
            json!({"name": "simulate-research-query", "arguments": {"topic": "rust"}}),
        )
        .await;
    assert_eq!(e["error"]["code"], -32021, "{e}");
    serving.abort();
    bridge.shutdown(Duration::from_secs(2)).await;
}
