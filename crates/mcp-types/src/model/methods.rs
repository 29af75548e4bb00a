//! The method map in the lsp-types style: every request and notification body type implements
//! [`Request`] or [`Notification`], tying its `method` literal to its params and result types.
//! [`METHODS`] lists the same facts as data (who sends each method), for code that only has the
//! method string.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ProtocolVersion;
use crate::facts::{self, RevisionFacts};

/// A request body type: its method literal, params and result types.
pub trait Request: Serialize + DeserializeOwned {
    /// The wire method, e.g. `"tools/call"`.
    const METHOD: &'static str;
    /// The params type (`Option<…>` when the params may be absent).
    type Params;
    /// The result type.
    type Result: Serialize + DeserializeOwned;

    /// The revisions whose schema defines this request (in either direction), oldest first.
    fn revisions() -> Vec<ProtocolVersion> {
        revisions_defining(Self::METHOD, MethodKind::Request)
    }
}

/// A notification body type: its method literal and params type.
pub trait Notification: Serialize + DeserializeOwned {
    /// The wire method, e.g. `"notifications/progress"`.
    const METHOD: &'static str;
    /// The params type (`Option<…>` when the params may be absent).
    type Params;

    /// The revisions whose schema defines this notification (in either direction), oldest first.
    fn revisions() -> Vec<ProtocolVersion> {
        revisions_defining(Self::METHOD, MethodKind::Notification)
    }
}

/// Whether revision `facts` defines `method` as a `kind`, sent by a client (`client == true`) or
/// by a server.
fn defines(facts: &RevisionFacts, method: &str, kind: MethodKind, client: bool) -> bool {
    let table = match (kind, client) {
        (MethodKind::Request, true) => facts.client_requests,
        (MethodKind::Request, false) => facts.server_requests,
        (MethodKind::Notification, true) => facts.client_notifications,
        (MethodKind::Notification, false) => facts.server_notifications,
    };
    table.iter().any(|m| m.method == method)
}

/// The revisions whose schema defines `method` as a `kind` (either direction), oldest first.
/// Read from the generated per-revision method tables ([`crate::facts`]).
pub fn revisions_defining(method: &str, kind: MethodKind) -> Vec<ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .filter(|v| {
            let f = facts::revision(*v);
            defines(f, method, kind, true) || defines(f, method, kind, false)
        })
        .collect()
}

/// Whether revision `version` defines `method` as a `kind` sent by `sender`'s side(s).
pub fn is_defined_at(
    version: ProtocolVersion,
    method: &str,
    kind: MethodKind,
    sender: Sender,
) -> bool {
    let f = facts::revision(version);
    (sender.client() && defines(f, method, kind, true))
        || (sender.server() && defines(f, method, kind, false))
}

/// Whether a method is a request or a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MethodKind {
    /// A request (has an id, gets a response).
    Request,
    /// A notification (no id, no response).
    Notification,
}

/// Which side sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// Only clients send it.
    Client,
    /// Only servers send it.
    Server,
    /// Either side sends it.
    Both,
}

impl Sender {
    /// Whether a client sends it.
    pub fn client(self) -> bool {
        matches!(self, Sender::Client | Sender::Both)
    }

    /// Whether a server sends it.
    pub fn server(self) -> bool {
        matches!(self, Sender::Server | Sender::Both)
    }
}

/// One row of [`METHODS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodInfo {
    /// The wire method.
    pub method: &'static str,
    /// Request or notification.
    pub kind: MethodKind,
    /// Who sends it.
    pub sender: Sender,
    /// The superset body type, e.g. `"CallToolRequest"`.
    pub type_name: &'static str,
    /// The superset result type of a request.
    pub result: Option<&'static str>,
}

const fn req(
    method: &'static str,
    sender: Sender,
    type_name: &'static str,
    result: &'static str,
) -> MethodInfo {
    MethodInfo {
        method,
        kind: MethodKind::Request,
        sender,
        type_name,
        result: Some(result),
    }
}

const fn note(method: &'static str, sender: Sender, type_name: &'static str) -> MethodInfo {
    MethodInfo {
        method,
        kind: MethodKind::Notification,
        sender,
        type_name,
        result: None,
    }
}

/// Every method of every revision, with its sender and superset types.
pub const METHODS: &[MethodInfo] = &[
    req(
        "initialize",
        Sender::Client,
        "InitializeRequest",
        "InitializeResult",
    ),
    req("ping", Sender::Both, "PingRequest", "EmptyResult"),
    req(
        "completion/complete",
        Sender::Client,
        "CompleteRequest",
        "CompleteResult",
    ),
    req(
        "logging/setLevel",
        Sender::Client,
        "SetLevelRequest",
        "EmptyResult",
    ),
    req(
        "prompts/get",
        Sender::Client,
        "GetPromptRequest",
        "GetPromptResult",
    ),
    req(
        "prompts/list",
        Sender::Client,
        "ListPromptsRequest",
        "ListPromptsResult",
    ),
    req(
        "resources/list",
        Sender::Client,
        "ListResourcesRequest",
        "ListResourcesResult",
    ),
    req(
        "resources/templates/list",
        Sender::Client,
        "ListResourceTemplatesRequest",
        "ListResourceTemplatesResult",
    ),
    req(
        "resources/read",
        Sender::Client,
        "ReadResourceRequest",
        "ReadResourceResult",
    ),
    req(
        "resources/subscribe",
        Sender::Client,
        "SubscribeRequest",
        "EmptyResult",
    ),
    req(
        "resources/unsubscribe",
        Sender::Client,
        "UnsubscribeRequest",
        "EmptyResult",
    ),
    req(
        "tools/call",
        Sender::Client,
        "CallToolRequest",
        "CallToolResult",
    ),
    req(
        "tools/list",
        Sender::Client,
        "ListToolsRequest",
        "ListToolsResult",
    ),
    req(
        "server/discover",
        Sender::Client,
        "DiscoverRequest",
        "DiscoverResult",
    ),
    req(
        "subscriptions/listen",
        Sender::Client,
        "SubscriptionsListenRequest",
        "SubscriptionsListenResult",
    ),
    req(
        "sampling/createMessage",
        Sender::Server,
        "CreateMessageRequest",
        "CreateMessageResult",
    ),
    req(
        "roots/list",
        Sender::Server,
        "ListRootsRequest",
        "ListRootsResult",
    ),
    req(
        "elicitation/create",
        Sender::Server,
        "ElicitRequest",
        "ElicitResult",
    ),
    req("tasks/get", Sender::Both, "GetTaskRequest", "GetTaskResult"),
    req(
        "tasks/result",
        Sender::Both,
        "GetTaskPayloadRequest",
        "GetTaskPayloadResult",
    ),
    req(
        "tasks/list",
        Sender::Both,
        "ListTasksRequest",
        "ListTasksResult",
    ),
    req(
        "tasks/cancel",
        Sender::Both,
        "CancelTaskRequest",
        "CancelTaskResult",
    ),
    req(
        "tasks/update",
        Sender::Client,
        "UpdateTaskRequest",
        "EmptyResult",
    ),
    note(
        "notifications/cancelled",
        Sender::Both,
        "CancelledNotification",
    ),
    note(
        "notifications/progress",
        Sender::Both,
        "ProgressNotification",
    ),
    note(
        "notifications/initialized",
        Sender::Client,
        "InitializedNotification",
    ),
    note(
        "notifications/roots/list_changed",
        Sender::Client,
        "RootsListChangedNotification",
    ),
    note(
        "notifications/tasks/status",
        Sender::Both,
        "TaskStatusNotification",
    ),
    note("notifications/tasks", Sender::Server, "TasksNotification"),
    note(
        "notifications/message",
        Sender::Server,
        "LoggingMessageNotification",
    ),
    note(
        "notifications/resources/updated",
        Sender::Server,
        "ResourceUpdatedNotification",
    ),
    note(
        "notifications/resources/list_changed",
        Sender::Server,
        "ResourceListChangedNotification",
    ),
    note(
        "notifications/tools/list_changed",
        Sender::Server,
        "ToolListChangedNotification",
    ),
    note(
        "notifications/prompts/list_changed",
        Sender::Server,
        "PromptListChangedNotification",
    ),
    note(
        "notifications/elicitation/complete",
        Sender::Server,
        "ElicitationCompleteNotification",
    ),
    note(
        "notifications/subscriptions/acknowledged",
        Sender::Server,
        "SubscriptionsAcknowledgedNotification",
    ),
];

impl MethodInfo {
    /// The revisions that define this method, oldest first (from [`crate::facts`]).
    pub fn revisions(&self) -> Vec<ProtocolVersion> {
        revisions_defining(self.method, self.kind)
    }
}

/// The row of `method`, if any revision defines it.
pub fn method_info(method: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.method == method)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    fn methods_of(sender: fn(Sender) -> bool, kind: MethodKind) -> Vec<&'static str> {
        let mut v: Vec<_> = METHODS
            .iter()
            .filter(|m| m.kind == kind && sender(m.sender))
            .map(|m| m.method)
            .collect();
        v.sort();
        v
    }

    fn sorted(tags: &[&'static str]) -> Vec<&'static str> {
        let mut v = tags.to_vec();
        v.sort();
        v
    }

    #[test]
    fn table_matches_the_unions() {
        assert_eq!(
            methods_of(Sender::client, MethodKind::Request),
            sorted(ClientRequest::TAGS)
        );
        assert_eq!(
            methods_of(Sender::server, MethodKind::Request),
            sorted(ServerRequest::TAGS)
        );
        assert_eq!(
            methods_of(Sender::client, MethodKind::Notification),
            sorted(ClientNotification::TAGS)
        );
        assert_eq!(
            methods_of(Sender::server, MethodKind::Notification),
            sorted(ServerNotification::TAGS)
        );
    }

    #[test]
    fn trait_constants_match_the_table() {
        fn check<R: Request>(name: &str) {
            let row = method_info(R::METHOD).expect("row");
            assert_eq!(row.type_name, name);
            assert_eq!(row.kind, MethodKind::Request);
        }
        check::<CallToolRequest>("CallToolRequest");
        check::<InitializeRequest>("InitializeRequest");
        check::<ListToolsRequest>("ListToolsRequest");
        check::<CreateMessageRequest>("CreateMessageRequest");
        check::<SubscriptionsListenRequest>("SubscriptionsListenRequest");
        assert_eq!(
            <ProgressNotification as Notification>::METHOD,
            "notifications/progress"
        );
    }

    #[test]
    fn revisions_come_from_the_facts() {
        use ProtocolVersion::*;
        assert_eq!(
            <CallToolRequest as Request>::revisions(),
            ProtocolVersion::ALL.to_vec()
        );
        assert_eq!(
            <InitializeRequest as Request>::revisions(),
            vec![V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25]
        );
        assert_eq!(<DiscoverRequest as Request>::revisions(), vec![V2026_07_28]);
        assert_eq!(
            <ElicitRequest as Request>::revisions(),
            vec![V2025_06_18, V2025_11_25]
        );
        assert_eq!(<GetTaskRequest as Request>::revisions(), vec![V2025_11_25]);
        assert_eq!(
            <SubscriptionsAcknowledgedNotification as Notification>::revisions(),
            vec![V2026_07_28]
        );
        assert_eq!(
            method_info("notifications/elicitation/complete")
                .unwrap()
                .revisions(),
            vec![V2025_11_25]
        );
        assert!(!is_defined_at(
            V2026_07_28,
            "ping",
            MethodKind::Request,
            Sender::Both
        ));
        assert!(is_defined_at(
            V2025_06_18,
            "ping",
            MethodKind::Request,
            Sender::Server
        ));
    }

    #[test]
    fn results_by_method_cover_every_request() {
        for m in METHODS.iter().filter(|m| m.kind == MethodKind::Request) {
            let in_server = crate::model::SERVER_RESULT_METHODS.contains(&m.method);
            let in_client = crate::model::CLIENT_RESULT_METHODS.contains(&m.method);
            assert_eq!(in_server, m.sender.client(), "{}", m.method);
            assert_eq!(in_client, m.sender.server(), "{}", m.method);
        }
    }
}
