//! [`WireBody`], the values `serialize_for` accepts, and the impls of it and of [`WireParse`]
//! for the superset model's bodies, unions and envelopes.

use serde_json::{Map, Value};

use self::sealed::Sealed;
use super::body::{BodyInfo, BodyKind};
use super::parse::MethodResult;
use super::parse::{Arm, MandateFacts, MethodTable, Structure, WireParse, plain, ranked};
use super::planned::{Refused, Sink};
use super::{EmitError, EmitTarget};
use crate::VersionLike;
use crate::jsonrpc::{
    JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RawRequest,
};
use crate::model::*;

pub(crate) mod sealed {
    use crate::wire::planned::Sink;
    use crate::wire::{EmitError, EmitTarget};

    /// Only this crate decides what is a message body, and how it is emitted.
    pub trait Sealed {
        /// Writes the body for `to` into `sink` through the emitter ([`crate::wire::planned`]).
        fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError>;
    }
}

/// A whole message body or JSON-RPC envelope: the only values [`super::serialize_for`] accepts.
///
/// The trait is sealed and implemented only for whole bodies, so passing a fragment (a content
/// block, capabilities, params) to `serialize_for` does not compile:
///
/// ```compile_fail
/// # use mcp_wire::wire::serialize_for;
/// # use mcp_wire::ProtocolVersion;
/// // `serde_json::Value` is not a message body.
/// let fragment = serde_json::json!({"type": "text", "text": "hi"});
/// let _ = serialize_for(&fragment, ProtocolVersion::V2025_06_18);
/// ```
pub trait WireBody: serde::Serialize + sealed::Sealed {
    /// Which body this value is (for enums: the variant's).
    fn body_info(&self) -> BodyInfo;
}

impl<T: WireBody + ?Sized> sealed::Sealed for &T {
    fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
        (**self).emit_into(to, sink)
    }
}

impl<T: WireBody + ?Sized> WireBody for &T {
    fn body_info(&self) -> BodyInfo {
        (**self).body_info()
    }
}

/// A message body of the model: emitted by walking its description.
macro_rules! planned_body {
    ($ty:ty) => {
        impl Sealed for $ty {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                super::planned::emit_body(self, self.body_info(), to, sink)
            }
        }
    };
}

/// Envelopes and bodies that name no type to shape (emitted as plain serde writes them), with
/// their [`BodyInfo::envelope`] names.
macro_rules! plain_bodies {
    ($($ty:ty => $name:literal,)*) => {$(
        impl Sealed for $ty {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                super::planned::emit_plain(self, self.body_info(), to.version, sink)
            }
        }
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::envelope($name)
            }
        }
    )*};
}

/// [`WireParse`] for a model type, named as it is in Rust, of `$kind`; `|r| facts` reads what the
/// revision's checks read from it ([`WireParse::mandate_facts`]).
macro_rules! wire_parse {
    ($ty:ident: $kind:ident $(, |$r:ident| $facts:expr)?) => {
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: Option<BodyKind> = Some(BodyKind::$kind);
            $(
                fn mandate_facts(&self) -> Option<MandateFacts<'_>> {
                    let $r = self;
                    $facts
                }
            )?
        }
    };
}

macro_rules! requests {
    ($($ty:ident),* $(,)?) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::request(stringify!($ty), <$ty as Request>::METHOD)
            }
        }
        wire_parse!($ty: Request, |r| {
            MandateFacts::body(<$ty as Request>::METHOD, RequestMeta::meta(r).map(|m| &m.0))
        });
    )*};
}

macro_rules! notifications {
    ($($ty:ident),* $(,)?) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::notification(stringify!($ty), <$ty as Notification>::METHOD)
            }
        }
        wire_parse!($ty: Notification);
    )*};
}

macro_rules! results {
    ($($ty:ident $rt:ident),* $(,)?) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::result(stringify!($ty))
            }
        }
        wire_parse!($ty: Result, |r| result_type!($rt r));
    )*};
}

macro_rules! fragments {
    ($($ty:ident),* $(,)?) => {$(
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: Option<BodyKind> = None;
        }
    )*};
}

/// The body table's rows, each through its list macro: `requests!`, `notifications!`,
/// `results!` and the `resultType` accessor of each result.
macro_rules! wire_bodies {
    (
        ()
        requests {
            $($(#[$_rd:meta])* $_rv:ident($req:ident): $_rs:ident => $_rrv:ident($_rt:ident),)*
        }
        notifications { $($(#[$_nd:meta])* $_nv:ident($note:ident): $_ns:ident,)* }
        results { $($(#[$_sd:meta])* $_sv:ident($res:ident): $_ss:ident, $rt:ident,)* }
    ) => {
        requests!($($req),*);
        notifications!($($note),*);
        results!($($res $rt),*);
    };
}

fragments!(
    ContentBlock,
    SamplingMessage,
    ClientCapabilities,
    ServerCapabilities,
    Tool,
    InputRequest,
    InputResponse,
);

/// What a result row's `resultType` is read from, for the 2026-07-28 mandates on typed values
/// (the body table's column): the `result_type` field (`field`), nothing the type keeps (`none`:
/// the text reads check it on a `Value` at 2026-07-28), or the type's own `result_type_facts`
/// below (`own`).
macro_rules! result_type {
    (field $r:ident) => {
        MandateFacts::result($r.result_type.as_ref().map(ResultType::as_str))
    };
    (none $r:ident) => {{
        let _ = $r;
        None
    }};
    (own $r:ident) => {
        $r.result_type_facts()
    };
}

crate::model::methods::for_each_body!(wire_bodies);

impl TaskCreatedResult {
    fn result_type_facts(&self) -> Option<MandateFacts<'_>> {
        MandateFacts::result(Some(self.result_type.as_str()))
    }
}

impl GetTaskPayloadResult {
    fn result_type_facts(&self) -> Option<MandateFacts<'_>> {
        // An open object: `resultType` stays among the other keys.
        MandateFacts::result(self.extra.get("resultType").and_then(Value::as_str))
    }
}

macro_rules! method_unions {
    ($($ty:ident => $kind:ident, $table:ident, |$u:pat_param| $meta:expr;)*) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            /// The member's own type and method (the method map agrees: see the tests).
            fn body_info(&self) -> BodyInfo {
                BodyInfo {
                    type_name: self.type_name(),
                    kind: BodyKind::$kind,
                    method: Some(self.method()),
                }
            }
        }
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: Option<BodyKind> = Some(BodyKind::$kind);

            fn mandate_facts(&self) -> Option<MandateFacts<'_>> {
                let $u = self;
                MandateFacts::body(self.method(), $meta)
            }

            const METHOD_TABLE: Option<MethodTable> = Some(|f| f.$table);

        }
    )*};
}

// A member's facts: its method, and its `params._meta` where a mandate reads it (a client
// request's; no server request is among the client requests the `_meta` mandate reads).
method_unions! {
    ClientRequest => Request, client_requests, |r| RequestMeta::meta(r).map(|m| &m.0);
    ServerRequest => Request, server_requests, |_| None;
    ClientNotification => Notification, client_notifications, |_| None;
    ServerNotification => Notification, server_notifications, |_| None;
}

macro_rules! result_union_bodies {
    ($($ty:ident),*) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::result(self.type_name())
            }
        }
    )*};
}

result_union_bodies!(ServerResult, ClientResult);

macro_rules! arm {
    ($union:ident :: $variant:ident($ty:ident)) => {
        Arm {
            name: stringify!($ty),
            parse: |v: &Value, ver: &VersionLike| plain::<$ty>(v, ver).map($union::$variant),
        }
    };
}

impl WireParse for ServerResult {
    const TYPE_NAME: &'static str = "ServerResult";
    const KIND: Option<BodyKind> = Some(BodyKind::Result);
    const RANKED: Option<Structure<Self>> = Some(|value, version| {
        let arms = [
            arm!(ServerResult::Empty(EmptyResult)),
            arm!(ServerResult::Initialize(InitializeResult)),
            arm!(ServerResult::Discover(DiscoverResult)),
            arm!(ServerResult::Complete(CompleteResult)),
            arm!(ServerResult::GetPrompt(GetPromptResult)),
            arm!(ServerResult::ListPrompts(ListPromptsResult)),
            arm!(ServerResult::ListResources(ListResourcesResult)),
            arm!(ServerResult::ListResourceTemplates(
                ListResourceTemplatesResult
            )),
            arm!(ServerResult::ReadResource(ReadResourceResult)),
            arm!(ServerResult::CallTool(CallToolResult)),
            arm!(ServerResult::ListTools(ListToolsResult)),
            arm!(ServerResult::SubscriptionsListen(SubscriptionsListenResult)),
            arm!(ServerResult::CreateTask(CreateTaskResult)),
            arm!(ServerResult::GetTask(GetTaskResult)),
            arm!(ServerResult::GetTaskPayload(GetTaskPayloadResult)),
            arm!(ServerResult::ListTasks(ListTasksResult)),
            arm!(ServerResult::InputRequired(InputRequiredResult)),
        ];
        ranked(value, version, "ServerResult", &arms)
    });
}

impl WireParse for ClientResult {
    const TYPE_NAME: &'static str = "ClientResult";
    const KIND: Option<BodyKind> = Some(BodyKind::Result);
    const RANKED: Option<Structure<Self>> = Some(|value, version| {
        let arms = [
            arm!(ClientResult::Empty(EmptyResult)),
            arm!(ClientResult::CreateMessage(CreateMessageResult)),
            arm!(ClientResult::ListRoots(ListRootsResult)),
            arm!(ClientResult::Elicit(ElicitResult)),
            arm!(ClientResult::CreateTask(CreateTaskResult)),
            arm!(ClientResult::GetTask(GetTaskResult)),
            arm!(ClientResult::GetTaskPayload(GetTaskPayloadResult)),
            arm!(ClientResult::ListTasks(ListTasksResult)),
        ];
        ranked(value, version, "ClientResult", &arms)
    });
}

// Untyped interiors and errors: emitted verbatim (they name no type to shape).
plain_bodies! {
    RawRequest => "RawRequest",
    JsonRpcResponse<Map<String, Value>> => "JSONRPCResponse",
    JsonRpcError => "JSONRPCError",
}

/// A JSON-RPC frame around `body` (see [`Sink::envelope`]). A refusal inside the body is
/// located in the frame, as the report's changes are: under `member` when the body is one
/// (a response's `/result/...`), at the frame's root otherwise (a request's `/params/...`).
fn envelope<B: WireBody + ?Sized, S: Sink>(
    sink: &mut S,
    to: EmitTarget,
    id: Option<&crate::jsonrpc::RequestId>,
    member: Option<&'static str>,
    body: &B,
) -> Result<(), EmitError> {
    sink.envelope(id, member, &mut |s| {
        body.emit_into(to, s).map_err(|e| match member {
            Some(m) => Refused::from(e).at_key(m),
            None => Refused::from(e),
        })
    })
    .map_err(|r| r.into_error(to.version, BodyKind::Envelope))
}

/// The typed envelopes: each writes its frame around its body (`id` when it has one;
/// `$member`: the member holding the body when the body is one).
macro_rules! envelopes {
    ($($ty:ident<$p:ident>.$body:ident, $id:ident, $member:expr => $name:literal;)*) => {$(
        impl<$p: WireBody> Sealed for $ty<$p> {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                envelope(sink, to, envelope_id!(self, $id), $member, &self.$body)
            }
        }
        impl<$p: WireBody> WireBody for $ty<$p> {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::envelope($name)
            }
        }
    )*};
}

/// An envelope's id, for [`envelopes!`].
macro_rules! envelope_id {
    ($frame:ident, id) => {
        Some(&$frame.id)
    };
    ($frame:ident, none) => {
        None
    };
}

envelopes! {
    JsonRpcRequest<R>.request, id, None => "JSONRPCRequest";
    JsonRpcNotification<N>.notification, none, None => "JSONRPCNotification";
    JsonRpcResponse<T>.result, id, Some("result") => "JSONRPCResponse";
}

/// A whole message: each variant emits as its own envelope.
impl<R, N, T> Sealed for JsonRpcMessage<R, N, T>
where
    JsonRpcRequest<R>: WireBody,
    JsonRpcNotification<N>: WireBody,
    JsonRpcResponse<T>: WireBody,
{
    fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
        match self {
            JsonRpcMessage::Request(m) => m.emit_into(to, sink),
            JsonRpcMessage::Notification(m) => m.emit_into(to, sink),
            JsonRpcMessage::Response(m) => m.emit_into(to, sink),
            JsonRpcMessage::Error(m) => m.emit_into(to, sink),
        }
    }
}

impl<R, N, T> WireBody for JsonRpcMessage<R, N, T>
where
    JsonRpcRequest<R>: WireBody,
    JsonRpcNotification<N>: WireBody,
    JsonRpcResponse<T>: WireBody,
    Self: serde::Serialize,
{
    fn body_info(&self) -> BodyInfo {
        match self {
            JsonRpcMessage::Request(m) => m.body_info(),
            JsonRpcMessage::Notification(m) => m.body_info(),
            JsonRpcMessage::Response(m) => m.body_info(),
            JsonRpcMessage::Error(m) => m.body_info(),
        }
    }
}

/// A result typed by its method: emitted as the union member it holds.
impl Sealed for MethodResult {
    fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
        match self {
            MethodResult::Server(r) => r.emit_into(to, sink),
            MethodResult::Client(r) => r.emit_into(to, sink),
        }
    }
}

impl WireBody for MethodResult {
    fn body_info(&self) -> BodyInfo {
        match self {
            MethodResult::Server(r) => r.body_info(),
            MethodResult::Client(r) => r.body_info(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{
        ClientNotification, ClientRequest, ServerNotification, ServerRequest, method_info,
    };

    /// A union member's body info names its own type; the emitter looks owners up by that
    /// name, so it must be the method map's type for the member's method.
    #[test]
    fn union_members_name_the_method_maps_types() {
        let unions: [(&[&str], &[&str]); 4] = [
            (ClientRequest::TAGS, ClientRequest::TYPE_NAMES),
            (ServerRequest::TAGS, ServerRequest::TYPE_NAMES),
            (ClientNotification::TAGS, ClientNotification::TYPE_NAMES),
            (ServerNotification::TAGS, ServerNotification::TYPE_NAMES),
        ];
        for (tags, names) in unions {
            assert_eq!(tags.len(), names.len());
            for (method, name) in tags.iter().zip(names) {
                let info = method_info(method).unwrap_or_else(|| panic!("{method} is mapped"));
                assert_eq!(info.type_name, *name, "{method}");
            }
        }
    }
}
