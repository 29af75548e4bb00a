//! Parsing: a lenient superset parse plus the 2026-07-28 mandates.
//!
//! - Unknown keys are ignored (open objects keep them), at every revision.
//! - At 2026-07-28 only: a result's `resultType` must be `complete` or `input_required` (M1);
//!   a client request must carry the required reserved `_meta` keys (M3, one error per missing
//!   key, `-32602`). Embedded input requests must name their `method` (M2): the superset's
//!   method-tagged unions already require it, at every revision.
//! - An unknown version string parses with no mandates.
//! - One route for every input ([`Source`], `decide`): a `Value` decides every read, errors
//!   included; text is read straight into the typed value and leaves to its `Value` whatever
//!   that read cannot decide, so every input gets its `Value`'s answer (value, error, path, code).
//! - Result unions parsed without a method use a ranked structural selection
//!   ([`WireParse`] for `ServerResult`/`ClientResult`); [`parse_result_for`] types a result by
//!   the method of the request it answers and is the one to use whenever that is known.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::error::{JsonPath, ParseError, ParseErrorKind};
use super::ledger::{CLIENT_REQUESTS_2026, RESERVED_META, RESULT_TYPES_2026};
use crate::de::strict;
use crate::facts::{MethodFact, RevisionFacts};
use crate::model::methods::by_sender;
use crate::model::{self, ModelError, ModelErrorKind};
use crate::path::json_kind;
use crate::{Era, ProtocolVersion, VersionLike};

/// What kind of value a parse target is (decides which mandates apply).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseKind {
    /// A request body or a union of requests.
    Request,
    /// A notification body or a union of notifications.
    Notification,
    /// A result body or a union of results.
    Result,
    /// A JSON-RPC frame (its interior is not typed, so no body mandate applies).
    Envelope,
    /// Anything else (content blocks, capabilities, …): a plain lenient parse.
    Fragment,
}

/// A superset type `parse_as` can produce.
pub trait WireParse: DeserializeOwned {
    /// The spec name of the type (or union), for error messages.
    const TYPE_NAME: &'static str;
    /// What kind of value it is.
    const KIND: ParseKind;

    /// For the result unions: the ranked structural selection, which needs the whole object
    /// (so they are read from a `Value` only); `None` for every other type, whose structural
    /// parse is its own `Deserialize`.
    #[doc(hidden)]
    const RANKED: Option<Ranked<Self>> = None;

    /// What the 2026-07-28 mandates of [`Self::KIND`] read, taken from the parsed value; `None`
    /// when the typed value does not keep it (a read from text then checks them on the text's
    /// `Value`).
    #[doc(hidden)]
    fn mandate_facts(&self) -> Option<MandateFacts<'_>> {
        None
    }

    /// For the method-tagged unions (`ClientRequest`, …): the method table of a revision's
    /// facts that lists their members; `None` for every other type.
    #[doc(hidden)]
    const METHOD_TABLE: Option<MethodTable> = None;

    /// For the method-tagged unions: the member's method.
    #[doc(hidden)]
    fn union_method(&self) -> Option<&'static str> {
        None
    }
}

/// A ranked structural selection of a result union ([`WireParse::RANKED`]).
#[doc(hidden)]
pub type Ranked<T> = fn(&Value, &VersionLike) -> Result<T, ParseError>;

/// A method table of a revision's facts (`client_requests`, `server_notifications`, …).
#[doc(hidden)]
pub type MethodTable = fn(&'static RevisionFacts) -> &'static [MethodFact];

/// Whether the type `T` (or, for a method-tagged union, its member with `method`) exists at
/// `version`, from the revision's facts: a method the revision's table lacks is
/// [`ParseErrorKind::UnknownMethod`] (`-32601`) with a message listing only that revision's
/// methods; a request, notification or result type the revision does not define is
/// [`ParseErrorKind::TypeAbsent`] (`-32601`). Fragments are not checked, and neither is an
/// unknown revision.
fn existence<T: WireParse>(method: Option<&str>, version: &VersionLike) -> Result<(), ParseError> {
    let Some(v) = version.known() else {
        return Ok(());
    };
    let facts = crate::facts::revision(v);
    if let Some(table) = T::METHOD_TABLE {
        let Some(method) = method else {
            return Ok(());
        };
        let methods = table(facts);
        // Listed in the revision's table, or a member the revision still defines as a type
        // (2026-07-28's server requests exist embedded in input-required results only).
        let in_table = || methods.iter().any(|m| m.method == method);
        let defined =
            || crate::model::method_info(method).is_some_and(|m| facts.has_type(m.type_name));
        // Or one an extension adds there (the tasks extension at 2026-07-28).
        if in_table() || defined() || super::ledger::extension_method(method, v) {
            return Ok(());
        }
        let listed: Vec<&str> = methods.iter().map(|m| m.method).collect();
        let members = match T::KIND {
            ParseKind::Notification => "notifications",
            _ => "requests",
        };
        let sender = if T::TYPE_NAME.starts_with("Client") {
            "client"
        } else {
            "server"
        };
        let list = if listed.is_empty() {
            format!("it has no {sender} {members}")
        } else {
            format!("its {sender} {members} are {}", listed.join(", "))
        };
        return Err(ParseError::new(
            ParseErrorKind::UnknownMethod,
            JsonPath::root().key("method"),
            version,
            T::TYPE_NAME,
            format!("method \"{method}\" does not exist at protocol version {v}; {list}"),
        ));
    }
    if matches!(
        T::KIND,
        ParseKind::Request | ParseKind::Notification | ParseKind::Result
    ) && !facts.has_type(T::TYPE_NAME)
        && !super::ledger::extension_only(T::TYPE_NAME, v)
    {
        return Err(ParseError::new(
            ParseErrorKind::TypeAbsent,
            JsonPath::root(),
            version,
            T::TYPE_NAME,
            format!("{} does not exist at protocol version {v}", T::TYPE_NAME),
        ));
    }
    Ok(())
}

/// What the 2026-07-28 mandates read from a body: its `method`, its `resultType` (when a string)
/// and its `params._meta` object. Taken from the body's `Value`, or from the typed value read
/// from text ([`WireParse::mandate_facts`]), so both check exactly the same thing.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct MandateFacts<'a> {
    method: Option<&'a str>,
    result_type: Option<&'a str>,
    meta: Option<&'a Map<String, Value>>,
}

impl<'a> MandateFacts<'a> {
    /// A request with this method and `params._meta`.
    pub(crate) fn request(method: &'a str, meta: Option<&'a Map<String, Value>>) -> Self {
        MandateFacts {
            method: Some(method),
            result_type: None,
            meta,
        }
    }

    /// A result with this `resultType`.
    pub(crate) fn result(result_type: Option<&'a str>) -> Self {
        MandateFacts {
            method: None,
            result_type,
            meta: None,
        }
    }

    /// The facts of a raw body.
    fn of_value(value: &'a Value) -> Self {
        MandateFacts {
            method: value.get("method").and_then(Value::as_str),
            result_type: value.get("resultType").and_then(Value::as_str),
            meta: value
                .get("params")
                .and_then(|p| p.get("_meta"))
                .and_then(Value::as_object),
        }
    }

    /// The 2026-07-28 mandates on these facts of a `kind` body (the caller checks they apply:
    /// [`Source::mandates`]).
    fn check(
        self,
        version: &VersionLike,
        type_name: &'static str,
        kind: ParseKind,
    ) -> Result<(), ParseError> {
        let errors: Vec<ParseError> = match (kind, self.method, self.result_type) {
            // M1: an unrecognized resultType.
            (ParseKind::Result, _, Some(rt)) if !RESULT_TYPES_2026.contains(&rt) => {
                vec![ParseError::new(
                    ParseErrorKind::ResultTypeInvalid,
                    JsonPath::root().key("resultType"),
                    version,
                    type_name,
                    format!(
                        "unrecognized resultType \"{rt}\"; this protocol version defines \"complete\" and \"input_required\""
                    ),
                )]
            }
            // M3: the reserved `_meta` keys of a client request.
            (ParseKind::Request, Some(method), _) if CLIENT_REQUESTS_2026.contains(&method) => {
                RESERVED_META
                    .iter()
                    .filter(|r| r.required && !self.meta.is_some_and(|m| m.contains_key(r.key)))
                    .map(|r| {
                        ParseError::new(
                            ParseErrorKind::MissingRequiredMeta,
                            JsonPath::root().key("params").key("_meta").key(r.key),
                            version,
                            type_name,
                            format!("required reserved _meta entry {} is missing", r.key),
                        )
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        ParseError::join(errors).map_or(Ok(()), Err)
    }
}

/// Converts the model layer's error (a JSON Pointer and a kind) into a [`ParseError`].
pub(crate) fn from_model(
    e: ModelError,
    version: &VersionLike,
    type_name: &'static str,
    kind_hint: ParseKind,
) -> ParseError {
    let path = e.path.clone();
    let message = e.kind.to_string();
    let kind = match &e.kind {
        ModelErrorKind::UnknownTag { .. } if e.is_unknown_method() => ParseErrorKind::UnknownMethod,
        ModelErrorKind::UnknownTag { .. } => ParseErrorKind::UnknownTag,
        ModelErrorKind::MissingTag { field } if field == "method" => ParseErrorKind::MissingMethod,
        ModelErrorKind::MissingTag { .. } => ParseErrorKind::Missing,
        ModelErrorKind::NotJson(_) => ParseErrorKind::Syntax,
        ModelErrorKind::InvalidEnvelope(_) | ModelErrorKind::BatchNotAllowed { .. } => {
            ParseErrorKind::InvalidEnvelope
        }
        ModelErrorKind::Invalid(m) if m.starts_with("missing field `method`") => {
            if matches!(kind_hint, ParseKind::Request | ParseKind::Notification) {
                ParseErrorKind::MissingMethod
            } else {
                ParseErrorKind::Missing
            }
        }
        ModelErrorKind::Invalid(m) if m.starts_with("missing field") => ParseErrorKind::Missing,
        _ => ParseErrorKind::Invalid,
    };
    // serde reports a missing field at its parent; point at the field itself.
    let path = match (&e.kind, kind) {
        (ModelErrorKind::Invalid(m), ParseErrorKind::Missing | ParseErrorKind::MissingMethod) => {
            match m.split('`').nth(1) {
                Some(field) => path.key(field),
                None => path,
            }
        }
        (ModelErrorKind::MissingTag { field }, _) => path.key(field.clone()),
        _ => path,
    };
    ParseError::new(kind, path, version, type_name, message)
}

/// A plain lenient parse, its error located by the same read.
pub(crate) fn plain<T: DeserializeOwned>(
    value: &Value,
    version: &VersionLike,
    type_name: &'static str,
    kind: ParseKind,
) -> Result<T, ParseError> {
    crate::de::located_read::<T>(value).map_err(|e| from_model(e, version, type_name, kind))
}

/// What the boundary reads a body from: the one input every read decides on.
///
/// A `Value` decides every read, errors included: it is the reference. Text is read straight
/// into the typed value (no `Value` tree); where that read fails (a bad body, or duplicate keys,
/// which a `Value` reads last-wins) or the typed value cannot answer the mandates, the text
/// leaves the decision to its `Value` ([`decide`]), so every source gets its `Value`'s answer.
/// Not part of the API: hidden, for [`in_place`].
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// A `Value`.
    Value(&'a Value),
    /// A `Value` parsed from a text that did not decide. A body is read through the value's
    /// own text ([`crate::de::located_text_read`], the same answer and error), so a program
    /// whose bodies arrive as text reads them with the text reader alone; a result as a `Value`.
    Parsed(&'a Value),
    /// JSON text.
    Text(&'a str),
    /// JSON text no strict reader has checked: read in [`strict::Unchecked`] mode, so a typed
    /// read that succeeds has checked it (no repeated key, at most `levels` levels of nesting,
    /// the body's own object included). Where that read does not decide, nothing does: the
    /// caller checks the text and reads it as [`Source::Text`].
    Unchecked {
        /// The body's text.
        text: &'a str,
        /// The nesting it may use.
        levels: usize,
    },
    /// Bytes that are not UTF-8: only their `Value` read decides (a syntax error). The typed
    /// read must only ever see UTF-8: `serde_json` skips the strings of members a type ignores
    /// without checking their bytes, so invalid UTF-8 there would parse.
    NotUtf8(&'a [u8]),
}

impl<'a> Source<'a> {
    /// JSON bytes: text when they are UTF-8.
    fn of_bytes(bytes: &'a [u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Source::Text(text),
            Err(_) => Source::NotUtf8(bytes),
        }
    }

    /// The `Value` of a source that is one.
    #[inline(always)]
    fn value(self) -> Option<&'a Value> {
        match self {
            Source::Value(json) | Source::Parsed(json) => Some(json),
            Source::Text(_) | Source::Unchecked { .. } | Source::NotUtf8(_) => None,
        }
    }

    /// Reads a `T`: a `Value` decides (its error located, reported as `type_name`'s), text
    /// only when the typed read succeeds (`None` otherwise).
    #[inline(always)]
    fn read<T: DeserializeOwned>(
        self,
        version: &VersionLike,
        type_name: &'static str,
        kind: ParseKind,
    ) -> Option<Result<T, ParseError>> {
        match self {
            Source::Value(json) => Some(plain(json, version, type_name, kind)),
            Source::Parsed(json) => Some(
                crate::de::located_text_read(json)
                    .map_err(|e| from_model(e, version, type_name, kind)),
            ),
            Source::Text(text) => strict::from_str(text, strict::FromText).ok().map(Ok),
            Source::Unchecked { text, levels } => {
                strict::from_str(text, strict::Unchecked { levels })
                    .ok()
                    .map(Ok)
            }
            Source::NotUtf8(_) => None,
        }
    }

    /// The typed read of text into `slot`, which holds the value exactly when this gives `true`
    /// (a typed body is a few hundred bytes; returning it would copy it); `false` for a
    /// `Value`.
    #[inline(always)]
    fn read_into<T: DeserializeOwned>(self, slot: &mut Option<T>) -> bool {
        *slot = None;
        match self {
            Source::Text(text) => strict::from_str_into(text, strict::FromText, slot).is_ok(),
            Source::Unchecked { text, levels } => {
                strict::from_str_into(text, strict::Unchecked { levels }, slot).is_ok()
            }
            Source::Value(_) | Source::Parsed(_) | Source::NotUtf8(_) => false,
        }
    }

    /// The 2026-07-28 mandates (known 2026-07-28 only: M1 on results, M3 on requests) on a
    /// body read from this source as `parsed`: their facts come from the `Value`, else from the
    /// typed value, which may not keep them (`None`: the source does not decide).
    #[inline(always)]
    fn mandates<T: WireParse>(
        self,
        parsed: &T,
        version: &VersionLike,
        type_name: &'static str,
    ) -> Option<Result<(), ParseError>> {
        if version.era() != Some(Era::Stateless)
            || !matches!(T::KIND, ParseKind::Request | ParseKind::Result)
        {
            return Some(Ok(()));
        }
        let facts = match self.value() {
            Some(json) => MandateFacts::of_value(json),
            None => parsed.mandate_facts()?,
        };
        Some(facts.check(version, type_name, T::KIND))
    }
}

/// The one route of every read: `read` decides on `source` into `slot` (full exactly when it
/// gives `Some(Ok(()))`), and text it leaves undecided is decided by its `Value` (a syntax error
/// when it has none, reported as `type_name`'s). `None` only for [`Source::Unchecked`].
///
/// `decide` and the reads are inlined into each entry point, where the source's kind is known:
/// the match on it folds away, and each input keeps only its own route.
#[inline(always)]
fn decide<T>(
    source: Source<'_>,
    version: &VersionLike,
    type_name: &'static str,
    slot: &mut Option<T>,
    read: impl Fn(Source<'_>, &mut Option<T>) -> Option<Result<(), ParseError>>,
) -> Option<Result<(), ParseError>> {
    match read(source, slot) {
        Some(done) => Some(done),
        None => by_value(source, version, type_name, slot, read),
    }
}

/// [`decide`] on the `Value` of text that did not decide, kept out of line so the typed path
/// stays small.
#[cold]
#[inline(never)]
fn by_value<T>(
    source: Source<'_>,
    version: &VersionLike,
    type_name: &'static str,
    slot: &mut Option<T>,
    read: impl Fn(Source<'_>, &mut Option<T>) -> Option<Result<(), ParseError>>,
) -> Option<Result<(), ParseError>> {
    let value = match source {
        Source::Text(text) => serde_json::from_str(text),
        Source::NotUtf8(bytes) => serde_json::from_slice(bytes),
        Source::Value(_) | Source::Parsed(_) | Source::Unchecked { .. } => return None,
    };
    match value {
        Ok(value) => read(Source::Parsed(&value), slot),
        Err(e) => {
            let kind = ParseErrorKind::Syntax;
            let e = ParseError::new(kind, JsonPath::root(), version, type_name, e.to_string());
            Some(Err(e))
        }
    }
}

/// The value [`decide`] put in `slot`, for the entry points that return it.
fn answer<T>(
    decided: Option<Result<(), ParseError>>,
    slot: Option<T>,
    version: &VersionLike,
    type_name: &'static str,
) -> Result<T, ParseError> {
    decided.unwrap_or(Ok(()))?;
    // Every input of the entry points decides, and fills the slot when it succeeds.
    slot.ok_or_else(|| {
        let message = "the read gave no value";
        ParseError::new(
            ParseErrorKind::Invalid,
            JsonPath::root(),
            version,
            type_name,
            message,
        )
    })
}

/// Reads a body as `T` from `source` into `slot` (see [`decide`]): the type (or the union
/// member's method) must exist at `version`, then the lenient superset parse, then the
/// revision's mandates. Text is read straight into the slot and judged there, so a large value
/// is not moved.
#[inline(always)]
fn read_body<T: WireParse>(
    source: Source<'_>,
    version: &VersionLike,
    slot: &mut Option<T>,
) -> Option<Result<(), ParseError>> {
    let exists = match (source.value(), T::RANKED) {
        (Some(json), ranked) => {
            *slot = None;
            let method = json.get("method").and_then(Value::as_str);
            let parsed = match (existence::<T>(method, version), ranked) {
                (Err(e), _) => Err(e),
                (Ok(()), Some(ranked)) => ranked(json, version),
                (Ok(()), None) => source.read(version, T::TYPE_NAME, T::KIND)?,
            };
            parsed.map(|parsed| *slot = Some(parsed))
        }
        (None, None) if source.read_into(slot) => {
            existence::<T>(slot.as_ref()?.union_method(), version)
        }
        (None, _) => return None,
    };
    let verdict = match (exists, slot.as_ref()) {
        (Ok(()), Some(parsed)) => source.mandates(parsed, version, T::TYPE_NAME),
        (exists, _) => Some(exists),
    };
    if !matches!(verdict, Some(Ok(()))) {
        *slot = None;
    }
    verdict
}

/// What the boundary reads a body from: a parsed [`Value`], JSON text (`str`, `String`) or
/// JSON bytes (`[u8]`, `[u8; N]`, `Vec<u8>`, a line as read from a stream; invalid UTF-8 is a
/// [`ParseErrorKind::Syntax`] error), with one answer for all three (see [`Source`]).
pub trait WireInput: input::Sealed {}

pub(crate) mod input {
    use super::Source;
    use serde_json::Value;

    /// Only this crate's inputs are [`super::WireInput`]s.
    pub trait Sealed {
        fn source(&self) -> Source<'_>;
    }

    /// Each input type with the [`Source`] it is.
    macro_rules! inputs {
        ($($ty:ty => $source:expr;)*) => {$(
            impl Sealed for $ty {
                fn source(&self) -> Source<'_> {
                    $source(self)
                }
            }
        )*};
    }

    inputs! {
        Value => Source::Value;
        str => Source::Text;
        String => Source::Text;
        [u8] => Source::of_bytes;
        Vec<u8> => Source::of_bytes;
    }

    impl<const N: usize> Sealed for [u8; N] {
        fn source(&self) -> Source<'_> {
            Source::of_bytes(self)
        }
    }

    impl<T: Sealed + ?Sized> Sealed for &T {
        fn source(&self) -> Source<'_> {
            (**self).source()
        }
    }
}

impl<T: input::Sealed + ?Sized> WireInput for T {}

/// Parses a body as `T` at `version`: the type (or, for a method-tagged union, the method) must
/// exist at the revision, then the lenient superset parse, then the revision's mandates.
///
/// `input` is a `Value`, JSON text or JSON bytes ([`WireInput`]), with one answer for all three.
/// A method the revision lacks is [`ParseErrorKind::UnknownMethod`] (`-32601`, naming only that
/// revision's methods): `initialize` read as a `ClientRequest` at 2026-07-28, `tasks/list` at
/// 2024-11-05. A body type the revision does not define is [`ParseErrorKind::TypeAbsent`].
/// An unknown version (`VersionLike::Unknown`) parses with no checks and no mandates.
///
/// This reads a body; a whole JSON-RPC frame (envelope and body, with its id kept for the reply
/// when the body is bad) is read by [`parse_frame`](super::parse_frame). The version-free
/// `JsonRpcRequest::parse_as` types an envelope's interior with no revision at all.
pub fn parse_as<T: WireParse>(
    input: &(impl WireInput + ?Sized),
    version: impl Into<VersionLike>,
) -> Result<T, ParseError> {
    let version = version.into();
    let mut slot = None;
    let read = |source: Source<'_>, slot: &mut _| read_body(source, &version, slot);
    let decided = decide(input.source(), &version, T::TYPE_NAME, &mut slot, read);
    answer(decided, slot, &version, T::TYPE_NAME)
}

/// A result typed by the method of the request it answers.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
// The superset's result unions are large by nature; a result is built once and moved once.
#[allow(clippy::large_enum_variant)]
pub enum MethodResult {
    /// The answer to a client request (sent by a server).
    Server(model::ServerResult),
    /// The answer to a server request (sent by a client).
    Client(model::ClientResult),
}

/// The methods whose result may be an `InputRequiredResult` at 2026-07-28.
pub const INPUT_REQUIRED_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// What a result answers, which decides its type: the method of the request answered, and
/// whether that request asked for task-augmented execution (2025-11-25: `params.task`), or, for
/// `tasks/result`, which request created the task.
///
/// A plain method converts into one (`parse_result_for("tools/list", …)`).
///
/// ```
/// use mcp_wire::ProtocolVersion::{V2025_06_18, V2025_11_25};
/// use mcp_wire::wire::{ResultFor, ResultTyping};
///
/// let call = ResultFor::method("tools/call").task_augmented(true);
/// assert_eq!(call.typing(V2025_11_25), ResultTyping::CreatedTask("tools/call"));
/// // Where tasks do not exist, the augmentation means nothing.
/// assert_eq!(call.typing(V2025_06_18), ResultTyping::Method("tools/call"));
/// let payload = ResultFor::task_payload("tools/call");
/// assert_eq!(payload.method_answered(), "tasks/result");
/// assert_eq!(payload.typing(V2025_11_25), ResultTyping::Method("tools/call"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResultFor<'a> {
    method: &'a str,
    task: TaskRole<'a>,
}

/// How the answered request relates to tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TaskRole<'a> {
    /// Not at all.
    Plain,
    /// It carried `params.task`.
    Augmented,
    /// It is `tasks/result` for a task created by a request with this method.
    PayloadOf(&'a str),
}

/// How [`ResultFor`] types a result at one revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultTyping<'a> {
    /// As the result of a request with this method (for `tasks/result`, the method of the
    /// request that created the task; `InputRequiredResult` where `resultType` says so).
    Method(&'a str),
    /// As the `CreateTaskResult` a task-augmented request with this method is answered with.
    CreatedTask(&'a str),
}

impl<'a> ResultFor<'a> {
    /// The result of a request with `method`, answered plainly.
    pub fn method(method: &'a str) -> Self {
        ResultFor {
            method,
            task: TaskRole::Plain,
        }
    }

    /// Marks the request as task-augmented (it carried `params.task`) or not. Where the
    /// revision defines task augmentation for the method, the answer is a `CreateTaskResult`.
    pub fn task_augmented(self, augmented: bool) -> Self {
        ResultFor {
            task: if augmented {
                TaskRole::Augmented
            } else {
                TaskRole::Plain
            },
            ..self
        }
    }

    /// The result of `tasks/result` for a task that a request with method `original` created:
    /// typed as `original`'s result where the revision has tasks.
    pub fn task_payload(original: &'a str) -> Self {
        ResultFor {
            method: "tasks/result",
            task: TaskRole::PayloadOf(original),
        }
    }

    /// The method of the request the result answers.
    pub fn method_answered(&self) -> &'a str {
        self.method
    }

    /// How the result is typed at `version`. Task augmentation applies where the revision's
    /// schema gives the method's params a `task` member (2025-11-25: `tools/call`,
    /// `sampling/createMessage`, `elicitation/create`); a `tasks/result` payload is typed by
    /// the original method where the revision has `tasks/result`. Everywhere else the
    /// result is the answered method's own.
    pub fn typing(&self, version: impl Into<VersionLike>) -> ResultTyping<'a> {
        let Some(v) = version.into().known() else {
            return ResultTyping::Method(self.method);
        };
        match self.task {
            TaskRole::Augmented if task_augmentable(v, self.method) => {
                ResultTyping::CreatedTask(self.method)
            }
            TaskRole::PayloadOf(original)
                if crate::facts::revision(v).request(self.method).is_some() =>
            {
                ResultTyping::Method(original)
            }
            _ => ResultTyping::Method(self.method),
        }
    }
}

impl<'a> From<&'a str> for ResultFor<'a> {
    fn from(method: &'a str) -> Self {
        ResultFor::method(method)
    }
}

impl<'a> From<&&'a str> for ResultFor<'a> {
    fn from(method: &&'a str) -> Self {
        ResultFor::method(method)
    }
}

impl<'a> From<&'a String> for ResultFor<'a> {
    fn from(method: &'a String) -> Self {
        ResultFor::method(method)
    }
}

/// Whether `method` can be task-augmented at `version`: its params (or a member of their
/// union) declare `task` in the revision's schema.
fn task_augmentable(version: ProtocolVersion, method: &str) -> bool {
    fn declares_task(f: &crate::facts::RevisionFacts, name: &str) -> bool {
        f.type_fact(name).is_some_and(|t| {
            t.field("task").is_some()
                || t.members
                    .iter()
                    .any(|m| matches!(m, crate::facts::TypeRef::Named(n) if declares_task(f, n)))
        })
    }
    let f = crate::facts::revision(version);
    f.request(method)
        .and_then(|m| m.params)
        .is_some_and(|params| declares_task(f, params))
}

/// Which side of the session sends the result of a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Server,
    Client,
}

/// The result type of each method (before the input-required and task-handle cases), for the
/// `Value` and text paths: `$p!(side, union, variant, type)` parses one; an unknown method
/// evaluates `$unknown`. The rows are the model's body table (`model::for_each_body!`): a
/// method a server answers is typed as the server's (`ping` and the core tasks requests, which
/// either side may send, are answered by a server here). `$tasks_ext` says whether the revision
/// has the tasks extension's forms (2026-07-28: `tasks/get` inlines the outcome, `tasks/cancel`
/// is acknowledged empty), the two rows that depend on the revision.
macro_rules! by_method {
    ($method:expr, tasks_ext: $tasks_ext:expr, $p:ident, $unknown:expr) => {
        model::methods::for_each_body!(by_sender(result_rows($method, $tasks_ext, $p, $unknown)))
    };
}

/// [`by_method!`]'s expansion of the table's request rows, by the side that answers.
macro_rules! result_rows {
    (
        (($method:expr, $tasks_ext:expr, $p:ident, $unknown:expr))
        client_requests { $($(#[$_sd:meta])* $_sv:ident($sreq:ident) => $sv:ident($st:ident),)* }
        server_requests { $($(#[$_cd:meta])* $_cv:ident($creq:ident) => $cv:ident($ct:ident),)* }
        $($_rest:tt)*
    ) => {
        match $method {
            "tasks/get" if $tasks_ext => {
                $p!(Server, ServerResult, DetailedTask, GetDetailedTaskResult)
            }
            "tasks/cancel" if $tasks_ext => $p!(Server, ServerResult, Empty, EmptyResult),
            $(model::$sreq::METHOD => $p!(Server, ServerResult, $sv, $st),)*
            // The client's rows for what only a client answers (its `ping` and core tasks rows
            // are the server's above).
            other => match other {
                $(model::$creq::METHOD => $p!(Client, ClientResult, $cv, $ct),)*
                _ => $unknown,
            },
        }
    };
}

/// The side of a `by_method!` row (used in place of a parser).
macro_rules! side {
    ($side:ident, $union:ident, $variant:ident, $ty:ident) => {
        Side::$side
    };
}

/// Parses a result as the request `answering` describes types it: a method (`&str`), or a
/// [`ResultFor`] that also says whether the request was task-augmented or which request a
/// `tasks/result` payload belongs to. `input` is a `Value`, JSON text or JSON bytes
/// ([`WireInput`]), with one answer for all three.
///
/// The request decides the type: no structural guessing, so `{"tools":[],"prompts":[]}`
/// answering `tools/list` is a `ListToolsResult`, and a `tools/call` is answered by a
/// `CreateTaskResult` exactly when it was task-augmented at a revision with tasks
/// ([`ResultFor::typing`]). At 2026-07-28 a `resultType` of `input_required` makes the answer of
/// `tools/call`, `prompts/get` or `resources/read` an `InputRequiredResult`; any other value
/// keeps the method's own result (and an unrecognized one is an error). `ping` is answered as a
/// server's `EmptyResult`. An unknown method is [`ParseErrorKind::UnknownMethod`].
pub fn parse_result_for<'a>(
    answering: impl Into<ResultFor<'a>>,
    input: &(impl WireInput + ?Sized),
    version: impl Into<VersionLike>,
) -> Result<MethodResult, ParseError> {
    let (answering, version) = (answering.into(), version.into());
    let mut slot = None;
    let read = |source: Source<'_>, slot: &mut _| type_result(answering, source, &version, slot);
    let decided = decide(input.source(), &version, "Result", &mut slot, read);
    answer(decided, slot, &version, "Result")
}

/// The reads of [`parse_as`] and [`parse_result_for`] from any [`Source`], writing the typed
/// value into the caller's slot instead of returning it, for the translator of
/// `mcp-wire-frames` (a typed body is a few hundred bytes, and returning it through each layer
/// copies it each time). Not part of the API: hidden, and it may change in any release.
///
/// Each answers as its public form on the same input: `slot` holds the value when it gives
/// `Some(Ok(()))` and is empty otherwise. `None` only for [`Source::Unchecked`] text whose
/// typed read did not decide: check the text, then read it as [`Source::Text`].
#[doc(hidden)]
pub mod in_place {
    pub use super::Source;
    use super::{
        MethodResult, ParseError, ResultFor, VersionLike, WireParse, decide, read_body, type_result,
    };

    /// [`parse_as`](super::parse_as) into `slot`.
    pub fn parse<T: WireParse>(
        source: Source<'_>,
        version: impl Into<VersionLike>,
        slot: &mut Option<T>,
    ) -> Option<Result<(), ParseError>> {
        let version = version.into();
        let read = |source: Source<'_>, slot: &mut _| read_body(source, &version, slot);
        decide(source, &version, T::TYPE_NAME, slot, read)
    }

    /// [`parse_result_for`](super::parse_result_for) into `slot`.
    pub fn parse_result<'a>(
        answering: impl Into<ResultFor<'a>>,
        source: Source<'_>,
        version: impl Into<VersionLike>,
        slot: &mut Option<MethodResult>,
    ) -> Option<Result<(), ParseError>> {
        let (answering, version) = (answering.into(), version.into());
        let read =
            |source: Source<'_>, slot: &mut _| type_result(answering, source, &version, slot);
        decide(source, &version, "Result", slot, read)
    }
}

/// Types a result as `answering` says at `version`, into `slot` (see [`decide`]): the one
/// decision of [`parse_result_for`], whatever the source.
///
/// Every result is an object. A task-augmented request is answered by a `CreateTaskResult`;
/// otherwise the method's own result, or at 2026-07-28, for the [`INPUT_REQUIRED_METHODS`], an
/// `InputRequiredResult` where `resultType` says so (a `Value` tells before any read; text is
/// read as the method's own result first, the common answer).
#[inline(always)]
fn type_result(
    answering: ResultFor<'_>,
    source: Source<'_>,
    version: &VersionLike,
    slot: &mut Option<MethodResult>,
) -> Option<Result<(), ParseError>> {
    *slot = None;
    // A result's `Value` is read by the `Value` reader, whichever way it came (the ranked
    // unions' arms read it so too).
    let source = match source {
        Source::Parsed(json) => Source::Value(json),
        other => other,
    };
    let json = source.value();
    if let Some(json) = json
        && !json.is_object()
    {
        return Some(Err(not_an_object(json, version, "Result")));
    }
    let tasks_ext = tasks_extension_at(version);
    let (method, created) = match answering.typing(version.clone()) {
        ResultTyping::CreatedTask(method) => (method, true),
        ResultTyping::Method(method) => (method, false),
    };
    let interim = !created
        && version.era() == Some(Era::Stateless)
        && INPUT_REQUIRED_METHODS.contains(&method);
    let input_required = |result_type: Option<&str>| result_type == Some("input_required");
    'own: {
        if interim
            && json.is_some_and(|j| input_required(j.get("resultType").and_then(Value::as_str)))
        {
            break 'own;
        }
        macro_rules! p {
            ($side:ident, $union:ident, $variant:ident, $ty:ident) => {{
                let Some(read) =
                    source.read::<model::$ty>(version, stringify!($ty), ParseKind::Result)
                else {
                    break 'own;
                };
                let parsed = match read {
                    Ok(parsed) => parsed,
                    Err(e) => return Some(Err(e)),
                };
                if interim && input_required(parsed.mandate_facts().and_then(|f| f.result_type)) {
                    break 'own;
                }
                if let Err(e) = source.mandates(&parsed, version, "Result")? {
                    return Some(Err(e));
                }
                *slot = Some(MethodResult::$side(model::$union::$variant(parsed)));
            }};
        }
        match created {
            true => match by_method!(method, tasks_ext: tasks_ext, side, Side::Server) {
                Side::Server => p!(Server, ServerResult, CreateTask, CreateTaskResult),
                Side::Client => p!(Client, ClientResult, CreateTask, CreateTaskResult),
            },
            false => by_method!(
                method,
                tasks_ext: tasks_ext,
                p,
                return json.map(|_| Err(ParseError::new(
                    ParseErrorKind::UnknownMethod,
                    JsonPath::root(),
                    version,
                    "Result",
                    format!("no request has method \"{method}\", so its result has no type"),
                )))
            ),
        }
        return Some(Ok(()));
    }
    if !interim {
        return None;
    }
    let name = "InputRequiredResult";
    let parsed =
        match source.read::<model::InputRequiredResult>(version, name, ParseKind::Result)? {
            Ok(parsed) => parsed,
            Err(e) => return Some(Err(e)),
        };
    if !input_required(parsed.mandate_facts().and_then(|f| f.result_type)) {
        return None;
    }
    if let Err(e) = source.mandates(&parsed, version, "Result")? {
        return Some(Err(e));
    }
    *slot = Some(MethodResult::Server(model::ServerResult::InputRequired(
        parsed,
    )));
    Some(Ok(()))
}

/// Whether `version` has the tasks extension's forms of `tasks/get` and `tasks/cancel` (the
/// ledger's `EXTENSION_METHODS`).
fn tasks_extension_at(version: &VersionLike) -> bool {
    version
        .known()
        .is_some_and(|v| super::ledger::extension_method("tasks/get", v))
}

/// The error for a result that is not a JSON object (every result is one; serde's derived
/// structs would also read an array, field by field).
fn not_an_object(json: &Value, version: &VersionLike, type_name: &'static str) -> ParseError {
    ParseError::new(
        ParseErrorKind::Invalid,
        JsonPath::root(),
        version,
        type_name,
        format!("expected a result object, found {}", json_kind(json)),
    )
}

/// Keys every result may carry, which tell no member apart (`ttlMs`/`cacheScope` included, so a
/// body of cache hints alone is not taken for a cacheable result).
const BASE_KEYS: [&str; 4] = ["_meta", "resultType", "ttlMs", "cacheScope"];

/// A member of a result union: its spec name and how to parse it.
pub(crate) struct Arm<T> {
    pub name: &'static str,
    pub parse: fn(&Value, &VersionLike) -> Result<T, ParseError>,
}

/// The wire keys of a result type, over every revision, without the base keys.
fn arm_keys(name: &'static str) -> &'static BTreeSet<&'static str> {
    static CACHE: OnceLock<
        std::sync::Mutex<HashMap<&'static str, &'static BTreeSet<&'static str>>>,
    > = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    guard.entry(name).or_insert_with(|| {
        let mut keys = BTreeSet::new();
        for v in ProtocolVersion::ALL {
            if let Some(t) = crate::facts::revision(v).type_fact(name) {
                keys.extend(t.fields.iter().map(|f| f.name));
            }
        }
        for b in BASE_KEYS {
            keys.remove(b);
        }
        Box::leak(Box::new(keys))
    })
}

/// The ranked structural selection of a result-union member, for method-less contexts.
///
/// 1. At 2026-07-28, `resultType: "input_required"` selects `InputRequiredResult` (if it is an
///    arm); `InputRequiredResult` is never a structural candidate (it exists only at 2026-07-28,
///    where `resultType` discriminates it both ways).
/// 2. Candidates are the arms that declare at least one of the body's non-base keys, ranked by
///    how many (ties keep declaration order).
/// 3. No candidate: `EmptyResult` if it is an arm, else an error (never a type outside the union).
/// 4. Candidates are tried in rank order; among equally ranked candidates whose matched keys
///    differ, more than one success is an ambiguity error (a choice would drop the other's keys).
/// 5. All fail: the best-ranked candidate's error.
pub(crate) fn ranked<T>(
    value: &Value,
    version: &VersionLike,
    union: &'static str,
    arms: &[Arm<T>],
) -> Result<T, ParseError> {
    let Some(obj) = value.as_object() else {
        return Err(not_an_object(value, version, union));
    };
    if version.era() == Some(Era::Stateless)
        && obj.get("resultType").and_then(Value::as_str) == Some("input_required")
        && let Some(arm) = arms.iter().find(|a| a.name == "InputRequiredResult")
    {
        return (arm.parse)(value, version);
    }
    let mut candidates: Vec<(&Arm<T>, Vec<&str>)> = arms
        .iter()
        .filter(|a| a.name != "InputRequiredResult")
        .map(|a| {
            let keys = arm_keys(a.name);
            let matched: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| keys.contains(k))
                .collect();
            (a, matched)
        })
        .filter(|(_, m)| !m.is_empty())
        .collect();
    candidates.sort_by_key(|(_, m)| std::cmp::Reverse(m.len()));
    if candidates.is_empty() {
        return match arms.iter().find(|a| a.name == "EmptyResult") {
            Some(arm) => (arm.parse)(value, version),
            None => Err(ParseError::new(
                ParseErrorKind::Invalid,
                JsonPath::root(),
                version,
                union,
                format!(
                    "no member of {union} has any of the keys {:?}",
                    obj.keys().collect::<Vec<_>>()
                ),
            )),
        };
    }
    let mut first_error = None;
    let mut i = 0;
    while i < candidates.len() {
        let score = candidates[i].1.len();
        let group: Vec<_> = candidates[i..]
            .iter()
            .take_while(|(_, m)| m.len() == score)
            .collect();
        i += group.len();
        let mut successes: Vec<(&'static str, T)> = Vec::new();
        for (arm, _) in &group {
            match (arm.parse)(value, version) {
                Ok(v) => successes.push((arm.name, v)),
                Err(e) => {
                    if first_error.is_none() {
                        first_error = Some(e);
                    }
                }
            }
        }
        let distinct: BTreeSet<&Vec<&str>> = group.iter().map(|(_, m)| m).collect();
        if successes.len() > 1 && distinct.len() > 1 {
            let names: Vec<_> = successes.iter().map(|(n, _)| *n).collect();
            return Err(ParseError::new(
                ParseErrorKind::Invalid,
                JsonPath::root(),
                version,
                union,
                format!(
                    "ambiguous result: it parses as each of {names:?}, and any choice drops the others' keys; type it by its request method (parse_result_for)"
                ),
            ));
        }
        if let Some((_, v)) = successes.into_iter().next() {
            return Ok(v);
        }
    }
    Err(first_error.unwrap_or_else(|| {
        ParseError::new(
            ParseErrorKind::Invalid,
            JsonPath::root(),
            version,
            union,
            "no member matched",
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion::*;
    use crate::model::{ListRootsRequest, ListToolsRequest};

    /// Found by the `parse_as` fuzz target (10-minute run): serde's derived structs also read a
    /// JSON array field by field, so `[""]` answering `ping` at 2026-07-28 was an `EmptyResult`
    /// with `resultType` `""` from a `Value` and a `resultType` error from text. Every result is
    /// an object: each form, and a frame's `result` member, refuses the rest alike.
    #[test]
    fn a_result_that_is_not_an_object_is_invalid_in_every_form() {
        for text in [
            r#"[""]"#,
            r#"["complete"]"#,
            "[]",
            "\"complete\"",
            "7",
            "null",
        ] {
            for v in [V2024_11_05, V2025_11_25, V2026_07_28] {
                for method in ["ping", "tools/list", "tools/call", "sampling/createMessage"] {
                    let value: Value = serde_json::from_str(text).unwrap();
                    let from_value = parse_result_for(method, &value, v).unwrap_err();
                    assert_eq!(from_value.kind, ParseErrorKind::Invalid, "{method} {text}");
                    assert!(from_value.message.contains("result object"), "{from_value}");
                    let from_text = parse_result_for(method, text, v).unwrap_err();
                    assert_eq!(from_text, from_value, "{method} {text} at {v}");
                    let from_slice = parse_result_for(method, text.as_bytes(), v);
                    assert_eq!(from_slice.unwrap_err(), from_value);
                }
            }
        }
        // Objects still parse, on both paths.
        let ok = parse_result_for("ping", r#"{"resultType":"complete"}"#, V2026_07_28);
        assert!(ok.is_ok(), "{ok:?}");
    }

    /// Found by the `parse_as` fuzz target (issue 14): `serde_json` skips the value of a member
    /// the type ignores without reading it as a value, so an out-of-range number there
    /// (`"ttnMs":6E9373`, a misspelt `ttlMs`) parsed from text while the same text is no
    /// `Value`. The text paths refuse every text a `Value` cannot hold, in ignored members too.
    #[test]
    fn text_a_value_cannot_hold_is_refused_in_ignored_members_too() {
        let crash = r#"{"resultType":"complete","contents":[{"uri":"file:///proect/src/main.rs","mimeType":"txx-e/trust","text":"fn main() {}"}],"ttnMs":6E9373,"cac*heScope              ":"p)ivate"}"#;
        assert!(serde_json::from_str::<Value>(crash).is_err());
        let e = parse_result_for("resources/read", crash, V2026_07_28).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        assert!(e.message.contains("number out of range"), "{e}");
        let from_slice = parse_result_for("resources/read", crash.as_bytes(), V2026_07_28);
        assert_eq!(from_slice.unwrap_err(), e);
        // Deeper, in other bodies and revisions: an ignored number, a lone surrogate.
        for (text, v) in [
            (
                r#"{"method":"tools/list","params":{"x":[1,{"y":-1e999}]}}"#,
                V2025_06_18,
            ),
            (
                r#"{"method":"tools/list","params":{"cursor":"c","x":"\udc00"}}"#,
                V2024_11_05,
            ),
        ] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
            let e = parse_as::<ListToolsRequest>(text, v).unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
            let e = parse_as::<model::ClientRequest>(text, v).unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        }
        // In range, the same shapes parse.
        let fine = crash.replace("6E9373", "6E3");
        assert!(parse_result_for("resources/read", &fine, V2026_07_28).is_ok());
    }

    /// Issue 14: serde's derived structs read a JSON array field by field, so `["…"]` stood
    /// for an object anywhere below the result (params, content blocks, tools, schemas). Every
    /// type the model reads as a struct is an object: the array form is `Invalid` at its JSON
    /// Pointer, the same from text, bytes and a `Value`.
    #[test]
    fn arrays_are_not_objects_at_any_depth() {
        use model::{ClientRequest, ServerRequest};
        let tool = r#"{"name":"t","inputSchema":{"type":"object"}}"#;
        let results = [
            // A tagged union (content block) finds no tag in an array.
            (
                "tools/call",
                r#"{"content":[["text","hi"]]}"#.to_owned(),
                "/content/0/type",
            ),
            (
                "tools/list",
                r#"{"tools":[["t",{"type":"object"}]]}"#.to_owned(),
                "/tools/0",
            ),
            (
                "tools/list",
                r#"{"tools":[{"name":"t","inputSchema":["object"]}]}"#.to_owned(),
                "/tools/0/inputSchema",
            ),
            (
                "tools/list",
                format!(
                    r#"{{"tools":[{tool},{{"name":"u","inputSchema":{{"type":"object"}},"annotations":["x"]}}]}}"#
                ),
                "/tools/1/annotations",
            ),
            (
                "prompts/get",
                r#"{"messages":[{"role":"user","content":["text","hi"]}]}"#.to_owned(),
                "/messages/0/content/type",
            ),
            (
                "resources/read",
                r#"{"contents":[["file:///a","text/plain","x"]]}"#.to_owned(),
                "/contents/0",
            ),
        ];
        for (method, text, pointer) in &results {
            for v in [V2024_11_05, V2025_06_18, V2026_07_28] {
                let text = if v.era() == Era::Stateless {
                    text.replacen('{', r#"{"resultType":"complete","#, 1)
                } else {
                    text.clone()
                };
                let value: Value = serde_json::from_str(&text).unwrap();
                let e = parse_result_for(*method, &value, v).unwrap_err();
                assert_eq!(e.path.pointer(), *pointer, "{method} at {v}: {e}");
                let tagged = pointer.ends_with("/type");
                assert!(tagged || e.message.contains("sequence"), "{e}");
                assert_eq!(parse_result_for(*method, &text, v).unwrap_err(), e);
                assert_eq!(
                    parse_result_for(*method, text.as_bytes(), v).unwrap_err(),
                    e
                );
            }
        }
        let requests = [
            (r#"{"method":"tools/call","params":["t",{}]}"#, "/params"),
            (
                r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":["roots"],"clientInfo":{"name":"c","version":"1"}}}"#,
                "/params/capabilities",
            ),
            (
                r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":["c","1"]}}"#,
                "/params/clientInfo",
            ),
            (
                r#"{"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":["a","b"]}}"#,
                "/params/argument",
            ),
        ];
        for (text, pointer) in requests {
            let v = V2025_06_18;
            let value: Value = serde_json::from_str(text).unwrap();
            let e = parse_as::<ClientRequest>(&value, v).unwrap_err();
            assert_eq!(e.path.pointer(), pointer, "{text}: {e}");
            assert_eq!(parse_as::<ClientRequest>(text, v).unwrap_err(), e);
            assert_eq!(
                parse_as::<ClientRequest>(text.as_bytes(), v).unwrap_err(),
                e
            );
        }
        let sampling = r#"{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5,"modelPreferences":["fast"]}}"#;
        let value: Value = serde_json::from_str(sampling).unwrap();
        let e = parse_as::<ServerRequest>(&value, V2025_03_26).unwrap_err();
        assert_eq!(e.path.pointer(), "/params/modelPreferences", "{e}");
        assert_eq!(
            parse_as::<ServerRequest>(sampling, V2025_03_26).unwrap_err(),
            e
        );
        // The object forms parse.
        let fine = sampling.replace(r#"["fast"]"#, r#"{"speedPriority":1}"#);
        assert!(parse_as::<ServerRequest>(&fine, V2025_03_26).is_ok());
        let fine = format!(r#"{{"tools":[{tool}]}}"#);
        assert!(parse_result_for("tools/list", &fine, V2025_06_18).is_ok());
    }

    /// Found by the `parse_as` fuzz target: `serde_json` skips the string of a member the type
    /// ignores (here the frame's `id`) without checking its bytes, so the typed slice path took
    /// invalid UTF-8 that `parse_as` can never see.
    #[test]
    fn slices_that_are_not_utf8_are_syntax_errors_in_ignored_members_too() {
        let frame = b"{\"id\":\"list-ro\xdes-example\",\"method\":\"roots/list\"}";
        for v in [V2024_11_05, V2026_07_28] {
            let e = parse_as::<ListRootsRequest>(frame, v).unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
            let e = parse_as::<ListToolsRequest>(b"{\"method\":\"tools/list\",\"x\":\"\xff\"}", v)
                .unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
            let e =
                parse_result_for("tools/list", b"{\"tools\":[],\"x\":\"\xc3\"}", v).unwrap_err();
            assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        }
        // The same bytes as UTF-8 parse, on both paths.
        let fixed = br#"{"id":"list-roots-example","method":"roots/list"}"#;
        assert!(parse_as::<ListRootsRequest>(fixed, V2025_06_18).is_ok());
        assert!(
            parse_result_for("tools/list", br#"{"tools":[],"x":"\u00ff"}"#, V2025_06_18).is_ok()
        );
    }
}
