//! What a running server tells its operator: `tracing` spans and events, and (feature
//! `metrics`) counters, gauges and histograms through the `metrics` facade.
//!
//! The library records; it never installs a subscriber or a recorder. A binary does:
//! `install_log_subscriber` (feature `cli`) for logs on stderr, `MetricsEndpoint` (feature
//! `metrics`) for `/metrics` in Prometheus text format. Without a subscriber every span and
//! event costs a branch; without the `metrics` feature every recording site compiles to
//! nothing.
//!
//! # Spans and events
//!
//! Every request a server answers runs in a `mcp.request` span (level `debug`) with `method`,
//! `revision`, `wire` (`stdio`, `http-session`, `http-stateless`, `http-sse`), `session` (when
//! there is one), `principal` (the identity the authentication hook gave, `Principal::key`), `id` (the JSON-RPC id), and,
//! once answered, `outcome` (`result` or `error`), `code` (the JSON-RPC error code) and
//! `duration_us`; its last event is `answered`. Levels: `debug` for what every request or
//! session does (sessions opened, closed and expired; streams opened, resumed and closed;
//! refusals at the boundary), `info` for authentication failures, `warn` for a bound of
//! [`Limits`](crate::server::Limits) reached and for a result the client's revision cannot
//! carry, `error` for a handler that panicked. At `info` a server in normal operation is quiet.
//!
//! No span or event carries a secret: not the `Authorization` header or any token, not
//! `requestState`, not a cursor, not `_meta` (identity included), not a parse error's message
//! (which may quote the input); a refusal names its kind, its JSON Pointer and the type read.
//!
//! # Metrics
//!
//! [`METRICS`] is the table: each name, kind, labels and meaning. Gauges are held by the values
//! they count (a session, a stream's body, a subscription, a task, a pending request to the
//! client) and given back when those end, so they cannot drift.

use std::time::{Duration, Instant};

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, RequestId};

use crate::server::auth::Principal;

/// What kind of metric a row of [`METRICS`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Only goes up.
    Counter,
    /// Goes up and down: how many are open now.
    Gauge,
    /// A distribution (Prometheus buckets).
    Histogram,
}

/// One metric the runtime records.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// The Prometheus name.
    pub name: &'static str,
    /// Counter, gauge or histogram.
    pub kind: MetricKind,
    /// Its labels.
    pub labels: &'static [&'static str],
    /// What it counts (the Prometheus `HELP` line).
    pub help: &'static str,
}

/// `mcp_requests_total`.
pub const REQUESTS: &str = "mcp_requests_total";
/// `mcp_request_duration_seconds`.
pub const REQUEST_DURATION: &str = "mcp_request_duration_seconds";
/// `mcp_sessions_open`.
pub const SESSIONS_OPEN: &str = "mcp_sessions_open";
/// `mcp_streams_open`.
pub const STREAMS_OPEN: &str = "mcp_streams_open";
/// `mcp_subscriptions_open`.
pub const SUBSCRIPTIONS_OPEN: &str = "mcp_subscriptions_open";
/// `mcp_tasks_open`.
pub const TASKS_OPEN: &str = "mcp_tasks_open";
/// `mcp_pending_client_requests`.
pub const PENDING_CLIENT_REQUESTS: &str = "mcp_pending_client_requests";
/// `mcp_bytes_received_total`.
pub const BYTES_RECEIVED: &str = "mcp_bytes_received_total";
/// `mcp_bytes_sent_total`.
pub const BYTES_SENT: &str = "mcp_bytes_sent_total";
/// `mcp_auth_failures_total`.
pub const AUTH_FAILURES: &str = "mcp_auth_failures_total";
/// `mcp_limit_hits_total`.
pub const LIMIT_HITS: &str = "mcp_limit_hits_total";
/// `mcp_bridge_refusals_total`.
pub const BRIDGE_REFUSALS: &str = "mcp_bridge_refusals_total";

/// Every metric the runtime (and a bridge on it) records.
pub const METRICS: [Metric; 12] = [
    Metric {
        name: REQUESTS,
        kind: MetricKind::Counter,
        labels: &["method", "revision", "outcome"],
        help: "Requests answered, by method, revision and outcome (`result`, or the JSON-RPC error code).",
    },
    Metric {
        name: REQUEST_DURATION,
        kind: MetricKind::Histogram,
        labels: &["method", "revision"],
        help: "Seconds from a request's arrival to its answer's framing.",
    },
    Metric {
        name: SESSIONS_OPEN,
        kind: MetricKind::Gauge,
        labels: &[],
        help: "Handshake-era sessions open (HTTP, stdio, HTTP+SSE).",
    },
    Metric {
        name: STREAMS_OPEN,
        kind: MetricKind::Gauge,
        labels: &["kind"],
        help: "SSE response bodies open, by kind (request, standalone, resumed, listen, http-sse).",
    },
    Metric {
        name: SUBSCRIPTIONS_OPEN,
        kind: MetricKind::Gauge,
        labels: &["kind"],
        help: "Resource subscriptions of sessions (kind resource) and subscriptions/listen streams (kind listen).",
    },
    Metric {
        name: TASKS_OPEN,
        kind: MetricKind::Gauge,
        labels: &[],
        help: "Tasks the server keeps, running or finished, until their TTL.",
    },
    Metric {
        name: PENDING_CLIENT_REQUESTS,
        kind: MetricKind::Gauge,
        labels: &[],
        help: "Server-to-client requests waiting for the client's answer.",
    },
    Metric {
        name: BYTES_RECEIVED,
        kind: MetricKind::Counter,
        labels: &["transport"],
        help: "Bytes of frames received, by transport (http, stdio).",
    },
    Metric {
        name: BYTES_SENT,
        kind: MetricKind::Counter,
        labels: &["transport"],
        help: "Bytes of frames and SSE events sent, by transport (http, stdio).",
    },
    Metric {
        name: AUTH_FAILURES,
        kind: MetricKind::Counter,
        labels: &[],
        help: "Requests the authentication hook refused.",
    },
    Metric {
        name: LIMIT_HITS,
        kind: MetricKind::Counter,
        labels: &["limit"],
        help: "Times a bound was reached, by the Limits field that bounds it.",
    },
    Metric {
        name: BRIDGE_REFUSALS,
        kind: MetricKind::Counter,
        labels: &["reason"],
        help: "Errors a bridge made itself, by data.reason.",
    },
];

/// The upper bounds, in seconds, of the request-duration histogram's buckets.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0,
];

/// How a request reached the server: the `wire` field of its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// A frame connection (stdio), either era.
    Stdio,
    /// Streamable HTTP, handshake era (`Mcp-Session-Id`).
    HttpSession,
    /// Streamable HTTP, 2026-07-28 (one POST per request).
    HttpStateless,
    /// 2024-11-05 HTTP+SSE.
    HttpSse,
}

impl Wire {
    fn as_str(self) -> &'static str {
        match self {
            Wire::Stdio => "stdio",
            Wire::HttpSession => "http-session",
            Wire::HttpStateless => "http-stateless",
            Wire::HttpSse => "http-sse",
        }
    }
}

/// The method label of a request: the method's own name when the crate knows it, `other`
/// otherwise (a label never takes a peer's arbitrary text).
pub(crate) fn method_label(method: &str) -> &'static str {
    mcp_wire::model::method_info(method).map_or("other", |m| m.method)
}

/// One request, from its arrival to its answer: its span, and what its metrics need.
pub(crate) struct RequestTrace {
    span: tracing::Span,
    started: Instant,
    method: &'static str,
    revision: ProtocolVersion,
}

impl RequestTrace {
    /// Starts the trace of request `id` (the span is created only when a subscriber wants it).
    pub(crate) fn start(
        wire: Wire,
        method: &'static str,
        revision: ProtocolVersion,
        id: &RequestId,
        principal: &Principal,
        session: Option<&str>,
    ) -> Self {
        let span = tracing::debug_span!(
            "mcp.request",
            method,
            revision = revision.as_str(),
            wire = wire.as_str(),
            session,
            principal = &**principal.key(),
            id = %id,
            outcome = tracing::field::Empty,
            code = tracing::field::Empty,
            duration_us = tracing::field::Empty,
        );
        RequestTrace {
            span,
            started: Instant::now(),
            method,
            revision,
        }
    }

    /// The request's span (what its handler runs in).
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// The request was answered: with a result (`code` `None`) or an error.
    pub(crate) fn finish(self, code: Option<i64>) {
        let elapsed = self.started.elapsed();
        record_request(self.method, self.revision, code, elapsed);
        if self.span.is_disabled() {
            return;
        }
        self.span
            .record("outcome", if code.is_some() { "error" } else { "result" });
        if let Some(code) = code {
            self.span.record("code", code);
        }
        self.span.record(
            "duration_us",
            u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
        );
        tracing::debug!(parent: &self.span, "answered");
    }
}

/// A request answered with `error` before any handler saw it (a header that does not match,
/// a method the revision lacks, a body that does not read): its span and metrics at once.
pub(crate) fn refused(
    wire: Wire,
    method: &str,
    revision: ProtocolVersion,
    id: &RequestId,
    principal: &Principal,
    error: &ErrorData,
) {
    let trace = RequestTrace::start(wire, method_label(method), revision, id, principal, None);
    trace.finish(Some(error.code));
}

/// A frame the boundary refused to read at `e.version`: its kind, where, and the type asked
/// for (never the message, which may quote the input).
pub(crate) fn boundary_refused(e: &mcp_wire::wire::ParseError) {
    tracing::debug!(
        kind = ?e.kind,
        pointer = %e.path.pointer(),
        type_name = e.type_name,
        revision = %e.version,
        code = e.code(),
        "refused at the boundary"
    );
}

/// A result the request's revision cannot carry (the ledger's row says why): answered
/// `-32603`.
pub(crate) fn emission_refused(e: &mcp_wire::wire::EmitError) {
    tracing::warn!(
        kind = ?e.kind,
        pointer = %e.path.pointer(),
        revision = e.version.as_str(),
        cause = e.cause.map(|c| c.to_string()),
        "a result has no form at the request's revision"
    );
}

/// The authentication hook refused a request (`challenge` is the `WWW-Authenticate` value the
/// client gets; the presented credentials are never logged).
pub(crate) fn auth_failed(status: u16, challenge: Option<&str>) {
    #[cfg(feature = "metrics")]
    metrics::counter!(AUTH_FAILURES).increment(1);
    tracing::info!(status, challenge, "authentication failed");
}

/// A bound of the server's [`Limits`](crate::server::Limits) was reached: `limit` names the
/// field.
pub(crate) fn limit_hit(limit: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!(LIMIT_HITS, "limit" => limit).increment(1);
    tracing::warn!(limit, "limit reached");
}

/// A bridge (or any proxy on this runtime) answered an error of its own making, `reason`
/// being its `data.reason`: counted in `mcp_bridge_refusals_total`.
pub fn bridge_refusal(reason: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!(BRIDGE_REFUSALS, "reason" => reason).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
}

/// Which transport bytes travelled on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Transport {
    Http,
    Stdio,
}

/// `n` bytes of frames received.
pub(crate) fn bytes_received(transport: Transport, n: usize) {
    #[cfg(feature = "metrics")]
    match transport {
        Transport::Http => metrics::counter!(BYTES_RECEIVED, "transport" => "http"),
        Transport::Stdio => metrics::counter!(BYTES_RECEIVED, "transport" => "stdio"),
    }
    .increment(n as u64);
    #[cfg(not(feature = "metrics"))]
    let _ = (transport, n);
}

/// `n` bytes of frames (or SSE events) sent.
pub(crate) fn bytes_sent(transport: Transport, n: usize) {
    #[cfg(feature = "metrics")]
    match transport {
        Transport::Http => metrics::counter!(BYTES_SENT, "transport" => "http"),
        Transport::Stdio => metrics::counter!(BYTES_SENT, "transport" => "stdio"),
    }
    .increment(n as u64);
    #[cfg(not(feature = "metrics"))]
    let _ = (transport, n);
}

#[cfg(feature = "metrics")]
fn record_request(
    method: &'static str,
    revision: ProtocolVersion,
    code: Option<i64>,
    elapsed: Duration,
) {
    let outcome: metrics::SharedString = match code {
        None => "result".into(),
        Some(code) => code.to_string().into(),
    };
    let revision = revision.as_str();
    metrics::counter!(REQUESTS, "method" => method, "revision" => revision, "outcome" => outcome)
        .increment(1);
    metrics::histogram!(REQUEST_DURATION, "method" => method, "revision" => revision)
        .record(elapsed.as_secs_f64());
}

#[cfg(not(feature = "metrics"))]
fn record_request(_: &'static str, _: ProtocolVersion, _: Option<i64>, _: Duration) {}

/// What a [`Held`] gauge counts.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) enum Open {
    Session,
    Stream(StreamKind),
    ResourceSubscription,
    ListenSubscription,
    Task,
    PendingClientRequest,
}

/// The kinds of SSE stream (the `kind` label of `mcp_streams_open`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamKind {
    /// A request's answer as a stream.
    Request,
    /// A session's standalone GET stream.
    Standalone,
    /// A stream resumed from `Last-Event-ID`.
    Resumed,
    /// A 2026-07-28 `subscriptions/listen` answer.
    Listen,
    /// A 2024-11-05 HTTP+SSE connection.
    HttpSse,
}

impl StreamKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StreamKind::Request => "request",
            StreamKind::Standalone => "standalone",
            StreamKind::Resumed => "resumed",
            StreamKind::Listen => "listen",
            StreamKind::HttpSse => "http-sse",
        }
    }
}

/// One unit of an `…_open` gauge, held by what it counts: added when made, given back when
/// dropped.
pub(crate) struct Held {
    #[cfg(feature = "metrics")]
    gauge: metrics::Gauge,
}

impl Held {
    pub(crate) fn new(what: Open) -> Self {
        #[cfg(feature = "metrics")]
        {
            let gauge = match what {
                Open::Session => metrics::gauge!(SESSIONS_OPEN),
                Open::Stream(kind) => metrics::gauge!(STREAMS_OPEN, "kind" => kind.as_str()),
                Open::ResourceSubscription => {
                    metrics::gauge!(SUBSCRIPTIONS_OPEN, "kind" => "resource")
                }
                Open::ListenSubscription => metrics::gauge!(SUBSCRIPTIONS_OPEN, "kind" => "listen"),
                Open::Task => metrics::gauge!(TASKS_OPEN),
                Open::PendingClientRequest => metrics::gauge!(PENDING_CLIENT_REQUESTS),
            };
            gauge.increment(1.0);
            Held { gauge }
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = what;
            Held {}
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        #[cfg(feature = "metrics")]
        self.gauge.decrement(1.0);
    }
}

/// An SSE body's life: its stream gauge, and its `stream opened` / `stream closed` events.
pub(crate) struct StreamLife {
    kind: StreamKind,
    session: Option<std::sync::Arc<str>>,
    _held: Held,
}

impl StreamLife {
    pub(crate) fn open(kind: StreamKind, session: Option<std::sync::Arc<str>>) -> Self {
        tracing::debug!(
            kind = kind.as_str(),
            session = session.as_deref(),
            "stream opened"
        );
        StreamLife {
            kind,
            session,
            _held: Held::new(Open::Stream(kind)),
        }
    }
}

impl Drop for StreamLife {
    fn drop(&mut self) {
        tracing::debug!(
            kind = self.kind.as_str(),
            session = self.session.as_deref(),
            "stream closed"
        );
    }
}

#[cfg(feature = "metrics")]
pub use endpoint::MetricsEndpoint;

#[cfg(feature = "metrics")]
mod endpoint;

/// How a binary writes its logs.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One line of text per event.
    #[default]
    Text,
    /// One JSON object per event (its span's fields under `span`).
    Json,
}

#[cfg(feature = "cli")]
impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("--log-format is text or json, found {other:?}")),
        }
    }
}

/// Installs the process's log subscriber: events at the levels `RUST_LOG` selects (`info`
/// when unset; directives `target=level`, comma-separated, as in `info,mcp_wire_transport=debug`)
/// written to stderr — stdout stays free for the protocol on stdio. For binaries; a library
/// never calls it. Fails on a `RUST_LOG` that does not parse or when a subscriber is already
/// installed.
#[cfg(feature = "cli")]
pub fn install_log_subscriber(format: LogFormat) -> Result<(), String> {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;

    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => directives
            .parse::<Targets>()
            .map_err(|e| format!("RUST_LOG: {e}"))?,
        _ => Targets::new().with_default(tracing::Level::INFO),
    };
    let registry = tracing_subscriber::registry().with(filter);
    let installed = match format {
        LogFormat::Text => tracing::subscriber::set_global_default(
            registry.with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr)),
        ),
        LogFormat::Json => tracing::subscriber::set_global_default(
            registry.with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_current_span(true)
                    .with_span_list(false)
                    .with_writer(std::io::stderr),
            ),
        ),
    };
    installed.map_err(|e| e.to_string())
}
