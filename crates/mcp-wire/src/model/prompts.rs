//! Prompts: templates, arguments, messages; list/get requests and results.

use crate::model::describe::Describe;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{
    CacheScope, ContentBlock, Icon, InputResponses, Meta, NotificationParams,
    PaginatedRequestParams, ResultType, Role,
};

/// A prompt template the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments the template accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons for display (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Prompt {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
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

    /// Sets `arguments`.
    pub fn with_arguments(mut self, value: Vec<PromptArgument>) -> Self {
        self.arguments = Some(value);
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

/// An argument of a prompt template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: None,
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

    /// Sets `required`.
    pub fn with_required(mut self, value: bool) -> Self {
        self.required = Some(value);
        self
    }
}

/// One message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A value with the required fields set and every optional field absent.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        Self { role, content }
    }
}

/// Parameters of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptRequestParams {
    /// Name of the prompt.
    pub name: String,
    /// Argument values by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<IndexMap<String, String>>,
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

impl GetPromptRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
        }
    }

    /// Sets `arguments`.
    pub fn with_arguments(mut self, value: IndexMap<String, String>) -> Self {
        self.arguments = Some(value);
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

/// Result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// The rendered messages.
    pub messages: Vec<PromptMessage>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl GetPromptResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            messages,
            description: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
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

/// Result of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// The prompts of this page.
    pub prompts: Vec<Prompt>,
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

impl ListPromptsResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(prompts: Vec<Prompt>) -> Self {
        Self {
            prompts,
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

request! {
    /// `prompts/list`: lists the server's prompts.
    ListPromptsRequest, PromptsListMethod = "prompts/list",
    params?: PaginatedRequestParams, result: ListPromptsResult
}

request! {
    /// `prompts/get`: renders one prompt.
    GetPromptRequest, PromptsGetMethod = "prompts/get",
    params: GetPromptRequestParams, result: GetPromptResult
}

notification! {
    /// `notifications/prompts/list_changed`: the list of prompts changed.
    PromptListChangedNotification, PromptsListChangedMethod = "notifications/prompts/list_changed",
    params?: NotificationParams
}
