//! Results: `EmptyResult`, the result unions `ServerResult`/`ClientResult`, and typing a result
//! by the method of the request it answers.
//!
//! Results carry no tag. When the originating method is known (it always is in a session), use
//! [`ServerResult::from_method`] / [`ClientResult::from_method`]: the body is parsed as exactly
//! that method's result type. The plain `Deserialize` impls are for method-less contexts and pick
//! a member by its distinctive keys; they are lenient and know nothing of revisions (the wire
//! boundary adds revision rules and the ranked structural selection on top).

use crate::model::describe::Describe;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::methods::{by_sender, for_each_body};
use super::*;
use crate::de::error::{ModelError, ModelErrorKind};
use crate::de::from_value;
use crate::de::{KeyRank, Keys};

/// A result with no payload (`ping`, `logging/setLevel`, subscribe/unsubscribe). Unknown keys
/// are ignored on read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmptyResult {
    /// `resultType` (2026-07-28), if sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmptyResult {
    /// `{}`.
    pub fn new() -> Self {
        EmptyResult::default()
    }
}

/// A result union: the side's rows of the body table's `results` (`Variant(Type): resultType`).
macro_rules! result_union {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident($ty:ident): $rt:ident, )+ }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, $crate::model::describe::Describe)]
        #[non_exhaustive]
        // Members are plain structs so they can be matched and built directly; boxing the large
        // ones would cost every user an indirection for a few hundred bytes.
        #[allow(clippy::large_enum_variant)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl $name {
            /// The spec name of this member's type, e.g. `"CallToolResult"`.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => stringify!($ty), )+
                }
            }

            /// The result's `_meta`, if any.
            pub fn meta(&self) -> Option<&Meta> {
                match self {
                    $( Self::$variant(r) => r.meta.as_ref(), )+
                }
            }

            /// The result's `resultType`, if the member keeps it and it is set
            /// (`InitializeResult`, `GetTaskPayloadResult` and the client's own results never
            /// carry one here).
            pub fn result_type(&self) -> Option<&ResultType> {
                match self {
                    $( Self::$variant(r) => kept_result_type!($rt r), )+
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(v) => v.serialize(s), )+
                }
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(v: $ty) -> Self {
                    Self::$variant(v)
                }
            }
        )+
    };
}

/// How a result row keeps `resultType` (the body table's `field`, `none`, `own`).
macro_rules! kept_result_type {
    (field $r:ident) => {
        $r.result_type.as_ref()
    };
    (none $r:ident) => {{
        let _ = $r;
        None
    }};
    (own $r:ident) => {
        $r.own_result_type()
    };
}

/// The two result unions from the body table.
macro_rules! result_unions {
    (
        ()
        client_requests { $($_cr:tt)* }
        server_requests { $($_sr:tt)* }
        client_notifications { $($_cn:tt)* }
        server_notifications { $($_sn:tt)* }
        server_results { $($server:tt)* }
        client_results { $($client:tt)* }
    ) => {
        result_union! {
            /// Any result a server sends.
            pub enum ServerResult { $($server)* }
        }

        result_union! {
            /// Any result a client sends (answers to server requests, handshake era).
            pub enum ClientResult { $($client)* }
        }
    };
}

for_each_body!(by_sender(result_unions));

impl TaskCreatedResult {
    /// `resultType`: always present (`"task"`).
    fn own_result_type(&self) -> Option<&ResultType> {
        Some(&self.result_type)
    }
}

impl GetTaskPayloadResult {
    /// None: an open object, whose `resultType` stays among its other keys.
    fn own_result_type(&self) -> Option<&ResultType> {
        None
    }
}

fn unknown_method(method: &str, expected: &[&str]) -> ModelError {
    ModelError::new(
        crate::JsonPath::root(),
        ModelErrorKind::UnknownTag {
            field: "method".to_owned(),
            tag: method.to_owned(),
            expected: expected.join(", "),
        },
    )
}

/// Whether `value` looks like the `CreateTaskResult` of a task-augmented request: a `task` object
/// and none of `fallback_keys` (the keys of the method's ordinary result).
fn is_create_task(value: &Value, fallback_keys: &[&str]) -> bool {
    value.get("task").is_some_and(Value::is_object)
        && !fallback_keys.iter().any(|k| value.get(*k).is_some())
}

fn is_input_required(value: &Value) -> bool {
    value.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Expands one side of the body table's request rows (through [`by_sender!`]): the side's
/// result method list and its `from_method` dispatch (`$side` is `server` or `client`, the side
/// that answers).
macro_rules! result_side {
    (
        (server)
        client_requests { $($(#[$_d:meta])* $_v:ident($req:ident) => $rv:ident($rt:ident),)* }
        $($_rest:tt)*
    ) => {
        /// The methods whose results [`ServerResult::from_method`] knows.
        pub const SERVER_RESULT_METHODS: &[&str] = &[$($req::METHOD),*];

        /// `ServerResult::from_method`'s table part: the method's own result type.
        fn server_result_by_method(method: &str, value: Value) -> Result<ServerResult, ModelError> {
            match method {
                $($req::METHOD => from_value::<$rt>(value).map(ServerResult::$rv),)*
                other => Err(unknown_method(other, SERVER_RESULT_METHODS)),
            }
        }
    };
    (
        (client)
        client_requests { $($_cr:tt)* }
        server_requests { $($(#[$_d:meta])* $_v:ident($req:ident) => $rv:ident($rt:ident),)* }
        $($_rest:tt)*
    ) => {
        /// The methods whose results [`ClientResult::from_method`] knows.
        pub const CLIENT_RESULT_METHODS: &[&str] = &[$($req::METHOD),*];

        /// `ClientResult::from_method`'s table part: the method's own result type.
        fn client_result_by_method(method: &str, value: Value) -> Result<ClientResult, ModelError> {
            match method {
                $($req::METHOD => from_value::<$rt>(value).map(ClientResult::$rv),)*
                other => Err(unknown_method(other, CLIENT_RESULT_METHODS)),
            }
        }
    };
}

for_each_body!(by_sender(result_side server));
for_each_body!(by_sender(result_side client));

impl ServerResult {
    /// Parses `value` as the result of a request with method `method`, sent by a server.
    ///
    /// `tools/call`, `prompts/get` and `resources/read` may also be answered by an
    /// `InputRequiredResult` (chosen when `resultType` is `"input_required"`), and `tools/call`
    /// by a `CreateTaskResult` (a `task` object and no `content`). Revision-free and lenient:
    /// unknown keys are ignored. An unknown method is [`ModelErrorKind::UnknownTag`].
    pub fn from_method(method: &str, value: Value) -> Result<Self, ModelError> {
        let irr_allowed = matches!(method, "tools/call" | "prompts/get" | "resources/read");
        if irr_allowed && is_input_required(&value) {
            return from_value(value).map(Self::InputRequired);
        }
        if method == "tools/call" && is_create_task(&value, &["content"]) {
            return from_value(value).map(Self::CreateTask);
        }
        // The tasks extension's flat task (2026-07-28): `resultType` says so.
        if method == "tools/call" && value.get("resultType").and_then(Value::as_str) == Some("task")
        {
            return from_value(value).map(Self::TaskCreated);
        }
        server_result_by_method(method, value)
    }
}

impl ClientResult {
    /// Parses `value` as the result of a request with method `method`, sent by a client.
    ///
    /// `sampling/createMessage` and `elicitation/create` may also be answered by a
    /// `CreateTaskResult` (2025-11-25). An unknown method is [`ModelErrorKind::UnknownTag`].
    pub fn from_method(method: &str, value: Value) -> Result<Self, ModelError> {
        if method == "sampling/createMessage" && is_create_task(&value, &["content", "model"]) {
            return from_value(value).map(Self::CreateTask);
        }
        if method == "elicitation/create" && is_create_task(&value, &["action"]) {
            return from_value(value).map(Self::CreateTask);
        }
        client_result_by_method(method, value)
    }
}

/// A [`KeyRank`] of `$union`: each `keys => Member` row parses the entries as that member.
macro_rules! ranking {
    ($union:ident { $($keys:expr => $member:ident,)* } otherwise $otherwise:ident) => {
        KeyRank {
            rows: &[$(($keys, |e| e.parse().map($union::$member))),*],
            otherwise: |e| e.parse().map($union::$otherwise),
        }
    };
}

/// The method-less ranking of [`ServerResult`]: the first row whose keys the object has picks
/// the member (`resultType: "input_required"` first, so a complete result is never mistaken
/// for one); `EmptyResult` when none does.
const SERVER_RANKING: KeyRank<ServerResult> = ranking!(ServerResult {
    Keys::Equals("resultType", "input_required") => InputRequired,
    Keys::Any(&["inputRequests", "requestState"]) => InputRequired,
    Keys::Any(&["supportedVersions"]) => Discover,
    Keys::All(&["protocolVersion", "serverInfo"]) => Initialize,
    Keys::Any(&["content"]) => CallTool,
    Keys::Any(&["tools"]) => ListTools,
    Keys::Any(&["prompts"]) => ListPrompts,
    Keys::Any(&["resources"]) => ListResources,
    Keys::Any(&["resourceTemplates"]) => ListResourceTemplates,
    Keys::Any(&["contents"]) => ReadResource,
    Keys::Any(&["messages"]) => GetPrompt,
    Keys::Any(&["completion"]) => Complete,
    Keys::Any(&["tasks"]) => ListTasks,
    Keys::Any(&["task"]) => CreateTask,
    Keys::All(&["taskId", "status"]) => GetTask,
} otherwise Empty);

/// The method-less ranking of [`ClientResult`], as [`SERVER_RANKING`].
const CLIENT_RANKING: KeyRank<ClientResult> = ranking!(ClientResult {
    Keys::Any(&["roots"]) => ListRoots,
    Keys::Any(&["action"]) => Elicit,
    Keys::Any(&["model", "role", "content"]) => CreateMessage,
    Keys::Any(&["tasks"]) => ListTasks,
    Keys::Any(&["task"]) => CreateTask,
    Keys::All(&["taskId", "status"]) => GetTask,
} otherwise Empty);

impl<'de> Deserialize<'de> for ServerResult {
    /// Method-less parse: the member is chosen by its distinctive keys (the `SERVER_RANKING` table).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::deserialize_by_keys(
            d,
            |e| SERVER_RANKING.choose(e),
            |value| {
                crate::de::strict::from_value::<EmptyResult>(&value)
                    .map(Self::Empty)
                    .map_err(|e| e.to_string())
            },
        )
    }
}

impl<'de> Deserialize<'de> for ClientResult {
    /// Method-less parse: the member is chosen by its distinctive keys (the `CLIENT_RANKING` table).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::deserialize_by_keys(
            d,
            |e| CLIENT_RANKING.choose(e),
            |value| {
                crate::de::strict::from_value::<EmptyResult>(&value)
                    .map(Self::Empty)
                    .map_err(|e| e.to_string())
            },
        )
    }
}
