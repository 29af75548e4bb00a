//! Small shared constructs: roles, annotations, icons, implementation info, progress tokens, paginated and plain params.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::Meta;

/// Who a message or content is for or from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// Which colour scheme an icon is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// A progress token: a string or an integer chosen by the requester.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProgressToken {
    /// A string token.
    String(String),
    /// An integer token.
    Integer(i64),
}

crate::jsonrpc::string_or_integer!(ProgressToken, "a progress token");

/// Hints attached to content and resources.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the content is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most); kept as the JSON number sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Number>,
    /// When the content was last modified, ISO 8601 (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Annotations {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            audience: None,
            priority: None,
            last_modified: None,
        }
    }

    /// Sets `audience`.
    pub fn with_audience(mut self, value: Vec<Role>) -> Self {
        self.audience = Some(value);
        self
    }

    /// Sets `priority`.
    pub fn with_priority(mut self, value: Number) -> Self {
        self.priority = Some(value);
        self
    }

    /// Sets `lastModified`.
    pub fn with_last_modified(mut self, value: impl Into<String>) -> Self {
        self.last_modified = Some(value.into());
        self
    }
}

/// An icon a client may show for a server, tool, prompt or resource (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// URI of the icon (https or data URI).
    pub src: String,
    /// MIME type of the icon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes the icon is available in, e.g. `"48x48"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The colour scheme the icon is made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// A value with the required fields set and every optional field absent.
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }

    /// Sets `mimeType`.
    pub fn with_mime_type(mut self, value: impl Into<String>) -> Self {
        self.mime_type = Some(value.into());
        self
    }

    /// Sets `sizes`.
    pub fn with_sizes(mut self, value: Vec<String>) -> Self {
        self.sizes = Some(value);
        self
    }

    /// Sets `theme`.
    pub fn with_theme(mut self, value: IconTheme) -> Self {
        self.theme = Some(value);
        self
    }
}

/// Name and version of an MCP client or server implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the implementation does (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Website of the implementation (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// A value with the required fields set and every optional field absent.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
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

    /// Sets `icons`.
    pub fn with_icons(mut self, value: Vec<Icon>) -> Self {
        self.icons = Some(value);
        self
    }

    /// Sets `websiteUrl`.
    pub fn with_website_url(mut self, value: impl Into<String>) -> Self {
        self.website_url = Some(value.into());
        self
    }
}

/// Parameters of a request that carries nothing but `_meta` (`ping`, `server/discover`, `roots/list`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RequestParams {
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl RequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { meta: None }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of a notification that carries nothing but `_meta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NotificationParams {
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl NotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self { meta: None }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of a paginated list request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaginatedRequestParams {
    /// Opaque cursor from the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl PaginatedRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            cursor: None,
            meta: None,
        }
    }

    /// Sets `cursor`.
    pub fn with_cursor(mut self, value: impl Into<String>) -> Self {
        self.cursor = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}
