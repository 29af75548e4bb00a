//! The transport-free part of the server: a typed request in, its typed answer out, emitted
//! at the request's revision. The HTTP wires (and stdio) feed it.

use std::sync::Arc;

use tokio::sync::mpsc;

use mcp_wire::facts;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcError, JsonRpcResponse, RequestId};
use mcp_wire::model::{
    ClientRequest, DiscoverResult, EmptyResult, GetDetailedTaskResult, InitializeResult,
    InputRequiredResult, InputResponse, InputResponses, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Meta, ServerResult,
    TaskCreatedResult, TaskSupport,
};
use mcp_wire::wire::ledger;
use mcp_wire::{Era, ProtocolVersion};

use super::auth::Principal;
use super::context::{self, InputMode, Outgoing, RequestContext, StatelessInputs};
use super::error::{HandlerError, codes};
use super::handler::{Boxed, Handler, Intercepted, keys};
use super::replica::TaskOp;
use super::session::{Session, SessionHandle};
use super::shared::{Runtime, Server, ServerShared};
use super::state::StateError;
use super::tasks::{self, TaskOffer};
use crate::Frame;
use crate::telemetry::{self, RequestTrace, Wire};

/// The answer to one request, before framing.
pub(crate) type Answer = Result<ServerResult, HandlerError>;

/// Whether `revision`'s schema defines the request `method` (its method table).
fn defines(revision: ProtocolVersion, method: &str) -> bool {
    facts::revision(revision).request(method).is_some()
}

/// Whether `revision` has the core tasks of its schema (`tasks/get` and the rest, 2025-11-25).
fn core_tasks(revision: ProtocolVersion) -> bool {
    defines(revision, "tasks/get")
}

/// Whether the tasks extension (SEP-2663) adds the tasks methods at `revision` (the ledger's
/// `EXTENSION_METHODS`).
fn extension_tasks(revision: ProtocolVersion) -> bool {
    ledger::extension_method("tasks/get", revision)
}

impl<H: Handler> Server<H> {
    /// Answers one typed request as this server would on a transport: what a front server
    /// calls to hand a request to an inner server (see [`Handler::intercept`]). `ctx` is the
    /// front's context (its stream, session and client), perhaps re-targeted with
    /// [`RequestContext::with_notifier`]. A panicking handler is `-32603`.
    pub async fn handle(
        self: &Arc<Self>,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> Result<ServerResult, HandlerError> {
        let runtime = self.runtime();
        runtime.answer(ctx, request).await
    }
}

impl Runtime {
    /// The context of a handshake-era request of `session` (see [`context::session_context`]).
    pub(crate) fn session_context(
        &self,
        session: &Arc<Session>,
        id: RequestId,
        request: &ClientRequest,
        principal: Principal,
        outbox: Option<mpsc::Sender<Outgoing>>,
    ) -> RequestContext {
        context::session_context(
            &self.shared.notifier,
            self.shared.limits.client_answer_timeout,
            session,
            id,
            request,
            principal,
            outbox,
        )
    }

    /// The context of a 2026-07-28 request (see [`context::stateless_context`]).
    pub(crate) fn stateless_context(
        &self,
        id: RequestId,
        request: &ClientRequest,
        principal: Principal,
        param_headers: Vec<(String, String)>,
    ) -> RequestContext {
        context::stateless_context(&self.shared.notifier, id, request, principal, param_headers)
    }

    /// The `initialize` result at `revision`.
    pub(crate) fn initialize_result(&self, revision: ProtocolVersion) -> InitializeResult {
        let mut capabilities = self.handler.capabilities();
        // The tasks extension is served at 2026-07-28 only; at 2025-11-25 the same tasks are
        // core tasks (`tasks::core_capability`).
        if let Some(extensions) = capabilities.extensions.as_mut() {
            extensions.remove(mcp_wire::model::TASKS_EXTENSION_ID);
            if extensions.is_empty() {
                capabilities.extensions = None;
            }
        }
        if core_tasks(revision) && self.tasks_offered() {
            capabilities.tasks = Some(tasks::core_capability());
        }
        let mut result =
            InitializeResult::new(revision.as_str(), capabilities, self.handler.server_info());
        result.instructions = self.handler.instructions();
        result
    }

    /// The `server/discover` result. `supportedVersions` lists every revision the server
    /// offers, oldest first, the handshake era's too: the spec's "protocol versions the server
    /// supports", for a client choosing one (a handshake revision through `initialize`). The
    /// `-32022` of a stateless request lists only what its `_meta` may name.
    pub(crate) fn discover_result(&self) -> DiscoverResult {
        let versions = self
            .shared
            .revisions
            .iter()
            .map(|v| v.as_str().to_owned())
            .collect();
        let mut result = DiscoverResult::new(versions, self.handler.capabilities());
        result.instructions = self.handler.instructions();
        result.meta = Some(self.server_info_meta());
        result
    }

    /// `_meta` naming the server (2026-07-28 results).
    pub(crate) fn server_info_meta(&self) -> Meta {
        let mut meta = Meta::new();
        meta.set(keys::SERVER_INFO, self.handler.server_info());
        meta
    }

    /// Answers one typed request (everything but `initialize` and `subscriptions/listen`, which
    /// the wires serve) in the caller's task, a panic of the handler caught as `-32603`. The
    /// callers already run each request in a task of its own (which a cancel aborts), so no
    /// second task is spawned: one wake-up fewer per request.
    ///
    /// The answer's future (the dispatch: every handler method's future inline, kilobytes) is
    /// boxed once here, so the futures that hold this one — a spawned task's, a batch's, a
    /// wire's — stay small and are not copied whole each time they move (into a task, its
    /// output slot); and so that [`Server::handle`], generic over the handler, only polls it.
    pub(crate) fn answer(
        self: &Arc<Self>,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> Boxed<'_, Answer> {
        use futures_util::FutureExt;
        Box::pin(async move {
            std::panic::AssertUnwindSafe(self.dispatch(ctx, request))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!("the handler panicked");
                    Err(HandlerError::internal("the handler panicked"))
                })
        })
    }

    /// Answers one typed request as [`Server::answer`] does and frames the answer at the
    /// request's revision, in the request's span (`mcp.request`), counted in the request
    /// metrics: what every wire calls for a request it hands to the handler. The frame, and
    /// the error code when it is an error.
    pub(crate) async fn answer_framed(
        self: &Arc<Self>,
        wire: Wire,
        ctx: RequestContext,
        request: ClientRequest,
        server_meta: Option<&Meta>,
    ) -> (Frame, Option<i64>) {
        use tracing::Instrument;
        let trace = RequestTrace::start(
            wire,
            request.method(),
            ctx.revision(),
            ctx.request_id(),
            ctx.principal(),
            ctx.session_id(),
        );
        let id = ctx.request_id().clone();
        let revision = ctx.revision();
        let answer = self
            .answer(ctx, request)
            .instrument(trace.span().clone())
            .await;
        let framed = trace
            .span()
            .in_scope(|| response_frame(&self.shared, id, answer, revision, server_meta));
        trace.finish(framed.1);
        framed
    }

    /// Negotiates a handshake-era session for `initialize` (any transport): the session,
    /// bound to `principal`, and the result to answer with — amended by the handler's
    /// [`Handler::session_started`], which may also refuse it. The caller registers the
    /// session where its transport keeps them.
    pub(crate) fn open_session(
        self: &Arc<Self>,
        id: String,
        revision: ProtocolVersion,
        init: &mcp_wire::model::InitializeRequestParams,
        principal: super::auth::Principal,
    ) -> Result<(Arc<Session>, InitializeResult), ErrorData> {
        let session = Session::new(
            id,
            revision,
            init.capabilities.as_ref().clone(),
            Some(init.client_info.clone()),
            principal,
            self.shared.limits,
        );
        self.start_session(session)
    }

    /// Starts `session` as [`Runtime::open_session`] does: what `initialize` opens here, and
    /// what a replica restores from a shared record (the handler sees each replica's copy
    /// start and end, as it would see the session's `initialize` replayed there).
    pub(crate) fn start_session(
        self: &Arc<Self>,
        mut session: Session,
    ) -> Result<(Arc<Session>, InitializeResult), ErrorData> {
        let revision = session.revision;
        if let Some(replica) = &self.shared.replica {
            session.set_mirror(replica.mirror());
        }
        let session = Arc::new(session);
        let mut result = self.initialize_result(revision);
        self.handler
            .session_started(&SessionHandle::new(&session), &mut result)?;
        let server = Arc::downgrade(self);
        let id = session.id.clone();
        session.set_on_close(Box::new(move || {
            if let Some(s) = server.upgrade() {
                s.handler.session_ended(&id);
            }
        }));
        tracing::debug!(
            session = &*session.id,
            revision = revision.as_str(),
            principal = &**session.principal.key(),
            "session opened"
        );
        Ok((session, result))
    }

    async fn dispatch(&self, ctx: RequestContext, request: ClientRequest) -> Answer {
        let h = &self.handler;
        h.authorize(ctx.principal(), request.method())?;
        let (ctx, request) = match h.intercept(ctx, request).await {
            Intercepted::Answered(answer) => return answer,
            Intercepted::Continue(ctx, request) => (ctx, request),
        };
        let revision = ctx.revision();
        Ok(match request {
            ClientRequest::Ping(_) => ServerResult::Empty(EmptyResult::new()),
            ClientRequest::Initialize(_) => {
                return Err(HandlerError::rpc(
                    codes::INVALID_REQUEST,
                    "initialize is only valid as a session's first request",
                ));
            }
            ClientRequest::SetLevel(r) => {
                ctx.inner.log_level.set(r.params.level);
                self.share_session_change(&ctx).await?;
                ServerResult::Empty(EmptyResult::new())
            }
            ClientRequest::ListTools(_) => {
                ServerResult::ListTools(ListToolsResult::new(h.list_tools(&ctx).await?))
            }
            ClientRequest::CallTool(r) => {
                let name = r.params.name.clone();
                let core = core_tasks(revision) && self.tasks_offered();
                let stateless = revision.era() == Era::Stateless;
                // The tool's declaration bounds what the call may do (read once).
                let declared = match core || stateless {
                    true => h.tool(&ctx, &name).await?,
                    false => None,
                };
                let support = declared
                    .as_ref()
                    .and_then(|t| t.execution.as_ref().and_then(|e| e.task_support));
                let mut augmented = false;
                if core {
                    // Core tasks (2025-11-25): the client decides, the tool's declaration bounds.
                    augmented = tasks::core_augmented(&name, support, r.params.task.is_some())?;
                }
                if stateless {
                    check_param_headers(declared.as_slice(), &r.params, &ctx.inner.param_headers)?;
                    // A tool that runs only as a task needs a client that declared the
                    // extension (checked before the handler runs).
                    if support == Some(TaskSupport::Required)
                        && self.tasks_offered()
                        && !tasks_declared(&ctx)
                    {
                        return Err(tasks::tasks_required());
                    }
                }
                let ctx = self.with_inputs(
                    ctx,
                    "tools/call",
                    &name,
                    r.params.request_state.as_deref(),
                    r.params.input_responses.as_ref(),
                )?;
                let ctx = match augmented {
                    true => self.with_core_task(ctx),
                    false => ctx,
                };
                let rounds = ctx.rounds;
                let owner = ctx.ctx.principal().key().clone();
                let answer = self.finish_inputs(
                    "tools/call",
                    &name,
                    rounds,
                    h.call_tool(ctx.ctx, r.params)
                        .await
                        .map(ServerResult::CallTool),
                );
                // A task-augmented call is answered with a task in the 2025-11-25 form, even
                // when the handler answered at once (its result is then the task's outcome).
                let created = match (augmented, answer) {
                    (true, Ok(ServerResult::TaskCreated(created))) => {
                        tasks::core_created(&created.task)
                    }
                    (true, Ok(ServerResult::CallTool(result))) => {
                        mcp_wire::model::CreateTaskResult::new(
                            self.shared.tasks.insert_finished(&owner, Ok(result))?,
                        )
                    }
                    (_, answer) => return answer,
                };
                self.index_task(&owner, &created.task.task_id).await;
                return Ok(ServerResult::CreateTask(created));
            }
            ClientRequest::ListResources(_) => {
                ServerResult::ListResources(ListResourcesResult::new(h.list_resources(&ctx).await?))
            }
            ClientRequest::ListResourceTemplates(_) => ServerResult::ListResourceTemplates(
                ListResourceTemplatesResult::new(h.list_resource_templates(&ctx).await?),
            ),
            ClientRequest::ReadResource(r) => {
                let uri = r.params.uri.clone();
                let ctx = self.with_inputs(
                    ctx,
                    "resources/read",
                    &uri,
                    r.params.request_state.as_deref(),
                    r.params.input_responses.as_ref(),
                )?;
                let rounds = ctx.rounds;
                let read = h.read_resource(ctx.ctx, uri.clone()).await;
                return self.finish_inputs(
                    "resources/read",
                    &uri,
                    rounds,
                    read.map(ServerResult::ReadResource),
                );
            }
            ClientRequest::Subscribe(r) => {
                h.subscribe(&ctx, &r.params.uri)?;
                if let InputMode::Session(link) = ctx.input_mode()
                    && !link.session.subscribe(&r.params.uri)
                {
                    return Err(HandlerError::invalid_params("too many subscriptions"));
                }
                self.share_session_change(&ctx).await?;
                ServerResult::Empty(EmptyResult::new())
            }
            ClientRequest::Unsubscribe(r) => {
                if let InputMode::Session(link) = ctx.input_mode() {
                    link.session.unsubscribe(&r.params.uri);
                }
                self.share_session_change(&ctx).await?;
                ServerResult::Empty(EmptyResult::new())
            }
            ClientRequest::ListPrompts(_) => {
                ServerResult::ListPrompts(ListPromptsResult::new(h.list_prompts(&ctx).await?))
            }
            ClientRequest::GetPrompt(r) => {
                let name = r.params.name.clone();
                let ctx = self.with_inputs(
                    ctx,
                    "prompts/get",
                    &name,
                    r.params.request_state.as_deref(),
                    r.params.input_responses.as_ref(),
                )?;
                let rounds = ctx.rounds;
                return self.finish_inputs(
                    "prompts/get",
                    &name,
                    rounds,
                    h.get_prompt(ctx.ctx, r.params)
                        .await
                        .map(ServerResult::GetPrompt),
                );
            }
            ClientRequest::Complete(r) => ServerResult::Complete(h.complete(&ctx, r.params).await?),
            ClientRequest::Discover(_) if defines(revision, "server/discover") => {
                ServerResult::Discover(self.discover_result())
            }
            ClientRequest::GetTask(r) if extension_tasks(revision) => {
                self.task_gate(&ctx, "tasks/get")?;
                let (owner, id) = (ctx.principal().key(), &r.params.task_id);
                let op = TaskOp::Get {
                    owner: owner.to_string(),
                    id: id.clone(),
                };
                let task = match self.task_elsewhere(op).await {
                    Some(remote) => remote?.detailed()?,
                    None => self.shared.tasks.get(owner, id)?,
                };
                ServerResult::DetailedTask(GetDetailedTaskResult::new(task))
            }
            ClientRequest::UpdateTask(r) if extension_tasks(revision) => {
                self.task_gate(&ctx, "tasks/update")?;
                let (owner, id) = (ctx.principal().key(), &r.params.task_id);
                let op = TaskOp::Update {
                    owner: owner.to_string(),
                    id: id.clone(),
                    responses: r.params.input_responses.clone(),
                };
                match self.task_elsewhere(op).await {
                    Some(remote) => drop(remote?),
                    None => self
                        .shared
                        .tasks
                        .update(owner, id, &r.params.input_responses)?,
                }
                ServerResult::Empty(EmptyResult::new())
            }
            ClientRequest::CancelTask(r) if extension_tasks(revision) => {
                self.task_gate(&ctx, "tasks/cancel")?;
                let (owner, id) = (ctx.principal().key(), &r.params.task_id);
                let op = TaskOp::Cancel {
                    owner: owner.to_string(),
                    id: id.clone(),
                };
                match self.task_elsewhere(op).await {
                    Some(remote) => drop(remote?),
                    None => self.shared.tasks.cancel(owner, id)?,
                }
                ServerResult::Empty(EmptyResult::new())
            }
            ClientRequest::GetTask(r) if core_tasks(revision) && self.tasks_offered() => {
                let (owner, id) = (ctx.principal().key(), &r.params.task_id);
                let op = TaskOp::CoreGet {
                    owner: owner.to_string(),
                    id: id.clone(),
                };
                let task = match self.task_elsewhere(op).await {
                    Some(remote) => remote?.task()?,
                    None => self.shared.tasks.core_get(owner, id)?,
                };
                ServerResult::GetTask(mcp_wire::model::GetTaskResult::new(task))
            }
            ClientRequest::CancelTask(r) if core_tasks(revision) && self.tasks_offered() => {
                let (owner, id) = (ctx.principal().key(), &r.params.task_id);
                let op = TaskOp::CoreCancel {
                    owner: owner.to_string(),
                    id: id.clone(),
                };
                let task = match self.task_elsewhere(op).await {
                    Some(remote) => remote?.task()?,
                    None => self.shared.tasks.core_cancel(owner, id)?,
                };
                ServerResult::GetTask(mcp_wire::model::GetTaskResult::new(task))
            }
            ClientRequest::ListTasks(_) if core_tasks(revision) && self.tasks_offered() => {
                ServerResult::ListTasks(mcp_wire::model::ListTasksResult::new(
                    self.list_tasks(ctx.principal().key()).await?,
                ))
            }
            ClientRequest::GetTaskPayload(r) if core_tasks(revision) && self.tasks_offered() => {
                self.task_payload(&ctx, &r.params.task_id).await?
            }
            other => return Err(HandlerError::method_not_found(other.method())),
        })
    }

    /// With a shared store: the record of the request's session after a change of its level or
    /// subscriptions (a store that cannot take it is `-32603` with the reason).
    async fn share_session_change(&self, ctx: &RequestContext) -> Result<(), HandlerError> {
        if let InputMode::Session(link) = ctx.input_mode() {
            self.session_changed(&link.session)
                .await
                .map_err(|e| super::replica::store_failed(&e))?;
        }
        Ok(())
    }

    /// A task-augmented 2025-11-25 call's context: its task goes to the server's store.
    fn with_core_task(&self, with: WithRounds) -> WithRounds {
        let InputMode::Session(link) = with.ctx.input_mode() else {
            return with;
        };
        let mut link = link.clone();
        link.tasks = Some(TaskOffer {
            store: self.shared.tasks.clone(),
            negotiated: true,
        });
        WithRounds {
            ctx: with
                .ctx
                .edited(|inner| inner.input = InputMode::Session(link)),
            rounds: with.rounds,
        }
    }

    /// At 2026-07-28: the context with the answers this retry carries (its verified
    /// `requestState` and `inputResponses`). Other revisions: unchanged.
    fn with_inputs(
        &self,
        ctx: RequestContext,
        method: &str,
        name: &str,
        state: Option<&str>,
        responses: Option<&InputResponses>,
    ) -> Result<WithRounds, HandlerError> {
        if !matches!(ctx.input_mode(), InputMode::Stateless(_)) {
            return Ok(WithRounds { ctx, rounds: 0 });
        }
        let mut inputs = StatelessInputs::default();
        if method == "tools/call" && self.tasks_offered() {
            inputs.tasks = Some(TaskOffer {
                store: self.shared.tasks.clone(),
                negotiated: tasks_declared(&ctx),
            });
        }
        let mut rounds = 0;
        if let Some(text) = state {
            let state = self
                .shared
                .signer
                .verify(text, method, name)
                .map_err(|e: StateError| HandlerError::invalid_params(e.to_string()))?;
            rounds = state.rounds;
            for (key, raw) in state.gathered {
                let typed: InputResponse = mcp_wire::model::from_value(raw.clone())
                    .map_err(|_| HandlerError::invalid_params("requestState is malformed"))?;
                inputs.answers.insert(key.clone(), typed);
                inputs.raw.insert(key, raw);
            }
            inputs.state_verified = true;
        }
        for (key, answer) in responses.into_iter().flatten() {
            let raw =
                serde_json::to_value(answer).map_err(|e| HandlerError::internal(e.to_string()))?;
            inputs.answers.insert(key.clone(), answer.clone());
            inputs.raw.insert(key.clone(), raw);
        }
        Ok(WithRounds {
            ctx: ctx.edited(|inner| inner.input = InputMode::Stateless(Arc::new(inputs))),
            rounds,
        })
    }

    /// Whether the handler offers the tasks extension (`capabilities.extensions`).
    fn tasks_offered(&self) -> bool {
        tasks::offered(self.handler.capabilities().extensions.as_ref())
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel` at 2026-07-28: `-32601` when the server
    /// does not offer the tasks extension, `-32021` when the client did not declare it.
    fn task_gate(&self, ctx: &RequestContext, method: &str) -> Result<(), HandlerError> {
        if !self.tasks_offered() {
            return Err(HandlerError::method_not_found(method));
        }
        if !tasks_declared(ctx) {
            return Err(tasks::tasks_required());
        }
        Ok(())
    }

    /// Turns an input-required stop into an `InputRequiredResult` with a signed state, and a
    /// started task into its `CreateTaskResult`.
    fn finish_inputs(&self, method: &str, name: &str, rounds: usize, answer: Answer) -> Answer {
        match answer {
            Err(HandlerError::TaskCreated(info)) => {
                Ok(ServerResult::TaskCreated(TaskCreatedResult::new(*info)))
            }
            Err(HandlerError::InputRequired(pending)) => {
                if rounds + 1 > self.shared.limits.max_input_rounds {
                    telemetry::limit_hit("max_input_rounds");
                    return Err(HandlerError::internal("too many input rounds"));
                }
                let pending = *pending;
                let state = self
                    .shared
                    .signer
                    .sign(method, name, rounds + 1, pending.gathered);
                Ok(ServerResult::InputRequired(
                    InputRequiredResult::new()
                        .with_input_requests(pending.requests)
                        .with_request_state(state),
                ))
            }
            other => other,
        }
    }
}

/// 2026-07-28: every `x-mcp-header` argument of the called tool must be mirrored, exactly, in
/// its `Mcp-Param-<name>` header (`-32020` otherwise). `headers` are the request's
/// ([`RequestContext::param_headers`]); a front server checks calls it answers itself with it.
pub fn check_param_headers(
    tools: &[mcp_wire::model::Tool],
    params: &mcp_wire::model::CallToolRequestParams,
    headers: &[(String, String)],
) -> Result<(), HandlerError> {
    let Some(tool) = tools.iter().find(|t| t.name == params.name) else {
        return Ok(());
    };
    let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    else {
        return Ok(());
    };
    let mismatch = |m: String| HandlerError::rpc(codes::HEADER_MISMATCH, m);
    for (property, schema) in properties {
        let Some(header) = schema.get("x-mcp-header").and_then(|h| h.as_str()) else {
            continue;
        };
        let sent = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(header))
            .map(|(_, v)| v.as_str());
        let argument = params.arguments.as_ref().and_then(|a| a.get(property));
        let expected = match argument {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        match (expected, sent) {
            (None, None) => {}
            (Some(want), Some(raw)) => match crate::routing::decode_header_value(raw) {
                Some(got) if got == want => {}
                Some(_) => {
                    return Err(mismatch(format!(
                        "Mcp-Param-{header} does not match argument {property:?}"
                    )));
                }
                None => return Err(mismatch(format!("Mcp-Param-{header} is not valid base64"))),
            },
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "Mcp-Param-{header} is missing for argument {property:?}"
                )));
            }
            (None, Some(_)) => {
                return Err(mismatch(format!(
                    "Mcp-Param-{header} is sent but argument {property:?} is absent"
                )));
            }
        }
    }
    Ok(())
}

/// Whether the request's client declared the tasks extension (in `initialize` or, at
/// 2026-07-28, in the request's `_meta`).
fn tasks_declared(ctx: &RequestContext) -> bool {
    tasks::offered(ctx.client_capabilities().extensions.as_ref())
}

struct WithRounds {
    ctx: RequestContext,
    rounds: usize,
}

/// Aborts a task when dropped (a client that goes away cancels its request).
pub(crate) struct AbortOnDrop(pub tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The response frame of `answer` to request `id` at `revision` (an emission failure becomes
/// `-32603`).
pub(crate) fn response_frame(
    shared: &ServerShared,
    id: RequestId,
    answer: Answer,
    revision: ProtocolVersion,
    server_meta: Option<&Meta>,
) -> (Frame, Option<i64>) {
    let error = match answer {
        Ok(mut result) => {
            if let Some(meta) = server_meta {
                add_meta(&mut result, meta);
            }
            let mut buf = Vec::with_capacity(512);
            match mcp_wire::wire::serialize_for_vec(
                &JsonRpcResponse::new(id.clone(), result),
                revision,
                &mut buf,
            ) {
                Ok(()) => return (Frame::from_emitted(buf), None),
                Err(e) => {
                    telemetry::emission_refused(&e);
                    ErrorData::new(codes::INTERNAL_ERROR, format!("cannot emit: {e}"))
                }
            }
        }
        Err(HandlerError::Rpc(e)) => e,
        Err(HandlerError::InputRequired(_)) => ErrorData::new(
            codes::INTERNAL_ERROR,
            "client input is not available on this request",
        ),
        Err(HandlerError::TaskCreated(_)) => {
            ErrorData::new(codes::INTERNAL_ERROR, "a task cannot answer this request")
        }
    };
    let _ = shared;
    error_frame(Some(id), error, revision)
}

/// An error frame (and its code).
pub(crate) fn error_frame(
    id: Option<RequestId>,
    error: ErrorData,
    revision: ProtocolVersion,
) -> (Frame, Option<i64>) {
    let code = error.code;
    let mut buf = Vec::with_capacity(256);
    let body = JsonRpcError::new(id, error);
    if mcp_wire::wire::serialize_for_vec(&body, revision, &mut buf).is_err() {
        buf =
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"cannot emit error"}}"#
                .to_vec();
    }
    (Frame::from_emitted(buf), Some(code))
}

/// Adds `meta`'s keys to a result's `_meta` (without replacing the handler's own keys).
fn add_meta(result: &mut ServerResult, meta: &Meta) {
    macro_rules! slot {
        ($($v:ident),*) => {
            match result {
                $(ServerResult::$v(r) => &mut r.meta,)*
                _ => return,
            }
        };
    }
    let slot = slot!(
        Empty,
        Complete,
        GetPrompt,
        ListPrompts,
        ListResources,
        ListResourceTemplates,
        ReadResource,
        CallTool,
        ListTools,
        InputRequired,
        SubscriptionsListen,
        TaskCreated,
        DetailedTask
    );
    let target = slot.get_or_insert_with(Meta::new);
    for (k, v) in meta.iter() {
        if !target.contains_key(k) {
            target.insert(k.clone(), v.clone());
        }
    }
}

pub(crate) fn request_id(v: serde_json::Value) -> Option<RequestId> {
    RequestId::from_value(&v)
}

/// The error a request whose body does not read is answered with: the library's
/// ([`ErrorData`] from the fault: its code, its message for the peer, `data.pointer` into the
/// frame and the revision), as [`mcp_wire::wire::FrameError::reply`] answers it.
pub(crate) fn parse_error(e: &mcp_wire::wire::ParseError) -> ErrorData {
    telemetry::boundary_refused(e);
    ErrorData::from(e)
}

/// The answer to a frame whose envelope does not read as one JSON-RPC message (`refused` is why
/// the caller's reader refused it): [`mcp_wire::wire::FrameError::reply`]'s, to the id whenever
/// the envelope has a usable one, with the fault's `data.pointer`; `None` for a notification or
/// a response, which JSON-RPC never answers. Should the envelope split after all (the members
/// are what did not read), the caller's reason is answered to the envelope's id.
pub(crate) fn envelope_reply(text: &str, refused: &dyn std::fmt::Display) -> Option<JsonRpcError> {
    match mcp_wire::wire::RawFrame::split(text) {
        Err(e) => e.reply(),
        Ok(raw) => match raw.envelope() {
            mcp_wire::session::Envelope::Request { id, .. } => Some(JsonRpcError::new(
                Some(id.clone()),
                ErrorData::new(codes::INVALID_REQUEST, refused.to_string()),
            )),
            _ => None,
        },
    }
}
