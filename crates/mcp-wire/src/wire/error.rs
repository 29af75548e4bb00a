//! The boundary's two error types, [`EmitError`] and [`ParseError`], and the JSON path they carry.

use serde_json::json;

use crate::jsonrpc::{ErrorData, JsonRpcError, RequestId};
use crate::{ProtocolVersion, VersionLike};

use super::body::BodyKind;
use super::ledger::Cause;

/// JSON-RPC error codes: the crate's one table, [`crate::jsonrpc::codes`].
pub use crate::jsonrpc::codes;

/// The crate's one path type (also [`crate::JsonPath`]): every error locates its fault with it.
pub use crate::path::{JsonPath, PathSegment};

/// Why a value could not be emitted at a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EmitErrorKind {
    /// The body type, or a union member inside it, does not exist at the revision.
    TypeAbsent,
    /// A field or value whose meaning the revision cannot carry (a `refuse` ledger row).
    NotExpressible,
    /// Something the revision requires is missing (e.g. `clientCapabilities` at 2026-07-28).
    MissingRequired,
    /// A value the revision defines but with a value it does not allow (negative `ttlMs`,
    /// unknown `resultType`, a `resultType` that contradicts the body type).
    InvalidValue,
    /// The value's own `Serialize` implementation failed (e.g. a map with non-string keys).
    Serialization,
}

impl EmitErrorKind {
    /// The JSON-RPC code this failure maps to for a request's body type: a type the revision
    /// lacks is `-32601` (the method does not exist there); a value the revision cannot carry,
    /// or that misses a required part, is `-32602`; an invalid value of our own making is
    /// `-32603`. [`EmitError::code`] refines it by where the refusal happened and the body.
    pub const fn code(self) -> i64 {
        match self {
            EmitErrorKind::TypeAbsent => codes::METHOD_NOT_FOUND,
            EmitErrorKind::NotExpressible | EmitErrorKind::MissingRequired => codes::INVALID_PARAMS,
            EmitErrorKind::InvalidValue | EmitErrorKind::Serialization => codes::INTERNAL_ERROR,
        }
    }
}

/// `serialize_for` refused: the value has no legal wire form at the revision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
#[error("cannot emit at {version}: {message} (at {path})")]
pub struct EmitError {
    /// What went wrong.
    pub kind: EmitErrorKind,
    /// Where in the emitted value (see the boundary's [paths](crate::wire#paths)).
    pub path: JsonPath,
    /// The target revision.
    pub version: ProtocolVersion,
    /// What was expected and what was found, in words.
    pub message: String,
    /// The table row that refused, when one did.
    pub cause: Option<Cause>,
    /// The kind of body being emitted (a request's refusal and a result's answer the peer
    /// differently: [`EmitError::code`]).
    pub body: Option<BodyKind>,
}

impl EmitError {
    pub(crate) fn new(
        kind: EmitErrorKind,
        version: ProtocolVersion,
        message: impl Into<String>,
        cause: Option<Cause>,
    ) -> Self {
        EmitError {
            kind,
            path: JsonPath::root(),
            version,
            message: message.into(),
            cause,
            body: None,
        }
    }

    /// The JSON-RPC code this error maps to, by what could not be emitted:
    ///
    /// | refused | request or notification | result |
    /// | --- | --- | --- |
    /// | the body type (absent at the revision) | `-32601` | `-32603` |
    /// | a member inside it (absent, not expressible, missing) | `-32602` | `-32603` |
    /// | an invalid value of our own making | `-32603` | `-32603` |
    ///
    /// A request the revision cannot carry is the sender's problem with that method or its
    /// params; a result we cannot express is our own failure to answer.
    pub fn code(&self) -> i64 {
        match (self.body, self.kind) {
            (Some(BodyKind::Result), _) => codes::INTERNAL_ERROR,
            (_, EmitErrorKind::TypeAbsent) if !self.path.segments().is_empty() => {
                codes::INVALID_PARAMS
            }
            (_, kind) => kind.code(),
        }
    }
}

/// Why a JSON value could not be read as a type at a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text is not JSON.
    Syntax,
    /// Not a valid JSON-RPC message: bad `jsonrpc`, bad `id`, not an object.
    InvalidEnvelope,
    /// A request or notification without `method`.
    MissingMethod,
    /// A `method` that names no request or notification (of the revision, where one is known).
    UnknownMethod,
    /// A required field is missing.
    Missing,
    /// A content block or other tagged union member with an unknown tag.
    UnknownTag,
    /// A field has the wrong JSON type or a value outside its domain.
    Invalid,
    /// 2026-07-28: a result whose `resultType` is neither `complete` nor `input_required`.
    ResultTypeInvalid,
    /// 2026-07-28: a client request without a required reserved `_meta` key.
    MissingRequiredMeta,
    /// The type does not exist at the revision (e.g. a result asked for by a method the revision
    /// lacks).
    TypeAbsent,
}

impl ParseErrorKind {
    /// The JSON-RPC code this failure maps to when the body was a request.
    pub const fn code(self) -> i64 {
        match self {
            ParseErrorKind::Syntax => codes::PARSE_ERROR,
            ParseErrorKind::InvalidEnvelope | ParseErrorKind::MissingMethod => {
                codes::INVALID_REQUEST
            }
            ParseErrorKind::UnknownMethod | ParseErrorKind::TypeAbsent => codes::METHOD_NOT_FOUND,
            ParseErrorKind::Missing
            | ParseErrorKind::UnknownTag
            | ParseErrorKind::Invalid
            | ParseErrorKind::ResultTypeInvalid
            | ParseErrorKind::MissingRequiredMeta => codes::INVALID_PARAMS,
        }
    }
}

/// `parse_as` failed: the JSON is not a valid value of the type at the revision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
#[error("cannot parse as {type_name} at {version}: {message} (at {path}){}", more_suffix(.more.len()))]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where in the input.
    pub path: JsonPath,
    /// The revision the input was read at (possibly one we do not know).
    pub version: VersionLike,
    /// The type that was asked for.
    pub type_name: &'static str,
    /// What was expected and what was found, in words.
    pub message: String,
    /// Further independent errors found in the same pass (e.g. one per missing `_meta` key).
    pub more: Vec<ParseError>,
}

fn more_suffix(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" (+{n} more)")
    }
}

impl ParseError {
    pub(crate) fn new(
        kind: ParseErrorKind,
        path: JsonPath,
        version: &VersionLike,
        type_name: &'static str,
        message: impl Into<String>,
    ) -> Self {
        ParseError {
            kind,
            path,
            version: version.clone(),
            type_name,
            message: message.into(),
            more: Vec::new(),
        }
    }

    /// The JSON-RPC code this error maps to.
    pub fn code(&self) -> i64 {
        self.kind.code()
    }

    /// This error followed by the further ones, in order.
    pub fn all(&self) -> impl Iterator<Item = &ParseError> {
        std::iter::once(self).chain(self.more.iter())
    }
}

/// The error a peer is answered with: the code, the message (what was expected and what was
/// found, without this crate's prefixes), and `data` with the JSON Pointer (`pointer`) into the
/// frame or body read, the revision and the type read; further errors of the same pass are
/// listed in `data.more`.
impl From<&ParseError> for ErrorData {
    fn from(e: &ParseError) -> Self {
        let mut data = json!({"pointer": e.path.pointer()});
        if let Some(v) = e.version.known() {
            data["revision"] = json!(v.as_str());
        }
        data["type"] = json!(e.type_name);
        if !e.more.is_empty() {
            let more = e.more.iter();
            data["more"] = more
                .map(|m| json!({"pointer": m.path.pointer(), "message": m.message}))
                .collect();
        }
        ErrorData::new(e.code(), e.message.clone()).with_data(data)
    }
}

/// The error our side answers with when it cannot emit: the code, the message, and `data` with
/// the JSON Pointer into the emitted value (`pointer`), the revision and the table row that
/// refused (`cause`).
impl From<&EmitError> for ErrorData {
    fn from(e: &EmitError) -> Self {
        let mut data = json!({"pointer": e.path.pointer(), "revision": e.version.as_str()});
        if let Some(cause) = &e.cause {
            data["cause"] = json!(cause.to_string());
        }
        ErrorData::new(e.code(), e.message.clone()).with_data(data)
    }
}

/// Each error answers a peer alike: as the error response's `error`, by value or by reference,
/// or as the whole error response.
macro_rules! answers {
    ($($ty:ident),*) => {$(
        impl From<$ty> for ErrorData {
            fn from(e: $ty) -> Self {
                ErrorData::from(&e)
            }
        }

        impl $ty {
            /// The error response to the request `id` (`None`: the id is unknown, sent as `null`).
            pub fn to_response(&self, id: Option<RequestId>) -> JsonRpcError {
                JsonRpcError::new(id, self.into())
            }
        }
    )*};
}

answers!(ParseError, EmitError);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_json_rpc() {
        assert_eq!(ParseErrorKind::Syntax.code(), -32700);
        assert_eq!(ParseErrorKind::MissingMethod.code(), -32600);
        assert_eq!(ParseErrorKind::UnknownMethod.code(), -32601);
        assert_eq!(ParseErrorKind::MissingRequiredMeta.code(), -32602);
        assert_eq!(EmitErrorKind::TypeAbsent.code(), -32601);
        assert_eq!(EmitErrorKind::NotExpressible.code(), -32602);
    }
}
