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

/// The one list of message body types: every request and notification of every revision and
/// of the extensions, and every result body. A request row is `Type: sender => Result`, a
/// notification row `Type: sender`, a result row `Type: resultType`, where `resultType` says
/// how a typed result keeps its 2026-07-28 `resultType` (`field`: a `result_type` field;
/// `none`: it does not keep it; `own`: the type answers itself). The method literals are the
/// types' own (`Type::METHOD`).
///
/// Every list of body types expands this table with its own callback macro: [`METHODS`] here,
/// the boundary's `WireBody`/`WireParse` impls (`wire/impls.rs`). A new request type is one
/// row here plus its model struct (and, where it is new, its result's row); where each
/// revision has it is data in the generated facts and the ledger.
macro_rules! for_each_body {
    ($callback:ident) => {
        $callback! {
            requests {
                InitializeRequest: Client => InitializeResult,
                PingRequest: Both => EmptyResult,
                CompleteRequest: Client => CompleteResult,
                SetLevelRequest: Client => EmptyResult,
                GetPromptRequest: Client => GetPromptResult,
                ListPromptsRequest: Client => ListPromptsResult,
                ListResourcesRequest: Client => ListResourcesResult,
                ListResourceTemplatesRequest: Client => ListResourceTemplatesResult,
                ReadResourceRequest: Client => ReadResourceResult,
                SubscribeRequest: Client => EmptyResult,
                UnsubscribeRequest: Client => EmptyResult,
                CallToolRequest: Client => CallToolResult,
                ListToolsRequest: Client => ListToolsResult,
                DiscoverRequest: Client => DiscoverResult,
                SubscriptionsListenRequest: Client => SubscriptionsListenResult,
                CreateMessageRequest: Server => CreateMessageResult,
                ListRootsRequest: Server => ListRootsResult,
                ElicitRequest: Server => ElicitResult,
                GetTaskRequest: Both => GetTaskResult,
                GetTaskPayloadRequest: Both => GetTaskPayloadResult,
                ListTasksRequest: Both => ListTasksResult,
                CancelTaskRequest: Both => CancelTaskResult,
                UpdateTaskRequest: Client => EmptyResult,
            }
            notifications {
                CancelledNotification: Both,
                ProgressNotification: Both,
                InitializedNotification: Client,
                RootsListChangedNotification: Client,
                TaskStatusNotification: Both,
                TasksNotification: Server,
                LoggingMessageNotification: Server,
                ResourceUpdatedNotification: Server,
                ResourceListChangedNotification: Server,
                ToolListChangedNotification: Server,
                PromptListChangedNotification: Server,
                ElicitationCompleteNotification: Server,
                SubscriptionsAcknowledgedNotification: Server,
            }
            results {
                EmptyResult: field,
                InitializeResult: none,
                DiscoverResult: field,
                CompleteResult: field,
                GetPromptResult: field,
                ListPromptsResult: field,
                ListResourcesResult: field,
                ListResourceTemplatesResult: field,
                ReadResourceResult: field,
                CallToolResult: field,
                ListToolsResult: field,
                SubscriptionsListenResult: field,
                InputRequiredResult: field,
                CreateTaskResult: field,
                GetTaskResult: field,
                GetTaskPayloadResult: own,
                ListTasksResult: field,
                TaskCreatedResult: own,
                GetDetailedTaskResult: field,
                CreateMessageResult: none,
                ListRootsResult: none,
                ElicitResult: none,
            }
        }
    };
}
pub(crate) use for_each_body;

/// Builds [`METHODS`] from the body table.
macro_rules! method_table {
    (
        requests { $($req:ident: $rsender:ident => $result:ident,)* }
        notifications { $($note:ident: $nsender:ident,)* }
        results { $($_res:ident: $_rt:ident,)* }
    ) => {
        /// Every method of every revision, with its sender and superset types (in the order of
        /// the body table).
        pub const METHODS: &[MethodInfo] = &[
            $(req(
                super::$req::METHOD,
                Sender::$rsender,
                stringify!($req),
                stringify!($result),
            ),)*
            $(note(super::$note::METHOD, Sender::$nsender, stringify!($note)),)*
        ];
    };
}

for_each_body!(method_table);

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
