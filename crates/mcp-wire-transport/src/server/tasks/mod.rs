//! The runtime's task store: the `io.modelcontextprotocol/tasks` extension (SEP-2663) at
//! 2026-07-28 and the core tasks of 2025-11-25, one store for both. A handler runs a tool as a
//! task with `RequestContext::run_as_task` ([`run`]); the store keeps each task's state, its
//! outcome and the input requests it waits on.
//!
//! - 2026-07-28 (server-directed): `tasks/get` inlines the outcome, `tasks/update` answers the
//!   input requests, `tasks/cancel` acks.
//! - 2025-11-25 (client-directed): a `tools/call` with `params.task` to a tool declaring
//!   `execution.taskSupport` runs as a task; `tasks/get`, `tasks/list` and `tasks/cancel`
//!   answer the task's state (`failed` also for a tool result with `isError`, as 2025-11-25
//!   defines it; cancelling a finished task is `-32602`); `tasks/result` blocks until the task
//!   ends and meanwhile carries the task's input requests to the client as server→client
//!   requests on its own stream, each with `_meta.io.modelcontextprotocol/related-task`
//!   ([`TaskStore::payload`]).
//!
//! Bounds: at most [`Limits::max_tasks`] tasks, each kept [`Limits::task_ttl`] after creation
//! (the rule is [`table`]'s; a task still running then is cancelled), each input wait bounded
//! by [`Limits::client_answer_timeout`]. Tasks belong to the principal that created them:
//! another principal's `taskId` is unknown (`-32602`).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{
    CallToolResult, CreateTaskResult, DetailedTask, InputRequest, InputResponse, ServerResult,
    TASKS_EXTENSION_ID, Task, TaskInfo, TaskStatus,
};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::server::error::{HandlerError, HandlerResult, codes};
use crate::server::limits::Limits;
use crate::telemetry::{self, Held, Open};

pub(crate) mod run;
pub mod table;

pub use table::iso8601;
use table::{TableFull, TaskEntry, TaskRecord, TaskTable, owned};

/// Whether a server offering these capabilities offers the tasks extension.
pub(crate) fn offered(extensions: Option<&Map<String, Value>>) -> bool {
    extensions.is_some_and(|e| e.contains_key(TASKS_EXTENSION_ID))
}

/// The `tasks` server capability at 2025-11-25: `tasks/list`, `tasks/cancel` and
/// task-augmented `tools/call`.
pub(crate) fn core_capability() -> mcp_wire::model::TasksCapability {
    let mut requests = Map::new();
    requests.insert("tools".into(), json!({ "call": {} }));
    mcp_wire::model::TasksCapability::new()
        .with_list(Map::new())
        .with_cancel(Map::new())
        .with_requests(requests)
}

/// Whether a 2025-11-25 `tools/call` of `name` (declaring `support`) runs as a task: when it
/// carries `params.task` (`augmented`) for a tool that supports tasks. A tool that requires a
/// task called without one, and one that forbids them called with one, are `-32601`, as
/// 2025-11-25 says.
pub(crate) fn core_augmented(
    name: &str,
    support: Option<mcp_wire::model::TaskSupport>,
    augmented: bool,
) -> HandlerResult<bool> {
    use mcp_wire::model::TaskSupport;
    match (support, augmented) {
        (Some(TaskSupport::Required), false) => Err(HandlerError::Rpc(ErrorData::new(
            codes::METHOD_NOT_FOUND,
            format!("tool {name} runs only as a task: call it with params.task"),
        ))),
        (Some(TaskSupport::Optional | TaskSupport::Required), true) => Ok(true),
        (_, true) => Err(HandlerError::Rpc(ErrorData::new(
            codes::METHOD_NOT_FOUND,
            format!("tool {name} does not run as a task"),
        ))),
        (_, false) => Ok(false),
    }
}

/// `-32021` naming the tasks extension as the missing client capability.
pub fn tasks_required() -> HandlerError {
    HandlerError::missing_capability(json!({ "extensions": { TASKS_EXTENSION_ID: {} } }))
}

/// How a task ended, or that it has not.
enum Outcome {
    Running,
    Completed(CallToolResult),
    Failed(ErrorData),
    Cancelled,
}

struct Entry {
    owner: Arc<str>,
    outcome: Outcome,
    /// The input requests the task waits on, by key, each with the way to its waiter.
    pending: IndexMap<String, (InputRequest, oneshot::Sender<InputResponse>)>,
    /// The pending keys a 2025-11-25 `tasks/result` is carrying to the client now.
    relayed: Vec<String>,
    abort: Option<tokio::task::AbortHandle>,
    /// The task's unit of `mcp_tasks_open`, given back when the store drops it.
    _held: Held,
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

    fn stop(&mut self) {
        if let Some(abort) = self.abort.take() {
            abort.abort();
        }
        self.pending.clear();
        self.relayed.clear();
    }
}

impl Entry {
    /// The status a 2025-11-25 client sees: a tool result with `isError` is `failed` there.
    fn core_status(&self) -> TaskStatus {
        match &self.outcome {
            Outcome::Completed(r) if r.is_error == Some(true) => TaskStatus::Failed,
            _ => self.status(),
        }
    }
}

/// Every task of one server.
pub(crate) struct TaskStore {
    tasks: TaskTable<Entry>,
    limits: Limits,
    /// Woken by every change of a task's state (the 2025-11-25 `tasks/result` waits on it).
    changed: tokio::sync::Notify,
    /// Starts every task id (with replicas: the replica running the task).
    id_prefix: String,
}

impl TaskStore {
    pub(crate) fn new(limits: Limits) -> Self {
        Self {
            tasks: TaskTable::new(limits.max_tasks, limits.task_ttl, limits.task_poll_interval),
            limits,
            changed: tokio::sync::Notify::new(),
            id_prefix: String::new(),
        }
    }

    /// The same store, its task ids starting with `prefix`.
    pub(crate) fn with_id_prefix(mut self, prefix: String) -> Self {
        self.id_prefix = prefix;
        self
    }

    /// How many tasks are kept.
    pub(crate) fn len(&self) -> usize {
        self.tasks.live().len()
    }

    /// Registers a new running task of `owner`: kept before its id is returned, so a
    /// `tasks/get` right after the `CreateTaskResult` finds it.
    fn insert(&self, owner: &Arc<str>) -> HandlerResult<String> {
        let id = format!("{}{}", self.id_prefix, new_task_id());
        let entry = Entry {
            owner: owner.clone(),
            outcome: Outcome::Running,
            pending: IndexMap::new(),
            relayed: Vec::new(),
            abort: None,
            _held: Held::new(Open::Task),
        };
        self.tasks.insert(id.clone(), entry).map_err(|TableFull| {
            telemetry::limit_hit("max_tasks");
            HandlerError::internal("too many tasks running")
        })?;
        Ok(id)
    }

    /// `tasks/get`: the task and its outcome.
    pub(crate) fn get(&self, owner: &str, id: &str) -> HandlerResult<DetailedTask> {
        let mut tasks = self.tasks.live();
        let e = owned(&mut tasks, owner, id)?;
        let mut detailed = DetailedTask::new(self.tasks.info(id, e));
        match &e.outcome {
            Outcome::Running if !e.pending.is_empty() => {
                detailed = detailed.with_input_requests(
                    e.pending
                        .iter()
                        .map(|(k, (r, _))| (k.clone(), r.clone()))
                        .collect(),
                );
            }
            Outcome::Completed(result) => match inline_result(result.clone()) {
                Ok(map) => detailed = detailed.with_result(map),
                Err(error) => {
                    detailed.task.status = TaskStatus::Failed;
                    detailed = detailed.with_error(error);
                }
            },
            Outcome::Failed(error) => detailed = detailed.with_error(error.clone()),
            Outcome::Running | Outcome::Cancelled => {}
        }
        Ok(detailed)
    }

    /// `tasks/update`: delivers each answer whose key names a pending request and whose shape
    /// answers it; other keys are ignored.
    pub(crate) fn update(
        &self,
        owner: &str,
        id: &str,
        responses: &IndexMap<String, Value>,
    ) -> HandlerResult<()> {
        let mut tasks = self.tasks.live();
        let e = owned(&mut tasks, owner, id)?;
        let mut delivered = false;
        for (key, raw) in responses {
            let Some((request, _)) = e.pending.get(key) else {
                continue;
            };
            let Ok(answer) = mcp_wire::model::from_value::<InputResponse>(raw.clone()) else {
                continue;
            };
            if !answer.answers(request) {
                continue;
            }
            if let Some((_, waiter)) = e.pending.shift_remove(key) {
                // The waiter may have timed out; the answer is then dropped.
                let _ = waiter.send(answer);
                delivered = true;
            }
        }
        if delivered {
            e.touch();
            self.changed.notify_waiters();
        }
        Ok(())
    }

    /// `tasks/cancel`: stops a running task (it settles to `cancelled`); a finished task is
    /// left as it is (the ack is the same).
    pub(crate) fn cancel(&self, owner: &str, id: &str) -> HandlerResult<()> {
        let mut tasks = self.tasks.live();
        let e = owned(&mut tasks, owner, id)?;
        if matches!(e.outcome, Outcome::Running) {
            e.stop();
            e.outcome = Outcome::Cancelled;
            e.touch();
            self.changed.notify_waiters();
        }
        Ok(())
    }

    /// Records how the task's work ended (unless it was cancelled first).
    fn finish(&self, id: &str, outcome: Outcome) {
        let mut tasks = self.tasks.lock();
        if let Some(e) = tasks.get_mut(id)
            && matches!(e.outcome, Outcome::Running)
        {
            e.pending.clear();
            e.relayed.clear();
            e.abort = None;
            e.outcome = outcome;
            e.touch();
        }
        drop(tasks);
        self.changed.notify_waiters();
    }

    fn set_abort(&self, id: &str, abort: tokio::task::AbortHandle) {
        let mut tasks = self.tasks.lock();
        match tasks.get_mut(id) {
            Some(e) if matches!(e.outcome, Outcome::Running) => e.abort = Some(abort),
            // Cancelled (or expired) before the work started.
            _ => abort.abort(),
        }
    }

    /// Parks the task on `requests`: they show in `tasks/get` until `tasks/update` answers
    /// them. The receivers are returned in the order asked.
    fn park(
        &self,
        id: &str,
        requests: Vec<(String, InputRequest)>,
    ) -> HandlerResult<Vec<(String, oneshot::Receiver<InputResponse>)>> {
        let mut tasks = self.tasks.lock();
        let e = tasks
            .get_mut(id)
            .filter(|e| matches!(e.outcome, Outcome::Running))
            .ok_or_else(|| HandlerError::internal("the task is no longer running"))?;
        if requests.iter().any(|(k, _)| e.pending.contains_key(k)) {
            return Err(HandlerError::internal(
                "an input with this key is already pending",
            ));
        }
        let mut receivers = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let (tx, rx) = oneshot::channel();
            e.pending.insert(key.clone(), (request, tx));
            receivers.push((key, rx));
        }
        e.touch();
        drop(tasks);
        self.changed.notify_waiters();
        Ok(receivers)
    }

    fn unpark(&self, id: &str, keys: &[String]) {
        let mut tasks = self.tasks.lock();
        if let Some(e) = tasks.get_mut(id) {
            for k in keys {
                e.pending.shift_remove(k);
                e.relayed.retain(|r| r != k);
            }
        }
    }

    /// Keeps an already finished call as a task (a task-augmented 2025-11-25 call whose
    /// handler answered without starting one): its result is the task's outcome.
    pub(crate) fn insert_finished(
        &self,
        owner: &Arc<str>,
        result: Result<CallToolResult, ErrorData>,
    ) -> HandlerResult<Task> {
        let id = self.insert(owner)?;
        self.finish(
            &id,
            match result {
                Ok(r) => Outcome::Completed(r),
                Err(e) => Outcome::Failed(e),
            },
        );
        self.core_get(owner, &id)
    }

    /// The 2025-11-25 form of a task.
    fn core_task(&self, id: &str, e: &TaskRecord<Entry>) -> Task {
        let mut info = self.tasks.info(id, e);
        info.status = e.core_status();
        core_created(&info).task
    }

    /// `tasks/get` at 2025-11-25.
    pub(crate) fn core_get(&self, owner: &str, id: &str) -> HandlerResult<Task> {
        let mut tasks = self.tasks.live();
        let e = owned(&mut tasks, owner, id)?;
        Ok(self.core_task(id, e))
    }

    /// `tasks/list` at 2025-11-25: the owner's tasks, oldest first (one page: the store holds
    /// at most [`Limits::max_tasks`]).
    pub(crate) fn core_list(&self, owner: &str) -> Vec<Task> {
        let tasks = self.tasks.live();
        let mut mine: Vec<(&String, &TaskRecord<Entry>)> =
            tasks.iter().filter(|(_, e)| &*e.owner == owner).collect();
        mine.sort_by_key(|(_, e)| e.created());
        mine.into_iter()
            .map(|(id, e)| self.core_task(id, e))
            .collect()
    }

    /// `tasks/cancel` at 2025-11-25: a running task is stopped and answered `cancelled`; a
    /// finished one is `-32602`.
    pub(crate) fn core_cancel(&self, owner: &str, id: &str) -> HandlerResult<Task> {
        {
            let mut tasks = self.tasks.lock();
            let e = owned(&mut tasks, owner, id)?;
            if !matches!(e.outcome, Outcome::Running) {
                return Err(HandlerError::Rpc(
                    ErrorData::new(
                        codes::INVALID_PARAMS,
                        format!("task {id} has already finished"),
                    )
                    .with_data(json!({ "taskId": id })),
                ));
            }
        }
        self.cancel(owner, id)?;
        self.core_get(owner, id)
    }

    /// What a 2025-11-25 `tasks/result` does next.
    fn core_step(&self, owner: &str, id: &str) -> HandlerResult<CoreStep> {
        let mut tasks = self.tasks.live();
        let e = owned(&mut tasks, owner, id)?;
        Ok(match &e.outcome {
            Outcome::Completed(r) => CoreStep::Done(Ok(r.clone())),
            Outcome::Failed(error) => CoreStep::Done(Err(error.clone())),
            Outcome::Cancelled => CoreStep::Done(Err(ErrorData::new(
                codes::INTERNAL_ERROR,
                format!("task {id} was cancelled"),
            ))),
            Outcome::Running => {
                let fresh: Vec<(String, InputRequest)> = e
                    .pending
                    .iter()
                    .filter(|(k, _)| !e.relayed.contains(k))
                    .map(|(k, (r, _))| (k.clone(), r.clone()))
                    .collect();
                e.relayed.extend(fresh.iter().map(|(k, _)| k.clone()));
                if fresh.is_empty() {
                    CoreStep::Wait
                } else {
                    CoreStep::Ask(fresh)
                }
            }
        })
    }
}

/// Where a 2025-11-25 `tasks/result` reaches its task: this process's [`TaskStore`], or (with
/// replicas) the replica running it, over the bus.
pub(crate) trait TaskHome {
    /// What to do next: the task's end, input requests to carry to the client, or `Wait` when
    /// nothing changed before `until`.
    fn next_step(
        &self,
        owner: &str,
        id: &str,
        until: tokio::time::Instant,
    ) -> impl Future<Output = HandlerResult<CoreStep>> + Send;

    /// Gives the task the answers the client sent on the `tasks/result` stream.
    fn deliver(
        &self,
        owner: &str,
        id: &str,
        answers: IndexMap<String, InputResponse>,
    ) -> impl Future<Output = HandlerResult<()>> + Send;

    /// Forgets that `keys` are being carried (the client did not answer them): a later
    /// `tasks/result` asks again.
    fn unrelay(
        &self,
        owner: &str,
        id: &str,
        keys: Vec<String>,
    ) -> impl Future<Output = HandlerResult<()>> + Send;
}

impl TaskHome for TaskStore {
    async fn next_step(
        &self,
        owner: &str,
        id: &str,
        until: tokio::time::Instant,
    ) -> HandlerResult<CoreStep> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            match self.core_step(owner, id)? {
                CoreStep::Wait => {
                    if tokio::time::timeout_at(until, changed).await.is_err() {
                        return Ok(CoreStep::Wait);
                    }
                }
                step => return Ok(step),
            }
        }
    }

    async fn deliver(
        &self,
        owner: &str,
        id: &str,
        answers: IndexMap<String, InputResponse>,
    ) -> HandlerResult<()> {
        let mut tasks = self.tasks.lock();
        let e = owned(&mut tasks, owner, id)?;
        for (key, answer) in answers {
            e.relayed.retain(|r| r != &key);
            if let Some((_, waiter)) = e.pending.shift_remove(&key) {
                let _ = waiter.send(answer);
            }
        }
        e.touch();
        drop(tasks);
        self.changed.notify_waiters();
        Ok(())
    }

    async fn unrelay(&self, owner: &str, id: &str, keys: Vec<String>) -> HandlerResult<()> {
        let mut tasks = self.tasks.lock();
        let e = owned(&mut tasks, owner, id)?;
        e.relayed.retain(|r| !keys.contains(r));
        Ok(())
    }
}

/// What a 2025-11-25 `tasks/result` does next.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum CoreStep {
    /// The task ended: its result or its error.
    Done(Result<CallToolResult, ErrorData>),
    /// Input requests to carry to the client, by key.
    Ask(Vec<(String, InputRequest)>),
    /// Nothing to do yet.
    Wait,
}

/// The 2025-11-25 `CreateTaskResult` of a task started with `RequestContext::run_as_task`.
pub(crate) fn core_created(info: &TaskInfo) -> CreateTaskResult {
    let mut task = Task::new(
        info.task_id.clone(),
        info.status,
        info.created_at.clone(),
        info.last_updated_at.clone(),
        info.ttl_ms.map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
    );
    task.poll_interval = info.poll_interval_ms;
    CreateTaskResult::new(task)
}

/// A task's own context: its input requests park the task instead of stopping the request.
#[derive(Clone)]
pub(crate) struct TaskLink {
    store: Arc<TaskStore>,
    id: String,
    timeout: Duration,
}

impl TaskLink {
    /// Waits for every answer (one `inputRequests` round); a wait longer than the client
    /// answer timeout fails the task's input.
    pub(crate) async fn ask(
        &self,
        requests: Vec<(String, InputRequest)>,
    ) -> HandlerResult<IndexMap<String, InputResponse>> {
        let receivers = self.store.park(&self.id, requests)?;
        let keys: Vec<String> = receivers.iter().map(|(k, _)| k.clone()).collect();
        let waits = futures_util::future::join_all(
            receivers
                .into_iter()
                .map(|(k, rx)| async { (k, tokio::time::timeout(self.timeout, rx).await) }),
        );
        let mut out = IndexMap::new();
        for (key, answer) in waits.await {
            match answer {
                Ok(Ok(answer)) => {
                    out.insert(key, answer);
                }
                Ok(Err(_)) => {
                    self.store.unpark(&self.id, &keys);
                    return Err(HandlerError::internal("the task stopped waiting for input"));
                }
                Err(_) => {
                    self.store.unpark(&self.id, &keys);
                    return Err(HandlerError::internal(
                        "no answer to the task's input request",
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// What a `tools/call` may do with tasks: the server's store, and whether it may run as one (at
/// 2026-07-28: the client declared the extension, for the session or in this request's
/// `_meta`; at 2025-11-25: the call carried `params.task` for a tool that supports tasks).
#[derive(Clone)]
pub(crate) struct TaskOffer {
    pub store: Arc<TaskStore>,
    pub negotiated: bool,
}

/// A finished tool call's result as `tasks/get` inlines it: emitted at 2026-07-28. Emitted as
/// text, as every answer is, and read back: the server then carries one emitter, the text one.
fn inline_result(result: CallToolResult) -> Result<Map<String, Value>, ErrorData> {
    let mut text = Vec::new();
    mcp_wire::wire::serialize_for_vec(
        &ServerResult::CallTool(result),
        ProtocolVersion::V2026_07_28,
        &mut text,
    )
    .map_err(|e| {
        ErrorData::new(
            codes::INTERNAL_ERROR,
            format!("cannot emit the result: {e}"),
        )
    })?;
    // Read as text, as every other JSON read is (one compiled reader); emitted text is UTF-8.
    std::str::from_utf8(&text)
        .ok()
        .and_then(|text| serde_json::from_str(text).ok())
        .ok_or_else(|| ErrorData::new(codes::INTERNAL_ERROR, "the result is not an object"))
}

/// A fresh task id: 128 random bits, hex.
pub fn new_task_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes.copy_from_slice(&t.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(max: usize, ttl: Duration) -> Arc<TaskStore> {
        Arc::new(TaskStore::new(Limits {
            max_tasks: max,
            task_ttl: ttl,
            ..Limits::default()
        }))
    }

    #[test]
    fn unknown_and_foreign_tasks_are_invalid_params() {
        let s = store(4, Duration::from_secs(60));
        let alice: Arc<str> = Arc::from("alice");
        let id = s.insert(&alice).unwrap();
        assert!(s.get("alice", &id).is_ok());
        for (owner, task) in [("bob", id.as_str()), ("alice", "nope")] {
            match s.get(owner, task) {
                Err(HandlerError::Rpc(e)) => assert_eq!(e.code, codes::INVALID_PARAMS),
                other => panic!("expected -32602, got {:?}", other.map(|_| ())),
            }
            assert!(s.cancel(owner, task).is_err());
            assert!(s.update(owner, task, &IndexMap::new()).is_err());
        }
    }

    #[test]
    fn the_count_is_capped_and_finished_tasks_make_room() {
        let s = store(2, Duration::from_secs(60));
        let o: Arc<str> = Arc::from("o");
        let a = s.insert(&o).unwrap();
        let _b = s.insert(&o).unwrap();
        assert!(
            s.insert(&o).is_err(),
            "two running tasks fill a store of two"
        );
        s.cancel("o", &a).unwrap();
        let _c = s.insert(&o).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s.get("o", &a).is_err(), "the finished task made room");
    }

    #[test]
    fn tasks_expire_after_their_ttl() {
        let s = store(4, Duration::from_millis(30));
        let o: Arc<str> = Arc::from("o");
        let id = s.insert(&o).unwrap();
        assert_eq!(s.get("o", &id).unwrap().task.ttl_ms, Some(30));
        std::thread::sleep(Duration::from_millis(50));
        assert!(s.get("o", &id).is_err());
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn cancel_is_idempotent_and_final() {
        let s = store(4, Duration::from_secs(60));
        let o: Arc<str> = Arc::from("o");
        let id = s.insert(&o).unwrap();
        s.cancel("o", &id).unwrap();
        s.finish(&id, Outcome::Completed(CallToolResult::new(Vec::new())));
        s.cancel("o", &id).unwrap();
        assert_eq!(s.get("o", &id).unwrap().task.status, TaskStatus::Cancelled);
    }

    #[tokio::test]
    async fn input_waits_until_every_key_is_answered() {
        let s = store(4, Duration::from_secs(60));
        let o: Arc<str> = Arc::from("o");
        let id = s.insert(&o).unwrap();
        let elicit = |m: &str| -> InputRequest {
            serde_json::from_value(json!({"method": "elicitation/create", "params": {
                "message": m, "requestedSchema": {"type": "object", "properties": {}}}}))
            .unwrap()
        };
        let link = TaskLink {
            store: s.clone(),
            id: id.clone(),
            timeout: Duration::from_secs(5),
        };
        let waiting = crate::spawn::spawn(async move {
            link.ask(vec![("a".into(), elicit("A")), ("b".into(), elicit("B"))])
                .await
        });
        while s.get("o", &id).unwrap().task.status != TaskStatus::InputRequired {
            tokio::task::yield_now().await;
        }
        let accept = json!({"action": "accept", "content": {}});
        // An unknown key and a wrongly shaped answer are ignored.
        let partial: IndexMap<String, Value> = [
            ("a".to_owned(), accept.clone()),
            ("zz".to_owned(), accept.clone()),
            ("b".to_owned(), json!({"roots": []})),
        ]
        .into_iter()
        .collect();
        s.update("o", &id, &partial).unwrap();
        let got = s.get("o", &id).unwrap();
        assert_eq!(got.task.status, TaskStatus::InputRequired);
        let keys: Vec<&String> = got.input_requests.as_ref().unwrap().keys().collect();
        assert_eq!(keys, ["b"]);
        let rest: IndexMap<String, Value> = [("b".to_owned(), accept)].into_iter().collect();
        s.update("o", &id, &rest).unwrap();
        let answers = waiting.await.unwrap().unwrap();
        assert_eq!(answers.len(), 2);
        assert_eq!(s.get("o", &id).unwrap().task.status, TaskStatus::Working);
    }
}
