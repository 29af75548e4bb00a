//! Content blocks: text, image, audio, resource links, embedded resources, and the sampling-only tool use/result blocks.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Annotations, Icon, Meta, ResourceContents};

tag!(
    /// The `type` literal `text`.
    TextType = "text"
);
tag!(
    /// The `type` literal `image`.
    ImageType = "image"
);
tag!(
    /// The `type` literal `audio`.
    AudioType = "audio"
);
tag!(
    /// The `type` literal `resource_link`.
    ResourceLinkType = "resource_link"
);
tag!(
    /// The `type` literal `resource`.
    EmbeddedResourceType = "resource"
);
tag!(
    /// The `type` literal `tool_use`.
    ToolUseType = "tool_use"
);
tag!(
    /// The `type` literal `tool_result`.
    ToolResultType = "tool_result"
);

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    /// The `type` discriminator, `"text"`.
    pub r#type: TextType,
    /// The text.
    pub text: String,
    /// Hints for the client about audience and priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// A value with the required fields set and every optional field absent.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            r#type: TextType,
            text: text.into(),
            annotations: None,
            meta: None,
        }
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        self.annotations = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Image content, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// The `type` discriminator, `"image"`.
    pub r#type: ImageType,
    /// Base64-encoded image data.
    pub data: String,
    /// MIME type of the image.
    pub mime_type: String,
    /// Hints for the client about audience and priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ImageContent {
    /// A value with the required fields set and every optional field absent.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            r#type: ImageType,
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        self.annotations = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Audio content, base64-encoded (2025-03-26+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// The `type` discriminator, `"audio"`.
    pub r#type: AudioType,
    /// Base64-encoded audio data.
    pub data: String,
    /// MIME type of the audio.
    pub mime_type: String,
    /// Hints for the client about audience and priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl AudioContent {
    /// A value with the required fields set and every optional field absent.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            r#type: AudioType,
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        self.annotations = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// A link to a resource the client may read (2025-06-18+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The `type` discriminator, `"resource_link"`.
    pub r#type: ResourceLinkType,
    /// URI of the resource.
    pub uri: String,
    /// Programmatic name of the resource.
    pub name: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client about audience and priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for display (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceLink {
    /// A value with the required fields set and every optional field absent.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            r#type: ResourceLinkType,
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
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

    /// Sets `mimeType`.
    pub fn with_mime_type(mut self, value: impl Into<String>) -> Self {
        self.mime_type = Some(value.into());
        self
    }

    /// Sets `size`.
    pub fn with_size(mut self, value: u64) -> Self {
        self.size = Some(value);
        self
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        self.annotations = Some(value);
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

/// The contents of a resource, embedded in a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The `type` discriminator, `"resource"`.
    pub r#type: EmbeddedResourceType,
    /// The embedded contents (text or blob).
    pub resource: ResourceContents,
    /// Hints for the client about audience and priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmbeddedResource {
    /// A value with the required fields set and every optional field absent.
    pub fn new(resource: ResourceContents) -> Self {
        Self {
            r#type: EmbeddedResourceType,
            resource,
            annotations: None,
            meta: None,
        }
    }

    /// Sets `annotations`.
    pub fn with_annotations(mut self, value: Annotations) -> Self {
        self.annotations = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// A tool call requested by the model during sampling (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUseContent {
    /// The `type` discriminator, `"tool_use"`.
    pub r#type: ToolUseType,
    /// Identifier the matching `tool_result` refers to.
    pub id: String,
    /// Name of the tool to call.
    pub name: String,
    /// Arguments for the tool (an open JSON object).
    pub input: Map<String, Value>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolUseContent {
    /// A value with the required fields set and every optional field absent.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Map<String, Value>) -> Self {
        Self {
            r#type: ToolUseType,
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// The result of a tool call, fed back to the model during sampling (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The `type` discriminator, `"tool_result"`.
    pub r#type: ToolResultType,
    /// The `id` of the `tool_use` block this answers.
    pub tool_use_id: String,
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result (any JSON value from 2026-07-28, an object before).
    #[serde(
        default,
        deserialize_with = "crate::de::keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolResultContent {
    /// A value with the required fields set and every optional field absent.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        Self {
            r#type: ToolResultType,
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
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

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

tagged_union! {
    /// A content block of a tool result, prompt message or embedded content, tagged on `type`.
    pub enum ContentBlock on "type" {
        /// `text`
        Text(TextContent) = "text",
        /// `image`
        Image(ImageContent) = "image",
        /// `audio` (2025-03-26+)
        Audio(AudioContent) = "audio",
        /// `resource_link` (2025-06-18+)
        ResourceLink(ResourceLink) = "resource_link",
        /// `resource`
        Resource(EmbeddedResource) = "resource",
    }
}

tagged_union! {
    /// A content block of a sampling message, tagged on `type` (tool use/result 2025-11-25+).
    pub enum SamplingMessageContentBlock on "type" {
        /// `text`
        Text(TextContent) = "text",
        /// `image`
        Image(ImageContent) = "image",
        /// `audio` (2025-03-26+)
        Audio(AudioContent) = "audio",
        /// `tool_use` (2025-11-25+)
        ToolUse(ToolUseContent) = "tool_use",
        /// `tool_result` (2025-11-25+)
        ToolResult(ToolResultContent) = "tool_result",
    }
}

impl From<&str> for TextContent {
    fn from(text: &str) -> Self {
        TextContent::new(text)
    }
}

impl From<String> for TextContent {
    fn from(text: String) -> Self {
        TextContent::new(text)
    }
}

impl From<&str> for ContentBlock {
    fn from(text: &str) -> Self {
        ContentBlock::Text(text.into())
    }
}

impl From<String> for ContentBlock {
    fn from(text: String) -> Self {
        ContentBlock::Text(text.into())
    }
}

impl From<&str> for SamplingMessageContentBlock {
    fn from(text: &str) -> Self {
        SamplingMessageContentBlock::Text(text.into())
    }
}

impl ContentBlock {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An `image` block: base64 `data` of `mime_type` (e.g. `image/png`).
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An `audio` block (2025-03-26+): base64 `data` of `mime_type` (e.g. `audio/wav`).
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// A `resource_link` block (2025-06-18+) to `uri`, called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink::new(uri, name))
    }

    /// A `resource` block embedding `resource`.
    pub fn resource(resource: ResourceContents) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(resource))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}
