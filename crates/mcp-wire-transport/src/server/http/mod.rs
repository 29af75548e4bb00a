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
//! otherwise. So `initialize` under `MCP-Protocol-Version: 2026-07-28` is a 2026-07-28 request
//! for a method that revision lacks: 404 with `-32601`, whose message says what to do (send
//! `server/discover`, or `initialize` without that header) and whose `data.supported` lists
//! the revisions offered. It is not served as a handshake: the session it opened would refuse
//! the client's next POST, which carries the same header.
//!
//! The files follow that split: [`handshake`] and [`stateless`] are the two wires, [`stream`]
//! answers a request (JSON or SSE) on either, [`legacy_sse`] is the 2024-11-05 HTTP+SSE
//! transport mounted beside them; [`headers`] and [`response`] are what they share.

mod handshake;
mod headers;
mod legacy_sse;
mod response;
mod stateless;
mod stream;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::session::{Envelope, Evidence};
use mcp_wire::wire::{FrameError, RawFrame};
use serde_json::Value;

use crate::Frame;
use crate::routing::{SESSION_HEADER, VERSION_HEADER};
use crate::server::auth::{Principal, ResourceMetadata};
use crate::server::error::codes;
use crate::server::handler::keys;
use crate::server::runtime::request_id;
use crate::server::shared::Runtime;
use crate::telemetry::{self, Transport};
use handshake::{delete_session, get_stream, initialize, session_post};
use headers::{accepts, check_host_origin, header_str};
use response::{json_error, plain, refused};
use stateless::{stateless_post, unsupported_version};

pub(crate) fn router(server: Arc<Runtime>, path: &str) -> axum::Router {
    let mut router = axum::Router::new().route(path, post(handle).get(handle).delete(handle));
    if server
        .shared
        .revisions
        .contains(&ProtocolVersion::V2024_11_05)
    {
        router = legacy_sse::mount(router, "/sse", "/messages");
    }
    if let Some(metadata) = server.shared.authenticator.resource_metadata() {
        router = mount_resource_metadata(router, metadata);
    }
    router.with_state(server)
}

/// Serves `metadata` (RFC 9728) at its well-known paths, to anyone: it is what an
/// unauthenticated client reads to learn where to get a token.
fn mount_resource_metadata<S: Clone + Send + Sync + 'static>(
    mut router: axum::Router<S>,
    metadata: &ResourceMetadata,
) -> axum::Router<S> {
    let body = Bytes::from(serde_json::to_vec(metadata).unwrap_or_default());
    for path in metadata.paths() {
        let body = body.clone();
        router = router.route(
            &path,
            axum::routing::get(move || {
                let body = body.clone();
                async move {
                    let mut r = Response::new(Body::from(body));
                    r.headers_mut().insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    );
                    r
                }
            }),
        );
    }
    router
}

/// One HTTP request to the endpoint.
async fn handle(State(server): State<Arc<Runtime>>, request: Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let shared = &server.shared;
    // Read the body first, even when the request is refused (some clients wait for it).
    let body = match axum::body::to_bytes(body, shared.limits.max_body_bytes).await {
        Ok(b) => b,
        Err(_) => {
            telemetry::limit_hit("max_body_bytes");
            return plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");
        }
    };
    telemetry::bytes_received(Transport::Http, body.len());
    if let Err(response) = check_host_origin(shared, &parts.headers) {
        return response;
    }
    let principal = match shared.authenticator.authenticate(&parts).await {
        Ok(p) => p,
        Err(rejection) => return refused(&rejection),
    };
    // Shared, not copied, with the contexts of the requests it carries.
    let headers = Arc::new(parts.headers);
    match parts.method {
        Method::POST => post_message(&server, &headers, body, principal).await,
        Method::GET => get_stream(&server, &headers, &principal).await,
        Method::DELETE => delete_session(&server, &headers, &principal).await,
        _ => plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed"),
    }
}

/// A POST: one JSON-RPC message (or a 2025-03-26 batch).
async fn post_message(
    server: &Arc<Runtime>,
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
    let offers_stateless = server
        .shared
        .revisions
        .contains(&ProtocolVersion::LATEST_STATELESS);
    let header_version = header_str(headers, &VERSION_HEADER);
    let stateless_marked = header_version == Some(ProtocolVersion::LATEST_STATELESS.as_str())
        || body.names_meta_version();
    let session_id = header_str(headers, &SESSION_HEADER);
    let is_initialize = body.method() == Some("initialize");
    if offers_stateless && stateless_marked {
        return stateless_post(server, headers, body, principal).await;
    }
    if let Some(id) = session_id {
        return match server.find_session(id, &principal).await {
            Ok(Some(session)) => session_post(server, headers, session, body, principal).await,
            Ok(None) => plain(StatusCode::NOT_FOUND, "unknown or ended session"),
            Err(e) => {
                let id = body.value().get("id").cloned().and_then(request_id);
                store_unavailable_for(id, &e, fallback_revision(server))
            }
        };
    }
    if is_initialize
        && server
            .shared
            .revisions
            .iter()
            .any(|v| *v != ProtocolVersion::LATEST_STATELESS)
    {
        return initialize(server, body.value(), principal).await;
    }
    if is_initialize {
        // A 2026-07-28-only endpoint: say which versions it speaks.
        let value = body.value();
        let id = value.get("id").cloned().and_then(request_id);
        return json_error(
            StatusCode::BAD_REQUEST,
            id,
            unsupported_version(server, value.pointer("/params/protocolVersion")),
            ProtocolVersion::LATEST_STATELESS,
        );
    }
    if offers_stateless {
        return stateless_post(server, headers, body, principal).await;
    }
    plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id")
}

/// A POST's JSON: the envelope split from its text (all a request on a session needs: the
/// hot path reads the body once more, typed), its `Value` built only for the paths that read
/// one (the stateless wire, `initialize`, batches, frames whose envelope does not split).
pub(super) struct PostBody<'a> {
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

/// 503 with `-32603` naming why the shared store failed: a request that needs it is refused
/// at once, never held.
pub(super) fn store_unavailable(
    e: &crate::server::store::StoreError,
    revision: ProtocolVersion,
) -> Response {
    store_unavailable_for(None, e, revision)
}

fn store_unavailable_for(
    id: Option<mcp_wire::jsonrpc::RequestId>,
    e: &crate::server::store::StoreError,
    revision: ProtocolVersion,
) -> Response {
    json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        ErrorData::new(codes::INTERNAL_ERROR, e.to_string()),
        revision,
    )
}

/// The revision used to frame errors that precede any negotiation.
pub(super) fn fallback_revision(server: &Runtime) -> ProtocolVersion {
    server
        .shared
        .revisions
        .iter()
        .rev()
        .find(|v| **v != ProtocolVersion::LATEST_STATELESS)
        .copied()
        .unwrap_or(ProtocolVersion::LATEST_STATELESS)
}
