//! Checks a frame against the generated types of one revision (`mcp_types::v2025_06_18::…`):
//! the request or notification definition for the whole frame, the result definition for a
//! response's `result`. The name lists below are the method-level definitions of each
//! revision's method tables; a test keeps them equal to the generated facts.

use mcp_types::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::check::FrameError;

/// Deserializes `value` as `T`; a failure becomes a [`FrameError`] at the failing path.
fn check<T: DeserializeOwned>(name: &str, value: &Value, prefix: &str) -> Result<(), FrameError> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(_) => Ok(()),
        Err(e) => {
            let mut at = mcp_types::JsonPath::root();
            for seg in e.path().iter() {
                match seg {
                    serde_path_to_error::Segment::Seq { index } => at = at.index(*index),
                    serde_path_to_error::Segment::Map { key } => at = at.key(key.as_str()),
                    serde_path_to_error::Segment::Enum { .. }
                    | serde_path_to_error::Segment::Unknown => {}
                }
            }
            let at = format!("{prefix}{}", at.pointer());
            Err(FrameError::new(
                at,
                format!("{name} ({}): {}", "generated type", e.inner()),
            ))
        }
    }
}

macro_rules! revision_types {
    ($(($version:ident, $module:ident, [$($name:ident),* $(,)?])),* $(,)?) => {
        /// Checks `value` as the generated type `name` of `version`; `None` when that revision
        /// has no generated method-level type of that name.
        pub fn check_named(
            version: ProtocolVersion,
            name: &str,
            value: &Value,
            prefix: &str,
        ) -> Option<Result<(), FrameError>> {
            match version {
                $(ProtocolVersion::$version => match name {
                    $(stringify!($name) => Some(check::<mcp_types::$module::$name>(name, value, prefix)),)*
                    _ => None,
                },)*
            }
        }

        /// The method-level definitions [`check_named`] knows, per revision.
        pub fn known_names(version: ProtocolVersion) -> &'static [&'static str] {
            match version {
                $(ProtocolVersion::$version => &[$(stringify!($name)),*],)*
            }
        }
    };
}

revision_types! {
    (V2024_11_05, v2024_11_05, [
        CallToolRequest,
        CallToolResult,
        CancelledNotification,
        CompleteRequest,
        CompleteResult,
        CreateMessageRequest,
        CreateMessageResult,
        EmptyResult,
        GetPromptRequest,
        GetPromptResult,
        InitializeRequest,
        InitializeResult,
        InitializedNotification,
        ListPromptsRequest,
        ListPromptsResult,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourcesRequest,
        ListResourcesResult,
        ListRootsRequest,
        ListRootsResult,
        ListToolsRequest,
        ListToolsResult,
        LoggingMessageNotification,
        PingRequest,
        ProgressNotification,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        RootsListChangedNotification,
        SetLevelRequest,
        SubscribeRequest,
        ToolListChangedNotification,
        UnsubscribeRequest,
    ]),
    (V2025_03_26, v2025_03_26, [
        CallToolRequest,
        CallToolResult,
        CancelledNotification,
        CompleteRequest,
        CompleteResult,
        CreateMessageRequest,
        CreateMessageResult,
        EmptyResult,
        GetPromptRequest,
        GetPromptResult,
        InitializeRequest,
        InitializeResult,
        InitializedNotification,
        ListPromptsRequest,
        ListPromptsResult,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourcesRequest,
        ListResourcesResult,
        ListRootsRequest,
        ListRootsResult,
        ListToolsRequest,
        ListToolsResult,
        LoggingMessageNotification,
        PingRequest,
        ProgressNotification,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        RootsListChangedNotification,
        SetLevelRequest,
        SubscribeRequest,
        ToolListChangedNotification,
        UnsubscribeRequest,
    ]),
    (V2025_06_18, v2025_06_18, [
        CallToolRequest,
        CallToolResult,
        CancelledNotification,
        CompleteRequest,
        CompleteResult,
        CreateMessageRequest,
        CreateMessageResult,
        ElicitRequest,
        ElicitResult,
        EmptyResult,
        GetPromptRequest,
        GetPromptResult,
        InitializeRequest,
        InitializeResult,
        InitializedNotification,
        ListPromptsRequest,
        ListPromptsResult,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourcesRequest,
        ListResourcesResult,
        ListRootsRequest,
        ListRootsResult,
        ListToolsRequest,
        ListToolsResult,
        LoggingMessageNotification,
        PingRequest,
        ProgressNotification,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        RootsListChangedNotification,
        SetLevelRequest,
        SubscribeRequest,
        ToolListChangedNotification,
        UnsubscribeRequest,
    ]),
    (V2025_11_25, v2025_11_25, [
        CallToolRequest,
        CallToolResult,
        CancelTaskRequest,
        CancelTaskResult,
        CancelledNotification,
        CompleteRequest,
        CompleteResult,
        CreateMessageRequest,
        CreateMessageResult,
        ElicitRequest,
        ElicitResult,
        ElicitationCompleteNotification,
        EmptyResult,
        GetPromptRequest,
        GetPromptResult,
        GetTaskPayloadRequest,
        GetTaskPayloadResult,
        GetTaskRequest,
        GetTaskResult,
        InitializeRequest,
        InitializeResult,
        InitializedNotification,
        ListPromptsRequest,
        ListPromptsResult,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourcesRequest,
        ListResourcesResult,
        ListRootsRequest,
        ListRootsResult,
        ListTasksRequest,
        ListTasksResult,
        ListToolsRequest,
        ListToolsResult,
        LoggingMessageNotification,
        PingRequest,
        ProgressNotification,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        RootsListChangedNotification,
        SetLevelRequest,
        SubscribeRequest,
        TaskStatusNotification,
        ToolListChangedNotification,
        UnsubscribeRequest,
    ]),
    (V2026_07_28, v2026_07_28, [
        CallToolRequest,
        CallToolResult,
        CancelledNotification,
        CompleteRequest,
        CompleteResult,
        DiscoverRequest,
        DiscoverResult,
        GetPromptRequest,
        GetPromptResult,
        InputRequiredResult,
        ListPromptsRequest,
        ListPromptsResult,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourcesRequest,
        ListResourcesResult,
        ListToolsRequest,
        ListToolsResult,
        LoggingMessageNotification,
        ProgressNotification,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        SubscriptionsAcknowledgedNotification,
        SubscriptionsListenRequest,
        SubscriptionsListenResult,
        ToolListChangedNotification,
    ]),
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_types::facts;
    use serde_json::json;
    use std::collections::BTreeSet;

    #[test]
    fn the_name_lists_match_the_generated_method_tables() {
        for v in ProtocolVersion::ALL {
            let f = facts::revision(v);
            let mut want: BTreeSet<&str> = BTreeSet::new();
            for m in f
                .client_requests
                .iter()
                .chain(f.server_requests)
                .chain(f.client_notifications)
                .chain(f.server_notifications)
            {
                want.insert(m.type_name);
                want.extend(m.result);
            }
            if f.has_type("InputRequiredResult") {
                want.insert("InputRequiredResult");
            }
            let have: BTreeSet<&str> = known_names(v).iter().copied().collect();
            assert_eq!(have, want, "{v}");
        }
    }

    #[test]
    fn typed_checks_point_at_the_failing_member() {
        let v = ProtocolVersion::V2025_06_18;
        let ok = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}});
        assert_eq!(check_named(v, "CallToolRequest", &ok, ""), Some(Ok(())));
        let bad = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}});
        let e = check_named(v, "CallToolRequest", &bad, "")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.path, "/params/name");
        assert!(
            e.message
                .starts_with("CallToolRequest (generated type): invalid type"),
            "{}",
            e.message
        );
        assert_eq!(check_named(v, "DiscoverRequest", &ok, ""), None);
    }
}
