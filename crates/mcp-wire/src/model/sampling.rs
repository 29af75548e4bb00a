//! Sampling: messages, model preferences, tool use in sampling; `sampling/createMessage`.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{Meta, Role, SamplingMessageContentBlock, TaskMetadata, Tool};

/// The content of a sampling message or result: one block, or (2025-11-25+) a list of blocks.
#[derive(Debug, Clone, PartialEq, Describe)]
#[non_exhaustive]
pub enum SamplingContent {
    /// A single block (every revision).
    Single(SamplingMessageContentBlock),
    /// Several blocks (2025-11-25+).
    Multiple(Vec<SamplingMessageContentBlock>),
}

impl Serialize for SamplingContent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplingContent::Single(b) => b.serialize(s),
            SamplingContent::Multiple(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::deserialize_one_or_many(d, SamplingContent::Single, SamplingContent::Multiple)
    }
}

impl<T: Into<SamplingMessageContentBlock>> From<T> for SamplingContent {
    fn from(block: T) -> Self {
        SamplingContent::Single(block.into())
    }
}

impl SamplingContent {
    /// The blocks, whether one or many.
    pub fn blocks(&self) -> &[SamplingMessageContentBlock] {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b),
            SamplingContent::Multiple(v) => v,
        }
    }
}

/// Which servers' context a sampling request asks the client to include.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from the requesting server (deprecated 2025-11-25).
    ThisServer,
    /// Context from all servers (deprecated 2025-11-25).
    AllServers,
}

/// How the model should choose tools during sampling (2025-11-25+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call tools.
    None,
}

/// A message sent to or received from a language model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// One block, or a list of blocks (2025-11-25+).
    pub content: SamplingContent,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A value with the required fields set and every optional field absent.
    pub fn new(role: Role, content: SamplingContent) -> Self {
        Self {
            role,
            content,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// The server's preferences for model selection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<Number>,
    /// How much speed matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<Number>,
    /// How much capability matters, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<Number>,
}

impl ModelPreferences {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            hints: None,
            cost_priority: None,
            speed_priority: None,
            intelligence_priority: None,
        }
    }

    /// Sets `hints`.
    pub fn with_hints(mut self, value: Vec<ModelHint>) -> Self {
        self.hints = Some(value);
        self
    }

    /// Sets `costPriority`.
    pub fn with_cost_priority(mut self, value: Number) -> Self {
        self.cost_priority = Some(value);
        self
    }

    /// Sets `speedPriority`.
    pub fn with_speed_priority(mut self, value: Number) -> Self {
        self.speed_priority = Some(value);
        self
    }

    /// Sets `intelligencePriority`.
    pub fn with_intelligence_priority(mut self, value: Number) -> Self {
        self.intelligence_priority = Some(value);
        self
    }
}

/// A hint for model selection.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelHint {
    /// A (sub)string of a model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ModelHint {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { name: None }
    }

    /// Sets `name`.
    pub fn with_name(mut self, value: impl Into<String>) -> Self {
        self.name = Some(value.into());
        self
    }
}

/// How the model should use the offered tools (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolChoice {
    /// The choice mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

impl ToolChoice {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { mode: None }
    }

    /// Sets `mode`.
    pub fn with_mode(mut self, value: ToolChoiceMode) -> Self {
        self.mode = Some(value);
        self
    }
}

/// Parameters of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequestParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Maximum number of tokens to sample.
    pub max_tokens: i64,
    /// Optional system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature, kept as the JSON number sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// Tools the model may call (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model should use tools (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Asks for task-augmented execution (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: i64) -> Self {
        Self {
            messages,
            max_tokens,
            system_prompt: None,
            include_context: None,
            temperature: None,
            stop_sequences: None,
            metadata: None,
            model_preferences: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
        }
    }

    /// Sets `systemPrompt`.
    pub fn with_system_prompt(mut self, value: impl Into<String>) -> Self {
        self.system_prompt = Some(value.into());
        self
    }

    /// Sets `includeContext`.
    pub fn with_include_context(mut self, value: IncludeContext) -> Self {
        self.include_context = Some(value);
        self
    }

    /// Sets `temperature`.
    pub fn with_temperature(mut self, value: Number) -> Self {
        self.temperature = Some(value);
        self
    }

    /// Sets `stopSequences`.
    pub fn with_stop_sequences(mut self, value: Vec<String>) -> Self {
        self.stop_sequences = Some(value);
        self
    }

    /// Sets `metadata`.
    pub fn with_metadata(mut self, value: Map<String, Value>) -> Self {
        self.metadata = Some(value);
        self
    }

    /// Sets `modelPreferences`.
    pub fn with_model_preferences(mut self, value: ModelPreferences) -> Self {
        self.model_preferences = Some(value);
        self
    }

    /// Sets `tools`.
    pub fn with_tools(mut self, value: Vec<Tool>) -> Self {
        self.tools = Some(value);
        self
    }

    /// Sets `toolChoice`.
    pub fn with_tool_choice(mut self, value: ToolChoice) -> Self {
        self.tool_choice = Some(value);
        self
    }

    /// Sets `task`.
    pub fn with_task(mut self, value: TaskMetadata) -> Self {
        self.task = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of `sampling/createMessage` (single block, or several blocks with tools 2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who spoke (normally the assistant).
    pub role: Role,
    /// What the model produced.
    pub content: SamplingContent,
    /// Name of the model that produced it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or other).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(role: Role, content: SamplingContent, model: impl Into<String>) -> Self {
        Self {
            role,
            content,
            model: model.into(),
            stop_reason: None,
            meta: None,
        }
    }

    /// Sets `stopReason`.
    pub fn with_stop_reason(mut self, value: impl Into<String>) -> Self {
        self.stop_reason = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

request! {
    /// `sampling/createMessage`: the server asks the client to sample a language model.
    CreateMessageRequest, SamplingCreateMessageMethod = "sampling/createMessage",
    params: CreateMessageRequestParams, result: CreateMessageResult
}
