//! The `io.modelcontextprotocol/tasks` extension (SEP-2663) at 2026-07-28: server-directed
//! tasks. Not part of the pinned 2026-07-28 schema; its frames exist at that revision only
//! where the extension was negotiated (the ledger's [`EXTENSION_TYPES`](crate::wire::ledger::EXTENSION_TYPES)
//! rows say so). The 2025-11-25 core tasks stay in [`super::tasks`].
//!
//! - A `tools/call` answered with a task gets a flat [`TaskCreatedResult`]
//!   (`resultType: "task"`, the [`TaskInfo`] fields at the top level).
//! - `tasks/get` ([`super::GetTaskRequest`], the same params as 2025-11-25) answers
//!   [`GetDetailedTaskResult`]: the task with its outcome inlined (`inputRequests`, `result` or
//!   `error`); there is no `tasks/result` and no `tasks/list`.
//! - `tasks/update` ([`UpdateTaskRequest`]) delivers `inputResponses`; it and `tasks/cancel`
//!   answer an empty `{"resultType": "complete"}` ack ([`super::EmptyResult`]).
//! - `notifications/tasks` ([`TasksNotification`]) reports a task's new state.
//!
//! Our names differ from the extension's where the 2025-11-25 core already uses the name: see
//! [`EXTENSION_NAMES`](super::naming::EXTENSION_NAMES).

use crate::jsonrpc::ErrorData;
use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use indexmap::IndexMap;

use super::{InputRequests, Meta, ResultType, TaskStatus};

/// The extension's identifier (a key of `capabilities.extensions`).
pub const TASKS_EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The extension's base task fields (its `Task`): what `CreateTaskResult`, `tasks/get` and
/// `notifications/tasks` all carry at their top level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskInfo {
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
    /// How long the task is kept after creation, in ms; `null` for unlimited (the key is
    /// required).
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl TaskInfo {
    /// A task with the required fields set and every optional field absent.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
        ttl_ms: Option<u64>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl_ms,
            poll_interval_ms: None,
        }
    }

    /// Sets `statusMessage`.
    pub fn with_status_message(mut self, value: impl Into<String>) -> Self {
        self.status_message = Some(value.into());
        self
    }

    /// Sets `pollIntervalMs`.
    pub fn with_poll_interval_ms(mut self, value: u64) -> Self {
        self.poll_interval_ms = Some(value);
        self
    }
}

/// A request answered with a task (the extension's `CreateTaskResult`): flat, no `result`,
/// `error`, `inputRequests` or `requestState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct TaskCreatedResult {
    /// The task's fields, at the top level.
    #[serde(flatten)]
    pub task: TaskInfo,
    /// `resultType`: always `task`.
    #[serde(rename = "resultType")]
    pub result_type: ResultType,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TaskCreatedResult {
    /// The result announcing `task`.
    pub fn new(task: TaskInfo) -> Self {
        Self {
            task,
            result_type: ResultType::Task,
            meta: None,
        }
    }
}

/// A task with its outcome (the extension's `DetailedTask`): `inputRequests` while
/// `input_required`, the original request's `result` once `completed`, the JSON-RPC `error`
/// once `failed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DetailedTask {
    /// The task's fields, at the top level.
    #[serde(flatten)]
    pub task: TaskInfo,
    /// The input requests still unanswered (status `input_required`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The original request's result (status `completed`), as its revision writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Map<String, Value>>,
    /// The protocol error the task ended with (status `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorData>,
}

impl DetailedTask {
    /// `task` with no outcome yet.
    pub fn new(task: TaskInfo) -> Self {
        Self {
            task,
            input_requests: None,
            result: None,
            error: None,
        }
    }

    /// Sets `inputRequests`.
    pub fn with_input_requests(mut self, value: InputRequests) -> Self {
        self.input_requests = Some(value);
        self
    }

    /// Sets `result`.
    pub fn with_result(mut self, value: Map<String, Value>) -> Self {
        self.result = Some(value);
        self
    }

    /// Sets `error`.
    pub fn with_error(mut self, value: ErrorData) -> Self {
        self.error = Some(value);
        self
    }
}

/// Result of `tasks/get` with the extension (its `GetTaskResult`): the detailed task, flat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct GetDetailedTaskResult {
    /// The task and its outcome, at the top level (boxed: a detailed task is large, and a
    /// result union is as large as its largest member).
    #[serde(flatten)]
    pub task: Box<DetailedTask>,
    /// `resultType`: `complete`.
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

impl GetDetailedTaskResult {
    /// The result reporting `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self {
            task: Box::new(task),
            result_type: None,
            meta: None,
        }
    }
}

/// Parameters of `tasks/update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskRequestParams {
    /// Identifier of the task.
    pub task_id: String,
    /// Answers to the task's `inputRequests`, by their keys (a subset may be answered). Kept
    /// as sent: an answer's type is the one its request asks for, so the receiver types each
    /// against the request it answers (a key no request has is ignored, not an error).
    pub input_responses: IndexMap<String, Value>,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl UpdateTaskRequestParams {
    /// Answers `input_responses` for task `task_id`.
    pub fn new(task_id: impl Into<String>, input_responses: IndexMap<String, Value>) -> Self {
        Self {
            task_id: task_id.into(),
            input_responses,
            meta: None,
        }
    }
}

/// Parameters of `notifications/tasks`: the task's new state, with its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[non_exhaustive]
pub struct TasksNotificationParams {
    /// The task and its outcome, at the top level (boxed: a detailed task is large, and a
    /// notification union is as large as its largest member).
    #[serde(flatten)]
    pub task: Box<DetailedTask>,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TasksNotificationParams {
    /// Parameters reporting `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self {
            task: Box::new(task),
            meta: None,
        }
    }
}

request! {
    /// `tasks/update` (tasks extension, 2026-07-28): answers a task's input requests.
    UpdateTaskRequest, TasksUpdateMethod = "tasks/update",
    params: UpdateTaskRequestParams, result: super::EmptyResult
}

notification! {
    /// `notifications/tasks` (tasks extension, 2026-07-28): a task changed state.
    TasksNotification, TasksNotificationMethod = "notifications/tasks",
    params: TasksNotificationParams
}
