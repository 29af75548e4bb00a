//! Client and server capabilities. Every capability object is open: unknown keys (and `experimental`/`extensions`) are kept as sent.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a client supports. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The client exposes roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample a language model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can ask the user for input (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Task support (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TasksCapability>,
    /// Protocol extensions by identifier (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClientCapabilities {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            experimental: None,
            roots: None,
            sampling: None,
            elicitation: None,
            tasks: None,
            extensions: None,
            extra: Map::new(),
        }
    }

    /// Sets `experimental`.
    pub fn with_experimental(mut self, value: Map<String, Value>) -> Self {
        self.experimental = Some(value);
        self
    }

    /// Sets `roots`.
    pub fn with_roots(mut self, value: RootsCapability) -> Self {
        self.roots = Some(value);
        self
    }

    /// Sets `sampling`.
    pub fn with_sampling(mut self, value: SamplingCapability) -> Self {
        self.sampling = Some(value);
        self
    }

    /// Sets `elicitation`.
    pub fn with_elicitation(mut self, value: ElicitationCapability) -> Self {
        self.elicitation = Some(value);
        self
    }

    /// Sets `tasks`.
    pub fn with_tasks(mut self, value: TasksCapability) -> Self {
        self.tasks = Some(value);
        self
    }

    /// Sets `extensions`.
    pub fn with_extensions(mut self, value: Map<String, Value>) -> Self {
        self.extensions = Some(value);
        self
    }
}

/// What a server supports. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Non-standard capabilities, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The server sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// The server completes arguments (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Task support (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TasksCapability>,
    /// Protocol extensions by identifier (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ServerCapabilities {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            experimental: None,
            logging: None,
            completions: None,
            prompts: None,
            resources: None,
            tools: None,
            tasks: None,
            extensions: None,
            extra: Map::new(),
        }
    }

    /// Sets `experimental`.
    pub fn with_experimental(mut self, value: Map<String, Value>) -> Self {
        self.experimental = Some(value);
        self
    }

    /// Sets `logging`.
    pub fn with_logging(mut self, value: Map<String, Value>) -> Self {
        self.logging = Some(value);
        self
    }

    /// Sets `completions`.
    pub fn with_completions(mut self, value: Map<String, Value>) -> Self {
        self.completions = Some(value);
        self
    }

    /// Sets `prompts`.
    pub fn with_prompts(mut self, value: PromptsCapability) -> Self {
        self.prompts = Some(value);
        self
    }

    /// Sets `resources`.
    pub fn with_resources(mut self, value: ResourcesCapability) -> Self {
        self.resources = Some(value);
        self
    }

    /// Sets `tools`.
    pub fn with_tools(mut self, value: ToolsCapability) -> Self {
        self.tools = Some(value);
        self
    }

    /// Sets `tasks`.
    pub fn with_tasks(mut self, value: TasksCapability) -> Self {
        self.tasks = Some(value);
        self
    }

    /// Sets `extensions`.
    pub fn with_extensions(mut self, value: Map<String, Value>) -> Self {
        self.extensions = Some(value);
        self
    }
}

/// The client's roots capability. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootsCapability {
    /// The client notifies when roots change (handshake era).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl RootsCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            list_changed: None,
            extra: Map::new(),
        }
    }

    /// Sets `listChanged`.
    pub fn with_list_changed(mut self, value: bool) -> Self {
        self.list_changed = Some(value);
        self
    }
}

/// The client's sampling capability. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingCapability {
    /// Supports `includeContext` (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Supports tools in sampling (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Map<String, Value>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SamplingCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            context: None,
            tools: None,
            extra: Map::new(),
        }
    }

    /// Sets `context`.
    pub fn with_context(mut self, value: Map<String, Value>) -> Self {
        self.context = Some(value);
        self
    }

    /// Sets `tools`.
    pub fn with_tools(mut self, value: Map<String, Value>) -> Self {
        self.tools = Some(value);
        self
    }
}

/// The client's elicitation capability (empty means form mode). Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Supports form mode (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    /// Supports URL mode (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            form: None,
            url: None,
            extra: Map::new(),
        }
    }

    /// Sets `form`.
    pub fn with_form(mut self, value: Map<String, Value>) -> Self {
        self.form = Some(value);
        self
    }

    /// Sets `url`.
    pub fn with_url(mut self, value: Map<String, Value>) -> Self {
        self.url = Some(value);
        self
    }
}

/// Task support (2025-11-25): which task operations and which requests may be tasks. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TasksCapability {
    /// Supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Map<String, Value>>,
    /// Supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Map<String, Value>>,
    /// Which requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<Map<String, Value>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TasksCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            list: None,
            cancel: None,
            requests: None,
            extra: Map::new(),
        }
    }

    /// Sets `list`.
    pub fn with_list(mut self, value: Map<String, Value>) -> Self {
        self.list = Some(value);
        self
    }

    /// Sets `cancel`.
    pub fn with_cancel(mut self, value: Map<String, Value>) -> Self {
        self.cancel = Some(value);
        self
    }

    /// Sets `requests`.
    pub fn with_requests(mut self, value: Map<String, Value>) -> Self {
        self.requests = Some(value);
        self
    }
}

/// The server's prompts capability. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// The server notifies when the prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PromptsCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            list_changed: None,
            extra: Map::new(),
        }
    }

    /// Sets `listChanged`.
    pub fn with_list_changed(mut self, value: bool) -> Self {
        self.list_changed = Some(value);
        self
    }
}

/// The server's resources capability. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// The server supports subscriptions to resource updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourcesCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            subscribe: None,
            list_changed: None,
            extra: Map::new(),
        }
    }

    /// Sets `subscribe`.
    pub fn with_subscribe(mut self, value: bool) -> Self {
        self.subscribe = Some(value);
        self
    }

    /// Sets `listChanged`.
    pub fn with_list_changed(mut self, value: bool) -> Self {
        self.list_changed = Some(value);
        self
    }
}

/// The server's tools capability. Open: unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// The server notifies when the tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolsCapability {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            list_changed: None,
            extra: Map::new(),
        }
    }

    /// Sets `listChanged`.
    pub fn with_list_changed(mut self, value: bool) -> Self {
        self.list_changed = Some(value);
        self
    }
}
