//! [`WireBody`], the values `serialize_for` accepts, and the impls of it and of [`WireParse`]
//! for the superset model's bodies, unions and envelopes.

use serde_json::{Map, Value};

use self::sealed::Sealed;
use super::body::{BodyInfo, BodyKind};
use super::parse::MethodResult;
use super::parse::{Arm, MandateFacts, MethodTable, Structure, WireParse, plain, ranked};
use super::planned::{Refused, Sink, emit_plain};
use super::{EmitError, EmitTarget};
use crate::VersionLike;
use crate::jsonrpc::{
    JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RawRequest,
};
use crate::model::methods::by_sender;
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

/// A message body of the model, emitted by walking its description: `|b| name, method` is its
/// [`BodyInfo`] (of `$kind`), `|b| facts` what the revision's checks read from it
/// ([`WireParse::mandate_facts`]), and any further [`WireParse`] items follow the `;`.
macro_rules! body {
    (
        $ty:ident: $kind:ident, |$i:tt| $name:expr, $method:expr,
        |$f:tt| $facts:expr $(; $($parse:tt)*)?
    ) => {
        impl Sealed for $ty {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                super::planned::emit_body(self, self.body_info(), to, sink)
            }
        }
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                let $i = self;
                BodyInfo {
                    type_name: $name,
                    kind: BodyKind::$kind,
                    method: $method,
                }
            }
        }
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: Option<BodyKind> = Some(BodyKind::$kind);
            $($($parse)*)?

            fn mandate_facts(&self) -> Option<MandateFacts<'_>> {
                let $f = self;
                $facts
            }
        }
    };
}

/// The body table's rows: each request (its `params._meta` read by the mandates),
/// notification and result (its `resultType` read as the row's column says: `result_type!`).
macro_rules! wire_bodies {
    (
        ()
        requests {
            $($(#[$_rd:meta])* $_rv:ident($req:ident): $_rs:ident => $_rrv:ident($_rt:ident),)*
        }
        notifications { $($(#[$_nd:meta])* $_nv:ident($note:ident): $_ns:ident,)* }
        results { $($(#[$_sd:meta])* $_sv:ident($res:ident): $_ss:ident, $rt:ident,)* }
    ) => {
        $(body!($req: Request, |_| stringify!($req), Some(<$req as Request>::METHOD), |r| {
            MandateFacts::body(<$req as Request>::METHOD, RequestMeta::meta(r).map(|m| &m.0))
        });)*
        $(body!($note: Notification, |_| stringify!($note), Some(<$note as Notification>::METHOD),
            |_| None);)*
        $(body!($res: Result, |_| stringify!($res), None, |r| result_type!($rt $res r));)*
    };
}

/// What a result row's `resultType` is read from, for the 2026-07-28 mandates on typed values
/// (the body table's column): the `result_type` field (`field`), nothing the type keeps (`none`:
/// the text reads check it on a `Value` at 2026-07-28), or where the type keeps it (`own`).
macro_rules! result_type {
    (field $_t:ident $r:ident) => {
        MandateFacts::result($r.result_type.as_ref().map(ResultType::as_str))
    };
    (none $_t:ident $r:ident) => {{
        let _ = $r;
        None
    }};
    (own TaskCreatedResult $r:ident) => {
        MandateFacts::result(Some($r.result_type.as_str()))
    };
    // An open object: `resultType` stays among the other keys.
    (own GetTaskPayloadResult $r:ident) => {
        MandateFacts::result($r.extra.get("resultType").and_then(Value::as_str))
    };
}

crate::model::methods::for_each_body!(wire_bodies);

/// Fragments: a plain lenient parse, no checks.
macro_rules! fragments {
    ($($ty:ident),* $(,)?) => {$(
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: Option<BodyKind> = None;
        }
    )*};
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

/// The method-tagged unions: each member is its own type and method (the method map agrees: see
/// the tests), and exists where the revision's `$table` lists it. A member's facts: its method,
/// and its `params._meta` where a mandate reads it (a client request's; no server request is
/// among the client requests the `_meta` mandate reads).
macro_rules! method_unions {
    ($($ty:ident => $kind:ident, $table:ident, |$u:pat_param| $meta:expr;)*) => {$(
        body!($ty: $kind, |u| u.type_name(), Some(u.method()), |u| {
            let $u = u;
            MandateFacts::body(u.method(), $meta)
        }; const METHOD_TABLE: Option<MethodTable> = Some(|f| f.$table););
    )*};
}

method_unions! {
    ClientRequest => Request, client_requests, |r| RequestMeta::meta(r).map(|m| &m.0);
    ServerRequest => Request, server_requests, |_| None;
    ClientNotification => Notification, client_notifications, |_| None;
    ServerNotification => Notification, server_notifications, |_| None;
}

/// The result unions, from the body table's rows of each side: parsed by the ranked structural
/// selection over their members. The tasks extension's results are in no revision's schema, so
/// they declare no keys and are never a structural candidate.
macro_rules! result_unions {
    (
        ()
        client_requests { $($_cr:tt)* }
        server_requests { $($_sr:tt)* }
        client_notifications { $($_cn:tt)* }
        server_notifications { $($_sn:tt)* }
        server_results { $($(#[$_sd:meta])* $sv:ident($st:ident): $_srt:ident,)* }
        client_results { $($(#[$_cd:meta])* $cv:ident($ct:ident): $_crt:ident,)* }
    ) => {
        result_unions!(@union ServerResult $($sv($st))*);
        result_unions!(@union ClientResult $($cv($ct))*);
    };
    (@union $union:ident $($variant:ident($ty:ident))*) => {
        body!($union: Result, |u| u.type_name(), None, |_| None;
            const RANKED: Option<Structure<Self>> = Some(|value, version| {
                let arms = [$(Arm {
                    name: stringify!($ty),
                    parse: |v: &Value, ver: &VersionLike| plain::<$ty>(v, ver).map($union::$variant),
                }),*];
                ranked(value, version, stringify!($union), &arms)
            });
        );
    };
}

crate::model::methods::for_each_body!(by_sender(result_unions));

/// Envelopes and the bodies that name no type to shape, each with its name (of a
/// [`BodyKind::Envelope`]) and how it emits (`|value, to, sink| …`): untyped interiors and errors verbatim, as plain
/// serde writes them; a typed envelope as its frame around its body ([`envelope`]).
macro_rules! envelopes {
    ($([$($g:tt)*] $ty:ty => $name:literal, |$v:ident, $to:ident, $sink:ident| $emit:expr;)*) => {$(
        impl<$($g)*> Sealed for $ty {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                let ($v, $to, $sink) = (self, to, sink);
                $emit
            }
        }
        impl<$($g)*> WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo {
                    type_name: $name,
                    kind: BodyKind::Envelope,
                    method: None,
                }
            }
        }
    )*};
}

envelopes! {
    [] RawRequest => "RawRequest", |b, to, sink| emit_plain(b, b.body_info(), to.version, sink);
    [] JsonRpcResponse<Map<String, Value>> => "JSONRPCResponse",
        |b, to, sink| emit_plain(b, b.body_info(), to.version, sink);
    [] JsonRpcError => "JSONRPCError", |b, to, sink| emit_plain(b, b.body_info(), to.version, sink);
    [R: WireBody] JsonRpcRequest<R> => "JSONRPCRequest",
        |f, to, sink| envelope(sink, to, Some(&f.id), None, &f.request);
    [N: WireBody] JsonRpcNotification<N> => "JSONRPCNotification",
        |f, to, sink| envelope(sink, to, None, None, &f.notification);
    [T: WireBody] JsonRpcResponse<T> => "JSONRPCResponse",
        |f, to, sink| envelope(sink, to, Some(&f.id), Some("result"), &f.result);
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
        body.emit_into(to, s).map_err(Refused::from)
    })
    .map_err(|r| r.into_error(to.version, BodyKind::Envelope))
}

/// Sums of bodies (`[generics] type where [bounds] { variants }`): each variant emits as the
/// body it holds, and is that body. A whole message emits as its own envelope; a result typed by
/// its method as the union member it holds.
macro_rules! sums {
    ($([$($g:tt)*] $ty:ty where [$($w:tt)*] { $($variant:path),* })*) => {$(
        impl<$($g)*> Sealed for $ty where Self: serde::Serialize, $($w)* {
            fn emit_into<S: Sink>(&self, to: EmitTarget, sink: &mut S) -> Result<(), EmitError> {
                match self {
                    $($variant(b) => b.emit_into(to, sink),)*
                }
            }
        }
        impl<$($g)*> WireBody for $ty where Self: serde::Serialize, $($w)* {
            fn body_info(&self) -> BodyInfo {
                match self {
                    $($variant(b) => b.body_info(),)*
                }
            }
        }
    )*};
}

sums! {
    [R, N, T] JsonRpcMessage<R, N, T> where [
        JsonRpcRequest<R>: WireBody,
        JsonRpcNotification<N>: WireBody,
        JsonRpcResponse<T>: WireBody,
    ] {
        JsonRpcMessage::Request,
        JsonRpcMessage::Notification,
        JsonRpcMessage::Response,
        JsonRpcMessage::Error
    }
    [] MethodResult where [] { MethodResult::Server, MethodResult::Client }
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
