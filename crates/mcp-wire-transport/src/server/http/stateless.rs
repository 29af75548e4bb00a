//! The stateless wire (2026-07-28): one POST per request, its routing headers checked against
//! the body, `subscriptions/listen` as a long SSE answer.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, StatusCode};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcNotification, RequestId};
use mcp_wire::model::{ClientRequest, ServerNotification, SubscriptionFilter};
use mcp_wire::session::{Envelope, Evidence};
use mcp_wire::wire::{RawFrame, parse_as};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::PostBody;
use super::headers::{header_str, param_headers};
use super::response::{accepted, json_error, sse_response, status_for};
use super::stream::{EventWriter, answer_request};
use crate::routing::decode_header_value;
use crate::routing::{METHOD_HEADER, NAME_HEADER, NameMember, VERSION_HEADER, name_member};
use crate::server::auth::Principal;
use crate::server::context::emit;
use crate::server::error::codes;
use crate::server::handler::keys;
use crate::server::notify::{change_notification, listen_ack, tag_subscription};
use crate::server::runtime::parse_error;
use crate::server::shared::Runtime;
use crate::telemetry::{self, Held, Open, StreamKind, Wire};

/// Methods 2026-07-28 removed (answered 404 with `-32601` on the stateless wire).
const REMOVED_2026: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// A POST on the stateless wire (2026-07-28): one request, judged by its envelope (split
/// from the text), checked against its routing headers, then typed once. No `Value` is built.
pub(super) async fn stateless_post(
    server: &Arc<Runtime>,
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
                Some(reply) => json_error(
                    StatusCode::BAD_REQUEST,
                    reply.id,
                    reply.error,
                    ProtocolVersion::LATEST_STATELESS,
                ),
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
    let refuse = |status: StatusCode, error: ErrorData| {
        telemetry::refused(
            Wire::HttpStateless,
            method,
            ProtocolVersion::LATEST_STATELESS,
            id,
            &principal,
            &error,
        );
        json_error(
            status,
            Some(id.clone()),
            error,
            ProtocolVersion::LATEST_STATELESS,
        )
    };
    // A method 2026-07-28 does not have is answered as such before the headers are judged:
    // they would route a request that does not exist here.
    let facts = mcp_wire::facts::revision(ProtocolVersion::LATEST_STATELESS);
    let defined = facts.request(method).is_some()
        || mcp_wire::wire::ledger::extension_method(method, ProtocolVersion::LATEST_STATELESS);
    if REMOVED_2026.contains(&method) || !defined {
        return refuse(StatusCode::NOT_FOUND, method_not_found(server, method));
    }
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
    if meta_version != ProtocolVersion::LATEST_STATELESS.as_str() {
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
    let request = match parse_as::<ClientRequest>(raw.text(), ProtocolVersion::LATEST_STATELESS) {
        Ok(r) => r,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, parse_error(&e)),
    };
    let id = id.clone();
    let ctx = server
        .stateless_context(id.clone(), &request, principal, param_headers(headers))
        .with_headers(headers);
    if let ClientRequest::SubscriptionsListen(listen) = request {
        // Boxed: the handler's listen future would make every stateless POST's future its
        // size.
        let trace = telemetry::RequestTrace::start(
            Wire::HttpStateless,
            "subscriptions/listen",
            ProtocolVersion::LATEST_STATELESS,
            &id,
            ctx.principal(),
            None,
        );
        let planned = {
            use tracing::Instrument;
            let span = trace.span().clone();
            Box::pin(server.handler.listen(&ctx, listen.params.notifications))
                .instrument(span)
                .await
        };
        return match planned {
            Ok((filter, guard)) => {
                trace.finish(None);
                listen_stream(server, id, filter, guard)
            }
            Err(e) => {
                trace.finish(Some(e.code));
                json_error(
                    status_for(ProtocolVersion::LATEST_STATELESS, Some(e.code)),
                    Some(id),
                    e,
                    ProtocolVersion::LATEST_STATELESS,
                )
            }
        };
    }
    let meta = server.server_info_meta();
    answer_request(server, Wire::HttpStateless, ctx, request, None, Some(meta)).await
}

/// `-32601` for a method 2026-07-28 does not have. `initialize` gets what to do instead: the
/// client declared 2026-07-28, which has no handshake, so the answer names `server/discover`
/// and, when the server offers a handshake revision, `initialize` without that declaration,
/// with every revision offered in `data.supported`. (Serving the handshake anyway would open a
/// session the client's next POST, carrying the same header, is refused on.)
fn method_not_found(server: &Runtime, method: &str) -> ErrorData {
    if method != "initialize" {
        return ErrorData::new(
            codes::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        );
    }
    let offered = &server.shared.revisions;
    let handshake: Vec<&str> = offered
        .iter()
        .filter(|v| **v != ProtocolVersion::LATEST_STATELESS)
        .map(|v| v.as_str())
        .collect();
    let mut message = format!(
        "initialize does not exist at {}, the revision MCP-Protocol-Version declares: send \
         server/discover (with the protocol version in params._meta) to learn this server's \
         versions and capabilities",
        ProtocolVersion::LATEST_STATELESS
    );
    if !handshake.is_empty() {
        message.push_str(&format!(
            ", or send initialize without that header to open a session at {}",
            handshake.join(", ")
        ));
    }
    let supported: Vec<&str> = offered.iter().map(|v| v.as_str()).collect();
    ErrorData::new(codes::METHOD_NOT_FOUND, message).with_data(json!({"supported": supported}))
}

/// `-32022` naming the stateless versions offered and the one requested.
pub(super) fn unsupported_version(server: &Runtime, requested: Option<&Value>) -> ErrorData {
    let supported: Vec<&str> = server
        .shared
        .revisions
        .iter()
        .filter(|v| **v == ProtocolVersion::LATEST_STATELESS)
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

/// `subscriptions/listen`: acknowledge, then deliver the filtered changes until the client
/// closes the stream.
fn listen_stream(
    server: &Arc<Runtime>,
    id: RequestId,
    filter: SubscriptionFilter,
    guard: Option<crate::server::handler::ListenGuard>,
) -> Response {
    let limits = server.shared.limits;
    let (sink, body_rx) = mpsc::channel::<Bytes>(limits.stream_queue);
    let mut changes = server.shared.notifier.listen();
    let id_value = serde_json::to_value(&id).unwrap_or(Value::Null);
    let tag = move |n: ServerNotification| tag_subscription(n, &id_value);
    let ack = listen_ack(&filter, &serde_json::to_value(&id).unwrap_or(Value::Null));
    crate::spawn::spawn(async move {
        // Held for as long as the stream lives.
        let _guard = guard;
        let _subscription = Held::new(Open::ListenSubscription);
        let mut writer = EventWriter::new(None, sink, limits.slow_reader_timeout);
        if let Ok(frame) = emit(
            &JsonRpcNotification::new(ack),
            ProtocolVersion::LATEST_STATELESS,
        ) {
            writer.message(&frame).await;
        }
        let mut keep_alive = tokio::time::interval(limits.keep_alive);
        keep_alive.tick().await;
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) => {
                        if let Some(n) = change_notification(&change, &filter)
                            && let Ok(frame) = emit(&JsonRpcNotification::new(tag(n)), ProtocolVersion::LATEST_STATELESS)
                        {
                            writer.message(&frame).await;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        telemetry::limit_hit("change_backlog");
                    }
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
    sse_response(body_rx, StreamKind::Listen, None)
}
