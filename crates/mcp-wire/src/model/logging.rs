//! Logging: levels, `logging/setLevel` and log message notifications.

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EmptyResult, Meta};

/// Severity of a log message (syslog levels).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Describe,
)]
#[serde(rename_all = "camelCase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

/// Parameters of `logging/setLevel` (handshake era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// The lowest level to send.
    pub level: LoggingLevel,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SetLevelRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(level: LoggingLevel) -> Self {
        Self { level, meta: None }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of `notifications/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Name of the logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl LoggingMessageNotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(level: LoggingLevel, data: Value) -> Self {
        Self {
            level,
            logger: None,
            data,
            meta: None,
        }
    }

    /// Sets `logger`.
    pub fn with_logger(mut self, value: impl Into<String>) -> Self {
        self.logger = Some(value.into());
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

request! {
    /// `logging/setLevel` (handshake era): sets the server's log level.
    SetLevelRequest, LoggingSetLevelMethod = "logging/setLevel",
    params: SetLevelRequestParams, result: EmptyResult
}

notification! {
    /// `notifications/message`: a log message from the server.
    LoggingMessageNotification, LoggingMessageMethod = "notifications/message",
    params: LoggingMessageNotificationParams
}
