//! The tasks extension (SEP-2663) at 2026-07-28, live over Streamable HTTP on loopback: the
//! conformance fixtures' task tools, `tasks/get`, `tasks/update`, `tasks/cancel`, the
//! capability gate, the required-task error, bad input with its JSON-RPC codes, and the store's
//! count cap. Each exchange is bounded in time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const TASKS: &str = "io.modelcontextprotocol/tasks";

struct Running {
    server: Arc<Server<ConformanceFixtures>>,
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
    let server = Server::new(ConformanceFixtures::new(), config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let task = tokio::spawn(async move {
        let _ = s.serve(listener).await;
    });
    Running { server, addr, task }
}

/// The client's capabilities: with or without the tasks extension.
fn caps(with_tasks: bool) -> Value {
    if with_tasks {
        json!({"elicitation": {}, "extensions": {TASKS: {}}})
    } else {
        json!({"elicitation": {}})
    }
}

/// One 2026-07-28 request: (HTTP status, the response message).
async fn rpc(
    addr: std::net::SocketAddr,
    method: &str,
    mut params: Value,
    with_tasks: bool,
    name_header: Option<&str>,
) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps(with_tasks),
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    });
    let name = name_header.map(str::to_owned).or_else(|| {
        ["name", "taskId"]
            .iter()
            .find_map(|k| params.get(*k).and_then(Value::as_str).map(str::to_owned))
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n",
        addr.port(),
        body.len()
    );
    if let Some(name) = name {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    head.push_str("\r\n");
    let raw = tokio::time::timeout(Duration::from_secs(10), async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        raw
    })
    .await
    .expect("the server answered in time");
    let text = String::from_utf8_lossy(&raw);
    let status: u16 = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
    // The JSON-RPC response: the JSON body, or the last data line of an SSE stream.
    let message = text
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("data: ").unwrap_or(l);
            serde_json::from_str::<Value>(l).ok()
        })
        .rfind(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no response message in {text}"));
    (status, message)
}

async fn call(run: &Running, tool: &str, args: Value, with_tasks: bool) -> (u16, Value) {
    rpc(
        run.addr,
        "tools/call",
        json!({"name": tool, "arguments": args}),
        with_tasks,
        None,
    )
    .await
}

async fn get(run: &Running, id: &str) -> Value {
    let (status, m) = rpc(run.addr, "tasks/get", json!({"taskId": id}), true, None).await;
    assert_eq!(status, 200, "{m}");
    m["result"].clone()
}

/// Polls `tasks/get` until the status is one of `want` (at most 5 s).
async fn wait_for(run: &Running, id: &str, want: &[&str]) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let task = get(run, id).await;
        if want.contains(&task["status"].as_str().unwrap_or("")) {
            return task;
        }
        assert!(Instant::now() < deadline, "task stuck at {task}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_task_runs_to_completion_with_its_result_inlined() {
    let run = start(|_| {}).await;
    let (status, m) = call(
        &run,
        "slow_compute",
        json!({"seconds": 0.2, "label": "t"}),
        true,
    )
    .await;
    assert_eq!(status, 200);
    let created = &m["result"];
    assert_eq!(created["resultType"], "task");
    assert!(created.get("task").is_none(), "flat, no nested task");
    assert!(created.get("requestState").is_none());
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    let id = created["taskId"].as_str().unwrap().to_owned();
    // Kept before the answer: an immediate tasks/get finds it.
    let working = get(&run, &id).await;
    assert_eq!(working["status"], "working");
    assert_eq!(working["resultType"], "complete");
    assert!(working.get("result").is_none());
    let done = wait_for(&run, &id, &["completed"]).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "slow_compute(t) done after 0.2s"
    );
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
    assert_eq!(run.server.task_count(), 1);
}

#[tokio::test]
async fn without_the_extension_tools_run_inline_and_task_methods_are_refused() {
    let run = start(|_| {}).await;
    let (_, m) = call(&run, "slow_compute", json!({"seconds": 0}), false).await;
    assert_eq!(m["result"]["resultType"], "complete");
    assert!(m["result"]["content"].is_array());
    for (method, params) in [
        ("tasks/get", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "x"})),
    ] {
        let (status, m) = rpc(run.addr, method, params, false, None).await;
        assert_eq!(
            (status, m["error"]["code"].as_i64()),
            (400, Some(-32021)),
            "{method}"
        );
    }
    // A tool that runs only as a task: refused before it runs, naming the extension.
    let (status, m) = call(&run, "failing_job", json!({}), false).await;
    assert_eq!(status, 400);
    assert_eq!(m["error"]["code"], -32021);
    assert!(m["error"]["data"]["requiredCapabilities"]["extensions"][TASKS].is_object());
    assert_eq!(run.server.task_count(), 0);
}

#[tokio::test]
async fn errors_end_tasks_completed_or_failed_and_cancel_is_idempotent() {
    let run = start(|_| {}).await;
    let (_, m) = call(&run, "failing_job", json!({}), true).await;
    let id = m["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for(&run, &id, &["completed", "failed"]).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);

    let (_, m) = call(&run, "protocol_error_job", json!({}), true).await;
    let id = m["result"]["taskId"].as_str().unwrap().to_owned();
    let failed = wait_for(&run, &id, &["completed", "failed"]).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed.get("result").is_none());

    let (_, m) = call(&run, "slow_compute", json!({"seconds": 60}), true).await;
    let id = m["result"]["taskId"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let (status, ack) = rpc(run.addr, "tasks/cancel", json!({"taskId": id}), true, None).await;
        assert_eq!(status, 200);
        assert_eq!(
            ack["result"],
            json!({"resultType": "complete", "_meta": ack["result"]["_meta"]})
        );
    }
    assert_eq!(get(&run, &id).await["status"], "cancelled");
}

#[tokio::test]
async fn input_requests_park_the_task_until_tasks_update_answers() {
    let run = start(|_| {}).await;
    let (_, m) = call(&run, "multi_input", json!({}), true).await;
    let id = m["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = wait_for(&run, &id, &["input_required"]).await;
    let keys: Vec<String> = parked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["input-a", "input-b"]);
    assert_eq!(
        parked["inputRequests"]["input-a"]["method"],
        "elicitation/create"
    );
    let answer = |k: &str, v: &str| json!({"taskId": id, "inputResponses": {k: {"action": "accept", "content": {"value": v}}}});
    let (_, ack) = rpc(
        run.addr,
        "tasks/update",
        answer("input-a", "one"),
        true,
        None,
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("taskId").is_none());
    let half = get(&run, &id).await;
    assert_eq!(half["status"], "input_required");
    assert_eq!(
        half["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["input-b"]
    );
    rpc(
        run.addr,
        "tasks/update",
        answer("input-b", "two"),
        true,
        None,
    )
    .await;
    let done = wait_for(&run, &id, &["completed"]).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "multi_input: one, two"
    );
}

#[tokio::test]
async fn bad_task_requests_get_their_codes() {
    let run = start(|_| {}).await;
    let (status, m) = rpc(run.addr, "tasks/get", json!({"taskId": "nope"}), true, None).await;
    assert_eq!((status, m["error"]["code"].as_i64()), (200, Some(-32602)));
    for removed in ["tasks/result", "tasks/list"] {
        let (status, m) = rpc(run.addr, removed, json!({"taskId": "nope"}), true, None).await;
        assert_eq!(
            (status, m["error"]["code"].as_i64()),
            (404, Some(-32601)),
            "{removed}"
        );
    }
    let (status, m) = rpc(
        run.addr,
        "tasks/get",
        json!({"taskId": "nope"}),
        true,
        Some("another-task"),
    )
    .await;
    assert_eq!((status, m["error"]["code"].as_i64()), (400, Some(-32020)));
    let (status, m) = rpc(
        run.addr,
        "tasks/update",
        json!({"taskId": "nope"}),
        true,
        None,
    )
    .await;
    assert_eq!(
        (status, m["error"]["code"].as_i64()),
        (400, Some(-32602)),
        "{m}"
    );
}

#[tokio::test]
async fn the_store_is_bounded() {
    let run = start(|c| c.limits.max_tasks = 2).await;
    for _ in 0..2 {
        let (_, m) = call(&run, "slow_compute", json!({"seconds": 60}), true).await;
        assert_eq!(m["result"]["resultType"], "task");
    }
    let (_, m) = call(&run, "slow_compute", json!({"seconds": 60}), true).await;
    assert_eq!(m["error"]["code"], -32603, "{m}");
    assert_eq!(run.server.task_count(), 2);
}

/// A scripted 2025-11-25 client on the stateful wire (one session).
struct Legacy {
    conn: mcp_wire_transport::Connection,
    next: i64,
    /// Frames read while waiting for something else (server requests, notifications).
    seen: Vec<Value>,
}

impl Legacy {
    async fn open(run: &Running) -> Legacy {
        use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
        let url = format!("http://{}/mcp", run.addr);
        let conn = connect_streamable(&url, Wire::Stateful, ClientOptions::default()).unwrap();
        let mut c = Legacy {
            conn,
            next: 1,
            seen: Vec::new(),
        };
        let init = c
            .call(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                       "clientInfo": {"name": "core-tasks-test", "version": "1"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        c.write(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        c.seen.push(init);
        c
    }

    async fn write(&mut self, frame: Value) {
        let frame = mcp_wire_transport::Frame::parse(serde_json::to_vec(&frame).unwrap()).unwrap();
        self.conn.sender.send(frame).await.unwrap();
    }

    async fn read(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(10), self.conn.receiver.recv())
            .await
            .expect("a frame in time")
            .expect("the connection is open")
            .to_value()
            .unwrap()
    }

    async fn send(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next;
        self.next += 1;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// The answer to request `id` (other frames are kept in `seen`).
    async fn answer(&mut self, id: i64) -> Value {
        if let Some(i) = self
            .seen
            .iter()
            .position(|f| f["id"] == id && f.get("method").is_none())
        {
            return self.seen.remove(i);
        }
        loop {
            let frame = self.read().await;
            if frame["id"] == id && frame.get("method").is_none() {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params).await;
        self.answer(id).await
    }

    /// The next server→client request.
    async fn server_request(&mut self) -> Value {
        if let Some(i) = self
            .seen
            .iter()
            .position(|f| f.get("method").is_some() && f.get("id").is_some())
        {
            return self.seen.remove(i);
        }
        loop {
            let frame = self.read().await;
            if frame.get("method").is_some() && frame.get("id").is_some() {
                return frame;
            }
            self.seen.push(frame);
        }
    }

    /// `tasks/get` until the status is one of `want` (at most 5 s).
    async fn wait_for(&mut self, id: &str, want: &[&str]) -> Value {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let task = self.call("tasks/get", json!({"taskId": id})).await;
            if want.contains(&task["result"]["status"].as_str().unwrap_or("")) {
                return task["result"].clone();
            }
            assert!(Instant::now() < deadline, "task stuck at {task}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_2025_11_25_the_same_tools_are_core_tasks() {
    let run = start(|c| c.revisions = vec![mcp_wire::ProtocolVersion::V2025_11_25]).await;
    let mut c = Legacy::open(&run).await;
    let init = c.seen.pop().unwrap();
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{init}"
    );
    assert!(caps.get("extensions").is_none(), "{init}");
    let tools = c.call("tools/list", json!({})).await;
    let support = |name: &str| {
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["execution"]["taskSupport"].clone())
    };
    assert_eq!(support("failing_job"), Some(json!("required")));
    assert_eq!(support("slow_compute"), Some(json!("optional")));
    assert_eq!(support("greet"), Some(Value::Null));

    // The client decides: plain calls run inline, required-task tools need params.task, and
    // a tool that runs no task refuses one (-32601, as 2025-11-25 says).
    let plain = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0}}),
        )
        .await;
    assert!(plain["result"]["content"].is_array(), "{plain}");
    let refused = c
        .call(
            "tools/call",
            json!({"name": "failing_job", "arguments": {}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let refused = c
        .call(
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "x"}, "task": {}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    // A task: CreateTaskResult, tasks/get, tasks/result with related-task, tasks/list.
    let created = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.2, "label": "core"},
                   "task": {"ttl": 60000}}),
        )
        .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert!(task["ttl"].as_i64().unwrap() > 0);
    assert!(task.get("ttlMs").is_none() && created["result"].get("resultType").is_none());
    let id = task["taskId"].as_str().unwrap().to_owned();
    let got = c.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
    let payload = c.call("tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        payload["result"]["content"][0]["text"], "slow_compute(core) done after 0.2s",
        "{payload}"
    );
    assert_eq!(
        payload["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let done = c.wait_for(&id, &["completed"]).await;
    assert_eq!(done["taskId"], id.as_str());
    let list = c.call("tasks/list", json!({})).await;
    assert!(
        list["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["taskId"] == id.as_str()),
        "{list}"
    );
    // A finished task cannot be cancelled at 2025-11-25.
    let again = c.call("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");

    // A tool error is `failed` at 2025-11-25; tasks/result gives the result as it was.
    let created = c
        .call(
            "tools/call",
            json!({"name": "failing_job", "arguments": {}, "task": {}}),
        )
        .await;
    let failing = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let failed = c.wait_for(&failing, &["failed"]).await;
    assert_eq!(failed["status"], "failed");
    let payload = c.call("tasks/result", json!({"taskId": failing})).await;
    assert_eq!(payload["result"]["isError"], true, "{payload}");
    // A protocol error: tasks/result answers it.
    let created = c
        .call(
            "tools/call",
            json!({"name": "protocol_error_job", "arguments": {}, "task": {}}),
        )
        .await;
    let broken = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = c.call("tasks/result", json!({"taskId": broken})).await;
    assert_eq!(payload["error"]["code"], -32603, "{payload}");

    // Cancel a running task: answered cancelled at once.
    let created = c
        .call(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 60}, "task": {}}),
        )
        .await;
    let slow = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled = c.call("tasks/cancel", json!({"taskId": slow})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let unknown = c.call("tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_2025_11_25_a_tasks_input_requests_come_on_its_tasks_result_stream() {
    let run = start(|c| c.revisions = vec![mcp_wire::ProtocolVersion::V2025_11_25]).await;
    let mut c = Legacy::open(&run).await;
    c.seen.clear();
    let created = c
        .call(
            "tools/call",
            json!({"name": "multi_input", "arguments": {}, "task": {}}),
        )
        .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    c.wait_for(&id, &["input_required"]).await;
    // tasks/result carries both questions, each naming the task, then blocks for the end.
    let waiting = c.send("tasks/result", json!({"taskId": id})).await;
    let mut keys = Vec::new();
    for _ in 0..2 {
        let ask = c.server_request().await;
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        let meta = &ask["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str()
        );
        let key = meta["dev.mcp-wire/inputKey"].as_str().unwrap().to_owned();
        let value = format!("v-{key}");
        c.write(json!({"jsonrpc": "2.0", "id": ask["id"],
                       "result": {"action": "accept", "content": {"value": value}}}))
            .await;
        keys.push(key);
    }
    keys.sort();
    assert_eq!(keys, ["input-a", "input-b"]);
    let payload = c.answer(waiting).await;
    assert_eq!(
        payload["result"]["content"][0]["text"], "multi_input: v-input-a, v-input-b",
        "{payload}"
    );
    let done = c.wait_for(&id, &["completed"]).await;
    assert_eq!(done["status"], "completed");
}
