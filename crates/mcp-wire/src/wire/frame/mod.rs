//! Whole JSON-RPC frames at a revision: the envelope split from the text, then the body typed.
//!
//! [`parse_frame`] is the one call for a frame whose answer needs nothing else (a server reading
//! client requests and notifications); [`parse_frame_answering`] also types a response by the
//! request it answers, asked by the response's id. [`RawFrame`] splits first, so the caller can
//! place the frame in its [`Session`](crate::session::Session) (a `RawFrame` is the session's
//! [`Evidence`](crate::session::Evidence)) before typing it ([`RawFrame::parse`] with a [`ResultFor`]).
//!
//! Both take one route for every frame, in any member order: `RawFrame::split` (the envelope
//! judged, `params` and `result` kept as borrowed text) then `RawFrame::parse` ([`parse_as`] /
//! [`parse_result_for`] on the body's text), so a good frame's body is never built as a
//! `serde_json::Value`.
//!
//! On a bad frame the error still carries the id whenever the envelope has a usable one, so a
//! request can always be answered: [`FrameError::reply`] builds the error response (with
//! `"id": null` only when the frame has no usable id, as JSON-RPC asks).
//!
//! ```
//! use mcp_wire::ProtocolVersion::V2025_06_18;
//! use mcp_wire::model::{ClientNotification, ClientRequest};
//! use mcp_wire::wire::{TypedFrame, parse_frame};
//!
//! let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"}}"#;
//! let frame = parse_frame::<ClientRequest, ClientNotification>(text, V2025_06_18)?;
//! let TypedFrame::Request(call) = frame else { unreachable!() };
//! assert!(matches!(call.request, ClientRequest::CallTool(_)));
//!
//! // A bad body still gives the id, and the reply names the JSON Pointer of the fault.
//! let bad = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}"#;
//! let e = parse_frame::<ClientRequest, ClientNotification>(bad, V2025_06_18).unwrap_err();
//! let reply = serde_json::to_value(e.reply().unwrap())?;
//! assert_eq!(reply["id"], 8);
//! assert_eq!(reply["error"]["code"], -32602);
//! assert_eq!(reply["error"]["data"]["pointer"], "/params/name");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::cell::OnceCell;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::error::{JsonPath, ParseError, ParseErrorKind};
use super::parse::{MethodResult, ResultFor, WireParse, parse_as, parse_result_for};
use crate::VersionLike;
use crate::de::keep_null;
use crate::jsonrpc::{
    Envelope, ErrorData, JsonRpcError, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse,
    Members, RequestId, judge,
};

/// The spec name errors of the envelope itself are reported against.
const ENVELOPE: &str = "JSONRPCMessage";

/// A frame read at a revision: its envelope, with the body typed.
#[derive(Debug, Clone)]
#[non_exhaustive]
// Typed bodies are large by nature; a frame is read once and moved once.
#[allow(clippy::large_enum_variant)]
pub enum TypedFrame<'a, R, N> {
    /// A request, its body typed as `R` (e.g. `ClientRequest`).
    Request(JsonRpcRequest<R>),
    /// A notification, its body typed as `N` (e.g. `ClientNotification`).
    Notification(JsonRpcNotification<N>),
    /// A success response, its result typed by the request it answers.
    Response(JsonRpcResponse<MethodResult>),
    /// A success response read without the request it answers: the `result` as raw JSON, to be
    /// typed by [`RawFrame::parse`] with a [`ResultFor`] (a session gives one) or
    /// [`parse_result_for`].
    UntypedResponse {
        /// The id of the request it answers.
        id: RequestId,
        /// The `result` member's JSON text.
        result: &'a RawValue,
    },
    /// An error response.
    Error(JsonRpcError),
}

/// A frame that could not be read: the fault, and the id when the envelope has a usable one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
#[error("{error}")]
pub struct FrameError {
    /// The frame's id, when it has a usable one (an error response answers it).
    pub id: Option<RequestId>,
    /// What kind of frame it was, when the envelope says (`None`: not even that).
    pub envelope: Option<Envelope>,
    /// The fault, with its JSON Pointer relative to the frame (boxed: a `Result` stays small).
    pub error: Box<ParseError>,
}

impl FrameError {
    /// The JSON-RPC code the fault maps to.
    pub fn code(&self) -> i64 {
        self.error.code()
    }

    /// The error response a receiver sends back: for a request (to its id) and for a frame
    /// whose kind cannot be told (to its id, or `null`); `None` for notifications and
    /// responses, which JSON-RPC never answers.
    pub fn reply(&self) -> Option<JsonRpcError> {
        let answered = matches!(self.envelope, Some(Envelope::Request { .. }) | None);
        answered.then(|| JsonRpcError::new(self.id.clone(), ErrorData::from(&*self.error)))
    }
}

/// The error response's `error`: the fault's code, message and JSON Pointer ([`FrameError::reply`]
/// for the whole response).
impl From<&FrameError> for ErrorData {
    fn from(e: &FrameError) -> Self {
        ErrorData::from(&*e.error)
    }
}

impl From<FrameError> for ErrorData {
    fn from(e: FrameError) -> Self {
        ErrorData::from(&*e.error)
    }
}

/// The envelope members: the small ones as values, `params` and `result` as borrowed JSON text
/// (a present `null` is kept: an `Option` alone would read it as absent).
#[derive(Deserialize)]
struct Split<'a> {
    #[serde(default, deserialize_with = "keep_null")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "keep_null")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "keep_null")]
    method: Option<Value>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "keep_null")]
    error: Option<Value>,
}

/// A present member, `null` included (an `Option` alone would read `null` as absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// What a session reads from a request's params, read once on demand
/// ([`Evidence`](crate::session::Evidence) of a `RawFrame`).
#[derive(Debug, Default)]
pub(crate) struct ParamsPeek {
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub(crate) meta_revision: Option<Value>,
    /// Whether `params.task` is present and not `null`.
    pub(crate) task: bool,
    /// `params.taskId`, when it is a string.
    pub(crate) task_id: Option<String>,
}

/// A JSON-RPC frame split from its text: the envelope decided, the members still JSON text.
#[derive(Debug)]
pub struct RawFrame<'a> {
    text: &'a str,
    envelope: Envelope,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<ErrorData>,
    peek: OnceCell<ParamsPeek>,
}

/// The JSON kind of a member's text, in [`crate::path::json_kind`]'s words.
fn raw_kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

impl<'a> RawFrame<'a> {
    /// Splits one frame: the crate's envelope judge decides (`jsonrpc`, `id`, exactly one of
    /// `method`, `result`, `error`, the members' kinds) and the members stay text. Not JSON is
    /// `-32700`; a bad envelope `-32600`, with the id when it is usable.
    pub fn split(text: &'a str) -> Result<RawFrame<'a>, FrameError> {
        use ParseErrorKind::{InvalidEnvelope, Syntax};
        // The envelope is the same at every revision: its faults name no one revision.
        let fault = |kind, path, id, message: String| {
            let any = VersionLike::Unknown("any revision".into());
            let error = Box::new(ParseError::new(kind, path, &any, ENVELOPE, message));
            FrameError {
                id,
                envelope: None,
                error,
            }
        };
        let not_json = |e: serde_json::Error| fault(Syntax, JsonPath::root(), None, e.to_string());
        let invalid = |path, id, message| fault(InvalidEnvelope, path, id, message);
        // A derived struct also reads a JSON array (positionally): only an object is a frame.
        let first = text.trim_start().bytes().next();
        let split: Split<'a> = match (first, serde_json::from_str(text)) {
            (Some(b'{'), Ok(split)) => split,
            (Some(b'{'), Err(e)) if !e.is_data() => return Err(not_json(e)),
            (first, read) => {
                // Not JSON at all is the parse error, even when serde saw the shape first.
                serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(not_json)?;
                let message = match (first, read) {
                    (Some(b'{'), Err(e)) => format!("not a JSON-RPC message: {e}"),
                    (Some(b'['), _) => "a batch (JSON array) where one message was \
                        expected; batches exist only at 2025-03-26 (see JsonRpcFrame)"
                        .to_owned(),
                    _ => "expected a JSON-RPC object".to_owned(),
                };
                return Err(invalid(JsonPath::root(), None, message));
            }
        };
        // `params` and `result` are judged by their kind alone.
        let members = Members {
            jsonrpc: split.jsonrpc.as_ref().map(Cow::Borrowed),
            id: split.id.as_ref().map(Cow::Borrowed),
            method: split.method.as_ref().map(Cow::Borrowed),
            params: split.params.map(raw_kind),
            result: split.result.map(raw_kind),
            error: split.error.as_ref().map(Cow::Borrowed),
        };
        let kind = judge(members).map_err(|f| invalid(f.path, f.id, f.message))?;
        let envelope = kind.into_envelope();
        let (mut params, mut result, mut error) = (split.params, split.result, None);
        if let (Envelope::Error { id, .. }, Some(value)) = (&envelope, split.error) {
            // The judge checked `code` and `message`; `data` is free.
            let read = serde_json::from_value(value).map_err(|e| {
                let message = format!("`error` must be {{code, message, data?}}: {e}");
                invalid(JsonPath::root().key("error"), id.clone(), message)
            });
            (params, result, error) = (None, None, Some(read?));
        }
        let peek = OnceCell::new();
        Ok(RawFrame {
            text,
            envelope,
            params,
            result,
            error,
            peek,
        })
    }

    /// The envelope: the kind of frame, its id and method.
    pub fn envelope(&self) -> &Envelope {
        &self.envelope
    }

    /// The frame's id, when it has one.
    pub fn id(&self) -> Option<&RequestId> {
        self.envelope.id()
    }

    /// The whole frame's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The `params` member's JSON text.
    pub fn params_text(&self) -> Option<&'a RawValue> {
        self.params
    }

    /// The `result` member's JSON text.
    pub fn result_text(&self) -> Option<&'a RawValue> {
        self.result
    }

    /// An error response's `error` member (`None` for any other frame).
    pub fn error(&self) -> Option<&ErrorData> {
        self.error.as_ref()
    }

    /// Types the body at `version`: a request as `R`, a notification as `N`, a response by
    /// `answering` (the request it answers; without it the result stays text,
    /// [`TypedFrame::UntypedResponse`]). A fault carries the frame's id and envelope; its JSON
    /// Pointer is relative to the frame (`/params/name`, `/result/content/0`).
    pub fn parse<R: WireParse, N: WireParse>(
        &self,
        version: impl Into<VersionLike>,
        answering: Option<ResultFor<'_>>,
    ) -> Result<TypedFrame<'a, R, N>, FrameError> {
        let version = version.into();
        let fail = |error: ParseError| FrameError {
            id: self.envelope.id().cloned(),
            envelope: Some(self.envelope.clone()),
            error: Box::new(error),
        };
        match &self.envelope {
            Envelope::Request { id, .. } => parse_as::<R>(self.text, version)
                .map(|r| TypedFrame::Request(JsonRpcRequest::new(id.clone(), r)))
                .map_err(fail),
            Envelope::Notification { .. } => parse_as::<N>(self.text, version)
                .map(|n| TypedFrame::Notification(JsonRpcNotification::new(n)))
                .map_err(fail),
            Envelope::Response { id } => {
                // A response is split with its `result` ([`RawFrame::split`]).
                let result = self.result.unwrap_or(RawValue::NULL);
                match answering {
                    None => Ok(TypedFrame::UntypedResponse {
                        id: id.clone(),
                        result,
                    }),
                    Some(answering) => parse_result_for(answering, result.get(), version)
                        .map(|r| TypedFrame::Response(JsonRpcResponse::new(id.clone(), r)))
                        .map_err(|e| fail(under("result", e))),
                }
            }
            Envelope::Error { id, .. } => Ok(TypedFrame::Error(JsonRpcError::new(
                id.clone(),
                self.error.clone().unwrap_or_else(|| ErrorData::new(0, "")),
            ))),
        }
    }

    /// What a session reads from the request's params, read on the first call.
    pub(crate) fn peek(&self) -> &ParamsPeek {
        self.peek.get_or_init(|| {
            // Each member read alone, so one of the wrong kind (a numeric `taskId`) hides
            // nothing else; objects only (a derived struct also reads an array).
            #[derive(Deserialize)]
            struct Peek<'a> {
                #[serde(rename = "_meta", default, borrow)]
                meta: Option<&'a RawValue>,
                task: Option<Value>,
                #[serde(rename = "taskId")]
                task_id: Option<Value>,
            }
            #[derive(Deserialize)]
            struct MetaPeek {
                #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
                protocol_version: Option<Value>,
            }
            fn object(raw: &RawValue) -> Option<&str> {
                Some(raw.get()).filter(|text| text.starts_with('{'))
            }
            let peek = self
                .params
                .and_then(object)
                .map(serde_json::from_str::<Peek<'_>>);
            // Not JSON members (never, after the split): the body parse reports it.
            let Some(Ok(p)) = peek else {
                return ParamsPeek::default();
            };
            ParamsPeek {
                meta_revision: p
                    .meta
                    .and_then(object)
                    .and_then(|meta| serde_json::from_str::<MetaPeek>(meta).ok())
                    .and_then(|m| m.protocol_version),
                // A `null` task is none.
                task: p.task.is_some(),
                task_id: match p.task_id {
                    Some(Value::String(id)) => Some(id),
                    _ => None,
                },
            }
        })
    }
}

/// The error of a member's parse, relative to the frame.
fn under(member: &str, mut e: ParseError) -> ParseError {
    e.path = e.path.under(&JsonPath::root().key(member));
    e.more = e.more.into_iter().map(|m| under(member, m)).collect();
    e
}

/// Reads one frame at `version`: the envelope, a request typed as `R`, a notification as `N`
/// (responses keep their result as text: [`TypedFrame::UntypedResponse`]; type them with
/// [`parse_frame_answering`]). On a bad frame the [`FrameError`] keeps the id whenever there
/// is one, and [`FrameError::reply`] is the answer to send.
pub fn parse_frame<R: WireParse, N: WireParse>(
    text: &str,
    version: impl Into<VersionLike>,
) -> Result<TypedFrame<'_, R, N>, FrameError> {
    parse_frame_answering(text, version, |_| None)
}

/// [`parse_frame`] with responses typed by the request they answer: `answering` is asked once,
/// with a response's id, what it answers (a [`Session`](crate::session::Session) tells:
/// `|id| session.pending(direction, id).map(Pending::result_for)`); `None` keeps the result as
/// text ([`TypedFrame::UntypedResponse`]).
///
/// ```
/// use mcp_wire::ProtocolVersion::V2025_06_18;
/// use mcp_wire::jsonrpc::RequestId;
/// use mcp_wire::model::{ServerNotification, ServerRequest, ServerResult};
/// use mcp_wire::wire::{TypedFrame, MethodResult, ResultFor, parse_frame_answering};
///
/// let text = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#;
/// let frame = parse_frame_answering::<ServerRequest, ServerNotification>(text, V2025_06_18, |id| {
///     (id == &RequestId::Integer(3)).then(|| ResultFor::method("tools/list"))
/// })?;
/// let TypedFrame::Response(r) = frame else { unreachable!() };
/// assert!(matches!(r.result, MethodResult::Server(ServerResult::ListTools(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_frame_answering<'a, 'r, R: WireParse, N: WireParse>(
    text: &'a str,
    version: impl Into<VersionLike>,
    answering: impl FnOnce(&RequestId) -> Option<ResultFor<'r>>,
) -> Result<TypedFrame<'a, R, N>, FrameError> {
    let version = version.into();
    let raw = RawFrame::split(text).map_err(|mut e| {
        e.error.version = version.clone();
        e
    })?;
    let answers = match raw.envelope() {
        Envelope::Response { id } => answering(id),
        _ => None,
    };
    raw.parse(version, answers)
}

#[cfg(test)]
mod tests;
