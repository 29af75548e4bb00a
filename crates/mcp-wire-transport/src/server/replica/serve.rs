//! A replica at work: its background tasks (the bus listener, the liveness key, the event-log
//! writer, the relay of announced changes) and how the runtime answers what the bus brings.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use indexmap::IndexMap;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use mcp_wire::model::{InputResponse, Task};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{
    Message, Replica, SessionRecord, SharedChange, TASK_STEP_WAIT, TaskOp, alive_key, inbox,
    store_failed,
};
use crate::server::auth::Principal;
use crate::server::context::RequestContext;
use crate::server::error::{HandlerError, HandlerResult, codes};
use crate::server::limits::Limits;
use crate::server::mirror::{DONE, events_key};
use crate::server::notify::Change;
use crate::server::session::{Ended, Session, lock};
use crate::server::shared::Runtime;
use crate::server::store::{Store, StoreError};
use crate::server::tasks::{self, CoreStep, TaskHome};

/// The bus channel every replica listens on.
const BUS: &str = "mcp-wire:bus";
/// How long a replica's liveness key lives without a refresh.
const ALIVE_TTL: Duration = Duration::from_secs(3);
/// How often a replica refreshes its liveness key.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long a `tasks/*` operation waits for the replica running the task.
const TASK_CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// How often a stream resumed away from its replica reads its log for new events.
const FOLLOW_POLL: Duration = Duration::from_millis(50);

fn session_key(id: &str) -> String {
    format!("mcp-wire:session:{id}")
}

/// The index of the task ids `owner` created on any replica (a hash of the principal's key:
/// keys stay short and name no credential).
fn tasks_key(owner: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(owner.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("mcp-wire:tasks:{hex}")
}

/// The replica that writes stream `stream` (its id's high half).
fn stream_replica(stream: u64) -> u32 {
    u32::try_from(stream >> 32).unwrap_or(0)
}

/// The replica running task `id`, when its id names one (`xxxxxxxx.…`).
fn task_replica(id: &str) -> Option<u32> {
    let (prefix, _) = id.split_once('.')?;
    (prefix.len() == 8)
        .then(|| u32::from_str_radix(prefix, 16).ok())
        .flatten()
}

fn rpc_error(e: HandlerError) -> ErrorData {
    match e {
        HandlerError::Rpc(error) => error,
        _ => ErrorData::new(codes::INTERNAL_ERROR, "unexpected task outcome"),
    }
}

/// Starts a replica's background work: the bus listener, the liveness key, the event-log
/// writer and the relay of announced changes. Each ends when the server is dropped.
pub(crate) fn start(server: &Arc<Runtime>, mut changes: mpsc::Receiver<Change>) {
    let Some(replica) = server.shared.replica.clone() else {
        return;
    };
    let weak = Arc::downgrade(server);
    let mut bus = replica
        .store
        .subscribe(vec![BUS.to_owned(), inbox(replica.id)]);
    crate::spawn::spawn({
        let weak = weak.clone();
        async move {
            while let Some(message) = bus.recv().await {
                let Some(server) = weak.upgrade() else { break };
                match serde_json::from_slice::<Message>(&message.payload) {
                    Ok(m) if m.from() != Some(server.replica_id()) => server.on_message(m).await,
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "unreadable bus message"),
                }
            }
        }
    });
    crate::spawn::spawn({
        let replica = replica.clone();
        let weak = weak.clone();
        async move {
            let mut tick = tokio::time::interval(HEARTBEAT);
            while weak.strong_count() > 0 {
                tick.tick().await;
                let key = alive_key(replica.id);
                if let Err(e) = replica.store.put(&key, b"1".to_vec(), ALIVE_TTL).await {
                    tracing::warn!(error = %e, "liveness key not written");
                }
            }
        }
    });
    let writes = lock(&replica.writes_rx).take();
    if let Some(mut writes) = writes {
        let limits = server.shared.limits;
        let replica = replica.clone();
        crate::spawn::spawn(async move {
            while let Some(w) = writes.recv().await {
                let keep = limits.replay_events_per_stream + 1;
                if let Err(e) = replica
                    .store
                    .append(&w.key, w.entry, keep, limits.session_idle)
                    .await
                {
                    tracing::warn!(error = %e, "stream event not logged in the shared store");
                }
            }
        });
    }
    crate::spawn::spawn(async move {
        while let Some(change) = changes.recv().await {
            let Some(server) = weak.upgrade() else { break };
            let message = Message::Change {
                from: replica.id,
                change: SharedChange::from_change(&change),
            };
            if let Err(e) = replica.publish(BUS, &message).await {
                tracing::warn!(error = %e, "change not relayed to the other replicas");
            }
            drop(server);
        }
    });
}

impl Runtime {
    fn replica_id(&self) -> u32 {
        self.shared.replica.as_ref().map_or(0, |r| r.id)
    }

    async fn on_message(self: &Arc<Self>, message: Message) {
        let sessions = &self.shared.sessions;
        match message {
            Message::Answer {
                session,
                id,
                answer,
                ..
            } => {
                if let Some(s) = sessions.peek(&session) {
                    s.deliver(&id, answer);
                }
            }
            Message::Cancel { session, id, .. } => {
                if let Some(s) = sessions.peek(&session) {
                    s.cancel(&id);
                }
            }
            Message::Change { change, .. } => {
                self.shared.notifier.announce_here(change.into_change());
            }
            Message::SessionUpdated { session, .. } => {
                if let Some(s) = sessions.peek(&session) {
                    let server = self.clone();
                    crate::spawn::spawn(async move {
                        if let Err(e) = server.reload_session(&s).await {
                            tracing::warn!(error = %e, "session copy not reloaded");
                        }
                    });
                }
            }
            Message::SessionEnded { session, .. } => {
                sessions.drop_copy(&session);
            }
            Message::TaskCall { from, call, op } => {
                // On its own: a `tasks/result` step may wait, and the bus goes on meanwhile.
                let server = self.clone();
                crate::spawn::spawn(async move {
                    let result = op.run(&server.shared.tasks).await.map_err(rpc_error);
                    if let Some(replica) = &server.shared.replica {
                        let reply = Message::TaskReply { call, result };
                        if let Err(e) = replica.publish(&inbox(from), &reply).await {
                            tracing::warn!(error = %e, "task reply not sent");
                        }
                    }
                });
            }
            Message::TaskReply { call, result } => {
                if let Some(replica) = &self.shared.replica
                    && let Some(waiter) = lock(&replica.calls).remove(&call)
                {
                    let _ = waiter.send(result);
                }
            }
        }
    }

    /// The record of `session` as it stands in this process.
    fn record_of(session: &Session) -> SessionRecord {
        SessionRecord {
            revision: session.revision,
            principal: session.principal.key().to_string(),
            capabilities: (*session.client_capabilities).clone(),
            client_info: session.client_info.as_deref().cloned(),
            level: session.level.rank_raw(),
            subscriptions: session.subscription_list(),
        }
    }

    /// Writes a new session's record (handshake era, with a shared store).
    pub(crate) async fn share_session(&self, session: &Session) -> Result<(), StoreError> {
        let Some(replica) = &self.shared.replica else {
            return Ok(());
        };
        let record = serde_json::to_vec(&Self::record_of(session)).unwrap_or_default();
        replica
            .store
            .put(
                &session_key(&session.id),
                record,
                self.shared.limits.session_idle,
            )
            .await
    }

    /// Writes a session's changed record and tells the replicas holding a copy.
    pub(crate) async fn session_changed(&self, session: &Session) -> Result<(), StoreError> {
        let Some(replica) = &self.shared.replica else {
            return Ok(());
        };
        self.share_session(session).await?;
        let message = Message::SessionUpdated {
            from: replica.id,
            session: session.id.to_string(),
        };
        replica.publish(BUS, &message).await
    }

    /// Reloads a copy's level and subscriptions from the store.
    async fn reload_session(&self, session: &Session) -> Result<(), StoreError> {
        let Some(replica) = &self.shared.replica else {
            return Ok(());
        };
        if let Some(bytes) = replica.store.get(&session_key(&session.id), None).await?
            && let Ok(record) = serde_json::from_slice::<SessionRecord>(&bytes)
        {
            session.apply_shared(record.level, &record.subscriptions);
        }
        Ok(())
    }

    /// The session `id` opened by `principal`: this process's copy, or with a shared store
    /// the record (which every lookup keeps alive), restored here when this replica has no
    /// copy. `None` when it is unknown, ended, or another principal's.
    pub(crate) async fn find_session(
        self: &Arc<Self>,
        id: &str,
        principal: &Principal,
    ) -> Result<Option<Arc<Session>>, StoreError> {
        let sessions = &self.shared.sessions;
        let Some(replica) = &self.shared.replica else {
            return Ok(sessions.get_for(id, principal));
        };
        let idle = self.shared.limits.session_idle;
        let record = replica
            .store
            .get(&session_key(id), Some(idle))
            .await?
            .and_then(|bytes| serde_json::from_slice::<SessionRecord>(&bytes).ok());
        let Some(record) = record else {
            sessions.drop_copy(id);
            return Ok(None);
        };
        if *record.principal != **principal.key() {
            return Ok(None);
        }
        let session = match sessions.get_for(id, principal) {
            Some(s) => s,
            None => {
                let restored = Session::new(
                    id.to_owned(),
                    record.revision,
                    record.capabilities.clone(),
                    record.client_info.clone(),
                    principal.clone(),
                    self.shared.limits,
                );
                let restored = match self.start_session(restored) {
                    Ok((session, _)) => session,
                    Err(error) => {
                        // The handler refuses the session here: unknown to this replica.
                        tracing::warn!(session = id, error = %error.message, "session not restored");
                        return Ok(None);
                    }
                };
                match sessions.insert_or_get(restored.clone()) {
                    Some(s) if Arc::ptr_eq(&s, &restored) => s,
                    Some(s) => {
                        // Another request restored it first: this copy ends unseen.
                        restored.forget();
                        s
                    }
                    None => {
                        restored.close(Ended::Refused);
                        return Err(StoreError::Unavailable(
                            "this replica holds as many sessions as it may".to_owned(),
                        ));
                    }
                }
            }
        };
        session.apply_shared(record.level, &record.subscriptions);
        Ok(Some(session))
    }

    /// Ends session `id` of `principal` here and, with a shared store, everywhere; `false`
    /// when it was unknown (or another principal's).
    pub(crate) async fn end_session(
        self: &Arc<Self>,
        id: &str,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        let Some(replica) = &self.shared.replica else {
            return Ok(self.shared.sessions.remove_for(id, principal));
        };
        if self.find_session(id, principal).await?.is_none() {
            return Ok(false);
        }
        replica.store.delete(&session_key(id)).await?;
        self.shared.sessions.remove_for(id, principal);
        let message = Message::SessionEnded {
            from: replica.id,
            session: id.to_owned(),
        };
        replica.publish(BUS, &message).await?;
        Ok(true)
    }

    /// The client's answer to a server→client request that no handler here waits for: to the
    /// replica that asked.
    pub(crate) async fn relay_answer(
        &self,
        session: &str,
        id: &RequestId,
        answer: Result<Value, ErrorData>,
    ) {
        let Some(replica) = &self.shared.replica else {
            return;
        };
        let message = Message::Answer {
            from: replica.id,
            session: session.to_owned(),
            id: id.clone(),
            answer,
        };
        if let Err(e) = replica.publish(BUS, &message).await {
            tracing::warn!(error = %e, "client answer not relayed");
        }
    }

    /// `notifications/cancelled` for a request not running here: to every replica.
    pub(crate) async fn relay_cancel(&self, session: &str, id: &RequestId) {
        let Some(replica) = &self.shared.replica else {
            return;
        };
        let message = Message::Cancel {
            from: replica.id,
            session: session.to_owned(),
            id: id.clone(),
        };
        if let Err(e) = replica.publish(BUS, &message).await {
            tracing::warn!(error = %e, "cancellation not relayed");
        }
    }

    /// A `tasks/*` operation on a task another replica runs: its reply. `None` when the task
    /// is this replica's (or there is no shared store): the caller runs it here.
    pub(crate) async fn task_elsewhere<T: serde::de::DeserializeOwned>(
        &self,
        op: TaskOp,
    ) -> Option<HandlerResult<T>> {
        let replica = self.shared.replica.as_ref()?;
        let owner = task_replica(op.task_id()?).filter(|r| *r != replica.id)?;
        Some(self.call_replica(replica, owner, op).await)
    }

    async fn call_replica<T: serde::de::DeserializeOwned>(
        &self,
        replica: &Replica,
        owner: u32,
        op: TaskOp,
    ) -> HandlerResult<T> {
        let subject = op
            .task_id()
            .map_or_else(|| "the tasks".to_owned(), |id| format!("task {id}"));
        let data = op.task_id().map(|id| serde_json::json!({ "taskId": id }));
        let gone = || {
            let error = ErrorData::new(
                codes::INTERNAL_ERROR,
                format!("the replica running {subject} does not answer"),
            );
            HandlerError::Rpc(match &data {
                Some(data) => error.with_data(data.clone()),
                None => error,
            })
        };
        if !replica.is_alive(owner).await {
            return Err(gone());
        }
        let call = replica.next_call.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&replica.calls).insert(call, tx);
        let message = Message::TaskCall {
            from: replica.id,
            call,
            op,
        };
        if let Err(e) = replica.publish(&inbox(owner), &message).await {
            lock(&replica.calls).remove(&call);
            return Err(store_failed(&e));
        }
        let reply = tokio::time::timeout(TASK_CALL_TIMEOUT, rx).await;
        lock(&replica.calls).remove(&call);
        match reply {
            // Read as the model reads every `Value` (one compiled read per type).
            Ok(Ok(Ok(value))) => mcp_wire::model::from_value(value)
                .map_err(|e| HandlerError::internal(e.to_string())),
            Ok(Ok(Err(error))) => Err(HandlerError::Rpc(error)),
            Ok(Err(_)) | Err(_) => Err(gone()),
        }
    }

    /// `tasks/result` at 2025-11-25: on this replica's tasks, or through the replica running
    /// the task, asked one bounded step at a time.
    pub(crate) async fn task_payload(
        &self,
        ctx: &RequestContext,
        id: &str,
    ) -> HandlerResult<mcp_wire::model::ServerResult> {
        let ttl = self.shared.limits.task_ttl;
        let elsewhere = self.shared.replica.as_deref().and_then(|replica| {
            task_replica(id)
                .filter(|r| *r != replica.id)
                .map(|runs| TaskElsewhere {
                    server: self,
                    replica,
                    runs,
                })
        });
        match elsewhere {
            Some(home) => tasks::run::payload(&home, ctx, id, ttl, TASK_STEP_WAIT).await,
            None => tasks::run::payload(&*self.shared.tasks, ctx, id, ttl, ttl).await,
        }
    }

    /// Files a new task of `owner` in the owner's index in the store (with replicas), so that
    /// `tasks/list` on any replica finds it. A store that fails leaves the task unlisted
    /// elsewhere (it runs, and `tasks/get` reaches it); the failure is logged.
    pub(crate) async fn index_task(&self, owner: &str, id: &str) {
        let Some(replica) = &self.shared.replica else {
            return;
        };
        let limits = self.shared.limits;
        let key = tasks_key(owner);
        let entry = id.as_bytes().to_vec();
        if let Err(e) = replica
            .store
            .append(&key, entry, limits.max_tasks, limits.task_ttl)
            .await
        {
            tracing::warn!(error = %e, task = id, "task not filed in the shared index");
        }
    }

    /// `tasks/list` at 2025-11-25: `owner`'s tasks here and, with replicas, those its index
    /// names on the other replicas (each asked once; a replica that does not answer ran tasks
    /// that are lost with it, and they are left out), oldest first.
    pub(crate) async fn list_tasks(&self, owner: &str) -> HandlerResult<Vec<Task>> {
        let mut list = self.shared.tasks.core_list(owner);
        let Some(replica) = &self.shared.replica else {
            return Ok(list);
        };
        let entries = replica
            .store
            .entries(&tasks_key(owner))
            .await
            .map_err(|e| store_failed(&e))?;
        let mut elsewhere: IndexMap<u32, Vec<String>> = IndexMap::new();
        for id in entries.iter().filter_map(|e| std::str::from_utf8(e).ok()) {
            if let Some(runs) = task_replica(id).filter(|r| *r != replica.id) {
                elsewhere.entry(runs).or_default().push(id.to_owned());
            }
        }
        for (runs, ids) in elsewhere {
            let op = TaskOp::CoreList {
                owner: owner.to_owned(),
                ids,
            };
            match self.call_replica::<Vec<Task>>(replica, runs, op).await {
                Ok(tasks) => list.extend(tasks),
                Err(e) => {
                    tracing::warn!(replica = format!("{runs:08x}"), error = ?e, "tasks not listed");
                }
            }
        }
        // Timestamps of one format (ISO 8601 UTC, milliseconds) sort as text.
        list.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Ok(list)
    }

    /// Resumes, from its shared log, stream `stream` of `session` that this replica does not
    /// hold: the events after `after`, then the ones its replica goes on writing, until the
    /// log ends, its replica stops, `sink` closes or the session's idle limit passes.
    pub(crate) fn follow_shared_log(
        self: &Arc<Self>,
        session: &Session,
        stream: u64,
        after: u64,
        sink: mpsc::Sender<Bytes>,
    ) -> bool {
        let Some(replica) = self.shared.replica.clone() else {
            return false;
        };
        let key = events_key(&session.id, stream);
        let writer = stream_replica(stream);
        let limits: Limits = self.shared.limits;
        let server: Weak<Runtime> = Arc::downgrade(self);
        crate::spawn::spawn(async move {
            let deadline = tokio::time::Instant::now() + limits.session_idle;
            let mut next = after + 1;
            loop {
                let writer_alive = replica.is_alive(writer).await;
                let entries = match replica.store.entries(&key).await {
                    Ok(entries) => entries,
                    Err(e) => {
                        tracing::warn!(error = %e, "shared stream log unreadable");
                        break;
                    }
                };
                let mut done = false;
                for entry in entries {
                    if entry == DONE {
                        done = true;
                        continue;
                    }
                    let Some(split) = entry.iter().position(|b| *b == b'\n') else {
                        continue;
                    };
                    let seq = std::str::from_utf8(&entry[..split])
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok());
                    if let Some(seq) = seq
                        && seq >= next
                    {
                        next = seq + 1;
                        if sink
                            .send(Bytes::copy_from_slice(&entry[split + 1..]))
                            .await
                            .is_err()
                        {
                            return;
                        }
                    }
                }
                if done
                    || !writer_alive
                    || sink.is_closed()
                    || server.strong_count() == 0
                    || tokio::time::Instant::now() > deadline
                {
                    break;
                }
                tokio::time::sleep(FOLLOW_POLL).await;
            }
        });
        true
    }
}

/// A 2025-11-25 task that replica `runs` runs, reached over the bus.
struct TaskElsewhere<'a> {
    server: &'a Runtime,
    replica: &'a Replica,
    runs: u32,
}

impl TaskHome for TaskElsewhere<'_> {
    async fn next_step(
        &self,
        owner: &str,
        id: &str,
        until: tokio::time::Instant,
    ) -> HandlerResult<CoreStep> {
        let wait = until.saturating_duration_since(tokio::time::Instant::now());
        let op = TaskOp::CoreStep {
            owner: owner.to_owned(),
            id: id.to_owned(),
            wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
        };
        self.server.call_replica(self.replica, self.runs, op).await
    }

    async fn deliver(
        &self,
        owner: &str,
        id: &str,
        answers: IndexMap<String, InputResponse>,
    ) -> HandlerResult<()> {
        let op = TaskOp::CoreDeliver {
            owner: owner.to_owned(),
            id: id.to_owned(),
            answers,
        };
        self.server
            .call_replica::<Value>(self.replica, self.runs, op)
            .await
            .map(drop)
    }

    async fn unrelay(&self, owner: &str, id: &str, keys: Vec<String>) -> HandlerResult<()> {
        let op = TaskOp::CoreUnrelay {
            owner: owner.to_owned(),
            id: id.to_owned(),
            keys,
        };
        self.server
            .call_replica::<Value>(self.replica, self.runs, op)
            .await
            .map(drop)
    }
}
