//! The JSON-RPC 2.0 envelope, identical at every revision: requests, notifications, responses,
//! error responses, the message enum, request ids, and batches (2025-03-26 only).
//!
//! The envelope types are generic over their interior. With the defaults (`RawRequest`,
//! `RawNotification`, `JsonObject`) the interior is untyped: any `method` and any `params` parse,
//! which is what a transport or a session layer needs before it knows who it is talking to. With
//! model types (`JsonRpcMessage<ClientRequest, ClientNotification, ClientResult>`) the interior is
//! typed by `method`. Results carry no tag: type them by the originating request's method with
//! [`ServerResult::from_method`](crate::model::ServerResult::from_method) /
//! [`ClientResult::from_method`](crate::model::ClientResult::from_method).
//!
//! Rules (the same at every revision):
//! - `jsonrpc` must be `"2.0"`; `id` is a string or an integer. A boolean, float or null `id` on a
//!   message with a `method` makes it an invalid request (-32600), never a notification.
//! - An error response whose request id is unknown carries `"id": null` (we always emit the key;
//!   on read an absent `id` counts as null).
//! - Unknown top-level keys are ignored.
//! - Batches (JSON arrays) exist only at 2025-03-26: [`JsonRpcFrame`] parses and emits them
//!   there and refuses them, with [`ModelErrorKind::BatchNotAllowed`], everywhere else.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeOwned};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::de::error::{ModelError, ModelErrorKind, encode};
use crate::de::from_value;
use crate::path::{JsonPath, json_kind};
use crate::version::{ProtocolVersion, VersionLike};

pub use crate::de::error::codes;

/// A JSON object (`params`, `result`, free-form payloads).
pub type JsonObject = Map<String, Value>;

/// The `jsonrpc` member's only value.
pub const JSONRPC_VERSION: &str = "2.0";

/// Implements serde for an enum `{ String(String), Integer(i64) }` with the strict JSON-RPC id
/// rules: strings stay strings, integers stay integers, anything else is refused.
macro_rules! string_or_integer {
    ($name:ident, $what:literal) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $name::String(v) => s.serialize_str(v),
                    $name::Integer(v) => s.serialize_i64(*v),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!($what, " (a string or an integer)"))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::String(v.to_owned()))
                    }
                    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<$name, E> {
                        Ok($name::String(v))
                    }
                    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                        Ok($name::Integer(v))
                    }
                    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<$name, E> {
                        i64::try_from(v).map($name::Integer).map_err(|_| {
                            E::invalid_value(serde::de::Unexpected::Unsigned(v), &self)
                        })
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $name::String(v) => write!(f, "{v:?}"),
                    $name::Integer(v) => write!(f, "{v}"),
                }
            }
        }

        impl From<i64> for $name {
            fn from(v: i64) -> Self {
                $name::Integer(v)
            }
        }

        impl From<&str> for $name {
            fn from(v: &str) -> Self {
                $name::String(v.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(v: String) -> Self {
                $name::String(v)
            }
        }
    };
}
pub(crate) use string_or_integer;

/// A request id: a string or an integer, echoed back with its exact wire type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// A string id (`"7"` stays a string).
    String(String),
    /// An integer id.
    Integer(i64),
}

string_or_integer!(RequestId, "a request id");

impl RequestId {
    /// Reads an id strictly: `Some` for a string or an integer that fits `i64`, `None` for
    /// anything else (a boolean, a fraction, `null`, an integer beyond `i64`).
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Integer),
            _ => None,
        }
    }

    /// The id as JSON, with its wire type.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::String(s) => Value::String(s.clone()),
            RequestId::Integer(i) => Value::from(*i),
        }
    }
}

/// The interior of an untyped request: any method, any params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RawRequest {
    /// The method name, as sent.
    pub method: String,
    /// The params object, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<JsonObject>,
}

impl RawRequest {
    /// A request interior.
    pub fn new(method: impl Into<String>, params: Option<JsonObject>) -> Self {
        RawRequest {
            method: method.into(),
            params,
        }
    }
}

/// The interior of an untyped notification: any method, any params.
pub type RawNotification = RawRequest;

/// A request frame: `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcRequest<R = RawRequest> {
    /// The request id.
    pub id: RequestId,
    /// The body (`method` and `params`).
    pub request: R,
}

/// A notification frame: `{"jsonrpc":"2.0","method":…,"params":…}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcNotification<N = RawNotification> {
    /// The body (`method` and `params`).
    pub notification: N,
}

/// A success response frame: `{"jsonrpc":"2.0","id":…,"result":{…}}` (the schemas' name from
/// 2025-11-25 on is `JSONRPCResultResponse`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcResponse<T = JsonObject> {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: T,
}

/// An error response frame: `{"jsonrpc":"2.0","id":…|null,"error":{…}}` (the schemas' name from
/// 2025-11-25 on is `JSONRPCErrorResponse`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcError {
    /// The id of the request this answers; `None` (emitted as `null`) when it is not known.
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorData,
}

// Written as serde writes it (nothing in an error is shaped): the tasks extension inlines one in
// a failed task.

/// The `error` member of an error response (the schemas' `Error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorData {
    /// The error code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Extra information, any JSON value (a present `null` is kept as `Some(Null)`).
    #[serde(
        default,
        deserialize_with = "crate::de::keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
}

impl ErrorData {
    /// An error with this code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorData {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Sets `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// The error a peer is answered with: the code, the message without the path, and `data`
/// with the JSON Pointer of the fault (`pointer`).
impl From<&ModelError> for ErrorData {
    fn from(e: &ModelError) -> Self {
        let pointer = e.path.pointer();
        ErrorData::new(e.code(), e.kind.to_string())
            .with_data(serde_json::json!({ "pointer": pointer }))
    }
}

impl From<ModelError> for ErrorData {
    fn from(e: ModelError) -> Self {
        ErrorData::from(&e)
    }
}

impl ErrorData {
    /// `-32700`: the text is not JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        ErrorData::new(codes::PARSE_ERROR, message)
    }

    /// `-32600`: not a valid JSON-RPC request.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        ErrorData::new(codes::INVALID_REQUEST, message)
    }

    /// `-32601`: the method does not exist.
    pub fn method_not_found(message: impl Into<String>) -> Self {
        ErrorData::new(codes::METHOD_NOT_FOUND, message)
    }

    /// `-32602`: the params do not fit the method.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorData::new(codes::INVALID_PARAMS, message)
    }

    /// `-32603`: the receiver failed.
    pub fn internal_error(message: impl Into<String>) -> Self {
        ErrorData::new(codes::INTERNAL_ERROR, message)
    }

    /// The error response carrying this error to the request `id` (`None`: the id is unknown,
    /// sent as `null`).
    pub fn to_response(self, id: Option<RequestId>) -> JsonRpcError {
        JsonRpcError::new(id, self)
    }
}

/// Any JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum JsonRpcMessage<R = RawRequest, N = RawNotification, T = JsonObject> {
    /// A request.
    Request(JsonRpcRequest<R>),
    /// A notification.
    Notification(JsonRpcNotification<N>),
    /// A success response.
    Response(JsonRpcResponse<T>),
    /// An error response.
    Error(JsonRpcError),
}

/// A message with untyped interiors (any method, any params, any result): what a transport reads
/// before it types anything. `RawMessage::from_value(v)` works where the generic defaults of
/// [`JsonRpcMessage`] do not apply.
pub type RawMessage = JsonRpcMessage<RawRequest, RawNotification, JsonObject>;

impl<R> JsonRpcRequest<R> {
    /// A request frame with this id and body.
    pub fn new(id: impl Into<RequestId>, request: R) -> Self {
        JsonRpcRequest {
            id: id.into(),
            request,
        }
    }
}

impl<N> JsonRpcNotification<N> {
    /// A notification frame with this body.
    pub fn new(notification: N) -> Self {
        JsonRpcNotification { notification }
    }
}

impl<T> JsonRpcResponse<T> {
    /// A success response to request `id`.
    pub fn new(id: impl Into<RequestId>, result: T) -> Self {
        JsonRpcResponse {
            id: id.into(),
            result,
        }
    }
}

impl JsonRpcError {
    /// An error response to request `id` (`None`: the id is unknown, emitted as `null`).
    pub fn new(id: Option<RequestId>, error: ErrorData) -> Self {
        JsonRpcError { id, error }
    }

    /// The error response to request `id` from any of the crate's errors (each converts into
    /// [`ErrorData`] with its code and, where it has one, `data.pointer`) or an [`ErrorData`].
    ///
    /// ```
    /// use mcp_wire::jsonrpc::{ErrorData, JsonRpcError};
    /// use mcp_wire::model::{CallToolRequestParams, from_value};
    ///
    /// let e = from_value::<CallToolRequestParams>(serde_json::json!({"name": 5})).unwrap_err();
    /// let reply = serde_json::to_value(JsonRpcError::reply_to(3, &e))?;
    /// assert_eq!(reply["id"], 3);
    /// assert_eq!(reply["error"]["code"], -32602);
    /// assert_eq!(reply["error"]["data"]["pointer"], "/name");
    /// let own = JsonRpcError::reply_to("a", ErrorData::method_not_found("no such tool"));
    /// assert_eq!(serde_json::to_value(own)?["error"]["code"], -32601);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn reply_to(id: impl Into<RequestId>, error: impl Into<ErrorData>) -> Self {
        JsonRpcError {
            id: Some(id.into()),
            error: error.into(),
        }
    }
}

impl JsonRpcRequest<RawRequest> {
    /// Types the body: parses `method`/`params` as `R` (e.g. `ClientRequest`). Error paths are
    /// relative to the frame (`$.params.name`).
    pub fn parse_as<R: DeserializeOwned>(&self) -> Result<JsonRpcRequest<R>, ModelError> {
        let body = serde_json::to_value(&self.request).unwrap_or(Value::Null);
        Ok(JsonRpcRequest {
            id: self.id.clone(),
            request: from_value(body)?,
        })
    }
}

impl JsonRpcNotification<RawNotification> {
    /// Types the body: parses `method`/`params` as `N` (e.g. `ServerNotification`).
    pub fn parse_as<N: DeserializeOwned>(&self) -> Result<JsonRpcNotification<N>, ModelError> {
        let body = serde_json::to_value(&self.notification).unwrap_or(Value::Null);
        Ok(JsonRpcNotification {
            notification: from_value(body)?,
        })
    }
}

impl JsonRpcResponse<JsonObject> {
    /// Types the result as `T`. Error paths are relative to the frame (`$.result.content[0]`).
    pub fn parse_as<T: DeserializeOwned>(&self) -> Result<JsonRpcResponse<T>, ModelError> {
        Ok(JsonRpcResponse {
            id: self.id.clone(),
            result: from_value(Value::Object(self.result.clone()))
                .map_err(|e| e.under_key("result"))?,
        })
    }
}

fn envelope(path: JsonPath, message: impl fmt::Display) -> ModelError {
    ModelError::new(path, ModelErrorKind::InvalidEnvelope(message.to_string()))
}

/// What one message is by its envelope, as [`judge`] decides it.
pub(crate) enum Kind<'a> {
    /// `method` and an `id`.
    Request { id: RequestId, method: Cow<'a, str> },
    /// `method` and no `id`.
    Notification { method: Cow<'a, str> },
    /// `result` and an `id`.
    Response { id: RequestId },
    /// `error`; a `null` or absent `id` is `None`.
    Error { id: Option<RequestId>, code: i64 },
}

impl Kind<'_> {
    /// The session's (owned) form of the verdict.
    pub(crate) fn into_envelope(self) -> Envelope {
        match self {
            Kind::Request { id, method } => Envelope::Request {
                id,
                method: method.into_owned(),
            },
            Kind::Notification { method } => Envelope::Notification {
                method: method.into_owned(),
            },
            Kind::Response { id } => Envelope::Response { id },
            Kind::Error { id, code } => Envelope::Error { id, code },
        }
    }
}

/// What a frame is, by its JSON-RPC envelope: all a [`Session`](crate::session::Session) needs
/// besides the frame's [`Evidence`](crate::session::Evidence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Envelope {
    /// `{jsonrpc, id, method, params?}`.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: String,
    },
    /// `{jsonrpc, method, params?}`.
    Notification {
        /// Its method.
        method: String,
    },
    /// `{jsonrpc, id, result}`.
    Response {
        /// The id of the request it answers.
        id: RequestId,
    },
    /// `{jsonrpc, id, error:{code, message, data?}}`; `id` may be `null`.
    Error {
        /// The id of the request it answers, if any.
        id: Option<RequestId>,
        /// The error code.
        code: i64,
    },
}

impl Envelope {
    /// The envelope of a frame, by the crate's one set of envelope rules (those of
    /// [`RawMessage`]), read in place: a fault is a
    /// [`ModelError`] (-32600) with the path of the faulty member.
    pub fn of(frame: &Value) -> Result<Envelope, ModelError> {
        kind_of(frame).map(Kind::into_envelope)
    }

    /// The envelope of a parsed message.
    pub fn of_message(message: &RawMessage) -> Envelope {
        use JsonRpcMessage as M;
        match message {
            M::Request(r) => Envelope::Request {
                id: r.id.clone(),
                method: r.request.method.clone(),
            },
            M::Notification(n) => Envelope::Notification {
                method: n.notification.method.clone(),
            },
            M::Response(r) => Envelope::Response { id: r.id.clone() },
            M::Error(e) => Envelope::Error {
                id: e.id.clone(),
                code: e.error.code,
            },
        }
    }

    /// The frame's id (requests, responses, error responses with a known id).
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Envelope::Request { id, .. } | Envelope::Response { id } => Some(id),
            Envelope::Error { id, .. } => id.as_ref(),
            Envelope::Notification { .. } => None,
        }
    }
}

/// The envelope members of one message, however it was read: the small ones as values
/// (borrowed from a `Value`, or read from their JSON text), `params` and `result` only as their
/// JSON kind (they may be megabytes, and the envelope asks only whether they are objects).
pub(crate) struct Members<'a> {
    /// `jsonrpc`.
    pub jsonrpc: Option<Cow<'a, Value>>,
    /// `id` (a present `null` is `Some(Null)`).
    pub id: Option<Cow<'a, Value>>,
    /// `method`.
    pub method: Option<Cow<'a, Value>>,
    /// The JSON kind of `params` ([`json_kind`]'s words).
    pub params: Option<&'static str>,
    /// The JSON kind of `result`.
    pub result: Option<&'static str>,
    /// `error`.
    pub error: Option<Cow<'a, Value>>,
}

/// Why a message's envelope is invalid (-32600): where, what, and the id when it is usable
/// (so an error reply can still name the request).
pub(crate) struct EnvelopeFault {
    /// The faulty member (the root when a member is missing or members conflict).
    pub path: JsonPath,
    /// What was expected and what was found.
    pub message: String,
    /// The frame's id, when it is a valid one.
    pub id: Option<RequestId>,
}

impl From<EnvelopeFault> for ModelError {
    fn from(f: EnvelopeFault) -> Self {
        envelope(f.path, f.message)
    }
}

/// Judges the envelope of one message: the one place every envelope question is answered,
/// for every reader of the crate ([`JsonRpcMessage::from_value`],
/// [`Envelope::of`], the wire's text splitter). The rules (the
/// same at every revision): `jsonrpc` is `"2.0"`; exactly one of `method`, `result`, `error`;
/// `method` a string, `params` structured (an object, or an array the method's parse refuses
/// with -32602), `result` an object; `error` an object with an integer `code`
/// and a string `message`; `id` a string or an integer within `i64` — a bad or `null` `id` on a
/// `method` makes an invalid request, never a notification; an error response's `null` or
/// absent `id` is an unknown one.
pub(crate) fn judge(members: Members<'_>) -> Result<Kind<'_>, EnvelopeFault> {
    let usable = members.id.as_deref().and_then(RequestId::from_value);
    let fault = |path: JsonPath, message: String| EnvelopeFault {
        path,
        message,
        id: usable.clone(),
    };
    match members.jsonrpc.as_deref() {
        Some(Value::String(v)) if v == JSONRPC_VERSION => {}
        None => return Err(fault(JsonPath::root(), "missing `jsonrpc`".into())),
        Some(other) => {
            return Err(fault(
                JsonPath::root().key("jsonrpc"),
                format!("`jsonrpc` must be \"2.0\", found {other}"),
            ));
        }
    }
    let present = [
        members.method.is_some(),
        members.result.is_some(),
        members.error.is_some(),
    ];
    if present.iter().filter(|p| **p).count() > 1 {
        return Err(fault(
            JsonPath::root(),
            "more than one of `method`, `result` and `error`".into(),
        ));
    }
    let id = |id: Option<Cow<'_, Value>>| -> Result<RequestId, EnvelopeFault> {
        let id = id.ok_or_else(|| fault(JsonPath::root(), "a response without `id`".into()))?;
        RequestId::from_value(&id).ok_or_else(|| id_fault(&id))
    };
    // A member whose JSON kind is not among `allowed` (`params` and `result` are objects; JSON-RPC
    // also allows array `params`, which the method's own parse then answers with -32602).
    let kind_fault = |key: &str, kind: Option<&'static str>, allowed: &[&str]| match kind {
        Some(kind) if !allowed.contains(&kind) => Some(fault(
            JsonPath::root().key(key),
            format!("`{key}` must be an object, found {kind}"),
        )),
        _ => None,
    };
    if let Some(method) = members.method {
        let method = match method {
            Cow::Borrowed(Value::String(m)) => Cow::Borrowed(m.as_str()),
            Cow::Owned(Value::String(m)) => Cow::Owned(m),
            other => {
                return Err(fault(
                    JsonPath::root().key("method"),
                    format!("`method` must be a string, found {}", json_kind(&other)),
                ));
            }
        };
        if let Some(f) = kind_fault("params", members.params, &["an object", "an array"]) {
            return Err(f);
        }
        return Ok(match members.id {
            None => Kind::Notification { method },
            Some(raw) => Kind::Request {
                id: id(Some(raw))?,
                method,
            },
        });
    }
    if members.result.is_some() {
        let id = id(members.id)?;
        if let Some(f) = kind_fault("result", members.result, &["an object"]) {
            return Err(f);
        }
        return Ok(Kind::Response { id });
    }
    if let Some(error) = members.error {
        let id = match members.id.as_deref() {
            None | Some(Value::Null) => None,
            Some(raw) => Some(RequestId::from_value(raw).ok_or_else(|| id_fault(raw))?),
        };
        let at = JsonPath::root().key("error");
        let Value::Object(error) = error.as_ref() else {
            return Err(fault(
                at,
                format!("`error` must be an object, found {}", json_kind(&error)),
            ));
        };
        let code = match error.get("code") {
            None => return Err(fault(at, "`error` without `code`".into())),
            Some(code) => code.as_i64().ok_or_else(|| {
                fault(
                    at.clone().key("code"),
                    format!("`error.code` must be an integer, found {code}"),
                )
            })?,
        };
        match error.get("message") {
            Some(Value::String(_)) => {}
            None => return Err(fault(at, "`error` without `message`".into())),
            Some(other) => {
                return Err(fault(
                    at.key("message"),
                    format!(
                        "`error.message` must be a string, found {}",
                        json_kind(other)
                    ),
                ));
            }
        }
        return Ok(Kind::Error { id, code });
    }
    Err(fault(
        JsonPath::root(),
        "none of `method`, `result`, `error`".into(),
    ))
}

/// The fault of an `id` that is not a string or an integer within `i64`.
fn id_fault(value: &Value) -> EnvelopeFault {
    let found = match value {
        Value::Number(n) if n.is_f64() => format!("a fraction ({n})"),
        Value::Number(n) => format!("an integer beyond the signed 64-bit range ({n})"),
        other => json_kind(other).to_owned(),
    };
    EnvelopeFault {
        path: JsonPath::root().key("id"),
        message: format!("`id` must be a string or an integer, found {found}"),
        id: None,
    }
}

/// Judges the envelope of one message held as a `Value` ([`judge`], members borrowed).
pub(crate) fn kind_of(value: &Value) -> Result<Kind<'_>, ModelError> {
    let map = match value {
        Value::Object(map) => map,
        Value::Array(_) => {
            return Err(envelope(
                JsonPath::root(),
                "a batch (JSON array) where one message was expected; see JsonRpcFrame",
            ));
        }
        other => {
            return Err(envelope(
                JsonPath::root(),
                format!("expected a JSON object, found {}", json_kind(other)),
            ));
        }
    };
    let member = |key: &str| map.get(key).map(Cow::Borrowed);
    Ok(judge(Members {
        jsonrpc: member("jsonrpc"),
        id: member("id"),
        method: member("method"),
        params: map.get("params").map(json_kind),
        result: map.get("result").map(json_kind),
        error: member("error"),
    })?)
}

impl<R: DeserializeOwned, N: DeserializeOwned, T: DeserializeOwned> JsonRpcMessage<R, N, T> {
    /// Parses one message from a JSON value: the envelope judged as [`JsonRpcFrame`] judges it, then the
    /// interior as `R`, `N` or `T` (or [`ErrorData`]).
    pub fn from_value(value: Value) -> Result<Self, ModelError> {
        /// The envelope's verdict, owned, so the value can be taken apart.
        enum Head {
            Request(RequestId),
            Notification,
            Response(RequestId),
            Error(Option<RequestId>),
        }
        let head = match kind_of(&value)? {
            Kind::Request { id, .. } => Head::Request(id),
            Kind::Notification { .. } => Head::Notification,
            Kind::Response { id } => Head::Response(id),
            Kind::Error { id, .. } => Head::Error(id),
        };
        let Value::Object(mut map) = value else {
            return Err(envelope(JsonPath::root(), "expected a JSON object"));
        };
        map.remove("jsonrpc");
        map.remove("id");
        match head {
            Head::Request(id) => Ok(JsonRpcMessage::Request(JsonRpcRequest {
                id,
                request: from_value(Value::Object(map))?,
            })),
            Head::Notification => Ok(JsonRpcMessage::Notification(JsonRpcNotification {
                notification: from_value(Value::Object(map))?,
            })),
            Head::Response(id) => Ok(JsonRpcMessage::Response(JsonRpcResponse {
                id,
                result: from_value(map.remove("result").unwrap_or_default())
                    .map_err(|e| e.under_key("result"))?,
            })),
            Head::Error(id) => {
                let error: ErrorData = from_value(map.remove("error").unwrap_or_default())
                    .map_err(|e| {
                        ModelError::new(
                            e.path.under(&JsonPath::root().key("error")),
                            ModelErrorKind::InvalidEnvelope(e.kind.to_string()),
                        )
                    })?;
                Ok(JsonRpcMessage::Error(JsonRpcError { id, error }))
            }
        }
    }

    /// Parses one message from JSON text, read strictly ([`crate::json_text`]): text that is
    /// not JSON, or repeats a key anywhere, is [`ModelErrorKind::NotJson`] (-32700).
    pub fn from_json(text: &str) -> Result<Self, ModelError> {
        Self::from_value(crate::json_text::read(text.as_bytes())?)
    }
}

impl<R, N, T> JsonRpcMessage<R, N, T> {
    /// The id of a request, response or error response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            JsonRpcMessage::Request(r) => Some(&r.id),
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            JsonRpcMessage::Notification(_) => None,
        }
    }
}

/// The `id` member of a frame being written.
enum IdSlot<'a> {
    /// No `id` key (notifications).
    Absent,
    /// `"id": <id>`, or `"id": null` for `None`.
    Present(Option<&'a RequestId>),
}

/// Writes `{"jsonrpc":"2.0", "id"…, <member>…, <body's keys>…}`; a flattened body must
/// serialize to an object.
fn serialize_frame<S: Serializer, B: Serialize>(
    s: S,
    id: IdSlot<'_>,
    member: Option<(&str, &B)>,
    flatten: Option<&B>,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
    if let IdSlot::Present(id) = id {
        map.serialize_entry("id", &id)?;
    }
    if let Some((k, v)) = member {
        map.serialize_entry(k, v)?;
    }
    if let Some(b) = flatten {
        match serde_json::to_value(b).map_err(serde::ser::Error::custom)? {
            Value::Object(fields) => {
                for (k, v) in fields {
                    if k != "jsonrpc" && k != "id" {
                        map.serialize_entry(&k, &v)?;
                    }
                }
            }
            other => {
                return Err(serde::ser::Error::custom(format!(
                    "a message body must serialize to an object, not {}",
                    json_kind(&other)
                )));
            }
        }
    }
    map.end()
}

impl<R: Serialize> Serialize for JsonRpcRequest<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_frame(
            s,
            IdSlot::Present(Some(&self.id)),
            None,
            Some(&self.request),
        )
    }
}

impl<N: Serialize> Serialize for JsonRpcNotification<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_frame(s, IdSlot::Absent, None, Some(&self.notification))
    }
}

impl<T: Serialize> Serialize for JsonRpcResponse<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_frame(
            s,
            IdSlot::Present(Some(&self.id)),
            Some(("result", &self.result)),
            None,
        )
    }
}

impl Serialize for JsonRpcError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_frame(
            s,
            IdSlot::Present(self.id.as_ref()),
            Some(("error", &self.error)),
            None,
        )
    }
}

impl<R: Serialize, N: Serialize, T: Serialize> Serialize for JsonRpcMessage<R, N, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            JsonRpcMessage::Request(m) => m.serialize(s),
            JsonRpcMessage::Notification(m) => m.serialize(s),
            JsonRpcMessage::Response(m) => m.serialize(s),
            JsonRpcMessage::Error(m) => m.serialize(s),
        }
    }
}

impl<'de, R: DeserializeOwned, N: DeserializeOwned, T: DeserializeOwned> Deserialize<'de>
    for JsonRpcMessage<R, N, T>
{
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(value).map_err(|e| de::Error::custom(encode(&e.path, &e.kind)))
    }
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for JsonRpcRequest<R> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match JsonRpcMessage::<R, RawNotification, JsonObject>::from_value(value) {
            Ok(JsonRpcMessage::Request(m)) => Ok(m),
            Ok(_) => Err(de::Error::custom(encode(
                &JsonPath::root(),
                &ModelErrorKind::InvalidEnvelope("not a request".to_owned()),
            ))),
            Err(e) => Err(de::Error::custom(encode(&e.path, &e.kind))),
        }
    }
}

impl<'de> Deserialize<'de> for JsonRpcError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match JsonRpcMessage::<RawRequest, RawNotification, JsonObject>::from_value(value) {
            Ok(JsonRpcMessage::Error(m)) => Ok(m),
            Ok(_) => Err(de::Error::custom(encode(
                &JsonPath::root(),
                &ModelErrorKind::InvalidEnvelope("not an error response".to_owned()),
            ))),
            Err(e) => Err(de::Error::custom(encode(&e.path, &e.kind))),
        }
    }
}

impl<'de, N: DeserializeOwned> Deserialize<'de> for JsonRpcNotification<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match JsonRpcMessage::<RawRequest, N, JsonObject>::from_value(value) {
            Ok(JsonRpcMessage::Notification(m)) => Ok(m),
            Ok(_) => Err(de::Error::custom(encode(
                &JsonPath::root(),
                &ModelErrorKind::InvalidEnvelope("not a notification".to_owned()),
            ))),
            Err(e) => Err(de::Error::custom(encode(&e.path, &e.kind))),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for JsonRpcResponse<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match JsonRpcMessage::<RawRequest, RawNotification, T>::from_value(value) {
            Ok(JsonRpcMessage::Response(m)) => Ok(m),
            Ok(_) => Err(de::Error::custom(encode(
                &JsonPath::root(),
                &ModelErrorKind::InvalidEnvelope("not a success response".to_owned()),
            ))),
            Err(e) => Err(de::Error::custom(encode(&e.path, &e.kind))),
        }
    }
}

/// What one transport unit carries: one message, or (2025-03-26 only) a batch of them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum JsonRpcFrame<R = RawRequest, N = RawNotification, T = JsonObject> {
    /// A single message.
    Single(JsonRpcMessage<R, N, T>),
    /// A batch (JSON array) of messages; only at 2025-03-26.
    Batch(Vec<JsonRpcMessage<R, N, T>>),
}

/// Whether `version` has JSON-RPC batches (only 2025-03-26 does).
pub fn batches_allowed(version: &VersionLike) -> bool {
    version.known() == Some(ProtocolVersion::V2025_03_26)
}

/// The messages of a batch: `None` when `unit` is not an array (one message, judged by the
/// envelope rules), the elements of a non-empty batch at a revision that has batches, and
/// [`ModelErrorKind::BatchNotAllowed`] (or an empty batch, -32600) otherwise. Every reader of
/// a transport unit asks here.
pub fn batch_messages<'v>(
    unit: &'v Value,
    version: &VersionLike,
) -> Result<Option<&'v [Value]>, ModelError> {
    let Value::Array(items) = unit else {
        return Ok(None);
    };
    if !batches_allowed(version) {
        return Err(ModelError::new(
            JsonPath::root(),
            ModelErrorKind::BatchNotAllowed {
                version: version.to_string(),
            },
        ));
    }
    if items.is_empty() {
        return Err(envelope(JsonPath::root(), "an empty batch"));
    }
    Ok(Some(items))
}

impl<R: DeserializeOwned, N: DeserializeOwned, T: DeserializeOwned> JsonRpcFrame<R, N, T> {
    /// Parses one transport unit at `version`: an array is a batch, accepted only at 2025-03-26
    /// (and never empty); elsewhere it is [`ModelErrorKind::BatchNotAllowed`].
    pub fn from_value_at(value: Value, version: &VersionLike) -> Result<Self, ModelError> {
        let is_batch = batch_messages(&value, version)?.is_some();
        match value {
            Value::Array(items) if is_batch => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    JsonRpcMessage::from_value(item)
                        .map_err(|e| e.under(&JsonPath::root().index(i)))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(JsonRpcFrame::Batch),
            other => JsonRpcMessage::from_value(other).map(JsonRpcFrame::Single),
        }
    }
}

impl<R: Serialize, N: Serialize, T: Serialize> JsonRpcFrame<R, N, T> {
    /// Emits the frame for `version`; a batch anywhere but 2025-03-26 is
    /// [`ModelErrorKind::BatchNotAllowed`].
    pub fn to_value_at(&self, version: ProtocolVersion) -> Result<Value, ModelError> {
        let invalid = |e: serde_json::Error| {
            ModelError::new(JsonPath::root(), ModelErrorKind::Invalid(e.to_string()))
        };
        match self {
            JsonRpcFrame::Single(m) => serde_json::to_value(m).map_err(invalid),
            JsonRpcFrame::Batch(items) => {
                if !batches_allowed(&VersionLike::Known(version)) {
                    return Err(ModelError::new(
                        JsonPath::root(),
                        ModelErrorKind::BatchNotAllowed {
                            version: version.to_string(),
                        },
                    ));
                }
                serde_json::to_value(items).map_err(invalid)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    type Raw = RawMessage;

    fn parse(v: Value) -> Result<Raw, ModelError> {
        Raw::from_value(v)
    }

    #[test]
    fn ids_keep_their_wire_type() {
        let m = parse(json!({"jsonrpc":"2.0","id":"7","method":"ping"})).unwrap();
        assert_eq!(m.id(), Some(&RequestId::String("7".into())));
        let m = parse(json!({"jsonrpc":"2.0","id":7,"method":"ping"})).unwrap();
        assert_eq!(m.id(), Some(&RequestId::Integer(7)));
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"jsonrpc":"2.0","id":7,"method":"ping"})
        );
    }

    #[test]
    fn bad_ids_are_invalid_requests_never_notifications() {
        for id in [
            json!(true),
            json!(1.0),
            json!(null),
            json!([1]),
            json!({"a":1}),
        ] {
            let err = parse(json!({"jsonrpc":"2.0","id":id,"method":"x"})).unwrap_err();
            assert_eq!(err.code(), -32600, "{id}");
            assert_eq!(err.path.pointer(), "/id");
            assert!(matches!(err.kind, ModelErrorKind::InvalidEnvelope(_)));
        }
    }

    #[test]
    fn envelope_shape_errors() {
        let cases = [
            (json!({"id":1,"method":"x"}), ""),
            (json!({"jsonrpc":"1.0","id":1,"method":"x"}), "/jsonrpc"),
            (json!({"jsonrpc":"2.0","id":1,"method":3}), "/method"),
            (json!({"jsonrpc":"2.0","id":1}), ""),
            (json!({"jsonrpc":"2.0","result":{}}), ""),
            (
                json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}),
                "",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"error":{"message":"m"}}),
                "/error",
            ),
            (json!("text"), ""),
        ];
        for (frame, path) in cases {
            let err = parse(frame.clone()).unwrap_err();
            assert_eq!(err.code(), -32600, "{frame}");
            assert_eq!(err.path.pointer(), path, "{frame}");
        }
        let err = Raw::from_json("{not json").unwrap_err();
        assert_eq!(err.code(), -32700);
    }

    #[test]
    fn error_with_unknown_id_emits_null() {
        let e = JsonRpcError::new(None, ErrorData::new(-32700, "Parse error"));
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})
        );
        // Absent and null ids both read as unknown.
        for frame in [
            json!({"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}),
            json!({"jsonrpc":"2.0","error":{"code":1,"message":"m"}}),
        ] {
            match parse(frame).unwrap() {
                JsonRpcMessage::Error(e) => assert_eq!(e.id, None),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn unknown_top_level_keys_are_ignored() {
        let m = parse(json!({"jsonrpc":"2.0","method":"notifications/x","extra":1})).unwrap();
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"jsonrpc":"2.0","method":"notifications/x"})
        );
    }

    #[test]
    fn every_envelope_question_has_one_answer() {
        // Integer ids beyond i64 are refused, as a fraction is; the reason names the number.
        for (id, found) in [
            (json!(u64::MAX), "an integer beyond the signed 64-bit range"),
            (json!(2.5), "a fraction"),
        ] {
            let err = parse(json!({"jsonrpc":"2.0","id":id,"method":"x"})).unwrap_err();
            assert_eq!(err.path.pointer(), "/id");
            assert!(err.to_string().contains(found), "{err}");
            let answer = Envelope::of(&json!({"jsonrpc":"2.0","id":id,"result":{}}));
            assert_eq!(answer.unwrap_err().path.pointer(), "/id");
        }
        // Exactly one of `method`, `result`, `error`; `params` and `result` are objects.
        for (frame, path) in [
            (json!({"jsonrpc":"2.0","id":1,"method":"x","result":{}}), ""),
            (
                json!({"jsonrpc":"2.0","method":"x","error":{"code":1,"message":"m"}}),
                "",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"method":"x","params":5}),
                "/params",
            ),
            (json!({"jsonrpc":"2.0","id":1,"result":[]}), "/result"),
            (
                json!({"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}),
                "/error/code",
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}),
                "/error/message",
            ),
        ] {
            let typed = parse(frame.clone()).unwrap_err();
            let borrowed = Envelope::of(&frame).unwrap_err();
            assert_eq!(typed, borrowed, "{frame}");
            assert_eq!(typed.code(), codes::INVALID_REQUEST, "{frame}");
            assert_eq!(typed.path.pointer(), path, "{frame}");
        }
        // Array params are a valid envelope; the method's parse answers them (-32602).
        let array = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]});
        assert!(Envelope::of(&array).is_ok());
        // Null ids: never on a request or a response; an error's null or absent id is unknown.
        assert!(Envelope::of(&json!({"jsonrpc":"2.0","id":null,"method":"x"})).is_err());
        assert!(Envelope::of(&json!({"jsonrpc":"2.0","id":null,"result":{}})).is_err());
        for frame in [
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}),
            json!({"jsonrpc":"2.0","error":{"code":-1,"message":"m"}}),
        ] {
            assert_eq!(
                Envelope::of(&frame),
                Ok(Envelope::Error { id: None, code: -1 })
            );
        }
        // Duplicate members: the text reader refuses a repeated key anywhere in the frame.
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#,
        ] {
            let err = Raw::from_json(text).unwrap_err();
            assert_eq!(err.code(), codes::PARSE_ERROR, "{text}");
            assert!(err.to_string().contains("duplicate key"), "{err}");
        }
        // Batches, per revision: only 2025-03-26 has them, never empty.
        let batch = json!([{"jsonrpc":"2.0","method":"notifications/initialized"}]);
        for v in ProtocolVersion::ALL {
            let got = batch_messages(&batch, &VersionLike::Known(v));
            match v {
                ProtocolVersion::V2025_03_26 => {
                    assert_eq!(got.unwrap().map(<[Value]>::len), Some(1))
                }
                _ => assert!(
                    matches!(
                        got.unwrap_err().kind,
                        ModelErrorKind::BatchNotAllowed { .. }
                    ),
                    "{v}"
                ),
            }
            let single = json!({"jsonrpc":"2.0","method":"x"});
            assert_eq!(
                batch_messages(&single, &VersionLike::Known(v)).unwrap(),
                None
            );
        }
        let empty = json!([]);
        let at = VersionLike::Known(ProtocolVersion::V2025_03_26);
        assert_eq!(
            batch_messages(&empty, &at).unwrap_err().code(),
            codes::INVALID_REQUEST
        );
    }

    #[test]
    fn batches_only_at_2025_03_26() {
        let batch = json!([
            {"jsonrpc":"2.0","id":1,"method":"ping"},
            {"jsonrpc":"2.0","method":"notifications/initialized"}
        ]);
        let v = VersionLike::Known(ProtocolVersion::V2025_03_26);
        let frame: JsonRpcFrame = JsonRpcFrame::from_value_at(batch.clone(), &v).unwrap();
        match &frame {
            JsonRpcFrame::Batch(items) => assert_eq!(items.len(), 2),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            frame.to_value_at(ProtocolVersion::V2025_03_26).unwrap(),
            batch
        );
        for version in ProtocolVersion::ALL {
            if version == ProtocolVersion::V2025_03_26 {
                continue;
            }
            let err = JsonRpcFrame::<RawRequest, RawNotification, JsonObject>::from_value_at(
                batch.clone(),
                &VersionLike::Known(version),
            )
            .unwrap_err();
            assert_eq!(
                err.kind,
                ModelErrorKind::BatchNotAllowed {
                    version: version.to_string()
                }
            );
            assert_eq!(err.code(), -32600);
            let emit = frame.to_value_at(version).unwrap_err();
            assert!(matches!(emit.kind, ModelErrorKind::BatchNotAllowed { .. }));
        }
        let unknown = VersionLike::from("2099-01-01");
        assert!(
            JsonRpcFrame::<RawRequest, RawNotification, JsonObject>::from_value_at(batch, &unknown)
                .is_err()
        );
        let empty =
            JsonRpcFrame::<RawRequest, RawNotification, JsonObject>::from_value_at(json!([]), &v)
                .unwrap_err();
        assert_eq!(empty.code(), -32600);
    }

    #[test]
    fn typed_interiors_classify_their_errors() {
        use crate::model::{ClientRequest, ServerResult};
        type Typed = JsonRpcMessage<ClientRequest, crate::model::ClientNotification, ServerResult>;
        let err =
            Typed::from_value(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}))
                .unwrap_err();
        assert_eq!(err.path.pointer(), "/params");
        assert_eq!(err.code(), -32602);
        let err =
            Typed::from_value(json!({"jsonrpc":"2.0","id":1,"method":"bogus/method"})).unwrap_err();
        assert_eq!(err.code(), -32601);
        // A typed result error is located under `result`.
        let err =
            Typed::from_value(json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"x"}]}}))
                .unwrap_err();
        assert_eq!(err.path.pointer(), "/result/content/0");
        // The raw message types the same frame later, by hand.
        let JsonRpcMessage::Request(raw) =
            parse(json!({"jsonrpc":"2.0","id":"a","method":"tools/list"})).unwrap()
        else {
            panic!("a request")
        };
        let typed = raw.parse_as::<ClientRequest>().unwrap();
        assert_eq!(typed.request.method(), "tools/list");
        assert_eq!(
            serde_json::to_value(&typed).unwrap(),
            json!({"jsonrpc":"2.0","id":"a","method":"tools/list"})
        );
    }

    #[test]
    fn batch_element_errors_name_their_index() {
        let v = VersionLike::Known(ProtocolVersion::V2025_03_26);
        let err = JsonRpcFrame::<RawRequest, RawNotification, JsonObject>::from_value_at(
            json!([{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","id":true,"method":"x"}]),
            &v,
        )
        .unwrap_err();
        assert_eq!(err.path.pointer(), "/1/id");
    }
}
