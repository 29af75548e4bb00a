//! `_meta`: an open map on almost every object, with typed accessors for the reserved
//! `io.modelcontextprotocol/*` keys (and `progressToken`).

use std::ops::{Deref, DerefMut};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ClientCapabilities, Implementation, LoggingLevel, ProgressToken, RelatedTaskMetadata};
use crate::de::error::ModelError;
use crate::de::from_value;
use crate::jsonrpc::RequestId;

/// The reserved `_meta` keys.
pub mod keys {
    /// The revision a 2026-07-28 client request speaks (required on client requests).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's `Implementation` on a 2026-07-28 client request.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The client's `ClientCapabilities` on a 2026-07-28 client request (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The log level a 2026-07-28 client asks for (replaces `logging/setLevel`).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's `Implementation` on a 2026-07-28 result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The `subscriptions/listen` request id a 2026-07-28 notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The task a 2025-11-25 message relates to (`RelatedTaskMetadata`).
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// The token progress notifications for a request refer to.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// The `_meta` object: any keys, kept as sent, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meta(pub Map<String, Value>);

impl Deref for Meta {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for Meta {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl From<Map<String, Value>> for Meta {
    fn from(map: Map<String, Value>) -> Self {
        Meta(map)
    }
}

impl Meta {
    /// An empty `_meta`.
    pub fn new() -> Self {
        Meta::default()
    }

    /// Reads key `key` as `T`; `Ok(None)` when absent, an error (with the key in its path) when
    /// present but of the wrong shape.
    pub fn get_as<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ModelError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(v) => from_value(v.clone())
                .map(Some)
                .map_err(|e| e.under_key(key)),
        }
    }

    /// Sets key `key` to the JSON form of `value` (replacing any previous value).
    pub fn set(&mut self, key: &str, value: impl Serialize) -> &mut Self {
        // Our model types always serialize to JSON; a failure would be a bug in this crate.
        let json = serde_json::to_value(value).unwrap_or(Value::Null);
        self.0.insert(key.to_owned(), json);
        self
    }

    /// `io.modelcontextprotocol/protocolVersion`, if present and a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.0.get(keys::PROTOCOL_VERSION).and_then(Value::as_str)
    }

    /// Sets `io.modelcontextprotocol/protocolVersion`.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.set_protocol_version(version);
        self
    }

    /// Sets `io.modelcontextprotocol/protocolVersion` in place.
    pub fn set_protocol_version(&mut self, version: impl Into<String>) -> &mut Self {
        self.0.insert(
            keys::PROTOCOL_VERSION.to_owned(),
            Value::String(version.into()),
        );
        self
    }

    /// `io.modelcontextprotocol/clientInfo`.
    pub fn client_info(&self) -> Result<Option<Implementation>, ModelError> {
        self.get_as(keys::CLIENT_INFO)
    }

    /// Sets `io.modelcontextprotocol/clientInfo`.
    pub fn with_client_info(mut self, info: Implementation) -> Self {
        self.set_client_info(info);
        self
    }

    /// Sets `io.modelcontextprotocol/clientInfo` in place.
    pub fn set_client_info(&mut self, info: Implementation) -> &mut Self {
        self.set(keys::CLIENT_INFO, info)
    }

    /// `io.modelcontextprotocol/clientCapabilities`.
    pub fn client_capabilities(&self) -> Result<Option<ClientCapabilities>, ModelError> {
        self.get_as(keys::CLIENT_CAPABILITIES)
    }

    /// Sets `io.modelcontextprotocol/clientCapabilities`.
    pub fn with_client_capabilities(mut self, caps: ClientCapabilities) -> Self {
        self.set_client_capabilities(caps);
        self
    }

    /// Sets `io.modelcontextprotocol/clientCapabilities` in place.
    pub fn set_client_capabilities(&mut self, caps: ClientCapabilities) -> &mut Self {
        self.set(keys::CLIENT_CAPABILITIES, caps)
    }

    /// `io.modelcontextprotocol/logLevel`.
    pub fn log_level(&self) -> Result<Option<LoggingLevel>, ModelError> {
        self.get_as(keys::LOG_LEVEL)
    }

    /// Sets `io.modelcontextprotocol/logLevel`.
    pub fn with_log_level(mut self, level: LoggingLevel) -> Self {
        self.set_log_level(level);
        self
    }

    /// Sets `io.modelcontextprotocol/logLevel` in place.
    pub fn set_log_level(&mut self, level: LoggingLevel) -> &mut Self {
        self.set(keys::LOG_LEVEL, level)
    }

    /// `io.modelcontextprotocol/serverInfo`.
    pub fn server_info(&self) -> Result<Option<Implementation>, ModelError> {
        self.get_as(keys::SERVER_INFO)
    }

    /// Sets `io.modelcontextprotocol/serverInfo`.
    pub fn with_server_info(mut self, info: Implementation) -> Self {
        self.set_server_info(info);
        self
    }

    /// Sets `io.modelcontextprotocol/serverInfo` in place.
    pub fn set_server_info(&mut self, info: Implementation) -> &mut Self {
        self.set(keys::SERVER_INFO, info)
    }

    /// `io.modelcontextprotocol/subscriptionId`.
    pub fn subscription_id(&self) -> Result<Option<RequestId>, ModelError> {
        self.get_as(keys::SUBSCRIPTION_ID)
    }

    /// Sets `io.modelcontextprotocol/subscriptionId`.
    pub fn with_subscription_id(mut self, id: RequestId) -> Self {
        self.set_subscription_id(id);
        self
    }

    /// Sets `io.modelcontextprotocol/subscriptionId` in place.
    pub fn set_subscription_id(&mut self, id: RequestId) -> &mut Self {
        self.set(keys::SUBSCRIPTION_ID, id)
    }

    /// `io.modelcontextprotocol/related-task`.
    pub fn related_task(&self) -> Result<Option<RelatedTaskMetadata>, ModelError> {
        self.get_as(keys::RELATED_TASK)
    }

    /// Sets `io.modelcontextprotocol/related-task`.
    pub fn with_related_task(mut self, task: RelatedTaskMetadata) -> Self {
        self.set_related_task(task);
        self
    }

    /// Sets `io.modelcontextprotocol/related-task` in place.
    pub fn set_related_task(&mut self, task: RelatedTaskMetadata) -> &mut Self {
        self.set(keys::RELATED_TASK, task)
    }

    /// `progressToken`.
    pub fn progress_token(&self) -> Result<Option<ProgressToken>, ModelError> {
        self.get_as(keys::PROGRESS_TOKEN)
    }

    /// Sets `progressToken`.
    pub fn with_progress_token(mut self, token: ProgressToken) -> Self {
        self.set_progress_token(token);
        self
    }

    /// Sets `progressToken` in place.
    pub fn set_progress_token(&mut self, token: ProgressToken) -> &mut Self {
        self.set(keys::PROGRESS_TOKEN, token)
    }
}

/// Request parameters, which all carry `_meta`: access to that slot.
pub trait ParamsMeta {
    /// The `_meta` of these parameters.
    fn meta(&self) -> Option<&Meta>;

    /// The `_meta` slot of these parameters, for adding or removing it.
    fn meta_slot(&mut self) -> &mut Option<Meta>;
}

/// A request body's `params._meta`, as a proxy that restates or adds metadata needs it.
pub trait RequestMeta {
    /// The request's `params._meta`, if it has params and they carry one.
    fn meta(&self) -> Option<&Meta>;

    /// The request's `params._meta`, created empty where absent (with empty params, for a
    /// request whose params are optional and absent).
    fn meta_mut(&mut self) -> &mut Meta;

    /// Removes the request's `params._meta` and returns it; the params are otherwise left as
    /// they were (absent params stay absent).
    fn take_meta(&mut self) -> Option<Meta>;
}

/// [`ParamsMeta`] for parameter structs with a `meta` field.
macro_rules! params_meta {
    ($($ty:ident),+ $(,)?) => {
        $(
            impl ParamsMeta for super::$ty {
                fn meta(&self) -> Option<&Meta> {
                    self.meta.as_ref()
                }

                fn meta_slot(&mut self) -> &mut Option<Meta> {
                    &mut self.meta
                }
            }
        )+
    };
}

params_meta!(
    RequestParams,
    PaginatedRequestParams,
    CompleteRequestParams,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InitializeRequestParams,
    SetLevelRequestParams,
    GetPromptRequestParams,
    ReadResourceRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
    CreateMessageRequestParams,
    SubscriptionsListenRequestParams,
    TaskIdParams,
    UpdateTaskRequestParams,
    CallToolRequestParams,
);

impl ParamsMeta for super::ElicitRequestParams {
    fn meta(&self) -> Option<&Meta> {
        match self {
            Self::Form(p) => p.meta(),
            Self::Url(p) => p.meta(),
        }
    }

    fn meta_slot(&mut self) -> &mut Option<Meta> {
        match self {
            Self::Form(p) => p.meta_slot(),
            Self::Url(p) => p.meta_slot(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LoggingLevel, ModelErrorKind};
    use serde_json::json;

    #[test]
    fn request_meta_reads_and_creates_params_meta() {
        use crate::model::{
            CallToolRequest, CallToolRequestParams, ClientRequest, ElicitRequest,
            ElicitRequestParams, ElicitRequestURLParams, ListToolsRequest, ServerRequest,
        };

        // Optional params, absent: created empty, then `_meta` in them.
        let mut list = ClientRequest::ListTools(ListToolsRequest::new());
        assert!(list.meta().is_none());
        list.meta_mut().insert("k".into(), json!(1));
        assert_eq!(
            serde_json::to_value(&list).unwrap(),
            json!({"method": "tools/list", "params": {"_meta": {"k": 1}}})
        );
        assert_eq!(list.meta().unwrap().get("k"), Some(&json!(1)));

        // Required params with a `_meta`: the same map, added to at its end.
        let mut call: CallToolRequest = serde_json::from_value(json!({
            "method": "tools/call",
            "params": {"name": "t", "_meta": {"progressToken": 3}}
        }))
        .unwrap();
        call.meta_mut().insert("z".into(), json!("x"));
        let keys: Vec<&String> = call.meta().unwrap().keys().collect();
        assert_eq!(keys, ["progressToken", "z"]);
        let fresh = CallToolRequest::new(CallToolRequestParams::new("t"));
        assert!(fresh.meta().is_none());

        // Union params (elicitation in URL mode) and server requests dispatch by member.
        let url = ElicitRequestURLParams::new("m", "https://example.com");
        let mut elicit = ServerRequest::Elicit(ElicitRequest::new(ElicitRequestParams::Url(url)));
        assert!(elicit.meta().is_none());
        elicit.meta_mut().insert("a".into(), json!(true));
        assert_eq!(
            serde_json::to_value(&elicit).unwrap()["params"]["_meta"],
            json!({"a": true})
        );
    }

    #[test]
    fn take_meta_removes_only_the_meta() {
        use crate::model::{ClientRequest, ListToolsRequest};

        // Absent params stay absent; present params keep their other members.
        let mut list = ClientRequest::ListTools(ListToolsRequest::new());
        assert!(list.take_meta().is_none());
        assert_eq!(
            serde_json::to_value(&list).unwrap(),
            json!({"method": "tools/list"})
        );
        let mut call: ClientRequest = serde_json::from_value(json!({
            "method": "tools/call",
            "params": {"name": "t", "_meta": {"progressToken": 3, "x/y": true}}
        }))
        .unwrap();
        let taken = call.take_meta().unwrap();
        assert_eq!(
            serde_json::to_value(&taken).unwrap(),
            json!({"progressToken": 3, "x/y": true})
        );
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"method": "tools/call", "params": {"name": "t"}})
        );
        assert!(call.take_meta().is_none());
    }

    #[test]
    fn reserved_keys_read_and_write() {
        let meta = Meta::new()
            .with_protocol_version("2026-07-28")
            .with_client_info(Implementation::new("c", "1"))
            .with_log_level(LoggingLevel::Debug)
            .with_progress_token(ProgressToken::Integer(5));
        let json = serde_json::to_value(&meta).unwrap();
        assert_eq!(
            json,
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "debug",
                "progressToken": 5
            })
        );
        let back: Meta = serde_json::from_value(json).unwrap();
        assert_eq!(back.protocol_version(), Some("2026-07-28"));
        assert_eq!(back.client_info().unwrap().unwrap().name, "c");
        assert_eq!(back.log_level().unwrap(), Some(LoggingLevel::Debug));
        assert_eq!(
            back.progress_token().unwrap(),
            Some(ProgressToken::Integer(5))
        );
        assert_eq!(back.server_info().unwrap(), None);
    }

    #[test]
    fn in_place_setters_write_the_reserved_keys() {
        let mut meta = Meta::new();
        meta.set_protocol_version("2026-07-28")
            .set_log_level(LoggingLevel::Debug)
            .set_progress_token(ProgressToken::from(7))
            .set_client_info(Implementation::new("c", "1"));
        assert_eq!(meta.protocol_version(), Some("2026-07-28"));
        assert_eq!(meta.log_level().unwrap(), Some(LoggingLevel::Debug));
        assert_eq!(meta.progress_token().unwrap(), Some(ProgressToken::from(7)));
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/logLevel": "debug",
                "progressToken": 7,
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}
            })
        );
    }

    #[test]
    fn a_malformed_reserved_value_is_a_located_error() {
        let meta: Meta = serde_json::from_value(json!({
            "io.modelcontextprotocol/clientInfo": {"name": 3}
        }))
        .unwrap();
        let err = meta.client_info().unwrap_err();
        assert_eq!(
            err.path.pointer(),
            "/io.modelcontextprotocol~1clientInfo/name"
        );
        assert!(matches!(err.kind, ModelErrorKind::Invalid(_)));
    }
}
