//! [`WireBody`] and [`WireParse`] for the superset model's bodies, unions and envelopes.

use serde::Serializer;
use serde_json::{Map, Value};

use super::body::sealed::Sealed;
use super::body::{BodyInfo, BodyKind, WireBody};
use super::parse::MethodResult;
use super::parse::{Arm, MandateFacts, MethodTable, ParseKind, WireParse, plain, ranked};
use super::{EmissionReport, EmitError, EmitErrorKind, JsonPath, ParseError, PathSegment};
use crate::jsonrpc::{
    JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RawRequest,
};
use crate::model::*;
use crate::{ProtocolVersion, VersionLike};

/// A message body with a planned writer: [`Sealed`]'s planned outputs are the planned emitter's.
macro_rules! planned_body {
    ($ty:ty) => {
        impl Sealed for $ty {
            fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
                super::planned::body_text(self, version, out)
            }

            fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
                super::planned::body_value(self, version)
            }
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
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: ParseKind = ParseKind::Request;
            const FRAME_METHODS: Option<&'static [&'static str]> =
                Some(&[<$ty as Request>::METHOD]);

            fn mandate_facts(&self) -> MandateFacts<'_> {
                MandateFacts::request(
                    <$ty as Request>::METHOD,
                    RequestMeta::meta(self).map(|m| &m.0),
                )
            }
        }
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
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: ParseKind = ParseKind::Notification;
            const FRAME_METHODS: Option<&'static [&'static str]> =
                Some(&[<$ty as Notification>::METHOD]);
        }
    )*};
}

macro_rules! results {
    ($($ty:ident),* $(,)?) => {$(
        planned_body!($ty);
        impl WireBody for $ty {
            fn body_info(&self) -> BodyInfo {
                BodyInfo::result(stringify!($ty))
            }
        }
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: ParseKind = ParseKind::Result;

            fn mandate_facts(&self) -> MandateFacts<'_> {
                ResultTypeOf::result_type_facts(self)
            }
        }
    )*};
}

macro_rules! fragments {
    ($($ty:ident),* $(,)?) => {$(
        impl WireParse for $ty {
            const TYPE_NAME: &'static str = stringify!($ty);
            const KIND: ParseKind = ParseKind::Fragment;
        }
    )*};
}

/// The body table's rows, each through its list macro: `requests!`, `notifications!`,
/// `results!` and the `resultType` accessor of each result.
macro_rules! wire_bodies {
    (
        requests { $($req:ident: $_rsender:ident => $_result:ident,)* }
        notifications { $($note:ident: $_nsender:ident,)* }
        results { $($res:ident: $rt:ident,)* }
    ) => {
        requests!($($req),*);
        notifications!($($note),*);
        results!($($res),*);
        $(result_type_of!($rt $res);)*
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

/// `resultType` of a typed result, for the 2026-07-28 mandates on typed values.
trait ResultTypeOf {
    fn result_type_facts(&self) -> MandateFacts<'_>;
}

/// The [`ResultTypeOf`] impl of a result row: `field` reads its `result_type` field, `none`
/// does not keep `resultType` (the text entry points check it on a `Value` at 2026-07-28),
/// `own` is written by hand below.
macro_rules! result_type_of {
    (field $ty:ident) => {
        impl ResultTypeOf for $ty {
            fn result_type_facts(&self) -> MandateFacts<'_> {
                MandateFacts::result(self.result_type.as_ref().map(ResultType::as_str))
            }
        }
    };
    (none $ty:ident) => {
        impl ResultTypeOf for $ty {
            fn result_type_facts(&self) -> MandateFacts<'_> {
                MandateFacts::UNKNOWN
            }
        }
    };
    (own $ty:ident) => {};
}

crate::model::methods::for_each_body!(wire_bodies);

impl ResultTypeOf for TaskCreatedResult {
    fn result_type_facts(&self) -> MandateFacts<'_> {
        MandateFacts::result(Some(self.result_type.as_str()))
    }
}

impl ResultTypeOf for GetTaskPayloadResult {
    fn result_type_facts(&self) -> MandateFacts<'_> {
        // An open object: `resultType` stays among the other keys.
        MandateFacts::result(self.extra.get("resultType").and_then(Value::as_str))
    }
}

macro_rules! method_unions {
    ($($ty:ident => $kind:ident, $pkind:ident, $table:ident;)*) => {$(
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
            const KIND: ParseKind = ParseKind::$pkind;

            fn mandate_facts(&self) -> MandateFacts<'_> {
                UnionFacts::union_facts(self)
            }

            const METHOD_TABLE: Option<MethodTable> = Some(|f| f.$table);
            const FRAME_METHODS: Option<&'static [&'static str]> = Some(<$ty>::TAGS);

            fn union_method(&self) -> Option<&'static str> {
                Some(self.method())
            }
        }
    )*};
}

/// The mandate facts of a method-tagged union: its member's.
trait UnionFacts {
    fn union_facts(&self) -> MandateFacts<'_>;
}

impl UnionFacts for ClientRequest {
    fn union_facts(&self) -> MandateFacts<'_> {
        match self {
            ClientRequest::Ping(r) => r.mandate_facts(),
            ClientRequest::Initialize(r) => r.mandate_facts(),
            ClientRequest::Complete(r) => r.mandate_facts(),
            ClientRequest::SetLevel(r) => r.mandate_facts(),
            ClientRequest::GetPrompt(r) => r.mandate_facts(),
            ClientRequest::ListPrompts(r) => r.mandate_facts(),
            ClientRequest::ListResources(r) => r.mandate_facts(),
            ClientRequest::ListResourceTemplates(r) => r.mandate_facts(),
            ClientRequest::ReadResource(r) => r.mandate_facts(),
            ClientRequest::Subscribe(r) => r.mandate_facts(),
            ClientRequest::Unsubscribe(r) => r.mandate_facts(),
            ClientRequest::CallTool(r) => r.mandate_facts(),
            ClientRequest::ListTools(r) => r.mandate_facts(),
            ClientRequest::Discover(r) => r.mandate_facts(),
            ClientRequest::SubscriptionsListen(r) => r.mandate_facts(),
            ClientRequest::GetTask(r) => r.mandate_facts(),
            ClientRequest::GetTaskPayload(r) => r.mandate_facts(),
            ClientRequest::ListTasks(r) => r.mandate_facts(),
            ClientRequest::CancelTask(r) => r.mandate_facts(),
            ClientRequest::UpdateTask(r) => r.mandate_facts(),
        }
    }
}

impl UnionFacts for ServerRequest {
    fn union_facts(&self) -> MandateFacts<'_> {
        // No server request is among the client requests the `_meta` mandate reads.
        MandateFacts::request(self.method(), None)
    }
}

// Notifications have no mandate.
impl UnionFacts for ClientNotification {
    fn union_facts(&self) -> MandateFacts<'_> {
        MandateFacts::UNKNOWN
    }
}

impl UnionFacts for ServerNotification {
    fn union_facts(&self) -> MandateFacts<'_> {
        MandateFacts::UNKNOWN
    }
}

method_unions! {
    ClientRequest => Request, Request, client_requests;
    ServerRequest => Request, Request, server_requests;
    ClientNotification => Notification, Notification, client_notifications;
    ServerNotification => Notification, Notification, server_notifications;
}

planned_body!(ServerResult);
impl WireBody for ServerResult {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::result(match self {
            ServerResult::Empty(_) => "EmptyResult",
            ServerResult::Initialize(_) => "InitializeResult",
            ServerResult::Discover(_) => "DiscoverResult",
            ServerResult::Complete(_) => "CompleteResult",
            ServerResult::GetPrompt(_) => "GetPromptResult",
            ServerResult::ListPrompts(_) => "ListPromptsResult",
            ServerResult::ListResources(_) => "ListResourcesResult",
            ServerResult::ListResourceTemplates(_) => "ListResourceTemplatesResult",
            ServerResult::ReadResource(_) => "ReadResourceResult",
            ServerResult::CallTool(_) => "CallToolResult",
            ServerResult::ListTools(_) => "ListToolsResult",
            ServerResult::SubscriptionsListen(_) => "SubscriptionsListenResult",
            ServerResult::InputRequired(_) => "InputRequiredResult",
            ServerResult::CreateTask(_) => "CreateTaskResult",
            ServerResult::GetTask(_) => "GetTaskResult",
            ServerResult::GetTaskPayload(_) => "GetTaskPayloadResult",
            ServerResult::ListTasks(_) => "ListTasksResult",
            ServerResult::TaskCreated(_) => "TaskCreatedResult",
            ServerResult::DetailedTask(_) => "GetDetailedTaskResult",
            #[allow(unreachable_patterns)]
            _ => "Result",
        })
    }
}

planned_body!(ClientResult);
impl WireBody for ClientResult {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::result(match self {
            ClientResult::Empty(_) => "EmptyResult",
            ClientResult::CreateMessage(_) => "CreateMessageResult",
            ClientResult::ListRoots(_) => "ListRootsResult",
            ClientResult::Elicit(_) => "ElicitResult",
            ClientResult::CreateTask(_) => "CreateTaskResult",
            ClientResult::GetTask(_) => "GetTaskResult",
            ClientResult::GetTaskPayload(_) => "GetTaskPayloadResult",
            ClientResult::ListTasks(_) => "ListTasksResult",
            #[allow(unreachable_patterns)]
            _ => "Result",
        })
    }
}

macro_rules! arm {
    ($union:ident :: $variant:ident($ty:ident)) => {
        Arm {
            name: stringify!($ty),
            parse: |v: &Value, ver: &VersionLike| {
                plain::<$ty>(v, ver, stringify!($ty), ParseKind::Result).map($union::$variant)
            },
        }
    };
}

impl WireParse for ServerResult {
    const TYPE_NAME: &'static str = "ServerResult";
    const KIND: ParseKind = ParseKind::Result;
    const DIRECT: bool = false;

    fn parse_structure(value: &Value, version: &VersionLike) -> Result<Self, ParseError> {
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
    }
}

impl WireParse for ClientResult {
    const TYPE_NAME: &'static str = "ClientResult";
    const KIND: ParseKind = ParseKind::Result;
    const DIRECT: bool = false;

    fn parse_structure(value: &Value, version: &VersionLike) -> Result<Self, ParseError> {
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
    }
}

/// An untyped request or notification interior: emitted verbatim (it names no type to shape).
impl Sealed for RawRequest {}
impl WireBody for RawRequest {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("RawRequest")
    }
}

/// Emits a shaped interior as a JSON object, then writes the frame around it.
fn frame<S: Serializer>(
    version: ProtocolVersion,
    track: bool,
    ser: S,
    head: Map<String, Value>,
    member: Option<&'static str>,
    interior: Value,
    report: Option<EmissionReport>,
) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
    let mut out = head;
    let report = report.map(|mut r| {
        if let Some(m) = member {
            for c in r
                .stripped
                .iter_mut()
                .chain(r.injected.iter_mut())
                .chain(r.passed.iter_mut())
            {
                let mut segs = vec![PathSegment::Key(m.to_owned())];
                segs.extend(c.path.segments().iter().cloned());
                c.path = JsonPath::from_segments(segs);
            }
        }
        r
    });
    match (member, interior) {
        (Some(m), v) => {
            out.insert(m.to_owned(), v);
        }
        (None, Value::Object(fields)) => {
            for (k, v) in fields {
                if k != "jsonrpc" && k != "id" {
                    out.insert(k, v);
                }
            }
        }
        (None, other) => {
            return Err(EmitError::new(
                EmitErrorKind::Serialization,
                version,
                format!("a message body must serialize to an object, not {other}"),
                None,
            ));
        }
    }
    let _ = track;
    serde::Serialize::serialize(&out, ser)
        .map(|ok| (ok, report))
        .map_err(|e| EmitError::new(EmitErrorKind::Serialization, version, e.to_string(), None))
}

fn head(id: Option<Option<&crate::jsonrpc::RequestId>>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    if let Some(id) = id {
        m.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
    }
    m
}

/// The planned output of an envelope: `head` (the envelope's members before the body, without
/// the closing brace), then the body's planned text. A request or notification body's own
/// members follow the head (the body's opening brace becomes the comma); a result is the value
/// of `"result"`. Byte for byte what the envelope's shaping path writes.
fn envelope_text(
    head: &[u8],
    id: Option<&crate::jsonrpc::RequestId>,
    body: &dyn Fn(&mut Vec<u8>) -> bool,
    member: Option<&[u8]>,
    out: &mut Vec<u8>,
) -> bool {
    out.extend_from_slice(head);
    if let Some(id) = id {
        out.extend_from_slice(b",\"id\":");
        if serde_json::to_writer(&mut *out, id).is_err() {
            return false;
        }
    }
    match member {
        Some(member) => {
            out.extend_from_slice(member);
            if !body(out) {
                return false;
            }
            out.push(b'}');
        }
        None => {
            let brace = out.len();
            if !body(out) || out.get(brace) != Some(&b'{') {
                return false;
            }
            if out.get(brace + 1) == Some(&b'}') {
                // An empty body: the head closes.
                out.truncate(brace);
                out.push(b'}');
            } else {
                out[brace] = b',';
            }
        }
    }
    true
}

/// The planned value of an envelope: the head's members, then the body's (or `"result"`).
fn envelope_value(
    id: Option<&crate::jsonrpc::RequestId>,
    body: Option<Value>,
    member: Option<&str>,
) -> Option<Value> {
    let mut out = head(id.map(Some));
    match (member, body?) {
        (Some(m), v) => {
            out.insert(m.to_owned(), v);
        }
        (None, Value::Object(fields)) => {
            for (k, v) in fields {
                if k != "jsonrpc" && k != "id" {
                    out.insert(k, v);
                }
            }
        }
        (None, _) => return None,
    }
    Some(Value::Object(out))
}

const JSONRPC_HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\"";

impl<R: WireBody> Sealed for JsonRpcRequest<R> {
    fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
        let body = |out: &mut Vec<u8>| self.request.emit_planned(version, out);
        envelope_text(JSONRPC_HEAD, Some(&self.id), &body, None, out)
    }

    fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
        envelope_value(
            Some(&self.id),
            self.request.emit_planned_value(version),
            None,
        )
    }
}
impl<R: WireBody> WireBody for JsonRpcRequest<R> {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("JSONRPCRequest")
    }

    fn emit_with<S: Serializer>(
        &self,
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
        let (v, report) =
            self.request
                .emit_with(version, options, track, serde_json::value::Serializer)?;
        frame(
            version,
            track,
            ser,
            head(Some(Some(&self.id))),
            None,
            v,
            report,
        )
    }
}

impl<N: WireBody> Sealed for JsonRpcNotification<N> {
    fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
        let body = |out: &mut Vec<u8>| self.notification.emit_planned(version, out);
        envelope_text(JSONRPC_HEAD, None, &body, None, out)
    }

    fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
        let mut out = head(None);
        match self.notification.emit_planned_value(version)? {
            Value::Object(fields) => {
                for (k, v) in fields {
                    if k != "jsonrpc" && k != "id" {
                        out.insert(k, v);
                    }
                }
                Some(Value::Object(out))
            }
            _ => None,
        }
    }
}
impl<N: WireBody> WireBody for JsonRpcNotification<N> {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("JSONRPCNotification")
    }

    fn emit_with<S: Serializer>(
        &self,
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
        let (v, report) =
            self.notification
                .emit_with(version, options, track, serde_json::value::Serializer)?;
        frame(version, track, ser, head(None), None, v, report)
    }
}

impl<T: WireBody> Sealed for JsonRpcResponse<T> {
    fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
        let body = |out: &mut Vec<u8>| self.result.emit_planned(version, out);
        envelope_text(
            JSONRPC_HEAD,
            Some(&self.id),
            &body,
            Some(b",\"result\":"),
            out,
        )
    }

    fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
        envelope_value(
            Some(&self.id),
            self.result.emit_planned_value(version),
            Some("result"),
        )
    }
}
impl<T: WireBody> WireBody for JsonRpcResponse<T> {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("JSONRPCResponse")
    }

    fn emit_with<S: Serializer>(
        &self,
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
        let (v, report) =
            self.result
                .emit_with(version, options, track, serde_json::value::Serializer)?;
        frame(
            version,
            track,
            ser,
            head(Some(Some(&self.id))),
            Some("result"),
            v,
            report,
        )
    }
}

/// An untyped result interior (`JsonRpcResponse<JsonObject>`): emitted verbatim.
impl Sealed for JsonRpcResponse<Map<String, Value>> {}
impl WireBody for JsonRpcResponse<Map<String, Value>> {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("JSONRPCResponse")
    }
}

impl Sealed for JsonRpcError {}
impl WireBody for JsonRpcError {
    fn body_info(&self) -> BodyInfo {
        BodyInfo::envelope("JSONRPCError")
    }
}

/// A whole message: each variant emits as its own envelope.
impl<R, N, T> Sealed for JsonRpcMessage<R, N, T>
where
    JsonRpcRequest<R>: WireBody,
    JsonRpcNotification<N>: WireBody,
    JsonRpcResponse<T>: WireBody,
{
    fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
        match self {
            JsonRpcMessage::Request(m) => m.emit_planned(version, out),
            JsonRpcMessage::Notification(m) => m.emit_planned(version, out),
            JsonRpcMessage::Response(m) => m.emit_planned(version, out),
            JsonRpcMessage::Error(m) => m.emit_planned(version, out),
        }
    }

    fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
        match self {
            JsonRpcMessage::Request(m) => m.emit_planned_value(version),
            JsonRpcMessage::Notification(m) => m.emit_planned_value(version),
            JsonRpcMessage::Response(m) => m.emit_planned_value(version),
            JsonRpcMessage::Error(m) => m.emit_planned_value(version),
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

    fn emit_with<S: Serializer>(
        &self,
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
        match self {
            JsonRpcMessage::Request(m) => m.emit_with(version, options, track, ser),
            JsonRpcMessage::Notification(m) => m.emit_with(version, options, track, ser),
            JsonRpcMessage::Response(m) => m.emit_with(version, options, track, ser),
            JsonRpcMessage::Error(m) => m.emit_with(version, options, track, ser),
        }
    }
}

/// A result typed by its method: emitted as the union member it holds.
impl Sealed for MethodResult {
    fn emit_planned(&self, version: ProtocolVersion, out: &mut Vec<u8>) -> bool {
        match self {
            MethodResult::Server(r) => r.emit_planned(version, out),
            MethodResult::Client(r) => r.emit_planned(version, out),
        }
    }

    fn emit_planned_value(&self, version: ProtocolVersion) -> Option<Value> {
        match self {
            MethodResult::Server(r) => r.emit_planned_value(version),
            MethodResult::Client(r) => r.emit_planned_value(version),
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

    fn emit_with<S: Serializer>(
        &self,
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<EmissionReport>), EmitError> {
        match self {
            MethodResult::Server(r) => r.emit_with(version, options, track, ser),
            MethodResult::Client(r) => r.emit_with(version, options, track, ser),
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
