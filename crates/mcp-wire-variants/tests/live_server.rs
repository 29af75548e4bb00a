//! The live front server (`mcp_wire_variants::live::VariantServer`) over Streamable HTTP, driven
//! in-process through the transport's axum router: negotiation, routing, sessions bound to
//! principals, header selection, cursors, notifications, subscriptions with providers, the
//! legacy-only rule, and a bounded many-session run.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use common::tool_names;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, ReadResourceResult, Resource,
    ServerCapabilities, TextResourceContents, Tool,
};
use mcp_wire_transport::server::{
    BearerTokens, Change, Handler, HandlerResult, Principal, RequestContext, Server, ServerConfig,
};
use mcp_wire_variants::live::{
    LiveConfigError, ResourceUpdate, SubscriptionProvider, VariantServer, union_capabilities,
};
use mcp_wire_variants::{
    AdvertisePolicy, DeprecationInfo, ServerVariant, VariantId, VariantStatus,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tower::ServiceExt;

const EXT: &str = "io.modelcontextprotocol/server-variants";
const SEL: &str = "io.modelcontextprotocol/server-variant";
const REV: &str = "2025-11-25";

/// A variant's backend: a plain transport handler with a few tools and resources.
struct Tools {
    label: &'static str,
    tools: &'static [&'static str],
    resources: &'static [&'static str],
}

impl Handler for Tools {
    fn server_info(&self) -> Implementation {
        Implementation::new(self.label, "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        let mut caps = json!({"tools": {"listChanged": true}});
        if !self.resources.is_empty() {
            caps["resources"] = json!({"subscribe": true});
        }
        serde_json::from_value(caps).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(self
            .tools
            .iter()
            .map(|t| Tool::new(*t, Tool::empty_input_schema()))
            .collect())
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        if !self.tools.contains(&params.name.as_str()) {
            return Err(mcp_wire_transport::server::HandlerError::invalid_params(
                format!("Unknown tool: {}", params.name),
            ));
        }
        if params.name == "touch" {
            ctx.notifier().announce(Change::ToolsListChanged);
        }
        ctx.progress(1.0, Some(1.0), Some(self.label)).await;
        ctx.log(
            mcp_wire::model::LoggingLevel::Info,
            Some(self.label),
            json!(format!("{} ran {}", self.label, params.name)),
        )
        .await;
        let seen = params
            .meta
            .as_ref()
            .and_then(|m| m.get(SEL))
            .and_then(Value::as_str)
            .unwrap_or("(none)")
            .to_owned();
        Ok(CallToolResult::text(format!(
            "{} ran {} (selector seen: {seen})",
            self.label, params.name
        )))
    }

    async fn list_resources(&self, _: &RequestContext) -> HandlerResult<Vec<Resource>> {
        Ok(self
            .resources
            .iter()
            .map(|u| Resource::new(*u, *u))
            .collect())
    }

    async fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> HandlerResult<ReadResourceResult> {
        if !self.resources.contains(&uri.as_str()) {
            return Err(
                mcp_wire_transport::server::HandlerError::resource_not_found(ctx.revision(), &uri),
            );
        }
        let contents = TextResourceContents::new(uri, self.label);
        Ok(serde_json::from_value(json!({"contents": [contents]})).unwrap())
    }
}

/// The live streams of each (variant, uri), by the sender that feeds them.
type Streams = HashMap<(String, String), Vec<mpsc::UnboundedSender<ResourceUpdate>>>;

/// A provider whose streams the test drives, and which records every stream it sees closed.
#[derive(Clone, Default)]
struct Provider {
    open: Arc<Mutex<Streams>>,
    closed: Arc<Mutex<Vec<(String, String)>>>,
}

struct Closes {
    key: (String, String),
    closed: Arc<Mutex<Vec<(String, String)>>>,
}

impl Drop for Closes {
    fn drop(&mut self) {
        self.closed.lock().unwrap().push(self.key.clone());
    }
}

impl SubscriptionProvider for Provider {
    fn open(&self, variant: &VariantId, uri: &str) -> BoxStream<'static, ResourceUpdate> {
        let key = (variant.as_str().to_owned(), uri.to_owned());
        let (tx, rx) = mpsc::unbounded_channel();
        self.open
            .lock()
            .unwrap()
            .entry(key.clone())
            .or_default()
            .push(tx);
        let guard = Closes {
            key,
            closed: self.closed.clone(),
        };
        futures_util::stream::unfold((rx, guard), |(mut rx, guard)| async move {
            rx.recv().await.map(|u| (u, (rx, guard)))
        })
        .boxed()
    }
}

impl Provider {
    /// Sends `update` on every live stream of (variant, uri); how many there were.
    fn send(&self, variant: &str, uri: &str, update: ResourceUpdate) -> usize {
        let mut open = self.open.lock().unwrap();
        let streams = open
            .get_mut(&(variant.to_owned(), uri.to_owned()))
            .expect("a provider stream was opened for this subscription");
        streams.retain(|tx| tx.send(update.clone()).is_ok());
        streams.len()
    }

    fn closed(&self) -> Vec<(String, String)> {
        self.closed.lock().unwrap().clone()
    }
}

fn front(provider: Provider, advertise: AdvertisePolicy) -> VariantServer {
    VariantServer::builder(Implementation::new("variants-front", "1.0.0"))
        .variant(
            ServerVariant::new("compact", "One search tool."),
            0,
            Tools {
                label: "compact",
                tools: &["search"],
                resources: &[],
            },
        )
        .variant(
            ServerVariant::new("full", "Search, fetch, summarize."),
            1,
            Tools {
                label: "full",
                tools: &["search", "fetch", "summarize", "touch"],
                resources: &["file:///full/a.txt", "file:///full/b.txt"],
            },
        )
        .variant(
            ServerVariant::new("preview", "Full plus translate.")
                .with_status(VariantStatus::Experimental),
            2,
            Tools {
                label: "preview",
                tools: &["search", "fetch", "summarize", "translate"],
                resources: &["file:///full/a.txt"],
            },
        )
        .variant(
            ServerVariant::new("legacy", "First generation.").deprecated(
                DeprecationInfo::new("Use full.")
                    .with_replacement("full")
                    .with_removal_date("2027-06-30"),
            ),
            3,
            Tools {
                label: "legacy",
                tools: &["search_v1"],
                resources: &[],
            },
        )
        .catalog(|c| {
            c.cursor_key(b"live-server-test-cursor-key")
                .advertise(advertise)
                .visibility(|v, p| v.id != "preview" || p.key() == "alice")
        })
        .page_size(2)
        .provider(provider)
        .build()
        .expect("a valid front")
}

fn tokens() -> BearerTokens {
    BearerTokens::new()
        .with_token("alice", Principal::new("alice", vec![]))
        .with_token("bob", Principal::new("bob", vec![]))
}

struct Harness {
    server: Arc<Server<VariantServer>>,
    router: axum::Router,
    provider: Provider,
    /// When set, requests go over loopback TCP to this address (the server listening there).
    tcp: Option<Tcp>,
}

/// A loopback listener serving the harness's server, and a client for it.
struct Tcp {
    addr: std::net::SocketAddr,
    client: hyper_util::client::legacy::Client<
        hyper_util::client::legacy::connect::HttpConnector,
        Body,
    >,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for Tcp {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// The harness, its server listening on a free 127.0.0.1 port.
async fn harness_tcp(advertise: AdvertisePolicy) -> Harness {
    let mut h = harness(advertise);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = h.server.clone();
    let serving = tokio::spawn(async move {
        let _ = server.serve(listener).await;
    });
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .pool_max_idle_per_host(8)
        .build_http();
    h.tcp = Some(Tcp {
        addr,
        client,
        serving,
    });
    h
}

fn harness(advertise: AdvertisePolicy) -> Harness {
    let provider = Provider::default();
    let config = ServerConfig {
        authenticator: Arc::new(tokens()),
        ..ServerConfig::default()
    };
    let server = front(provider.clone(), advertise)
        .into_server(config)
        .expect("handshake revisions offered");
    let router = server.router("/mcp");
    Harness {
        server,
        router,
        provider,
        tcp: None,
    }
}

/// One HTTP exchange's outcome: status, session id header, the JSON-RPC answer (if any).
struct Reply {
    status: StatusCode,
    session: Option<String>,
    body: Value,
    /// Everything the POST's SSE stream carried before the answer (progress, logs, …).
    before: Vec<Value>,
}

impl Harness {
    async fn send(&self, request: Request<Body>) -> Response<Body> {
        let Some(tcp) = &self.tcp else {
            return self.router.clone().oneshot(request).await.unwrap();
        };
        let (mut parts, body) = request.into_parts();
        parts.uri = format!("http://{}{}", tcp.addr, parts.uri).parse().unwrap();
        let response = tokio::time::timeout(
            Duration::from_secs(10),
            tcp.client.request(Request::from_parts(parts, body)),
        )
        .await
        .expect("an HTTP answer within 10 s")
        .expect("the loopback exchange works");
        response.map(Body::new)
    }

    fn request(
        method: http::Method,
        token: Option<&str>,
        session: Option<&str>,
        header_variant: Option<&str>,
        body: Option<&Value>,
    ) -> Request<Body> {
        let mut r = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        if let Some(v) = header_variant {
            r = r.header("mcp-server-variant", v);
        }
        r.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap()
    }

    async fn post(
        &self,
        token: Option<&str>,
        session: Option<&str>,
        header_variant: Option<&str>,
        body: Value,
    ) -> Reply {
        let response = self
            .send(Self::request(
                http::Method::POST,
                token,
                session,
                header_variant,
                Some(&body),
            ))
            .await;
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
        let bytes = tokio::time::timeout(Duration::from_secs(10), response.into_body().collect())
            .await
            .expect("the answer comes within 10 s")
            .unwrap()
            .to_bytes();
        let (body, before) = if bytes.is_empty() {
            (Value::Null, Vec::new())
        } else if sse {
            let mut messages = sse_messages(&String::from_utf8_lossy(&bytes));
            let answer = messages
                .iter()
                .rposition(|m| m.get("id").is_some())
                .map_or(Value::Null, |i| messages.remove(i));
            (answer, messages)
        } else {
            (
                serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                Vec::new(),
            )
        };
        Reply {
            status,
            session,
            body,
            before,
        }
    }

    /// `initialize` (with the extension payload when `hints` is given); the session id.
    async fn initialize(&self, token: &str, hints: Option<Value>) -> (String, Value) {
        let mut caps = json!({});
        if let Some(h) = hints {
            caps["extensions"] = json!({ EXT: h });
        }
        let reply = self
            .post(
                Some(token),
                None,
                None,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": REV, "capabilities": caps,
                    "clientInfo": {"name": "test", "version": "0"}}}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        let session = reply.session.expect("a session id");
        (session, reply.body["result"].clone())
    }

    async fn call(
        &self,
        token: &str,
        session: &str,
        header_variant: Option<&str>,
        method: &str,
        params: Value,
    ) -> Value {
        let reply = self
            .post(
                Some(token),
                Some(session),
                header_variant,
                json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{method}: {}", reply.body);
        reply.body
    }

    /// Opens the session's GET stream; events arrive on the returned receiver.
    async fn open_stream(&self, token: &str, session: &str) -> mpsc::UnboundedReceiver<Value> {
        let response = self
            .send(Self::request(
                http::Method::GET,
                Some(token),
                Some(session),
                None,
                None,
            ))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        events_of(response)
    }
}

/// The JSON-RPC messages of an SSE response, as they arrive.
fn events_of(response: Response<Body>) -> mpsc::UnboundedReceiver<Value> {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut body = response.into_body().into_data_stream();
    tokio::spawn(async move {
        let mut text = String::new();
        while let Some(Ok(chunk)) = body.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = text.find("\n\n") {
                let event: String = text.drain(..end + 2).collect();
                for m in sse_messages(&event) {
                    if tx.send(m).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

async fn next_event(rx: &mut mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("a notification within 5 s")
        .expect("the stream is open")
}

async fn no_event(rx: &mut mpsc::UnboundedReceiver<Value>) {
    if let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await {
        panic!("unexpected notification {event}");
    }
}

fn ids(result: &Value) -> Vec<String> {
    result["capabilities"]["extensions"][EXT]["availableVariants"]
        .as_array()
        .expect("availableVariants")
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect()
}

fn select(id: &str) -> Value {
    json!({"_meta": {SEL: id}})
}

#[tokio::test]
async fn initialize_advertises_the_ranked_list_and_the_union_of_capabilities() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let hints = json!({"variantHints": {"hints": {"contextSize": "verbose"}}});
    let (_, result) = h.initialize("alice", Some(hints.clone())).await;
    // Priority order, stable head; alice sees all four.
    assert_eq!(ids(&result), ["compact", "full", "preview", "legacy"]);
    assert_eq!(
        result["capabilities"]["extensions"][EXT]["moreVariantsAvailable"],
        false
    );
    // The union: only `full` and `preview` have resources, every backend has tools.
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    assert_eq!(
        result["capabilities"]["resources"],
        json!({"subscribe": true})
    );
    assert_eq!(result["serverInfo"]["name"], "variants-front");
    // Bob cannot see `preview`.
    let (_, bob) = h.initialize("bob", Some(hints)).await;
    assert_eq!(ids(&bob), ["compact", "full", "legacy"]);
    // The deprecated variant's replacement is visible to him, so it stays.
    assert_eq!(
        bob["capabilities"]["extensions"][EXT]["availableVariants"][2]["deprecationInfo"]["replacement"],
        "full"
    );
    assert_eq!(h.server.handler().session_count(), 2);
}

#[tokio::test]
async fn a_client_without_the_payload_sees_a_plain_server() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (session, result) = h.initialize("alice", None).await;
    assert!(
        result["capabilities"].get("extensions").is_none(),
        "{result}"
    );
    let tools = h
        .call("alice", &session, None, "tools/list", json!({}))
        .await;
    assert_eq!(tool_names(&tools), ["search"]);
    let answer = h
        .call(
            "alice",
            &session,
            None,
            "tools/call",
            json!({"name": "search", "arguments": {}}),
        )
        .await;
    // The backend sees the resolved default in `_meta` even though the client sent none.
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "compact ran search (selector seen: compact)"
    );
    // ping and logging/setLevel are the front's.
    let pong = h.call("alice", &session, None, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    let level = h
        .call(
            "alice",
            &session,
            None,
            "logging/setLevel",
            json!({"level": "debug"}),
        )
        .await;
    assert_eq!(level["result"], json!({}));
}

#[tokio::test]
async fn selection_by_meta_and_header_with_meta_first() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (s, _) = h.initialize("alice", Some(json!({}))).await;
    let by_meta = h
        .call("alice", &s, None, "tools/list", select("legacy"))
        .await;
    assert_eq!(tool_names(&by_meta), ["search_v1"]);
    let by_header = h
        .call("alice", &s, Some("legacy"), "tools/list", json!({}))
        .await;
    assert_eq!(tool_names(&by_header), ["search_v1"]);
    // _meta beats the header.
    let both = h
        .call("alice", &s, Some("legacy"), "tools/list", select("compact"))
        .await;
    assert_eq!(tool_names(&both), ["search"]);
    // Namespaces are isolated: `fetch` is not in `compact`, and the error says where it ran.
    let isolated = h
        .call(
            "alice",
            &s,
            None,
            "tools/call",
            json!({"name": "fetch", "arguments": {}, "_meta": {SEL: "compact"}}),
        )
        .await;
    assert_eq!(isolated["error"]["code"], -32602);
    assert_eq!(isolated["error"]["data"]["activeVariant"], "compact");
    let in_full = h
        .call(
            "alice",
            &s,
            Some("full"),
            "tools/call",
            json!({"name": "fetch", "arguments": {}}),
        )
        .await;
    assert_eq!(
        in_full["result"]["content"][0]["text"],
        "full ran fetch (selector seen: full)"
    );
    // An unknown id, by _meta or by header: -32602 with the session's list.
    for (header, params) in [(None, select("gpt")), (Some("gpt"), json!({}))] {
        let bad = h.call("alice", &s, header, "tools/list", params).await;
        assert_eq!(
            bad["error"],
            json!({"code": -32602, "message": "Invalid server variant",
                   "data": {"requestedVariant": "gpt",
                            "availableVariants": ["compact", "full", "preview", "legacy"]}})
        );
    }
    // A selector on an unscoped method is still validated.
    let ping = h.call("alice", &s, None, "ping", select("gpt")).await;
    assert_eq!(ping["error"]["message"], "Invalid server variant");
}

#[tokio::test]
async fn visibility_follows_the_principal_and_sessions_are_bound_to_it() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (bob, _) = h.initialize("bob", Some(json!({}))).await;
    let hidden = h
        .call("bob", &bob, None, "tools/list", select("preview"))
        .await;
    assert_eq!(
        hidden["error"]["data"],
        json!({"requestedVariant": "preview", "availableVariants": ["compact", "full", "legacy"]})
    );
    // Alice presenting bob's session id: unknown session (404), on POST, GET and DELETE.
    let stolen = h
        .post(
            Some("alice"),
            Some(&bob),
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(stolen.status, StatusCode::NOT_FOUND);
    for method in [http::Method::GET, http::Method::DELETE] {
        let r = h
            .send(Harness::request(
                method.clone(),
                Some("alice"),
                Some(&bob),
                None,
                None,
            ))
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{method}");
    }
    // No token, or an unknown one: 401 with a challenge.
    for token in [None, Some("mallory")] {
        let r = h
            .post(
                token,
                None,
                None,
                json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    // Bob's own session still works.
    let ok = h.call("bob", &bob, None, "tools/list", json!({})).await;
    assert_eq!(tool_names(&ok), ["search"]);
}

#[tokio::test]
async fn list_pages_carry_variant_bound_cursors() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (s, _) = h.initialize("alice", Some(json!({}))).await;
    let first = h
        .call("alice", &s, None, "tools/list", select("full"))
        .await;
    assert_eq!(tool_names(&first), ["search", "fetch"]);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let mut params = select("full");
    params["cursor"] = json!(cursor);
    let second = h.call("alice", &s, None, "tools/list", params).await;
    assert_eq!(tool_names(&second), ["summarize", "touch"]);
    assert!(second["result"].get("nextCursor").is_none());
    // The same cursor under another variant.
    let mut cross = select("preview");
    cross["cursor"] = json!(cursor);
    let refused = h.call("alice", &s, None, "tools/list", cross).await;
    assert_eq!(
        refused["error"],
        json!({"code": -32602, "message": "Cursor invalid for requested variant",
               "data": {"cursorVariant": "full", "requestedVariant": "preview",
                        "activeVariant": "preview"}})
    );
    // Tampered: one hex digit of the payload changed.
    let mut tampered = cursor.clone().into_bytes();
    let i = tampered.iter().rposition(|b| *b == b'.').unwrap() - 1;
    tampered[i] = if tampered[i] == b'0' { b'1' } else { b'0' };
    let mut bad = select("full");
    bad["cursor"] = json!(String::from_utf8(tampered).unwrap());
    let refused = h.call("alice", &s, None, "tools/list", bad).await;
    assert_eq!(
        refused["error"],
        json!({"code": -32602, "message": "Invalid cursor format",
               "data": {"activeVariant": "full"}})
    );
    // Another session's cursor does not verify here either.
    let (other, _) = h.initialize("alice", Some(json!({}))).await;
    let mut foreign = select("full");
    foreign["cursor"] = json!(cursor);
    let refused = h.call("alice", &other, None, "tools/list", foreign).await;
    assert_eq!(refused["error"]["message"], "Invalid cursor format");
}

#[tokio::test]
async fn subscriptions_open_provider_streams_tagged_and_closed_by_unsubscribe_and_delete() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (s, _) = h.initialize("alice", Some(json!({}))).await;
    let mut events = h.open_stream("alice", &s).await;
    let a = "file:///full/a.txt";
    // A resource that does not exist in the variant.
    let missing = h
        .call(
            "alice",
            &s,
            None,
            "resources/subscribe",
            json!({"uri": "file:///nowhere", "_meta": {SEL: "full"}}),
        )
        .await;
    assert_eq!(
        missing["error"],
        json!({"code": -32602, "message": "Resource is unavailable in the active variant",
               "data": {"uri": "file:///nowhere", "activeVariant": "full"}})
    );
    // `compact` has no resources at all.
    let none = h
        .call("alice", &s, None, "resources/subscribe", json!({"uri": a}))
        .await;
    assert_eq!(none["error"]["data"]["activeVariant"], "compact");
    for variant in ["full", "preview"] {
        let ok = h
            .call(
                "alice",
                &s,
                None,
                "resources/subscribe",
                json!({"uri": a, "_meta": {SEL: variant}}),
            )
            .await;
        assert_eq!(ok["result"], json!({}), "{variant}");
    }
    assert_eq!(h.server.handler().open_subscription_streams(), 2);
    h.provider.send("full", a, ResourceUpdate::Updated);
    let update = next_event(&mut events).await;
    assert_eq!(
        update,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": a, "_meta": {SEL: "full"}}})
    );
    // Unsubscribe closes exactly that stream.
    let ok = h
        .call(
            "alice",
            &s,
            None,
            "resources/unsubscribe",
            json!({"uri": a, "_meta": {SEL: "full"}}),
        )
        .await;
    assert_eq!(ok["result"], json!({}));
    wait_for(|| h.provider.closed() == [("full".to_owned(), a.to_owned())]).await;
    assert_eq!(h.server.handler().open_subscription_streams(), 1);
    // The resource leaves `preview`: updated, then list_changed, both tagged; stream closed.
    h.provider.send("preview", a, ResourceUpdate::Gone);
    assert_eq!(
        next_event(&mut events).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": a, "_meta": {SEL: "preview"}}})
    );
    assert_eq!(
        next_event(&mut events).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed",
               "params": {"_meta": {SEL: "preview"}}})
    );
    wait_for(|| h.server.handler().open_subscription_streams() == 0).await;
    // Unsubscribe of the tombstoned subscription still succeeds.
    let ok = h
        .call(
            "alice",
            &s,
            None,
            "resources/unsubscribe",
            json!({"uri": a, "_meta": {SEL: "preview"}}),
        )
        .await;
    assert_eq!(ok["result"], json!({}));
    // DELETE closes what is still open.
    let ok = h
        .call(
            "alice",
            &s,
            None,
            "resources/subscribe",
            json!({"uri": "file:///full/b.txt", "_meta": {SEL: "full"}}),
        )
        .await;
    assert_eq!(ok["result"], json!({}));
    assert_eq!(h.server.handler().open_subscription_streams(), 1);
    let deleted = h
        .send(Harness::request(
            http::Method::DELETE,
            Some("alice"),
            Some(&s),
            None,
            None,
        ))
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    wait_for(|| h.server.handler().open_subscription_streams() == 0).await;
    assert_eq!(h.server.handler().session_count(), 0);
    // The GET stream ends with the session, and the id is unknown from now on.
    let end = tokio::time::timeout(Duration::from_secs(5), events.recv()).await;
    assert!(matches!(end, Ok(None)), "the stream closes: {end:?}");
    let gone = h
        .post(
            Some("alice"),
            Some(&s),
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        )
        .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn backend_list_changes_reach_the_sessions_that_see_the_variant_tagged() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let (aware, _) = h.initialize("alice", Some(json!({}))).await;
    let (bob, _) = h.initialize("bob", Some(json!({}))).await;
    let (plain, _) = h.initialize("alice", None).await;
    let mut aware_events = h.open_stream("alice", &aware).await;
    let mut bob_events = h.open_stream("bob", &bob).await;
    let mut plain_events = h.open_stream("alice", &plain).await;
    // `touch` in `full` announces a tool-list change from the `full` backend; the call's
    // progress goes to the request's own stream (the POST answer), not the GET streams.
    let reply = h
        .post(
            Some("alice"),
            Some(&aware),
            None,
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params":
                {"name": "touch", "arguments": {}, "_meta": {SEL: "full", "progressToken": 3}}}),
        )
        .await;
    assert!(
        reply.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("full ran touch")
    );
    // The backend's progress and log reached the request's own stream, before the answer.
    assert_eq!(
        reply.before,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": 3, "progress": 1, "total": 1, "message": "full"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "logger": "full", "data": "full ran touch"}}),
        ]
    );
    let tagged = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                        "params": {"_meta": {SEL: "full"}}});
    assert_eq!(next_event(&mut aware_events).await, tagged);
    assert_eq!(next_event(&mut bob_events).await, tagged);
    // The plain session's default is `compact`: nothing from `full` reaches it.
    no_event(&mut plain_events).await;
}

#[tokio::test]
async fn at_2026_07_28_the_extension_does_not_exist() {
    let provider = Provider::default();
    let config = ServerConfig {
        revisions: vec![ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28],
        ..ServerConfig::default()
    };
    let server = front(provider, AdvertisePolicy::Always)
        .into_server(config)
        .unwrap();
    let router = server.router("/mcp");
    let modern = |method: &str, params: Value| {
        let mut params = params;
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
        params["_meta"]["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "modern", "version": "0"});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        Request::builder()
            .method("POST")
            .uri("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let read = |r: Response<Body>| async move {
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    let plain = read(
        router
            .clone()
            .oneshot(modern("tools/list", json!({})))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        tool_names(&plain),
        ["search"],
        "the first-ranked stable variant"
    );
    let selected = read(
        router
            .clone()
            .oneshot(modern("tools/list", select("full")))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        selected["error"],
        json!({"code": -32602, "message": "Server variants not supported"})
    );
    let discover = read(
        router
            .clone()
            .oneshot(modern("server/discover", json!({})))
            .await
            .unwrap(),
    )
    .await;
    assert!(
        discover["result"]["capabilities"]
            .get("extensions")
            .is_none(),
        "{discover}"
    );
    // Offering only 2026-07-28 is a configuration error.
    let only_modern = ServerConfig {
        revisions: vec![ProtocolVersion::V2026_07_28],
        ..ServerConfig::default()
    };
    let refused = front(Provider::default(), AdvertisePolicy::Always).into_server(only_modern);
    assert!(matches!(
        refused,
        Err(LiveConfigError::NoHandshakeRevision(v)) if v == [ProtocolVersion::V2026_07_28]
    ));
}

#[test]
fn the_union_ors_flags_and_merges_maps() {
    let caps = |v: Value| serde_json::from_value::<ServerCapabilities>(v).unwrap();
    let union = union_capabilities([
        caps(json!({"tools": {"listChanged": false}, "experimental": {"a": {"x": 1}}})),
        caps(json!({"tools": {"listChanged": true}, "prompts": {}, "experimental": {"b": {}}})),
        caps(json!({"resources": {"subscribe": true}, "logging": {}})),
    ]);
    assert_eq!(
        serde_json::to_value(union).unwrap(),
        json!({"tools": {"listChanged": true}, "prompts": {}, "resources": {"subscribe": true},
               "logging": {}, "experimental": {"a": {"x": 1}, "b": {}}})
    );
}

/// Sessions opened, used and deleted concurrently over loopback TCP (count:
/// `MCP_VARIANTS_LOAD_SESSIONS`, default 100): each keeps its own selection, cursor and
/// subscription — nothing leaks into another — and every provider stream is closed at the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_sessions_stay_isolated() {
    let n: usize = std::env::var("MCP_VARIANTS_LOAD_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let h = Arc::new(harness_tcp(AdvertisePolicy::WhenClientOptsIn).await);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let h = h.clone();
        tasks.spawn(async move {
            let (token, variant, expected): (&str, &str, &[&str]) = match i % 3 {
                0 => ("alice", "full", &["search", "fetch"]),
                1 => ("alice", "preview", &["search", "fetch"]),
                _ => ("bob", "legacy", &["search_v1"]),
            };
            let (s, _) = h.initialize(token, Some(json!({}))).await;
            let events = h.open_stream(token, &s).await;
            // Selection sticks per request; the default stays the session's own.
            let listed = h
                .call(token, &s, Some(variant), "tools/list", json!({}))
                .await;
            assert_eq!(tool_names(&listed), expected, "session {i}");
            let default = h.call(token, &s, None, "tools/list", json!({})).await;
            assert_eq!(tool_names(&default), ["search"], "session {i}");
            // A cursor of this session is refused by the next one's (checked below via the
            // shared map of cursors).
            let cursor = listed["result"]["nextCursor"].as_str().map(str::to_owned);
            // A subscription per `full` session, with an update only it receives.
            let uri = format!("file:///full/{}.txt", if i % 2 == 0 { "a" } else { "b" });
            if variant == "full" {
                let ok = h
                    .call(
                        token,
                        &s,
                        None,
                        "resources/subscribe",
                        json!({"uri": uri, "_meta": {SEL: "full"}}),
                    )
                    .await;
                assert_eq!(ok["result"], json!({}), "session {i}");
            }
            (i, token, s, variant, cursor, uri, events)
        });
    }
    let mut sessions = Vec::new();
    while let Some(done) = tasks.join_next().await {
        sessions.push(done.unwrap());
    }
    assert_eq!(h.server.handler().session_count(), n);
    let full = sessions.iter().filter(|s| s.3 == "full").count();
    assert_eq!(h.server.handler().open_subscription_streams(), full);
    // One update of `a` in `full`: exactly the `full` sessions subscribed to `a` get it, once.
    let a = "file:///full/a.txt";
    let subscribed_a = sessions
        .iter()
        .filter(|s| s.3 == "full" && s.5 == a)
        .count();
    assert_eq!(
        h.provider.send("full", a, ResourceUpdate::Updated),
        subscribed_a
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    for (i, _, _, variant, _, uri, events) in &mut sessions {
        let mut got = Vec::new();
        while let Ok(event) = events.try_recv() {
            got.push(event);
        }
        if *variant == "full" && uri == a {
            assert_eq!(
                got,
                [
                    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                        "params": {"uri": a, "_meta": {SEL: "full"}}})
                ],
                "session {i}"
            );
        } else {
            assert!(got.is_empty(), "session {i} received {got:?}");
        }
    }
    // Cursors do not cross sessions: each session's cursor fails in its neighbour's.
    for pair in sessions.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if let (Some(cursor), true) = (&a.4, a.1 == b.1) {
            let mut params = select(a.3);
            params["cursor"] = json!(cursor);
            let refused = h.call(b.1, &b.2, None, "tools/list", params).await;
            assert!(
                refused.get("error").is_some(),
                "session {}'s cursor accepted in session {}",
                a.0,
                b.0
            );
        }
    }
    // Delete everything concurrently; every provider stream closes.
    let mut deletes = tokio::task::JoinSet::new();
    for (_, token, s, ..) in sessions {
        let h = h.clone();
        deletes.spawn(async move {
            let r = h
                .send(Harness::request(
                    http::Method::DELETE,
                    Some(token),
                    Some(&s),
                    None,
                    None,
                ))
                .await;
            assert_eq!(r.status(), StatusCode::OK);
        });
    }
    while let Some(done) = deletes.join_next().await {
        done.unwrap();
    }
    wait_for(|| h.server.handler().open_subscription_streams() == 0).await;
    assert_eq!(h.provider.closed().len(), full);
    assert_eq!(h.server.handler().session_count(), 0);
    assert_eq!(h.server.session_count(), 0);
}

async fn wait_for(mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !condition() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "condition not met within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Over a frame connection (what stdio carries): the same front, and a disconnect closes the
/// session's provider streams.
#[tokio::test]
async fn over_a_frame_connection_a_disconnect_closes_every_provider_stream() {
    use mcp_wire_transport::{Connection, Frame};
    let provider = Provider::default();
    let server = front(provider.clone(), AdvertisePolicy::WhenClientOptsIn)
        .into_server(ServerConfig::default())
        .unwrap();
    let (connection, driver) = Connection::pair(16);
    let to_server = driver.incoming.clone();
    let mut from_server = driver.outgoing;
    let s = server.clone();
    let serving = tokio::spawn(async move {
        s.serve_connection(connection, Principal::new("alice", vec![]))
            .await
    });
    let frame = |v: Value| Frame::parse(v.to_string()).unwrap();
    async fn next(rx: &mut mpsc::Receiver<Frame>) -> Value {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a frame in time")
            .expect("open")
            .to_value()
            .unwrap()
    }
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"extensions": {EXT: {}}},
            "clientInfo": {"name": "c", "version": "1"}}}),
        ))
        .await
        .unwrap();
    let init = next(&mut from_server).await;
    assert_eq!(
        ids(&init["result"]),
        ["compact", "full", "preview", "legacy"]
    );
    to_server
        .send(frame(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
            "params": {"_meta": {SEL: "legacy"}}}),
        ))
        .await
        .unwrap();
    assert_eq!(tool_names(&next(&mut from_server).await), ["search_v1"]);
    for (id, variant) in [(3, "full"), (4, "preview")] {
        to_server
            .send(frame(
                json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
                "params": {"uri": "file:///full/a.txt", "_meta": {SEL: variant}}}),
            ))
            .await
            .unwrap();
        assert_eq!(next(&mut from_server).await["result"], json!({}));
    }
    // The update arrives on the connection, tagged.
    provider.send("preview", "file:///full/a.txt", ResourceUpdate::Updated);
    assert_eq!(
        next(&mut from_server).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "file:///full/a.txt", "_meta": {SEL: "preview"}}})
    );
    assert_eq!(server.handler().open_subscription_streams(), 2);
    drop(to_server);
    drop(driver.incoming);
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("serving ends when the client closes")
        .unwrap();
    wait_for(|| server.handler().open_subscription_streams() == 0).await;
    assert_eq!(provider.closed().len(), 2);
    assert_eq!(server.handler().session_count(), 0);
}

/// An idle session expires like a deleted one: its provider streams close.
#[tokio::test]
async fn idle_expiry_closes_the_sessions_provider_streams() {
    let provider = Provider::default();
    let mut limits = mcp_wire_transport::server::Limits::default();
    limits.session_idle = Duration::from_millis(50);
    let config = ServerConfig {
        authenticator: Arc::new(tokens()),
        limits,
        ..ServerConfig::default()
    };
    let server = front(provider.clone(), AdvertisePolicy::WhenClientOptsIn)
        .into_server(config)
        .unwrap();
    let h = Harness {
        router: server.router("/mcp"),
        server,
        provider,
        tcp: None,
    };
    let (s, _) = h.initialize("bob", Some(json!({}))).await;
    let ok = h
        .call(
            "bob",
            &s,
            Some("full"),
            "resources/subscribe",
            json!({"uri": "file:///full/b.txt"}),
        )
        .await;
    assert_eq!(ok["result"], json!({}));
    assert_eq!(h.server.handler().open_subscription_streams(), 1);
    tokio::time::sleep(Duration::from_millis(120)).await;
    h.server.expire_idle_sessions();
    wait_for(|| h.server.handler().open_subscription_streams() == 0).await;
    assert_eq!(
        h.provider.closed(),
        [("full".to_owned(), "file:///full/b.txt".to_owned())]
    );
    assert_eq!(h.server.handler().session_count(), 0);
}

/// 2024-11-05's HTTP+SSE transport: the same front, its notifications on the connection's
/// event stream, and closing the stream ends the session (its provider streams close).
#[tokio::test]
async fn over_2024_11_05_http_sse_the_stream_is_the_session() {
    let h = harness(AdvertisePolicy::WhenClientOptsIn);
    let get = Request::builder()
        .method("GET")
        .uri("/sse")
        .header("host", "127.0.0.1")
        .header("accept", "text/event-stream")
        .header("authorization", "Bearer alice")
        .body(Body::empty())
        .unwrap();
    let response = h.send(get).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body().into_data_stream();
    let (tx, mut events) = mpsc::unbounded_channel::<String>();
    let reader = tokio::spawn(async move {
        let mut text = String::new();
        while let Some(Ok(chunk)) = body.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = text.find("\n\n") {
                let event: String = text.drain(..end + 2).collect();
                if tx.send(event).is_err() {
                    return;
                }
            }
        }
    });
    let endpoint = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    let path = endpoint
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .expect("the endpoint event")
        .to_owned();
    let post = |body: Value| {
        Request::builder()
            .method("POST")
            .uri(path.as_str())
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("authorization", "Bearer alice")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let mut next_message = async || loop {
        let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("an event in time")
            .expect("the stream is open");
        if let Some(m) = sse_messages(&event).pop() {
            return m;
        }
    };
    let r = h
        .send(post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {"extensions": {EXT: {}}},
            "clientInfo": {"name": "old", "version": "0"}}}),
        ))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let init = next_message().await;
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(
        ids(&init["result"]),
        ["compact", "full", "preview", "legacy"]
    );
    h.send(post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
        "params": {"uri": "file:///full/a.txt", "_meta": {SEL: "full"}}}),
    ))
    .await;
    assert_eq!(next_message().await["result"], json!({}));
    h.provider
        .send("full", "file:///full/a.txt", ResourceUpdate::Updated);
    assert_eq!(
        next_message().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "file:///full/a.txt", "_meta": {SEL: "full"}}})
    );
    assert_eq!(h.server.handler().open_subscription_streams(), 1);
    // The client goes away: the stream's task notices at its next write (keep-alive or
    // message) and ends the session.
    reader.abort();
    drop(events);
    h.provider
        .send("full", "file:///full/a.txt", ResourceUpdate::Updated);
    wait_for(|| h.server.handler().open_subscription_streams() == 0).await;
    assert_eq!(h.server.handler().session_count(), 0);
}

/// The discovery limit cuts the advertised list (`moreVariantsAvailable`), and a principal who
/// can see no stable variant is refused at `initialize` (no session is kept).
#[tokio::test]
async fn discovery_limit_and_no_stable_variant() {
    let tools = |label| Tools {
        label,
        tools: &["search"],
        resources: &[],
    };
    let server = VariantServer::builder(Implementation::new("limited", "1.0.0"))
        .variant(ServerVariant::new("a", "A"), 0, tools("a"))
        .variant(ServerVariant::new("b", "B"), 1, tools("b"))
        .variant(ServerVariant::new("c", "C"), 2, tools("c"))
        .variant(
            ServerVariant::new("x", "X").with_status(VariantStatus::Experimental),
            3,
            tools("x"),
        )
        .catalog(|c| {
            c.cursor_key(b"discovery-limit-test-key")
                .discovery_limit(2)
                .visibility(|v, p| p.key() != "bob" || v.id == "x")
        })
        .build()
        .unwrap()
        .into_server(ServerConfig {
            authenticator: Arc::new(tokens()),
            ..ServerConfig::default()
        })
        .unwrap();
    let h = Harness {
        router: server.router("/mcp"),
        server,
        provider: Provider::default(),
        tcp: None,
    };
    let (_, result) = h.initialize("alice", Some(json!({}))).await;
    assert_eq!(ids(&result), ["a", "b"]);
    assert_eq!(
        result["capabilities"]["extensions"][EXT]["moreVariantsAvailable"],
        true
    );
    let refused = h
        .post(
            Some("bob"),
            None,
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": REV, "capabilities": {"extensions": {EXT: {}}},
                "clientInfo": {"name": "bob", "version": "0"}}}),
        )
        .await;
    assert_eq!(
        refused.body["error"],
        json!({"code": -32603, "message": "No stable server variant is visible"})
    );
    assert!(refused.session.is_none());
    assert_eq!(h.server.session_count(), 1);
    assert_eq!(h.server.handler().session_count(), 1);
}

/// A plain 2026-07-28 client listening (`subscriptions/listen`) hears the list changes of the
/// variant that serves it — whoever caused them — untagged; handshake sessions hear them tagged.
#[tokio::test]
async fn modern_listeners_hear_their_variants_changes() {
    let touchy = |label| Tools {
        label,
        tools: &["touch"],
        resources: &[],
    };
    let config = ServerConfig {
        authenticator: Arc::new(tokens()),
        revisions: vec![ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28],
        ..ServerConfig::default()
    };
    let server = VariantServer::builder(Implementation::new("touchy", "1.0.0"))
        .variant(ServerVariant::new("main", "Main"), 0, touchy("main"))
        .variant(ServerVariant::new("other", "Other"), 1, touchy("other"))
        .catalog(|c| c.cursor_key(b"modern-listeners-test-key"))
        .build()
        .unwrap()
        .into_server(config)
        .unwrap();
    let h = Harness {
        router: server.router("/mcp"),
        server,
        provider: Provider::default(),
        tcp: None,
    };
    let modern = |id: i64, method: &str, params: Value| {
        let mut params = params;
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
        params["_meta"]["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "m", "version": "0"});
        let mut r = Request::builder()
            .method("POST")
            .uri("/mcp")
            .header("host", "127.0.0.1")
            .header("authorization", "Bearer alice")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            r = r.header("mcp-name", name);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        r.body(Body::from(body.to_string())).unwrap()
    };
    let mut listen = events_of(
        h.send(modern(
            1,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        ))
        .await,
    );
    assert_eq!(
        next_event(&mut listen).await["method"],
        "notifications/subscriptions/acknowledged"
    );
    let (s, _) = h.initialize("alice", Some(json!({}))).await;
    let mut session = h.open_stream("alice", &s).await;
    let untagged_for_listener = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}});
    // A handshake session changes `main` (the 2026 default): the listener hears it, plain.
    h.call(
        "alice",
        &s,
        None,
        "tools/call",
        json!({"name": "touch", "arguments": {}}),
    )
    .await;
    assert_eq!(next_event(&mut listen).await, untagged_for_listener);
    assert_eq!(
        next_event(&mut session).await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {SEL: "main"}}})
    );
    // A change in `other` is not the listener's business.
    h.call(
        "alice",
        &s,
        Some("other"),
        "tools/call",
        json!({"name": "touch", "arguments": {}}),
    )
    .await;
    assert_eq!(
        next_event(&mut session).await["params"]["_meta"][SEL],
        "other"
    );
    no_event(&mut listen).await;
    // A 2026-07-28 call changes `main`: once to the listener, tagged to the session.
    let answer = h
        .send(modern(
            2,
            "tools/call",
            json!({"name": "touch", "arguments": {}}),
        ))
        .await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(next_event(&mut listen).await, untagged_for_listener);
    assert_eq!(
        next_event(&mut session).await["params"]["_meta"][SEL],
        "main"
    );
    no_event(&mut listen).await;
    no_event(&mut session).await;
}

/// A second `initialize` on one connection replaces its session: the first one ends (its
/// provider streams close) and only the new one is kept.
#[tokio::test]
async fn reinitializing_a_connection_ends_its_first_session() {
    use mcp_wire_transport::{Connection, Frame};
    let provider = Provider::default();
    let server = front(provider.clone(), AdvertisePolicy::WhenClientOptsIn)
        .into_server(ServerConfig::default())
        .unwrap();
    let (connection, driver) = Connection::pair(16);
    let to_server = driver.incoming.clone();
    let mut from_server = driver.outgoing;
    let s = server.clone();
    let serving = tokio::spawn(async move {
        s.serve_connection(connection, Principal::new("alice", vec![]))
            .await
    });
    let mut exchange = async |v: Value| {
        to_server
            .send(Frame::parse(v.to_string()).unwrap())
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), from_server.recv())
            .await
            .expect("an answer in time")
            .expect("open")
            .to_value()
            .unwrap()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"extensions": {EXT: {}}},
        "clientInfo": {"name": "c", "version": "1"}}});
    exchange(init.clone()).await;
    let ok = exchange(
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
        "params": {"uri": "file:///full/a.txt", "_meta": {SEL: "full"}}}),
    )
    .await;
    assert_eq!(ok["result"], json!({}));
    assert_eq!(server.handler().open_subscription_streams(), 1);
    let again = exchange(init).await;
    assert_eq!(
        ids(&again["result"]),
        ["compact", "full", "preview", "legacy"]
    );
    wait_for(|| server.handler().open_subscription_streams() == 0).await;
    assert_eq!(server.handler().session_count(), 1);
    drop(to_server);
    drop(driver.incoming);
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("serving ends")
        .unwrap();
    assert_eq!(server.handler().session_count(), 0);
}
