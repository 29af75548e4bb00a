//! Session lifecycle: `initialize`/`initialized`/`ping` (handshake era), `server/discover` (2026-07-28), progress and cancellation.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::{
    CacheScope, ClientCapabilities, EmptyResult, Implementation, Meta, NotificationParams,
    ProgressToken, RequestParams, ResultType, ServerCapabilities,
};
use crate::jsonrpc::RequestId;

/// Parameters of `initialize` (handshake era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// The newest revision the client supports (any string: negotiation decides).
    pub protocol_version: String,
    /// What the client supports (boxed: it is most of the value's size, and requests are
    /// moved while they are parsed and routed).
    pub capabilities: Box<ClientCapabilities>,
    /// Who the client is.
    pub client_info: Implementation,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities: Box::new(capabilities),
            client_info,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of `initialize` (handshake era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The revision the server chose.
    pub protocol_version: String,
    /// What the server supports (boxed: it is most of the value's size, and results are
    /// moved while they are parsed and routed).
    pub capabilities: Box<ServerCapabilities>,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities: Box::new(capabilities),
            server_info,
            instructions: None,
            meta: None,
        }
    }

    /// Sets `instructions`.
    pub fn with_instructions(mut self, value: impl Into<String>) -> Self {
        self.instructions = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Result of `server/discover` (2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// The revisions the server speaks.
    pub supported_versions: Vec<String>,
    /// What the server supports (boxed: it is most of the value's size, and results are
    /// moved while they are parsed and routed).
    pub capabilities: Box<ServerCapabilities>,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
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

impl DiscoverResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(supported_versions: Vec<String>, capabilities: ServerCapabilities) -> Self {
        Self {
            supported_versions,
            capabilities: Box::new(capabilities),
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `instructions`.
    pub fn with_instructions(mut self, value: impl Into<String>) -> Self {
        self.instructions = Some(value.into());
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

/// Parameters of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta`.
    pub progress_token: ProgressToken,
    /// Progress so far, kept as the JSON number sent.
    pub progress: Number,
    /// Total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Number>,
    /// Human-readable progress message (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ProgressNotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(progress_token: ProgressToken, progress: Number) -> Self {
        Self {
            progress_token,
            progress,
            total: None,
            message: None,
            meta: None,
        }
    }

    /// Sets `total`.
    pub fn with_total(mut self, value: Number) -> Self {
        self.total = Some(value);
        self
    }

    /// Sets `message`.
    pub fn with_message(mut self, value: impl Into<String>) -> Self {
        self.message = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of `notifications/cancelled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The request to cancel (required before 2025-11-25 and from 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CancelledNotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            request_id: None,
            reason: None,
            meta: None,
        }
    }

    /// Sets `requestId`.
    pub fn with_request_id(mut self, value: RequestId) -> Self {
        self.request_id = Some(value);
        self
    }

    /// Sets `reason`.
    pub fn with_reason(mut self, value: impl Into<String>) -> Self {
        self.reason = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

request! {
    /// `initialize` (handshake era): opens a session and negotiates the revision.
    InitializeRequest, InitializeMethod = "initialize",
    params: InitializeRequestParams, result: InitializeResult
}

request! {
    /// `ping` (handshake era): checks that the peer is alive; either side may send it.
    PingRequest, PingMethod = "ping",
    params?: RequestParams, result: EmptyResult
}

request! {
    /// `server/discover` (2026-07-28): asks for the server's versions and capabilities.
    DiscoverRequest, ServerDiscoverMethod = "server/discover",
    params: RequestParams, result: DiscoverResult
}

notification! {
    /// `notifications/initialized` (handshake era): the client finished initializing.
    InitializedNotification, InitializedMethod = "notifications/initialized",
    params?: NotificationParams
}

notification! {
    /// `notifications/progress`: progress of a long-running request.
    ProgressNotification, ProgressMethod = "notifications/progress",
    params: ProgressNotificationParams
}

notification! {
    /// `notifications/cancelled`: the sender cancels one of its requests.
    CancelledNotification, CancelledMethod = "notifications/cancelled",
    params: CancelledNotificationParams
}
