//! The naming table: our type names are the schema's definition names, except the rows of
//! [`RENAMES`] (our name differs from the schema's) and [`OWN_NAMES`] (the schema defines the
//! shape inline, without a name). Tests check every row against the generated facts.

/// Superset types whose name is a schema definition name of at least one revision, besides the
/// request and notification bodies (the body table, [`METHODS`](super::METHODS), holds those
/// and a test checks them against the facts the same way).
pub const SPEC_NAMED: &[&str] = &[
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "BooleanSchema",
    "CallToolRequestParams",
    "CallToolResult",
    "CancelTaskResult",
    "CancelledNotificationParams",
    "ClientCapabilities",
    "ClientNotification",
    "ClientRequest",
    "ClientResult",
    "CompleteRequestParams",
    "CompleteResult",
    "ContentBlock",
    "CreateMessageRequestParams",
    "CreateMessageResult",
    "CreateTaskResult",
    "DiscoverResult",
    "ElicitRequestFormParams",
    "ElicitRequestParams",
    "ElicitRequestURLParams",
    "ElicitResult",
    "EmbeddedResource",
    "EmptyResult",
    "GetPromptRequestParams",
    "GetPromptResult",
    "GetTaskPayloadResult",
    "GetTaskResult",
    "Icon",
    "ImageContent",
    "Implementation",
    "InitializeRequestParams",
    "InitializeResult",
    "InputRequest",
    "InputRequests",
    "InputRequiredResult",
    "InputResponse",
    "InputResponses",
    "LegacyTitledEnumSchema",
    "ListPromptsResult",
    "ListResourceTemplatesResult",
    "ListResourcesResult",
    "ListRootsResult",
    "ListTasksResult",
    "ListToolsResult",
    "LoggingLevel",
    "LoggingMessageNotificationParams",
    "ModelHint",
    "ModelPreferences",
    "NotificationParams",
    "NumberSchema",
    "PaginatedRequestParams",
    "PrimitiveSchemaDefinition",
    "ProgressNotificationParams",
    "ProgressToken",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptReference",
    "ReadResourceRequestParams",
    "ReadResourceResult",
    "RelatedTaskMetadata",
    "RequestId",
    "RequestParams",
    "Resource",
    "ResourceContents",
    "ResourceLink",
    "ResourceTemplate",
    "ResourceTemplateReference",
    "ResourceUpdatedNotificationParams",
    "ResultType",
    "Role",
    "Root",
    "SamplingMessage",
    "SamplingMessageContentBlock",
    "ServerCapabilities",
    "ServerNotification",
    "ServerRequest",
    "ServerResult",
    "SetLevelRequestParams",
    "StringSchema",
    "SubscribeRequestParams",
    "SubscriptionFilter",
    "SubscriptionsAcknowledgedNotificationParams",
    "SubscriptionsListenRequestParams",
    "SubscriptionsListenResult",
    "Task",
    "TaskMetadata",
    "TaskStatus",
    "TaskStatusNotificationParams",
    "TextContent",
    "TextResourceContents",
    "TitledMultiSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "Tool",
    "ToolAnnotations",
    "ToolChoice",
    "ToolExecution",
    "ToolResultContent",
    "ToolUseContent",
    "UnsubscribeRequestParams",
    "UntitledMultiSelectEnumSchema",
    "UntitledSingleSelectEnumSchema",
];

/// `(our name, schema names, why)`: where our name differs from the schema's.
pub const RENAMES: &[(&str, &[&str], &str)] = &[
    ("JsonRpcRequest", &["JSONRPCRequest"], "Rust casing"),
    (
        "JsonRpcNotification",
        &["JSONRPCNotification"],
        "Rust casing",
    ),
    (
        "JsonRpcResponse",
        &["JSONRPCResponse", "JSONRPCResultResponse"],
        "2025-11-25 renamed the success envelope and reused JSONRPCResponse for the union",
    ),
    (
        "JsonRpcError",
        &["JSONRPCError", "JSONRPCErrorResponse"],
        "renamed in 2025-11-25",
    ),
    ("JsonRpcMessage", &["JSONRPCMessage"], "Rust casing"),
    (
        "JsonRpcFrame",
        &["JSONRPCBatchRequest", "JSONRPCBatchResponse"],
        "one message or a 2025-03-26 batch",
    ),
    (
        "ErrorData",
        &["Error"],
        "the schemas hoisted `Error` only in 2025-11-25",
    ),
    (
        "Meta",
        &["MetaObject", "RequestMetaObject", "ResultMetaObject"],
        "one open map for all",
    ),
    (
        "CacheScope",
        &["CacheableResult"],
        "the enum of CacheableResult.cacheScope",
    ),
];

/// `(our name, why)`: shapes the schema defines inline, without a name.
pub const OWN_NAMES: &[(&str, &str)] = &[
    (
        "CompleteReference",
        "CompleteRequestParams.ref: PromptReference | ResourceTemplateReference",
    ),
    ("CompletionArgument", "CompleteRequestParams.argument"),
    ("CompletionContext", "CompleteRequestParams.context"),
    ("Completion", "CompleteResult.completion"),
    (
        "SamplingContent",
        "one SamplingMessageContentBlock or (2025-11-25+) a list of them",
    ),
    (
        "IncludeContext",
        "CreateMessageRequestParams.includeContext",
    ),
    ("ToolChoiceMode", "ToolChoice.mode"),
    ("IconTheme", "Icon.theme"),
    (
        "ElicitRequestedSchema",
        "ElicitRequestFormParams.requestedSchema",
    ),
    ("ElicitAction", "ElicitResult.action"),
    (
        "ElicitationCompleteNotificationParams",
        "ElicitationCompleteNotification.params",
    ),
    (
        "EnumOption",
        "items of TitledSingleSelectEnumSchema.oneOf / TitledMultiSelect items.anyOf",
    ),
    ("UntitledEnumItems", "UntitledMultiSelectEnumSchema.items"),
    ("TitledEnumItems", "TitledMultiSelectEnumSchema.items"),
    ("NumberType", "NumberSchema.type"),
    ("StringFormat", "StringSchema.format"),
    (
        "TaskIdParams",
        "params of tasks/get, tasks/result, tasks/cancel",
    ),
    ("TaskSupport", "ToolExecution.taskSupport"),
    ("RootsCapability", "ClientCapabilities.roots"),
    ("SamplingCapability", "ClientCapabilities.sampling"),
    ("ElicitationCapability", "ClientCapabilities.elicitation"),
    (
        "TasksCapability",
        "ClientCapabilities.tasks / ServerCapabilities.tasks",
    ),
    ("PromptsCapability", "ServerCapabilities.prompts"),
    ("ResourcesCapability", "ServerCapabilities.resources"),
    ("ToolsCapability", "ServerCapabilities.tools"),
    (
        "RawRequest",
        "the untyped interior (method + params) of a request or notification frame",
    ),
];

/// `(our name, the extension's name, why)`: types of extensions outside the pinned schemas (the
/// `io.modelcontextprotocol/tasks` extension, SEP-2663), renamed where the 2025-11-25 core
/// already uses the extension's name for a different shape.
pub const EXTENSION_NAMES: &[(&str, &str, &str)] = &[
    ("DetailedTask", "DetailedTask", "tasks extension"),
    (
        "GetDetailedTaskResult",
        "GetTaskResult",
        "GetTaskResult is 2025-11-25's (no inlined outcome)",
    ),
    (
        "TaskCreatedResult",
        "CreateTaskResult",
        "CreateTaskResult is 2025-11-25's (nested `task`)",
    ),
    (
        "TaskInfo",
        "Task",
        "Task is 2025-11-25's (`ttl`, `pollInterval`)",
    ),
    (
        "TasksNotification",
        "TaskStatusNotification",
        "method notifications/tasks",
    ),
    (
        "TasksNotificationParams",
        "TaskStatusNotification.params",
        "tasks extension",
    ),
    ("UpdateTaskRequest", "UpdateTaskRequest", "tasks extension"),
    (
        "UpdateTaskRequestParams",
        "UpdateTaskRequest.params",
        "tasks extension",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::facts::revision;

    fn defined_somewhere(name: &str) -> bool {
        ProtocolVersion::ALL
            .into_iter()
            .any(|v| revision(v).has_type(name))
    }

    /// The body table's names are spec names wherever a revision's schema has the method (the
    /// others come from extensions), and no other list repeats them.
    #[test]
    fn body_table_names_are_spec_names() {
        let mut from_schemas = 0;
        for row in crate::model::METHODS {
            if row.revisions().is_empty() {
                assert!(!defined_somewhere(row.type_name), "{}", row.type_name);
                continue;
            }
            from_schemas += 1;
            assert!(defined_somewhere(row.type_name), "{}", row.type_name);
            assert!(!SPEC_NAMED.contains(&row.type_name), "{}", row.type_name);
        }
        assert!(from_schemas > 0);
    }

    #[test]
    fn spec_names_exist_in_some_revision() {
        for name in SPEC_NAMED {
            assert!(
                defined_somewhere(name),
                "{name} is not a schema definition name"
            );
        }
    }

    #[test]
    fn renames_point_at_real_schema_names() {
        for (ours, theirs, _) in RENAMES {
            assert!(
                !defined_somewhere(ours),
                "{ours} is a schema name; drop the rename row"
            );
            for t in *theirs {
                assert!(defined_somewhere(t), "{t} ({ours}) is not a schema name");
            }
        }
    }

    #[test]
    fn extension_names_are_not_schema_names() {
        for (ours, _, _) in EXTENSION_NAMES {
            assert!(
                !defined_somewhere(ours),
                "{ours} is a schema name; it cannot name an extension type"
            );
        }
    }

    #[test]
    fn own_names_are_not_schema_names() {
        for (ours, _) in OWN_NAMES {
            assert!(
                !defined_somewhere(ours),
                "{ours} is a schema name; move it to SPEC_NAMED"
            );
        }
    }
}
