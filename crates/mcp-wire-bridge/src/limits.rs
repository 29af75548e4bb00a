//! Every bound the bridge keeps, as one table of data ([`BridgeLimits`]), and the refusal catalogue
//! ([`Reason`]): the `data.reason` of each error the bridge itself makes.

use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire_transport::stdio::Skipped;
use serde_json::{Value, json};

/// The bridge's bounds: every piece of state it keeps, and every wait, is limited by one of
/// these.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct BridgeLimits {
    /// How long one upstream leg may take before it is cancelled and answered `timeout`.
    pub request_timeout: Duration,
    /// How long the upstream era probe (`server/discover`) may take.
    pub probe_timeout: Duration,
    /// How long the upstream `initialize` may take.
    pub initialize_timeout: Duration,
    /// Upstream requests in flight at once (further ones are refused `limit_exceeded`).
    pub max_pending: usize,
    /// Events (progress, logs, input requests) queued per leg before progress is dropped.
    pub leg_queue: usize,
    /// Direction A: input-required rounds per request (`mrtr_rounds_exceeded` beyond).
    pub max_input_rounds: usize,
    /// Direction A: input requests per round (`input_request_untranslatable` beyond).
    pub max_inputs_per_round: usize,
    /// Direction A: the first backoff of a `requestState`-only round (doubling each time).
    pub state_only_backoff: Duration,
    /// The longest stdio line or HTTP body read as one frame.
    pub max_frame_bytes: usize,
    /// How long the bridge waits, once the upstream is gone, for the failed answers to reach
    /// the client before it ends.
    pub drain_grace: Duration,
    /// Direction B: legacy sessions kept at once, one per distinct principal and identity
    /// (the least recently used idle one is closed for a new one; `limit_exceeded` when none
    /// is idle).
    pub max_handshake_sessions: usize,
    /// Direction B: how long an unused legacy session stays open.
    pub handshake_session_idle: Duration,
    /// Direction B: calls parked waiting for the client's input (`limit_exceeded` beyond).
    pub max_parked: usize,
    /// Direction B: how long a parked call waits for the client's retry.
    pub park_ttl: Duration,
    /// Direction B: how long after a legacy server's input request the bridge waits for more
    /// before it answers the call with an `InputRequiredResult` (one round for requests sent
    /// together).
    pub input_gather: Duration,
    /// Direction B: tasks (the tasks extension) kept at once; expired ones go first, then the
    /// oldest finished one; a store full of running tasks refuses a new one `limit_exceeded`.
    pub max_tasks: usize,
    /// Direction B: how long a task is kept after its creation (its `ttlMs`); a task still
    /// running then is cancelled upstream.
    pub task_ttl: Duration,
    /// Direction B: the polling interval a task suggests (`pollIntervalMs`).
    pub task_poll_interval: Duration,
    /// Direction B, opt-in: a declaring client's `tools/call` that the legacy server has not
    /// answered after this long becomes a task the bridge hosts (the call goes on upstream
    /// as it is; its later questions are the task's input requests). `None` (the default):
    /// only calls the server runs as core tasks become tasks.
    pub host_tasks_after: Option<Duration>,
}

impl Default for BridgeLimits {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(60),
            probe_timeout: Duration::from_secs(10),
            initialize_timeout: Duration::from_secs(30),
            max_pending: 64,
            leg_queue: 64,
            max_input_rounds: 8,
            max_inputs_per_round: 8,
            state_only_backoff: Duration::from_millis(250),
            max_frame_bytes: 16 << 20,
            drain_grace: Duration::from_millis(500),
            max_handshake_sessions: 16,
            handshake_session_idle: Duration::from_secs(300),
            max_parked: 32,
            park_ttl: Duration::from_secs(300),
            input_gather: Duration::from_millis(10),
            max_tasks: 64,
            task_ttl: Duration::from_secs(300),
            task_poll_interval: Duration::from_millis(500),
            host_tasks_after: None,
        }
    }
}

impl BridgeLimits {
    /// Sets [`BridgeLimits::max_handshake_sessions`].
    pub fn max_handshake_sessions(mut self, sessions: usize) -> Self {
        self.max_handshake_sessions = sessions;
        self
    }

    /// Sets [`BridgeLimits::max_tasks`].
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.max_tasks = tasks;
        self
    }

    /// Sets [`BridgeLimits::task_ttl`].
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Sets [`BridgeLimits::host_tasks_after`] (enables hosted tasks).
    pub fn host_tasks_after(mut self, after: Duration) -> Self {
        self.host_tasks_after = Some(after);
        self
    }

    /// Sets [`BridgeLimits::park_ttl`].
    pub fn park_ttl(mut self, ttl: Duration) -> Self {
        self.park_ttl = ttl;
        self
    }

    /// Sets [`BridgeLimits::request_timeout`].
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`BridgeLimits::probe_timeout`].
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Sets [`BridgeLimits::initialize_timeout`].
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = timeout;
        self
    }

    /// Sets [`BridgeLimits::max_pending`].
    pub fn max_pending(mut self, requests: usize) -> Self {
        self.max_pending = requests;
        self
    }

    /// Sets [`BridgeLimits::max_frame_bytes`].
    pub fn max_frame_bytes(mut self, bytes: usize) -> Self {
        self.max_frame_bytes = bytes;
        self
    }

    /// Sets [`BridgeLimits::drain_grace`].
    pub fn drain_grace(mut self, grace: Duration) -> Self {
        self.drain_grace = grace;
        self
    }
}

/// Why the bridge refused or failed a request it could not carry: the refusal catalogue.
/// Every such error is JSON-RPC `-32603` with `data.reason` (Q4: never -32000..-32099, which
/// 2026-07-28 reserves and SDKs use for their own timeouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// An input request has no form at the client's revision or capabilities.
    InputRequestUntranslatable,
    /// The client answered a bridged input request with an error.
    ClientRefusedInput,
    /// More input-required rounds than [`BridgeLimits::max_input_rounds`].
    MrtrRoundsExceeded,
    /// `input_required` on a method 2026-07-28 forbids it on.
    MrtrForbiddenMethod,
    /// A `resultType` the bridge does not know.
    UnknownResultType,
    /// The upstream did not answer in time.
    Timeout,
    /// The upstream could not be reached or refused the session.
    UpstreamUnavailable,
    /// The upstream went away with the request in flight.
    UpstreamClosed,
    /// A bound of [`BridgeLimits`] was reached.
    LimitExceeded,
    /// The frame has no form at the other side's revision (the ledger refuses it).
    ContentUntranslatable,
    /// The upstream's answer is not valid at its revision.
    InvalidUpstreamAnswer,
    /// A subscription the server did not acknowledge (or no acknowledgement in time).
    NotAcknowledged,
}

impl Reason {
    /// The catalogue: each reason's `data.reason` spelling.
    const TABLE: [(Reason, &'static str); 12] = [
        (
            Reason::InputRequestUntranslatable,
            "input_request_untranslatable",
        ),
        (Reason::ClientRefusedInput, "client_refused_input"),
        (Reason::MrtrRoundsExceeded, "mrtr_rounds_exceeded"),
        (Reason::MrtrForbiddenMethod, "mrtr_forbidden_method"),
        (Reason::UnknownResultType, "unknown_result_type"),
        (Reason::Timeout, "timeout"),
        (Reason::UpstreamUnavailable, "upstream_unavailable"),
        (Reason::UpstreamClosed, "upstream_closed"),
        (Reason::LimitExceeded, "limit_exceeded"),
        (Reason::ContentUntranslatable, "content_untranslatable"),
        (Reason::InvalidUpstreamAnswer, "invalid_upstream_answer"),
        (Reason::NotAcknowledged, "not_acknowledged"),
    ];

    /// The `data.reason` spelling.
    pub fn as_str(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("internal", |(_, s)| s)
    }

    /// The JSON-RPC error for this reason: `-32603`, `data.reason`, `data.from`/`data.to` when
    /// the two revisions are known, and any `extra` members.
    pub fn error(
        self,
        message: impl Into<String>,
        revisions: Option<(ProtocolVersion, ProtocolVersion)>,
        extra: Option<Value>,
    ) -> ErrorData {
        let reason = self.as_str();
        mcp_wire_transport::telemetry::bridge_refusal(reason);
        tracing::debug!(
            reason,
            from = revisions.map(|(from, _)| from.as_str()),
            to = revisions.map(|(_, to)| to.as_str()),
            "the bridge refused"
        );
        let mut data = json!({ "reason": reason });
        if let Some((from, to)) = revisions {
            data["from"] = json!(from.as_str());
            data["to"] = json!(to.as_str());
        }
        if let Some(Value::Object(extra)) = extra {
            for (k, v) in extra {
                data[k.as_str()] = v;
            }
        }
        ErrorData::new(codes::INTERNAL_ERROR, message).with_data(data)
    }
}

/// The answer to a client line the bridge skipped unread: over [`BridgeLimits::max_frame_bytes`],
/// `limit_exceeded` with the line's size and the limit; not JSON, -32700 (JSON-RPC's parse
/// error).
pub fn skipped_line_error(skipped: &Skipped) -> ErrorData {
    match skipped {
        Skipped::Oversized { size, limit } => Reason::LimitExceeded.error(
            format!("a line of {size} bytes is over the bridge's limit of {limit} bytes; it was skipped unread"),
            None,
            Some(json!({"size": size, "limit": limit})),
        ),
        Skipped::Malformed(why) => ErrorData::new(
            codes::PARSE_ERROR,
            format!("a line that is not one JSON value was skipped: {why}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_one_spelling_and_errors_carry_it() {
        let mut seen = std::collections::HashSet::new();
        for (reason, spelling) in Reason::TABLE {
            assert_eq!(reason.as_str(), spelling);
            assert!(seen.insert(spelling), "{spelling} twice");
        }
        let e = Reason::Timeout.error(
            "slow",
            Some((ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28)),
            Some(json!({"method": "tools/call"})),
        );
        assert_eq!(e.code, -32603);
        assert_eq!(
            e.data.unwrap(),
            json!({"reason": "timeout", "from": "2025-06-18", "to": "2026-07-28", "method": "tools/call"})
        );
    }
}
