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
/// of the extensions, and every result body, each with its union variant name and doc.
///
/// - A request row is `Variant(Type): sender => ResultVariant(Result)`: the request, who sends
///   it (`Client`, `Server` or `Both`) and the result that answers it.
/// - A notification row is `Variant(Type): sender`.
/// - A result row is `Variant(Type): sender, resultType`, where `resultType` says how a typed
///   result keeps its 2026-07-28 `resultType` (`field`: a `result_type` field; `none`: it does
///   not keep it; `own`: the type answers itself). Results no request row names (an
///   input-required answer, task handles) are the other forms a request may be answered with.
///
/// The method literals are the types' own (`Type::METHOD`). The order of the rows is the order
/// of each union's members (and so of the methods an unknown-method error lists).
///
/// Every list of body types expands this table with its own callback macro: [`METHODS`] here,
/// the message and result unions (through [`by_sender!`]), the typing of a result by its
/// request's method, and the boundary's `WireBody`/`WireParse` impls (`wire/impls.rs`). A new
/// request type is one row here plus its model struct (and, where it is new, its result's row);
/// where each revision has it is data in the generated facts and the ledger.
macro_rules! for_each_body {
    ($callback:ident $(($($extra:tt)*))?) => {
        $callback! {
            ($($($extra)*)?)
            requests {
                /// `ping` (handshake era).
                Ping(PingRequest): Both => Empty(EmptyResult),
                /// `initialize` (handshake era).
                Initialize(InitializeRequest): Client => Initialize(InitializeResult),
                /// `completion/complete`.
                Complete(CompleteRequest): Client => Complete(CompleteResult),
                /// `logging/setLevel` (handshake era).
                SetLevel(SetLevelRequest): Client => Empty(EmptyResult),
                /// `prompts/get`.
                GetPrompt(GetPromptRequest): Client => GetPrompt(GetPromptResult),
                /// `prompts/list`.
                ListPrompts(ListPromptsRequest): Client => ListPrompts(ListPromptsResult),
                /// `resources/list`.
                ListResources(ListResourcesRequest): Client => ListResources(ListResourcesResult),
                /// `resources/templates/list`.
                ListResourceTemplates(ListResourceTemplatesRequest): Client
                    => ListResourceTemplates(ListResourceTemplatesResult),
                /// `resources/read`.
                ReadResource(ReadResourceRequest): Client => ReadResource(ReadResourceResult),
                /// `resources/subscribe` (handshake era).
                Subscribe(SubscribeRequest): Client => Empty(EmptyResult),
                /// `resources/unsubscribe` (handshake era).
                Unsubscribe(UnsubscribeRequest): Client => Empty(EmptyResult),
                /// `tools/call`.
                CallTool(CallToolRequest): Client => CallTool(CallToolResult),
                /// `tools/list`.
                ListTools(ListToolsRequest): Client => ListTools(ListToolsResult),
                /// `server/discover` (2026-07-28).
                Discover(DiscoverRequest): Client => Discover(DiscoverResult),
                /// `subscriptions/listen` (2026-07-28).
                SubscriptionsListen(SubscriptionsListenRequest): Client
                    => SubscriptionsListen(SubscriptionsListenResult),
                /// `sampling/createMessage` (handshake era).
                CreateMessage(CreateMessageRequest): Server => CreateMessage(CreateMessageResult),
                /// `roots/list` (handshake era).
                ListRoots(ListRootsRequest): Server => ListRoots(ListRootsResult),
                /// `elicitation/create` (2025-06-18 and 2025-11-25).
                Elicit(ElicitRequest): Server => Elicit(ElicitResult),
                /// `tasks/get` (2025-11-25; and the tasks extension at 2026-07-28).
                GetTask(GetTaskRequest): Both => GetTask(GetTaskResult),
                /// `tasks/result` (2025-11-25).
                GetTaskPayload(GetTaskPayloadRequest): Both => GetTaskPayload(GetTaskPayloadResult),
                /// `tasks/list` (2025-11-25).
                ListTasks(ListTasksRequest): Both => ListTasks(ListTasksResult),
                /// `tasks/cancel` (2025-11-25; and the tasks extension at 2026-07-28).
                CancelTask(CancelTaskRequest): Both => GetTask(CancelTaskResult),
                /// `tasks/update` (tasks extension, 2026-07-28).
                UpdateTask(UpdateTaskRequest): Client => Empty(EmptyResult),
            }
            notifications {
                /// `notifications/cancelled`.
                Cancelled(CancelledNotification): Both,
                /// `notifications/progress`.
                Progress(ProgressNotification): Both,
                /// `notifications/initialized` (handshake era).
                Initialized(InitializedNotification): Client,
                /// `notifications/roots/list_changed` (handshake era).
                RootsListChanged(RootsListChangedNotification): Client,
                /// `notifications/message`.
                LoggingMessage(LoggingMessageNotification): Server,
                /// `notifications/resources/updated`.
                ResourceUpdated(ResourceUpdatedNotification): Server,
                /// `notifications/resources/list_changed`.
                ResourceListChanged(ResourceListChangedNotification): Server,
                /// `notifications/tools/list_changed`.
                ToolListChanged(ToolListChangedNotification): Server,
                /// `notifications/prompts/list_changed`.
                PromptListChanged(PromptListChangedNotification): Server,
                /// `notifications/elicitation/complete` (2025-11-25).
                ElicitationComplete(ElicitationCompleteNotification): Server,
                /// `notifications/subscriptions/acknowledged` (2026-07-28).
                SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification): Server,
                /// `notifications/tasks/status` (2025-11-25).
                TaskStatus(TaskStatusNotification): Both,
                /// `notifications/tasks` (tasks extension, 2026-07-28).
                Tasks(TasksNotification): Server,
            }
            results {
                /// No payload (`ping`, `logging/setLevel`, subscribe/unsubscribe, `tasks/update`).
                Empty(EmptyResult): Both, field,
                /// `initialize`.
                Initialize(InitializeResult): Server, none,
                /// `server/discover`.
                Discover(DiscoverResult): Server, field,
                /// `completion/complete`.
                Complete(CompleteResult): Server, field,
                /// `prompts/get`.
                GetPrompt(GetPromptResult): Server, field,
                /// `prompts/list`.
                ListPrompts(ListPromptsResult): Server, field,
                /// `resources/list`.
                ListResources(ListResourcesResult): Server, field,
                /// `resources/templates/list`.
                ListResourceTemplates(ListResourceTemplatesResult): Server, field,
                /// `resources/read`.
                ReadResource(ReadResourceResult): Server, field,
                /// `tools/call`.
                CallTool(CallToolResult): Server, field,
                /// `tools/list`.
                ListTools(ListToolsResult): Server, field,
                /// `subscriptions/listen`.
                SubscriptionsListen(SubscriptionsListenResult): Server, field,
                /// A 2026-07-28 request for input before `tools/call`, `prompts/get` or
                /// `resources/read` can finish.
                InputRequired(InputRequiredResult): Server, field,
                /// `sampling/createMessage`.
                CreateMessage(CreateMessageResult): Client, none,
                /// `roots/list`.
                ListRoots(ListRootsResult): Client, none,
                /// `elicitation/create`.
                Elicit(ElicitResult): Client, none,
                /// A task-augmented request's task (2025-11-25).
                CreateTask(CreateTaskResult): Both, field,
                /// `tasks/get` and `tasks/cancel`.
                GetTask(GetTaskResult): Both, field,
                /// `tasks/result`.
                GetTaskPayload(GetTaskPayloadResult): Both, own,
                /// `tasks/list`.
                ListTasks(ListTasksResult): Both, field,
                /// A request answered with a task (tasks extension, 2026-07-28).
                TaskCreated(TaskCreatedResult): Server, own,
                /// `tasks/get` with the tasks extension (2026-07-28).
                DetailedTask(GetDetailedTaskResult): Server, field,
            }
        }
    };
}
pub(crate) use for_each_body;

/// Splits the body table by side and hands it to `$callback!`: `(extra tokens)` then
/// `client_requests`, `server_requests`, `client_notifications`, `server_notifications` (each
/// side's rows, `Both` rows on both sides), `server_results` and `client_results` (the results
/// each side sends), in table order. Expand it through the table:
/// `for_each_body!(by_sender(callback extra tokens))`.
macro_rules! by_sender {
    (
        ($callback:ident $($extra:tt)*)
        requests { $($requests:tt)* }
        notifications { $($notifications:tt)* }
        results { $($results:tt)* }
    ) => {
        $crate::model::methods::by_sender! { @requests ($callback $($extra)*) [] []
            { $($requests)* } { $($notifications)* } { $($results)* } }
    };
    (@requests $cb:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Client => $rv:ident($rt:ident), $($rest:tt)* }
        $n:tt $r:tt
    ) => {
        $crate::model::methods::by_sender! { @requests $cb
            [$($c)* $(#[$d])* $v($t) => $rv($rt),] [$($s)*] { $($rest)* } $n $r }
    };
    (@requests $cb:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Server => $rv:ident($rt:ident), $($rest:tt)* }
        $n:tt $r:tt
    ) => {
        $crate::model::methods::by_sender! { @requests $cb
            [$($c)*] [$($s)* $(#[$d])* $v($t) => $rv($rt),] { $($rest)* } $n $r }
    };
    (@requests $cb:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Both => $rv:ident($rt:ident), $($rest:tt)* }
        $n:tt $r:tt
    ) => {
        $crate::model::methods::by_sender! { @requests $cb
            [$($c)* $(#[$d])* $v($t) => $rv($rt),] [$($s)* $(#[$d])* $v($t) => $rv($rt),]
            { $($rest)* } $n $r }
    };
    (@requests $cb:tt $c:tt $s:tt {} $n:tt $r:tt) => {
        $crate::model::methods::by_sender! { @notifications $cb $c $s [] [] $n $r }
    };
    (@notifications $cb:tt $cr:tt $sr:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Client, $($rest:tt)* } $r:tt
    ) => {
        $crate::model::methods::by_sender! { @notifications $cb $cr $sr
            [$($c)* $(#[$d])* $v($t),] [$($s)*] { $($rest)* } $r }
    };
    (@notifications $cb:tt $cr:tt $sr:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Server, $($rest:tt)* } $r:tt
    ) => {
        $crate::model::methods::by_sender! { @notifications $cb $cr $sr
            [$($c)*] [$($s)* $(#[$d])* $v($t),] { $($rest)* } $r }
    };
    (@notifications $cb:tt $cr:tt $sr:tt [$($c:tt)*] [$($s:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Both, $($rest:tt)* } $r:tt
    ) => {
        $crate::model::methods::by_sender! { @notifications $cb $cr $sr
            [$($c)* $(#[$d])* $v($t),] [$($s)* $(#[$d])* $v($t),] { $($rest)* } $r }
    };
    (@notifications $cb:tt $cr:tt $sr:tt $cn:tt $sn:tt {} $r:tt) => {
        $crate::model::methods::by_sender! { @results $cb $cr $sr $cn $sn [] [] $r }
    };
    (@results $cb:tt $cr:tt $sr:tt $cn:tt $sn:tt [$($s:tt)*] [$($c:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Server, $rt:ident, $($rest:tt)* }
    ) => {
        $crate::model::methods::by_sender! { @results $cb $cr $sr $cn $sn
            [$($s)* $(#[$d])* $v($t): $rt,] [$($c)*] { $($rest)* } }
    };
    (@results $cb:tt $cr:tt $sr:tt $cn:tt $sn:tt [$($s:tt)*] [$($c:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Client, $rt:ident, $($rest:tt)* }
    ) => {
        $crate::model::methods::by_sender! { @results $cb $cr $sr $cn $sn
            [$($s)*] [$($c)* $(#[$d])* $v($t): $rt,] { $($rest)* } }
    };
    (@results $cb:tt $cr:tt $sr:tt $cn:tt $sn:tt [$($s:tt)*] [$($c:tt)*]
        { $(#[$d:meta])* $v:ident($t:ident): Both, $rt:ident, $($rest:tt)* }
    ) => {
        $crate::model::methods::by_sender! { @results $cb $cr $sr $cn $sn
            [$($s)* $(#[$d])* $v($t): $rt,] [$($c)* $(#[$d])* $v($t): $rt,] { $($rest)* } }
    };
    (@results ($callback:ident $($extra:tt)*)
        [$($cr:tt)*] [$($sr:tt)*] [$($cn:tt)*] [$($sn:tt)*] [$($sres:tt)*] [$($cres:tt)*] {}
    ) => {
        $callback! {
            ($($extra)*)
            client_requests { $($cr)* }
            server_requests { $($sr)* }
            client_notifications { $($cn)* }
            server_notifications { $($sn)* }
            server_results { $($sres)* }
            client_results { $($cres)* }
        }
    };
}
pub(crate) use by_sender;

/// Builds [`METHODS`] from the body table.
macro_rules! method_table {
    (
        ()
        requests {
            $($(#[$_rd:meta])* $_rv:ident($req:ident): $rsender:ident => $_rrv:ident($result:ident),)*
        }
        notifications { $($(#[$_nd:meta])* $_nv:ident($note:ident): $nsender:ident,)* }
        results { $($_results:tt)* }
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
