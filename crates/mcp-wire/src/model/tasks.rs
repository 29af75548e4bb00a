//! Tasks (2025-11-25): task-augmented requests, task status, and the `tasks/*` methods.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Meta, PaginatedRequestParams, ResultType};

/// The state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for input from the requester.
    InputRequired,
    /// Finished successfully.
    Completed,
    /// Finished with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

/// Whether a tool may run as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum TaskSupport {
    /// Never as a task.
    Forbidden,
    /// Either way.
    Optional,
    /// Only as a task.
    Required,
}

/// The state of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Identifier of the task.
    pub task_id: String,
    /// Current state.
    pub status: TaskStatus,
    /// Human-readable state description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, ISO 8601.
    pub created_at: String,
    /// Last update time, ISO 8601.
    pub last_updated_at: String,
    /// How long results are kept, in ms; `null` for unlimited (the key is required).
    pub ttl: Option<i64>,
    /// Suggested polling interval in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

impl Task {
    /// A value with the required fields set and every optional field absent.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
        ttl: Option<i64>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl,
            poll_interval: None,
        }
    }

    /// Sets `statusMessage`.
    pub fn with_status_message(mut self, value: impl Into<String>) -> Self {
        self.status_message = Some(value.into());
        self
    }

    /// Sets `pollInterval`.
    pub fn with_poll_interval(mut self, value: u64) -> Self {
        self.poll_interval = Some(value);
        self
    }
}

/// Asks for task-augmented execution.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskMetadata {
    /// Requested retention in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

impl TaskMetadata {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { ttl: None }
    }

    /// Sets `ttl`.
    pub fn with_ttl(mut self, value: u64) -> Self {
        self.ttl = Some(value);
        self
    }
}

/// The task a message relates to (the `io.modelcontextprotocol/related-task` `_meta` value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RelatedTaskMetadata {
    /// Identifier of the task.
    pub task_id: String,
}

impl RelatedTaskMetadata {
    /// A value with the required fields set and every optional field absent.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
        }
    }
}

/// Parameters of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// Identifier of the task.
    pub task_id: String,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskIdParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: task_id.into(),
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of a task-augmented request: the task that was created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The new task.
    pub task: Task,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(task: Task) -> Self {
        Self {
            task,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `resultType`.
    pub fn with_result_type(mut self, value: ResultType) -> Self {
        self.result_type = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of `tasks/get` and `tasks/cancel`: the task's state (fields flattened, as on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct GetTaskResult {
    /// The task's state.
    #[serde(flatten)]
    pub task: Task,
    /// `resultType`, if sent.
    #[serde(
        rename = "resultType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl GetTaskResult {
    /// A result reporting `task`.
    pub fn new(task: Task) -> Self {
        GetTaskResult {
            task,
            result_type: None,
            meta: None,
        }
    }
}

/// Result of `tasks/cancel`: the same shape as [`GetTaskResult`].
pub type CancelTaskResult = GetTaskResult;

/// Parameters of `notifications/tasks/status`: the task's state (fields flattened).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct TaskStatusNotificationParams {
    /// The task's state.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskStatusNotificationParams {
    /// Parameters reporting `task`.
    pub fn new(task: Task) -> Self {
        TaskStatusNotificationParams { task, meta: None }
    }
}

/// Result of `tasks/result`: the underlying request's result, whatever its shape (open).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct GetTaskPayloadResult {
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The payload's keys, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `tasks/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResult {
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// Opaque cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListTasksResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(tasks: Vec<Task>) -> Self {
        Self {
            tasks,
            next_cursor: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `nextCursor`.
    pub fn with_next_cursor(mut self, value: impl Into<String>) -> Self {
        self.next_cursor = Some(value.into());
        self
    }

    /// Sets `resultType`.
    pub fn with_result_type(mut self, value: ResultType) -> Self {
        self.result_type = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

request! {
    /// `tasks/get` (2025-11-25): reads a task's state.
    GetTaskRequest, TasksGetMethod = "tasks/get",
    params: TaskIdParams, result: GetTaskResult
}

request! {
    /// `tasks/result` (2025-11-25): reads a finished task's result.
    GetTaskPayloadRequest, TasksResultMethod = "tasks/result",
    params: TaskIdParams, result: GetTaskPayloadResult
}

request! {
    /// `tasks/list` (2025-11-25): lists tasks.
    ListTasksRequest, TasksListMethod = "tasks/list",
    params?: PaginatedRequestParams, result: ListTasksResult
}

request! {
    /// `tasks/cancel` (2025-11-25): cancels a task.
    CancelTaskRequest, TasksCancelMethod = "tasks/cancel",
    params: TaskIdParams, result: CancelTaskResult
}

notification! {
    /// `notifications/tasks/status` (2025-11-25): a task changed state.
    TaskStatusNotification, TasksStatusMethod = "notifications/tasks/status",
    params: TaskStatusNotificationParams
}
