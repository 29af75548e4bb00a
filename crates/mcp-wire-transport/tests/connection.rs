//! The runtime over a frame connection (what stdio carries): a handshake-era session with a
//! server→client request answered by the client, and 2026-07-28 requests and a listen stream
//! on the same connection.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, InputRequest, InputResponse,
    ServerCapabilities, Tool,
};
use mcp_wire_transport::server::{
    Change, Handler, HandlerResult, Principal, RequestContext, Server, ServerConfig,
};
use mcp_wire_transport::{Connection, ConnectionDriver, Frame};
use serde_json::{Value, json};
use tokio::sync::mpsc;

struct Asker;

impl Handler for Asker {
    fn server_info(&self) -> Implementation {
        Implementation::new("asker", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {"listChanged": true}})).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(vec![Tool::new("ask", Tool::empty_input_schema())])
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        if params.name == "change" {
            ctx.notifier().announce(Change::ToolsListChanged);
            return Ok(CallToolResult::text("changed"));
        }
        let request: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"message": "name?", "requestedSchema": {"type": "object",
                "properties": {"name": {"type": "string"}}}}
        }))
        .unwrap();
        let answer = ctx.input("name", request).await?;
        let InputResponse::Elicit(r) = answer else {
            panic!("an elicitation answer")
        };
        let name = serde_json::to_value(&r).unwrap()["content"]["name"].clone();
        Ok(CallToolResult::text(format!(
            "hello {}",
            name.as_str().unwrap_or("?")
        )))
    }
}

async fn next(rx: &mut mpsc::Receiver<Frame>) -> Value {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a frame in time")
        .expect("the connection is open")
        .to_value()
        .unwrap()
}

fn frame(v: Value) -> Frame {
    Frame::parse(v.to_string()).unwrap()
}

/// A server serving one frame connection, the connection's transport side (the client's ends
/// of it) and a sender of frames to the server.
struct Served {
    to_server: mpsc::Sender<Frame>,
    driver: ConnectionDriver,
    serving: tokio::task::JoinHandle<()>,
}

/// Serves `handler` on a fresh frame connection.
fn serve(handler: impl Handler) -> Served {
    let server = Server::new(handler, ServerConfig::default());
    let (connection, driver) = Connection::pair(16);
    let serving = tokio::spawn(async move {
        server
            .serve_connection(connection, Principal::anonymous())
            .await
    });
    Served {
        to_server: driver.incoming.clone(),
        driver,
        serving,
    }
}

/// Waits for `serve_connection` to end (the client has dropped its sender).
async fn ends(serving: tokio::task::JoinHandle<()>) {
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("serve_connection ends when the client closes")
        .unwrap();
}

#[tokio::test]
async fn both_eras_share_one_connection() {
    let Served {
        to_server,
        driver,
        serving,
    } = serve(Asker);
    let mut from_server = driver.outgoing;

    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}}}),
        ))
        .await
        .unwrap();
    let init = next(&mut from_server).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");

    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}),
        ))
        .await
        .unwrap();
    let ask = next(&mut from_server).await;
    assert_eq!(ask["method"], "elicitation/create");
    to_server
        .send(frame(json!({"jsonrpc": "2.0", "id": ask["id"].clone(),
            "result": {"action": "accept", "content": {"name": "Ada"}}})))
        .await
        .unwrap();
    let done = next(&mut from_server).await;
    assert_eq!(done["id"], 2);
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada");
    assert!(
        done["result"].get("resultType").is_none(),
        "no 2026 fields at 2025-06-18"
    );

    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}}),
        ))
        .await
        .unwrap();
    let ack = next(&mut from_server).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        3
    );
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "change", "_meta": meta}}),
        ))
        .await
        .unwrap();
    // The 2026 answer, the listen stream's notification and the session's own notification
    // arrive in some order.
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(next(&mut from_server).await);
    }
    let answer = seen.iter().find(|v| v["id"] == 4).expect("the answer");
    assert_eq!(answer["result"]["resultType"], "complete");
    let tagged = seen
        .iter()
        .filter(|v| v["method"] == "notifications/tools/list_changed")
        .filter(|v| v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 3)
        .count();
    assert_eq!(tagged, 1, "{seen:?}");

    drop(to_server);
    drop(driver.incoming);
    ends(serving).await;
}

/// A malformed frame is answered as `FrameError::reply` answers it: to its id whenever one
/// can be read, with the fault's JSON Pointer in `data.pointer`.
#[tokio::test]
async fn a_malformed_frame_is_answered_with_its_pointer_and_its_id() {
    let Served {
        to_server,
        driver,
        serving,
    } = serve(Asker);
    let mut from_server = driver.outgoing;
    // A bad envelope (no `jsonrpc`) whose id can be read, before any session.
    to_server
        .send(frame(json!({"id": 5, "method": "tools/list"})))
        .await
        .unwrap();
    let bad = next(&mut from_server).await;
    assert_eq!(bad["id"], 5, "{bad}");
    assert_eq!(bad["error"]["code"], -32600, "{bad}");
    // The pointer names the object the member is missing from: the frame.
    assert_eq!(bad["error"]["data"]["pointer"], "", "{bad}");
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        ))
        .await
        .unwrap();
    assert_eq!(next(&mut from_server).await["id"], 1);
    // A bad body on the session, and one on the 2026-07-28 side of the connection.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    for (id, params) in [
        (6, json!({"name": 5})),
        (7, json!({"name": 5, "_meta": meta})),
    ] {
        to_server
            .send(frame(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
            ))
            .await
            .unwrap();
        let answer = next(&mut from_server).await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert_eq!(
            answer["error"]["data"]["pointer"], "/params/name",
            "{answer}"
        );
    }
    // Without an id (and without the `jsonrpc` that would make it a notification) the answer
    // goes to `null`, as JSON-RPC asks; the connection carries on.
    to_server
        .send(frame(
            json!({"method": "notifications/cancelled", "params": {}}),
        ))
        .await
        .unwrap();
    let unknown = next(&mut from_server).await;
    assert_eq!(
        (&unknown["id"], &unknown["error"]["code"]),
        (&Value::Null, &json!(-32600)),
        "{unknown}"
    );
    to_server
        .send(frame(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"})))
        .await
        .unwrap();
    let pong = next(&mut from_server).await;
    assert_eq!(
        (&pong["id"], &pong["result"]),
        (&json!(8), &json!({})),
        "{pong}"
    );
    drop(to_server);
    drop(driver.incoming);
    ends(serving).await;
}

/// How often the runtime asked [`Declared`] for its tool list, and for one tool.
static LISTINGS: AtomicUsize = AtomicUsize::new(0);
static LOOKUPS: AtomicUsize = AtomicUsize::new(0);

/// A handler whose tools are declared one by one ([`Handler::tool`]).
struct Declared;

impl Handler for Declared {
    fn server_info(&self) -> Implementation {
        Implementation::new("declared", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({"tools": {},
            "extensions": {mcp_wire::model::TASKS_EXTENSION_ID: {}}}))
        .unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        LISTINGS.fetch_add(1, Ordering::Relaxed);
        Ok(vec![Tool::new("plain", Tool::empty_input_schema())])
    }

    async fn tool(&self, _: &RequestContext, name: &str) -> HandlerResult<Option<Tool>> {
        use mcp_wire::model::{TaskSupport, ToolExecution};
        LOOKUPS.fetch_add(1, Ordering::Relaxed);
        let tool = Tool::new(name, Tool::empty_input_schema());
        Ok(Some(match name {
            "only_as_task" => {
                tool.with_execution(ToolExecution::new().with_task_support(TaskSupport::Required))
            }
            _ => tool,
        }))
    }

    async fn call_tool(
        &self,
        _: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        Ok(CallToolResult::text(params.name))
    }
}

/// A `tools/call` at 2025-11-25 and 2026-07-28 reads the called tool's declaration through
/// `Handler::tool` (once per call), never the whole list: the declaration it gives is the one
/// enforced (a tool that runs only as a task is refused when called plainly).
#[tokio::test]
async fn a_call_reads_its_tools_declaration_not_the_list() {
    let Served {
        to_server,
        driver,
        serving,
    } = serve(Declared);
    let mut from_server = driver.outgoing;
    let mut request = async |id: i64, method: &str, params: Value| {
        to_server
            .send(frame(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            ))
            .await
            .unwrap();
        next(&mut from_server).await
    };
    // 2026-07-28: the plain tool runs; the task-only one needs the tasks extension declared.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let plain = request(1, "tools/call", json!({"name": "plain", "_meta": meta})).await;
    assert_eq!(plain["result"]["content"][0]["text"], "plain", "{plain}");
    let refused = request(
        2,
        "tools/call",
        json!({"name": "only_as_task", "_meta": meta}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(LOOKUPS.load(Ordering::Relaxed), 2);
    // 2025-11-25 (core tasks): a task-only tool called without `params.task` is refused.
    let init = request(
        3,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}),
    )
    .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let refused = request(4, "tools/call", json!({"name": "only_as_task"})).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let plain = request(5, "tools/call", json!({"name": "plain"})).await;
    assert_eq!(plain["result"]["content"][0]["text"], "plain", "{plain}");
    assert_eq!(LOOKUPS.load(Ordering::Relaxed), 4);
    assert_eq!(
        LISTINGS.load(Ordering::Relaxed),
        0,
        "no call listed the tools"
    );

    drop(to_server);
    drop(driver.incoming);
    ends(serving).await;
}
