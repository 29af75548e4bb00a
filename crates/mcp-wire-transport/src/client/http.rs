//! What the HTTP client transports share: the hyper client, bounded body and SSE reading, and the
//! error answers made for requests the server could not answer.

use std::borrow::Cow;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcError, RequestId, codes};
use mcp_wire::session::Envelope;
use mcp_wire::wire::RawFrame;
use serde_json::json;

use super::peek::{ResultPeek, messages};
use super::sse::{SseEvent, SseParser};
use crate::{Frame, TransportError};

/// The hyper client every HTTP transport uses (HTTP/1.1, pooled connections).
pub(crate) type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// A new client.
pub(crate) fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_connect_timeout(Some(Duration::from_secs(10)));
    Client::builder(TokioExecutor::new()).build(connector)
}

/// Parses an `http://` URL (the transports speak plain HTTP to loopback peers).
pub(crate) fn parse_url(url: &str) -> Result<Uri, TransportError> {
    let uri: Uri = url.parse().map_err(|e| {
        TransportError::protocol(codes::INVALID_PARAMS, format!("bad URL {url:?}: {e}"))
    })?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        return Err(TransportError::protocol(
            codes::INVALID_PARAMS,
            format!("expected an http:// URL with a host, found {url:?} (no TLS support)"),
        ));
    }
    Ok(uri)
}

/// Sends `request`, waiting at most `timeout` for the response head.
pub(crate) async fn send(
    client: &HttpClient,
    request: Request<Full<Bytes>>,
    timeout: Duration,
) -> Result<Response<Incoming>, TransportError> {
    match tokio::time::timeout(timeout, client.request(request)).await {
        Ok(Ok(response)) => Ok(response),
        Ok(Err(e)) => Err(TransportError::Io(std::io::Error::other(e))),
        Err(_) => Err(TransportError::Timeout(timeout)),
    }
}

/// What a response's body is, as far as the clients read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Media {
    /// `application/json`: one JSON-RPC message (or a batch).
    Json,
    /// `text/event-stream`: SSE events.
    EventStream,
    /// Anything else, or no `Content-Type`.
    Other,
}

/// The media type of a response (its `Content-Type` without parameters, any case).
pub(crate) fn media_type(headers: &HeaderMap) -> Media {
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .unwrap_or_default();
    if essence.eq_ignore_ascii_case("application/json") {
        Media::Json
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        Media::EventStream
    } else {
        Media::Other
    }
}

/// Reads a whole body of at most `max` bytes.
pub(crate) async fn read_body(mut body: Incoming, max: usize) -> Result<Bytes, TransportError> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| TransportError::Io(std::io::Error::other(e)))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > max {
                return Err(TransportError::FrameTooLarge {
                    size: out.len() + data.len(),
                    limit: max,
                });
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(out))
}

/// Hands a frame from the server to the user: to `tap` first when there is one, then, unless
/// the tap took it, to `incoming`. `raw` is the frame's envelope when the caller split it
/// ([`Frame::parse_split`]); otherwise it is split here for the tap. `false` once the receiver
/// is gone.
pub(crate) async fn hand(
    incoming: &tokio::sync::mpsc::Sender<Frame>,
    tap: Option<&super::FrameTap>,
    frame: Frame,
) -> bool {
    if let Some(tap) = tap {
        let raw = RawFrame::split(frame.as_str()).ok();
        if tap.offer(&frame, raw.as_ref()) {
            return true;
        }
    }
    incoming.send(frame).await.is_ok()
}

/// Reads `bytes` from the server as one frame ([`Frame::parse_split`]), lets `note` see it
/// (with its envelope when split) and hands it to the user as [`hand`] does, the tap getting
/// the same split. `Ok(false)` once the receiver is gone; bytes that are not one JSON value are
/// the error (nothing is handed on).
pub(crate) async fn hand_bytes(
    incoming: &tokio::sync::mpsc::Sender<Frame>,
    tap: Option<&super::FrameTap>,
    bytes: Bytes,
    note: impl FnOnce(&Frame, Option<&RawFrame<'_>>),
) -> Result<bool, TransportError> {
    let (frame, taken) = Frame::parse_split(bytes, |frame, raw| {
        note(frame, raw);
        tap.is_some_and(|tap| tap.offer(frame, raw))
    })?;
    if taken {
        return Ok(true);
    }
    Ok(incoming.send(frame).await.is_ok())
}

/// Calls `on` with the id of each response in a frame from the server — found from its
/// envelope when it was split, by peeking when it is not one valid message (a batch) — and a
/// reader of the `protocolVersion` its result names (an `initialize` answer's), read only when
/// called.
pub(crate) fn each_answer(
    frame: &Frame,
    raw: Option<&RawFrame<'_>>,
    mut on: impl FnMut(&RequestId, &dyn Fn() -> Option<String>),
) {
    match raw {
        Some(raw) => {
            let id = match raw.envelope() {
                Envelope::Response { id } | Envelope::Error { id: Some(id), .. } => id,
                _ => return,
            };
            on(id, &|| {
                let result = raw.result_text()?;
                let peek = serde_json::from_str::<ResultPeek<'_>>(result.get()).ok()?;
                peek.protocol_version.map(Cow::into_owned)
            });
        }
        None => {
            for peek in messages(frame) {
                if let Some(id) = peek.response_id() {
                    on(id, &|| {
                        let result = peek.result.as_ref()?;
                        result.protocol_version.as_deref().map(str::to_owned)
                    });
                }
            }
        }
    }
}

/// An SSE response body, read event by event.
pub(crate) struct SseBody {
    body: Incoming,
    parser: SseParser,
    ready: std::collections::VecDeque<SseEvent>,
}

impl SseBody {
    /// Reads `body` as SSE, refusing events over `max` bytes.
    pub fn new(body: Incoming, max: usize) -> Self {
        Self {
            body,
            parser: SseParser::new(max),
            ready: Default::default(),
        }
    }

    /// The next event; `None` when the stream ended.
    pub async fn next(&mut self) -> Result<Option<SseEvent>, TransportError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            let Some(frame) = self.body.frame().await else {
                return Ok(None);
            };
            let frame = frame.map_err(|e| TransportError::Io(std::io::Error::other(e)))?;
            if let Ok(data) = frame.into_data() {
                let mut events = Vec::new();
                self.parser.feed(&data, &mut events)?;
                self.ready.extend(events);
            }
        }
    }
}

/// Why the transport answered a request itself (the refusal catalogue's `data.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// The server could not be reached or answered with an unusable status.
    Unavailable,
    /// The server's stream ended before the answer, and could not be resumed.
    Closed,
    /// No answer within the configured time.
    Timeout,
}

impl Reason {
    fn as_str(self) -> &'static str {
        match self {
            Reason::Unavailable => "upstream_unavailable",
            Reason::Closed => "upstream_closed",
            Reason::Timeout => "timeout",
        }
    }

    /// The reason an error of an HTTP exchange gives.
    pub fn of(error: &TransportError) -> Self {
        match error {
            TransportError::Timeout(_) => Reason::Timeout,
            TransportError::PeerClosed => Reason::Closed,
            _ => Reason::Unavailable,
        }
    }
}

/// The error answer to request `id`, made by the transport: -32603 with `data.reason` and, when
/// there was one, the HTTP status.
pub(crate) fn error_answer(
    id: RequestId,
    reason: Reason,
    message: impl Into<String>,
    status: Option<StatusCode>,
    revision: ProtocolVersion,
) -> Frame {
    let mut data = json!({ "reason": reason.as_str() });
    if let Some(status) = status {
        data["httpStatus"] = json!(status.as_u16());
    }
    let body = JsonRpcError::new(
        Some(id),
        ErrorData::new(codes::INTERNAL_ERROR, message).with_data(data),
    );
    let mut buf = Vec::with_capacity(160);
    match mcp_wire::wire::serialize_for_vec(&body, revision, &mut buf) {
        Ok(()) => Frame::from_emitted(buf),
        // An error envelope is expressible at every revision; keep a fixed answer just in case.
        Err(_) => Frame::from_emitted(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"transport error"}}"#
                .to_vec(),
        ),
    }
}

/// A short description of a failed HTTP exchange: its status and the start of its body.
pub(crate) fn status_message(status: StatusCode, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(300)]);
    format!("HTTP {status}: {}", text.trim())
}
