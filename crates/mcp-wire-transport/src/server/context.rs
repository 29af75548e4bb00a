//! The per-request context: who asks, at which revision, with which client capabilities, and
//! the request's own stream for progress, logs and (handshake era) requests to the client.

use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{JsonRpcNotification, JsonRpcRequest, RequestId};
use mcp_wire::model::meta::keys;
use mcp_wire::model::{
    ClientCapabilities, Implementation, InputRequest, InputResponse, LoggingLevel,
    LoggingMessageNotification, LoggingMessageNotificationParams, ProgressNotification,
    ProgressNotificationParams, ProgressToken, ServerNotification, ServerRequest,
};
use mcp_wire::wire::{ParseError, parse_as, serialize_for_vec};
use serde_json::{Number, Value};
use tokio::sync::mpsc;

use super::auth::Principal;
use super::error::{HandlerError, HandlerResult, InputPending};
use super::notify::Notifier;
use super::session::{LevelCell, Session, level_rank};
use crate::Frame;
use mcp_wire::model::{ClientRequest, Meta, RequestMeta};

/// What a request's stream carries besides its final answer.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A frame for the client (notification or server→client request).
    Frame(Frame),
    /// Close the HTTP stream now, telling the client to reconnect after `retry` (2025-11-25
    /// polling, SEP-1699); the request goes on and its remaining frames wait for the reconnect.
    CloseStream {
        /// The reconnect delay to announce.
        retry: Duration,
    },
}

/// How a handler's requests for client input travel.
#[derive(Clone)]
pub(crate) enum InputMode {
    /// 2026-07-28: answers come with the client's retry.
    Stateless(Arc<StatelessInputs>),
    /// Handshake era: server→client requests on the request's stream.
    Session(SessionLink),
    /// Inside a task (tasks extension): the task parks until `tasks/update` answers.
    Task(super::tasks::TaskLink),
}

/// The input answers a 2026-07-28 retry carried: those of earlier rounds (from the verified
/// `requestState`) and this round's `inputResponses`.
#[derive(Default)]
pub(crate) struct StatelessInputs {
    /// Answers by key, typed.
    pub answers: IndexMap<String, InputResponse>,
    /// The same answers as sent (what goes into the next `requestState`).
    pub raw: IndexMap<String, Value>,
    /// Whether a `requestState` came with the request and passed its integrity check.
    pub state_verified: bool,
    /// A `tools/call` at a server offering the tasks extension: its store and whether the
    /// client declared the extension.
    pub tasks: Option<super::tasks::TaskOffer>,
}

impl StatelessInputs {
    /// All of `requests` answered, or the ones still missing (an input-required stop).
    pub(crate) fn take(
        &self,
        requests: Vec<(String, InputRequest)>,
    ) -> HandlerResult<IndexMap<String, InputResponse>> {
        let mut answers = IndexMap::new();
        let mut missing = IndexMap::new();
        for (key, request) in requests {
            match self.answers.get(&key) {
                Some(answer) if answer.answers(&request) => {
                    answers.insert(key, answer.clone());
                }
                _ => {
                    missing.insert(key, request);
                }
            }
        }
        if missing.is_empty() {
            return Ok(answers);
        }
        // Every answer so far goes into the next state (earlier rounds' included).
        let gathered = self.raw.clone();
        Err(HandlerError::InputRequired(Box::new(InputPending {
            requests: missing,
            gathered,
        })))
    }
}

/// A handshake-era request's way to the client: its session (for the pending-answer table)
/// and its stream.
#[derive(Clone)]
pub(crate) struct SessionLink {
    pub session: Arc<Session>,
    pub timeout: Duration,
    /// A task-augmented 2025-11-25 `tools/call` of a tool that supports tasks: where its task
    /// goes.
    pub tasks: Option<super::tasks::TaskOffer>,
}

/// Reads a client's answer to one server→client request at a revision.
type ReadAnswer = fn(&Value, ProtocolVersion) -> Result<InputResponse, ParseError>;

impl SessionLink {
    /// Sends `request` to the client on the context's stream and waits for the answer.
    pub(crate) async fn ask(
        &self,
        ctx: &RequestContext,
        request: InputRequest,
    ) -> HandlerResult<InputResponse> {
        let revision = ctx.revision();
        // The answer is read as the one result type the request asks for.
        let (body, read): (_, ReadAnswer) = match request {
            InputRequest::CreateMessage(r) => (ServerRequest::CreateMessage(r), |v, rev| {
                parse_as(v, rev).map(InputResponse::CreateMessage)
            }),
            InputRequest::ListRoots(r) => (ServerRequest::ListRoots(r), |v, rev| {
                parse_as(v, rev).map(InputResponse::ListRoots)
            }),
            InputRequest::Elicit(r) => (ServerRequest::Elicit(r), |v, rev| {
                parse_as(v, rev).map(InputResponse::Elicit)
            }),
            #[allow(unreachable_patterns)]
            _ => return Err(HandlerError::internal("unsupported input request")),
        };
        let method = body.method();
        let (id, answer) = self
            .session
            .register_pending()
            .map_err(HandlerError::internal)?;
        let frame = emit(&JsonRpcRequest::new(id.clone(), body), revision)?;
        if !ctx.send(Outgoing::Frame(frame)).await {
            self.session.forget_pending(&id);
            return Err(HandlerError::internal("the request's stream is gone"));
        }
        let value = match tokio::time::timeout(self.timeout, answer).await {
            Ok(Ok(Ok(value))) => value,
            Ok(Ok(Err(error))) => {
                return Err(HandlerError::Rpc(error));
            }
            Ok(Err(_)) => return Err(HandlerError::internal("the session ended")),
            Err(_) => {
                self.session.forget_pending(&id);
                return Err(HandlerError::internal(format!(
                    "the client did not answer {method} in {:?}",
                    self.timeout
                )));
            }
        };
        read(&value, revision).map_err(|e| {
            HandlerError::invalid_params(format!("the client's answer to {method}: {e}"))
        })
    }
}

/// Emits one body as a frame at `revision`.
pub(crate) fn emit<B: mcp_wire::wire::WireBody + ?Sized>(
    body: &B,
    revision: ProtocolVersion,
) -> HandlerResult<Frame> {
    let mut buf = Vec::with_capacity(256);
    serialize_for_vec(body, revision, &mut buf)
        .map_err(|e| HandlerError::internal(format!("cannot emit at {revision}: {e}")))?;
    Ok(Frame::from_emitted(buf))
}

/// Everything a handler knows about the request it answers.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) inner: Arc<ContextInner>,
}

pub(crate) struct ContextInner {
    pub revision: ProtocolVersion,
    pub principal: Principal,
    pub client_capabilities: Arc<ClientCapabilities>,
    pub client_info: Option<Arc<Implementation>>,
    pub request_id: RequestId,
    pub method: &'static str,
    pub progress_token: Option<ProgressToken>,
    /// Handshake era: the session's level (logs go out unless filtered); 2026-07-28: the
    /// request's `_meta` level (no logs without it).
    pub log_level: Arc<LevelCell>,
    /// Whether logs go out when no level is set (handshake era: yes).
    pub log_by_default: bool,
    pub outbox: Option<mpsc::Sender<Outgoing>>,
    pub input: InputMode,
    pub notifier: Notifier,
    /// 2026-07-28: the request's `Mcp-Param-*` headers (lowercased name after the prefix,
    /// raw value), checked against `x-mcp-header` tool arguments.
    pub param_headers: Vec<(String, String)>,
    /// The handshake-era session the request belongs to.
    pub session_id: Option<Arc<str>>,
    /// The HTTP request's headers (none on stdio).
    pub headers: Option<Arc<http::HeaderMap>>,
}

impl RequestContext {
    /// The revision this request speaks.
    pub fn revision(&self) -> ProtocolVersion {
        self.inner.revision
    }

    /// Who is asking (from the authentication hook).
    pub fn principal(&self) -> &Principal {
        &self.inner.principal
    }

    /// The capabilities the client declared (in `initialize`, or in this request's `_meta`).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// The client's `Implementation`, if it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_deref()
    }

    /// The request's id.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The request's method.
    pub fn method(&self) -> &str {
        self.inner.method
    }

    /// The progress token the request carried, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.progress_token.as_ref()
    }

    /// 2026-07-28 over HTTP: the request's `Mcp-Param-*` headers (lowercased name after the
    /// prefix, raw value); empty elsewhere.
    pub fn param_headers(&self) -> &[(String, String)] {
        &self.inner.param_headers
    }

    /// Whether this 2026-07-28 retry carried a `requestState` that passed its integrity check.
    pub fn request_state_verified(&self) -> bool {
        matches!(&self.inner.input, InputMode::Stateless(s) if s.state_verified)
    }

    /// Broadcasts list changes and resource updates to every listening client.
    pub fn notifier(&self) -> &Notifier {
        &self.inner.notifier
    }

    /// The log level the client asked for: its session's (`logging/setLevel`, the same on
    /// every replica) or, at 2026-07-28, the request's `_meta` logLevel; `None` when none.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.inner.log_level.level()
    }

    /// The id of the handshake-era session this request belongs to (`Mcp-Session-Id` over
    /// HTTP, the connection's session on stdio); `None` at 2026-07-28.
    pub fn session_id(&self) -> Option<&str> {
        self.inner.session_id.as_deref()
    }

    /// An HTTP header of the request (case-insensitive name); `None` on stdio or when absent
    /// or not visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.inner
            .headers
            .as_ref()
            .and_then(|h| h.get(name))
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    }

    /// The same request with the HTTP request's headers.
    pub(crate) fn with_headers(self, headers: &Arc<http::HeaderMap>) -> RequestContext {
        let headers = Some(headers.clone());
        self.edited(|inner| inner.headers = headers)
    }

    /// The same request with `edit` applied: in place when this is the context's only handle
    /// (a context being built), else on a copy.
    pub(crate) fn edited(mut self, edit: impl FnOnce(&mut ContextInner)) -> RequestContext {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => edit(inner),
            None => {
                let mut inner = clone_inner(&self.inner);
                edit(&mut inner);
                self.inner = Arc::new(inner);
            }
        }
        self
    }

    /// The same request with its changes announced on `notifier` instead: a front server
    /// hands an inner server's handler a context whose list changes and resource updates go
    /// to that inner server's own notifier (so the front can tell where they came from).
    pub fn with_notifier(&self, notifier: Notifier) -> RequestContext {
        RequestContext {
            inner: Arc::new(ContextInner {
                notifier,
                ..clone_inner(&self.inner)
            }),
        }
    }

    /// The context of a task started from this request: the same client, no stream (the
    /// request has been answered), input through the task.
    pub(crate) fn for_task(&self, link: super::tasks::TaskLink) -> RequestContext {
        RequestContext {
            inner: Arc::new(ContextInner {
                input: InputMode::Task(link),
                outbox: None,
                ..clone_inner(&self.inner)
            }),
        }
    }

    pub(crate) fn input_mode(&self) -> &InputMode {
        &self.inner.input
    }

    /// Queues `out` on the request's stream; `false` when there is no stream (any more).
    pub(crate) async fn send(&self, out: Outgoing) -> bool {
        match &self.inner.outbox {
            Some(tx) => tx.send(out).await.is_ok(),
            None => false,
        }
    }

    /// Sends a progress notification if the request asked for progress (no-op otherwise).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.inner.progress_token.clone() else {
            return;
        };
        let mut params = ProgressNotificationParams::new(token, number(progress));
        params.total = total.map(number);
        params.message = message.map(str::to_owned);
        let body = ServerNotification::Progress(ProgressNotification::new(params));
        if let Ok(frame) = emit(&JsonRpcNotification::new(body), self.revision()) {
            self.send(Outgoing::Frame(frame)).await;
        }
    }

    /// Sends a log message on the request's stream if the level in force lets it through.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let allowed = match self.inner.log_level.rank() {
            Some(min) => level_rank(level) >= min,
            None => self.inner.log_by_default,
        };
        if !allowed {
            return;
        }
        let mut params = LoggingMessageNotificationParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        let body = ServerNotification::LoggingMessage(LoggingMessageNotification::new(params));
        if let Ok(frame) = emit(&JsonRpcNotification::new(body), self.revision()) {
            self.send(Outgoing::Frame(frame)).await;
        }
    }

    /// Closes the request's HTTP stream now and lets the client reconnect (with `Last-Event-ID`)
    /// after `retry` to receive the rest (2025-11-25 SSE polling). A no-op at other revisions
    /// and on transports without streams.
    pub async fn close_stream(&self, retry: Duration) {
        if self.revision() == ProtocolVersion::V2025_11_25 {
            self.send(Outgoing::CloseStream { retry }).await;
        }
    }
}

/// A JSON number from an `f64` (integers stay integers).
fn number(v: f64) -> Number {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Number::from(v as i64)
    } else {
        Number::from_f64(v).unwrap_or_else(|| Number::from(0))
    }
}

/// The progress token of a typed request.
pub(crate) fn progress_token(request: &ClientRequest) -> Option<ProgressToken> {
    use mcp_wire::model::RequestMeta;
    request.meta().and_then(|m| {
        m.get_as::<ProgressToken>(keys::PROGRESS_TOKEN)
            .ok()
            .flatten()
    })
}

/// The context of a handshake-era request of `session`; input requests wait `answer_timeout`
/// for the client's answer.
pub(crate) fn session_context(
    notifier: &Notifier,
    answer_timeout: Duration,
    session: &Arc<Session>,
    id: RequestId,
    request: &ClientRequest,
    principal: Principal,
    outbox: Option<mpsc::Sender<Outgoing>>,
) -> RequestContext {
    RequestContext {
        inner: Arc::new(ContextInner {
            revision: session.revision,
            principal,
            client_capabilities: session.client_capabilities.clone(),
            client_info: session.client_info.clone(),
            request_id: id,
            method: request.method(),
            progress_token: progress_token(request),
            log_level: session.level.clone(),
            log_by_default: true,
            outbox,
            input: InputMode::Session(SessionLink {
                session: session.clone(),
                timeout: answer_timeout,
                tasks: None,
            }),
            notifier: notifier.clone(),
            param_headers: Vec::new(),
            session_id: Some(session.id.clone()),
            headers: None,
        }),
    }
}

/// Member `key` of a request's `_meta` read as `T`, as the model reads every `Value` (one
/// compiled read per type); `None` when absent or of another shape.
fn meta_member<T: serde::de::DeserializeOwned>(meta: Option<&Meta>, key: &str) -> Option<T> {
    mcp_wire::model::from_value_ref(meta?.get(key)?).ok()
}

/// The context of a 2026-07-28 request: identity and capabilities from its `_meta`, no logs
/// unless `_meta` asks for a level.
pub(crate) fn stateless_context(
    notifier: &Notifier,
    id: RequestId,
    request: &ClientRequest,
    principal: Principal,
    param_headers: Vec<(String, String)>,
) -> RequestContext {
    // A member of the wrong shape is as good as absent (the request's own parse judged it).
    let meta = request.meta();
    let client_capabilities: ClientCapabilities =
        meta_member(meta, keys::CLIENT_CAPABILITIES).unwrap_or_default();
    let client_info: Option<Implementation> = meta_member(meta, keys::CLIENT_INFO);
    let log_level = Arc::new(LevelCell::unset());
    if let Some(level) = meta_member::<LoggingLevel>(meta, keys::LOG_LEVEL) {
        log_level.set(level);
    }
    RequestContext {
        inner: Arc::new(ContextInner {
            revision: ProtocolVersion::V2026_07_28,
            principal,
            client_capabilities: Arc::new(client_capabilities),
            client_info: client_info.map(Arc::new),
            request_id: id,
            method: request.method(),
            progress_token: progress_token(request),
            log_level,
            log_by_default: false,
            outbox: None,
            input: InputMode::Stateless(Arc::new(StatelessInputs::default())),
            notifier: notifier.clone(),
            param_headers,
            session_id: None,
            headers: None,
        }),
    }
}

/// A copy of `inner`, for a context derived from another (a task's, a later round's).
pub(crate) fn clone_inner(inner: &ContextInner) -> ContextInner {
    ContextInner {
        revision: inner.revision,
        principal: inner.principal.clone(),
        client_capabilities: inner.client_capabilities.clone(),
        client_info: inner.client_info.clone(),
        request_id: inner.request_id.clone(),
        method: inner.method,
        progress_token: inner.progress_token.clone(),
        log_level: inner.log_level.clone(),
        log_by_default: inner.log_by_default,
        outbox: inner.outbox.clone(),
        input: inner.input.clone(),
        notifier: inner.notifier.clone(),
        param_headers: inner.param_headers.clone(),
        session_id: inner.session_id.clone(),
        headers: inner.headers.clone(),
    }
}
