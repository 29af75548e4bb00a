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
//! [`EXTENSION_NAMES`](super::names::EXTENSION_NAMES).

use crate::jsonrpc::ErrorData;
use crate::wire::planned::Emit;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use indexmap::IndexMap;

use super::{InputRequests, Meta, ResultType, TaskStatus};

/// The extension's identifier (a key of `capabilities.extensions`).
pub const TASKS_EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The extension's base task fields (its `Task`): what `CreateTaskResult`, `tasks/get` and
/// `notifications/tasks` all carry at their top level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
#[non_exhaustive]
pub struct GetDetailedTaskResult {
    /// The task and its outcome, at the top level.
    #[serde(flatten)]
    pub task: DetailedTask,
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
            task,
            result_type: None,
            meta: None,
        }
    }
}

/// Parameters of `tasks/update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Emit)]
#[non_exhaustive]
pub struct TasksNotificationParams {
    /// The task and its outcome, at the top level.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TasksNotificationParams {
    /// Parameters reporting `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self { task, meta: None }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion::{V2025_11_25, V2026_07_28};
    use crate::model::{ClientRequest, ServerResult};
    use crate::wire::{EmitErrorKind, ParseErrorKind, parse_str_as, serialize_for};
    use serde_json::json;

    fn task(status: TaskStatus) -> TaskInfo {
        TaskInfo::new(
            "t1",
            status,
            "2026-12-02T04:05:06.789Z",
            "2026-12-02T04:05:07.000Z",
            Some(60_000),
        )
        .with_poll_interval_ms(200)
    }

    #[test]
    fn a_created_task_is_flat_at_2026_07_28_and_absent_before() {
        let body = ServerResult::TaskCreated(TaskCreatedResult::new(task(TaskStatus::Working)));
        assert_eq!(
            serialize_for(&body, V2026_07_28).unwrap(),
            json!({"taskId": "t1", "status": "working",
                "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
                "ttlMs": 60_000, "pollIntervalMs": 200, "resultType": "task"})
        );
        let e = serialize_for(&body, V2025_11_25).unwrap_err();
        assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
        // A result we cannot express is our own failure to answer.
        assert_eq!(e.code(), -32603);
    }

    #[test]
    fn tasks_get_inlines_the_outcome_and_gets_its_result_type() {
        let result =
            json!({"content": [{"type": "text", "text": "done"}], "resultType": "complete"});
        let detailed = DetailedTask::new(task(TaskStatus::Completed))
            .with_result(result.as_object().unwrap().clone());
        let body = ServerResult::DetailedTask(GetDetailedTaskResult::new(detailed));
        let v = serialize_for(&body, V2026_07_28).unwrap();
        assert_eq!(v["resultType"], "complete");
        assert_eq!(v["result"], result);
        assert_eq!(v["status"], "completed");
        assert!(v.get("error").is_none() && v.get("inputRequests").is_none());
        let failed =
            DetailedTask::new(task(TaskStatus::Failed)).with_error(ErrorData::new(-32603, "boom"));
        let v = serialize_for(
            &ServerResult::DetailedTask(GetDetailedTaskResult::new(failed)),
            V2026_07_28,
        )
        .unwrap();
        assert_eq!(v["error"], json!({"code": -32603, "message": "boom"}));
    }

    #[test]
    fn tasks_get_and_cancel_results_are_typed_per_revision() {
        use crate::wire::{MethodResult, parse_result_for, parse_result_str_for};
        let detailed = json!({"taskId": "t1", "status": "completed",
            "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
            "ttlMs": 60_000, "resultType": "complete",
            "result": {"content": [], "resultType": "complete"}});
        let text = detailed.to_string();
        for got in [
            parse_result_for("tasks/get", &detailed, V2026_07_28),
            parse_result_str_for("tasks/get", &text, V2026_07_28),
        ] {
            match got.unwrap() {
                MethodResult::Server(ServerResult::DetailedTask(r)) => {
                    assert_eq!(r.task.task.ttl_ms, Some(60_000));
                    assert!(r.task.result.is_some());
                }
                other => panic!("typed as {other:?}"),
            }
        }
        let ack = json!({"resultType": "complete"});
        assert!(matches!(
            parse_result_for("tasks/cancel", &ack, V2026_07_28).unwrap(),
            MethodResult::Server(ServerResult::Empty(_))
        ));
        assert!(matches!(
            parse_result_str_for("tasks/cancel", &ack.to_string(), V2026_07_28).unwrap(),
            MethodResult::Server(ServerResult::Empty(_))
        ));
        // 2025-11-25's core task: `ttl`, a `Task` for both.
        let core = json!({"taskId": "t1", "status": "cancelled",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 30_000});
        for method in ["tasks/get", "tasks/cancel"] {
            assert!(matches!(
                parse_result_for(method, &core, V2025_11_25).unwrap(),
                MethodResult::Server(ServerResult::GetTask(_))
            ));
        }
        // A task that is not an object is refused on both paths.
        assert!(parse_result_for("tasks/get", &json!(["t1"]), V2026_07_28).is_err());
        assert!(parse_result_str_for("tasks/get", "[\"t1\"]", V2026_07_28).is_err());
    }

    #[test]
    fn tasks_update_parses_at_2026_07_28_only() {
        let text = r#"{"method": "tasks/update", "params": {"taskId": "t1",
            "inputResponses": {"k": {"action": "accept"}, "other": {"ignored": true}},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}"#;
        match parse_str_as::<ClientRequest>(text, V2026_07_28).unwrap() {
            ClientRequest::UpdateTask(r) => {
                assert_eq!(r.params.task_id, "t1");
                assert_eq!(r.params.input_responses.len(), 2);
            }
            other => panic!("parsed as {}", other.method()),
        }
        let e = parse_str_as::<ClientRequest>(text, V2025_11_25).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
        let get = r#"{"method": "tasks/get", "params": {"taskId": "t1"}}"#;
        assert!(parse_str_as::<ClientRequest>(get, V2026_07_28).is_ok());
        let list = r#"{"method": "tasks/list", "params": {}}"#;
        let e = parse_str_as::<ClientRequest>(list, V2026_07_28).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
    }
}
