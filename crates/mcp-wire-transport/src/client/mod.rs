//! HTTP client transports, each returning a [`Connection`]:
//!
//! - [`connect_streamable`]: Streamable HTTP on either wire ([`Wire`]): the legacy stateful wire of
//!   2025-03-26 … 2025-11-25 (`Mcp-Session-Id`, `MCP-Protocol-Version`, JSON or SSE answers, the
//!   GET stream, resumption with `Last-Event-ID`, DELETE on close) and the stateless wire of
//!   2026-07-28 (one POST per request with `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; SSE
//!   answers and `subscriptions/listen` streams; closing a request's stream is its cancel).
//! - [`connect_legacy_sse`]: the HTTP+SSE transport of 2024-11-05 (GET for the `endpoint` event,
//!   POST of every message to it).
//!
//! The transports carry frames as they are; they read only the routing facts (ids, method, name)
//! from them. Every request sent gets exactly one answer on the receiver: the server's, or — when
//! the HTTP exchange fails, times out or ends early — an error response made here (-32603 with
//! `data.reason` from the bridge's refusal catalogue: `upstream_unavailable`, `upstream_closed`,
//! `timeout`). Loopback `http://` only: no TLS.

mod auth;
mod http;
mod legacy_sse;
#[cfg(feature = "oauth-client")]
pub mod oauth;
mod param_headers;
mod peek;
mod sse;
mod streamable;

use std::sync::Arc;
use std::time::Duration;

use mcp_wire::wire::RawFrame;

pub use auth::{Authorizer, ChallengeFuture, StaticToken};
pub use legacy_sse::connect_legacy_sse;
pub use param_headers::{ParamHeader, tool_param_headers};
pub use streamable::connect_streamable;

#[cfg(doc)]
use crate::Connection;
use crate::Frame;

/// Sees every frame from the server before the [`Connection`]'s receiver does, with its
/// envelope when it is one valid JSON-RPC message (split once, as the frame was read): a frame
/// the tap takes (`true`) is the tap's, delivered already; any other goes on to the receiver.
/// For a user that routes frames synchronously — the bridge hands an answer to the request
/// waiting for it — this saves the hop through the receiver's queue and the task reading it,
/// and a second read of the frame. Frames reach the tap in the order the receiver would get
/// them.
#[derive(Clone)]
pub struct FrameTap(Arc<TakeFn>);

type TakeFn = dyn Fn(&Frame, Option<&RawFrame<'_>>) -> bool + Send + Sync;

impl FrameTap {
    /// A tap calling `take` with each frame and its split envelope (`None`: not one valid
    /// message); `false` passes the frame on to the receiver.
    pub fn new(
        take: impl Fn(&Frame, Option<&RawFrame<'_>>) -> bool + Send + Sync + 'static,
    ) -> Self {
        Self(Arc::new(take))
    }

    /// Offers `frame` to the tap; whether it took it.
    pub(crate) fn offer(&self, frame: &Frame, raw: Option<&RawFrame<'_>>) -> bool {
        (self.0)(frame, raw)
    }
}

impl std::fmt::Debug for FrameTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FrameTap")
    }
}

/// Which Streamable HTTP wire a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Wire {
    /// 2025-03-26 … 2025-11-25: `initialize` makes a session (`Mcp-Session-Id`), GET opens the
    /// standalone stream, responses can be resumed, DELETE ends the session.
    Stateful,
    /// 2026-07-28: no session; every request is its own POST with header copies of its routing.
    Stateless,
}

/// Settings of the HTTP client transports.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// Frames buffered each way before the sender waits.
    pub queue: usize,
    /// HTTP exchanges in flight at once (POSTs, plus the GET stream); further frames wait.
    pub max_in_flight: usize,
    /// How long to wait for the response head of a POST (a JSON answer: for the whole body).
    pub request_timeout: Duration,
    /// The largest JSON body or SSE event read as one frame.
    pub max_frame_bytes: usize,
    /// Attempts to resume an SSE stream (POST answer or GET stream) that broke before it ended.
    pub resume_attempts: u32,
    /// Stateful wire: open the standalone GET stream after `notifications/initialized`.
    pub open_get_stream: bool,
    /// Stateless wire: the `MCP-Protocol-Version` header when a request's `_meta` names none.
    pub stateless_version: String,
    /// Takes the server's frames ahead of the receiver (none: all go to the receiver).
    pub tap: Option<FrameTap>,
    /// Streamable HTTP: the credentials of every request, and what answers a 401 or 403
    /// (none: requests go without, and a refusal is the answer).
    pub authorizer: Option<AuthorizerSlot>,
}

/// An [`Authorizer`] shared by the exchanges of a connection.
#[derive(Clone)]
pub struct AuthorizerSlot(pub(crate) Arc<dyn Authorizer>);

impl AuthorizerSlot {
    /// Holds `authorizer`.
    pub fn new(authorizer: Arc<dyn Authorizer>) -> Self {
        Self(authorizer)
    }
}

impl std::fmt::Debug for AuthorizerSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Authorizer")
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            queue: 64,
            max_in_flight: 32,
            request_timeout: Duration::from_secs(60),
            max_frame_bytes: 128 << 20,
            resume_attempts: 3,
            open_get_stream: true,
            stateless_version: "2026-07-28".to_owned(),
            tap: None,
            authorizer: None,
        }
    }
}

impl ClientOptions {
    /// Sets [`ClientOptions::request_timeout`].
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`ClientOptions::max_frame_bytes`].
    pub fn max_frame_bytes(mut self, bytes: usize) -> Self {
        self.max_frame_bytes = bytes;
        self
    }

    /// Sets [`ClientOptions::open_get_stream`].
    pub fn open_get_stream(mut self, open: bool) -> Self {
        self.open_get_stream = open;
        self
    }

    /// Sets [`ClientOptions::tap`].
    pub fn tap(mut self, tap: FrameTap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// Sets [`ClientOptions::authorizer`].
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(AuthorizerSlot(authorizer));
        self
    }

    /// Sets [`ClientOptions::max_in_flight`].
    pub fn max_in_flight(mut self, exchanges: usize) -> Self {
        self.max_in_flight = exchanges;
        self
    }
}
