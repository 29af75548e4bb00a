//! `subscriptions/listen` and its acknowledgement (2026-07-28).

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Meta, ResultType};

/// Which notifications a `subscriptions/listen` stream should carry. Open: extension keys are kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// Prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// Resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// Tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// URIs whose updates to deliver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SubscriptionFilter {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            prompts_list_changed: None,
            resources_list_changed: None,
            tools_list_changed: None,
            resource_subscriptions: None,
            extra: Map::new(),
        }
    }

    /// Sets `promptsListChanged`.
    pub fn with_prompts_list_changed(mut self, value: bool) -> Self {
        self.prompts_list_changed = Some(value);
        self
    }

    /// Sets `resourcesListChanged`.
    pub fn with_resources_list_changed(mut self, value: bool) -> Self {
        self.resources_list_changed = Some(value);
        self
    }

    /// Sets `toolsListChanged`.
    pub fn with_tools_list_changed(mut self, value: bool) -> Self {
        self.tools_list_changed = Some(value);
        self
    }

    /// Sets `resourceSubscriptions`.
    pub fn with_resource_subscriptions(mut self, value: Vec<String>) -> Self {
        self.resource_subscriptions = Some(value);
        self
    }
}

/// Parameters of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    pub notifications: SubscriptionFilter,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscriptionsListenRequestParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(notifications: SubscriptionFilter) -> Self {
        Self {
            notifications,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// What the server will actually deliver.
    pub notifications: SubscriptionFilter,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscriptionsAcknowledgedNotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(notifications: SubscriptionFilter) -> Self {
        Self {
            notifications,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Final result of `subscriptions/listen`, sent when the stream closes gracefully.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscriptionsListenResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
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
    /// `subscriptions/listen` (2026-07-28): opens a notification stream.
    SubscriptionsListenRequest, SubscriptionsListenMethod = "subscriptions/listen",
    params: SubscriptionsListenRequestParams, result: SubscriptionsListenResult
}

notification! {
    /// `notifications/subscriptions/acknowledged` (2026-07-28): the stream is open.
    SubscriptionsAcknowledgedNotification, SubscriptionsAcknowledgedMethod = "notifications/subscriptions/acknowledged",
    params: SubscriptionsAcknowledgedNotificationParams
}
