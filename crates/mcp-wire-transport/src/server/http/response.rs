//! Responses: plain statuses, JSON-RPC answers as JSON, SSE bodies.

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use tokio::sync::mpsc;

use crate::Frame;
use crate::server::auth::AuthRejection;
use crate::server::error::codes;
use crate::server::runtime::error_frame;
use crate::telemetry::{self, StreamKind, StreamLife, Transport};

/// HTTP status of an answer: at 2026-07-28 the codes the spec ties to a status.
pub(super) fn status_for(revision: ProtocolVersion, code: Option<i64>) -> StatusCode {
    if revision != ProtocolVersion::LATEST_STATELESS {
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

pub(super) fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r
}

/// The answer to a request the authentication hook refused: its status and challenge.
pub(super) fn refused(rejection: &AuthRejection) -> Response {
    telemetry::auth_failed(rejection.status.as_u16(), rejection.challenge.as_deref());
    let text = rejection.status.canonical_reason().unwrap_or("refused");
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = rejection.status;
    if let Some(v) = rejection
        .challenge
        .as_deref()
        .and_then(|c| HeaderValue::from_str(c).ok())
    {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

pub(super) fn accepted() -> Response {
    plain(StatusCode::ACCEPTED, "")
}

pub(super) fn json_response(status: StatusCode, frame: Frame) -> Response {
    telemetry::bytes_sent(Transport::Http, frame.as_bytes().len());
    let mut r = Response::new(Body::from(frame.into_bytes()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(super) fn json_error(
    status: StatusCode,
    id: Option<RequestId>,
    error: ErrorData,
    revision: ProtocolVersion,
) -> Response {
    json_response(status, error_frame(id, error, revision).0)
}

/// An SSE response whose events come from `rx`. The body holds the stream's [`StreamLife`]
/// (its gauge and its opened/closed events) for as long as the client keeps it.
pub(super) fn sse_response(
    rx: mpsc::Receiver<Bytes>,
    kind: StreamKind,
    session: Option<std::sync::Arc<str>>,
) -> Response {
    let life = StreamLife::open(kind, session);
    let stream = futures_util::stream::unfold((rx, life), |(mut rx, life)| async move {
        let event = rx.recv().await?;
        telemetry::bytes_sent(Transport::Http, event.len());
        Some((Ok::<Bytes, std::convert::Infallible>(event), (rx, life)))
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
    fn stateless_statuses_follow_the_error_code() {
        let m = ProtocolVersion::LATEST_STATELESS;
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
}
