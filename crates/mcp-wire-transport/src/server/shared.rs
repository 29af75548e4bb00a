//! The server value: a handler and the state every request of it shares. What serves it
//! (the runtime, the HTTP transport, stdio connections, replicas) builds on this.

use std::sync::Arc;

use bytes::Bytes;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use mcp_wire::model::{ServerResult, Task};
use serde_json::Value;
use tokio::sync::mpsc;

use super::auth::{Authenticator, Principal};
use super::context::RequestContext;
use super::error::HandlerResult;
use super::handler::{Boxed, DynHandler};
use super::limits::Limits;
use super::mirror::LogMirror;
use super::notify::{Change, Notifier};
use super::replica::{TaskOp, TaskReply};
use super::session::{Session, Sessions};
use super::state::StateSigner;
use super::store::StoreError;
use super::tasks::TaskStore;

/// The state every request of a server shares.
pub(crate) struct ServerShared {
    pub revisions: Vec<ProtocolVersion>,
    pub limits: Limits,
    pub authenticator: Arc<dyn Authenticator>,
    pub allowed_hosts: Vec<String>,
    pub signer: StateSigner,
    pub sessions: Sessions,
    pub notifier: Notifier,
    pub tasks: Arc<TaskStore>,
    /// With a shared store: this process's replica.
    pub replica: Option<Arc<dyn Replicas>>,
}

/// What a replica does for the runtime when replicas of one server share their state
/// (`server::replica::serve`). Reached only through the replica a shared store installs
/// (`SharedStore`), so a server configured without a store does not carry it.
pub(crate) trait Replicas: Send + Sync {
    /// This replica's id (never 0).
    fn id(&self) -> u32;
    /// How this replica's sessions mirror their stream logs.
    fn mirror(&self) -> LogMirror;
    /// Starts the replica's background work for `server`; `changes` are the changes
    /// announced here, to relay to the others.
    fn start(self: Arc<Self>, server: &Arc<Runtime>, changes: mpsc::Receiver<Change>);
    /// Writes a new session's record.
    fn share_session<'a>(
        &'a self,
        server: &'a Runtime,
        session: &'a Session,
    ) -> Boxed<'a, Result<(), StoreError>>;
    /// Writes a session's changed record and tells the replicas holding a copy.
    fn session_changed<'a>(
        &'a self,
        server: &'a Runtime,
        session: &'a Session,
    ) -> Boxed<'a, Result<(), StoreError>>;
    /// [`Runtime::find_session`] with the store's record.
    fn find_session<'a>(
        &'a self,
        server: &'a Arc<Runtime>,
        id: &'a str,
        principal: &'a Principal,
    ) -> Boxed<'a, Result<Option<Arc<Session>>, StoreError>>;
    /// [`Runtime::end_session`] here and on every replica.
    fn end_session<'a>(
        &'a self,
        server: &'a Arc<Runtime>,
        id: &'a str,
        principal: &'a Principal,
    ) -> Boxed<'a, Result<bool, StoreError>>;
    /// The client's answer to a server→client request of `session`, to the replica that asked.
    fn relay_answer<'a>(
        &'a self,
        session: &'a str,
        id: &'a RequestId,
        answer: Result<Value, ErrorData>,
    ) -> Boxed<'a, ()>;
    /// `notifications/cancelled` for request `id` of `session`, to every replica.
    fn relay_cancel<'a>(&'a self, session: &'a str, id: &'a RequestId) -> Boxed<'a, ()>;
    /// `op`'s reply from the replica running its task; `None` when the task is this
    /// replica's (the caller runs it here).
    fn task_elsewhere(&self, op: TaskOp) -> Option<Boxed<'_, HandlerResult<TaskReply>>>;
    /// 2025-11-25 `tasks/result` on a task another replica runs; `None` when it is this
    /// replica's.
    fn task_payload<'a>(
        &'a self,
        server: &'a Runtime,
        ctx: &'a RequestContext,
        id: &'a str,
    ) -> Option<Boxed<'a, HandlerResult<ServerResult>>>;
    /// Files a new task of `owner` in the owner's index in the store.
    fn index_task<'a>(&'a self, server: &'a Runtime, owner: &'a str, id: &'a str) -> Boxed<'a, ()>;
    /// `list` (`owner`'s tasks here) with those its index names on the other replicas.
    fn list_tasks<'a>(
        &'a self,
        owner: &'a str,
        list: Vec<Task>,
    ) -> Boxed<'a, HandlerResult<Vec<Task>>>;
    /// [`Runtime::follow_shared_log`] with the store's log.
    fn follow_shared_log(
        self: Arc<Self>,
        server: &Arc<Runtime>,
        session: &Session,
        stream: u64,
        after: u64,
        sink: mpsc::Sender<Bytes>,
    );
}

/// A server: a [`Handler`](super::handler::Handler) and everything the runtime keeps for it.
pub struct Server<H: ?Sized> {
    pub(crate) shared: ServerShared,
    /// Last, so that an `Arc<Server<H>>` is also an `Arc<Runtime>`.
    pub(crate) handler: H,
}

/// The server as the runtime serves it, whatever its handler type: the runtime is compiled
/// once, here, not for each handler type in the crate that names it.
pub(crate) type Runtime = Server<dyn DynHandler>;

impl<H: ?Sized> Server<H> {
    /// Announces changes to every listening client.
    pub fn notifier(&self) -> &Notifier {
        &self.shared.notifier
    }

    /// The revisions offered, oldest first.
    pub fn revisions(&self) -> &[ProtocolVersion] {
        &self.shared.revisions
    }

    /// How many handshake-era sessions are live.
    pub fn session_count(&self) -> usize {
        self.shared.sessions.len()
    }

    /// How many tasks (tasks extension) the server keeps.
    pub fn task_count(&self) -> usize {
        self.shared.tasks.len()
    }

    /// Ends idle sessions now (a background task also does it, see [`Server::serve`]).
    pub fn expire_idle_sessions(&self) {
        self.shared.sessions.expire_idle();
    }
}

/// What the runtime asks of the replicas, answered here when there is no shared store.
impl Runtime {
    /// Writes a new session's record (handshake era, with a shared store).
    pub(crate) async fn share_session(&self, session: &Session) -> Result<(), StoreError> {
        match &self.shared.replica {
            Some(replica) => replica.share_session(self, session).await,
            None => Ok(()),
        }
    }

    /// Writes a session's changed record and tells the replicas holding a copy (with a shared
    /// store).
    pub(crate) async fn session_changed(&self, session: &Session) -> Result<(), StoreError> {
        match &self.shared.replica {
            Some(replica) => replica.session_changed(self, session).await,
            None => Ok(()),
        }
    }

    /// The session `id` opened by `principal`: this process's copy, or with a shared store
    /// the record (which every lookup keeps alive), restored here when this replica has no
    /// copy. `None` when it is unknown, ended, or another principal's.
    pub(crate) async fn find_session(
        self: &Arc<Self>,
        id: &str,
        principal: &Principal,
    ) -> Result<Option<Arc<Session>>, StoreError> {
        match &self.shared.replica {
            Some(replica) => replica.find_session(self, id, principal).await,
            None => Ok(self.shared.sessions.get_for(id, principal)),
        }
    }

    /// Ends session `id` of `principal` here and, with a shared store, everywhere; `false`
    /// when it was unknown (or another principal's).
    pub(crate) async fn end_session(
        self: &Arc<Self>,
        id: &str,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        match &self.shared.replica {
            Some(replica) => replica.end_session(self, id, principal).await,
            None => Ok(self.shared.sessions.remove_for(id, principal)),
        }
    }

    /// The client's answer to a server→client request that no handler here waits for: to the
    /// replica that asked (nowhere without a shared store).
    pub(crate) async fn relay_answer(
        &self,
        session: &str,
        id: &RequestId,
        answer: Result<Value, ErrorData>,
    ) {
        if let Some(replica) = &self.shared.replica {
            replica.relay_answer(session, id, answer).await;
        }
    }

    /// `notifications/cancelled` for a request not running here: to every replica.
    pub(crate) async fn relay_cancel(&self, session: &str, id: &RequestId) {
        if let Some(replica) = &self.shared.replica {
            replica.relay_cancel(session, id).await;
        }
    }

    /// A `tasks/*` operation on a task another replica runs: its reply. `None` when the task
    /// is this replica's (or there is no shared store): the caller runs it here.
    pub(crate) async fn task_elsewhere(&self, op: TaskOp) -> Option<HandlerResult<TaskReply>> {
        Some(self.shared.replica.as_ref()?.task_elsewhere(op)?.await)
    }

    /// `tasks/result` at 2025-11-25: on this replica's tasks, or through the replica running
    /// the task, asked one bounded step at a time.
    pub(crate) async fn task_payload(
        &self,
        ctx: &RequestContext,
        id: &str,
    ) -> HandlerResult<ServerResult> {
        let elsewhere = self.shared.replica.as_ref();
        if let Some(remote) = elsewhere.and_then(|r| r.task_payload(self, ctx, id)) {
            return remote.await;
        }
        let ttl = self.shared.limits.task_ttl;
        super::tasks::run::payload(&*self.shared.tasks, ctx, id, ttl, ttl).await
    }

    /// Files a new task of `owner` in the owner's index in the store (with replicas), so that
    /// `tasks/list` on any replica finds it.
    pub(crate) async fn index_task(&self, owner: &str, id: &str) {
        if let Some(replica) = &self.shared.replica {
            replica.index_task(self, owner, id).await;
        }
    }

    /// `tasks/list` at 2025-11-25: `owner`'s tasks here and, with replicas, those running on
    /// the other replicas, oldest first.
    pub(crate) async fn list_tasks(&self, owner: &str) -> HandlerResult<Vec<Task>> {
        let list = self.shared.tasks.core_list(owner);
        match &self.shared.replica {
            Some(replica) => replica.list_tasks(owner, list).await,
            None => Ok(list),
        }
    }

    /// Resumes, from its shared log, stream `stream` of `session` that this replica does not
    /// hold (see [`Replicas::follow_shared_log`]); `false` without a shared store.
    pub(crate) fn follow_shared_log(
        self: &Arc<Self>,
        session: &Session,
        stream: u64,
        after: u64,
        sink: mpsc::Sender<Bytes>,
    ) -> bool {
        match &self.shared.replica {
            Some(replica) => {
                replica
                    .clone()
                    .follow_shared_log(self, session, stream, after, sink);
                true
            }
            None => false,
        }
    }
}
