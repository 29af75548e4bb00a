//! Direction B's tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663) served to
//! 2026-07-28 clients in front of a legacy server that offers 2025-11-25 core tasks for
//! `tools/call` (decision Q8 / B16 in `docs/bridge.md`).
//!
//! The bridge keeps the extension's task store itself ([`Tasks`]); each task is mapped onto
//! the legacy server's core task of the same call:
//!
//! - A negotiated `tools/call` of a tool the legacy server declares `optional` or `required`
//!   goes upstream task-augmented (`params.task`); its `CreateTaskResult` is adopted here
//!   ([`Tasks::adopt`]) and answered as the extension's flat task (`ttlMs`, `pollIntervalMs`,
//!   `resultType: "task"`). Questions the server asks before it answers are input-required
//!   rounds as for any call (the MRTR → task composition).
//! - A driver per task holds the upstream `tasks/result` (2025-11-25: it blocks until the task
//!   ends, and the server sends the task's input requests on it with `related-task`): those
//!   requests become the task's `inputRequests` (keys: the runtime's `INPUT_KEY_META`, else
//!   bridge-chosen), `tasks/update` answers them upstream, and the payload becomes the
//!   inlined `result` (`completed`, `isError` included: the extension keeps `failed` for
//!   protocol errors) or the JSON-RPC `error` (`failed`), read at the legacy revision and
//!   emitted at 2026-07-28 without the `related-task` `_meta`.
//! - `tasks/get` answers from the store (no upstream round trip); `tasks/cancel` marks the
//!   task `cancelled` at once (idempotent on a finished task, as the extension wants),
//!   answers its waiting requests as a client that will never answer would, stops the driver
//!   and sends `tasks/cancel` upstream.
//!
//! Bounds: at most [`BridgeLimits::max_tasks`] tasks, each kept [`BridgeLimits::task_ttl`] after
//! creation (the rule is the runtime's [`TaskTable`]'s; a full store refuses `limit_exceeded`
//! and cancels the new upstream task; a running one is cancelled upstream when it expires), its
//! driver bounded by the same TTL. A task belongs to the principal whose call created it:
//! another principal's `taskId` is unknown (`-32602`).

use std::sync::Arc;

use indexmap::IndexMap;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire::model::{
    ClientCapabilities, CreateTaskResult, DetailedTask, InputResponse, ServerResult,
    TASKS_EXTENSION_ID, TaskCreatedResult, TaskInfo, TaskStatus, meta::keys,
};
use mcp_wire::wire::{MethodResult, ResultFor, parse_result_for, serialize_for};
use mcp_wire_transport::server::{TableFull, TaskEntry, TaskTable, new_task_id, owned};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use crate::input_rounds::{admit, client_result, error_for_stateless_client};
use crate::limits::{BridgeLimits, Reason};
use crate::park::{Call, Pending};
use crate::upstream::{Answer, LegEvent, Upstream, client_request};

/// Whether a legacy server with these capabilities offers task-augmented `tools/call`.
pub(crate) fn core_offered(capabilities: &mcp_wire::model::ServerCapabilities) -> bool {
    capabilities
        .tasks
        .as_ref()
        .and_then(|t| t.requests.as_ref())
        .and_then(|r| r.get("tools"))
        .and_then(|t| t.get("call"))
        .is_some()
}

/// Whether the request's client declared the tasks extension (for its session or in this
/// request's `_meta`).
pub(crate) fn negotiated(caps: &ClientCapabilities) -> bool {
    caps.extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION_ID))
}

/// `-32021` naming the tasks extension (a `tasks/*` request, or a `required` tool, from a
/// client that did not declare it).
pub(crate) fn tasks_required() -> ErrorData {
    ErrorData::new(
        codes::MISSING_CLIENT_CAPABILITY,
        "Missing required client capability",
    )
    .with_data(json!({
        "requiredCapabilities": {"extensions": {TASKS_EXTENSION_ID: {}}}
    }))
}

/// How a task ended, or that it has not.
enum Outcome {
    Running,
    /// The call's result as 2026-07-28 writes it.
    Completed(Map<String, Value>),
    Failed(ErrorData),
    Cancelled,
}

struct Entry {
    owner: String,
    outcome: Outcome,
    /// The legacy server's requests the task waits on, by key.
    pending: IndexMap<String, Pending>,
    /// Keys handed out so far.
    keys: usize,
    /// The legacy session the task runs on, and the server's id for it (none for a task the
    /// bridge hosts).
    session: Arc<Upstream>,
    upstream_id: Option<String>,
    driver: Option<tokio::task::AbortHandle>,
}

impl TaskEntry for Entry {
    fn owner(&self) -> &str {
        &self.owner
    }

    fn status(&self) -> TaskStatus {
        match self.outcome {
            Outcome::Running if !self.pending.is_empty() => TaskStatus::InputRequired,
            Outcome::Running => TaskStatus::Working,
            Outcome::Completed(_) => TaskStatus::Completed,
            Outcome::Failed(_) => TaskStatus::Failed,
            Outcome::Cancelled => TaskStatus::Cancelled,
        }
    }

    /// Ends a running task upstream: the driver stops, the waiting requests are answered as a
    /// client that will never answer would, and the server's task is cancelled.
    fn stop(&mut self) {
        if let Some(driver) = self.driver.take() {
            driver.abort();
        }
        let pending = std::mem::take(&mut self.pending);
        let session = self.session.clone();
        let upstream_id = self.upstream_id.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                for (_, p) in pending {
                    let answer =
                        crate::park::abandoned_answer(&p.request, "the task was cancelled");
                    session.respond(p.id, answer).await;
                }
                // A hosted task's call is cancelled by its driver's end (its leg is dropped).
                if let Some(upstream_id) = upstream_id {
                    let _ = upstream_cancel(&session, &upstream_id).await;
                }
            });
        }
    }
}

/// Sends `tasks/cancel` for the server's task and waits for its answer (bounded).
async fn upstream_cancel(session: &Arc<Upstream>, upstream_id: &str) -> Result<(), ErrorData> {
    let request =
        client_request(json!({"method": "tasks/cancel", "params": {"taskId": upstream_id}}))?;
    let mut leg = session
        .start_leg(
            session.reserve_id(),
            request,
            Some(ProtocolVersion::LATEST_STATELESS),
        )
        .await?;
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, leg.next()).await {
            Ok(Some(LegEvent::Done(answer))) => {
                leg.finished = true;
                return answer.map(|_| ());
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => {
                return Err(ErrorData::new(
                    codes::INTERNAL_ERROR,
                    "tasks/cancel unanswered",
                ));
            }
        }
    }
}

/// The extension's tasks of one bridge.
pub(crate) struct Tasks {
    entries: TaskTable<Entry>,
    limits: BridgeLimits,
}

impl Tasks {
    pub(crate) fn new(limits: BridgeLimits) -> Arc<Self> {
        Arc::new(Self {
            entries: TaskTable::new(limits.max_tasks, limits.task_ttl, limits.task_poll_interval),
            limits,
        })
    }

    /// How many tasks are kept.
    pub(crate) fn len(&self) -> usize {
        self.entries.live().len()
    }

    /// Stores a new running task of `owner` on `session` (kept before its id is returned, so
    /// a `tasks/get` right after finds it): its id and wire fields, or `limit_exceeded` when
    /// the store is full of running tasks.
    fn insert(
        &self,
        owner: &str,
        session: &Arc<Upstream>,
        upstream_id: Option<String>,
    ) -> Result<(String, TaskInfo), ErrorData> {
        let id = new_task_id();
        let entry = Entry {
            owner: owner.to_owned(),
            outcome: Outcome::Running,
            pending: IndexMap::new(),
            keys: 0,
            session: session.clone(),
            upstream_id,
            driver: None,
        };
        let info = self
            .entries
            .insert(id.clone(), entry)
            .map_err(|TableFull| {
                Reason::LimitExceeded.error(
                    format!(
                        "the bridge keeps at most {} running tasks",
                        self.limits.max_tasks
                    ),
                    None,
                    None,
                )
            })?;
        Ok((id, info))
    }

    /// Runs `driver` for task `id` (aborted when the task is cancelled or expires).
    fn start<F>(&self, id: &str, driver: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let driver = tokio::spawn(driver);
        match self.entries.lock().get_mut(id) {
            Some(e) if matches!(e.outcome, Outcome::Running) => {
                e.driver = Some(driver.abort_handle());
            }
            _ => driver.abort(),
        }
    }

    /// Takes over the legacy server's task `created` (the answer to a task-augmented call on
    /// `session` by `owner`, whose client declared `caps`), driven in the background through
    /// its `tasks/result`. A full store cancels the server's task.
    pub(crate) fn adopt(
        self: &Arc<Self>,
        owner: &str,
        session: Arc<Upstream>,
        created: CreateTaskResult,
        caps: ClientCapabilities,
    ) -> Result<TaskCreatedResult, ErrorData> {
        let upstream_id = created.task.task_id.clone();
        let (id, info) = match self.insert(owner, &session, Some(upstream_id.clone())) {
            Ok(stored) => stored,
            Err(e) => {
                let session = session.clone();
                tokio::spawn(async move {
                    let _ = upstream_cancel(&session, &upstream_id).await;
                });
                return Err(e);
            }
        };
        let deadline = Instant::now() + self.limits.task_ttl;
        self.start(
            &id,
            drive(
                Arc::downgrade(self),
                id.clone(),
                session,
                upstream_id,
                caps,
                deadline,
            ),
        );
        Ok(TaskCreatedResult::new(info))
    }

    /// Makes the call `call` of `owner` (a plain `tools/call` the legacy server has not
    /// answered yet, whose client declared `caps`) a task the bridge hosts: the call goes on
    /// upstream in the background. A full store gives the call back.
    pub(crate) fn host(
        self: &Arc<Self>,
        owner: &str,
        call: Call,
        caps: ClientCapabilities,
    ) -> Result<TaskCreatedResult, (ErrorData, Box<Call>)> {
        let (id, info) = match self.insert(owner, &call.session, None) {
            Ok(stored) => stored,
            Err(e) => return Err((e, Box::new(call))),
        };
        let deadline = Instant::now() + self.limits.task_ttl;
        self.start(
            &id,
            drive_hosted(Arc::downgrade(self), id.clone(), call, caps, deadline),
        );
        Ok(TaskCreatedResult::new(info))
    }

    /// `tasks/get`: the task with its outcome (or the requests it waits on).
    pub(crate) fn get(&self, owner: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut entries = self.entries.live();
        let e = owned(&mut entries, owner, id)?;
        let mut detailed = DetailedTask::new(self.entries.info(id, e));
        match &e.outcome {
            Outcome::Running if !e.pending.is_empty() => {
                detailed = detailed.with_input_requests(
                    e.pending
                        .iter()
                        .map(|(k, p)| (k.clone(), p.request.clone()))
                        .collect(),
                );
            }
            Outcome::Completed(result) => detailed = detailed.with_result(result.clone()),
            Outcome::Failed(error) => detailed = detailed.with_error(error.clone()),
            Outcome::Running | Outcome::Cancelled => {}
        }
        Ok(detailed)
    }

    /// `tasks/update`: each answer whose key names a waiting request and whose shape answers
    /// it goes to the legacy server; other keys are ignored.
    pub(crate) async fn update(
        &self,
        owner: &str,
        id: &str,
        responses: &IndexMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let (session, answers) = {
            let mut entries = self.entries.live();
            let e = owned(&mut entries, owner, id)?;
            let mut answers = Vec::new();
            for (key, raw) in responses {
                let Some(p) = e.pending.get(key) else {
                    continue;
                };
                let Ok(answer) = serde_json::from_value::<InputResponse>(raw.clone()) else {
                    continue;
                };
                if !answer.answers(&p.request) {
                    continue;
                }
                if let Some(p) = e.pending.shift_remove(key) {
                    answers.push((p.id, answer));
                }
            }
            if !answers.is_empty() {
                e.touch();
            }
            (e.session.clone(), answers)
        };
        for (upstream_request, answer) in answers {
            session
                .respond(upstream_request, client_result(answer))
                .await;
        }
        Ok(())
    }

    /// `tasks/cancel`: a running task ends `cancelled` here and upstream; a finished one is
    /// left as it is (the ack is the same).
    pub(crate) fn cancel(&self, owner: &str, id: &str) -> Result<(), ErrorData> {
        let mut entries = self.entries.live();
        let e = owned(&mut entries, owner, id)?;
        if matches!(e.outcome, Outcome::Running) {
            e.stop();
            e.outcome = Outcome::Cancelled;
            e.touch();
        }
        Ok(())
    }

    /// Records how the task ended (unless it was cancelled first).
    fn finish(&self, id: &str, outcome: Outcome) {
        if let Some(e) = self.entries.lock().get_mut(id)
            && matches!(e.outcome, Outcome::Running)
        {
            e.pending.clear();
            e.driver = None;
            e.outcome = outcome;
            e.touch();
        }
    }

    /// A legacy request of the task's: waiting under `key` (the server's own, else a fresh
    /// one); `false` when the task is no longer running.
    fn ask(&self, id: &str, key: Option<String>, pending: Pending) -> bool {
        let mut entries = self.entries.lock();
        let Some(e) = entries
            .get_mut(id)
            .filter(|e| matches!(e.outcome, Outcome::Running))
        else {
            return false;
        };
        let key = match key {
            Some(k) if !e.pending.contains_key(&k) => k,
            _ => loop {
                e.keys += 1;
                let k = format!("{}-{}", pending.request.tag().replace('/', "-"), e.keys);
                if !e.pending.contains_key(&k) {
                    break k;
                }
            },
        };
        e.pending.insert(key, pending);
        e.touch();
        true
    }
}

/// A server→client request during task `id`: one of the task's input requests if the client
/// declared what it needs (`caps`), else answered -32601 upstream (the capability it lacked
/// is returned, for the call's error).
async fn on_request(
    tasks: &std::sync::Weak<Tasks>,
    id: &str,
    session: &Arc<Upstream>,
    caps: &ClientCapabilities,
    rid: mcp_wire::jsonrpc::RequestId,
    request: mcp_wire::model::ServerRequest,
) -> Option<Value> {
    match admit(caps, request, true) {
        Ok((input, key)) => {
            let asked = tasks.upgrade().is_some_and(|tasks| {
                tasks.ask(
                    id,
                    key,
                    Pending {
                        id: rid.clone(),
                        request: input,
                    },
                )
            });
            if !asked {
                session
                    .respond(
                        rid,
                        Err(ErrorData::new(codes::INTERNAL_ERROR, "the task has ended")),
                    )
                    .await;
            }
            None
        }
        Err(refusal) => {
            let (error, refused) = *refusal;
            session.respond(rid, Err(error)).await;
            refused
        }
    }
}

/// Drives the hosted task `id`: the legacy call `call` to its answer (or the task's TTL), its
/// server's requests becoming the task's input requests.
async fn drive_hosted(
    tasks: std::sync::Weak<Tasks>,
    id: String,
    mut call: Call,
    caps: ClientCapabilities,
    deadline: Instant,
) {
    let outcome = loop {
        match tokio::time::timeout_at(deadline, call.leg.next()).await {
            Ok(Some(LegEvent::Done(answer))) => {
                call.leg.finished = true;
                break match answer {
                    Ok(answer) => match answer.read_result("tools/call", call.session.revision()) {
                        Ok(ServerResult::CallTool(result)) => completed(result),
                        Ok(_) => Outcome::Failed(Reason::InvalidUpstreamAnswer.error(
                            "tools/call did not answer a tool result",
                            None,
                            None,
                        )),
                        Err(e) => Outcome::Failed(e),
                    },
                    Err(e) => {
                        Outcome::Failed(error_for_stateless_client(e, call.refused.take(), None))
                    }
                };
            }
            Ok(Some(LegEvent::Request(rid, request))) => {
                let refused = on_request(&tasks, &id, &call.session, &caps, rid, *request).await;
                if refused.is_some() {
                    call.refused = refused;
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => {
                call.leg.finished = true;
                break Outcome::Failed(Reason::UpstreamClosed.error(
                    "the upstream is gone",
                    None,
                    None,
                ));
            }
            Err(_) => {
                call.leg.cancel("the task's TTL passed");
                break Outcome::Failed(Reason::Timeout.error(
                    "the task did not finish within its TTL",
                    None,
                    None,
                ));
            }
        }
    };
    if let Some(tasks) = tasks.upgrade() {
        tasks.finish(&id, outcome);
    }
}

/// Drives task `id`: holds the server's `tasks/result` for it until the task ends (or its
/// TTL), turning the server's requests on it into the task's input requests.
async fn drive(
    tasks: std::sync::Weak<Tasks>,
    id: String,
    session: Arc<Upstream>,
    upstream_id: String,
    caps: ClientCapabilities,
    deadline: Instant,
) {
    let outcome = loop {
        match drive_leg(&tasks, &id, &session, &upstream_id, &caps, deadline).await {
            Ok(outcome) => break outcome,
            // An error may be the task's (what the call would have answered) or the stream's
            // (an HTTP response that took too long, a dropped stream): the server's
            // `tasks/get` tells; a task still running gets a new `tasks/result`.
            Err(e) => match upstream_status(&session, &upstream_id).await {
                Some(TaskStatus::Working | TaskStatus::InputRequired)
                    if Instant::now() + RETRY_PAUSE < deadline =>
                {
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                _ => break Outcome::Failed(error_for_stateless_client(e, None, None)),
            },
        }
    };
    if let Some(tasks) = tasks.upgrade() {
        tasks.finish(&id, outcome);
    }
}

/// The pause before a driver asks for a running task's result again.
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);

/// The server's status of its task (`None` when it cannot tell).
async fn upstream_status(session: &Arc<Upstream>, upstream_id: &str) -> Option<TaskStatus> {
    let request =
        client_request(json!({"method": "tasks/get", "params": {"taskId": upstream_id}})).ok()?;
    let mut leg = session
        .start_leg(
            session.reserve_id(),
            request,
            Some(ProtocolVersion::LATEST_STATELESS),
        )
        .await
        .ok()?;
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, leg.next()).await {
            Ok(Some(LegEvent::Done(answer))) => {
                leg.finished = true;
                let value = answer.ok()?.value();
                return serde_json::from_value(value.get("status")?.clone()).ok();
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return None,
        }
    }
}

async fn drive_leg(
    tasks: &std::sync::Weak<Tasks>,
    id: &str,
    session: &Arc<Upstream>,
    upstream_id: &str,
    caps: &ClientCapabilities,
    deadline: Instant,
) -> Result<Outcome, ErrorData> {
    let request =
        client_request(json!({"method": "tasks/result", "params": {"taskId": upstream_id}}))?;
    let mut leg = session
        .start_leg(
            session.reserve_id(),
            request,
            Some(ProtocolVersion::LATEST_STATELESS),
        )
        .await?;
    loop {
        match tokio::time::timeout_at(deadline, leg.next()).await {
            Ok(Some(LegEvent::Done(answer))) => {
                leg.finished = true;
                return answer.map(|answer| payload(&answer, session.revision()));
            }
            Ok(Some(LegEvent::Request(rid, request))) => {
                on_request(tasks, id, session, caps, rid, *request).await;
            }
            // Progress and logs of a task have no request to ride on (`notifications/tasks`
            // is not sent yet).
            Ok(Some(_)) => {}
            Ok(None) => {
                leg.finished = true;
                return Ok(Outcome::Failed(Reason::UpstreamClosed.error(
                    "the upstream is gone",
                    None,
                    None,
                )));
            }
            Err(_) => {
                leg.cancel("the task's TTL passed");
                return Ok(Outcome::Failed(Reason::Timeout.error(
                    "the task did not finish within its TTL",
                    None,
                    None,
                )));
            }
        }
    }
}

/// A `tasks/result` payload as the task's outcome: the `tools/call` result read at the legacy
/// revision and written at 2026-07-28, without the `related-task` `_meta` (the task id is at
/// the top level of `tasks/get`).
fn payload(answer: &Answer, revision: ProtocolVersion) -> Outcome {
    match parse_result_for(
        ResultFor::task_payload("tools/call"),
        answer.text(),
        revision,
    ) {
        Ok(MethodResult::Server(ServerResult::CallTool(r))) => completed(r),
        Ok(_) => Outcome::Failed(Reason::InvalidUpstreamAnswer.error(
            "tasks/result did not answer a tool result",
            None,
            None,
        )),
        Err(e) => Outcome::Failed(Reason::InvalidUpstreamAnswer.error(
            format!("the upstream's tasks/result is not valid at {revision}: {e}"),
            None,
            None,
        )),
    }
}

/// A finished call's result as the task's outcome: written at 2026-07-28, without the
/// `related-task` `_meta`.
fn completed(mut result: mcp_wire::model::CallToolResult) -> Outcome {
    if let Some(meta) = result.meta.as_mut() {
        meta.shift_remove(keys::RELATED_TASK);
        if meta.is_empty() {
            result.meta = None;
        }
    }
    match serialize_for(
        &ServerResult::CallTool(result),
        ProtocolVersion::LATEST_STATELESS,
    ) {
        Ok(Value::Object(map)) => Outcome::Completed(map),
        Ok(_) => Outcome::Failed(ErrorData::new(
            codes::INTERNAL_ERROR,
            "the result is not an object",
        )),
        Err(e) => Outcome::Failed(ErrorData::new(
            codes::INTERNAL_ERROR,
            format!("cannot write the task's result at 2026-07-28: {e}"),
        )),
    }
}

/// A task-augmented call's answer at the legacy revision as its `CreateTaskResult`.
pub(crate) fn read_created(
    answer: &Answer,
    revision: ProtocolVersion,
) -> Result<CreateTaskResult, ErrorData> {
    match parse_result_for(
        ResultFor::method("tools/call").task_augmented(true),
        answer.text(),
        revision,
    ) {
        Ok(MethodResult::Server(ServerResult::CreateTask(created))) => Ok(created),
        Ok(_) => Err(Reason::InvalidUpstreamAnswer.error(
            "the task-augmented tools/call was not answered with a task",
            None,
            None,
        )),
        Err(e) => Err(Reason::InvalidUpstreamAnswer.error(
            format!("the upstream's task is not valid at {revision}: {e}"),
            None,
            None,
        )),
    }
}
