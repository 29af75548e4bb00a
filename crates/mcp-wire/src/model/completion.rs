//! Completion: argument completion for prompts and resource templates.

use crate::model::describe::Describe;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{Meta, ResultType};

tag!(
    /// The `type` literal `ref/prompt`.
    PromptRefType = "ref/prompt"
);
tag!(
    /// The `type` literal `ref/resource`.
    ResourceRefType = "ref/resource"
);

/// Refers to a prompt by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptReference {
    /// `"ref/prompt"`.
    pub r#type: PromptRefType,
    /// Name of the prompt.
    pub name: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl PromptReference {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            r#type: PromptRefType,
            name: name.into(),
            title: None,
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }
}

/// Refers to a resource template by URI (named `ResourceReference` before 2025-06-18).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplateReference {
    /// `"ref/resource"`.
    pub r#type: ResourceRefType,
    /// URI or URI template.
    pub uri: String,
}

impl ResourceTemplateReference {
    /// A value with the required fields set and every optional field absent.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            r#type: ResourceRefType,
            uri: uri.into(),
        }
    }
}

tagged_union! {
    /// What a completion request completes for, tagged on `type`.
    pub enum CompleteReference on "type" {
        /// `ref/prompt`
        Prompt(PromptReference) = "ref/prompt",
        /// `ref/resource`
        Resource(ResourceTemplateReference) = "ref/resource",
    }
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionArgument {
    /// Name of the argument.
    pub name: String,
    /// What has been typed so far.
    pub value: String,
}

impl CompletionArgument {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// Already-resolved arguments that help completion (2025-06-18+).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompletionContext {
    /// Resolved argument values by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<IndexMap<String, String>>,
}

impl CompletionContext {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { arguments: None }
    }

    /// Sets `arguments`.
    pub fn with_arguments(mut self, value: IndexMap<String, String>) -> Self {
        self.arguments = Some(value);
        self
    }
}

/// Parameters of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteRequestParams {
    /// The prompt or resource template.
    pub r#ref: CompleteReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Other argument values (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#ref: CompleteReference, argument: CompletionArgument) -> Self {
        Self {
            r#ref,
            argument,
            context: None,
            meta: None,
        }
    }

    /// Sets `context`.
    pub fn with_context(mut self, value: CompletionContext) -> Self {
        self.context = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Completion values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// Suggestions (at most 100).
    pub values: Vec<String>,
    /// Total number of suggestions available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more suggestions exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// A value with the required fields set and every optional field absent.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            total: None,
            has_more: None,
        }
    }

    /// Sets `total`.
    pub fn with_total(mut self, value: u64) -> Self {
        self.total = Some(value);
        self
    }

    /// Sets `hasMore`.
    pub fn with_has_more(mut self, value: bool) -> Self {
        self.has_more = Some(value);
        self
    }
}

/// Result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(completion: Completion) -> Self {
        Self {
            completion,
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

request! {
    /// `completion/complete`: asks for argument completions.
    CompleteRequest, CompletionCompleteMethod = "completion/complete",
    params: CompleteRequestParams, result: CompleteResult
}
