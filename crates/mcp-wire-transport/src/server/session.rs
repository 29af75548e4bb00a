//! Handshake-era sessions (`Mcp-Session-Id`): what `initialize` fixed, the answers awaited from
//! the client, resource subscriptions, and the replay logs of SSE streams. All bounded.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use mcp_wire::model::{ClientCapabilities, Implementation, LoggingLevel};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use mcp_wire::model::ServerNotification;

use super::auth::Principal;
use super::limits::Limits;
use super::mirror::{LogMirror, events_key};
use crate::telemetry::{self, Held, Open};

/// Levels in order of severity, for filtering (`logging/setLevel`, `_meta` logLevel).
pub fn level_rank(level: LoggingLevel) -> u8 {
    level as u8
}

/// The log level a session or request asks for: `u8::MAX` = none set.
#[derive(Debug)]
pub(crate) struct LevelCell(AtomicU8);

impl LevelCell {
    /// No level set.
    pub(crate) fn unset() -> Self {
        Self(AtomicU8::new(u8::MAX))
    }

    /// Fixed to `level`.
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(level_rank(level), Ordering::Relaxed);
    }

    /// The level's rank, as a shared session record keeps it.
    pub(crate) fn rank_raw(&self) -> Option<u8> {
        self.rank()
    }

    /// Sets the level from its rank (`None`: no level).
    pub(crate) fn set_rank(&self, rank: Option<u8>) {
        self.0.store(rank.unwrap_or(u8::MAX), Ordering::Relaxed);
    }

    pub(crate) fn rank(&self) -> Option<u8> {
        let r = self.0.load(Ordering::Relaxed);
        (r != u8::MAX).then_some(r)
    }

    /// The level, when one is set.
    pub(crate) fn level(&self) -> Option<LoggingLevel> {
        let rank = self.rank()?;
        [
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ]
        .into_iter()
        .find(|l| level_rank(*l) == rank)
    }
}

/// Why a session ended (the `reason` of its `session closed` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The client's DELETE.
    Deleted,
    /// Unused longer than [`Limits::session_idle`].
    Expired,
    /// A new `initialize` on the same connection replaced it.
    Replaced,
    /// Its connection (stdio, the HTTP+SSE stream) closed.
    Disconnected,
    /// Opened but not kept (the server holds the maximum, or another `initialize` won).
    Refused,
}

impl Ended {
    fn as_str(self) -> &'static str {
        match self {
            Ended::Deleted => "deleted",
            Ended::Expired => "expired",
            Ended::Replaced => "replaced",
            Ended::Disconnected => "disconnected",
            Ended::Refused => "refused",
        }
    }
}

/// The answer to a server→client request: its result, or its error.
pub(crate) type ClientAnswer = Result<Value, ErrorData>;

/// Locks a mutex, recovering the data when a panicking holder poisoned it (every critical
/// section here leaves the data consistent).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One handshake-era session.
pub(crate) struct Session {
    pub id: Arc<str>,
    pub revision: ProtocolVersion,
    /// Shared with every request's context (not copied per request).
    pub client_capabilities: Arc<ClientCapabilities>,
    pub client_info: Option<Arc<Implementation>>,
    /// Who opened the session (requests of another principal do not find it).
    pub principal: Principal,
    pub level: Arc<LevelCell>,
    limits: Limits,
    last_seen: Mutex<Instant>,
    next_request: AtomicU64,
    /// Each pending request holds its unit of `mcp_pending_client_requests`.
    pending: Mutex<HashMap<RequestId, (oneshot::Sender<ClientAnswer>, Held)>>,
    /// Each subscription holds its unit of `mcp_subscriptions_open`.
    subscriptions: Mutex<HashMap<String, Held>>,
    running: Mutex<HashMap<RequestId, AbortHandle>>,
    streams: Mutex<VecDeque<Arc<StreamLog>>>,
    next_stream: AtomicU64,
    /// Whether the standalone GET stream is open (at most one).
    pub standalone_open: AtomicBool,
    /// Notifications pushed to this session alone ([`SessionHandle::notify`]), waiting for the
    /// standalone stream (bounded: the oldest is dropped).
    pushed: Mutex<VecDeque<ServerNotification>>,
    /// Wakes the standalone stream when something is pushed.
    pub push_signal: tokio::sync::Notify,
    /// Whether the session has ended.
    ended: AtomicBool,
    /// Whether the client's input has ended (stdio): nothing asked of it can be answered.
    /// Read and written under the `pending` lock.
    input_ended: AtomicBool,
    /// Runs once when the session ends (the handler's `session_ended`).
    on_close: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    /// The session's unit of `mcp_sessions_open`, given back when it ends (or, never ended, is
    /// dropped).
    open: Mutex<Option<Held>>,
    opened: Instant,
    /// With a shared store: where the session's stream logs are copied, and the replica that
    /// names its stream ids and server→client request ids.
    mirror: Option<LogMirror>,
}

impl Session {
    pub(crate) fn new(
        id: String,
        revision: ProtocolVersion,
        client_capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
        principal: Principal,
        limits: Limits,
    ) -> Self {
        Self {
            id: Arc::from(id),
            revision,
            client_capabilities: Arc::new(client_capabilities),
            client_info: client_info.map(Arc::new),
            principal,
            level: Arc::new(LevelCell::unset()),
            limits,
            last_seen: Mutex::new(Instant::now()),
            next_request: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
            streams: Mutex::new(VecDeque::new()),
            next_stream: AtomicU64::new(1),
            standalone_open: AtomicBool::new(false),
            pushed: Mutex::new(VecDeque::new()),
            push_signal: tokio::sync::Notify::new(),
            ended: AtomicBool::new(false),
            input_ended: AtomicBool::new(false),
            on_close: Mutex::new(None),
            open: Mutex::new(Some(Held::new(Open::Session))),
            opened: Instant::now(),
            mirror: None,
        }
    }

    /// Copies the session's stream logs to the shared store through `mirror`.
    pub(crate) fn set_mirror(&mut self, mirror: LogMirror) {
        self.mirror = Some(mirror);
    }

    /// The resources the session is subscribed to.
    pub(crate) fn subscription_list(&self) -> Vec<String> {
        lock(&self.subscriptions).keys().cloned().collect()
    }

    /// Takes the level and subscriptions of the session's shared record.
    pub(crate) fn apply_shared(&self, level: Option<u8>, subscriptions: &[String]) {
        self.level.set_rank(level);
        let mut subs = lock(&self.subscriptions);
        subs.retain(|uri, _| subscriptions.contains(uri));
        for uri in subscriptions {
            if subs.len() >= self.limits.subscriptions_per_session {
                break;
            }
            subs.entry(uri.clone())
                .or_insert_with(|| Held::new(Open::ResourceSubscription));
        }
    }

    /// Ends a copy that was never used (another request restored the same session first):
    /// closed without telling the handler, which keeps the state of the copy in use.
    pub(crate) fn forget(&self) {
        lock(&self.on_close).take();
        self.close(Ended::Refused);
    }

    /// Whether a handler here waits for the answer to server→client request `id`.
    pub(crate) fn waits_for(&self, id: &RequestId) -> bool {
        lock(&self.pending).contains_key(id)
    }

    /// Sets what runs when the session ends.
    pub(crate) fn set_on_close(&self, f: Box<dyn FnOnce() + Send>) {
        *lock(&self.on_close) = Some(f);
    }

    /// Queues a notification for the standalone stream; `false` when the session has ended.
    pub(crate) fn push(&self, notification: ServerNotification) -> bool {
        if self.ended.load(Ordering::Acquire) {
            return false;
        }
        let mut pushed = lock(&self.pushed);
        while pushed.len() >= self.limits.stream_queue.max(1) {
            pushed.pop_front();
        }
        pushed.push_back(notification);
        drop(pushed);
        self.push_signal.notify_one();
        true
    }

    /// Takes every pushed notification, oldest first.
    pub(crate) fn take_pushed(&self) -> Vec<ServerNotification> {
        lock(&self.pushed).drain(..).collect()
    }

    /// Whether the session has ended.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Marks the session as used now.
    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    /// Unused longer than `limit`, with no request running and no standalone stream open.
    fn is_idle(&self, limit: Duration) -> bool {
        lock(&self.last_seen).elapsed() > limit
            && !self.standalone_open.load(Ordering::Acquire)
            && lock(&self.running).values().all(AbortHandle::is_finished)
    }

    /// A fresh id for a server→client request and the slot its answer arrives in; refused (why)
    /// when too many are pending or the client's input has ended.
    pub(crate) fn register_pending(
        &self,
    ) -> Result<(RequestId, oneshot::Receiver<ClientAnswer>), &'static str> {
        let mut pending = lock(&self.pending);
        if self.input_ended.load(Ordering::Acquire) {
            return Err("the client's input has ended: it cannot answer");
        }
        if pending.len() >= self.limits.pending_client_requests {
            drop(pending);
            telemetry::limit_hit("pending_client_requests");
            return Err("too many requests to the client pending");
        }
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        // With replicas, the id names the one that asks (the answer may reach another).
        let id = RequestId::String(match &self.mirror {
            Some(m) => format!("srv-{:08x}-{n}", m.replica),
            None => format!("srv-{n}"),
        });
        let (tx, rx) = oneshot::channel();
        pending.insert(id.clone(), (tx, Held::new(Open::PendingClientRequest)));
        Ok((id, rx))
    }

    /// The client's input ended (it closed its side of a stdio connection): the requests
    /// waiting for its answers fail now, and later ones are refused, while the requests it sent
    /// before run to their answers.
    pub(crate) fn end_input(&self) {
        let mut pending = lock(&self.pending);
        self.input_ended.store(true, Ordering::Release);
        pending.clear();
    }

    /// Drops a pending slot (timeout, stream gone).
    pub(crate) fn forget_pending(&self, id: &RequestId) {
        lock(&self.pending).remove(id);
    }

    /// Delivers the client's answer; `false` when nothing waits for that id.
    pub(crate) fn deliver(&self, id: &RequestId, answer: ClientAnswer) -> bool {
        match lock(&self.pending).remove(id) {
            Some((tx, _held)) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Records a subscription; `false` when the session already holds the maximum.
    pub(crate) fn subscribe(&self, uri: &str) -> bool {
        let mut subs = lock(&self.subscriptions);
        if subs.contains_key(uri) {
            return true;
        }
        if subs.len() >= self.limits.subscriptions_per_session {
            drop(subs);
            telemetry::limit_hit("subscriptions_per_session");
            return false;
        }
        subs.insert(uri.to_owned(), Held::new(Open::ResourceSubscription));
        true
    }

    /// Drops a subscription.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    /// Whether the session is subscribed to `uri`.
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains_key(uri)
    }

    /// Tracks a running request so `notifications/cancelled` can stop it.
    pub(crate) fn track(&self, id: RequestId, handle: AbortHandle) {
        let mut running = lock(&self.running);
        running.retain(|_, h| !h.is_finished());
        running.insert(id, handle);
    }

    /// Cancels a running request; whether it ran here.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match lock(&self.running).remove(id) {
            Some(h) => {
                h.abort();
                true
            }
            None => false,
        }
    }

    /// A new replay log for an SSE stream (the oldest is dropped beyond the limit).
    pub(crate) fn open_stream(&self) -> Arc<StreamLog> {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        // With replicas, the id's high half names the one that writes the stream.
        let id = match &self.mirror {
            Some(m) => (u64::from(m.replica) << 32) | (n & 0xffff_ffff),
            None => n,
        };
        let mut log = StreamLog::new(
            id,
            self.limits.replay_events_per_stream,
            self.limits.replay_bytes_per_stream,
        );
        if let Some(m) = &self.mirror {
            log.mirror = Some((events_key(&self.id, id), m.clone()));
        }
        let log = Arc::new(log);
        let mut streams = lock(&self.streams);
        while streams.len() >= self.limits.replay_streams_per_session {
            streams.pop_front();
        }
        streams.push_back(log.clone());
        log
    }

    /// The replay log of a stream, by id.
    pub(crate) fn stream(&self, id: u64) -> Option<Arc<StreamLog>> {
        lock(&self.streams).iter().find(|s| s.id == id).cloned()
    }

    /// Ends the session: every waiting handler is told, every running request stopped, the
    /// standalone stream closed and the handler's `session_ended` run (once).
    pub(crate) fn close(&self, why: Ended) {
        if !self.ended.swap(true, Ordering::AcqRel) {
            let lifetime_s = self.opened.elapsed().as_secs_f64();
            let reason = why.as_str();
            match why {
                Ended::Expired => {
                    tracing::debug!(session = &*self.id, lifetime_s, "session expired");
                }
                _ => tracing::debug!(session = &*self.id, reason, lifetime_s, "session closed"),
            }
        }
        lock(&self.open).take();
        lock(&self.subscriptions).clear();
        lock(&self.pushed).clear();
        self.push_signal.notify_one();
        if let Some(f) = lock(&self.on_close).take() {
            f();
        }
        lock(&self.pending).clear();
        for (_, h) in lock(&self.running).drain() {
            h.abort();
        }
        for s in lock(&self.streams).drain(..) {
            s.finish();
        }
    }
}

/// A handler's handle on one handshake-era session, given to
/// [`Handler::session_started`](super::Handler::session_started): what `initialize` fixed,
/// and a way to send the session notifications of its own on its standalone stream (the
/// HTTP GET stream, or the connection on stdio). It does not keep the session alive.
#[derive(Clone)]
pub struct SessionHandle {
    session: std::sync::Weak<Session>,
    id: Arc<str>,
    revision: ProtocolVersion,
    principal: Principal,
    client_capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHandle")
            .field("id", &self.id)
            .field("revision", &self.revision)
            .finish_non_exhaustive()
    }
}

impl SessionHandle {
    pub(crate) fn new(session: &Arc<Session>) -> Self {
        Self {
            session: Arc::downgrade(session),
            id: session.id.clone(),
            revision: session.revision,
            principal: session.principal.clone(),
            client_capabilities: session.client_capabilities.clone(),
            client_info: session.client_info.clone(),
        }
    }

    /// The session id (`Mcp-Session-Id` over HTTP; minted per connection on stdio).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The negotiated revision.
    pub fn revision(&self) -> ProtocolVersion {
        self.revision
    }

    /// Who opened the session.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The capabilities the client declared in `initialize`.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// The client's `Implementation`.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client_info.as_deref()
    }

    /// Sends `notification` to this session only, on its standalone stream (queued, bounded,
    /// until the stream is open); `false` once the session has ended.
    pub fn notify(&self, notification: ServerNotification) -> bool {
        self.session.upgrade().is_some_and(|s| s.push(notification))
    }

    /// Whether the session is still live.
    pub fn is_live(&self) -> bool {
        self.session.upgrade().is_some_and(|s| !s.has_ended())
    }
}

/// The events of one SSE stream, kept for resumption, and the live connection it feeds.
pub(crate) struct StreamLog {
    pub id: u64,
    cap: usize,
    cap_bytes: usize,
    inner: Mutex<StreamLogInner>,
    /// With a shared store: the log's key there, and the way to it.
    mirror: Option<(Arc<str>, LogMirror)>,
}

struct StreamLogInner {
    next_seq: u64,
    bytes: usize,
    events: VecDeque<(u64, Bytes)>,
    sink: Option<mpsc::Sender<Bytes>>,
    done: bool,
}

impl StreamLog {
    fn new(id: u64, cap: usize, cap_bytes: usize) -> Self {
        Self {
            id,
            cap: cap.max(1),
            cap_bytes,
            inner: Mutex::new(StreamLogInner {
                next_seq: 0,
                bytes: 0,
                events: VecDeque::new(),
                sink: None,
                done: false,
            }),
            mirror: None,
        }
    }

    /// The next event id of this stream (and records the event made from it by `render`).
    /// Returns the rendered event and the sink to send it to, if one is attached.
    pub(crate) fn record(
        &self,
        render: impl FnOnce(&str) -> Bytes,
    ) -> (Bytes, Option<mpsc::Sender<Bytes>>) {
        let mut inner = lock(&self.inner);
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let event = render(&format!("{}-{seq}", self.id));
        if let Some((key, mirror)) = &self.mirror {
            mirror.event(key, seq, &event);
        }
        // Keep the newest events within both bounds (a single event larger than the byte
        // bound is not kept: it cannot be replayed).
        inner.bytes += event.len();
        inner.events.push_back((seq, event.clone()));
        while inner.events.len() > self.cap || inner.bytes > self.cap_bytes {
            match inner.events.pop_front() {
                Some((_, e)) => inner.bytes -= e.len(),
                None => break,
            }
        }
        (event, inner.sink.clone())
    }

    /// Attaches a live connection, detaching any earlier one.
    pub(crate) fn attach(&self, sink: mpsc::Sender<Bytes>) {
        lock(&self.inner).sink = Some(sink);
    }

    /// Detaches the live connection (it closes once its queue drains).
    pub(crate) fn detach(&self) {
        lock(&self.inner).sink = None;
    }

    /// The events after `after`, and attaches `sink` for the rest (unless the stream is done).
    pub(crate) fn resume(&self, after: u64, sink: mpsc::Sender<Bytes>) -> Vec<Bytes> {
        let mut inner = lock(&self.inner);
        let events = inner
            .events
            .iter()
            .filter(|(seq, _)| *seq > after)
            .map(|(_, e)| e.clone())
            .collect();
        if !inner.done {
            inner.sink = Some(sink);
        }
        events
    }

    /// Marks the stream complete and lets its connection close.
    pub(crate) fn finish(&self) {
        let mut inner = lock(&self.inner);
        if !inner.done
            && let Some((key, mirror)) = &self.mirror
        {
            mirror.done(key);
        }
        inner.done = true;
        inner.sink = None;
    }
}

/// Every live session, bounded in number, each expiring after an idle period.
pub(crate) struct Sessions {
    map: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    limits: Limits,
}

impl Sessions {
    pub(crate) fn new(limits: Limits) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            limits,
        }
    }

    /// Adds a session; `false` when the server holds the maximum number.
    pub(crate) fn insert(&self, session: Arc<Session>) -> bool {
        let mut map = lock(&self.map);
        if map.len() >= self.limits.max_sessions {
            return false;
        }
        map.insert(session.id.clone(), session);
        true
    }

    /// Adds a session restored from the shared store, or the copy another request restored
    /// meanwhile; `None` when the server holds the maximum number.
    pub(crate) fn insert_or_get(&self, session: Arc<Session>) -> Option<Arc<Session>> {
        let mut map = lock(&self.map);
        if let Some(s) = map.get(&session.id) {
            return Some(s.clone());
        }
        if map.len() >= self.limits.max_sessions {
            return None;
        }
        map.insert(session.id.clone(), session.clone());
        Some(session)
    }

    /// The session with this id, if this process holds it (not marked used).
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).get(id).cloned()
    }

    /// Ends and removes this process's copy of a session that ended elsewhere.
    pub(crate) fn drop_copy(&self, id: &str) {
        let removed = lock(&self.map).remove(id);
        if let Some(s) = removed {
            s.close(Ended::Deleted);
        }
    }

    /// The session with this id opened by `principal` (and marks it used); a session of
    /// another principal is as unknown as an absent one.
    pub(crate) fn get_for(&self, id: &str, principal: &Principal) -> Option<Arc<Session>> {
        self.get(id)
            .filter(|s| s.principal.same_identity(principal))
    }

    /// The session with this id (and marks it used).
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = lock(&self.map).get(id).cloned();
        if let Some(s) = &session {
            s.touch();
        }
        session
    }

    /// Ends and removes the session with this id opened by `principal`; `false` when there
    /// was none (or it is another principal's).
    pub(crate) fn remove_for(&self, id: &str, principal: &Principal) -> bool {
        let removed = {
            let mut map = lock(&self.map);
            match map.get(id) {
                Some(s) if s.principal.same_identity(principal) => map.remove(id),
                _ => None,
            }
        };
        match removed {
            Some(s) => {
                s.close(Ended::Deleted);
                true
            }
            None => false,
        }
    }

    /// Ends the sessions idle longer than the limit.
    pub(crate) fn expire_idle(&self) {
        let idle = self.limits.session_idle;
        let expired: Vec<Arc<Session>> = {
            let mut map = lock(&self.map);
            let ids: Vec<Arc<str>> = map
                .iter()
                .filter(|(_, s)| s.is_idle(idle))
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for s in expired {
            s.close(Ended::Expired);
        }
    }

    /// How many sessions are live.
    pub(crate) fn len(&self) -> usize {
        lock(&self.map).len()
    }
}

/// A new session id: 32 random bytes as hex (visible ASCII).
pub(crate) fn new_session_id() -> String {
    let mut bytes = [0u8; 32];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to time and a counter (still unique per process).
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let c = COUNTER.fetch_add(1, Ordering::Relaxed);
        return format!("{t:x}{c:x}");
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_log_keeps_the_newest_events_within_both_bounds() {
        let (tx, _rx) = mpsc::channel(1);
        let fill = |log: &StreamLog| {
            for i in 0..5 {
                log.record(|id| Bytes::from(format!("{id}:{i:>8}")));
            }
        };
        // By count: the newest three.
        let by_count = StreamLog::new(1, 3, 1000);
        fill(&by_count);
        assert_eq!(by_count.resume(0, tx.clone()).len(), 3);
        // By bytes: 12-byte events under a 30-byte bound leave the newest two.
        let by_bytes = StreamLog::new(2, 3, 30);
        fill(&by_bytes);
        let kept = by_bytes.resume(0, tx);
        assert_eq!(
            kept,
            [Bytes::from("2-3:       3"), Bytes::from("2-4:       4")]
        );
    }
}
