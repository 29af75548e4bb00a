//! A replica at work: its background tasks (the bus listener, the liveness key, the event-log
//! writer, the relay of announced changes), how it answers what the bus brings, and what it
//! does for the runtime ([`Replicas`]), installed on a server by a shared store only.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use indexmap::IndexMap;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use mcp_wire::model::{InputResponse, ServerResult, Task};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{
    Message, Replica, SessionRecord, SharedChange, TASK_STEP_WAIT, TaskOp, TaskReply, alive_key,
    inbox, store_failed,
};
use crate::server::auth::Principal;
use crate::server::context::RequestContext;
use crate::server::error::{HandlerError, HandlerResult, codes};
use crate::server::handler::Boxed;
use crate::server::limits::Limits;
use crate::server::mirror::{DONE, LogMirror, events_key};
use crate::server::notify::Change;
use crate::server::session::{Ended, Session, lock};
use crate::server::shared::{Replicas, Runtime};
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

/// The replica a shared store installs on a server (see `SharedStore`).
pub(crate) fn engine(store: Arc<dyn Store>) -> Arc<dyn Replicas> {
    Arc::new(Replica::new(store))
}

impl Replicas for Replica {
    fn id(&self) -> u32 {
        self.id
    }

    fn mirror(&self) -> LogMirror {
        Replica::mirror(self)
    }

    fn start(self: Arc<Self>, server: &Arc<Runtime>, changes: mpsc::Receiver<Change>) {
        start(self, server, changes);
    }

    fn share_session<'a>(
        &'a self,
        server: &'a Runtime,
        session: &'a Session,
    ) -> Boxed<'a, Result<(), StoreError>> {
        Box::pin(self.share_session(server.shared.limits, session))
    }

    fn session_changed<'a>(
        &'a self,
        server: &'a Runtime,
        session: &'a Session,
    ) -> Boxed<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.share_session(server.shared.limits, session).await?;
            let message = Message::SessionUpdated {
                from: self.id,
                session: session.id.to_string(),
            };
            self.publish(BUS, &message).await
        })
    }

    fn find_session<'a>(
        &'a self,
        server: &'a Arc<Runtime>,
        id: &'a str,
        principal: &'a Principal,
    ) -> Boxed<'a, Result<Option<Arc<Session>>, StoreError>> {
        Box::pin(self.find_session(server, id, principal))
    }

    fn end_session<'a>(
        &'a self,
        server: &'a Arc<Runtime>,
        id: &'a str,
        principal: &'a Principal,
    ) -> Boxed<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            if self.find_session(server, id, principal).await?.is_none() {
                return Ok(false);
            }
            self.store.delete(&session_key(id)).await?;
            server.shared.sessions.remove_for(id, principal);
            let message = Message::SessionEnded {
                from: self.id,
                session: id.to_owned(),
            };
            self.publish(BUS, &message).await?;
            Ok(true)
        })
    }

    fn relay_answer<'a>(
        &'a self,
        session: &'a str,
        id: &'a RequestId,
        answer: Result<Value, ErrorData>,
    ) -> Boxed<'a, ()> {
        Box::pin(async move {
            let message = Message::Answer {
                from: self.id,
                session: session.to_owned(),
                id: id.clone(),
                answer,
            };
            if let Err(e) = self.publish(BUS, &message).await {
                tracing::warn!(error = %e, "client answer not relayed");
            }
        })
    }

    fn relay_cancel<'a>(&'a self, session: &'a str, id: &'a RequestId) -> Boxed<'a, ()> {
        Box::pin(async move {
            let message = Message::Cancel {
                from: self.id,
                session: session.to_owned(),
                id: id.clone(),
            };
            if let Err(e) = self.publish(BUS, &message).await {
                tracing::warn!(error = %e, "cancellation not relayed");
            }
        })
    }

    fn task_elsewhere(&self, op: TaskOp) -> Option<Boxed<'_, HandlerResult<TaskReply>>> {
        let owner = task_replica(op.task_id()?).filter(|r| *r != self.id)?;
        Some(Box::pin(async move {
            Ok(match op {
                TaskOp::Get { .. } => TaskReply::Detailed(Box::new(self.call_as(owner, op).await?)),
                TaskOp::CoreGet { .. } | TaskOp::CoreCancel { .. } => {
                    TaskReply::Task(self.call_as(owner, op).await?)
                }
                _ => {
                    self.call(owner, op).await?;
                    TaskReply::Done
                }
            })
        }))
    }

    fn task_payload<'a>(
        &'a self,
        server: &'a Runtime,
        ctx: &'a RequestContext,
        id: &'a str,
    ) -> Option<Boxed<'a, HandlerResult<ServerResult>>> {
        let runs = task_replica(id).filter(|r| *r != self.id)?;
        let ttl = server.shared.limits.task_ttl;
        Some(Box::pin(async move {
            let home = TaskElsewhere {
                replica: self,
                runs,
            };
            tasks::run::payload(&home, ctx, id, ttl, TASK_STEP_WAIT).await
        }))
    }

    fn index_task<'a>(&'a self, server: &'a Runtime, owner: &'a str, id: &'a str) -> Boxed<'a, ()> {
        let limits = server.shared.limits;
        Box::pin(async move {
            let key = tasks_key(owner);
            let entry = id.as_bytes().to_vec();
            if let Err(e) = self
                .store
                .append(&key, entry, limits.max_tasks, limits.task_ttl)
                .await
            {
                tracing::warn!(error = %e, task = id, "task not filed in the shared index");
            }
        })
    }

    fn list_tasks<'a>(
        &'a self,
        owner: &'a str,
        list: Vec<Task>,
    ) -> Boxed<'a, HandlerResult<Vec<Task>>> {
        Box::pin(self.list_tasks(owner, list))
    }

    fn follow_shared_log(
        self: Arc<Self>,
        server: &Arc<Runtime>,
        session: &Session,
        stream: u64,
        after: u64,
        sink: mpsc::Sender<Bytes>,
    ) {
        follow_shared_log(self, server, session, stream, after, sink);
    }
}

/// Starts a replica's background work: the bus listener, the liveness key, the event-log
/// writer and the relay of announced changes. Each ends when the server is dropped.
fn start(replica: Arc<Replica>, server: &Arc<Runtime>, mut changes: mpsc::Receiver<Change>) {
    let weak = Arc::downgrade(server);
    let mut bus = replica
        .store
        .subscribe(vec![BUS.to_owned(), inbox(replica.id)]);
    crate::spawn::spawn({
        let weak = weak.clone();
        let replica = replica.clone();
        async move {
            while let Some(message) = bus.recv().await {
                let Some(server) = weak.upgrade() else { break };
                match serde_json::from_slice::<Message>(&message.payload) {
                    Ok(m) if m.from() != Some(replica.id) => replica.on_message(&server, m),
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

impl Replica {
    /// Answers what the bus brings from another replica.
    fn on_message(self: &Arc<Self>, server: &Arc<Runtime>, message: Message) {
        let sessions = &server.shared.sessions;
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
                server.shared.notifier.announce_here(change.into_change());
            }
            Message::SessionUpdated { session, .. } => {
                if let Some(s) = sessions.peek(&session) {
                    let replica = self.clone();
                    crate::spawn::spawn(async move {
                        if let Err(e) = replica.reload_session(&s).await {
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
                let server = server.clone();
                let replica = self.clone();
                crate::spawn::spawn(async move {
                    let result = op.run(&server.shared.tasks).await.map_err(rpc_error);
                    let reply = Message::TaskReply { call, result };
                    if let Err(e) = replica.publish(&inbox(from), &reply).await {
                        tracing::warn!(error = %e, "task reply not sent");
                    }
                });
            }
            Message::TaskReply { call, result } => {
                if let Some(waiter) = lock(&self.calls).remove(&call) {
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

    /// Writes a session's record, kept for the session's idle limit.
    async fn share_session(&self, limits: Limits, session: &Session) -> Result<(), StoreError> {
        let record = serde_json::to_vec(&Self::record_of(session)).unwrap_or_default();
        self.store
            .put(&session_key(&session.id), record, limits.session_idle)
            .await
    }

    /// Reloads a copy's level and subscriptions from the store.
    async fn reload_session(&self, session: &Session) -> Result<(), StoreError> {
        if let Some(bytes) = self.store.get(&session_key(&session.id), None).await?
            && let Ok(record) = serde_json::from_slice::<SessionRecord>(&bytes)
        {
            session.apply_shared(record.level, &record.subscriptions);
        }
        Ok(())
    }

    /// The session `id` opened by `principal`: the record (which every lookup keeps alive),
    /// and this process's copy, restored here when this replica has none. `None` when it is
    /// unknown, ended, or another principal's.
    async fn find_session(
        &self,
        server: &Arc<Runtime>,
        id: &str,
        principal: &Principal,
    ) -> Result<Option<Arc<Session>>, StoreError> {
        let sessions = &server.shared.sessions;
        let idle = server.shared.limits.session_idle;
        let record = self
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
                    server.shared.limits,
                );
                let restored = match server.start_session(restored) {
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

    /// Runs `op` on replica `owner` over the bus: its reply.
    async fn call(&self, owner: u32, op: TaskOp) -> HandlerResult<Value> {
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
        if !self.is_alive(owner).await {
            return Err(gone());
        }
        let call = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.calls).insert(call, tx);
        let message = Message::TaskCall {
            from: self.id,
            call,
            op,
        };
        if let Err(e) = self.publish(&inbox(owner), &message).await {
            lock(&self.calls).remove(&call);
            return Err(store_failed(&e));
        }
        let reply = tokio::time::timeout(TASK_CALL_TIMEOUT, rx).await;
        lock(&self.calls).remove(&call);
        match reply {
            Ok(Ok(reply)) => reply.map_err(HandlerError::Rpc),
            Ok(Err(_)) | Err(_) => Err(gone()),
        }
    }

    /// [`Replica::call`]'s reply read as `T`, as the model reads every `Value`.
    async fn call_as<T: serde::de::DeserializeOwned>(
        &self,
        owner: u32,
        op: TaskOp,
    ) -> HandlerResult<T> {
        let value = self.call(owner, op).await?;
        mcp_wire::model::from_value(value).map_err(|e| HandlerError::internal(e.to_string()))
    }

    /// `list` (`owner`'s tasks here) and those `owner`'s index names on the other replicas
    /// (each asked once; a replica that does not answer ran tasks that are lost with it, and
    /// they are left out), oldest first.
    async fn list_tasks(&self, owner: &str, mut list: Vec<Task>) -> HandlerResult<Vec<Task>> {
        let entries = self
            .store
            .entries(&tasks_key(owner))
            .await
            .map_err(|e| store_failed(&e))?;
        let mut elsewhere: IndexMap<u32, Vec<String>> = IndexMap::new();
        for id in entries.iter().filter_map(|e| std::str::from_utf8(e).ok()) {
            if let Some(runs) = task_replica(id).filter(|r| *r != self.id) {
                elsewhere.entry(runs).or_default().push(id.to_owned());
            }
        }
        for (runs, ids) in elsewhere {
            let op = TaskOp::CoreList {
                owner: owner.to_owned(),
                ids,
            };
            match self.call_as::<Vec<Task>>(runs, op).await {
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
}

/// Resumes, from its shared log, stream `stream` of `session` that this replica does not
/// hold: the events after `after`, then the ones its replica goes on writing, until the log
/// ends, its replica stops, `sink` closes or the session's idle limit passes.
fn follow_shared_log(
    replica: Arc<Replica>,
    server: &Arc<Runtime>,
    session: &Session,
    stream: u64,
    after: u64,
    sink: mpsc::Sender<Bytes>,
) {
    let key = events_key(&session.id, stream);
    let writer = stream_replica(stream);
    let limits: Limits = server.shared.limits;
    let server: Weak<Runtime> = Arc::downgrade(server);
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
}

/// A 2025-11-25 task that replica `runs` runs, reached over the bus.
struct TaskElsewhere<'a> {
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
        self.replica.call_as(self.runs, op).await
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
        self.replica.call(self.runs, op).await.map(drop)
    }

    async fn unrelay(&self, owner: &str, id: &str, keys: Vec<String>) -> HandlerResult<()> {
        let op = TaskOp::CoreUnrelay {
            owner: owner.to_owned(),
            id: id.to_owned(),
            keys,
        };
        self.replica.call(self.runs, op).await.map(drop)
    }
}
