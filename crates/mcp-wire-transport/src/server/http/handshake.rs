//! The handshake-era wire (2025-03-26 … 2025-11-25): `initialize`, requests on a session,
//! 2025-03-26 batches, the standalone GET stream and its resumption, DELETE.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcMessage, JsonRpcNotification, RawMessage};
use mcp_wire::model::{ClientNotification, ClientRequest};
use mcp_wire::session::Envelope;
use mcp_wire::wire::parse_as;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::headers::{accepts, header_str};
use super::response::{accepted, json_error, json_response, plain, sse_response};
use super::stream::{EventWriter, answer_request};
use super::{PostBody, fallback_revision, store_unavailable};
use crate::Frame;
use crate::routing::{LAST_EVENT_HEADER, SESSION_HEADER, VERSION_HEADER};
use crate::server::auth::Principal;
use crate::server::context::emit;
use crate::server::error::codes;
use crate::server::notify::session_change;
use crate::server::runtime::{envelope_reply, parse_error, request_id};
use crate::server::runtime::{error_frame, response_frame};
use crate::server::session::{Ended, Session, new_session_id};
use crate::server::shared::Runtime;
use crate::telemetry::{self, RequestTrace, StreamKind, Wire};

/// `initialize` without a session: negotiate, mint a session, answer.
pub(super) async fn initialize(
    server: &Arc<Runtime>,
    value: &Value,
    principal: Principal,
) -> Response {
    let legacy: Vec<ProtocolVersion> = server
        .shared
        .revisions
        .iter()
        .copied()
        .filter(|v| *v != ProtocolVersion::LATEST_STATELESS)
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
    let trace = RequestTrace::start(
        Wire::HttpSession,
        "initialize",
        revision,
        &id,
        &principal,
        None,
    );
    let entered = trace.span().clone().entered();
    let refuse = |trace: RequestTrace, status, id, error: ErrorData| {
        trace.finish(Some(error.code));
        json_error(status, Some(id), error, revision)
    };
    let request = match parse_as::<ClientRequest>(&value.to_string(), revision) {
        Ok(ClientRequest::Initialize(r)) => r,
        Ok(_) => {
            let error = ErrorData::new(codes::INVALID_REQUEST, "not an initialize request");
            return refuse(trace, StatusCode::BAD_REQUEST, id, error);
        }
        Err(e) => return refuse(trace, StatusCode::BAD_REQUEST, id, parse_error(&e)),
    };
    if server.shared.sessions.len() >= server.shared.limits.max_sessions {
        telemetry::limit_hit("max_sessions");
        return plain(StatusCode::SERVICE_UNAVAILABLE, "too many sessions");
    }
    let (session, result) =
        match server.open_session(new_session_id(), revision, &request.params, principal) {
            Ok(opened) => opened,
            Err(error) => return refuse(trace, StatusCode::OK, id, error),
        };
    if !server.shared.sessions.insert(session.clone()) {
        session.close(Ended::Refused);
        telemetry::limit_hit("max_sessions");
        return plain(StatusCode::SERVICE_UNAVAILABLE, "too many sessions");
    }
    // Not held across the store's await (an entered span is not `Send`).
    drop(entered);
    let shared = server.share_session(&session).await;
    let _entered = trace.span().clone().entered();
    if let Err(e) = shared {
        server
            .shared
            .sessions
            .remove_for(&session.id, &session.principal);
        let error = ErrorData::new(codes::INTERNAL_ERROR, e.to_string());
        trace.finish(Some(error.code));
        return json_error(StatusCode::SERVICE_UNAVAILABLE, Some(id), error, revision);
    }
    trace.span().record("session", &*session.id);
    let result = mcp_wire::model::ServerResult::Initialize(result);
    let (frame, code) = response_frame(&server.shared, id, Ok(result), revision, None);
    trace.finish(code);
    let mut response = json_response(StatusCode::OK, frame);
    if let Ok(v) = HeaderValue::from_str(&session.id) {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

/// A POST on a handshake-era session.
pub(super) async fn session_post(
    server: &Arc<Runtime>,
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
        // A bad envelope: its error, to the id when it names one; nothing for a frame JSON-RPC
        // never answers.
        Err(e) => {
            return match e.reply() {
                Some(reply) => json_error(StatusCode::BAD_REQUEST, reply.id, reply.error, revision),
                None => accepted(),
            };
        }
    };
    // What the envelope says is read out before the request is answered (a split frame is
    // read in this task only).
    let (id, request) = match raw.envelope() {
        Envelope::Request { id, method } => match parse_as::<ClientRequest>(text, revision) {
            Ok(request) => (id.clone(), request),
            Err(e) => {
                let error = parse_error(&e);
                telemetry::refused(Wire::HttpSession, method, revision, id, &principal, &error);
                return json_error(StatusCode::OK, Some(id.clone()), error, revision);
            }
        },
        Envelope::Notification { .. } => {
            if let Ok(ClientNotification::Cancelled(c)) =
                parse_as::<ClientNotification>(text, revision)
                && let Some(id) = c.params.request_id
                && !session.cancel(&id)
            {
                server.relay_cancel(&session.id, &id).await;
            }
            return accepted();
        }
        Envelope::Response { id } => {
            // The judge checked that `result` is an object.
            let result = raw
                .result_text()
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .unwrap_or_else(|| json!({}));
            deliver(server, &session, id, Ok(result)).await;
            return accepted();
        }
        Envelope::Error { id, .. } => {
            if let (Some(id), Some(error)) = (id, raw.error()) {
                deliver(server, &session, id, Err(error.clone())).await;
            }
            return accepted();
        }
        #[allow(unreachable_patterns)]
        _ => return accepted(),
    };
    drop(raw);
    let ctx = server
        .session_context(&session, id.clone(), &request, principal, None)
        .with_headers(headers);
    answer_request(server, Wire::HttpSession, ctx, request, Some(session), None).await
}

/// The client's answer to server→client request `id`: to the handler waiting here, or to the
/// replica that asked.
async fn deliver(
    server: &Arc<Runtime>,
    session: &Session,
    id: &mcp_wire::jsonrpc::RequestId,
    answer: crate::server::session::ClientAnswer,
) {
    if session.waits_for(id) {
        session.deliver(id, answer);
    } else {
        server.relay_answer(&session.id, id, answer).await;
    }
}

/// A 2025-03-26 batch: each member alone, the answers as one JSON array (202 when none).
async fn batch(
    server: &Arc<Runtime>,
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
                let (frame, _) = match parse_as::<ClientRequest>(&text, revision) {
                    Ok(ClientRequest::Initialize(_)) => error_frame(
                        Some(r.id),
                        ErrorData::new(codes::INVALID_REQUEST, "initialize cannot be batched"),
                        revision,
                    ),
                    Ok(request) => {
                        let ctx = server
                            .session_context(
                                session,
                                r.id.clone(),
                                &request,
                                principal.clone(),
                                None,
                            )
                            .with_headers(headers);
                        server
                            .answer_framed(Wire::HttpSession, ctx, request, None)
                            .await
                    }
                    Err(e) => error_frame(Some(r.id), parse_error(&e), revision),
                };
                answers.push(frame);
            }
            Ok(JsonRpcMessage::Response(r)) => {
                deliver(server, session, &r.id, Ok(Value::Object(r.result))).await;
            }
            Ok(JsonRpcMessage::Error(e)) => {
                if let Some(id) = &e.id {
                    deliver(server, session, id, Err(e.error.clone())).await;
                }
            }
            Ok(_) => {}
            Err(e) => {
                if let Some(reply) = envelope_reply(&text, &e) {
                    answers.push(error_frame(reply.id, reply.error, revision).0);
                }
            }
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

/// GET: the session's standalone SSE stream, or a resumption from `Last-Event-ID`.
pub(super) async fn get_stream(
    server: &Arc<Runtime>,
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
        return if server
            .shared
            .revisions
            .iter()
            .all(|v| *v == ProtocolVersion::LATEST_STATELESS)
        {
            plain(StatusCode::METHOD_NOT_ALLOWED, "this endpoint is stateless")
        } else {
            plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
        };
    };
    let session = match server.find_session(id, principal).await {
        Ok(Some(session)) => session,
        Ok(None) => return plain(StatusCode::NOT_FOUND, "unknown or ended session"),
        Err(e) => return store_unavailable(&e, fallback_revision(server)),
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
            tracing::debug!(
                session = &*session.id,
                stream,
                after = seq,
                replayed = replay.len(),
                "stream resumed"
            );
            crate::spawn::spawn(async move {
                for event in replay {
                    if sink.send(event).await.is_err() {
                        break;
                    }
                }
            });
            return sse_response(body_rx, StreamKind::Resumed, Some(session.id.clone()));
        }
        // A stream this replica does not hold: from its shared log, when there is one.
        if let Some((stream, seq)) = parsed
            && server.follow_shared_log(&session, stream, seq, sink.clone())
        {
            tracing::debug!(
                session = &*session.id,
                stream,
                after = seq,
                "stream resumed from the shared log"
            );
            return sse_response(body_rx, StreamKind::Resumed, Some(session.id.clone()));
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
    let stream_session = Some(session.id.clone());
    crate::spawn::spawn(async move {
        let mut writer =
            EventWriter::new(Some(log.clone()), sink.clone(), limits.slow_reader_timeout);
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
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        telemetry::limit_hit("change_backlog");
                    }
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
    sse_response(body_rx, StreamKind::Standalone, stream_session)
}

/// DELETE: ends the session (then its id is 404).
pub(super) async fn delete_session(
    server: &Arc<Runtime>,
    headers: &HeaderMap,
    principal: &Principal,
) -> Response {
    let Some(id) = header_str(headers, &SESSION_HEADER) else {
        return if server
            .shared
            .revisions
            .iter()
            .all(|v| *v == ProtocolVersion::LATEST_STATELESS)
        {
            plain(StatusCode::METHOD_NOT_ALLOWED, "this endpoint is stateless")
        } else {
            plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
        };
    };
    match server.end_session(id, principal).await {
        Ok(true) => plain(StatusCode::OK, ""),
        Ok(false) => plain(StatusCode::NOT_FOUND, "unknown or ended session"),
        Err(e) => store_unavailable(&e, fallback_revision(server)),
    }
}
