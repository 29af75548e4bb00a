//! Every bound the server keeps, as one table of data.

use std::time::Duration;

/// The server's bounds. Every piece of state the server keeps is limited by one of these.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Limits {
    /// Largest request body accepted (larger: HTTP 413).
    pub max_body_bytes: usize,
    /// Most handshake-era sessions at once (more: HTTP 503 on `initialize`).
    pub max_sessions: usize,
    /// A session unused this long is ended.
    pub session_idle: Duration,
    /// Frames queued on one SSE stream before the producer waits.
    pub stream_queue: usize,
    /// How long a producer waits on a full stream before the stream is dropped (slow reader).
    pub slow_reader_timeout: Duration,
    /// Events kept per stream for `Last-Event-ID` resumption.
    pub replay_events_per_stream: usize,
    /// Bytes of events kept per stream for resumption.
    pub replay_bytes_per_stream: usize,
    /// Streams kept per session for resumption.
    pub replay_streams_per_session: usize,
    /// Server→client requests pending per session.
    pub pending_client_requests: usize,
    /// How long a handler waits for the client's answer to a server→client request.
    pub client_answer_timeout: Duration,
    /// How long the requests a client sent before closing its side of a frame connection (its
    /// stdin) may run on to their answers; the ones still running then are cancelled (the
    /// client may have gone, and SDK clients signal a server that has not exited by then).
    pub input_end_grace: Duration,
    /// Resource subscriptions per session.
    pub subscriptions_per_session: usize,
    /// Changes a slow listener may lag behind before it misses some.
    pub change_backlog: usize,
    /// Keep-alive comment interval on long-lived SSE streams.
    pub keep_alive: Duration,
    /// How long a 2026-07-28 `requestState` stays valid.
    pub request_state_ttl: Duration,
    /// Most 2026-07-28 input-required rounds of one request.
    pub max_input_rounds: usize,
    /// Most tasks kept at once (tasks extension).
    pub max_tasks: usize,
    /// How long a task is kept after its creation (its `ttlMs`); still running then, it is
    /// cancelled.
    pub task_ttl: Duration,
    /// The polling interval suggested to clients (`pollIntervalMs`).
    pub task_poll_interval: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 * 1024 * 1024,
            max_sessions: 10_000,
            session_idle: Duration::from_secs(600),
            stream_queue: 64,
            slow_reader_timeout: Duration::from_secs(10),
            replay_events_per_stream: 128,
            replay_bytes_per_stream: 1024 * 1024,
            replay_streams_per_session: 16,
            pending_client_requests: 64,
            client_answer_timeout: Duration::from_secs(60),
            input_end_grace: Duration::from_secs(2),
            subscriptions_per_session: 1024,
            change_backlog: 256,
            keep_alive: Duration::from_secs(15),
            request_state_ttl: Duration::from_secs(600),
            max_input_rounds: 16,
            max_tasks: 1024,
            task_ttl: Duration::from_secs(600),
            task_poll_interval: Duration::from_millis(200),
        }
    }
}
