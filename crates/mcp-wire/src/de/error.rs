//! The error of the model layer: what went wrong, where (a JSON Pointer, the crate's one path
//! type [`JsonPath`]), and the JSON-RPC code a session would answer with.
//!
//! Our union types dispatch on their tag by hand (they read the JSON value, look at `method`,
//! `type` or `mode`, then parse the chosen member). serde only lets a `Deserialize` impl return a
//! message string, so the dispatch code packs the member's own path and a typed kind into that
//! string ([`encode`]) and [`from_value`] unpacks it again. The packing never leaves this module.

use serde::de;

use crate::path::{JsonPath, PathSegment};

/// A value that does not fit the model, with the JSON Pointer of the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{kind} (at {path})")]
pub struct ModelError {
    /// Where in the input, e.g. `/params/messages/0/content` ([`JsonPath::pointer`]); the root
    /// is the value itself.
    pub path: JsonPath,
    /// What went wrong.
    pub kind: ModelErrorKind,
}

/// The kinds of [`ModelError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// A discriminator (`method`, `type`, `mode`) holds a value that names no member of the union.
    #[error("unknown `{field}` tag `{tag}`; expected one of: {expected}")]
    UnknownTag {
        /// The discriminator key, e.g. `"type"`.
        field: String,
        /// The value found.
        tag: String,
        /// The known values, comma separated.
        expected: String,
    },
    /// A union member could not be chosen because its discriminator is missing or not a string.
    #[error("missing `{field}` discriminator (expected a string)")]
    MissingTag {
        /// The discriminator key, e.g. `"method"`.
        field: String,
    },
    /// The value does not have the shape of the type (missing field, wrong JSON type, …).
    #[error("{0}")]
    Invalid(String),
    /// The text is not JSON at all (JSON-RPC parse error, -32700).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// Not a valid JSON-RPC 2.0 message: bad `jsonrpc`, bad `id`, no `method`/`result`/`error`.
    #[error("invalid JSON-RPC message: {0}")]
    InvalidEnvelope(String),
    /// A JSON-RPC batch (array) at a revision other than 2025-03-26, the only one that has them.
    #[error("JSON-RPC batches exist only at protocol version 2025-03-26, not at '{version}'")]
    BatchNotAllowed {
        /// The revision in use.
        version: String,
    },
}

/// The JSON-RPC error codes of MCP, by meaning: the one table every error of this crate maps
/// to (`ModelError`, `ParseError`, `EmitError`, `FrameError`, `SessionError` all answer with
/// one of these, as an `i64` like [`ErrorData::code`](crate::jsonrpc::ErrorData::code)).
pub mod codes {
    /// The text is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid JSON-RPC request (bad envelope, bad `id`, no `method`).
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist (at the revision in use).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not fit the method (at the revision in use).
    pub const INVALID_PARAMS: i64 = -32602;
    /// The receiver failed, or could not express its answer.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Resource not found (handshake revisions).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// 2026-07-28: a routing header disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the protocol version is not supported (also: one this crate does not know).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// 2025-11-25: the request needs the URL elicitations in `error.data.elicitations` first.
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// 2026-07-28: the codes the protocol reserves for itself (-32099 to -32020); an older
    /// peer's error in this range means nothing there.
    pub const RESERVED_2026: std::ops::RangeInclusive<i64> = -32099..=-32020;
}

impl ModelError {
    /// An error at `path` of the given kind.
    pub fn new(path: JsonPath, kind: ModelErrorKind) -> Self {
        ModelError { path, kind }
    }

    /// The JSON-RPC error code a session answers with when this error concerns an inbound request:
    /// -32700 for non-JSON, -32600 for a broken envelope or a batch where none is allowed, -32601
    /// for an unknown `method` of the message itself, -32602 for everything else (the params do
    /// not fit, including an unknown tag of anything nested in them).
    pub fn code(&self) -> i64 {
        match &self.kind {
            ModelErrorKind::NotJson(_) => codes::PARSE_ERROR,
            ModelErrorKind::InvalidEnvelope(_) | ModelErrorKind::BatchNotAllowed { .. } => {
                codes::INVALID_REQUEST
            }
            ModelErrorKind::UnknownTag { .. } if self.is_unknown_method() => {
                codes::METHOD_NOT_FOUND
            }
            ModelErrorKind::MissingTag { field } if field == "method" => codes::INVALID_REQUEST,
            _ => codes::INVALID_PARAMS,
        }
    }

    /// Whether this is an unknown `method` of the message itself (not of a union nested in its
    /// params, which is the params' fault): the one rule behind -32601 for model errors.
    pub(crate) fn is_unknown_method(&self) -> bool {
        let own = !self
            .path
            .segments()
            .iter()
            .any(|s| matches!(s, PathSegment::Key(_)));
        own && matches!(&self.kind, ModelErrorKind::UnknownTag { field, .. } if field == "method")
    }

    /// The same error with `outer` put in front of its path (`/result` and `/content/0` give
    /// `/result/content/0`).
    pub fn under(mut self, outer: &JsonPath) -> Self {
        self.path = self.path.under(outer);
        self
    }

    /// The same error with one object key put in front of its path.
    pub(crate) fn under_key(self, key: &str) -> Self {
        self.under(&JsonPath::root().key(key))
    }
}

// Packing of a located, typed error into a serde message string.
const MARK: char = '\u{1}';

/// Packs `path` (relative to the union value) and `kind` into a message string.
pub(crate) fn encode(path: &JsonPath, kind: &ModelErrorKind) -> String {
    let path = path.to_packed();
    match kind {
        ModelErrorKind::UnknownTag {
            field,
            tag,
            expected,
        } => format!("{MARK}{path}{MARK}tag{MARK}{field}{MARK}{tag}{MARK}{expected}"),
        ModelErrorKind::MissingTag { field } => format!("{MARK}{path}{MARK}missing{MARK}{field}"),
        other => format!("{MARK}{path}{MARK}invalid{MARK}{other}"),
    }
}

/// Unpacks a message made by [`encode`]; `None` for ordinary serde messages.
fn decode(message: &str) -> Option<(JsonPath, ModelErrorKind)> {
    let start = message.find(MARK)?;
    let body = &message[start + 1..];
    // serde_json may append " at line L column C" when parsing text.
    let body = match body.rfind(" at line ") {
        Some(i) if body[i..].contains(" column ") && !body[i..].contains(MARK) => &body[..i],
        _ => body,
    };
    let mut parts = body.split(MARK);
    let path = JsonPath::from_packed(parts.next()?)?;
    let kind = match parts.next()? {
        "tag" => ModelErrorKind::UnknownTag {
            field: parts.next()?.to_owned(),
            tag: parts.next()?.to_owned(),
            expected: parts.next()?.to_owned(),
        },
        "missing" => ModelErrorKind::MissingTag {
            field: parts.next()?.to_owned(),
        },
        _ => ModelErrorKind::Invalid(parts.collect::<Vec<_>>().join("")),
    };
    Some((path, kind))
}

/// A `serde_path_to_error` path as a [`JsonPath`] (`content`, `0`, `type`).
fn path_of(path: &serde_path_to_error::Path) -> JsonPath {
    use serde_path_to_error::Segment;
    JsonPath::from_segments(
        path.iter()
            .filter_map(|s| match s {
                Segment::Seq { index } => Some(PathSegment::Index(*index)),
                Segment::Map { key } => Some(PathSegment::Key(key.clone())),
                Segment::Enum { variant } => Some(PathSegment::Key(variant.clone())),
                Segment::Unknown => None,
            })
            .collect(),
    )
}

pub(crate) fn from_path_error(err: serde_path_to_error::Error<serde_json::Error>) -> ModelError {
    let outer = path_of(err.path());
    let message = err.inner().to_string();
    match decode(&message) {
        Some((inner, kind)) => ModelError::new(inner.under(&outer), kind),
        None => ModelError::new(outer, ModelErrorKind::Invalid(message)),
    }
}

/// The serde error for an unknown tag, in a form [`from_value`] turns into
/// [`ModelErrorKind::UnknownTag`].
pub(crate) fn unknown_tag<E: de::Error>(field: &str, tag: &str, expected: &[&str]) -> E {
    E::custom(encode(
        &JsonPath::root(),
        &ModelErrorKind::UnknownTag {
            field: field.to_owned(),
            tag: tag.to_owned(),
            expected: expected.join(", "),
        },
    ))
}

/// The serde error for a missing or non-string tag.
pub(crate) fn missing_tag<E: de::Error>(field: &str) -> E {
    E::custom(encode(
        &JsonPath::root(),
        &ModelErrorKind::MissingTag {
            field: field.to_owned(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::de::from_value;

    #[test]
    fn encoded_kinds_survive_the_round_trip() {
        let kind = ModelErrorKind::UnknownTag {
            field: "type".into(),
            tag: "holo".into(),
            expected: "text, image".into(),
        };
        let at = JsonPath::root().index(1);
        let msg = encode(&at, &kind);
        assert_eq!(decode(&msg), Some((at.clone(), kind)));
        assert_eq!(
            decode(&format!("{msg} at line 1 column 9")).map(|d| d.0),
            Some(at)
        );
        assert_eq!(decode("missing field `text`"), None);
    }

    #[test]
    fn codes_follow_the_kind() {
        let e = |kind| ModelError::new(JsonPath::root(), kind);
        assert_eq!(e(ModelErrorKind::NotJson("x".into())).code(), -32700);
        assert_eq!(
            e(ModelErrorKind::InvalidEnvelope("x".into())).code(),
            -32600
        );
        let unknown_method = ModelErrorKind::UnknownTag {
            field: "method".into(),
            tag: "x".into(),
            expected: String::new(),
        };
        assert_eq!(e(unknown_method.clone()).code(), -32601);
        // A method tag nested in params is the params' fault, not a missing method.
        let nested = ModelError::new(JsonPath::root().key("params").key("x"), unknown_method);
        assert_eq!(nested.code(), -32602);
        let content = from_value::<crate::model::CallToolResult>(serde_json::json!({
            "content": [{"type": "holo"}]
        }))
        .unwrap_err();
        assert_eq!(content.path.pointer(), "/content/0");
        assert_eq!(content.code(), -32602);
        assert_eq!(e(ModelErrorKind::Invalid("x".into())).code(), -32602);
    }

    #[test]
    fn paths_join_as_pointers() {
        let e = ModelError::new(
            JsonPath::root().key("messages").index(0),
            ModelErrorKind::Invalid("x".into()),
        )
        .under_key("params");
        assert_eq!(e.path.pointer(), "/params/messages/0");
        assert_eq!(e.to_string(), "x (at /params/messages/0)");
        let root = ModelError::new(JsonPath::root(), ModelErrorKind::Invalid("y".into()));
        assert_eq!(root.to_string(), "y (at (root))");
    }
}
