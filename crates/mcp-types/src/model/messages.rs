//! The request and notification unions of each direction, tagged on `method`.
//!
//! Each union lists every method any revision defines for that direction; which revision defines
//! which method is data (see [`super::methods`]). An unknown `method` is
//! [`ModelErrorKind::UnknownTag`] with field `method`
//! (JSON-RPC -32601).

use super::*;

tagged_union! {
    /// A request a client sends to a server.
    pub enum ClientRequest on "method", requests {
        /// `ping` (handshake era).
        Ping(PingRequest) = PingRequest::METHOD,
        /// `initialize` (handshake era).
        Initialize(InitializeRequest) = InitializeRequest::METHOD,
        /// `completion/complete`.
        Complete(CompleteRequest) = CompleteRequest::METHOD,
        /// `logging/setLevel` (handshake era).
        SetLevel(SetLevelRequest) = SetLevelRequest::METHOD,
        /// `prompts/get`.
        GetPrompt(GetPromptRequest) = GetPromptRequest::METHOD,
        /// `prompts/list`.
        ListPrompts(ListPromptsRequest) = ListPromptsRequest::METHOD,
        /// `resources/list`.
        ListResources(ListResourcesRequest) = ListResourcesRequest::METHOD,
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplatesRequest) = ListResourceTemplatesRequest::METHOD,
        /// `resources/read`.
        ReadResource(ReadResourceRequest) = ReadResourceRequest::METHOD,
        /// `resources/subscribe` (handshake era).
        Subscribe(SubscribeRequest) = SubscribeRequest::METHOD,
        /// `resources/unsubscribe` (handshake era).
        Unsubscribe(UnsubscribeRequest) = UnsubscribeRequest::METHOD,
        /// `tools/call`.
        CallTool(CallToolRequest) = CallToolRequest::METHOD,
        /// `tools/list`.
        ListTools(ListToolsRequest) = ListToolsRequest::METHOD,
        /// `server/discover` (2026-07-28).
        Discover(DiscoverRequest) = DiscoverRequest::METHOD,
        /// `subscriptions/listen` (2026-07-28).
        SubscriptionsListen(SubscriptionsListenRequest) = SubscriptionsListenRequest::METHOD,
        /// `tasks/get` (2025-11-25).
        GetTask(GetTaskRequest) = GetTaskRequest::METHOD,
        /// `tasks/result` (2025-11-25).
        GetTaskPayload(GetTaskPayloadRequest) = GetTaskPayloadRequest::METHOD,
        /// `tasks/list` (2025-11-25).
        ListTasks(ListTasksRequest) = ListTasksRequest::METHOD,
        /// `tasks/cancel` (2025-11-25; and the tasks extension at 2026-07-28).
        CancelTask(CancelTaskRequest) = CancelTaskRequest::METHOD,
        /// `tasks/update` (tasks extension, 2026-07-28).
        UpdateTask(UpdateTaskRequest) = UpdateTaskRequest::METHOD,
    }
}

tagged_union! {
    /// A request a server sends to a client (handshake era; at 2026-07-28 these travel inside
    /// `InputRequiredResult.inputRequests` instead).
    pub enum ServerRequest on "method", requests {
        /// `ping`.
        Ping(PingRequest) = PingRequest::METHOD,
        /// `sampling/createMessage`.
        CreateMessage(CreateMessageRequest) = CreateMessageRequest::METHOD,
        /// `roots/list`.
        ListRoots(ListRootsRequest) = ListRootsRequest::METHOD,
        /// `elicitation/create` (2025-06-18+).
        Elicit(ElicitRequest) = ElicitRequest::METHOD,
        /// `tasks/get` (2025-11-25).
        GetTask(GetTaskRequest) = GetTaskRequest::METHOD,
        /// `tasks/result` (2025-11-25).
        GetTaskPayload(GetTaskPayloadRequest) = GetTaskPayloadRequest::METHOD,
        /// `tasks/list` (2025-11-25).
        ListTasks(ListTasksRequest) = ListTasksRequest::METHOD,
        /// `tasks/cancel` (2025-11-25).
        CancelTask(CancelTaskRequest) = CancelTaskRequest::METHOD,
    }
}

tagged_union! {
    /// A notification a client sends to a server.
    pub enum ClientNotification on "method" {
        /// `notifications/cancelled`.
        Cancelled(CancelledNotification) = CancelledNotification::METHOD,
        /// `notifications/progress`.
        Progress(ProgressNotification) = ProgressNotification::METHOD,
        /// `notifications/initialized` (handshake era).
        Initialized(InitializedNotification) = InitializedNotification::METHOD,
        /// `notifications/roots/list_changed` (handshake era).
        RootsListChanged(RootsListChangedNotification) = RootsListChangedNotification::METHOD,
        /// `notifications/tasks/status` (2025-11-25).
        TaskStatus(TaskStatusNotification) = TaskStatusNotification::METHOD,
    }
}

tagged_union! {
    /// A notification a server sends to a client.
    pub enum ServerNotification on "method" {
        /// `notifications/cancelled`.
        Cancelled(CancelledNotification) = CancelledNotification::METHOD,
        /// `notifications/progress`.
        Progress(ProgressNotification) = ProgressNotification::METHOD,
        /// `notifications/message`.
        LoggingMessage(LoggingMessageNotification) = LoggingMessageNotification::METHOD,
        /// `notifications/resources/updated`.
        ResourceUpdated(ResourceUpdatedNotification) = ResourceUpdatedNotification::METHOD,
        /// `notifications/resources/list_changed`.
        ResourceListChanged(ResourceListChangedNotification) = ResourceListChangedNotification::METHOD,
        /// `notifications/tools/list_changed`.
        ToolListChanged(ToolListChangedNotification) = ToolListChangedNotification::METHOD,
        /// `notifications/prompts/list_changed`.
        PromptListChanged(PromptListChangedNotification) = PromptListChangedNotification::METHOD,
        /// `notifications/elicitation/complete` (2025-11-25).
        ElicitationComplete(ElicitationCompleteNotification) = ElicitationCompleteNotification::METHOD,
        /// `notifications/subscriptions/acknowledged` (2026-07-28).
        SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification) = SubscriptionsAcknowledgedNotification::METHOD,
        /// `notifications/tasks/status` (2025-11-25).
        TaskStatus(TaskStatusNotification) = TaskStatusNotification::METHOD,
        /// `notifications/tasks` (tasks extension, 2026-07-28).
        Tasks(TasksNotification) = TasksNotification::METHOD,
    }
}

macro_rules! method_accessor {
    ($($name:ident),+) => {
        $(
            impl $name {
                /// The wire `method` of this message.
                pub fn method(&self) -> &'static str {
                    self.tag()
                }
            }
        )+
    };
}

method_accessor!(
    ClientRequest,
    ServerRequest,
    ClientNotification,
    ServerNotification
);
