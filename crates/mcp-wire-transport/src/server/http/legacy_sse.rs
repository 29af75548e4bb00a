//! The deprecated HTTP+SSE transport of 2024-11-05, mounted beside the Streamable HTTP
//! endpoint (the spec's backwards-compatibility arrangement): `GET /sse` opens a stream whose
//! first event, `endpoint`, names the URI to POST messages to; every server message (answers,
//! request-scoped notifications and, once initialized, the server's list changes and the
//! updates of subscribed resources) is a `message` event on that stream; each POST is
//! answered 202.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Body;
use axum::extract::{Extension, State};
use axum::response::Response;
use bytes::Bytes;
use http::{Request, StatusCode};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcMessage, JsonRpcNotification, RawMessage};
use mcp_wire::model::{ClientNotification, ClientRequest, ServerResult};
use mcp_wire::wire::parse_as;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::headers::{accepts, check_host_origin};
use super::response::{accepted, plain, refused, sse_response};
use crate::Frame;
use crate::server::auth::Principal;
use crate::server::context::{ContextInner, Outgoing, RequestContext, clone_inner, emit};
use crate::server::error::codes;
use crate::server::notify::session_change;
use crate::server::runtime::{envelope_reply, error_frame, parse_error, response_frame};
use crate::server::session::{Ended, Session, lock, new_session_id};
use crate::server::shared::{Runtime, ServerShared};
use crate::telemetry::{self, RequestTrace, StreamKind, Transport, Wire};

const REVISION: ProtocolVersion = ProtocolVersion::V2024_11_05;

/// One HTTP+SSE connection: its stream, the principal that opened it (a POST of anyone else
/// does not find it) and, after `initialize`, its session.
struct SseConnection {
    sink: mpsc::Sender<Bytes>,
    principal: Principal,
    session: OnceLock<Arc<Session>>,
}

/// The open HTTP+SSE connections, bounded in number.
#[derive(Default)]
struct SseConnections {
    map: Mutex<HashMap<String, Arc<SseConnection>>>,
}

impl SseConnections {
    fn get(&self, id: &str) -> Option<Arc<SseConnection>> {
        lock(&self.map).get(id).cloned()
    }
}

/// Adds the two HTTP+SSE routes to `router`, with the table of their open connections.
pub(crate) fn mount(
    router: axum::Router<Arc<Runtime>>,
    sse_path: &str,
    post_path: &str,
) -> axum::Router<Arc<Runtime>> {
    let post_path_owned = post_path.to_owned();
    let connections = Extension(Arc::new(SseConnections::default()));
    router
        .route(
            sse_path,
            axum::routing::get(move |state, connections, request| {
                open(state, connections, request, post_path_owned.clone())
            })
            .layer(connections.clone()),
        )
        .route(post_path, axum::routing::post(message).layer(connections))
}

/// `GET /sse`: a new connection, announced by its `endpoint` event.
async fn open(
    State(server): State<Arc<Runtime>>,
    Extension(connections): Extension<Arc<SseConnections>>,
    request: Request<Body>,
    post_path: String,
) -> Response {
    let shared: &ServerShared = &server.shared;
    if let Err(r) = check_host_origin(shared, request.headers()) {
        return r;
    }
    let (parts, _) = request.into_parts();
    let principal = match shared.authenticator.authenticate(&parts).await {
        Ok(p) => p,
        Err(rejection) => return refused(&rejection),
    };
    if !accepts(&parts.headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list text/event-stream",
        );
    }
    let id = new_session_id();
    let (sink, body_rx) = mpsc::channel::<Bytes>(shared.limits.stream_queue);
    let connection = Arc::new(SseConnection {
        sink: sink.clone(),
        principal,
        session: OnceLock::new(),
    });
    {
        let mut map = lock(&connections.map);
        if map.len() >= shared.limits.max_sessions {
            drop(map);
            telemetry::limit_hit("max_sessions");
            return plain(StatusCode::SERVICE_UNAVAILABLE, "too many connections");
        }
        map.insert(id.clone(), connection.clone());
    }
    let endpoint = Bytes::from(format!(
        "event: endpoint\ndata: {post_path}?sessionId={id}\n\n"
    ));
    let _ = sink.try_send(endpoint);
    let mut changes = shared.notifier.listen();
    let keep_alive = shared.limits.keep_alive;
    let stream_session: Arc<str> = Arc::from(id.as_str());
    // The connection's own task: server-wide changes (list changes, updates of subscribed
    // resources) once the session is initialized, keep-alives, and forgetting the connection
    // when its stream closes.
    crate::spawn::spawn(async move {
        let mut tick = tokio::time::interval(keep_alive);
        tick.tick().await;
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) => {
                        if let Some(session) = connection.session.get()
                            && let Some(n) = session_change(&change, session)
                            && let Ok(frame) = emit(&JsonRpcNotification::new(n), REVISION)
                        {
                            send(&connection, frame).await;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        telemetry::limit_hit("change_backlog");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                // Notifications a handler sent this session alone (`SessionHandle::notify`).
                () = async {
                    match connection.session.get() {
                        Some(session) => session.push_signal.notified().await,
                        None => std::future::pending().await,
                    }
                } => {
                    if let Some(session) = connection.session.get() {
                        for n in session.take_pushed() {
                            if let Ok(frame) = emit(&JsonRpcNotification::new(n), REVISION) {
                                send(&connection, frame).await;
                            }
                        }
                    }
                }
                _ = tick.tick() => {
                    if sink.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                        break;
                    }
                }
            }
            if sink.is_closed() {
                break;
            }
        }
        lock(&connections.map).remove(&id);
        // The stream is the connection: its session ends with it.
        if let Some(session) = connection.session.get() {
            session.close(Ended::Disconnected);
        }
    });
    sse_response(body_rx, StreamKind::HttpSse, Some(stream_session))
}

/// The `sessionId` query parameter of a POST.
fn session_param(uri: &http::Uri) -> Option<String> {
    uri.query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix("sessionId="))
        .map(str::to_owned)
}

/// `POST /messages?sessionId=…`: one client message; answers go out on the stream.
async fn message(
    State(server): State<Arc<Runtime>>,
    Extension(connections): Extension<Arc<SseConnections>>,
    request: Request<Body>,
) -> Response {
    let shared = &server.shared;
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, shared.limits.max_body_bytes).await else {
        telemetry::limit_hit("max_body_bytes");
        return plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");
    };
    telemetry::bytes_received(Transport::Http, body.len());
    if let Err(r) = check_host_origin(shared, &parts.headers) {
        return r;
    }
    let principal = match shared.authenticator.authenticate(&parts).await {
        Ok(p) => p,
        Err(rejection) => return refused(&rejection),
    };
    let Some(session_id) = session_param(&parts.uri) else {
        return plain(StatusCode::BAD_REQUEST, "missing sessionId");
    };
    let Some(connection) = connections
        .get(&session_id)
        .filter(|c| c.principal.same_identity(&principal))
    else {
        return plain(StatusCode::NOT_FOUND, "unknown connection");
    };
    let Ok(frame) = Frame::parse(body) else {
        send(
            &connection,
            error_frame(
                None,
                ErrorData::new(codes::PARSE_ERROR, "parse error"),
                REVISION,
            )
            .0,
        )
        .await;
        return plain(StatusCode::BAD_REQUEST, "not JSON");
    };
    let value = frame.to_value().unwrap_or(Value::Null);
    let message = match RawMessage::from_value(value.clone()) {
        Ok(m) => m,
        Err(e) => {
            if let Some(reply) = envelope_reply(frame.as_str(), &e) {
                send(&connection, error_frame(reply.id, reply.error, REVISION).0).await;
            }
            return plain(StatusCode::BAD_REQUEST, "not a JSON-RPC message");
        }
    };
    match message {
        JsonRpcMessage::Request(r) => {
            let request = match parse_as::<ClientRequest>(frame.as_str(), REVISION) {
                Ok(req) => req,
                Err(e) => {
                    let error = parse_error(&e);
                    let method = r.request.method.as_str();
                    telemetry::refused(Wire::HttpSse, method, REVISION, &r.id, &principal, &error);
                    send(&connection, error_frame(Some(r.id), error, REVISION).0).await;
                    return accepted();
                }
            };
            if let ClientRequest::Initialize(init) = &request {
                let trace = RequestTrace::start(
                    Wire::HttpSse,
                    "initialize",
                    REVISION,
                    &r.id,
                    &principal,
                    Some(&session_id),
                );
                let answer = if connection.session.get().is_some() {
                    Err(ErrorData::new(codes::INVALID_REQUEST, "already initialized").into())
                } else {
                    match server.open_session(session_id.clone(), REVISION, &init.params, principal)
                    {
                        Ok((session, result)) => match connection.session.set(session) {
                            Ok(()) => Ok(ServerResult::Initialize(result)),
                            Err(session) => {
                                session.close(Ended::Refused);
                                Err(
                                    ErrorData::new(codes::INVALID_REQUEST, "already initialized")
                                        .into(),
                                )
                            }
                        },
                        Err(error) => Err(error.into()),
                    }
                };
                let (frame, code) = trace
                    .span()
                    .in_scope(|| response_frame(shared, r.id, answer, REVISION, None));
                trace.finish(code);
                send(&connection, frame).await;
                return accepted();
            }
            let Some(session) = connection.session.get().cloned() else {
                let error = ErrorData::new(codes::INVALID_REQUEST, "initialize first");
                send(&connection, error_frame(Some(r.id), error, REVISION).0).await;
                return accepted();
            };
            let (tx, mut rx) = mpsc::channel::<Outgoing>(shared.limits.stream_queue);
            let base = server.session_context(&session, r.id.clone(), &request, principal, None);
            let ctx = RequestContext {
                inner: Arc::new(ContextInner {
                    outbox: Some(tx),
                    ..clone_inner(&base.inner)
                }),
            };
            let forward = connection.clone();
            let server = server.clone();
            let task = crate::spawn::spawn(async move {
                server
                    .answer_framed(Wire::HttpSse, ctx, request, None)
                    .await
                    .0
            });
            session.track(r.id, task.abort_handle());
            crate::spawn::spawn(async move {
                while let Some(out) = rx.recv().await {
                    if let Outgoing::Frame(f) = out {
                        send(&forward, f).await;
                    }
                }
                if let Ok(frame) = task.await {
                    send(&forward, frame).await;
                }
            });
            accepted()
        }
        JsonRpcMessage::Notification(_) => {
            if let (Some(session), Ok(ClientNotification::Cancelled(c))) = (
                connection.session.get(),
                parse_as::<ClientNotification>(frame.as_str(), REVISION),
            ) && let Some(id) = c.params.request_id
            {
                session.cancel(&id);
            }
            accepted()
        }
        JsonRpcMessage::Response(r) => {
            if let Some(session) = connection.session.get() {
                session.deliver(&r.id, Ok(Value::Object(r.result)));
            }
            accepted()
        }
        JsonRpcMessage::Error(e) => {
            if let (Some(session), Some(id)) = (connection.session.get(), &e.id) {
                session.deliver(id, Err(e.error.clone()));
            }
            accepted()
        }
        #[allow(unreachable_patterns)]
        _ => accepted(),
    }
}

/// Sends one frame as a `message` event (a full or closed stream drops it: the queue is
/// bounded and the client is gone or not reading).
async fn send(connection: &SseConnection, frame: Frame) {
    let event = Bytes::from(format!("event: message\ndata: {}\n\n", frame.as_str()));
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        connection.sink.send(event),
    )
    .await;
}
