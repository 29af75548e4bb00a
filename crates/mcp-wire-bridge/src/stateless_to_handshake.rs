//! Direction B: a 2026-07-28 client in front of a legacy server. The row labels below (B3,
//! B9, Q8, …) are those of the behaviour tables and decision log in `docs/bridge.md`.
//!
//! - `server/discover` is answered from the upstream's `InitializeResult`
//!   ([`StatelessToHandshake::discover`], B2); the methods 2026-07-28 removed are refused -32601 (B3).
//! - Every other request goes to the legacy session of its identity
//!   ([`crate::handshake_sessions`]), stripped of the reserved identity keys and of the retry's
//!   own members; its answer is read at the legacy revision and emitted at 2026-07-28, where
//!   the boundary adds `resultType` and the cache hints and the runtime `_meta.serverInfo`
//!   (B4–B6). Legacy errors are mapped by [`error_for_stateless_client`] (B17).
//! - A legacy server→client request raised during a `tools/call`, `prompts/get` or
//!   `resources/read` turns the call's answer into an `InputRequiredResult` and parks the
//!   call ([`crate::park`]); the client's retry answers the waiting requests and the call goes
//!   on, to its result or to the next round (B9). A request the client's capabilities do not
//!   cover is answered -32601 to the server, as a legacy client without it would; if the call
//!   then fails, the client gets -32021 naming the capability (Q20). A request raised outside
//!   such a call is answered -32601 (B10).
//! - Progress goes to the current request's token, only increasing (B12); logs go to the
//!   request at or above its `_meta` level, none without one (B13, the runtime's filter).
//! - A listen stream is narrowed to what the legacy server offers and its URIs subscribed
//!   upstream, reference-counted, for as long as it lives (B7, [`StatelessToHandshake::listen`]).
//! - A legacy server with 2025-11-25 core tasks for `tools/call` is offered as the tasks
//!   extension (Q8): declaring clients' calls of its task tools go upstream task-augmented and
//!   their tasks live in [`crate::tasks`]; `tasks/get`, `tasks/update`, `tasks/cancel` are
//!   answered there (-32021 without the extension declared); `tasks/result` and `tasks/list`
//!   are not the extension's (-32601).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use indexmap::IndexMap;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire::model::{
    ClientRequest, DiscoverResult, GetDetailedTaskResult, InputRequest, InputRequiredResult,
    InputResponse, Meta, ServerCapabilities, ServerResult, SubscriptionFilter, TaskSupport, Tool,
    meta::keys,
};
use mcp_wire::wire::INPUT_REQUIRED_METHODS;
use mcp_wire_transport::server::{
    Change, HandlerError, ListenGuard, RequestContext, check_param_headers,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::handshake_sessions::{HandshakeSessions, Identity, identity_of};
use crate::input_rounds::{admit, client_result, error_for_stateless_client};
use crate::limits::{BridgeLimits, Reason};
use crate::park::{Abandon, Call, Parks, Pending, params_digest};
use crate::report::{Dir, Report, Status};
use crate::tasks::{self, Tasks};
use crate::upstream::{LegEvent, Snapshot, Upstream, client_request};

/// What these paths need from the handler that faces the client: a request made ready for
/// the upstream (its `_meta` restated, its progress token the leg's), and a result shaped for
/// the client's revision.
pub(crate) trait Downstream: Sync {
    /// `request` as it goes upstream on leg `leg`.
    fn prepare(&self, ctx: &RequestContext, request: ClientRequest, leg: i64) -> ClientRequest;
    /// `result` (the upstream's answer to `method`) as the client's revision carries it.
    fn shape_for_client(
        &self,
        result: ServerResult,
        method: &str,
        ctx: &RequestContext,
    ) -> Result<ServerResult, ErrorData>;
}

/// Each identity's tool list and the list generation it was read at.
type ToolCache = HashMap<String, (u64, Arc<Vec<Tool>>)>;

/// Pages of `tools/list` read for the `Mcp-Param-*` check.
const MAX_TOOL_PAGES: usize = 16;

/// The params members of a retry that a legacy server never sees.
const RETRY_MEMBERS: [&str; 2] = ["inputResponses", "requestState"];

/// B11: the `inputRequests` keys of a legacy -32042's URL elicitations (`url-elicitation-1`,
/// …), recognised in the retry that follows.
const URL_KEY: &str = "url-elicitation-";
/// The URL elicitations one -32042 may turn into a round.
const MAX_URL_ELICITATIONS: usize = 8;

/// Capability members a 2026-07-28 client is not offered in front of a legacy server: core
/// tasks (2025-11-25) are offered as the tasks extension instead (Q8, [`crate::tasks`]).
const DISCOVER_HIDDEN: [&str; 1] = ["/tasks"];

/// Listen streams open at once (B7).
const MAX_LISTENS: usize = 16;
/// Resource URIs one listen stream may name.
const MAX_LISTEN_URIS: usize = 256;

/// Direction B's state: the legacy sessions and the parked calls.
pub(crate) struct StatelessToHandshake {
    sessions: HandshakeSessions,
    parks: Arc<Parks>,
    limits: BridgeLimits,
    report: Arc<Report>,
    snapshot: Snapshot,
    capabilities: ServerCapabilities,
    /// Each identity's tool list (for the `Mcp-Param-*` check), with the list generation it
    /// was read at.
    tools: Mutex<ToolCache>,
    /// Bumped by every upstream tool list change.
    tools_generation: Arc<AtomicU64>,
    /// The upstream resource subscriptions listen streams hold (B7).
    subscriptions: Arc<Subscriptions>,
    /// The tasks extension's tasks, when the legacy server offers core tasks for `tools/call`
    /// or the bridge hosts tasks ([`BridgeLimits::host_tasks_after`]) (Q8).
    tasks: Option<Arc<Tasks>>,
    /// Whether the legacy server offers core tasks for `tools/call`.
    core_tasks: bool,
}

/// The upstream `resources/subscribe`s of the listen streams, reference-counted per legacy
/// session and URI, and the number of streams open.
#[derive(Default)]
struct Subscriptions {
    counts: Mutex<HashMap<(String, String), usize>>,
    streams: AtomicU64,
}

/// What one listen stream holds: its URIs' references (released, and unsubscribed upstream
/// at zero, when the stream ends).
struct ListenHold {
    subscriptions: Arc<Subscriptions>,
    session: Option<(String, Arc<Upstream>)>,
    uris: Vec<String>,
}

impl Drop for ListenHold {
    fn drop(&mut self) {
        self.subscriptions.streams.fetch_sub(1, Ordering::Relaxed);
        let Some((key, session)) = self.session.take() else {
            return;
        };
        let released: Vec<String> = {
            let mut counts = self
                .subscriptions
                .counts
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.uris
                .drain(..)
                .filter(|uri| {
                    let k = (key.clone(), uri.clone());
                    match counts.get_mut(&k) {
                        Some(n) if *n > 1 => {
                            *n -= 1;
                            false
                        }
                        Some(_) => {
                            counts.remove(&k);
                            true
                        }
                        None => false,
                    }
                })
                .collect()
        };
        if released.is_empty() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                for uri in released {
                    let _ = resource_request(&session, "resources/unsubscribe", &uri).await;
                }
            });
        }
    }
}

/// Sends `resources/subscribe` or `unsubscribe` for `uri` on `session` and waits (bounded).
async fn resource_request(
    session: &Arc<Upstream>,
    method: &str,
    uri: &str,
) -> Result<(), ErrorData> {
    let request = client_request(json!({"method": method, "params": {"uri": uri}}))?;
    let id = session.reserve_id();
    let mut leg = session
        .start_leg(id, request, Some(ProtocolVersion::LATEST_STATELESS))
        .await?;
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, leg.next()).await {
            Ok(Some(LegEvent::Done(answer))) => {
                leg.finished = true;
                return answer.map(|_| ());
            }
            Ok(Some(_)) => {}
            Ok(None) => {
                leg.finished = true;
                return Err(Reason::UpstreamClosed.error("the upstream is gone", None, None));
            }
            Err(_) => {
                return Err(Reason::Timeout.error(
                    format!("no answer to {method} in time"),
                    None,
                    None,
                ));
            }
        }
    }
}

impl StatelessToHandshake {
    /// Direction B in front of the legacy server of `snapshot`, offering `advertised`.
    pub(crate) fn new(
        sessions: HandshakeSessions,
        snapshot: Snapshot,
        advertised: &ServerCapabilities,
        limits: BridgeLimits,
        report: Arc<Report>,
    ) -> Self {
        let mut caps = serde_json::to_value(advertised).unwrap_or_else(|_| json!({}));
        for pointer in DISCOVER_HIDDEN {
            let (parent, member) = pointer.rsplit_once('/').unwrap_or(("", pointer));
            if let Some(obj) = caps.pointer_mut(parent).and_then(Value::as_object_mut) {
                obj.shift_remove(member);
            }
        }
        let capabilities = serde_json::from_value(caps).unwrap_or_else(|_| advertised.clone());
        let tools_generation = Arc::new(AtomicU64::new(0));
        let mut changes = sessions.changes().subscribe();
        let generation = Arc::downgrade(&tools_generation);
        tokio::spawn(async move {
            loop {
                match changes.recv().await {
                    Ok(Change::ToolsListChanged)
                    | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        match generation.upgrade() {
                            Some(g) => g.fetch_add(1, Ordering::Relaxed),
                            None => break,
                        };
                    }
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        Self {
            sessions,
            parks: Parks::new(limits.max_parked, limits.park_ttl),
            limits,
            report,
            capabilities,
            tools: Mutex::new(HashMap::new()),
            tools_generation,
            subscriptions: Arc::default(),
            tasks: (tasks::core_offered(&snapshot.capabilities)
                || limits.host_tasks_after.is_some())
            .then(|| Tasks::new(limits)),
            core_tasks: tasks::core_offered(&snapshot.capabilities),
            snapshot,
        }
    }

    /// A listen stream opens (B7): the filter narrowed to what the legacy server offers, each
    /// URI subscribed upstream on the identity's session (reference-counted; a URI the server
    /// refuses is left out of the acknowledgement), held until the stream ends.
    pub(crate) async fn listen(
        &self,
        ctx: &RequestContext,
        filter: SubscriptionFilter,
    ) -> Result<(SubscriptionFilter, Option<ListenGuard>), ErrorData> {
        let caps = serde_json::to_value(&self.snapshot.capabilities).unwrap_or(Value::Null);
        let offers = |pointer: &str| caps.pointer(pointer) == Some(&json!(true));
        let mut granted = SubscriptionFilter::new();
        let asked = |flag: Option<bool>| flag == Some(true);
        granted.tools_list_changed =
            (asked(filter.tools_list_changed) && offers("/tools/listChanged")).then_some(true);
        granted.prompts_list_changed =
            (asked(filter.prompts_list_changed) && offers("/prompts/listChanged")).then_some(true);
        granted.resources_list_changed = (asked(filter.resources_list_changed)
            && offers("/resources/listChanged"))
        .then_some(true);
        let uris = filter.resource_subscriptions.clone().unwrap_or_default();
        if uris.len() > MAX_LISTEN_URIS {
            return Err(ErrorData::new(
                codes::INVALID_PARAMS,
                format!("a listen stream names at most {MAX_LISTEN_URIS} resources"),
            ));
        }
        if self.subscriptions.streams.fetch_add(1, Ordering::Relaxed) >= MAX_LISTENS as u64 {
            self.subscriptions.streams.fetch_sub(1, Ordering::Relaxed);
            return Err(Reason::LimitExceeded.error(
                format!("the bridge carries at most {MAX_LISTENS} listen streams"),
                None,
                None,
            ));
        }
        let mut hold = ListenHold {
            subscriptions: self.subscriptions.clone(),
            session: None,
            uris: Vec::new(),
        };
        if !uris.is_empty() && offers("/resources/subscribe") {
            let identity = identity_of(ctx);
            let session = self.sessions.get(&identity).await?;
            let key = identity.key();
            for uri in uris {
                if hold.uris.contains(&uri) {
                    continue;
                }
                let first = {
                    let mut counts = self
                        .subscriptions
                        .counts
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    let n = counts.entry((key.clone(), uri.clone())).or_insert(0);
                    *n += 1;
                    *n == 1
                };
                if first
                    && resource_request(&session, "resources/subscribe", &uri)
                        .await
                        .is_err()
                {
                    self.subscriptions
                        .counts
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .remove(&(key.clone(), uri.clone()));
                    continue;
                }
                hold.uris.push(uri);
            }
            if !hold.uris.is_empty() {
                granted.resource_subscriptions = Some(hold.uris.clone());
            }
            hold.session = Some((key, session));
        }
        Ok((granted, Some(Box::new(hold))))
    }

    /// The tools `identity`'s session lists, read once per tool list generation.
    async fn tools(
        &self,
        handler: &dyn Downstream,
        ctx: &RequestContext,
        identity: &Identity,
        session: &Arc<Upstream>,
    ) -> Result<Arc<Vec<Tool>>, ErrorData> {
        let key = identity.key();
        let generation = self.tools_generation.load(Ordering::Relaxed);
        if let Some((g, tools)) = self.lock_tools().get(&key)
            && *g == generation
        {
            return Ok(tools.clone());
        }
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let request = client_request(json!({"method": "tools/list", "params": params}))?;
            let id = session.reserve_id();
            let leg = session
                .start_leg(id, request, Some(ProtocolVersion::LATEST_STATELESS))
                .await?;
            let turn = Turn {
                method: "tools/list",
                principal: &identity.principal,
                digest: [0; 32],
                uri: None,
            };
            let ServerResult::ListTools(page) = self
                .drive(handler, ctx, Call::new(session.clone(), leg), &turn)
                .await?
            else {
                return Err(Reason::InvalidUpstreamAnswer.error(
                    "tools/list did not answer a tool list",
                    None,
                    None,
                ));
            };
            all.extend(page.tools);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        let tools = Arc::new(all);
        let mut cache = self.lock_tools();
        if cache.len() >= self.limits.max_handshake_sessions {
            cache.clear();
        }
        cache.insert(key, (generation, tools.clone()));
        Ok(tools)
    }

    fn lock_tools(&self) -> std::sync::MutexGuard<'_, ToolCache> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Legacy sessions open now.
    pub(crate) async fn sessions(&self) -> usize {
        self.sessions.len().await
    }

    /// Calls parked now.
    pub(crate) fn parked(&self) -> usize {
        self.parks.len()
    }

    /// `server/discover` from the legacy `InitializeResult` (B2, Q9, Q12): the
    /// one modern version the bridge serves, the legacy capabilities minus
    /// [`DISCOVER_HIDDEN`], the upstream's `serverInfo` and instructions. Only 2026-07-28,
    /// where the runtime lists every revision offered: these capabilities describe the
    /// 2026-07-28 front, not the upstream's own handshake that a client reaches at a
    /// handshake revision through `initialize` (Q9).
    pub(crate) fn discover(&self) -> DiscoverResult {
        let mut capabilities = self.capabilities.clone();
        if self.tasks.is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(mcp_wire::model::TASKS_EXTENSION_ID.to_owned(), json!({}));
        }
        let mut result = DiscoverResult::new(
            vec![ProtocolVersion::LATEST_STATELESS.as_str().to_owned()],
            capabilities,
        );
        result.instructions = self.snapshot.instructions.clone();
        let mut meta = Meta::new();
        meta.set(keys::SERVER_INFO, self.snapshot.server_info.clone());
        result.meta = Some(meta);
        result
    }

    /// Answers one 2026-07-28 request.
    pub(crate) async fn answer(
        &self,
        handler: &dyn Downstream,
        ctx: &RequestContext,
        request: ClientRequest,
    ) -> Result<ServerResult, ErrorData> {
        let method = request.method();
        match &request {
            ClientRequest::Discover(_) => {
                self.report.event(
                    Dir::ToClient,
                    method,
                    Some(self.snapshot.revision),
                    ProtocolVersion::LATEST_STATELESS,
                    Status::Synthesized,
                    format!(
                        "answered by the bridge from the upstream's initialize at {}",
                        self.snapshot.revision
                    ),
                );
                return Ok(ServerResult::Discover(self.discover()));
            }
            // Q8: the tasks extension, in front of a server with core tasks.
            ClientRequest::GetTask(_)
            | ClientRequest::UpdateTask(_)
            | ClientRequest::CancelTask(_)
                if self.tasks.is_some() =>
            {
                return self.task_request(ctx, &request).await;
            }
            // B3: removed at 2026-07-28 (the HTTP wire refuses them before they get here);
            // `tasks/result` and `tasks/list` are not the extension's.
            ClientRequest::Initialize(_)
            | ClientRequest::Ping(_)
            | ClientRequest::SetLevel(_)
            | ClientRequest::Subscribe(_)
            | ClientRequest::Unsubscribe(_)
            | ClientRequest::GetTask(_)
            | ClientRequest::GetTaskPayload(_)
            | ClientRequest::ListTasks(_)
            | ClientRequest::CancelTask(_)
            | ClientRequest::UpdateTask(_) => {
                return Err(ErrorData::new(
                    codes::METHOD_NOT_FOUND,
                    format!("method not found: {method} does not exist at 2026-07-28"),
                ));
            }
            _ => {}
        }
        let mut value = serde_json::to_value(&request)
            .map_err(|e| ErrorData::new(codes::INTERNAL_ERROR, e.to_string()))?;
        let identity = identity_of(ctx);
        let digest = params_digest(value.get("params"));
        let uri = value
            .pointer("/params/uri")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mrtr = INPUT_REQUIRED_METHODS.contains(&method);
        let turn = Turn {
            method,
            principal: &identity.principal,
            digest,
            uri: uri.as_deref(),
        };
        let params = value.get_mut("params").and_then(Value::as_object_mut);
        let (state, responses) = match params {
            Some(p) => (
                p.shift_remove("requestState"),
                p.shift_remove("inputResponses"),
            ),
            None => (None, None),
        };
        if mrtr && let Some(Value::String(token)) = state {
            // B9: a retry. The token names the parked call; the answers go to its server.
            let mut call = self
                .parks
                .redeem(&token, turn.principal, method, &turn.digest)?;
            let responses: IndexMap<String, InputResponse> = match responses {
                Some(r) => serde_json::from_value(r).map_err(|e| {
                    ErrorData::new(codes::INVALID_PARAMS, format!("inputResponses: {e}"))
                })?,
                None => IndexMap::new(),
            };
            if let Err(e) = deliver(&mut call, responses).await {
                call.abandon("the client's answer did not fit the question");
                return Err(e);
            }
            if !call.pending.is_empty() {
                // Missing answers are asked again (a new round, a new token).
                return self.ask(call, &turn);
            }
            return self.drive(handler, ctx, call, &turn).await;
        }
        for member in RETRY_MEMBERS {
            if let Some(p) = value.get_mut("params").and_then(Value::as_object_mut) {
                p.shift_remove(member);
            }
        }
        if mrtr && let Some(Value::Object(entries)) = &responses {
            url_elicitations_accepted(entries)?;
        }
        let session = self.sessions.get(&identity).await?;
        if let ClientRequest::CallTool(r) = &request
            && ctx.header("mcp-method").is_some()
        {
            // The HTTP wire's `Mcp-Param-*` headers against the tool's `x-mcp-header`
            // arguments, as a 2026-07-28 server checks them (-32020).
            let tools = self.tools(handler, ctx, &identity, &session).await?;
            check_param_headers(&tools, &r.params, ctx.param_headers()).map_err(|e| match e {
                HandlerError::Rpc(e) => e,
                _ => ErrorData::new(codes::INTERNAL_ERROR, "header check"),
            })?;
        }
        // Q8: a tool the legacy server runs as a task goes upstream task-augmented when the
        // client declared the tasks extension; one that runs only as a task needs it. A
        // `task` member the client sent (the 2025-11-25 hint) is never carried.
        let mut augmented = false;
        let mut promote_at = None;
        if let ClientRequest::CallTool(r) = &request {
            if self.core_tasks {
                let tools = self.tools(handler, ctx, &identity, &session).await?;
                let support = tools
                    .iter()
                    .find(|t| t.name == r.params.name)
                    .and_then(|t| t.execution.as_ref().and_then(|e| e.task_support));
                let declared = tasks::negotiated(ctx.client_capabilities());
                match support {
                    Some(TaskSupport::Required) if !declared => {
                        return Err(tasks::tasks_required());
                    }
                    Some(TaskSupport::Required | TaskSupport::Optional) if declared => {
                        augmented = true;
                    }
                    _ => {}
                }
            }
            // Hosted tasks (opt-in): a declaring client's call not answered in time.
            if !augmented
                && tasks::negotiated(ctx.client_capabilities())
                && let Some(after) = self.limits.host_tasks_after
            {
                promote_at = Some(Instant::now() + after);
            }
            if let Some(p) = value.get_mut("params").and_then(Value::as_object_mut) {
                p.shift_remove("task");
                if augmented {
                    let ttl = u64::try_from(self.limits.task_ttl.as_millis()).unwrap_or(u64::MAX);
                    p.insert("task".into(), json!({ "ttl": ttl }));
                }
            }
        }
        let id = session.reserve_id();
        let outgoing = handler.prepare(ctx, client_request(value)?, id);
        let leg = session
            .start_leg(id, outgoing, Some(ProtocolVersion::LATEST_STATELESS))
            .await?;
        let mut call = Call::new(session, leg);
        call.augmented = augmented;
        call.promote_at = promote_at;
        // A first call's `inputResponses` answer the server's questions of the same key
        // (unknown keys are ignored).
        if mrtr && let Some(Value::Object(entries)) = responses {
            call.prefilled = entries
                .into_iter()
                .filter_map(|(k, v)| Some((k, serde_json::from_value(v).ok()?)))
                .collect();
        }
        self.drive(handler, ctx, call, &turn).await
    }

    /// Runs `call` until its answer, or until its server waits for client input (then the
    /// call is parked and the answer is an `InputRequiredResult`).
    async fn drive(
        &self,
        handler: &dyn Downstream,
        ctx: &RequestContext,
        mut call: Call,
        turn: &Turn<'_>,
    ) -> Result<ServerResult, ErrorData> {
        let method = turn.method;
        let mrtr = INPUT_REQUIRED_METHODS.contains(&method);
        let started = Instant::now();
        let mut deadline = started + self.limits.request_timeout;
        let mut gather_until: Option<Instant> = None;
        loop {
            let promote = call.promote_at.filter(|_| call.pending.is_empty());
            let wake = [gather_until, promote]
                .into_iter()
                .flatten()
                .fold(deadline, Instant::min);
            match tokio::time::timeout_at(wake, call.leg.next()).await {
                Ok(Some(LegEvent::Done(answer))) => {
                    call.leg.finished = true;
                    let revision = call.session.revision();
                    return match answer {
                        Ok(answer) if call.augmented => {
                            // Q8: the server's core task becomes the extension's.
                            let created = tasks::read_created(&answer, revision)?;
                            let tasks = self.tasks.as_ref().ok_or_else(|| {
                                ErrorData::new(
                                    codes::INTERNAL_ERROR,
                                    "a task without the tasks extension",
                                )
                            })?;
                            let created = tasks.adopt(
                                turn.principal,
                                call.session.clone(),
                                created,
                                ctx.client_capabilities().clone(),
                            )?;
                            self.report.event(
                                Dir::ToClient,
                                method,
                                Some(revision),
                                ProtocolVersion::LATEST_STATELESS,
                                Status::Synthesized,
                                "the legacy server's task, as a task of the tasks extension",
                            );
                            handler.shape_for_client(
                                ServerResult::TaskCreated(created),
                                method,
                                ctx,
                            )
                        }
                        Ok(answer) => {
                            let result = answer.read_result(method, revision)?;
                            handler.shape_for_client(result, method, ctx)
                        }
                        Err(e) => match url_elicitation_round(ctx, &e, mrtr) {
                            Some(round) => {
                                self.report.event(
                                    Dir::ToClient,
                                    method,
                                    Some(revision),
                                    ProtocolVersion::LATEST_STATELESS,
                                    Status::Synthesized,
                                    "input-required round: the legacy -32042's URL elicitations",
                                );
                                round
                            }
                            None => {
                                Err(error_for_stateless_client(e, call.refused.take(), turn.uri))
                            }
                        },
                    };
                }
                Ok(Some(LegEvent::Progress(p))) => {
                    let value = p.progress.as_f64().unwrap_or(0.0);
                    if call.last_progress.is_none_or(|last| value > last) {
                        call.last_progress = Some(value);
                        let total = p.total.as_ref().and_then(serde_json::Number::as_f64);
                        ctx.progress(value, total, p.message.as_deref()).await;
                    }
                    deadline = (Instant::now() + self.limits.request_timeout).max(deadline);
                }
                Ok(Some(LegEvent::Log(m))) => {
                    ctx.log(m.level, m.logger.as_deref(), m.data).await;
                }
                Ok(Some(LegEvent::Ack(_))) => {}
                Ok(Some(LegEvent::Request(id, request))) => {
                    match admit(ctx.client_capabilities(), *request, mrtr) {
                        Ok((input, proposed)) => {
                            let key = match proposed {
                                Some(k) if !call.pending.contains_key(&k) => k,
                                _ => call.next_key(&input),
                            };
                            // An answer the request already carried (same key) goes at once.
                            if let Some(answer) = call.prefilled.shift_remove(&key)
                                && answer.answers(&input)
                            {
                                call.session.respond(id, client_result(answer)).await;
                                continue;
                            }
                            call.pending.insert(key, Pending { id, request: input });
                            gather_until = Some(Instant::now() + self.limits.input_gather);
                        }
                        Err(refusal) => {
                            let (error, refused) = *refusal;
                            if refused.is_some() {
                                call.refused = refused;
                            }
                            self.report.event(
                                Dir::ToServer,
                                "input request",
                                Some(ProtocolVersion::LATEST_STATELESS),
                                call.session.revision(),
                                Status::Refused,
                                error.message.clone(),
                            );
                            call.session.respond(id, Err(error)).await;
                        }
                    }
                }
                Ok(None) => {
                    call.leg.finished = true;
                    return Err(Reason::UpstreamClosed.error("the upstream is gone", None, None));
                }
                Err(_) => {
                    let now = Instant::now();
                    if !call.pending.is_empty() && gather_until.is_some_and(|g| now >= g) {
                        return self.ask(call, turn);
                    }
                    if call.pending.is_empty() && call.promote_at.is_some_and(|p| now >= p) {
                        call = match self.host(handler, ctx, call, turn) {
                            Ok(created) => return created,
                            // A full store: the call goes on as it is.
                            Err(call) => *call,
                        };
                        call.promote_at = None;
                    }
                    if now >= deadline {
                        call.leg.cancel("timeout");
                        return Err(Reason::Timeout.error(
                            format!("the upstream did not answer {method} in time"),
                            Some((ProtocolVersion::LATEST_STATELESS, call.session.revision())),
                            None,
                        ));
                    }
                }
            }
        }
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel` of the tasks extension (Q8): `-32021`
    /// without the extension declared, else answered from the bridge's task store.
    async fn task_request(
        &self,
        ctx: &RequestContext,
        request: &ClientRequest,
    ) -> Result<ServerResult, ErrorData> {
        let Some(store) = &self.tasks else {
            return Err(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                "the server offers no tasks",
            ));
        };
        if !tasks::negotiated(ctx.client_capabilities()) {
            return Err(tasks::tasks_required());
        }
        let owner = identity_of(ctx).principal;
        match request {
            ClientRequest::GetTask(r) => {
                let task = store.get(&owner, &r.params.task_id)?;
                Ok(ServerResult::DetailedTask(GetDetailedTaskResult::new(task)))
            }
            ClientRequest::UpdateTask(r) => {
                store
                    .update(&owner, &r.params.task_id, &r.params.input_responses)
                    .await?;
                Ok(ServerResult::Empty(Default::default()))
            }
            ClientRequest::CancelTask(r) => {
                store.cancel(&owner, &r.params.task_id)?;
                Ok(ServerResult::Empty(Default::default()))
            }
            other => Err(ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("method not found: {}", other.method()),
            )),
        }
    }

    /// Makes `call`, not answered in time, a task the bridge hosts (Q8, opt-in): the answer
    /// is its `CreateTaskResult`. A full store gives the call back.
    fn host(
        &self,
        handler: &dyn Downstream,
        ctx: &RequestContext,
        call: Call,
        turn: &Turn<'_>,
    ) -> Result<Result<ServerResult, ErrorData>, Box<Call>> {
        let Some(store) = &self.tasks else {
            return Err(Box::new(call));
        };
        let revision = call.session.revision();
        match store.host(turn.principal, call, ctx.client_capabilities().clone()) {
            Ok(created) => {
                self.report.event(
                    Dir::ToClient,
                    turn.method,
                    Some(revision),
                    ProtocolVersion::LATEST_STATELESS,
                    Status::Synthesized,
                    "a call the legacy server had not answered yet, as a task the bridge hosts",
                );
                Ok(handler.shape_for_client(ServerResult::TaskCreated(created), turn.method, ctx))
            }
            Err((e, call)) => {
                self.report.event(
                    Dir::ToClient,
                    turn.method,
                    Some(revision),
                    ProtocolVersion::LATEST_STATELESS,
                    Status::Refused,
                    format!("not made a task: {}", e.message),
                );
                Err(call)
            }
        }
    }

    /// Tasks kept now (the tasks extension).
    pub(crate) fn tasks(&self) -> usize {
        self.tasks.as_ref().map_or(0, |t| t.len())
    }

    /// Parks `call` and answers with its waiting requests and a fresh token.
    fn ask(&self, call: Call, turn: &Turn<'_>) -> Result<ServerResult, ErrorData> {
        let method = turn.method;
        let requests: IndexMap<String, InputRequest> = call
            .pending
            .iter()
            .map(|(k, p)| (k.clone(), p.request.clone()))
            .collect();
        let count = requests.len();
        let revision = call.session.revision();
        let token = self
            .parks
            .park(turn.principal, method, &turn.digest, call)
            .map_err(|(e, call)| {
                call.abandon("the bridge cannot park another call");
                e
            })?;
        self.report.event(
            Dir::ToClient,
            method,
            Some(revision),
            ProtocolVersion::LATEST_STATELESS,
            Status::Synthesized,
            format!("input-required round: {count} legacy server→client request(s) parked"),
        );
        Ok(ServerResult::InputRequired(
            InputRequiredResult::new()
                .with_input_requests(requests)
                .with_request_state(token),
        ))
    }
}

/// What one request's turn through the bridge is bound to.
struct Turn<'a> {
    method: &'a str,
    principal: &'a str,
    /// The params digest a token is bound to ([`params_digest`]).
    digest: [u8; 32],
    /// `resources/read`'s URI (for -32002's `data.uri`).
    uri: Option<&'a str>,
}

/// Answers the parked call's waiting requests that `responses` answers (unknown keys are
/// ignored); an answer that does not fit its question is -32602.
async fn deliver(
    call: &mut Call,
    responses: IndexMap<String, InputResponse>,
) -> Result<(), ErrorData> {
    for (key, answer) in &responses {
        if let Some(p) = call.pending.get(key)
            && !answer.answers(&p.request)
        {
            return Err(ErrorData::new(
                codes::INVALID_PARAMS,
                format!(
                    "inputResponses[{key:?}] does not answer a {} request",
                    p.request.tag()
                ),
            )
            .with_data(json!({"key": key})));
        }
    }
    for (key, answer) in responses {
        if let Some(p) = call.pending.shift_remove(&key) {
            call.session.respond(p.id, client_result(answer)).await;
        }
    }
    Ok(())
}

/// B11: a legacy server's -32042 (`URLElicitationRequiredError`: complete these URL flows,
/// then retry) answering a `tools/call`, `prompts/get` or `resources/read` becomes an
/// input-required round of its URL elicitations (keys [`URL_KEY`]`1`, …) without a
/// `requestState`: the client's retry is a fresh call, which is what the legacy server waits
/// for, and nothing is parked. A client that did not declare URL elicitation gets -32021
/// naming it. `None`: not such an error (it maps as [`error_for_stateless_client`] says).
fn url_elicitation_round(
    ctx: &RequestContext,
    error: &ErrorData,
    mrtr: bool,
) -> Option<Result<ServerResult, ErrorData>> {
    if error.code != codes::URL_ELICITATION_REQUIRED || !mrtr {
        return None;
    }
    let elicitations = error.data.as_ref()?.get("elicitations")?.as_array()?;
    if elicitations.is_empty() || elicitations.len() > MAX_URL_ELICITATIONS {
        return None;
    }
    let caps = serde_json::to_value(ctx.client_capabilities()).unwrap_or(Value::Null);
    if caps.pointer("/elicitation/url").is_none() {
        let required = json!({"elicitation": {"url": {}}});
        return Some(Err(ErrorData::new(
            codes::MISSING_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({
            "requiredCapabilities": required,
            "upstreamError": {"code": error.code, "message": error.message},
        }))));
    }
    let mut requests = IndexMap::new();
    for (i, elicitation) in elicitations.iter().enumerate() {
        // The 2026-07-28 in-band form: no `elicitationId` (the retry carries the answer).
        let request = json!({"method": "elicitation/create", "params": {
            "mode": "url",
            "message": elicitation.get("message")?,
            "url": elicitation.get("url")?,
        }});
        let request: InputRequest = serde_json::from_value(request).ok()?;
        requests.insert(format!("{URL_KEY}{}", i + 1), request);
    }
    Some(Ok(ServerResult::InputRequired(
        InputRequiredResult::new().with_input_requests(requests),
    )))
}

/// B11's retry: every answer to a URL elicitation of a -32042 round must be an accept, else
/// the call fails `client_refused_input` (Q3) instead of asking the server again.
fn url_elicitations_accepted(responses: &serde_json::Map<String, Value>) -> Result<(), ErrorData> {
    match responses
        .iter()
        .find(|(k, v)| k.starts_with(URL_KEY) && v.get("action") != Some(&json!("accept")))
    {
        Some((key, _)) => Err(Reason::ClientRefusedInput.error(
            format!("the client did not complete the URL elicitation {key} the server requires"),
            None,
            None,
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_elicitation_retry_goes_on_only_when_every_url_flow_was_accepted() {
        let answers = |action: &str| {
            json!({"url-elicitation-1": {"action": "accept"}, "url-elicitation-2": {"action": action},
                   "other": {"action": "decline"}})
            .as_object()
            .cloned()
            .unwrap()
        };
        assert!(url_elicitations_accepted(&answers("accept")).is_ok());
        for refused in ["decline", "cancel"] {
            let error = url_elicitations_accepted(&answers(refused)).unwrap_err();
            assert_eq!(error.code, -32603, "{error:?}");
            assert_eq!(
                error.data.as_ref().and_then(|d| d.get("reason")),
                Some(&json!("client_refused_input")),
                "{error:?}"
            );
            assert!(error.message.contains("url-elicitation-2"), "{error:?}");
        }
    }
}
