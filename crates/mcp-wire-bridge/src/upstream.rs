//! The upstream side: one connection to the server (a child process over stdio, or a URL:
//! Streamable HTTP on either wire, or 2024-11-05's HTTP+SSE), its era found by probing, and the
//! legs the bridge runs on it.
//!
//! Every id the upstream sees is the bridge's (a per-upstream counter: a retry of an
//! input-required round needs a fresh id, and several downstream sessions share one upstream).
//! Each request in flight is a *leg*: the router task delivers its answer, and the progress,
//! logs and server→client requests attributed to it, on the leg's own queue, in arrival order.
//! When the upstream goes away every leg is failed with `upstream_closed`.

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::Duration;

use mcp_wire::jsonrpc::{
    ErrorData, JsonRpcError, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId, codes,
};
use mcp_wire::model::{
    ClientNotification, ClientRequest, ClientResult, DiscoverResult, Implementation,
    InitializeResult, LoggingMessageNotificationParams, ProgressNotificationParams, ProgressToken,
    ServerCapabilities, ServerNotification, ServerRequest, ServerResult, SubscriptionFilter,
};
use mcp_wire::session::Envelope;
use mcp_wire::wire::{MethodResult, RawFrame, parse_as, parse_result_for};
use mcp_wire::{Era, ProtocolVersion};
use mcp_wire_transport::client::{
    AuthorizerSlot, ClientOptions, FrameTap, Wire, connect_legacy_sse, connect_streamable,
};
use mcp_wire_transport::server::{Change, Notifier, SessionHandle};
use mcp_wire_transport::stdio::{StdioOptions, spawn_child};
use mcp_wire_transport::{Connection, ConnectionEnd, Frame, FrameSender};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use crate::emit::{Emitter, emit_frame};
use crate::limits::{BridgeLimits, Reason};
use crate::report::{Dir, Report, Status};

/// How long a new handshake-era session waits for the server's standalone stream to be
/// answered before it is used anyway.
const SERVER_STREAM_WAIT: Duration = Duration::from_secs(5);

/// Where the upstream server is.
#[derive(Debug, Clone)]
pub enum UpstreamTarget {
    /// A command started as a child process, spoken to over its stdin/stdout.
    Command(Vec<OsString>),
    /// An HTTP endpoint: Streamable HTTP (either wire) or 2024-11-05 HTTP+SSE.
    Url(String),
}

/// What the upstream said about itself, fixed when the bridge connected.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The revision spoken upstream.
    pub revision: ProtocolVersion,
    /// `serverInfo` (2026-07-28: from the discover result's `_meta`, else a bridge-made one).
    pub server_info: Implementation,
    /// The capabilities it advertised.
    pub capabilities: ServerCapabilities,
    /// Its instructions.
    pub instructions: Option<String>,
    /// Which transport reached it (for messages).
    pub transport: &'static str,
}

/// Where a leg's events are queued. Boxed: a queue's storage is allocated 32 slots at a time
/// and a leg usually carries one event (its answer), so a slot is a pointer, not the whole
/// event (a 5.6 kB block for every request before).
type LegSender = mpsc::Sender<Box<LegEvent>>;

/// One event of a leg, in the order the upstream sent them.
#[derive(Debug)]
pub(crate) enum LegEvent {
    /// Progress for the leg's request.
    Progress(ProgressNotificationParams),
    /// A log message attributed to the leg.
    Log(LoggingMessageNotificationParams),
    /// A server→client request raised during the leg (legacy upstream), to be answered with
    /// [`Upstream::respond`].
    Request(RequestId, Box<ServerRequest>),
    /// A `subscriptions/listen` leg's acknowledgement: what the server will send.
    Ack(SubscriptionFilter),
    /// The leg's answer (the result, or the error).
    Done(Result<Answer, ErrorData>),
}

/// An upstream's success answer: its response frame, the `result` member found in it, read
/// (typed or as a `Value`) only by the one who needs it.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    frame: Frame,
    /// Where the `result` member's text is in the frame's.
    result: std::ops::Range<usize>,
}

impl Answer {
    /// Reads an upstream result at its revision, typed from its text; an input-required answer
    /// where 2026-07-28 forbids one and an unknown `resultType` get their own reasons.
    pub(crate) fn read_result(
        &self,
        method: &str,
        at: ProtocolVersion,
    ) -> Result<ServerResult, ErrorData> {
        match parse_result_for(method, self.text(), at) {
            Ok(MethodResult::Server(r)) => Ok(r),
            Ok(_) => Err(Reason::InvalidUpstreamAnswer.error(
                format!("the answer to {method} is a client result"),
                None,
                None,
            )),
            Err(e) => {
                let value = self.value();
                let result_type = value.get("resultType").and_then(Value::as_str);
                let reason = match result_type {
                    Some("input_required")
                        if !mcp_wire::wire::INPUT_REQUIRED_METHODS.contains(&method) =>
                    {
                        Reason::MrtrForbiddenMethod
                    }
                    Some(t) if t != "complete" && t != "input_required" => {
                        Reason::UnknownResultType
                    }
                    _ => Reason::InvalidUpstreamAnswer,
                };
                Err(reason.error(
                    format!("the upstream's answer to {method} is not valid at {at}: {e}"),
                    None,
                    Some(json!({"resultType": result_type})),
                ))
            }
        }
    }

    /// The answer of a response frame split as `raw` (from `frame`'s text); `None` when it is
    /// not a success response.
    fn of(frame: &Frame, raw: &RawFrame<'_>) -> Option<Answer> {
        let text = raw.result_text()?.get();
        let start = (text.as_ptr() as usize).checked_sub(frame.as_str().as_ptr() as usize)?;
        Some(Answer {
            frame: frame.clone(),
            result: start..start + text.len(),
        })
    }

    /// The answer of a result object, as an upstream would have sent it (tests).
    #[cfg(test)]
    pub(crate) fn of_result(result: &Value) -> Answer {
        let frame = Frame::from_emitted(
            json!({"jsonrpc": "2.0", "id": 0, "result": result})
                .to_string()
                .into_bytes(),
        );
        let raw = RawFrame::split(frame.as_str()).expect("a response");
        Answer::of(&frame, &raw).expect("a success response")
    }

    /// The `result` member's JSON text.
    pub(crate) fn text(&self) -> &str {
        &self.frame.as_str()[self.result.clone()]
    }

    /// The `result` member as a `Value` (the rare paths that read one member).
    pub(crate) fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

struct Leg {
    tx: LegSender,
    method: &'static str,
    /// The task a `tasks/result` leg waits on: the server's requests naming it
    /// (`related-task`) go to this leg.
    task: Option<String>,
}

#[derive(Default)]
struct State {
    legs: HashMap<i64, Leg>,
    /// Legs in start order, for attributing what names no request (logs, server requests).
    order: VecDeque<i64>,
    /// Why the upstream is gone, once it is.
    closed: Option<String>,
}

/// The bridge's connection to the upstream server.
pub struct Upstream {
    sender: FrameSender,
    revision: Mutex<ProtocolVersion>,
    next_id: AtomicI64,
    state: Mutex<State>,
    limits: BridgeLimits,
    report: Arc<Report>,
    emitter: Emitter,
    notifier: Notifier,
    sessions: Mutex<Vec<SessionHandle>>,
    gone: watch::Sender<Option<String>>,
    close: mcp_wire_transport::ConnectionHandle,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("revision", &self.revision())
            .finish_non_exhaustive()
    }
}

/// The bridge's own identity, upstream (`clientInfo`) and where it names itself.
pub fn bridge_info() -> Implementation {
    Implementation::new("mcp-wire-bridge", env!("CARGO_PKG_VERSION"))
}

impl Upstream {
    /// Connects to `target`, finds its era and revision among `revisions` (newest first), and
    /// completes the handshake. `notifier` receives the upstream's list changes and resource
    /// updates.
    pub async fn connect(
        target: &UpstreamTarget,
        revisions: &[ProtocolVersion],
        limits: BridgeLimits,
        authorizer: Option<&AuthorizerSlot>,
        report: Arc<Report>,
        emitter: Emitter,
        notifier: Notifier,
    ) -> Result<(Arc<Upstream>, Snapshot), crate::BridgeError> {
        let wants_stateless = revisions.contains(&ProtocolVersion::LATEST_STATELESS);
        let newest_handshake = revisions
            .iter()
            .copied()
            .filter(|v| *v != ProtocolVersion::LATEST_STATELESS)
            .max();
        let unavailable = |m: String| crate::BridgeError::UpstreamUnavailable(m);
        match target {
            UpstreamTarget::Command(argv) => {
                let (program, args) = argv
                    .split_first()
                    .ok_or_else(|| unavailable("empty upstream command".into()))?;
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let child = spawn_child(
                    command,
                    StdioOptions::default().max_line_bytes(limits.max_frame_bytes),
                )
                .map_err(|e| unavailable(format!("cannot start {program:?}: {e}")))?;
                let up = Self::start(child.connection, None, limits, report, emitter, notifier);
                up.end_on_oversized(&child.stats);
                let handshake = async {
                    if wants_stateless && let Some(snapshot) = up.probe_stateless().await? {
                        return Ok(snapshot);
                    }
                    let Some(version) = newest_handshake else {
                        return Err(unavailable(
                            "the upstream does not speak 2026-07-28 and no handshake revision is allowed".into(),
                        ));
                    };
                    up.initialize(version, revisions).await
                };
                match handshake.await {
                    Ok(snapshot) => Ok((up, snapshot.with_transport("stdio"))),
                    Err(e) => {
                        // The child must not outlive a bridge that could not start.
                        up.shutdown();
                        Err(e)
                    }
                }
            }
            UpstreamTarget::Url(url) => {
                let mut options = ClientOptions::default()
                    .max_frame_bytes(limits.max_frame_bytes)
                    .request_timeout(limits.request_timeout);
                options.authorizer = authorizer.cloned();
                let mut last = String::from("no revision allowed");
                // A Streamable HTTP upstream on `wire`, its frames routed by the tap.
                let streamable = |wire: Wire| {
                    let tap = TapSlot::default();
                    let conn = connect_streamable(url, wire, tap.options(&options))
                        .map_err(|e| unavailable(format!("{url}: {e}")))?;
                    let (report, notifier) = (report.clone(), notifier.clone());
                    Ok::<_, crate::BridgeError>(Self::start(
                        conn,
                        Some(tap),
                        limits,
                        report,
                        emitter,
                        notifier,
                    ))
                };
                if wants_stateless {
                    let up = streamable(Wire::Stateless)?;
                    match up.probe_stateless().await {
                        Ok(Some(snapshot)) => {
                            return Ok((
                                up,
                                snapshot.with_transport("streamable-http (stateless)"),
                            ));
                        }
                        Ok(None) => last = "server/discover refused".into(),
                        Err(e) => last = e.to_string(),
                    }
                    up.shutdown();
                }
                if let Some(version) = newest_handshake {
                    if version >= ProtocolVersion::V2025_03_26 {
                        let up = streamable(Wire::Stateful)?;
                        match up.initialize(version, revisions).await {
                            Ok(snapshot) => {
                                return Ok((up, snapshot.with_transport("streamable-http")));
                            }
                            Err(e) => last = e.to_string(),
                        }
                        up.shutdown();
                    }
                    if revisions.contains(&ProtocolVersion::V2024_11_05) {
                        let tap = TapSlot::default();
                        match connect_legacy_sse(url, tap.options(&options)).await {
                            Ok(conn) => {
                                let up =
                                    Self::start(conn, Some(tap), limits, report, emitter, notifier);
                                match up.initialize(ProtocolVersion::V2024_11_05, revisions).await {
                                    Ok(snapshot) => {
                                        return Ok((up, snapshot.with_transport("http+sse")));
                                    }
                                    Err(e) => {
                                        up.shutdown();
                                        return Err(e);
                                    }
                                }
                            }
                            Err(e) => last = format!("{last}; HTTP+SSE: {e}"),
                        }
                    }
                }
                Err(unavailable(format!("{url}: {last}")))
            }
        }
    }

    /// Starts routing `connection`'s frames: through `tap` as they are read when the
    /// connection was made with one ([`TapSlot::options`]), else by a router task; that task
    /// also notices the connection's end and fails every leg.
    pub(crate) fn start(
        connection: Connection,
        tap: Option<TapSlot>,
        limits: BridgeLimits,
        report: Arc<Report>,
        emitter: Emitter,
        notifier: Notifier,
    ) -> Arc<Upstream> {
        let Connection {
            sender,
            receiver,
            handle,
        } = connection;
        let up = Arc::new(Upstream {
            sender,
            revision: Mutex::new(ProtocolVersion::LATEST_STATELESS),
            next_id: AtomicI64::new(1),
            state: Mutex::new(State::default()),
            limits,
            report,
            emitter,
            notifier,
            sessions: Mutex::new(Vec::new()),
            gone: watch::channel(None).0,
            close: handle.clone(),
        });
        if let Some(tap) = tap {
            let _ = tap.0.set(Arc::downgrade(&up));
        }
        let router = up.clone();
        tokio::spawn(async move {
            let mut receiver = receiver;
            while let Some(frame) = receiver.recv().await {
                router.route(frame).await;
            }
            let why = match handle.ended().await {
                ConnectionEnd::Closed => "the upstream closed the connection".to_owned(),
                ConnectionEnd::Failed(e) => format!("the upstream failed: {e}"),
            };
            router.fail_all(&why);
        });
        up
    }

    /// The revision spoken upstream.
    pub fn revision(&self) -> ProtocolVersion {
        *self.revision.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_revision(&self, v: ProtocolVersion) {
        *self.revision.lock().unwrap_or_else(PoisonError::into_inner) = v;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Legs in flight (a parked call's included).
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().legs.len()
    }

    /// Whether the upstream is gone.
    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed.is_some()
    }

    /// Resolves once the upstream is gone, with why.
    pub async fn gone(&self) -> String {
        let mut rx = self.gone.subscribe();
        match rx.wait_for(Option::is_some).await {
            Ok(why) => why.clone().unwrap_or_default(),
            Err(_) => "the upstream's router ended".to_owned(),
        }
    }

    /// Closes the upstream connection (a child gets its stdin closed, then a kill).
    pub fn shutdown(&self) {
        self.close.close();
    }

    /// Remembers a downstream session, for messages no request names (bounded by the
    /// runtime's session limit; ended sessions are dropped as new ones come).
    pub(crate) fn add_session(&self, session: SessionHandle) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(SessionHandle::is_live);
        sessions.push(session);
    }

    /// Fails every leg and refuses new ones; the first reason given is the one kept.
    fn fail_all(&self, why: &str) {
        let (why, legs) = {
            let mut st = self.lock();
            let why = st.closed.get_or_insert_with(|| why.to_owned()).clone();
            st.order.clear();
            (why, std::mem::take(&mut st.legs))
        };
        for (_, leg) in legs {
            deliver(
                &leg.tx,
                LegEvent::Done(Err(self.closed_error(&why, leg.method))),
            );
        }
        self.gone.send_replace(Some(why));
    }

    /// The error of a request the upstream's end caught in flight.
    pub(crate) fn closed_error(&self, why: &str, method: &str) -> ErrorData {
        Reason::UpstreamClosed.error(
            format!("{why} while {method} was in flight"),
            None,
            Some(json!({ "upstreamRevision": self.revision().as_str() })),
        )
    }

    /// A line over the limit from a stdio upstream answered some request the bridge cannot
    /// name, so that request would wait for its timeout: the upstream is ended instead, and
    /// every pending request failed with the line's size in the reason.
    fn end_on_oversized(self: &Arc<Self>, stats: &mcp_wire_transport::stdio::LineStats) {
        let mut skipped = stats.subscribe();
        let up = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                match skipped.recv().await {
                    Ok(mcp_wire_transport::stdio::Skipped::Oversized { size, limit }) => {
                        let Some(up) = up.upgrade() else { return };
                        up.fail_all(&format!(
                            "the upstream sent a line of {size} bytes, over the limit of {limit} bytes"
                        ));
                        up.shutdown();
                        return;
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// A fresh bridge id for the next leg (the request's progress token is set from it).
    pub(crate) fn reserve_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Starts a leg: sends `request` with the bridge id `id` (from [`Upstream::reserve_id`]).
    pub(crate) async fn start_leg(
        self: &Arc<Self>,
        id: i64,
        request: ClientRequest,
        from: Option<ProtocolVersion>,
    ) -> Result<LegHandle, ErrorData> {
        let method = request.method();
        let task = match &request {
            ClientRequest::GetTaskPayload(r) => Some(r.params.task_id.clone()),
            _ => None,
        };
        let revision = self.revision();
        let frame = emit_frame(
            &JsonRpcRequest::new(id, request),
            Dir::ToServer,
            method,
            from,
            revision,
            &self.report,
            self.emitter,
        )?;
        let (tx, rx) = mpsc::channel(self.limits.leg_queue.max(2));
        {
            let mut st = self.lock();
            if let Some(why) = &st.closed {
                return Err(Reason::UpstreamClosed.error(why.clone(), None, None));
            }
            if st.legs.len() >= self.limits.max_pending {
                return Err(Reason::LimitExceeded.error(
                    format!(
                        "{} upstream requests are in flight already",
                        self.limits.max_pending
                    ),
                    None,
                    None,
                ));
            }
            st.legs.insert(id, Leg { tx, method, task });
            st.order.push_back(id);
        }
        let leg = LegHandle {
            id,
            rx,
            upstream: self.clone(),
            finished: false,
        };
        if self.sender.send(frame).await.is_err() {
            return Err(Reason::UpstreamClosed.error(
                "the upstream connection is closed",
                None,
                None,
            ));
        }
        Ok(leg)
    }

    /// Sends one request and waits for its answer (no events expected: the handshake).
    async fn request_once(
        self: &Arc<Self>,
        request: ClientRequest,
        timeout: Duration,
    ) -> Result<Answer, ErrorData> {
        let mut leg = self.start_leg(self.reserve_id(), request, None).await?;
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, leg.next()).await {
                Ok(Some(LegEvent::Done(answer))) => {
                    leg.finished = true;
                    return answer;
                }
                Ok(Some(LegEvent::Request(id, _))) => {
                    self.respond(id, Err(not_routable("during the handshake")))
                        .await;
                }
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Err(Reason::UpstreamClosed.error("the upstream is gone", None, None));
                }
                Err(_) => {
                    return Err(Reason::Timeout.error(
                        format!("no answer within {timeout:?}"),
                        None,
                        None,
                    ));
                }
            }
        }
    }

    /// The 2026-07-28 probe: `server/discover`, stamped. `None`: the upstream is not modern.
    async fn probe_stateless(self: &Arc<Self>) -> Result<Option<Snapshot>, crate::BridgeError> {
        self.set_revision(ProtocolVersion::LATEST_STATELESS);
        let mut meta = serde_json::Map::new();
        meta.insert(
            mcp_wire::model::meta::keys::PROTOCOL_VERSION.into(),
            json!(ProtocolVersion::LATEST_STATELESS.as_str()),
        );
        meta.insert(
            mcp_wire::model::meta::keys::CLIENT_CAPABILITIES.into(),
            json!({}),
        );
        meta.insert(
            mcp_wire::model::meta::keys::CLIENT_INFO.into(),
            serde_json::to_value(bridge_info()).unwrap_or(Value::Null),
        );
        let request =
            client_request(json!({"method": "server/discover", "params": {"_meta": meta}}))
                .map_err(|e| crate::BridgeError::UpstreamUnavailable(e.message))?;
        match self.request_once(request, self.limits.probe_timeout).await {
            Ok(answer) => match parse_result_for(
                "server/discover",
                answer.text(),
                ProtocolVersion::LATEST_STATELESS,
            ) {
                Ok(MethodResult::Server(ServerResult::Discover(d))) => {
                    if !d
                        .supported_versions
                        .iter()
                        .any(|v| v == ProtocolVersion::LATEST_STATELESS.as_str())
                    {
                        return Ok(None);
                    }
                    Ok(Some(Snapshot::from_discover(d)))
                }
                _ => Ok(None),
            },
            Err(e)
                if e.data.as_ref().and_then(|d| d.get("reason"))
                    == Some(&json!("upstream_closed")) =>
            {
                Err(crate::BridgeError::UpstreamUnavailable(e.message))
            }
            // Any other error, or silence: not modern (no single error code is taken as proof).
            Err(_) => Ok(None),
        }
    }

    /// The handshake-era session: `initialize` at `version`, accepting a counter-offer among
    /// `allowed`, then `notifications/initialized`.
    async fn initialize(
        self: &Arc<Self>,
        version: ProtocolVersion,
        allowed: &[ProtocolVersion],
    ) -> Result<Snapshot, crate::BridgeError> {
        // Everything the bridge can route to a client (gated per request against the client's own
        // capabilities).
        let capabilities =
            json!({"roots": {"listChanged": false}, "sampling": {}, "elicitation": {}});
        self.initialize_as(version, allowed, capabilities, bridge_info())
            .await
    }

    /// [`Upstream::initialize`] for a client: its capabilities and `clientInfo` (direction
    /// B's per-identity sessions).
    pub(crate) async fn initialize_as(
        self: &Arc<Self>,
        version: ProtocolVersion,
        allowed: &[ProtocolVersion],
        capabilities: Value,
        client_info: Implementation,
    ) -> Result<Snapshot, crate::BridgeError> {
        self.set_revision(version);
        let request = client_request(json!({
            "method": "initialize",
            "params": {
                "protocolVersion": version.as_str(),
                "capabilities": capabilities,
                "clientInfo": client_info,
            }
        }))
        .map_err(|e| crate::BridgeError::UpstreamUnavailable(e.message))?;
        let value = self
            .request_once(request, self.limits.initialize_timeout)
            .await
            .map_err(|e| {
                crate::BridgeError::UpstreamUnavailable(format!("initialize: {}", e.message))
            })?
            .value();
        let offered = value
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .filter(|v| *v != ProtocolVersion::LATEST_STATELESS && allowed.contains(v))
            .ok_or_else(|| {
                crate::BridgeError::UpstreamUnavailable(format!(
                    "the upstream answered initialize with protocolVersion {}, which the bridge does not allow",
                    value.get("protocolVersion").unwrap_or(&Value::Null)
                ))
            })?;
        self.set_revision(offered);
        let result = match parse_result_for("initialize", &value, offered) {
            Ok(MethodResult::Server(ServerResult::Initialize(r))) => r,
            Ok(_) => {
                return Err(crate::BridgeError::UpstreamUnavailable(
                    "the initialize answer is not an InitializeResult".into(),
                ));
            }
            Err(e) => {
                return Err(crate::BridgeError::UpstreamUnavailable(format!(
                    "the initialize answer is invalid at {offered}: {e}"
                )));
            }
        };
        let initialized: ClientNotification =
            serde_json::from_value(json!({"method": "notifications/initialized"}))
                .map_err(|e| crate::BridgeError::UpstreamUnavailable(e.to_string()))?;
        self.send_notification(initialized, None).await;
        // What the server announces from now on reaches only the streams it has open: the
        // session is ready once its own stream is (without it, a resource update right after a
        // subscribe could be lost). Bounded: a server that holds its stream's headers back
        // delays the session by at most this much.
        let _ = tokio::time::timeout(
            SERVER_STREAM_WAIT.min(self.limits.initialize_timeout),
            self.close.server_stream_ready(),
        )
        .await;
        Ok(Snapshot::from_initialize(result, offered))
    }

    /// Sends a notification upstream (best effort: a closed upstream is reported elsewhere).
    pub(crate) async fn send_notification(
        &self,
        notification: ClientNotification,
        from: Option<ProtocolVersion>,
    ) {
        let method = notification.method();
        if let Ok(frame) = emit_frame(
            &JsonRpcNotification::new(notification),
            Dir::ToServer,
            method,
            from,
            self.revision(),
            &self.report,
            self.emitter,
        ) {
            let _ = self.sender.send(frame).await;
        }
    }

    /// Answers a server→client request of the upstream.
    pub(crate) async fn respond(&self, id: RequestId, answer: Result<ClientResult, ErrorData>) {
        if let Some(frame) = self.answer_frame(id, answer) {
            let _ = self.sender.send(frame).await;
        }
    }

    /// [`Upstream::respond`] from synchronous code (the tap): queued now, or — when the queue
    /// is full — by a task of its own, as [`deliver`] does for legs.
    fn respond_soon(&self, id: RequestId, answer: Result<ClientResult, ErrorData>) {
        let Some(frame) = self.answer_frame(id, answer) else {
            return;
        };
        if let Err(e) = self.sender.try_send(frame.clone())
            && !matches!(e, mcp_wire_transport::TransportError::PeerClosed)
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            let sender = self.sender.clone();
            rt.spawn(async move {
                let _ = sender.send(frame).await;
            });
        }
    }

    /// The frame answering a server→client request at the upstream's revision (an answer that
    /// cannot be emitted becomes its error; `None` when neither can).
    fn answer_frame(
        &self,
        id: RequestId,
        answer: Result<ClientResult, ErrorData>,
    ) -> Option<Frame> {
        let revision = self.revision();
        let frame = match answer {
            Ok(result) => emit_frame(
                &JsonRpcResponse::new(id.clone(), result),
                Dir::ToServer,
                "response",
                None,
                revision,
                &self.report,
                self.emitter,
            ),
            Err(e) => Err(e),
        };
        match frame {
            Ok(f) => Some(f),
            Err(error) => emit_frame(
                &JsonRpcError::new(Some(id), error),
                Dir::ToServer,
                "error",
                None,
                revision,
                &self.report,
                self.emitter,
            )
            .ok(),
        }
    }

    /// Routes one upstream frame read by the router task.
    async fn route(&self, frame: Frame) {
        let Ok(raw) = RawFrame::split(frame.as_str()) else {
            return;
        };
        if let Some((id, answer)) = self.route_now(&frame, &raw) {
            self.respond(id, answer).await;
        }
    }

    /// Routes one upstream frame without waiting: answers, progress, logs and server requests
    /// to their legs, changes to the notifier. A server request the bridge answers itself
    /// (`ping`, one it cannot carry) comes back with that answer, for the caller to send.
    /// `raw` is the frame's envelope: an answer's result is typed by the leg that waits for it.
    fn route_now(
        &self,
        frame: &Frame,
        raw: &RawFrame<'_>,
    ) -> Option<(RequestId, Result<ClientResult, ErrorData>)> {
        let revision = self.revision();
        match raw.envelope() {
            Envelope::Response { id } => {
                let answer = Answer::of(frame, raw)?;
                self.finish_leg(id, Ok(answer));
            }
            Envelope::Error { id, .. } => {
                if let (Some(id), Some(error)) = (id, raw.error()) {
                    self.finish_leg(id, Err(error.clone()));
                }
            }
            Envelope::Notification { .. } => {
                match parse_as::<ServerNotification>(frame.as_str(), revision) {
                    Ok(n) => self.route_notification(n),
                    Err(_) => self.report.event(
                        Dir::ToClient,
                        "notification",
                        Some(revision),
                        revision,
                        Status::Refused,
                        "dropped an upstream notification that is not valid at its revision",
                    ),
                }
            }
            Envelope::Request { id, .. } => {
                let id = id.clone();
                return match parse_as::<ServerRequest>(frame.as_str(), revision) {
                    Ok(ServerRequest::Ping(_)) => {
                        self.report.event(
                            Dir::ToServer,
                            "ping",
                            Some(revision),
                            revision,
                            Status::Synthesized,
                            "answered by the bridge",
                        );
                        Some((id, Ok(ClientResult::Empty(Default::default()))))
                    }
                    Ok(
                        request @ (ServerRequest::CreateMessage(_)
                        | ServerRequest::ListRoots(_)
                        | ServerRequest::Elicit(_)),
                    ) => self.route_request(id, request),
                    Ok(other) => Some((
                        id,
                        Err(ErrorData::new(
                            codes::METHOD_NOT_FOUND,
                            format!("the bridge does not carry {} to clients", other.method()),
                        )),
                    )),
                    Err(e) => Some((id, Err(ErrorData::new(e.code(), e.to_string())))),
                };
            }
            #[allow(unreachable_patterns)]
            _ => {}
        }
        None
    }

    /// A server→client request to the leg it rides on: a request of a task (2025-11-25
    /// `related-task`) to the leg waiting on that task's `tasks/result`, any other to the
    /// newest call. Without one, or with its queue full, the answer the server gets.
    fn route_request(
        &self,
        id: RequestId,
        request: ServerRequest,
    ) -> Option<(RequestId, Result<ClientResult, ErrorData>)> {
        let revision = self.revision();
        let related = related_task(&request);
        let target = {
            let st = self.lock();
            let newest = |wanted: &dyn Fn(&Leg) -> bool| {
                st.order
                    .iter()
                    .rev()
                    .filter_map(|leg| st.legs.get(leg))
                    .find(|l| wanted(l))
                    .map(|l| l.tx.clone())
            };
            related
                .as_deref()
                .and_then(|t| newest(&|l| l.task.as_deref() == Some(t)))
                .or_else(|| newest(&|l| mcp_wire::wire::INPUT_REQUIRED_METHODS.contains(&l.method)))
        };
        match target {
            Some(tx) => {
                if tx
                    .try_send(Box::new(LegEvent::Request(id.clone(), Box::new(request))))
                    .is_err()
                {
                    return Some((
                        id,
                        Err(Reason::LimitExceeded.error("the request's queue is full", None, None)),
                    ));
                }
                None
            }
            None => {
                self.report.event(
                    Dir::ToServer,
                    request.method(),
                    Some(revision),
                    revision,
                    Status::Refused,
                    "no client request in flight to carry it (reference Q1)",
                );
                Some((
                    id,
                    Err(not_routable(
                        "outside any tools/call, prompts/get or resources/read",
                    )),
                ))
            }
        }
    }

    fn finish_leg(&self, id: &RequestId, answer: Result<Answer, ErrorData>) {
        let RequestId::Integer(n) = id else { return };
        let leg = {
            let mut st = self.lock();
            st.order.retain(|l| l != n);
            st.legs.remove(n)
        };
        // An answer to no leg (late, after a cancel or timeout) is dropped.
        if let Some(leg) = leg {
            deliver(&leg.tx, LegEvent::Done(answer));
        }
    }

    fn route_notification(&self, n: ServerNotification) {
        let change = match &n {
            ServerNotification::ToolListChanged(_) => Some(Change::ToolsListChanged),
            ServerNotification::PromptListChanged(_) => Some(Change::PromptsListChanged),
            ServerNotification::ResourceListChanged(_) => Some(Change::ResourcesListChanged),
            ServerNotification::ResourceUpdated(u) => {
                Some(Change::ResourceUpdated(u.params.uri.clone()))
            }
            _ => None,
        };
        if let Some(change) = change {
            self.notifier.announce(change);
            return;
        }
        match n {
            ServerNotification::SubscriptionsAcknowledged(ack) => {
                let leg = ack
                    .params
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(mcp_wire::model::meta::keys::SUBSCRIPTION_ID))
                    .and_then(Value::as_i64)
                    .and_then(|id| self.lock().legs.get(&id).map(|l| l.tx.clone()));
                if let Some(tx) = leg {
                    deliver(&tx, LegEvent::Ack(ack.params.notifications));
                }
            }
            ServerNotification::Progress(p) => {
                let leg = match &p.params.progress_token {
                    ProgressToken::Integer(n) => self.lock().legs.get(n).map(|l| l.tx.clone()),
                    ProgressToken::String(_) => None,
                };
                // Progress is droppable: a full queue loses it rather than stalling the router.
                if let Some(tx) = leg {
                    let _ = tx.try_send(Box::new(LegEvent::Progress(p.params)));
                }
            }
            ServerNotification::LoggingMessage(m) => {
                let newest = {
                    let st = self.lock();
                    st.order
                        .back()
                        .and_then(|l| st.legs.get(l))
                        .map(|l| l.tx.clone())
                };
                match newest {
                    Some(tx) => {
                        let _ = tx.try_send(Box::new(LegEvent::Log(m.params)));
                    }
                    None => {
                        let sessions = self
                            .sessions
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .clone();
                        for s in sessions {
                            let n = ServerNotification::LoggingMessage(
                                mcp_wire::model::LoggingMessageNotification::new(m.params.clone()),
                            );
                            s.notify(n);
                        }
                    }
                }
            }
            // Cancellations of the upstream's own requests, elicitation completions, task
            // statuses and acknowledgements have no downstream counterpart yet.
            _ => {}
        }
    }
}

impl Snapshot {
    /// The era of the revision spoken upstream: whether it has a session.
    pub fn era(&self) -> Era {
        self.revision.era()
    }

    fn from_discover(d: DiscoverResult) -> Self {
        let server_info = d
            .meta
            .as_ref()
            .and_then(|m| {
                m.get_as::<Implementation>(mcp_wire::model::meta::keys::SERVER_INFO)
                    .ok()
                    .flatten()
            })
            .unwrap_or_else(bridge_info);
        Snapshot {
            revision: ProtocolVersion::LATEST_STATELESS,
            server_info,
            capabilities: *d.capabilities,
            instructions: d.instructions,
            transport: "",
        }
    }

    fn from_initialize(r: InitializeResult, revision: ProtocolVersion) -> Self {
        Snapshot {
            revision,
            server_info: r.server_info,
            capabilities: *r.capabilities,
            instructions: r.instructions,
            transport: "",
        }
    }

    fn with_transport(mut self, transport: &'static str) -> Self {
        self.transport = transport;
        self
    }
}

/// Where the tap of an HTTP upstream finds its [`Upstream`] (set by [`Upstream::start`]).
#[derive(Clone, Default)]
pub(crate) struct TapSlot(Arc<OnceLock<Weak<Upstream>>>);

impl TapSlot {
    /// `options` with a tap that routes each upstream frame as the transport reads it
    /// ([`Upstream::route_now`]): an answer reaches its leg without a hop through the
    /// connection's receiver and the router task. Until the slot is set (and after the
    /// upstream is gone) frames go on to the receiver.
    pub(crate) fn options(&self, options: &ClientOptions) -> ClientOptions {
        let slot = self.0.clone();
        options.clone().tap(FrameTap::new(move |frame, raw| {
            match slot.get().and_then(Weak::upgrade) {
                Some(up) => {
                    if let Some(raw) = raw
                        && let Some((id, answer)) = up.route_now(frame, raw)
                    {
                        up.respond_soon(id, answer);
                    }
                    true
                }
                None => false,
            }
        }))
    }
}

/// A leg in flight; dropping it before its answer cancels it upstream.
pub(crate) struct LegHandle {
    /// The bridge id the upstream sees.
    pub id: i64,
    rx: mpsc::Receiver<Box<LegEvent>>,
    upstream: Arc<Upstream>,
    /// Set once the answer arrived (nothing to cancel).
    pub finished: bool,
}

impl LegHandle {
    /// The leg's next event; `None` once the upstream dropped the leg.
    pub(crate) async fn next(&mut self) -> Option<LegEvent> {
        self.rx.recv().await.map(|event| *event)
    }

    /// Stops waiting: forgets the leg and tells the upstream (`notifications/cancelled` naming
    /// the leg id; on the 2026-07-28 HTTP wire the transport turns it into closing the stream).
    pub(crate) fn cancel(&mut self, reason: &str) {
        if self.finished {
            return;
        }
        self.finished = true;
        let known = {
            let mut st = self.upstream.lock();
            st.order.retain(|l| *l != self.id);
            st.legs.remove(&self.id).is_some()
        };
        if !known {
            return;
        }
        let up = self.upstream.clone();
        let id = self.id;
        let reason = reason.to_owned();
        // Drop may run outside an async context's await point: send from a task.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Ok(n) = serde_json::from_value::<ClientNotification>(json!({
                    "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": reason}
                })) {
                    up.send_notification(n, None).await;
                }
            });
        }
    }
}

impl Drop for LegHandle {
    fn drop(&mut self) {
        self.cancel("the client cancelled the request");
    }
}

/// Queues `event` on a leg; an answer that finds the queue full waits in a task of its own.
fn deliver(tx: &LegSender, event: LegEvent) {
    if let Err(mpsc::error::TrySendError::Full(event)) = tx.try_send(Box::new(event)) {
        let tx = tx.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = tx.send(event).await;
            });
        }
    }
}

/// A server→client request the bridge cannot attribute to a client request (Q1).
fn not_routable(when: &str) -> ErrorData {
    ErrorData::new(
        codes::METHOD_NOT_FOUND,
        format!("the bridge has no client request to carry this {when}"),
    )
}

/// The task a server→client request names in `_meta.io.modelcontextprotocol/related-task`.
fn related_task(request: &ServerRequest) -> Option<String> {
    let value = serde_json::to_value(request).ok()?;
    value
        .get("params")?
        .get("_meta")?
        .get(mcp_wire::model::meta::keys::RELATED_TASK)?
        .get("taskId")?
        .as_str()
        .map(str::to_owned)
}

/// A superset `ClientRequest` from its JSON form (`method`, `params`).
pub(crate) fn client_request(value: Value) -> Result<ClientRequest, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::new(codes::INVALID_PARAMS, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_the_result_members_exact_text_wherever_it_stands() {
        let text = r#"{ "result" : {"content": [{"type":"text","text":"a \"q\""}]} , "id": 4, "jsonrpc":"2.0"}"#;
        let frame = Frame::parse(text.as_bytes().to_vec()).unwrap();
        let raw = RawFrame::split(frame.as_str()).unwrap();
        let answer = Answer::of(&frame, &raw).unwrap();
        assert_eq!(
            answer.text(),
            r#"{"content": [{"type":"text","text":"a \"q\""}]}"#
        );
        assert_eq!(answer.value()["content"][0]["text"], "a \"q\"");
        // An error response, a request: no answer.
        for other in [
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        ] {
            let frame = Frame::parse(other.as_bytes().to_vec()).unwrap();
            let raw = RawFrame::split(frame.as_str()).unwrap();
            assert!(Answer::of(&frame, &raw).is_none(), "{other}");
        }
    }
}
