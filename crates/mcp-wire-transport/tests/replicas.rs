//! Replicas in one process: two servers sharing a `MemoryStore` (the engine `RedisStore`
//! replaces across processes; `tests/scale.rs` runs that), each on its own loopback port. A
//! session opened on one is served and ended on the other, a client's answer reaches the
//! replica whose handler asked for it, and a store that fails is an immediate error.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::StatusCode;
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::store::{BusMessage, MemoryStore, Store, StoreError, StoreFuture};
use mcp_wire_transport::server::{Handler, Server, ServerConfig, SessionHandle, SharedStore};
use serde_json::json;
use tokio::sync::mpsc;

#[path = "support/http.rs"]
mod http_client;
use http_client::{client, events, message, open_session, post, text};
#[path = "support/replicated_tasks.rs"]
mod replicated_tasks;

/// A server on `store` (with the replicas' one secret), serving on a free loopback port.
async fn replica(store: Arc<dyn Store>) -> String {
    serve(ConformanceFixtures::new().with_store(store.clone()), store).await
}

/// `handler` on `store` (with the replicas' one secret), serving on a free loopback port.
async fn serve<H: Handler>(handler: H, store: Arc<dyn Store>) -> String {
    let config = ServerConfig {
        store: Some(SharedStore::new(store)),
        ..ServerConfig::default()
    }
    .with_shared_secret(&[7; 32])
    .expect("a long enough secret");
    let server = Server::new(handler, config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr: SocketAddr = listener.local_addr().expect("its address");
    tokio::spawn(async move { server.serve(listener).await });
    format!("http://{addr}/mcp")
}

async fn two_replicas() -> (String, String) {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::default());
    (replica(store.clone()).await, replica(store).await)
}

#[tokio::test]
async fn a_session_opened_on_one_replica_is_served_and_ended_on_the_other() {
    let (a, b) = two_replicas().await;
    let client = client();
    let session = open_session(&client, &a).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, body) = text(post(&client, &b, Some(&session), list).await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        message(&body)["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "test_simple_text")),
        "{body}"
    );
    // DELETE on the other replica ends it on both.
    let request = http::Request::delete(&b)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .expect("a request");
    let (status, _) = text(client.request(request).await.expect("DELETE")).await;
    assert_eq!(status, StatusCode::OK);
    for url in [&a, &b] {
        let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
        let (status, _) = text(post(&client, url, Some(&session), ping).await).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{url}");
    }
}

#[tokio::test]
async fn a_client_answer_reaches_the_replica_whose_handler_asked() {
    let (a, b) = two_replicas().await;
    let client = client();
    let session = open_session(&client, &a).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "hi"}}});
    let response = post(&client, &a, Some(&session), call).await;
    let mut stream = response.into_body();
    let asked = events(&mut stream, 2).await;
    let request = message(&format!("data: {}", asked[1].data));
    assert_eq!(request["method"], "sampling/createMessage");
    // The id names the replica that asked: `srv-<replica>-<n>`.
    let id = request["id"].as_str().expect("a string id").to_owned();
    assert_eq!(id.split('-').count(), 3, "{id}");
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
        "role": "assistant", "model": "m", "content": {"type": "text", "text": "from b"}}});
    let (status, _) = text(post(&client, &b, Some(&session), answer).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let result = events(&mut stream, 1).await;
    let result = message(&format!("data: {}", result[0].data));
    assert_eq!(result["id"], 2);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "LLM response: from b"
    );
}

/// A store whose engine is down: every operation fails at once.
struct DownStore;

impl Store for DownStore {
    fn put(&self, _: &str, _: Vec<u8>, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn get(&self, _: &str, _: Option<Duration>) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn delete(&self, _: &str) -> StoreFuture<'_, bool> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn append(&self, _: &str, _: Vec<u8>, _: usize, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn entries(&self, _: &str) -> StoreFuture<'_, Vec<Vec<u8>>> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn publish(&self, _: &str, _: Vec<u8>) -> StoreFuture<'_, ()> {
        Box::pin(async { Err(StoreError::Unavailable("engine down".into())) })
    }
    fn subscribe(&self, _: Vec<String>) -> mpsc::Receiver<BusMessage> {
        mpsc::channel(1).1
    }
}

#[tokio::test]
async fn a_store_that_fails_is_an_error_with_its_reason() {
    let url = replica(Arc::new(DownStore)).await;
    let client = client();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "replicas-test", "version": "1"}}});
    let (status, body) = text(post(&client, &url, None, init).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    let error = &message(&body)["error"];
    assert_eq!(error["code"], -32603);
    assert_eq!(
        error["message"],
        "the shared store is unavailable: engine down"
    );
    // A session id the store cannot look up: the same error, not a 404.
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let (status, body) = text(post(&client, &url, Some("abc"), ping).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(message(&body)["id"], 2);
}

/// A handler that records the sessions it sees start and end, by label.
#[derive(Clone)]
struct Watcher {
    label: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
    started: Arc<AtomicUsize>,
}

impl Handler for Watcher {
    fn server_info(&self) -> mcp_wire::model::Implementation {
        mcp_wire::model::Implementation::new("watcher", "1.0.0")
    }

    fn capabilities(&self) -> mcp_wire::model::ServerCapabilities {
        mcp_wire::model::ServerCapabilities::default()
    }

    fn session_started(
        &self,
        session: &SessionHandle,
        _: &mut mcp_wire::model::InitializeResult,
    ) -> Result<(), mcp_wire::jsonrpc::ErrorData> {
        self.started.fetch_add(1, Ordering::Relaxed);
        let client = session.client_info().map_or("?", |c| c.name.as_str());
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} started {client}", self.label));
        Ok(())
    }

    fn session_ended(&self, _: &str) {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} ended", self.label));
    }
}

#[tokio::test]
async fn each_replica_starts_its_copy_for_the_handler_and_ends_it_with_the_session() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let started = Arc::new(AtomicUsize::new(0));
    let watcher = |label| Watcher {
        label,
        seen: seen.clone(),
        started: started.clone(),
    };
    let a = serve(watcher("a"), store.clone()).await;
    let b = serve(watcher("b"), store).await;
    let client = client();
    let session = open_session(&client, &a).await;
    for n in 0..2 {
        let ping = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "ping"});
        let (status, _) = text(post(&client, &b, Some(&session), ping).await).await;
        assert_eq!(status, StatusCode::OK);
    }
    // Restored once on b, with the client's `initialize` as its record keeps it.
    assert_eq!(started.load(Ordering::Relaxed), 2);
    let request = http::Request::delete(&a)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .expect("a request");
    let (status, _) = text(client.request(request).await.expect("DELETE")).await;
    assert_eq!(status, StatusCode::OK);
    // b drops its copy when the bus tells it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while seen.lock().unwrap().len() < 4 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        [
            "a ended",
            "a started scale-test",
            "b ended",
            "b started scale-test"
        ]
    );
}

#[tokio::test]
async fn a_change_on_one_replica_is_listed_and_announced_on_the_other() {
    let (a, b) = two_replicas().await;
    let client = client();
    let session = open_session(&client, &a).await;
    // The session's standalone stream, held by b.
    let request = http::Request::get(&b)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .expect("a request");
    let response = client.request(request).await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.into_body();
    assert_eq!(
        events(&mut stream, 1).await[0].data,
        "",
        "the priming event"
    );
    // The tool list changes on a.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_trigger_tool_change", "arguments": {}}});
    let (status, body) = text(post(&client, &a, Some(&session), call).await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // b's stream announces it, and b lists the added tool.
    let announced = events(&mut stream, 1).await;
    assert_eq!(
        message(&format!("data: {}", announced[0].data))["method"],
        "notifications/tools/list_changed"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let (_, body) = text(post(&client, &b, Some(&session), list).await).await;
    let tools = message(&body)["result"]["tools"].clone();
    assert!(
        tools
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "test_added_tool")),
        "{body}"
    );
}

#[tokio::test]
async fn core_tasks_are_listed_and_their_results_carried_on_any_replica() {
    let (a, b) = two_replicas().await;
    replicated_tasks::listed_and_carried_on_any_replica(&a, &b).await;
}
