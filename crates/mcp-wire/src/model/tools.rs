//! Tools: definitions with open input/output schemas, annotations; list/call requests and results.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    CacheScope, ContentBlock, Icon, InputResponses, Meta, NotificationParams,
    PaginatedRequestParams, ResultType, TaskMetadata, TaskSupport,
};

/// A tool the server offers. `inputSchema`/`outputSchema` are open JSON Schema objects, kept as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Programmatic name.
    pub name: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments (an open object).
    pub input_schema: Map<String, Value>,
    /// JSON Schema of `structuredContent` (2025-06-18+, open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Task support (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons for display (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Tool {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>, input_schema: Map<String, Value>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `outputSchema`.
    pub fn with_output_schema(mut self, value: Map<String, Value>) -> Self {
        self.output_schema = Some(value);
        self
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: ToolAnnotations) -> Self {
        self.annotations = Some(value);
        self
    }

    /// Sets `execution`.
    pub fn with_execution(mut self, value: ToolExecution) -> Self {
        self.execution = Some(value);
        self
    }

    /// Sets `icons`.
    pub fn with_icons(mut self, value: Vec<Icon>) -> Self {
        self.icons = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Hints about how a tool behaves; clients must not rely on them for safety (2025-03-26+).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite things.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world (e.g. the web).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            title: None,
            read_only_hint: None,
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `readOnlyHint`.
    pub fn with_read_only_hint(mut self, value: bool) -> Self {
        self.read_only_hint = Some(value);
        self
    }

    /// Sets `destructiveHint`.
    pub fn with_destructive_hint(mut self, value: bool) -> Self {
        self.destructive_hint = Some(value);
        self
    }

    /// Sets `idempotentHint`.
    pub fn with_idempotent_hint(mut self, value: bool) -> Self {
        self.idempotent_hint = Some(value);
        self
    }

    /// Sets `openWorldHint`.
    pub fn with_open_world_hint(mut self, value: bool) -> Self {
        self.open_world_hint = Some(value);
        self
    }
}

/// How a tool may be executed (2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether the tool may, must or must not run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

impl ToolExecution {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { task_support: None }
    }

    /// Sets `taskSupport`.
    pub fn with_task_support(mut self, value: TaskSupport) -> Self {
        self.task_support = Some(value);
        self
    }
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// Name of the tool.
    pub name: String,
    /// Arguments (an open JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Asks for task-augmented execution (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Answers to the input requests of an earlier `InputRequiredResult` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Opaque state echoed from an earlier `InputRequiredResult` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: None,
            task: None,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }

    /// Sets `arguments`.
    pub fn with_arguments(mut self, value: Map<String, Value>) -> Self {
        self.arguments = Some(value);
        self
    }

    /// Sets `task`.
    pub fn with_task(mut self, value: TaskMetadata) -> Self {
        self.task = Some(value);
        self
    }

    /// Sets `inputResponses`.
    pub fn with_input_responses(mut self, value: InputResponses) -> Self {
        self.input_responses = Some(value);
        self
    }

    /// Sets `requestState`.
    pub fn with_request_state(mut self, value: impl Into<String>) -> Self {
        self.request_state = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result (2025-06-18+; any JSON value from 2026-07-28).
    #[serde(
        default,
        deserialize_with = "crate::de::keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (errors are results, not protocol errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            structured_content: None,
            is_error: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `structuredContent`.
    pub fn with_structured_content(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// Sets `isError`.
    pub fn with_is_error(mut self, value: bool) -> Self {
        self.is_error = Some(value);
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

/// Result of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// Opaque cursor for the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `ttlMs` (2026-07-28 caching hint): how long the result may be reused, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// `cacheScope` (2026-07-28 caching hint): who may reuse the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListToolsResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(tools: Vec<Tool>) -> Self {
        Self {
            tools,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `nextCursor`.
    pub fn with_next_cursor(mut self, value: impl Into<String>) -> Self {
        self.next_cursor = Some(value.into());
        self
    }

    /// Sets `ttlMs`.
    pub fn with_ttl_ms(mut self, value: u64) -> Self {
        self.ttl_ms = Some(value);
        self
    }

    /// Sets `cacheScope`.
    pub fn with_cache_scope(mut self, value: CacheScope) -> Self {
        self.cache_scope = Some(value);
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

impl Tool {
    /// The input schema of a tool without arguments: `{"type": "object"}`.
    pub fn empty_input_schema() -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".to_owned(), Value::String("object".to_owned()));
        schema
    }
}

impl CallToolRequestParams {
    /// The arguments read as `T` (absent arguments read as `{}`); a mismatch is a
    /// [`ModelError`](super::ModelError) with the pointer under `/arguments` and code -32602.
    pub fn arguments_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, super::ModelError> {
        let arguments = Value::Object(self.arguments.clone().unwrap_or_default());
        super::from_value(arguments).map_err(|e| e.under_key("arguments"))
    }
}

impl CallToolResult {
    /// A successful result with `value` as `structuredContent` and, as the revisions advise for
    /// clients that read only `content`, its JSON text as one text block.
    pub fn structured(value: Value) -> Self {
        CallToolResult::text(value.to_string()).with_structured_content(value)
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::new(vec![ContentBlock::from(text.into())])
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult::text(text).with_is_error(true)
    }
}

request! {
    /// `tools/list`: lists the server's tools.
    ListToolsRequest, ToolsListMethod = "tools/list",
    params?: PaginatedRequestParams, result: ListToolsResult
}

request! {
    /// `tools/call`: calls one tool.
    CallToolRequest, ToolsCallMethod = "tools/call",
    params: CallToolRequestParams, result: CallToolResult
}

notification! {
    /// `notifications/tools/list_changed`: the list of tools changed.
    ToolListChangedNotification, ToolsListChangedMethod = "notifications/tools/list_changed",
    params?: NotificationParams
}
