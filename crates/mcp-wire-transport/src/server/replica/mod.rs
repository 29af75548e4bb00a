//! Replicas of one server behind a load balancer, sharing their state through a [`Store`]:
//! any replica answers any request, whichever served the ones before.
//!
//! What is shared, and how:
//! - **Handshake-era sessions**: a record per session (revision, client capabilities and
//!   info, the principal's key, log level, subscriptions) under a key whose expiry every
//!   request of the session moves ([`Limits::session_idle`]). A replica that does not know a
//!   session restores it from its record; `DELETE` removes the record and tells every replica
//!   to drop its copy.
//! - **What lives in one process** (a handler waiting for the client's answer, a running
//!   request, a task's work) stays where it runs; the bus carries to it what arrives
//!   elsewhere: a client's answer to a server→client request (whose id names the replica
//!   that asked), `notifications/cancelled`, and the `tasks/*` operations on a task (whose id
//!   names the replica that runs it; the caller waits for the reply, bounded). A 2025-11-25
//!   `tasks/result` elsewhere asks the task's replica for its next step, a bounded wait at a
//!   time, and carries its input requests and the client's answers; `tasks/list` reads the
//!   owner's index of task ids and asks each replica running some of them.
//! - **Changes** (list changes, resource updates) announced on one replica reach the streams
//!   and `subscriptions/listen` held on every other.
//! - **SSE event logs**: every event of a session's stream is also appended, in order, to a
//!   bounded log whose key names the session and the stream; stream ids carry the replica
//!   that writes them, so `Last-Event-ID` is unique across replicas. A resumption on another
//!   replica replays the log and follows it until the stream ends or its replica stops
//!   (each replica keeps a short-lived liveness key).
//! - **Secrets** (the `requestState` key) come from configuration, never from the store.
//!
//! This module holds what replicas share and say to each other; [`serve`] is a replica at work.

pub(crate) mod serve;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, RequestId};
use mcp_wire::model::{ClientCapabilities, DetailedTask, Implementation, InputResponse, Task};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::server::error::{HandlerError, HandlerResult};
use crate::server::mirror::{EventWrite, LogMirror, WRITE_QUEUE};
use crate::server::notify::Change;
use crate::server::store::{Store, StoreError};
use crate::server::tasks::{TaskHome, TaskStore};

/// The longest a replica holds a `tasks/result` step for another, waiting for the task to
/// change (well within the bus call's own timeout).
const TASK_STEP_WAIT: Duration = Duration::from_secs(2);

fn inbox(replica: u32) -> String {
    format!("mcp-wire:to:{replica:08x}")
}

fn alive_key(replica: u32) -> String {
    format!("mcp-wire:alive:{replica:08x}")
}

/// This process's replica: its id, the store, and what waits on the bus.
pub(crate) struct Replica {
    pub store: Arc<dyn Store>,
    /// Random per process; never 0.
    pub id: u32,
    calls: Mutex<HashMap<u64, oneshot::Sender<Result<Value, ErrorData>>>>,
    next_call: AtomicU64,
    writes: mpsc::Sender<EventWrite>,
    writes_rx: Mutex<Option<mpsc::Receiver<EventWrite>>>,
}

/// What the store keeps of a handshake-era session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SessionRecord {
    pub revision: ProtocolVersion,
    pub principal: String,
    pub capabilities: ClientCapabilities,
    pub client_info: Option<Implementation>,
    pub level: Option<u8>,
    pub subscriptions: Vec<String>,
}

/// A change, as the bus carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum SharedChange {
    Tools,
    Prompts,
    Resources,
    Resource(String),
    StatelessOnly(Box<SharedChange>),
}

impl SharedChange {
    fn from_change(change: &Change) -> Self {
        match change {
            Change::ToolsListChanged => Self::Tools,
            Change::PromptsListChanged => Self::Prompts,
            Change::ResourcesListChanged => Self::Resources,
            Change::ResourceUpdated(uri) => Self::Resource(uri.clone()),
            Change::StatelessOnly(inner) => Self::StatelessOnly(Box::new(Self::from_change(inner))),
        }
    }

    fn into_change(self) -> Change {
        match self {
            Self::Tools => Change::ToolsListChanged,
            Self::Prompts => Change::PromptsListChanged,
            Self::Resources => Change::ResourcesListChanged,
            Self::Resource(uri) => Change::ResourceUpdated(uri),
            Self::StatelessOnly(inner) => Change::StatelessOnly(Box::new(inner.into_change())),
        }
    }
}

/// A `tasks/*` operation for the replica running the task.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum TaskOp {
    /// Tasks extension `tasks/get`.
    Get { owner: String, id: String },
    /// Tasks extension `tasks/update`.
    Update {
        owner: String,
        id: String,
        responses: IndexMap<String, Value>,
    },
    /// Tasks extension `tasks/cancel`.
    Cancel { owner: String, id: String },
    /// 2025-11-25 `tasks/get`.
    CoreGet { owner: String, id: String },
    /// 2025-11-25 `tasks/cancel`.
    CoreCancel { owner: String, id: String },
    /// 2025-11-25 `tasks/result`: the next step, after waiting at most `wait_ms` for one.
    CoreStep {
        owner: String,
        id: String,
        wait_ms: u64,
    },
    /// 2025-11-25 `tasks/result`: the client's answers to the task's input requests.
    CoreDeliver {
        owner: String,
        id: String,
        answers: IndexMap<String, InputResponse>,
    },
    /// 2025-11-25 `tasks/result`: input requests the client did not answer, to ask again.
    CoreUnrelay {
        owner: String,
        id: String,
        keys: Vec<String>,
    },
    /// 2025-11-25 `tasks/list`: those of tasks `ids` this replica still keeps for `owner`.
    CoreList { owner: String, ids: Vec<String> },
}

/// The reply to a [`TaskOp`] run on another replica, read as the operation's result.
pub(crate) enum TaskReply {
    /// Tasks extension `tasks/get`.
    Detailed(Box<DetailedTask>),
    /// 2025-11-25 `tasks/get` and `tasks/cancel`.
    Task(Task),
    /// An operation that answers nothing (`tasks/update`, the extension's `tasks/cancel`).
    Done,
}

impl TaskReply {
    /// The extension's task, which `tasks/get` answers.
    pub(crate) fn detailed(self) -> HandlerResult<DetailedTask> {
        match self {
            Self::Detailed(task) => Ok(*task),
            _ => Err(unexpected_reply()),
        }
    }

    /// The 2025-11-25 task, which `tasks/get` and `tasks/cancel` answer.
    pub(crate) fn task(self) -> HandlerResult<Task> {
        match self {
            Self::Task(task) => Ok(task),
            _ => Err(unexpected_reply()),
        }
    }
}

fn unexpected_reply() -> HandlerError {
    HandlerError::internal("the replica running the task answered another operation")
}

impl TaskOp {
    /// The one task the operation is on (`None` for a list).
    fn task_id(&self) -> Option<&str> {
        match self {
            Self::Get { id, .. }
            | Self::Update { id, .. }
            | Self::Cancel { id, .. }
            | Self::CoreGet { id, .. }
            | Self::CoreCancel { id, .. }
            | Self::CoreStep { id, .. }
            | Self::CoreDeliver { id, .. }
            | Self::CoreUnrelay { id, .. } => Some(id),
            Self::CoreList { .. } => None,
        }
    }

    /// Runs the operation on this replica's tasks.
    async fn run(self, tasks: &TaskStore) -> HandlerResult<Value> {
        let json = |v: Result<Value, serde_json::Error>| {
            v.map_err(|e| HandlerError::internal(e.to_string()))
        };
        match self {
            Self::Get { owner, id } => json(serde_json::to_value(tasks.get(&owner, &id)?)),
            Self::Update {
                owner,
                id,
                responses,
            } => tasks.update(&owner, &id, &responses).map(|()| Value::Null),
            Self::Cancel { owner, id } => tasks.cancel(&owner, &id).map(|()| Value::Null),
            Self::CoreGet { owner, id } => json(serde_json::to_value(tasks.core_get(&owner, &id)?)),
            Self::CoreCancel { owner, id } => {
                json(serde_json::to_value(tasks.core_cancel(&owner, &id)?))
            }
            Self::CoreStep { owner, id, wait_ms } => {
                let wait = Duration::from_millis(wait_ms).min(TASK_STEP_WAIT);
                let until = tokio::time::Instant::now() + wait;
                json(serde_json::to_value(
                    tasks.next_step(&owner, &id, until).await?,
                ))
            }
            Self::CoreDeliver { owner, id, answers } => {
                TaskHome::deliver(tasks, &owner, &id, answers)
                    .await
                    .map(|()| Value::Null)
            }
            Self::CoreUnrelay { owner, id, keys } => TaskHome::unrelay(tasks, &owner, &id, keys)
                .await
                .map(|()| Value::Null),
            Self::CoreList { owner, ids } => {
                let kept: Vec<Task> = tasks
                    .core_list(&owner)
                    .into_iter()
                    .filter(|t| ids.contains(&t.task_id))
                    .collect();
                json(serde_json::to_value(kept))
            }
        }
    }
}

/// What the bus carries between replicas.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t")]
enum Message {
    /// The client's answer to a server→client request of `session`.
    Answer {
        from: u32,
        session: String,
        id: RequestId,
        answer: Result<Value, ErrorData>,
    },
    /// `notifications/cancelled` for request `id` of `session`.
    Cancel {
        from: u32,
        session: String,
        id: RequestId,
    },
    /// A change announced on replica `from`.
    Change { from: u32, change: SharedChange },
    /// The record of `session` changed: copies reload it.
    SessionUpdated { from: u32, session: String },
    /// `session` ended: copies are dropped.
    SessionEnded { from: u32, session: String },
    /// A `tasks/*` operation for the receiving replica; the reply goes to `from`'s inbox.
    TaskCall { from: u32, call: u64, op: TaskOp },
    /// The reply to call `call`.
    TaskReply {
        call: u64,
        result: Result<Value, ErrorData>,
    },
}

impl Message {
    fn from(&self) -> Option<u32> {
        match self {
            Self::Answer { from, .. }
            | Self::Cancel { from, .. }
            | Self::Change { from, .. }
            | Self::SessionUpdated { from, .. }
            | Self::SessionEnded { from, .. }
            | Self::TaskCall { from, .. } => Some(*from),
            Self::TaskReply { .. } => None,
        }
    }
}

/// The store's failure as a handler error: `-32603` with the reason.
pub(crate) fn store_failed(e: &StoreError) -> HandlerError {
    HandlerError::internal(e.to_string())
}

impl Replica {
    /// A replica on `store` with a random id.
    pub(crate) fn new(store: Arc<dyn Store>) -> Self {
        let mut bytes = [0u8; 4];
        let _ = getrandom::fill(&mut bytes);
        let mut id = u32::from_le_bytes(bytes);
        if id == 0 {
            // Zero marks "no replica" in stream ids; time is unique enough here.
            id = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.subsec_nanos() | 1);
        }
        let (writes, writes_rx) = mpsc::channel(WRITE_QUEUE);
        Self {
            store,
            id,
            calls: Mutex::new(HashMap::new()),
            next_call: AtomicU64::new(1),
            writes,
            writes_rx: Mutex::new(Some(writes_rx)),
        }
    }

    /// How this replica's sessions mirror their stream logs.
    pub(crate) fn mirror(&self) -> LogMirror {
        LogMirror {
            replica: self.id,
            writes: self.writes.clone(),
        }
    }

    async fn publish(&self, channel: &str, message: &Message) -> Result<(), StoreError> {
        let payload = serde_json::to_vec(message).unwrap_or_default();
        self.store.publish(channel, payload).await
    }

    async fn is_alive(&self, replica: u32) -> bool {
        replica == self.id || matches!(self.store.get(&alive_key(replica), None).await, Ok(Some(_)))
    }
}
