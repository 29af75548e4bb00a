//! The downstream side: [`BridgeHandler`], a [`Handler`] for the transport's server runtime.
//!
//! The runtime serves the client on its own revision (stdio, Streamable HTTP on both wires,
//! 2024-11-05 HTTP+SSE), answers `initialize`/`server/discover`, `ping` and `logging/setLevel`
//! locally from the upstream's snapshot, and frames every answer with `serialize_for` at the
//! client's revision. Every other request is intercepted here and carried upstream: re-emitted
//! at the upstream's revision (stamped with the session's identity for a 2026-07-28 server,
//! stripped of the reserved identity keys for a legacy one), its answer read with
//! `parse_result_for` at the upstream's revision and handed back as the superset value.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_wire::jsonrpc::{ErrorData, JsonRpcResponse, codes};
use mcp_wire::model::meta::keys;
use mcp_wire::model::{
    ClientCapabilities, ClientRequest, ClientResult, Implementation, InitializeResult,
    InputRequest, InputResponse, InputResponses, LoggingLevel, RequestMeta, ServerCapabilities,
    ServerRequest, ServerResult, SubscriptionFilter,
};
use mcp_wire::wire::ledger::RESERVED_META;
use mcp_wire::{Era, JsonPath, ProtocolVersion};
use mcp_wire_transport::server::{
    Handler, HandlerError, Intercepted, ListenGuard, RequestContext, SessionHandle, capability_for,
    declares,
};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use crate::emit::{Emitter, emit_frame};
use crate::handshake_sessions::HandshakeSessions;
use crate::limits::{BridgeLimits, Reason};
use crate::listen::Listener;
use crate::report::{Dir, Report, Status};
use crate::stateless_to_handshake::{Downstream, StatelessToHandshake};
use crate::upstream::{Answer, LegEvent, LegHandle, Snapshot, Upstream, bridge_info};

/// The hard cap on one leg, however much progress extends it.
const LEG_HARD_CAP: std::time::Duration = std::time::Duration::from_secs(600);

/// How a legacy client's `initialize` capabilities become the 2026-07-28 `_meta`
/// `clientCapabilities` of every request stamped for it, one row per member.
const CLIENT_CAPABILITY_MAP: [(&str, CapabilityRule); 4] = [
    // D cannot report root changes: `listChanged` goes.
    ("roots", CapabilityRule::Empty),
    // A 2025-06-18 `elicitation: {}` is form mode.
    ("elicitation", CapabilityRule::FormIfEmpty),
    // Tasks are an extension at 2026-07-28, not in the pinned schema (Q8).
    ("tasks", CapabilityRule::Drop),
    ("sampling", CapabilityRule::Keep),
];

/// What [`CLIENT_CAPABILITY_MAP`] does with one member.
#[derive(Debug, Clone, Copy)]
enum CapabilityRule {
    Keep,
    Empty,
    FormIfEmpty,
    Drop,
}

/// The capability members a legacy client never sees from a 2026-07-28 server (A1, A15):
/// tasks are never advertised; `extensions` is 2026-07-28's.
const SERVER_CAPABILITIES_HIDDEN: [&str; 2] = ["tasks", "extensions"];

/// `_meta` keys of a 2026-07-28 result that mean nothing to a legacy client.
const STATELESS_RESULT_META: [&str; 2] = [keys::SERVER_INFO, keys::SUBSCRIPTION_ID];

/// A legacy client's identity as stamped on its 2026-07-28 requests.
struct Identity {
    /// `clientCapabilities`, by [`CLIENT_CAPABILITY_MAP`].
    capabilities: Value,
    /// `clientInfo` (the bridge's own when the client gave none).
    info: Value,
}

/// The bridge's [`Handler`]: the client-facing side of one upstream.
pub struct BridgeHandler {
    upstream: Arc<Upstream>,
    /// Direction A: the upstream listen stream (when the server offers anything to listen to).
    listener: Option<Arc<Listener>>,
    snapshot: Snapshot,
    advertised: ServerCapabilities,
    limits: BridgeLimits,
    report: Arc<Report>,
    emitter: Emitter,
    /// Direction A: each legacy session's stamped identity ([`BridgeHandler::identity_of`]);
    /// entries leave with their session.
    identities: Mutex<HashMap<String, Arc<Identity>>>,
    /// Direction A: the URIs each legacy session holds on the upstream listen stream (one
    /// reference per session and URI), released when the session ends without unsubscribing.
    subscribed: Mutex<HashMap<String, BTreeSet<String>>>,
    /// Direction B (a 2026-07-28 client in front of a legacy server), when the upstream is
    /// legacy.
    stateless_to_handshake: Option<StatelessToHandshake>,
}

impl BridgeHandler {
    pub(crate) fn new(
        upstream: Arc<Upstream>,
        listener: Option<Arc<Listener>>,
        snapshot: Snapshot,
        limits: BridgeLimits,
        report: Arc<Report>,
        emitter: Emitter,
        handshake_sessions: Option<HandshakeSessions>,
    ) -> Self {
        let advertised = advertised_capabilities(&snapshot, listener.is_some());
        let stateless_to_handshake = handshake_sessions.map(|sessions| {
            StatelessToHandshake::new(
                sessions,
                snapshot.clone(),
                &advertised,
                limits,
                report.clone(),
            )
        });
        Self {
            upstream,
            listener,
            snapshot,
            advertised,
            limits,
            report,
            emitter,
            identities: Mutex::new(HashMap::new()),
            subscribed: Mutex::new(HashMap::new()),
            stateless_to_handshake,
        }
    }

    /// Direction B's legacy sessions open now (one per client identity).
    pub async fn handshake_sessions(&self) -> usize {
        match &self.stateless_to_handshake {
            Some(b) => b.sessions().await,
            None => 0,
        }
    }

    /// Direction B's parked calls (calls waiting for a 2026-07-28 client's retry).
    pub fn parked_calls(&self) -> usize {
        self.stateless_to_handshake
            .as_ref()
            .map_or(0, StatelessToHandshake::parked)
    }

    /// Direction B's tasks (the tasks extension over the legacy server's core tasks).
    pub fn tasks(&self) -> usize {
        self.stateless_to_handshake
            .as_ref()
            .map_or(0, StatelessToHandshake::tasks)
    }

    fn stateless_upstream(&self) -> bool {
        self.snapshot.era() == Era::Stateless
    }

    /// Direction A: a legacy session's subscribe (`hold`) or unsubscribe of `uri` on the
    /// upstream listen stream, one reference per session and URI: a repeated subscribe, or an
    /// unsubscribe of a URI the session does not hold, changes nothing upstream.
    async fn hold(
        &self,
        listener: &Arc<Listener>,
        ctx: &RequestContext,
        uri: &str,
        hold: bool,
    ) -> Result<(), ErrorData> {
        let session = ctx.session_id().unwrap_or_default();
        // Claimed before the upstream change (so concurrent requests see it), undone if the
        // change fails.
        let flip = |hold: bool| {
            let mut held = self
                .subscribed
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let uris = held.entry(session.to_owned()).or_default();
            let changed = if hold {
                uris.insert(uri.to_owned())
            } else {
                uris.remove(uri)
            };
            if uris.is_empty() {
                held.remove(session);
            }
            changed
        };
        if !flip(hold) {
            return Ok(());
        }
        let changed = if hold {
            listener.subscribe(uri).await
        } else {
            listener.unsubscribe(uri).await
        };
        if changed.is_err() {
            flip(!hold);
        }
        changed
    }

    /// Direction A: the level a legacy client's session set (`logging/setLevel`, kept by the
    /// runtime with the session, so the same on every replica), stamped as `logLevel`; `None`
    /// outside a session or before one is set (the server stays quiet, Q6).
    fn level_of(&self, ctx: &RequestContext) -> Option<LoggingLevel> {
        ctx.session_id()?;
        ctx.log_level()
    }

    /// The identity stamped for `ctx`'s client: made once per legacy session (its
    /// `initialize` fixed it) and kept until the session ends; made per request otherwise.
    fn identity_of(&self, ctx: &RequestContext) -> Arc<Identity> {
        let made = || {
            Arc::new(Identity {
                capabilities: stateless_client_capabilities(ctx.client_capabilities()),
                info: serde_json::to_value(ctx.client_info().cloned().unwrap_or_else(bridge_info))
                    .unwrap_or(Value::Null),
            })
        };
        let Some(session) = ctx
            .session_id()
            .filter(|_| ctx.revision() != ProtocolVersion::LATEST_STATELESS)
        else {
            return made();
        };
        let mut identities = self
            .identities
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        identities
            .entry(session.to_owned())
            .or_insert_with(made)
            .clone()
    }

    /// Stamps the session's identity, capabilities and log level on a 2026-07-28 request's
    /// `_meta`.
    fn stamp(
        &self,
        ctx: &RequestContext,
        meta: &mut Map<String, Value>,
        sent_level: Option<Value>,
    ) {
        {
            meta.insert(
                keys::PROTOCOL_VERSION.into(),
                json!(ProtocolVersion::LATEST_STATELESS.as_str()),
            );
            let identity = self.identity_of(ctx);
            meta.insert(
                keys::CLIENT_CAPABILITIES.into(),
                identity.capabilities.clone(),
            );
            meta.insert(keys::CLIENT_INFO.into(), identity.info.clone());
            let level = if ctx.revision() == ProtocolVersion::LATEST_STATELESS {
                sent_level
            } else {
                self.level_of(ctx)
                    .and_then(|l| serde_json::to_value(l).ok())
            };
            if let Some(level) = level {
                meta.insert(keys::LOG_LEVEL.into(), level);
            }
        }
    }

    /// Carries one request upstream and its answer back (direction A's input-required rounds
    /// included).
    async fn forward(
        &self,
        ctx: &RequestContext,
        request: ClientRequest,
    ) -> Result<ServerResult, ErrorData> {
        let method = request.method();
        let from = ctx.revision();
        let to = self.upstream.revision();
        let mut sent = request;
        if from != ProtocolVersion::LATEST_STATELESS
            && let Some(members) = sent.retry_members_mut()
        {
            // In direction A the bridge alone runs the input rounds: a legacy client's own
            // `requestState` or `inputResponses` (members its revision does not have) would
            // forge a round the server never started (A12).
            *members.input_responses = None;
            *members.request_state = None;
        }
        // The request as first read is kept for retries only where one can come (a legacy
        // client's call to a 2026-07-28 server that may answer `input_required`).
        let retriable = from != ProtocolVersion::LATEST_STATELESS
            && self.stateless_upstream()
            && mcp_wire::wire::INPUT_REQUIRED_METHODS.contains(&method);
        let original = retriable.then(|| sent.clone());
        let mut rounds = 0usize;
        let mut backoff = self.limits.state_only_backoff;
        loop {
            let id = self.upstream.reserve_id();
            let outgoing = self.prepare(ctx, sent, id);
            let leg = self.upstream.start_leg(id, outgoing, Some(from)).await?;
            let answer = self.run_leg(ctx, leg, method).await?;
            let result = answer.read_result(method, to)?;
            let ServerResult::InputRequired(irr) = result else {
                return self.shape_for_client(result, method, ctx);
            };
            let Some(original) = &original else {
                // A 2026-07-28 client retries itself (pass-through); elsewhere the revision
                // read cannot type an `InputRequiredResult`.
                return Ok(ServerResult::InputRequired(irr));
            };
            // Direction A (A12): ask the client, retry with a fresh id.
            rounds += 1;
            if rounds > self.limits.max_input_rounds {
                return Err(Reason::MrtrRoundsExceeded.error(
                    format!(
                        "{method} asked for input {} times",
                        self.limits.max_input_rounds
                    ),
                    Some((to, from)),
                    None,
                ));
            }
            let requests = irr.input_requests.unwrap_or_default();
            let answers = if requests.is_empty() {
                tokio::time::sleep(backoff).await;
                backoff = backoff.saturating_mul(2);
                InputResponses::new()
            } else {
                // No leg is in flight while the client holds the questions: the upstream's
                // end must still fail the request at once.
                tokio::select! {
                    answers = Box::pin(self.gather_inputs(ctx, requests, method, to)) => answers?,
                    why = self.upstream.gone() => {
                        return Err(self.upstream.closed_error(&why, method));
                    }
                }
            };
            sent = with_inputs(original, answers, irr.request_state)?;
        }
    }

    /// Direction A: every input request of a round checked first (nothing is asked when one
    /// cannot be carried), then asked of the client as server→client requests.
    async fn gather_inputs(
        &self,
        ctx: &RequestContext,
        requests: indexmap::IndexMap<String, InputRequest>,
        method: &str,
        to: ProtocolVersion,
    ) -> Result<InputResponses, ErrorData> {
        let from = ctx.revision();
        if requests.len() > self.limits.max_inputs_per_round {
            return Err(Reason::InputRequestUntranslatable.error(
                format!(
                    "{method} asked for {} inputs at once; the bridge carries {}",
                    requests.len(),
                    self.limits.max_inputs_per_round
                ),
                Some((to, from)),
                None,
            ));
        }
        for (key, request) in &requests {
            let needed = capability_for(request);
            if !declares(ctx.client_capabilities(), needed) {
                return Err(Reason::InputRequestUntranslatable.error(
                    format!("input {key:?} needs the client capability {needed:?}, which the client did not declare"),
                    Some((to, from)),
                    Some(json!({"key": key, "requiredCapabilities": {needed: {}}})),
                ));
            }
            let probe = mcp_wire::jsonrpc::JsonRpcRequest::new(0, server_request(request.clone()));
            if let Err(e) = mcp_wire::wire::serialize_for(&probe, from) {
                return Err(Reason::InputRequestUntranslatable.error(
                    format!(
                        "input {key:?} ({}) has no form at {from}: {e}",
                        request.tag()
                    ),
                    Some((to, from)),
                    Some(json!({"key": key})),
                ));
            }
        }
        self.report.event(
            Dir::ToClient,
            method,
            Some(to),
            from,
            Status::Synthesized,
            format!(
                "input-required round: {} server→client request(s)",
                requests.len()
            ),
        );
        ctx.inputs(requests).await.map_err(|e| match e {
            HandlerError::Rpc(error) => Reason::ClientRefusedInput.error(
                format!(
                    "the client answered an input request with an error: {}",
                    error.message
                ),
                Some((to, from)),
                Some(json!({"error": error})),
            ),
            _ => Reason::InputRequestUntranslatable.error(
                "the client's session cannot carry input requests",
                Some((to, from)),
                None,
            ),
        })
    }

    /// Waits for a leg's answer, forwarding its progress and logs to the client and carrying
    /// the upstream's requests for input to it; cancels the leg on timeout.
    async fn run_leg(
        &self,
        ctx: &RequestContext,
        mut leg: LegHandle,
        method: &str,
    ) -> Result<Answer, ErrorData> {
        let started = Instant::now();
        let mut deadline = started + self.limits.request_timeout;
        let mut last_progress: Option<f64> = None;
        loop {
            match tokio::time::timeout_at(deadline, leg.next()).await {
                Ok(Some(LegEvent::Done(answer))) => {
                    leg.finished = true;
                    return answer;
                }
                Ok(Some(LegEvent::Progress(p))) => {
                    let value = p.progress.as_f64().unwrap_or(0.0);
                    // Legs restart their counts: only values above the last one go on (A11).
                    if last_progress.is_none_or(|last| value > last) {
                        last_progress = Some(value);
                        let total = p.total.as_ref().and_then(serde_json::Number::as_f64);
                        ctx.progress(value, total, p.message.as_deref()).await;
                    }
                    deadline = (Instant::now() + self.limits.request_timeout)
                        .min(started + LEG_HARD_CAP)
                        .max(deadline);
                }
                Ok(Some(LegEvent::Log(m))) => {
                    ctx.log(m.level, m.logger.as_deref(), m.data).await;
                }
                // Only listen legs are acknowledged (`listen`).
                Ok(Some(LegEvent::Ack(_))) => {}
                Ok(Some(LegEvent::Request(id, request))) => {
                    tokio::select! {
                        answer = Box::pin(self.ask_client(ctx, *request)) => {
                            self.upstream.respond(id, answer).await;
                        }
                        // The leg's `upstream_closed` answer is queued: the loop reads it
                        // next, whether or not the client ever answers.
                        _ = self.upstream.gone() => {}
                    }
                }
                Ok(None) => {
                    leg.finished = true;
                    return Err(Reason::UpstreamClosed.error("the upstream is gone", None, None));
                }
                Err(_) => {
                    leg.cancel("timeout");
                    self.report.event(
                        Dir::ToClient,
                        method,
                        None,
                        ctx.revision(),
                        Status::Synthesized,
                        "timeout",
                    );
                    return Err(Reason::Timeout.error(
                        format!("the upstream did not answer {method} in time"),
                        None,
                        None,
                    ));
                }
            }
        }
    }

    /// A legacy upstream's server→client request, carried to the client on the request's
    /// stream (direction C); a client without the capability makes it -32601, as a legacy
    /// client without it would answer.
    async fn ask_client(
        &self,
        ctx: &RequestContext,
        request: ServerRequest,
    ) -> Result<ClientResult, ErrorData> {
        let input = match request {
            ServerRequest::CreateMessage(r) => InputRequest::CreateMessage(r),
            ServerRequest::ListRoots(r) => InputRequest::ListRoots(r),
            ServerRequest::Elicit(r) => InputRequest::Elicit(r),
            other => {
                return Err(ErrorData::new(
                    codes::METHOD_NOT_FOUND,
                    format!("{} is not carried", other.method()),
                ));
            }
        };
        let needed = capability_for(&input);
        if !declares(ctx.client_capabilities(), needed) {
            return Err(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("the client did not declare the {needed} capability"),
            ));
        }
        match ctx.input("upstream", input).await {
            Ok(InputResponse::CreateMessage(r)) => Ok(ClientResult::CreateMessage(r)),
            Ok(InputResponse::ListRoots(r)) => Ok(ClientResult::ListRoots(r)),
            Ok(InputResponse::Elicit(r)) => Ok(ClientResult::Elicit(r)),
            Ok(_) => Err(ErrorData::new(
                codes::INTERNAL_ERROR,
                "unexpected answer type",
            )),
            Err(HandlerError::Rpc(e)) => Err(e),
            Err(_) => Err(ErrorData::new(
                codes::INTERNAL_ERROR,
                "the client's request cannot carry input requests",
            )),
        }
    }

    /// `logging/setLevel` from a legacy client: refused without the capability; carried to a
    /// legacy upstream; remembered for stamping toward a 2026-07-28 one (A4).
    async fn set_level(&self, ctx: &RequestContext, request: &ClientRequest) -> Option<ErrorData> {
        let ClientRequest::SetLevel(_) = request else {
            return None;
        };
        if self.advertised.logging.is_none() {
            return Some(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                "the server does not offer logging",
            ));
        }
        if self.stateless_upstream() {
            // The runtime keeps the level with the session (`Intercepted::Continue`).
            self.report.event(
                Dir::ToClient,
                "logging/setLevel",
                Some(ctx.revision()),
                ctx.revision(),
                Status::Synthesized,
                "answered by the bridge; the level is stamped as logLevel on later requests",
            );
            return None;
        }
        self.forward(ctx, request.clone()).await.err()
    }
}

impl Downstream for BridgeHandler {
    /// The request as the upstream gets it: `_meta` cleaned of the reserved identity keys,
    /// stamped for a 2026-07-28 upstream, and the progress token replaced by the leg id (tokens
    /// of different sessions must not collide upstream). Everything else is the request as read.
    fn prepare(&self, ctx: &RequestContext, mut request: ClientRequest, leg: i64) -> ClientRequest {
        let mut meta = request.take_meta().unwrap_or_default();
        let sent_level = meta.get(keys::LOG_LEVEL).cloned();
        for key in RESERVED_META.iter().map(|reserved| reserved.key) {
            meta.shift_remove(key);
        }
        if meta.contains_key(keys::PROGRESS_TOKEN) {
            meta.insert(keys::PROGRESS_TOKEN.into(), json!(leg));
        }
        if self.stateless_upstream() {
            // The keys before the stamp, only for a report of what it injected.
            let before: Option<Vec<String>> = self
                .report
                .enabled()
                .then(|| meta.keys().cloned().collect());
            self.stamp(ctx, &mut meta, sent_level);
            if let Some(before) = before {
                let injected = meta
                    .keys()
                    .filter(|k| !before.contains(k))
                    .map(|k| {
                        JsonPath::root()
                            .key("params")
                            .key("_meta")
                            .key(k.as_str())
                            .pointer()
                    })
                    .collect();
                self.report.stamped(
                    request.method(),
                    ctx.revision(),
                    ProtocolVersion::LATEST_STATELESS,
                    injected,
                );
            }
        }
        if !meta.is_empty() {
            *request.meta_mut() = meta;
        }
        request
    }

    /// The upstream's result as the client's revision has it: 2026-07-28-only `_meta` keys
    /// go for a legacy client; the emission at the client's revision is checked (and reported)
    /// here, so a refusal reaches the client with its reason. Not when [`same_wire`] holds: a
    /// result read at the client's own revision meets that revision's emission contract, so
    /// there is nothing to refuse and, with the report off, nothing to record.
    fn shape_for_client(
        &self,
        mut result: ServerResult,
        method: &str,
        ctx: &RequestContext,
    ) -> Result<ServerResult, ErrorData> {
        let to = ctx.revision();
        let from = self.upstream.revision();
        if to != ProtocolVersion::LATEST_STATELESS {
            strip_stateless_meta(&mut result);
        }
        if !same_wire(from, to, &self.report, self.emitter) {
            emit_frame(
                &JsonRpcResponse::new(ctx.request_id().clone(), result.clone()),
                Dir::ToClient,
                method,
                Some(from),
                to,
                &self.report,
                self.emitter,
            )?;
        }
        Ok(result)
    }
}

impl Handler for BridgeHandler {
    fn server_info(&self) -> Implementation {
        self.snapshot.server_info.clone()
    }

    fn capabilities(&self) -> ServerCapabilities {
        self.advertised.clone()
    }

    fn instructions(&self) -> Option<String> {
        self.snapshot.instructions.clone()
    }

    async fn intercept(&self, ctx: RequestContext, request: ClientRequest) -> Intercepted {
        let refuse = |e: ErrorData| Intercepted::Answered(Err(HandlerError::Rpc(e)));
        if ctx.revision() == ProtocolVersion::LATEST_STATELESS
            && let Some(b) = &self.stateless_to_handshake
        {
            // Boxed, as are the other rare paths below (input rounds, server requests): their
            // futures would otherwise make every request's future their size.
            return Intercepted::Answered(
                Box::pin(b.answer(self, &ctx, request))
                    .await
                    .map_err(HandlerError::Rpc),
            );
        }
        match &request {
            // Answered by the runtime from the snapshot (A3, B2).
            ClientRequest::Ping(_) | ClientRequest::Discover(_) | ClientRequest::Initialize(_) => {
                Intercepted::Continue(ctx, request)
            }
            ClientRequest::SetLevel(_) => match self.set_level(&ctx, &request).await {
                Some(e) => refuse(e),
                // The runtime keeps the session's level too (it filters the logs it forwards).
                None => Intercepted::Continue(ctx, request),
            },
            ClientRequest::Subscribe(_) | ClientRequest::Unsubscribe(_) => {
                let carried = if self.stateless_upstream() {
                    // A8: the URI joins (or leaves) the upstream listen stream's filter.
                    let subscribe = self
                        .advertised
                        .resources
                        .as_ref()
                        .and_then(|r| r.subscribe)
                        .unwrap_or(false);
                    match (&self.listener, &request) {
                        (Some(l), ClientRequest::Subscribe(r)) if subscribe => {
                            self.hold(l, &ctx, &r.params.uri, true).await
                        }
                        (Some(l), ClientRequest::Unsubscribe(r)) if subscribe => {
                            self.hold(l, &ctx, &r.params.uri, false).await
                        }
                        _ => Err(ErrorData::new(
                            codes::METHOD_NOT_FOUND,
                            "the server does not offer resource subscriptions",
                        )),
                    }
                    .map(|()| ServerResult::Empty(Default::default()))
                } else {
                    self.forward(&ctx, request.clone()).await
                };
                match carried {
                    // The runtime records the subscription (it delivers the updates).
                    Ok(_) => Intercepted::Continue(ctx, request),
                    Err(e) => refuse(e),
                }
            }
            // A15: tasks are never advertised.
            ClientRequest::GetTask(_)
            | ClientRequest::GetTaskPayload(_)
            | ClientRequest::ListTasks(_)
            | ClientRequest::CancelTask(_) => refuse(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("{}: the bridge does not offer tasks", request.method()),
            )),
            ClientRequest::CallTool(r) if r.params.task.is_some() => refuse(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                "task-augmented tools/call: the bridge does not offer tasks",
            )),
            _ => {
                Intercepted::Answered(self.forward(&ctx, request).await.map_err(HandlerError::Rpc))
            }
        }
    }

    async fn listen(
        &self,
        ctx: &RequestContext,
        filter: SubscriptionFilter,
    ) -> Result<(SubscriptionFilter, Option<ListenGuard>), ErrorData> {
        match &self.stateless_to_handshake {
            // B7: emulated with the legacy server's subscriptions and list changes.
            Some(b) => b.listen(ctx, filter).await,
            // A 2026-07-28 upstream: the bridge's own listen stream upstream feeds it.
            None => Ok((filter, None)),
        }
    }

    fn session_started(
        &self,
        session: &SessionHandle,
        result: &mut InitializeResult,
    ) -> Result<(), ErrorData> {
        let _ = result;
        self.upstream.add_session(session.clone());
        let source = match self.snapshot.era() {
            Era::Stateless => "server/discover".to_owned(),
            Era::Handshake => format!("initialize at {}", self.snapshot.revision),
        };
        self.report.event(
            Dir::ToClient,
            "initialize",
            Some(self.snapshot.revision),
            session.revision(),
            Status::Synthesized,
            format!("answered by the bridge from the upstream's {source}"),
        );
        Ok(())
    }

    fn session_ended(&self, session_id: &str) {
        self.identities
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session_id);
        let held = self
            .subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session_id);
        // A8: a session that ends subscribed gives its URIs back, so the upstream listen
        // stream stops carrying what no client holds.
        if let (Some(uris), Some(listener), Ok(runtime)) = (
            held,
            self.listener.clone(),
            tokio::runtime::Handle::try_current(),
        ) {
            runtime.spawn(async move {
                for uri in uris {
                    let _ = listener.unsubscribe(&uri).await;
                }
            });
        }
    }
}

/// Removes [`STATELESS_RESULT_META`] from a result's `_meta` (and `_meta` itself when nothing
/// else is left), in place.
fn strip_stateless_meta(result: &mut ServerResult) {
    if let Some(slot) = result_meta_slot(result)
        && let Some(meta) = slot.as_mut()
    {
        for key in STATELESS_RESULT_META {
            meta.shift_remove(key);
        }
        if meta.is_empty() {
            *slot = None;
        }
    }
}

/// A result's `_meta` slot, for removing keys (`None` for a member without one).
fn result_meta_slot(result: &mut ServerResult) -> Option<&mut Option<mcp_wire::model::Meta>> {
    Some(match result {
        ServerResult::Empty(r) => &mut r.meta,
        ServerResult::Initialize(r) => &mut r.meta,
        ServerResult::Discover(r) => &mut r.meta,
        ServerResult::Complete(r) => &mut r.meta,
        ServerResult::GetPrompt(r) => &mut r.meta,
        ServerResult::ListPrompts(r) => &mut r.meta,
        ServerResult::ListResources(r) => &mut r.meta,
        ServerResult::ListResourceTemplates(r) => &mut r.meta,
        ServerResult::ReadResource(r) => &mut r.meta,
        ServerResult::CallTool(r) => &mut r.meta,
        ServerResult::ListTools(r) => &mut r.meta,
        ServerResult::SubscriptionsListen(r) => &mut r.meta,
        ServerResult::InputRequired(r) => &mut r.meta,
        ServerResult::CreateTask(r) => &mut r.meta,
        ServerResult::GetTask(r) => &mut r.meta,
        ServerResult::GetTaskPayload(r) => &mut r.meta,
        ServerResult::ListTasks(r) => &mut r.meta,
        ServerResult::TaskCreated(r) => &mut r.meta,
        ServerResult::DetailedTask(r) => &mut r.meta,
        #[allow(unreachable_patterns)]
        _ => return None,
    })
}

/// Whether a frame read at `from` goes out at `to` with nothing for the boundary to do: the
/// same revision both sides, the default (not strict) emission, and no report to write. The
/// bridge's shortcuts (no re-check of a result's emission, the request emitted straight from
/// its typed form) are taken only then; anything else takes the translating path.
pub(crate) fn same_wire(
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: &Report,
    emitter: Emitter,
) -> bool {
    from == to && !emitter.strict && !report.enabled()
}

/// The capabilities the client is offered: the upstream's, minus what the bridge does not
/// carry (tasks, `extensions`; for a 2026-07-28 upstream without a listen stream also
/// subscriptions and list changes).
fn advertised_capabilities(snapshot: &Snapshot, listening: bool) -> ServerCapabilities {
    let mut caps = serde_json::to_value(&snapshot.capabilities).unwrap_or_else(|_| json!({}));
    if let Some(map) = caps.as_object_mut() {
        for key in SERVER_CAPABILITIES_HIDDEN {
            map.shift_remove(key);
        }
        if snapshot.era() == Era::Stateless && !listening {
            for area in ["tools", "prompts", "resources"] {
                if let Some(a) = map.get_mut(area).and_then(Value::as_object_mut) {
                    a.shift_remove("listChanged");
                    a.shift_remove("subscribe");
                }
            }
        }
    }
    serde_json::from_value(caps).unwrap_or_else(|_| snapshot.capabilities.clone())
}

/// A legacy client's capabilities as a 2026-07-28 request's `clientCapabilities`
/// ([`CLIENT_CAPABILITY_MAP`]; unknown members are copied).
fn stateless_client_capabilities(caps: &ClientCapabilities) -> Value {
    let mut value = serde_json::to_value(caps).unwrap_or_else(|_| json!({}));
    if let Some(map) = value.as_object_mut() {
        for (member, rule) in CLIENT_CAPABILITY_MAP {
            let Some(current) = map.get_mut(member) else {
                continue;
            };
            match rule {
                CapabilityRule::Keep => {}
                CapabilityRule::Empty => *current = json!({}),
                CapabilityRule::FormIfEmpty => {
                    if current.as_object().is_some_and(Map::is_empty) {
                        *current = json!({"form": {}});
                    }
                }
                CapabilityRule::Drop => {
                    map.shift_remove(member);
                }
            }
        }
    }
    value
}

/// The retry of an input-required round: the original request plus `inputResponses` and the
/// exact `requestState`.
fn with_inputs(
    original: &ClientRequest,
    answers: InputResponses,
    state: Option<String>,
) -> Result<ClientRequest, ErrorData> {
    let mut next = original.clone();
    let members = next.retry_members_mut().ok_or_else(|| {
        ErrorData::new(
            codes::INTERNAL_ERROR,
            format!("{} cannot be retried with input", original.method()),
        )
    })?;
    *members.input_responses = (!answers.is_empty()).then_some(answers);
    *members.request_state = state;
    Ok(next)
}

fn server_request(request: InputRequest) -> ServerRequest {
    match request {
        InputRequest::CreateMessage(r) => ServerRequest::CreateMessage(r),
        InputRequest::ListRoots(r) => ServerRequest::ListRoots(r),
        InputRequest::Elicit(r) => ServerRequest::Elicit(r),
        #[allow(unreachable_patterns)]
        _ => ServerRequest::Ping(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_capabilities_become_modern_ones_by_the_table() {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "roots": {"listChanged": true},
            "elicitation": {},
            "sampling": {},
            "tasks": {"list": {}},
            "experimental": {"x": {}}
        }))
        .unwrap();
        assert_eq!(
            stateless_client_capabilities(&caps),
            json!({"experimental": {"x": {}}, "roots": {}, "sampling": {}, "elicitation": {"form": {}}})
        );
    }

    #[test]
    fn shortcuts_are_taken_only_where_the_boundary_has_nothing_to_do() {
        use ProtocolVersion::{V2025_06_18, V2025_11_25};
        let none = Report::none();
        let plain = Emitter::default();
        assert!(same_wire(V2025_11_25, V2025_11_25, &none, plain));
        assert!(same_wire(
            ProtocolVersion::LATEST_STATELESS,
            ProtocolVersion::LATEST_STATELESS,
            &none,
            plain
        ));
        // Another revision: the ledger may strip, inject or refuse.
        assert!(!same_wire(V2025_06_18, V2025_11_25, &none, plain));
        assert!(!same_wire(
            ProtocolVersion::LATEST_STATELESS,
            V2025_11_25,
            &none,
            plain
        ));
        // Strict emission strips what the default passes.
        assert!(!same_wire(
            V2025_11_25,
            V2025_11_25,
            &none,
            Emitter { strict: true }
        ));
        // A report records every emission.
        let path = std::env::temp_dir().join(format!("same-wire-{}.jsonl", std::process::id()));
        let report = Report::to_file(&path).unwrap();
        assert!(!same_wire(V2025_11_25, V2025_11_25, &report, plain));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn modern_meta_keys_leave_a_result_for_a_legacy_client() {
        let mut result =
            Answer::of_result(&json!({"content": [], "resultType": "complete", "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"},
                "io.modelcontextprotocol/subscriptionId": 3}}))
            .read_result("tools/call", ProtocolVersion::LATEST_STATELESS)
            .unwrap();
        strip_stateless_meta(&mut result);
        assert!(result.meta().is_none(), "{result:?}");
        // Other keys stay.
        let mut result = Answer::of_result(&json!({"tools": [], "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"},
                "x/y": 1}}))
        .read_result("tools/list", ProtocolVersion::LATEST_STATELESS)
        .unwrap();
        strip_stateless_meta(&mut result);
        assert_eq!(
            serde_json::to_value(result.meta()).unwrap(),
            json!({"x/y": 1})
        );
    }

    #[test]
    fn retries_carry_answers_and_the_exact_state() {
        let original: ClientRequest = serde_json::from_value(
            json!({"method": "tools/call", "params": {"name": "t", "inputResponses": {"old": {"roots": []}}}}),
        )
        .unwrap();
        let answers: InputResponses =
            serde_json::from_value(json!({"k": {"action": "accept", "content": {"a": 1}}}))
                .unwrap();
        let next =
            serde_json::to_value(with_inputs(&original, answers, Some("s t/a=te".into())).unwrap())
                .unwrap();
        assert_eq!(next["params"]["requestState"], "s t/a=te");
        assert_eq!(next["params"]["inputResponses"]["k"]["action"], "accept");
        assert!(next["params"]["inputResponses"].get("old").is_none());
        let bare =
            serde_json::to_value(with_inputs(&original, InputResponses::new(), None).unwrap())
                .unwrap();
        assert!(bare["params"].get("inputResponses").is_none());
        assert!(bare["params"].get("requestState").is_none());
        // Only the requests an input-required answer can come to are retried.
        let list: ClientRequest = serde_json::from_value(json!({"method": "tools/list"})).unwrap();
        let e = with_inputs(&list, InputResponses::new(), None).unwrap_err();
        assert_eq!(e.code, codes::INTERNAL_ERROR);
    }

    #[test]
    fn results_the_revision_forbids_get_their_reason() {
        let e = Answer::of_result(&json!({"resultType": "input_required", "inputRequests": {}}))
            .read_result("tools/list", ProtocolVersion::LATEST_STATELESS)
            .unwrap_err();
        assert_eq!(e.data.unwrap()["reason"], "mrtr_forbidden_method");
        let e = Answer::of_result(&json!({"resultType": "later", "content": []}))
            .read_result("tools/call", ProtocolVersion::LATEST_STATELESS)
            .unwrap_err();
        assert_eq!(e.data.unwrap()["reason"], "unknown_result_type");
    }
}
