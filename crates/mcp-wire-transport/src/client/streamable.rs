//! The Streamable HTTP client, both wires (see [`Wire`]).
//!
//! One driver task reads the user's frames; each frame is one POST exchange in its own task (at
//! most [`ClientOptions::max_in_flight`] at once). An exchange delivers what the server answers —
//! a JSON body or the events of an SSE stream — and answers itself every request of its frame
//! that the server left unanswered (see the module docs of [`crate::client`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, Request, StatusCode, Uri, header};
use http_body_util::Full;
use hyper::body::Incoming;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{RequestId, codes};
use mcp_wire::session::Envelope;
use mcp_wire::wire::RawFrame;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};

use super::auth::{MAX_AUTHORIZATIONS_PER_REQUEST, is_auth_refusal};
use super::http::{
    HttpClient, Media, Reason, SseBody, client, each_answer, error_answer, hand, hand_bytes,
    media_type, parse_url, read_body, send, status_message,
};
use super::param_headers::{ParamHeader, param_text, tool_param_headers};
use super::peek::{Peek, messages};
use super::{ClientOptions, Wire};
use crate::routing::{
    LAST_EVENT_HEADER, METHOD_HEADER, NAME_HEADER, NameMember, SESSION_HEADER, VERSION_HEADER,
    name_member,
};
use crate::stdio::close_requested;
use crate::{Connection, ConnectionEnd, Frame, ServerStreamGate, TransportError};

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// What each wire does, as data.
#[derive(Debug, Clone, Copy)]
struct WireRules {
    /// `initialize` mints a session whose id every later request carries; DELETE ends it.
    session: bool,
    /// A GET opens the standalone server stream.
    get_stream: bool,
    /// A broken SSE answer is resumed with a GET carrying `Last-Event-ID`.
    resume: bool,
    /// `Mcp-Method` / `Mcp-Name` headers copy the body; `MCP-Protocol-Version` comes from `_meta`.
    routing_headers: bool,
    /// Cancelling a request closes its response stream instead of sending the notification.
    cancel_by_closing: bool,
}

impl Wire {
    fn rules(self) -> WireRules {
        match self {
            Wire::Stateful => WireRules {
                session: true,
                get_stream: true,
                resume: true,
                routing_headers: false,
                cancel_by_closing: false,
            },
            Wire::Stateless => WireRules {
                session: false,
                get_stream: false,
                resume: false,
                routing_headers: true,
                cancel_by_closing: true,
            },
        }
    }
}

/// Connects to the Streamable HTTP endpoint `url` (e.g. `http://127.0.0.1:8080/mcp`) on `wire`.
///
/// Nothing is sent until the first frame: on the stateful wire that is the user's `initialize`
/// (its answer's session id and revision are then used for every later request); on the stateless
/// wire every request stands alone. Closing the connection ends open streams and, on the stateful
/// wire, DELETEs the session. Must be called inside a tokio runtime.
pub fn connect_streamable(
    url: &str,
    wire: Wire,
    options: ClientOptions,
) -> Result<Connection, TransportError> {
    let url = parse_url(url)?;
    let (connection, mut driver) = Connection::pair(options.queue);
    let rules = wire.rules();
    let server_stream =
        (rules.get_stream && options.open_get_stream).then(|| driver.hold_server_stream());
    let shared = Arc::new(Shared {
        client: client(),
        url,
        rules,
        server_stream: Mutex::new(server_stream),
        permits: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
        options,
        incoming: driver.incoming.clone(),
        session: Mutex::new(Session::default()),
        fatal: Mutex::new(None),
        fatal_set: Notify::new(),
        closing: driver.close_requested.clone(),
        tool_headers: Mutex::default(),
        tool_lists: Mutex::default(),
    });
    crate::spawn::spawn(async move {
        let mut tasks = JoinSet::new();
        let mut by_request: HashMap<RequestId, AbortHandle> = HashMap::new();
        let mut close = driver.close_requested.clone();
        let end = loop {
            let frame = tokio::select! {
                frame = driver.outgoing.recv() => frame,
                () = close_requested(&mut close) => break ConnectionEnd::Closed,
                () = shared.fatal_set.notified() => break shared.fatal_end(),
            };
            let Some(frame) = frame else {
                break ConnectionEnd::Closed;
            };
            while tasks.try_join_next().is_some() {}
            by_request.retain(|_, task| !task.is_finished());
            let plan = shared.plan(&frame);
            if let Some(cancelled) = &plan.cancels {
                if let Some(task) = by_request.remove(cancelled) {
                    task.abort();
                }
                continue;
            }
            let permit = tokio::select! {
                permit = shared.permits.clone().acquire_owned() => permit.expect("never closed"),
                () = close_requested(&mut close) => break ConnectionEnd::Closed,
            };
            if plan.initialized {
                // The lifecycle's order: the server has `notifications/initialized` (its POST
                // answered) before any later frame is posted, so a request right after it
                // never overtakes it on a concurrent connection.
                Arc::clone(&shared).exchange(frame, plan, permit).await;
                continue;
            }
            let requests = plan.requests.clone();
            let task = crate::spawn::spawn_in(
                &mut tasks,
                Arc::clone(&shared).exchange(frame, plan, permit),
            );
            if shared.rules.cancel_by_closing {
                for id in requests {
                    by_request.insert(id, task.clone());
                }
            }
        };
        tasks.abort_all();
        shared.end_session().await;
        driver.finish(end);
    });
    Ok(connection)
}

/// The state every exchange of one connection shares.
struct Shared {
    client: HttpClient,
    url: Uri,
    rules: WireRules,
    options: ClientOptions,
    permits: Arc<Semaphore>,
    incoming: mpsc::Sender<Frame>,
    session: Mutex<Session>,
    /// A failure that ends the connection (an expired session).
    fatal: Mutex<Option<TransportError>>,
    fatal_set: Notify,
    closing: watch::Receiver<bool>,
    /// Held until the standalone stream's first GET is answered (see
    /// [`crate::ConnectionHandle::server_stream_ready`]).
    server_stream: Mutex<Option<ServerStreamGate>>,
    /// Stateless wire: each valid tool's `x-mcp-header` annotations, from the `tools/list`
    /// answers seen (see [`super::param_headers`]).
    tool_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// Stateless wire: the ids of `tools/list` requests whose answers are still to be read.
    tool_lists: Mutex<HashSet<RequestId>>,
}

/// What the stateful wire learns: the session id, the negotiated revision.
#[derive(Debug, Default)]
struct Session {
    id: Option<HeaderValue>,
    /// The revision the `initialize` answer named, as the `MCP-Protocol-Version` value every
    /// later request carries (a name that cannot be a header value is not kept).
    protocol_version: Option<HeaderValue>,
    /// The id of the `initialize` request whose answer names the revision.
    initialize: Option<RequestId>,
    get_stream_open: bool,
}

/// How one outgoing frame is sent.
#[derive(Debug, Default)]
struct Plan {
    /// Ids of the requests in the frame: each gets an answer.
    requests: Vec<RequestId>,
    /// Stateless wire: this frame cancels that request (its stream is closed; nothing is sent).
    cancels: Option<RequestId>,
    method: Option<String>,
    name: Option<String>,
    /// The revision a stateless request names in `_meta`.
    version: Option<String>,
    /// The frame is `notifications/initialized` (the GET stream may open after it).
    initialized: bool,
    /// Stateless `tools/call`: the `Mcp-Param-*` headers its arguments fill.
    param_headers: Vec<(HeaderName, HeaderValue)>,
}

impl Shared {
    fn plan(&self, frame: &Frame) -> Plan {
        let peeks = messages(frame);
        let mut plan = Plan {
            requests: peeks
                .iter()
                .filter_map(|p| p.request_id().cloned())
                .collect(),
            ..Plan::default()
        };
        let [peek] = peeks.as_slice() else {
            return plan;
        };
        let method = peek.method.as_deref();
        if self.rules.cancel_by_closing && method == Some("notifications/cancelled") {
            plan.cancels = peek.params.as_ref().and_then(|p| p.request_id.clone());
            if plan.cancels.is_some() {
                return plan;
            }
        }
        if self.rules.session && method == Some("initialize") {
            self.lock().initialize = peek.request_id().cloned();
        }
        plan.initialized = method == Some("notifications/initialized");
        if self.rules.routing_headers {
            if method == Some("tools/list")
                && let Some(id) = peek.request_id()
            {
                lock(&self.tool_lists).insert(id.clone());
            }
            if method == Some("tools/call") {
                plan.param_headers = self.param_headers(peek, frame);
            }
            plan.name = routing_name(peek);
            plan.version = peek
                .params
                .as_ref()
                .and_then(|p| p.meta.as_ref())
                .and_then(|m| m.protocol_version.as_deref())
                .map(str::to_owned);
        }
        plan.method = method.map(str::to_owned);
        plan
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        lock(&self.session)
    }

    /// The `Mcp-Param-*` headers of a `tools/call` frame: one per annotated property of the
    /// called tool whose argument is a string, number or boolean.
    fn param_headers(&self, peek: &Peek<'_>, frame: &Frame) -> Vec<(HeaderName, HeaderValue)> {
        let Some(name) = peek.params.as_ref().and_then(|p| p.name.as_deref()) else {
            return Vec::new();
        };
        let annotated = match lock(&self.tool_headers).get(name) {
            Some(annotated) if !annotated.is_empty() => annotated.clone(),
            _ => return Vec::new(),
        };
        let Ok(body) = frame.to_value() else {
            return Vec::new();
        };
        let arguments = &body["params"]["arguments"];
        annotated
            .iter()
            .filter_map(|p| {
                let text = param_text(arguments.get(&p.property)?)?;
                let name = HeaderName::try_from(format!("mcp-param-{}", p.header)).ok()?;
                Some((name, header_value(&text)))
            })
            .collect()
    }

    /// Learns the tools a `tools/list` answer lists (stateless wire).
    fn learn_tools(&self, raw: &RawFrame<'_>) {
        let Envelope::Response { id } = raw.envelope() else {
            return;
        };
        if !lock(&self.tool_lists).remove(id) {
            return;
        }
        let Some(result) = raw.result_text() else {
            return;
        };
        let Ok(result) = serde_json::from_str::<serde_json::Value>(result.get()) else {
            return;
        };
        let mut known = lock(&self.tool_headers);
        for tool in result["tools"].as_array().into_iter().flatten() {
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            match tool_param_headers(tool) {
                Ok(headers) => known.insert(name.to_owned(), headers),
                Err(_) => known.remove(name),
            };
        }
    }

    /// The revision answers made here are written at.
    fn revision(&self) -> ProtocolVersion {
        if self.rules.session {
            self.lock()
                .protocol_version
                .as_ref()
                .and_then(|v| v.to_str().ok()?.parse().ok())
                .unwrap_or(ProtocolVersion::V2025_11_25)
        } else {
            self.options
                .stateless_version
                .parse()
                .unwrap_or(ProtocolVersion::V2026_07_28)
        }
    }

    fn fatal_end(&self) -> ConnectionEnd {
        let error = self
            .fatal
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or(TransportError::PeerClosed);
        ConnectionEnd::Failed(Arc::new(error))
    }

    fn fail(&self, error: TransportError) {
        *self.fatal.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        self.fatal_set.notify_one();
    }

    /// A request to the endpoint with the headers every exchange carries.
    fn request(&self, method: Method, accept: &'static str) -> http::request::Builder {
        let mut builder = Request::builder()
            .uri(self.url.clone())
            .header(header::ACCEPT, HeaderValue::from_static(accept));
        if let Some(authorizer) = &self.options.authorizer {
            for (name, value) in authorizer.0.request_headers(&method, &self.url) {
                builder = builder.header(name, value);
            }
        }
        let mut builder = builder.method(method);
        if self.rules.session {
            let session = self.lock();
            if let Some(id) = &session.id {
                builder = builder.header(SESSION_HEADER, id.clone());
            }
            if let Some(version) = &session.protocol_version {
                builder = builder.header(VERSION_HEADER, version.clone());
            }
        }
        builder
    }

    /// One POST exchange: send `frame`, deliver what comes back, answer what the server did not.
    async fn exchange(self: Arc<Self>, frame: Frame, plan: Plan, _permit: OwnedSemaphorePermit) {
        let mut pending: HashSet<RequestId> = plan.requests.iter().cloned().collect();
        let body = frame.into_bytes();
        let mut authorizations = 0;
        let response = loop {
            let request = match self.post_request(&plan, body.clone()) {
                Ok(request) => request,
                Err(e) => {
                    let message = format!("cannot build the request: {e}");
                    return self
                        .answer_rest(&mut pending, Reason::Unavailable, &message, None)
                        .await;
                }
            };
            let response = match send(&self.client, request, self.options.request_timeout).await {
                Ok(response) => response,
                Err(e) => {
                    let message = format!("POST {} failed: {e}", self.url);
                    return self
                        .answer_rest(&mut pending, Reason::of(&e), &message, None)
                        .await;
                }
            };
            let status = response.status();
            let Some(authorizer) = &self.options.authorizer else {
                break response;
            };
            if !is_auth_refusal(status) || authorizations >= MAX_AUTHORIZATIONS_PER_REQUEST {
                break response;
            }
            authorizations += 1;
            let (parts, body) = response.into_parts();
            let _ = read_body(body, 1 << 16).await;
            match authorizer
                .0
                .challenged(&self.url, status, &parts.headers)
                .await
            {
                Ok(true) => continue,
                Ok(false) => {
                    let message = format!("the server refused the request (HTTP {status})");
                    return self
                        .answer_rest(&mut pending, Reason::Unavailable, &message, Some(status))
                        .await;
                }
                Err(e) => {
                    let message = e.to_string();
                    return self
                        .answer_rest(&mut pending, Reason::Unavailable, &message, Some(status))
                        .await;
                }
            }
        };
        self.answered(response, &plan, &mut pending).await;
    }

    /// The POST carrying `body` as `plan` says.
    fn post_request(&self, plan: &Plan, body: Bytes) -> Result<Request<Full<Bytes>>, http::Error> {
        let mut builder = self.request(Method::POST, ACCEPT_BOTH).header(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if self.rules.routing_headers {
            let version = plan
                .version
                .as_deref()
                .unwrap_or(&self.options.stateless_version);
            builder = builder.header(VERSION_HEADER, header_value(version));
            if let Some(method) = &plan.method {
                builder = builder.header(METHOD_HEADER, header_value(method));
            }
            if let Some(name) = &plan.name {
                builder = builder.header(NAME_HEADER, header_value(name));
            }
            for (name, value) in &plan.param_headers {
                builder = builder.header(name, value.clone());
            }
        }
        builder.body(Full::new(body))
    }

    /// Delivers what the server answered a POST with, and answers what it left unanswered.
    async fn answered(
        self: &Arc<Self>,
        response: http::Response<Incoming>,
        plan: &Plan,
        pending: &mut HashSet<RequestId>,
    ) {
        let status = response.status();
        if self.rules.session
            && let Some(id) = response.headers().get(&SESSION_HEADER)
        {
            let mut session = self.lock();
            if session.id.is_none() {
                session.id = Some(id.clone());
            }
        }
        let media = media_type(response.headers());
        let body = response.into_body();
        if status == StatusCode::NOT_FOUND && self.rules.session && self.lock().id.is_some() {
            let message =
                "the server ended the session (HTTP 404): start a new one with initialize";
            self.answer_rest(pending, Reason::Closed, message, Some(status))
                .await;
            return self.fail(TransportError::HttpStatus {
                status: 404,
                message: message.to_owned(),
            });
        }
        if !status.is_success() {
            // The body may be a JSON-RPC error answering the request (e.g. -32020 with HTTP 400).
            let bytes = read_body(body, 1 << 20).await.unwrap_or_default();
            // Anything else (an HTML error page, nothing) is only the status's message.
            let _ = self.deliver(bytes.clone(), pending).await;
            let message = status_message(status, &bytes);
            return self
                .answer_rest(pending, Reason::Unavailable, &message, Some(status))
                .await;
        }
        match media {
            Media::EventStream => self.read_stream(body, pending).await,
            Media::Json => {
                let read = tokio::time::timeout(
                    self.options.request_timeout,
                    read_body(body, self.options.max_frame_bytes),
                )
                .await
                .unwrap_or(Err(TransportError::Timeout(self.options.request_timeout)));
                let delivered = match read {
                    Ok(bytes) => self.deliver(bytes, pending).await,
                    Err(e) => Err(e),
                };
                match delivered {
                    Ok(()) => {}
                    Err(e) => {
                        let message = format!("unreadable JSON answer: {e}");
                        self.answer_rest(pending, Reason::of(&e), &message, Some(status))
                            .await;
                    }
                }
            }
            Media::Other => {
                let _ = read_body(body, 1 << 20).await;
            }
        }
        if !pending.is_empty() {
            let message =
                format!("the server answered HTTP {status} without answering the request");
            self.answer_rest(pending, Reason::Closed, &message, Some(status))
                .await;
        }
        if plan.initialized && status.is_success() {
            self.initialized();
        }
    }

    /// Reads an SSE answer to its end, resuming it (stateful wire) while requests are unanswered.
    async fn read_stream(self: &Arc<Self>, body: Incoming, pending: &mut HashSet<RequestId>) {
        let mut stream = SseBody::new(body, self.options.max_frame_bytes);
        let mut cursor = Cursor::default();
        let mut attempts = 0;
        loop {
            let error = self.pump(&mut stream, &mut cursor, pending).await.err();
            if pending.is_empty() {
                return;
            }
            let resumable = self.rules.resume && cursor.last_id.is_some();
            if !resumable || attempts >= self.options.resume_attempts {
                let message = match error {
                    Some(e) => format!("the answer stream failed: {e}"),
                    None => "the answer stream ended before the answer".to_owned(),
                };
                return self
                    .answer_rest(pending, Reason::Closed, &message, None)
                    .await;
            }
            attempts += 1;
            tokio::time::sleep(cursor.retry).await;
            match self.open_get(cursor.last_id.as_deref()).await {
                Ok(Some(body)) => stream = SseBody::new(body, self.options.max_frame_bytes),
                Ok(None) | Err(_) => continue,
            }
        }
    }

    /// Delivers the events of `stream` until it ends.
    async fn pump(
        &self,
        stream: &mut SseBody,
        cursor: &mut Cursor,
        pending: &mut HashSet<RequestId>,
    ) -> Result<(), TransportError> {
        while let Some(event) = stream.next().await? {
            if let Some(id) = event.id {
                cursor.last_id = Some(id);
            }
            if let Some(ms) = event.retry {
                cursor.retry = Duration::from_millis(ms.min(30_000));
            }
            if event.data.is_empty() || !(event.event.is_empty() || event.event == "message") {
                continue;
            }
            // An event that is not one JSON value is skipped, as a stdio line would be.
            let _ = self.deliver(event.data.into(), pending).await;
        }
        Ok(())
    }

    /// A GET for an SSE stream (resuming after `last_id` when given): `None` when the server
    /// offers none (405).
    async fn open_get(&self, last_id: Option<&str>) -> Result<Option<Incoming>, TransportError> {
        let mut builder = self.request(Method::GET, "text/event-stream");
        if let Some(id) = last_id {
            builder = builder.header(LAST_EVENT_HEADER, header_value(id));
        }
        let request = builder
            .body(Full::new(Bytes::new()))
            .map_err(|e| TransportError::protocol(codes::INTERNAL_ERROR, e.to_string()))?;
        let response = send(&self.client, request, self.options.request_timeout).await?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Ok(None);
        }
        if !status.is_success() || media_type(response.headers()) != Media::EventStream {
            return Err(TransportError::HttpStatus {
                status: status.as_u16(),
                message: "GET did not open an event stream".to_owned(),
            });
        }
        Ok(Some(response.into_body()))
    }

    /// After `notifications/initialized`: open the standalone GET stream once, if configured.
    fn initialized(self: &Arc<Self>) {
        if !self.rules.get_stream || !self.options.open_get_stream {
            return;
        }
        {
            let mut session = self.lock();
            if session.get_stream_open {
                return;
            }
            session.get_stream_open = true;
        }
        let shared = Arc::clone(self);
        let mut closing = self.closing.clone();
        crate::spawn::spawn(async move {
            tokio::select! {
                () = shared.get_stream() => {}
                () = close_requested(&mut closing) => {}
            }
        });
    }

    /// The standalone stream: server requests and notifications outside any POST, reconnected
    /// (with `Last-Event-ID`) after breaks, until the server refuses or it fails too often.
    async fn get_stream(&self) {
        let mut cursor = Cursor::default();
        let mut failures = 0;
        let mut none = HashSet::new();
        while failures <= self.options.resume_attempts {
            let opened = self.open_get(cursor.last_id.as_deref()).await;
            // Answered: the server now sends what it announces here (or it offers no stream).
            drop(
                self.server_stream
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take(),
            );
            match opened {
                Ok(None) => return,
                Ok(Some(body)) => {
                    let mut stream = SseBody::new(body, self.options.max_frame_bytes);
                    let before = cursor.last_id.clone();
                    let _ = self.pump(&mut stream, &mut cursor, &mut none).await;
                    if cursor.last_id == before {
                        failures += 1;
                    } else {
                        failures = 0;
                    }
                }
                Err(TransportError::HttpStatus { status: 404, .. }) => return,
                Err(_) => failures += 1,
            }
            tokio::time::sleep(cursor.retry).await;
        }
    }

    /// Hands the server's `bytes` (one frame) to the user, first noting what it answers and
    /// the revision an `initialize` answer names. Bytes that are not one JSON value are the
    /// error (nothing is handed on).
    async fn deliver(
        &self,
        bytes: Bytes,
        pending: &mut HashSet<RequestId>,
    ) -> Result<(), TransportError> {
        let note = |frame: &Frame, raw: Option<&RawFrame<'_>>| {
            if self.rules.routing_headers
                && let Some(raw) = raw
            {
                self.learn_tools(raw);
            }
            each_answer(frame, raw, |id, version| {
                pending.remove(id);
                if self.rules.session {
                    self.note_initialize_answer(id, version);
                }
            });
        };
        hand_bytes(&self.incoming, self.options.tap.as_ref(), bytes, note)
            .await
            .map(drop)
    }

    /// Records the revision an `initialize` answer names (`version`, read only when `id` is
    /// the `initialize` request's).
    fn note_initialize_answer(&self, id: &RequestId, version: &dyn Fn() -> Option<String>) {
        let mut session = self.lock();
        if session.initialize.as_ref() != Some(id) {
            return;
        }
        session.initialize = None;
        if let Some(version) = version() {
            session.protocol_version = HeaderValue::from_str(&version).ok();
        }
    }

    /// Answers every request still in `pending` with a transport error.
    async fn answer_rest(
        &self,
        pending: &mut HashSet<RequestId>,
        reason: Reason,
        message: &str,
        status: Option<StatusCode>,
    ) {
        let revision = self.revision();
        for id in pending.drain() {
            let frame = error_answer(id, reason, message, status, revision);
            hand(&self.incoming, self.options.tap.as_ref(), frame).await;
        }
    }

    /// Stateful wire: DELETE the session (best effort, bounded).
    async fn end_session(&self) {
        if !self.rules.session || self.lock().id.is_none() {
            return;
        }
        let request = match self
            .request(Method::DELETE, ACCEPT_BOTH)
            .body(Full::new(Bytes::new()))
        {
            Ok(request) => request,
            Err(_) => return,
        };
        if let Ok(response) = send(&self.client, request, Duration::from_secs(5)).await {
            let _ = tokio::time::timeout(
                Duration::from_secs(5),
                read_body(response.into_body(), 1 << 16),
            )
            .await;
        }
    }
}

/// Where an SSE stream is: the last event id seen, the reconnection delay.
#[derive(Debug)]
struct Cursor {
    last_id: Option<String>,
    retry: Duration,
}

impl Default for Cursor {
    fn default() -> Self {
        Self {
            last_id: None,
            retry: Duration::from_millis(500),
        }
    }
}

/// The `Mcp-Name` of a stateless request: the params member its method names.
fn routing_name(peek: &Peek<'_>) -> Option<String> {
    let member = name_member(peek.method.as_deref()?)?;
    let params = peek.params.as_ref()?;
    match member {
        NameMember::Name => params.name.as_deref(),
        NameMember::Uri => params.uri.as_deref(),
        NameMember::TaskId => params.task_id.as_deref(),
    }
    .map(str::to_owned)
}

/// A mutex's guard, a poisoned lock being used as it is (its data stays consistent: every
/// critical section here is a single insert, remove or read).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A header value: as is when it is visible ASCII without surrounding spaces, else wrapped as
/// `=?base64?…?=` (UTF-8, standard alphabet).
fn header_value(value: &str) -> HeaderValue {
    use base64::Engine;
    let visible_ascii = !value.is_empty() && value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let looks_wrapped = value.starts_with("=?") && value.ends_with("?=");
    let plain = visible_ascii && !padded && !looks_wrapped;
    let text = if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    };
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_header_values_are_base64_wrapped() {
        assert_eq!(header_value("tools/call"), "tools/call");
        assert_eq!(header_value("file:///a b.txt"), "file:///a b.txt");
        assert_eq!(header_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(header_value(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(header_value("line\nbreak"), "=?base64?bGluZQpicmVhaw==?=");
        assert_eq!(header_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }
}
