//! The error of the model layer: what went wrong, where (a JSON Pointer, the crate's one path
//! type [`JsonPath`]), and the JSON-RPC code a session would answer with.
//!
//! Our union types dispatch on their tag by hand (they read the JSON value, look at `method`,
//! `type` or `mode`, then parse the chosen member). serde only lets a `Deserialize` impl return a
//! message string, so the dispatch code packs the member's own path and a typed kind into that
//! string ([`encode`]) and [`from_value_error`] unpacks it again. The packing never leaves this
//! module.

use std::cell::Cell;
use std::fmt;

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

thread_local! {
    /// Whether the current read wants errors located (set by [`super::from_value`] for its
    /// duration): then every map and array level a `Value` read climbs out of puts its step in
    /// front of the error's path ([`located`]). Other reads keep serde's bare message.
    static PRECISE: Cell<bool> = const { Cell::new(false) };
}

/// Resets [`PRECISE`] to its previous value when dropped.
pub(crate) struct PreciseGuard(bool);

impl PreciseGuard {
    /// Turns located errors on until the guard is dropped.
    pub(crate) fn enter() -> Self {
        PreciseGuard(PRECISE.with(|p| p.replace(true)))
    }
}

impl Drop for PreciseGuard {
    fn drop(&mut self) {
        PRECISE.with(|p| p.set(self.0));
    }
}

/// Whether errors are being located (see [`PRECISE`]).
pub(crate) fn precise() -> bool {
    PRECISE.with(Cell::get)
}

/// One step of the path of an error still climbing out of a `Value` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// An object member named by its key.
    Key(String),
    /// An array element.
    Index(usize),
    /// An object member named by its position among the object's members, in the order the
    /// `Value` hands them out (a map level knows how many entries it gave, not their keys);
    /// [`resolve`] turns it into the key.
    Entry(usize),
}

/// Packs `steps` and `kind` into a message string.
fn encode_steps(steps: &[Step], kind: &ModelErrorKind) -> String {
    let path = serde_json::Value::Array(
        steps
            .iter()
            .map(|s| match s {
                Step::Key(k) => serde_json::Value::from(k.as_str()),
                Step::Index(i) => serde_json::Value::from(*i),
                Step::Entry(i) => serde_json::Value::Array(vec![serde_json::Value::from(*i)]),
            })
            .collect(),
    )
    .to_string();
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

/// Packs `path` (relative to the union value) and `kind` into a message string.
pub(crate) fn encode(path: &JsonPath, kind: &ModelErrorKind) -> String {
    let steps: Vec<Step> = path
        .segments()
        .iter()
        .map(|s| match s {
            PathSegment::Key(k) => Step::Key(k.clone()),
            PathSegment::Index(i) => Step::Index(*i),
        })
        .collect();
    encode_steps(&steps, kind)
}

/// Reads the steps [`encode_steps`] wrote; `None` for anything else.
fn steps_of(packed: &str) -> Option<Vec<Step>> {
    let items: Vec<serde_json::Value> = serde_json::from_str(packed).ok()?;
    let index = |v: &serde_json::Value| v.as_u64().and_then(|i| usize::try_from(i).ok());
    items
        .iter()
        .map(|v| match v {
            serde_json::Value::String(k) => Some(Step::Key(k.clone())),
            serde_json::Value::Number(_) => index(v).map(Step::Index),
            serde_json::Value::Array(a) if a.len() == 1 => index(&a[0]).map(Step::Entry),
            _ => None,
        })
        .collect()
}

/// Unpacks a message made by [`encode`]; `None` for ordinary serde messages.
fn decode(message: &str) -> Option<(Vec<Step>, ModelErrorKind)> {
    let start = message.find(MARK)?;
    let body = &message[start + 1..];
    // serde_json may append " at line L column C" when parsing text.
    let body = match body.rfind(" at line ") {
        Some(i) if body[i..].contains(" column ") && !body[i..].contains(MARK) => &body[..i],
        _ => body,
    };
    let mut parts = body.split(MARK);
    let steps = steps_of(parts.next()?)?;
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
    Some((steps, kind))
}

/// A read's error message as steps and a kind: unpacked when packed, else serde's message at
/// the value itself.
fn unpack(message: String) -> (Vec<Step>, ModelErrorKind) {
    decode(&message).unwrap_or_else(|| {
        let message = match without_position(&message) {
            Some(bare) => bare.to_owned(),
            None => message,
        };
        (Vec::new(), ModelErrorKind::Invalid(message))
    })
}

/// `message` without the ` at line L column C` that `serde_json` puts after the message of an
/// error raised while reading text; `None` when it has none. A located read of text
/// ([`super::located_text_read`]) words its errors as the read of the `Value` does.
fn without_position(message: &str) -> Option<&str> {
    let at = message.rfind(" at line ")?;
    let (line, column) = message[at + " at line ".len()..].split_once(" column ")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(line) && digits(column)).then(|| &message[..at])
}

/// `e`, raised inside the value reached by `step`, with `step` put in front of its path while
/// errors are located ([`precise`]); otherwise `e` itself.
#[cold]
#[inline(never)]
pub(crate) fn located<E: de::Error>(e: E, step: Step) -> E {
    if !precise() {
        return e;
    }
    let (mut steps, kind) = unpack(e.to_string());
    steps.insert(0, step);
    E::custom(encode_steps(&steps, &kind))
}

/// The JSON path of `steps` in `root`: [`Step::Entry`] becomes the key at that position. A step
/// that `root` does not have ends the path there (it cannot happen for steps taken by a read of
/// `root`).
fn resolve(steps: Vec<Step>, root: &serde_json::Value) -> JsonPath {
    let mut path = JsonPath::root();
    let mut at = Some(root);
    for step in steps {
        let (segment, next) = match step {
            Step::Key(k) => {
                let next = at.and_then(|v| v.get(&k));
                (PathSegment::Key(k), next)
            }
            Step::Index(i) => (PathSegment::Index(i), at.and_then(|v| v.get(i))),
            Step::Entry(i) => match at
                .and_then(serde_json::Value::as_object)
                .and_then(|m| m.iter().nth(i))
            {
                Some((k, v)) => (PathSegment::Key(k.clone()), Some(v)),
                None => break,
            },
        };
        path.push(segment);
        at = next;
    }
    path
}

/// The error of a located read of `root` ([`super::from_value`]) as a [`ModelError`].
pub(crate) fn from_value_error(err: serde_json::Error, root: &serde_json::Value) -> ModelError {
    let (steps, kind) = unpack(err.to_string());
    ModelError::new(resolve(steps, root), kind)
}

/// A union member's error, relative to the member's buffered value under `key`, as an error of
/// the union's own read (packed with its path while errors are located).
pub(crate) fn under_entry<E: de::Error>(err: impl fmt::Display, key: &str) -> E {
    if !precise() {
        return E::custom(err);
    }
    let (mut steps, kind) = unpack(err.to_string());
    steps.insert(0, Step::Key(key.to_owned()));
    E::custom(encode_steps(&steps, &kind))
}

/// The serde error for an unknown tag, in a form [`from_value_error`] turns into
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
        assert_eq!(decode(&msg), Some((vec![Step::Index(1)], kind)));
        assert_eq!(
            decode(&format!("{msg} at line 1 column 9")).map(|d| d.0),
            Some(vec![Step::Index(1)])
        );
        assert_eq!(decode("missing field `text`"), None);
    }

    #[test]
    fn packed_steps_keep_keys_indices_and_entries_apart() {
        let steps = vec![
            Step::Key("content".into()),
            Step::Index(1),
            Step::Key("0".into()),
            Step::Entry(2),
            Step::Key("a\u{1}/b".into()),
        ];
        let kind = ModelErrorKind::Invalid("bad".into());
        assert_eq!(
            decode(&encode_steps(&steps, &kind)),
            Some((steps, kind.clone()))
        );
        assert_eq!(steps_of("not json"), None);
        assert_eq!(steps_of("[true]"), None);
        assert_eq!(steps_of("[[1,2]]"), None);
    }

    #[test]
    fn entries_resolve_to_the_keys_of_the_value_read() {
        let root = serde_json::json!({"b": [{"x": 1, "y": {"z": 2}}], "a": 0});
        // The members' order is the map's (sorted, or as written with `preserve_order`).
        let key_of_b = root
            .as_object()
            .unwrap()
            .keys()
            .position(|k| k == "b")
            .unwrap();
        let steps = vec![
            Step::Entry(key_of_b),
            Step::Index(0),
            Step::Key("y".into()),
            Step::Entry(0),
        ];
        assert_eq!(resolve(steps, &root).pointer(), "/b/0/y/z");
        // A step the value does not have ends the path before it.
        assert_eq!(resolve(vec![Step::Entry(9)], &root).pointer(), "");
        assert_eq!(
            resolve(vec![Step::Key("q".into()), Step::Index(3)], &root).pointer(),
            "/q/3"
        );
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
    fn one_read_of_a_value_locates_errors_in_members_elements_and_replayed_entries() {
        let at = |value: serde_json::Value| {
            from_value::<crate::model::CallToolResult>(value)
                .unwrap_err()
                .path
                .pointer()
        };
        // An element of an array, a member of an object.
        let text = serde_json::json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": 5}
        ]});
        assert_eq!(at(text), "/content/1/text");
        // A member read before the union's tag (buffered, then replayed), two levels down.
        let annotated = serde_json::json!({"content": [
            {"annotations": {"priority": "high"}, "type": "text", "text": "a"}
        ]});
        assert_eq!(at(annotated), "/content/0/annotations/priority");
        // A missing field is reported at its object.
        let missing = serde_json::json!({"content": [{"type": "text"}]});
        let e = from_value::<crate::model::CallToolResult>(missing).unwrap_err();
        assert_eq!(e.path.pointer(), "/content/0");
        assert_eq!(
            e.kind,
            ModelErrorKind::Invalid("missing field `text`".into())
        );
    }

    #[test]
    fn a_located_read_of_text_gives_the_values_answer() {
        for value in [
            serde_json::json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": 5}]}),
            serde_json::json!({"content": [{"annotations": {"priority": "high"}, "type": "text", "text": "a"}]}),
            serde_json::json!({"content": [{"type": "text"}]}),
            serde_json::json!({"content": [{"type": "holo"}]}),
            serde_json::json!({"content": "x"}),
            serde_json::json!([1]),
        ] {
            let by_value = from_value::<crate::model::CallToolResult>(value.clone()).unwrap_err();
            let by_text =
                crate::de::located_text_read::<crate::model::CallToolResult>(&value).unwrap_err();
            assert_eq!(by_text, by_value, "{value}");
        }
        let ok = serde_json::json!({"content": [{"type": "text", "text": "a"}]});
        assert!(crate::de::located_text_read::<crate::model::CallToolResult>(&ok).is_ok());
        assert_eq!(
            without_position("missing field `text` at line 1 column 30"),
            Some("missing field `text`")
        );
        assert_eq!(without_position("a value at line one"), None);
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
