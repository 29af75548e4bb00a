//! Streamable HTTP on one endpoint, both wires.
//!
//! - **Handshake era** (2025-03-26 … 2025-11-25, stateful): `initialize` without a session
//!   mints `Mcp-Session-Id`; later POSTs carry it (missing: 400, unknown or ended: 404);
//!   requests are answered as JSON, or as an SSE stream as soon as the handler sends anything
//!   before its answer (progress, logs, requests to the client); notifications and client
//!   responses get 202; GET opens the session's standalone stream (or resumes a stream from
//!   `Last-Event-ID`); DELETE ends the session.
//! - **2026-07-28** (stateless): one POST per request, identity in `_meta`, headers checked
//!   against the body (`-32020`), unsupported versions (`-32022`), removed and unknown methods
//!   (404, `-32601`), `subscriptions/listen` as a long SSE answer; GET and DELETE are 405.
//!
//! Which wire a POST speaks: `MCP-Protocol-Version: 2026-07-28` or a `_meta` protocol version
//! → stateless; a session id or `initialize` → handshake era; anything else goes to the
//! stateless wire when it is offered (which answers what is missing) and is a missing session
//! otherwise.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcMessage, JsonRpcNotification, RawMessage, RequestId};
use mcp_wire::model::{
    ClientCapabilities, ClientNotification, ClientRequest, Implementation, LoggingLevel, Meta,
    ProgressToken, RequestMeta, ServerNotification, SubscriptionFilter,
    SubscriptionsAcknowledgedNotification, SubscriptionsAcknowledgedNotificationParams,
};
use mcp_wire::session::{Envelope, Evidence};
use mcp_wire::wire::{FrameError, ParseError, RawFrame, parse_str_as};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::auth::Principal;
use super::context::{
    ContextInner, InputMode, LevelCell, Outgoing, RequestContext, SessionLink, StatelessInputs,
    emit,
};
use super::handler::{Handler, codes, keys};
use super::notify::Change;
use super::runtime::{AbortOnDrop, error_frame, response_frame};
use super::session::{Session, StreamLog, new_session_id};
use super::{Server, ServerShared};
use crate::Frame;
use crate::routing::{
    LAST_EVENT_HEADER, METHOD_HEADER, NAME_HEADER, NameMember, SESSION_HEADER, VERSION_HEADER,
    name_member,
};

const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// Methods 2026-07-28 removed (answered 404 with `-32601` on the stateless wire).
const REMOVED_2026: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

pub(crate) fn router<H: Handler>(server: Arc<Server<H>>, path: &str) -> axum::Router {
    let mut router =
        axum::Router::new().route(path, post(handle::<H>).get(handle::<H>).delete(handle::<H>));
    if server
        .shared
        .revisions
        .contains(&ProtocolVersion::V2024_11_05)
    {
        router = super::legacy_sse::mount(router, "/sse", "/messages");
    }
    router.with_state(server)
}

/// One HTTP request to the endpoint.
async fn handle<H: Handler>(
    State(server): State<Arc<Server<H>>>,
    request: Request<Body>,
) -> Response {
    let (parts, body) = request.into_parts();
    let shared = &server.shared;
    // Read the body first, even when the request is refused (some clients wait for it).
    let body = match axum::body::to_bytes(body, shared.limits.max_body_bytes).await {
        Ok(b) => b,
        Err(_) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"),
    };
    if let Err(response) = check_host_origin(shared, &parts.headers) {
        return response;
    }
    let principal = match shared.authenticator.authenticate(&parts.headers) {
        Ok(p) => p,
        Err(rejection) => {
            let mut r = plain(StatusCode::UNAUTHORIZED, "unauthorized");
            if let Ok(v) = HeaderValue::from_str(&rejection.challenge) {
                r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            return r;
        }
    };
    // Shared, not copied, with the contexts of the requests it carries.
    let headers = Arc::new(parts.headers);
    match parts.method {
        Method::POST => post_message(&server, &headers, body, principal).await,
        Method::GET => get_stream(&server, &headers, &principal).await,
        Method::DELETE => delete_session(&server, &headers, &principal),
        _ => plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed"),
    }
}

/// DNS-rebinding protection: `Host` and `Origin` (when present) must name an allowed host.
#[allow(clippy::result_large_err)]
pub(super) fn check_host_origin(
    shared: &ServerShared,
    headers: &HeaderMap,
) -> Result<(), Response> {
    let allowed = |authority: &str| {
        shared
            .allowed_hosts
            .iter()
            .any(|allowed| host_is(allowed, authority))
    };
    if let Some(host) = headers.get(header::HOST) {
        let ok = host.to_str().is_ok_and(allowed);
        if !ok {
            return Err(plain(StatusCode::FORBIDDEN, "host not allowed"));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| {
            o.split_once("://")
                .is_some_and(|(_, rest)| allowed(rest.split('/').next().unwrap_or("")))
        });
        if !ok {
            return Err(plain(StatusCode::FORBIDDEN, "origin not allowed"));
        }
    }
    Ok(())
}

/// Whether `authority` (`host[:port]` or `[v6][:port]`) names the host `allowed` (spelled as
/// in [`crate::server::ServerConfig::allowed_hosts`], a v6 address in brackets), any case.
fn host_is(allowed: &str, authority: &str) -> bool {
    match authority.strip_prefix('[') {
        Some(rest) => {
            let v6 = rest.split(']').next().unwrap_or_default();
            allowed
                .strip_prefix('[')
                .and_then(|a| a.strip_suffix(']'))
                .is_some_and(|a| a.eq_ignore_ascii_case(v6))
        }
        None => allowed.eq_ignore_ascii_case(authority.split(':').next().unwrap_or_default()),
    }
}

pub(super) fn header_str<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

pub(super) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .any(|v| v == mime || v == "*/*")
}

/// A POST: one JSON-RPC message (or a 2025-03-26 batch).
async fn post_message<H: Handler>(
    server: &Arc<Server<H>>,
    headers: &Arc<HeaderMap>,
    body: Bytes,
    principal: Principal,
) -> Response {
    let content_type_ok = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or("").trim() == "application/json");
    if !content_type_ok {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        );
    }
    if !(accepts(headers, "application/json") && accepts(headers, "text/event-stream")) {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list application/json and text/event-stream",
        );
    }
    let refuse_unparsed = |e: crate::TransportError| {
        json_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorData::new(codes::PARSE_ERROR, format!("parse error: {e}")),
            fallback_revision(server),
        )
    };
    // The body is read once: the envelope split is also the check that it is JSON.
    let frame = match Frame::unchecked_json(body) {
        Ok(f) => f,
        Err(e) => return refuse_unparsed(e),
    };
    let body = PostBody::new(&frame);
    if let Err(split) = &body.raw
        && let Err(e) = crate::frame::not_json(split)
    {
        return refuse_unparsed(e);
    }
    let offers_modern = server.shared.revisions.contains(&MODERN);
    let header_version = header_str(headers, &VERSION_HEADER);
    let modern_marked = header_version == Some(MODERN.as_str()) || body.names_meta_version();
    let session_id = header_str(headers, &SESSION_HEADER);
    let is_initialize = body.method() == Some("initialize");
    if offers_modern && modern_marked {
        return stateless_post(server, headers, body, principal).await;
    }
    if let Some(id) = session_id {
        return match server.shared.sessions.get_for(id, &principal) {
            Some(session) => session_post(server, headers, session, body, principal).await,
            None => plain(StatusCode::NOT_FOUND, "unknown or ended session"),
        };
    }
    if is_initialize && server.shared.revisions.iter().any(|v| *v != MODERN) {
        return initialize(server, body.value(), principal);
    }
    if is_initialize {
        // A 2026-07-28-only endpoint: say which versions it speaks.
        let value = body.value();
        let id = value.get("id").cloned().and_then(request_id);
        return json_error(
            StatusCode::BAD_REQUEST,
            id,
            unsupported_version(server, value.pointer("/params/protocolVersion")),
            MODERN,
        );
    }
    if offers_modern {
        return stateless_post(server, headers, body, principal).await;
    }
    plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
}

/// A POST's JSON: the envelope split from its text (all a request on a session needs: the
/// hot path reads the body once more, typed), its `Value` built only for the paths that read
/// one (the stateless wire, `initialize`, batches, frames whose envelope does not split).
struct PostBody<'a> {
    frame: &'a Frame,
    /// `Err`: a batch, or an envelope the crate's judge refuses.
    raw: Result<RawFrame<'a>, FrameError>,
    value: std::cell::OnceCell<Value>,
}

impl<'a> PostBody<'a> {
    fn new(frame: &'a Frame) -> Self {
        PostBody {
            frame,
            raw: RawFrame::split(frame.as_str()),
            value: std::cell::OnceCell::new(),
        }
    }

    fn value(&self) -> &Value {
        self.value
            .get_or_init(|| self.frame.to_value().unwrap_or(Value::Null))
    }

    /// The `method` member, when it is a string.
    fn method(&self) -> Option<&str> {
        match &self.raw {
            Ok(raw) => match raw.envelope() {
                Envelope::Request { method, .. } | Envelope::Notification { method } => {
                    Some(method)
                }
                _ => None,
            },
            Err(_) => self.value().get("method").and_then(Value::as_str),
        }
    }

    /// Whether `params._meta` names a protocol version as a string (a 2026-07-28 request).
    fn names_meta_version(&self) -> bool {
        match &self.raw {
            Ok(raw) => raw.meta_revision().is_some_and(|v| v.is_string()),
            Err(_) => self
                .value()
                .pointer("/params/_meta")
                .and_then(|m| m.get(keys::PROTOCOL_VERSION))
                .is_some_and(Value::is_string),
        }
    }
}

/// The revision used to frame errors that precede any negotiation.
fn fallback_revision<H>(server: &Server<H>) -> ProtocolVersion {
    server
        .shared
        .revisions
        .iter()
        .rev()
        .find(|v| **v != MODERN)
        .copied()
        .unwrap_or(MODERN)
}

/// `initialize` without a session: negotiate, mint a session, answer.
fn initialize<H: Handler>(
    server: &Arc<Server<H>>,
    value: &Value,
    principal: Principal,
) -> Response {
    let legacy: Vec<ProtocolVersion> = server
        .shared
        .revisions
        .iter()
        .copied()
        .filter(|v| *v != MODERN)
        .collect();
    let latest = legacy
        .last()
        .copied()
        .unwrap_or(ProtocolVersion::V2025_11_25);
    let id = value.get("id").cloned().and_then(request_id);
    let Some(id) = id else {
        return json_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorData::new(codes::INVALID_REQUEST, "initialize must be a request"),
            latest,
        );
    };
    let requested = value
        .pointer("/params/protocolVersion")
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<ProtocolVersion>().ok());
    let revision = requested.filter(|v| legacy.contains(v)).unwrap_or(latest);
    let request = match parse_str_as::<ClientRequest>(&value.to_string(), revision) {
        Ok(ClientRequest::Initialize(r)) => r,
        Ok(_) => {
            let error = ErrorData::new(codes::INVALID_REQUEST, "not an initialize request");
            return json_error(StatusCode::BAD_REQUEST, Some(id), error, revision);
        }
        Err(e) => {
            return json_error(StatusCode::BAD_REQUEST, Some(id), parse_error(&e), revision);
        }
    };
    if server.shared.sessions.len() >= server.shared.limits.max_sessions {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "too many sessions");
    }
    let (session, result) =
        match server.open_session(new_session_id(), revision, &request.params, principal) {
            Ok(opened) => opened,
            Err(error) => return json_error(StatusCode::OK, Some(id), error, revision),
        };
    if !server.shared.sessions.insert(session.clone()) {
        session.close();
        return plain(StatusCode::SERVICE_UNAVAILABLE, "too many sessions");
    }
    let result = mcp_wire::model::ServerResult::Initialize(result);
    let (frame, _) = response_frame(&server.shared, id, Ok(result), revision, None);
    let mut response = json_response(StatusCode::OK, frame);
    if let Ok(v) = HeaderValue::from_str(&session.id) {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

pub(super) fn request_id(v: Value) -> Option<RequestId> {
    serde_json::from_value(v).ok()
}

pub(super) fn parse_error(e: &ParseError) -> ErrorData {
    ErrorData::new(e.code(), e.to_string())
}

/// A POST on a handshake-era session.
async fn session_post<H: Handler>(
    server: &Arc<Server<H>>,
    headers: &Arc<HeaderMap>,
    session: Arc<Session>,
    body: PostBody<'_>,
    principal: Principal,
) -> Response {
    let revision = session.revision;
    if let Some(v) = header_str(headers, &VERSION_HEADER)
        && v != revision.as_str()
    {
        return json_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorData::new(
                codes::INVALID_REQUEST,
                format!(
                    "MCP-Protocol-Version {v} does not match the session's {}",
                    revision.as_str()
                ),
            ),
            revision,
        );
    }
    let text = body.frame.as_str();
    if text.trim_start().starts_with('[') {
        if revision != ProtocolVersion::V2025_03_26 {
            return json_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorData::new(
                    codes::INVALID_REQUEST,
                    "batches are not allowed at this revision",
                ),
                revision,
            );
        }
        // Boxed: a batch is rare, and its future would make every POST's future its size.
        return Box::pin(batch(server, &session, headers, body.value(), principal)).await;
    }
    let raw = match body.raw {
        Ok(raw) => raw,
        Err(e) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorData::new(codes::INVALID_REQUEST, e.to_string()),
                revision,
            );
        }
    };
    // What the envelope says is read out before the request is answered (a split frame is
    // read in this task only).
    let (id, request) = match raw.envelope() {
        Envelope::Request { id, .. } => match parse_str_as::<ClientRequest>(text, revision) {
            Ok(request) => (id.clone(), request),
            Err(e) => {
                return json_error(StatusCode::OK, Some(id.clone()), parse_error(&e), revision);
            }
        },
        Envelope::Notification { .. } => {
            if let Ok(ClientNotification::Cancelled(c)) =
                parse_str_as::<ClientNotification>(text, revision)
                && let Some(id) = c.params.request_id
            {
                session.cancel(&id);
            }
            return accepted();
        }
        Envelope::Response { id } => {
            // The judge checked that `result` is an object.
            let result = raw
                .result_text()
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .unwrap_or_else(|| json!({}));
            session.deliver(id, Ok(result));
            return accepted();
        }
        Envelope::Error { id, .. } => {
            if let (Some(id), Some(error)) = (id, raw.error()) {
                session.deliver(id, Err(error.clone()));
            }
            return accepted();
        }
        #[allow(unreachable_patterns)]
        _ => return accepted(),
    };
    drop(raw);
    let ctx = session_context(server, &session, id.clone(), &request, principal, None)
        .with_headers(headers);
    answer_request(server, ctx, request, Some(session), None).await
}

/// A 2025-03-26 batch: each member alone, the answers as one JSON array (202 when none).
async fn batch<H: Handler>(
    server: &Arc<Server<H>>,
    session: &Arc<Session>,
    headers: &Arc<HeaderMap>,
    value: &Value,
    principal: Principal,
) -> Response {
    let revision = session.revision;
    let mut answers = Vec::new();
    for member in value.as_array().into_iter().flatten() {
        let text = member.to_string();
        match RawMessage::from_value(member.clone()) {
            Ok(JsonRpcMessage::Request(r)) => {
                let (frame, _) = match parse_str_as::<ClientRequest>(&text, revision) {
                    Ok(ClientRequest::Initialize(_)) => error_frame(
                        Some(r.id),
                        ErrorData::new(codes::INVALID_REQUEST, "initialize cannot be batched"),
                        revision,
                    ),
                    Ok(request) => {
                        let ctx = session_context(
                            server,
                            session,
                            r.id.clone(),
                            &request,
                            principal.clone(),
                            None,
                        )
                        .with_headers(headers);
                        let answer = server.answer(ctx, request).await;
                        response_frame(&server.shared, r.id, answer, revision, None)
                    }
                    Err(e) => error_frame(Some(r.id), parse_error(&e), revision),
                };
                answers.push(frame);
            }
            Ok(JsonRpcMessage::Response(r)) => {
                session.deliver(&r.id, Ok(Value::Object(r.result)));
            }
            Ok(JsonRpcMessage::Error(e)) => {
                if let Some(id) = &e.id {
                    session.deliver(id, Err(e.error.clone()));
                }
            }
            Ok(_) => {}
            Err(e) => answers.push(
                error_frame(
                    None,
                    ErrorData::new(codes::INVALID_REQUEST, e.to_string()),
                    revision,
                )
                .0,
            ),
        }
    }
    if answers.is_empty() {
        return accepted();
    }
    let mut text = Vec::from(&b"["[..]);
    for (i, f) in answers.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        text.extend_from_slice(f.as_bytes());
    }
    text.push(b']');
    json_response(StatusCode::OK, Frame::from_emitted(text))
}

/// The progress token of a typed request.
pub(super) fn progress_token(request: &ClientRequest) -> Option<ProgressToken> {
    use mcp_wire::model::RequestMeta;
    request.meta().and_then(|m| {
        m.get_as::<ProgressToken>(keys::PROGRESS_TOKEN)
            .ok()
            .flatten()
    })
}

pub(super) fn session_context<H: Handler>(
    server: &Arc<Server<H>>,
    session: &Arc<Session>,
    id: RequestId,
    request: &ClientRequest,
    principal: Principal,
    outbox: Option<mpsc::Sender<Outgoing>>,
) -> RequestContext {
    RequestContext {
        inner: Arc::new(ContextInner {
            revision: session.revision,
            principal,
            client_capabilities: session.client_capabilities.clone(),
            client_info: session.client_info.clone(),
            request_id: id,
            method: request.method(),
            progress_token: progress_token(request),
            log_level: session.level.clone(),
            log_by_default: true,
            outbox,
            input: InputMode::Session(SessionLink {
                session: session.clone(),
                timeout: server.shared.limits.client_answer_timeout,
                tasks: None,
            }),
            notifier: server.shared.notifier.clone(),
            param_headers: Vec::new(),
            session_id: Some(session.id.clone()),
            headers: None,
        }),
    }
}

/// Runs a request and answers it: JSON when the answer comes first, else an SSE stream that
/// carries what the handler sends and then the answer.
async fn answer_request<H: Handler>(
    server: &Arc<Server<H>>,
    ctx: RequestContext,
    request: ClientRequest,
    session: Option<Arc<Session>>,
    server_meta: Option<Meta>,
) -> Response {
    let limits = server.shared.limits;
    let (tx, mut rx) = mpsc::channel::<Outgoing>(limits.stream_queue);
    let ctx = ctx.edited(|inner| inner.outbox = Some(tx.clone()));
    let revision = ctx.revision();
    let id = ctx.request_id().clone();
    let (final_tx, mut final_rx) = tokio::sync::oneshot::channel::<(Frame, Option<i64>)>();
    let task = {
        let server = server.clone();
        let id = id.clone();
        let session = session.clone();
        tokio::spawn(async move {
            let answer = server.answer(ctx, request).await;
            let framed = response_frame(&server.shared, id, answer, revision, server_meta.as_ref());
            let _ = final_tx.send(framed);
            drop(tx);
            drop(session);
        })
    };
    if let Some(s) = &session {
        s.track(id.clone(), task.abort_handle());
    }
    let guard = AbortOnDrop(task.abort_handle());
    // JSON if the answer comes before anything else. What the handler sent before its answer
    // is queued first, so a queued frame wins over a ready answer (an answer-first choice
    // dropped the progress and logs of a handler that finished before this select ran).
    let first = tokio::select! {
        biased;
        out = rx.recv() => match out {
            Some(out) => Ok(Some(out)),
            // Every sender is gone without a frame: only the answer can come.
            None => Err((&mut final_rx).await),
        },
        answer = &mut final_rx => Err(answer),
    };
    match first {
        Err(Ok((frame, code))) => {
            drop(guard);
            json_response(status_for(revision, code), frame)
        }
        Err(Err(_)) => {
            // The request was cancelled (`notifications/cancelled`): no answer is sent, so the
            // POST gets an SSE stream that ends without an event.
            drop(guard);
            let (_, empty) = mpsc::channel::<Bytes>(1);
            sse_response(empty)
        }
        Ok(first) => {
            // Stream: the pump owns the request from here (the guard moves with it).
            let log = session
                .as_ref()
                .filter(|s| s.revision.is_at_least(ProtocolVersion::V2025_03_26))
                .map(|s| s.open_stream());
            let priming = revision == ProtocolVersion::V2025_11_25 && log.is_some();
            let (sink, body_rx) = mpsc::channel::<Bytes>(limits.stream_queue);
            if let Some(log) = &log {
                log.attach(sink.clone());
            }
            tokio::spawn(pump(
                PumpInput {
                    first,
                    rx,
                    final_rx,
                },
                log,
                sink,
                priming,
                limits.slow_reader_timeout,
                guard,
            ));
            sse_response(body_rx)
        }
    }
}

struct PumpInput {
    first: Option<Outgoing>,
    rx: mpsc::Receiver<Outgoing>,
    final_rx: tokio::sync::oneshot::Receiver<(Frame, Option<i64>)>,
}

/// Moves a request's frames to its SSE stream (and its replay log), then its answer.
async fn pump(
    mut input: PumpInput,
    log: Option<Arc<StreamLog>>,
    sink: mpsc::Sender<Bytes>,
    priming: bool,
    slow: Duration,
    guard: AbortOnDrop,
) {
    let mut writer = EventWriter {
        log,
        sink: Some(sink),
        slow,
    };
    if priming {
        writer
            .write(|id| Bytes::from(format!("id: {id}\ndata: \n\n")))
            .await;
    }
    let mut pending = input.first.take();
    loop {
        let out = match pending.take() {
            Some(o) => Some(o),
            None => tokio::select! {
                out = input.rx.recv() => out,
                // A request that writes nothing until its answer (no progress, no logs) still
                // learns that its client went away: that cancels it too.
                () = writer.closed() => return,
            },
        };
        match out {
            Some(Outgoing::Frame(f)) => writer.message(&f).await,
            Some(Outgoing::CloseStream { retry }) => {
                let ms = retry.as_millis();
                writer
                    .write(|id| Bytes::from(format!("id: {id}\nretry: {ms}\ndata: \n\n")))
                    .await;
                writer.detach();
            }
            None => break,
        }
        if writer.gone() {
            // The client went away without a replay log to come back to: that cancels.
            return;
        }
    }
    if let Ok((frame, _)) = input.final_rx.await {
        writer.message(&frame).await;
    }
    if let Some(log) = &writer.log {
        log.finish();
    }
    drop(guard);
}

/// Writes SSE events to the live connection (if any) and the replay log (if any).
struct EventWriter {
    log: Option<Arc<StreamLog>>,
    sink: Option<mpsc::Sender<Bytes>>,
    slow: Duration,
}

impl EventWriter {
    async fn message(&mut self, frame: &Frame) {
        let data = frame.as_str().to_owned();
        self.write(move |id| {
            Bytes::from(if id.is_empty() {
                format!("event: message\ndata: {data}\n\n")
            } else {
                format!("id: {id}\nevent: message\ndata: {data}\n\n")
            })
        })
        .await;
    }

    async fn write(&mut self, render: impl FnOnce(&str) -> Bytes) {
        let (event, sink) = match &self.log {
            Some(log) => log.record(render),
            None => (render(""), self.sink.clone()),
        };
        let Some(sink) = sink else { return };
        let sent = tokio::time::timeout(self.slow, sink.send(event)).await;
        if !matches!(sent, Ok(Ok(()))) {
            // Slow or gone: drop the connection; a log keeps the events for a resumption.
            self.detach();
        }
    }

    fn detach(&mut self) {
        self.sink = None;
        if let Some(log) = &self.log {
            log.detach();
        }
    }

    /// Resolves once there is no way left to deliver: the connection closed with no log to
    /// keep the events (never, while a log is kept or no connection was attached).
    async fn closed(&self) {
        match (&self.log, &self.sink) {
            (None, Some(sink)) => sink.closed().await,
            _ => std::future::pending().await,
        }
    }

    /// Whether there is no way left to deliver (no connection, no log).
    fn gone(&self) -> bool {
        self.log.is_none() && self.sink.as_ref().is_none_or(|s| s.is_closed())
    }
}

/// HTTP status of an answer: at 2026-07-28 the codes the spec ties to a status.
fn status_for(revision: ProtocolVersion, code: Option<i64>) -> StatusCode {
    if revision != MODERN {
        return StatusCode::OK;
    }
    match code {
        Some(codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            codes::HEADER_MISMATCH
            | codes::MISSING_CLIENT_CAPABILITY
            | codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// A POST on the stateless wire (2026-07-28): one request, judged by its envelope (split
/// from the text), checked against its routing headers, then typed once. No `Value` is built.
async fn stateless_post<H: Handler>(
    server: &Arc<Server<H>>,
    headers: &Arc<HeaderMap>,
    body: PostBody<'_>,
    principal: Principal,
) -> Response {
    let raw = match &body.raw {
        Ok(raw) => raw,
        // A bad envelope (or a batch): its error, to the id when it names one; nothing for a
        // frame JSON-RPC never answers.
        Err(e) => {
            return match e.reply() {
                Some(reply) => json_error(StatusCode::BAD_REQUEST, reply.id, reply.error, MODERN),
                None => accepted(),
            };
        }
    };
    let (id, method) = match raw.envelope() {
        Envelope::Request { id, method } => (id, method.as_str()),
        // Notifications (e.g. notifications/cancelled on stdio) and responses need no answer
        // here.
        _ => return accepted(),
    };
    let refuse =
        |status: StatusCode, error: ErrorData| json_error(status, Some(id.clone()), error, MODERN);
    // Headers against the body.
    match header_str(headers, &METHOD_HEADER) {
        Some(h) if h == method => {}
        other => {
            return refuse(
                StatusCode::BAD_REQUEST,
                header_mismatch(format!(
                    "Mcp-Method header {:?} does not match the body's {method:?}",
                    other.unwrap_or("(absent)")
                )),
            );
        }
    }
    let facts = mcp_wire::facts::revision(MODERN);
    let defined =
        facts.request(method).is_some() || mcp_wire::wire::ledger::extension_method(method, MODERN);
    if REMOVED_2026.contains(&method) || !defined {
        return refuse(
            StatusCode::NOT_FOUND,
            ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            ),
        );
    }
    let requested = raw.meta_revision();
    let header_version = header_str(headers, &VERSION_HEADER);
    let Some(meta_version) = requested.as_deref().and_then(Value::as_str) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            ErrorData::new(
                codes::INVALID_PARAMS,
                format!("params._meta.{} is required", keys::PROTOCOL_VERSION),
            ),
        );
    };
    if header_version != Some(meta_version) {
        return refuse(
            StatusCode::BAD_REQUEST,
            header_mismatch(format!(
                "MCP-Protocol-Version header {:?} does not match _meta's {meta_version:?}",
                header_version.unwrap_or("(absent)")
            )),
        );
    }
    if meta_version != MODERN.as_str() {
        return refuse(
            StatusCode::BAD_REQUEST,
            unsupported_version(server, requested.as_deref()),
        );
    }
    if let Some(expected) = name_of(method, raw) {
        match header_str(headers, &NAME_HEADER).map(decode_header_value) {
            Some(Some(h)) if h == expected => {}
            _ => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    header_mismatch(format!("Mcp-Name header does not match {expected:?}")),
                );
            }
        }
    }
    let request = match parse_str_as::<ClientRequest>(raw.text(), MODERN) {
        Ok(r) => r,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, parse_error(&e)),
    };
    let id = id.clone();
    let ctx = modern_context(
        server,
        id.clone(),
        &request,
        principal,
        param_headers(headers),
    )
    .with_headers(headers);
    if let ClientRequest::SubscriptionsListen(listen) = request {
        // Boxed: the handler's listen future would make every stateless POST's future its
        // size.
        return match Box::pin(server.handler.listen(&ctx, listen.params.notifications)).await {
            Ok((filter, guard)) => listen_stream(server, id, filter, guard),
            Err(e) => json_error(status_for(MODERN, Some(e.code)), Some(id), e, MODERN),
        };
    }
    let meta = server.server_info_meta();
    answer_request(server, ctx, request, None, Some(meta))
        .await
        .map(|b| b)
}

/// The context of a 2026-07-28 request: identity and capabilities from its `_meta`, no logs
/// unless `_meta` asks for a level.
pub(super) fn modern_context<H: Handler>(
    server: &Arc<Server<H>>,
    id: RequestId,
    request: &ClientRequest,
    principal: Principal,
    param_headers: Vec<(String, String)>,
) -> RequestContext {
    // A member of the wrong shape is as good as absent (the request's own parse judged it).
    let meta = request.meta();
    let field = |key: &str| meta.and_then(|m| m.get(key));
    let client_capabilities: ClientCapabilities = field(keys::CLIENT_CAPABILITIES)
        .and_then(|v| ClientCapabilities::deserialize(v).ok())
        .unwrap_or_default();
    let client_info: Option<Implementation> =
        field(keys::CLIENT_INFO).and_then(|v| Implementation::deserialize(v).ok());
    let log_level = Arc::new(LevelCell::unset());
    if let Some(level) = field(keys::LOG_LEVEL).and_then(|v| LoggingLevel::deserialize(v).ok()) {
        log_level.set(level);
    }
    RequestContext {
        inner: Arc::new(ContextInner {
            revision: MODERN,
            principal,
            client_capabilities: Arc::new(client_capabilities),
            client_info: client_info.map(Arc::new),
            request_id: id,
            method: request.method(),
            progress_token: progress_token(request),
            log_level,
            log_by_default: false,
            outbox: None,
            input: InputMode::Stateless(Arc::new(StatelessInputs::default())),
            notifier: server.shared.notifier.clone(),
            param_headers,
            session_id: None,
            headers: None,
        }),
    }
}

/// `n` tagged with the listen request's id in `params._meta` (2026-07-28 listen streams).
pub(super) fn tag_subscription(n: ServerNotification, id: &Value) -> ServerNotification {
    let mut v = serde_json::to_value(&n).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        let params = obj
            .entry("params")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(params) = params.as_object_mut() {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(keys::SUBSCRIPTION_ID.to_owned(), id.clone());
            }
        }
    }
    serde_json::from_value(v).unwrap_or(n)
}

/// The acknowledgement that opens a listen stream.
pub(super) fn listen_ack(filter: &SubscriptionFilter, id: &Value) -> ServerNotification {
    tag_subscription(
        ServerNotification::SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification::new(
            SubscriptionsAcknowledgedNotificationParams::new(filter.clone()),
        )),
        id,
    )
}

/// `-32022` naming the stateless versions offered and the one requested.
fn unsupported_version<H>(server: &Server<H>, requested: Option<&Value>) -> ErrorData {
    let supported: Vec<&str> = server
        .shared
        .revisions
        .iter()
        .filter(|v| **v == MODERN)
        .map(|v| v.as_str())
        .collect();
    ErrorData::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(
        json!({"supported": supported, "requested": requested.cloned().unwrap_or(Value::Null)}),
    )
}

fn header_mismatch(message: String) -> ErrorData {
    ErrorData::new(codes::HEADER_MISMATCH, message)
}

/// The name a request's `Mcp-Name` header must carry: the params member its method names,
/// when it is a string (each member read alone, objects only).
fn name_of(method: &str, raw: &RawFrame<'_>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named<'a> {
        #[serde(default, borrow)]
        name: Option<&'a RawValue>,
        #[serde(default, borrow)]
        uri: Option<&'a RawValue>,
        #[serde(rename = "taskId", default, borrow)]
        task_id: Option<&'a RawValue>,
    }
    let member = name_member(method)?;
    let params = raw.params_text().filter(|p| p.get().starts_with('{'))?;
    let named = serde_json::from_str::<Named<'_>>(params.get()).ok()?;
    let text = match member {
        NameMember::Name => named.name,
        NameMember::Uri => named.uri,
        NameMember::TaskId => named.task_id,
    };
    serde_json::from_str::<String>(text?.get()).ok()
}

/// The `Mcp-Param-*` headers: (lowercased name after the prefix, raw value).
fn param_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let rest = name.as_str().strip_prefix("mcp-param-")?;
            Some((rest.to_owned(), value.to_str().ok()?.trim().to_owned()))
        })
        .collect()
}

/// A header value, decoded from `=?base64?…?=` when wrapped so; `None` when the wrapper holds
/// invalid base64 or non-UTF-8.
pub(crate) fn decode_header_value(raw: &str) -> Option<String> {
    use base64::Engine;
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(raw.to_owned()),
    }
}

/// `subscriptions/listen`: acknowledge, then deliver the filtered changes until the client
/// closes the stream.
fn listen_stream<H: Handler>(
    server: &Arc<Server<H>>,
    id: RequestId,
    filter: SubscriptionFilter,
    guard: Option<super::handler::ListenGuard>,
) -> Response {
    let limits = server.shared.limits;
    let (sink, body_rx) = mpsc::channel::<Bytes>(limits.stream_queue);
    let mut changes = server.shared.notifier.listen();
    let id_value = serde_json::to_value(&id).unwrap_or(Value::Null);
    let tag = move |n: ServerNotification| tag_subscription(n, &id_value);
    let ack = listen_ack(&filter, &serde_json::to_value(&id).unwrap_or(Value::Null));
    tokio::spawn(async move {
        // Held for as long as the stream lives.
        let _guard = guard;
        let mut writer = EventWriter {
            log: None,
            sink: Some(sink),
            slow: limits.slow_reader_timeout,
        };
        if let Ok(frame) = emit(&JsonRpcNotification::new(ack), MODERN) {
            writer.message(&frame).await;
        }
        let mut keep_alive = tokio::time::interval(limits.keep_alive);
        keep_alive.tick().await;
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) => {
                        if let Some(n) = change_notification(&change, &filter)
                            && let Ok(frame) = emit(&JsonRpcNotification::new(tag(n)), MODERN)
                        {
                            writer.message(&frame).await;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                _ = keep_alive.tick() => {
                    writer.write(|_| Bytes::from_static(b": keep-alive\n\n")).await;
                }
            }
            if writer.gone() {
                break;
            }
        }
    });
    sse_response(body_rx)
}

/// The notification announcing `change`, if `filter` asks for it.
pub(super) fn change_notification(
    change: &Change,
    filter: &SubscriptionFilter,
) -> Option<ServerNotification> {
    use mcp_wire::model::{
        PromptListChangedNotification, ResourceListChangedNotification,
        ResourceUpdatedNotification, ResourceUpdatedNotificationParams,
        ToolListChangedNotification,
    };
    let on = |flag: Option<bool>| flag == Some(true);
    match change {
        Change::StatelessOnly(inner) => change_notification(inner, filter),
        Change::ToolsListChanged if on(filter.tools_list_changed) => Some(
            ServerNotification::ToolListChanged(ToolListChangedNotification::new()),
        ),
        Change::PromptsListChanged if on(filter.prompts_list_changed) => Some(
            ServerNotification::PromptListChanged(PromptListChangedNotification::new()),
        ),
        Change::ResourcesListChanged if on(filter.resources_list_changed) => Some(
            ServerNotification::ResourceListChanged(ResourceListChangedNotification::new()),
        ),
        Change::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|s| s.iter().any(|u| u == uri)) =>
        {
            Some(ServerNotification::ResourceUpdated(
                ResourceUpdatedNotification::new(ResourceUpdatedNotificationParams::new(
                    uri.clone(),
                )),
            ))
        }
        _ => None,
    }
}

/// The handshake-era change notifications a session receives on its standalone stream.
pub(super) fn session_change(change: &Change, session: &Session) -> Option<ServerNotification> {
    if matches!(change, Change::StatelessOnly(_)) {
        return None;
    }
    let mut all = SubscriptionFilter::new();
    all.tools_list_changed = Some(true);
    all.prompts_list_changed = Some(true);
    all.resources_list_changed = Some(true);
    all.resource_subscriptions = match change {
        Change::ResourceUpdated(uri) if session.is_subscribed(uri) => Some(vec![uri.clone()]),
        _ => None,
    };
    change_notification(change, &all)
}

/// GET: the session's standalone SSE stream, or a resumption from `Last-Event-ID`.
async fn get_stream<H: Handler>(
    server: &Arc<Server<H>>,
    headers: &HeaderMap,
    principal: &Principal,
) -> Response {
    if !accepts(headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list text/event-stream",
        );
    }
    let Some(id) = header_str(headers, &SESSION_HEADER) else {
        return if server.shared.revisions.iter().all(|v| *v == MODERN) {
            plain(StatusCode::METHOD_NOT_ALLOWED, "this endpoint is stateless")
        } else {
            plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
        };
    };
    let Some(session) = server.shared.sessions.get_for(id, principal) else {
        return plain(StatusCode::NOT_FOUND, "unknown or ended session");
    };
    let limits = server.shared.limits;
    let (sink, body_rx) = mpsc::channel::<Bytes>(limits.stream_queue);
    if let Some(last) = header_str(headers, &LAST_EVENT_HEADER) {
        let parsed = last
            .split_once('-')
            .and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
        if let Some((stream, seq)) = parsed
            && let Some(log) = session.stream(stream)
        {
            let replay = log.resume(seq, sink.clone());
            tokio::spawn(async move {
                for event in replay {
                    if sink.send(event).await.is_err() {
                        break;
                    }
                }
            });
            return sse_response(body_rx);
        }
    }
    if session
        .standalone_open
        .swap(true, std::sync::atomic::Ordering::AcqRel)
    {
        return plain(
            StatusCode::CONFLICT,
            "the session's standalone stream is already open",
        );
    }
    let log = session.open_stream();
    log.attach(sink.clone());
    let mut changes = server.shared.notifier.listen();
    let server = Arc::downgrade(server);
    tokio::spawn(async move {
        let mut writer = EventWriter {
            log: Some(log.clone()),
            sink: Some(sink.clone()),
            slow: limits.slow_reader_timeout,
        };
        if session.revision == ProtocolVersion::V2025_11_25 {
            writer
                .write(|id| Bytes::from(format!("id: {id}\ndata: \n\n")))
                .await;
        }
        let mut keep_alive = tokio::time::interval(limits.keep_alive);
        keep_alive.tick().await;
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) => {
                        if let Some(n) = session_change(&change, &session)
                            && let Ok(frame) = emit(&JsonRpcNotification::new(n), session.revision)
                        {
                            writer.message(&frame).await;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
                () = session.push_signal.notified() => {
                    for n in session.take_pushed() {
                        if let Ok(frame) = emit(&JsonRpcNotification::new(n), session.revision) {
                            writer.message(&frame).await;
                        }
                    }
                }
                _ = keep_alive.tick() => {
                    if sink.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                        break;
                    }
                }
            }
            let alive = server
                .upgrade()
                .is_some_and(|s| s.shared.sessions.get(&session.id).is_some());
            if sink.is_closed() || !alive {
                break;
            }
        }
        log.finish();
        session
            .standalone_open
            .store(false, std::sync::atomic::Ordering::Release);
    });
    sse_response(body_rx)
}

/// DELETE: ends the session (then its id is 404).
fn delete_session<H: Handler>(
    server: &Arc<Server<H>>,
    headers: &HeaderMap,
    principal: &Principal,
) -> Response {
    let Some(id) = header_str(headers, &SESSION_HEADER) else {
        return if server.shared.revisions.iter().all(|v| *v == MODERN) {
            plain(StatusCode::METHOD_NOT_ALLOWED, "this endpoint is stateless")
        } else {
            plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
        };
    };
    if server.shared.sessions.remove_for(id, principal) {
        plain(StatusCode::OK, "")
    } else {
        plain(StatusCode::NOT_FOUND, "unknown or ended session")
    }
}

pub(super) fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r
}

pub(super) fn accepted() -> Response {
    plain(StatusCode::ACCEPTED, "")
}

fn json_response(status: StatusCode, frame: Frame) -> Response {
    let mut r = Response::new(Body::from(frame.into_bytes()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn json_error(
    status: StatusCode,
    id: Option<RequestId>,
    error: ErrorData,
    revision: ProtocolVersion,
) -> Response {
    json_response(status, error_frame(id, error, revision).0)
}

pub(super) fn sse_response(rx: mpsc::Receiver<Bytes>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<Bytes, std::convert::Infallible>(b), rx))
    });
    let mut r = Response::new(Body::from_stream(stream));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_with_or_without_a_port_in_any_case() {
        let cases = [
            ("localhost", "localhost", true),
            ("localhost", "LocalHost:8080", true),
            ("127.0.0.1", "127.0.0.1:1", true),
            ("localhost", "localhost.evil.example", false),
            ("localhost", "evil.example:80", false),
            ("[::1]", "[::1]:8080", true),
            ("[::1]", "[::1]", true),
            ("[::1]", "[::2]:8080", false),
            ("::1", "[::1]:8080", false),
            ("[::1]", "::1", false),
            ("localhost", "", false),
        ];
        for (allowed, authority, expected) in cases {
            assert_eq!(
                host_is(allowed, authority),
                expected,
                "{allowed} / {authority}"
            );
        }
    }

    #[test]
    fn header_values_decode_from_the_base64_wrapper_only() {
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        // Missing padding and characters outside the alphabet are refused.
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
        assert_eq!(decode_header_value("=?base64?SGVs!!!bG8=?="), None);
    }

    #[test]
    fn stateless_statuses_follow_the_error_code() {
        let m = MODERN;
        let status = |code| status_for(m, Some(code));
        assert_eq!(status(codes::METHOD_NOT_FOUND), StatusCode::NOT_FOUND);
        assert_eq!(status(codes::HEADER_MISMATCH), StatusCode::BAD_REQUEST);
        assert_eq!(
            status(codes::MISSING_CLIENT_CAPABILITY),
            StatusCode::BAD_REQUEST
        );
        // A handler's own invalid-params answer (e.g. an unknown resource) is a 200.
        assert_eq!(status(codes::INVALID_PARAMS), StatusCode::OK);
        let legacy = ProtocolVersion::V2025_11_25;
        assert_eq!(
            status_for(legacy, Some(codes::METHOD_NOT_FOUND)),
            StatusCode::OK
        );
    }

    #[test]
    fn accept_lists_are_read_per_media_type() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(&h, "application/json") && accepts(&h, "text/event-stream"));
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert!(!accepts(&h, "application/json"));
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(accepts(&h, "text/event-stream"));
    }
}
