//! Parsing: a lenient superset parse plus the 2026-07-28 mandates.
//!
//! - Unknown keys are ignored (open objects keep them), at every revision.
//! - At 2026-07-28 only: a result's `resultType` must be `complete` or `input_required` (M1);
//!   a client request must carry the required reserved `_meta` keys (M3, one error per missing
//!   key, `-32602`). Embedded input requests must name their `method` (M2): the superset's
//!   method-tagged unions already require it, at every revision.
//! - An unknown version string parses with no mandates.
//! - Result unions parsed without a method use a ranked structural selection
//!   ([`WireParse`] for `ServerResult`/`ClientResult`); [`parse_result_for`] types a result by
//!   the method of the request it answers and is the one to use whenever that is known.

use std::collections::{BTreeSet, HashMap};
use std::marker::PhantomData;
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::body::BodyKind::{self, Notification, Request};
use super::error::{JsonPath, ParseError, ParseErrorKind};
use super::ledger::{CLIENT_REQUESTS_2026, RESERVED_META, RESULT_TYPES_2026};
use crate::de::strict;
use crate::facts::{MethodFact, RevisionFacts};
use crate::model::methods::by_sender;
use crate::model::{self, ModelError, ModelErrorKind};
use crate::path::json_kind;
use crate::{Era, ProtocolVersion, VersionLike};

/// A superset type `parse_as` can produce.
pub trait WireParse: DeserializeOwned {
    /// The spec name of the type (or union), for error messages.
    const TYPE_NAME: &'static str;
    /// Which kind of message body it is (or a union of), which decides the checks that apply;
    /// `None` for a fragment (content blocks, capabilities, …), a plain lenient parse.
    const KIND: Option<BodyKind>;

    /// For the result unions (`ServerResult`, `ClientResult`): the structural parse (before
    /// mandates), a ranked selection that needs the whole object. `None` for every other type:
    /// its own `Deserialize` is its structural parse, so text can be parsed straight into it.
    #[doc(hidden)]
    const RANKED: Option<Structure<Self>> = None;

    /// What the revision's checks read, taken from the parsed value: the method whose existence
    /// is checked, and what the 2026-07-28 mandates of [`Self::KIND`] read. `None` when the typed
    /// value does not keep it (the text reads then check on a `Value`, as a `Value`'s parse does).
    #[doc(hidden)]
    fn mandate_facts(&self) -> Option<MandateFacts<'_>> {
        None
    }

    /// For the method-tagged unions (`ClientRequest`, …): the method table of a revision's
    /// facts that lists their members; `None` for every other type.
    #[doc(hidden)]
    const METHOD_TABLE: Option<MethodTable> = None;
}

/// A structural parse of a `Value` at a revision.
#[doc(hidden)]
pub type Structure<T> = fn(&Value, &VersionLike) -> Result<T, ParseError>;

/// A method table of a revision's facts (`client_requests`, `server_notifications`, …).
#[doc(hidden)]
pub type MethodTable = fn(&'static RevisionFacts) -> &'static [MethodFact];

/// Whether the body type `T` (or, for a method-tagged union, its member with `method`) exists at
/// a known `version`: a method the revision's table lacks is `UnknownMethod`, listing only that
/// revision's methods; a type the revision does not define is `TypeAbsent` (both `-32601`).
fn existence<T: WireParse>(method: Option<&str>, version: &VersionLike) -> Result<(), ParseError> {
    let Some(v) = version.known() else {
        return Ok(());
    };
    let facts = crate::facts::revision(v);
    let fail =
        |kind, path, message| Err(ParseError::new(kind, path, version, T::TYPE_NAME, message));
    match (T::METHOD_TABLE, method) {
        (Some(table), Some(method)) => {
            let methods = table(facts);
            // Listed in the revision's table, or a member the revision still defines as a type
            // (2026-07-28's server requests exist embedded in input-required results only), or
            // one an extension adds there (the tasks extension at 2026-07-28).
            if methods.iter().any(|m| m.method == method)
                || crate::model::method_info(method).is_some_and(|m| facts.has_type(m.type_name))
                || super::ledger::extension_method(method, v)
            {
                return Ok(());
            }
            let sender = match T::TYPE_NAME.starts_with("Client") {
                true => "client",
                false => "server",
            };
            let members = match T::KIND {
                Some(BodyKind::Notification) => "notifications",
                _ => "requests",
            };
            let list = match methods.iter().map(|m| m.method).collect::<Vec<_>>() {
                listed if listed.is_empty() => format!("it has no {sender} {members}"),
                listed => format!("its {sender} {members} are {}", listed.join(", ")),
            };
            let message =
                format!("method \"{method}\" does not exist at protocol version {v}; {list}");
            fail(
                ParseErrorKind::UnknownMethod,
                JsonPath::root().key("method"),
                message,
            )
        }
        (None, _)
            if matches!(T::KIND, Some(Request | Notification | BodyKind::Result))
                && !facts.has_type(T::TYPE_NAME)
                && !super::ledger::extension_only(T::TYPE_NAME, v) =>
        {
            let message = format!("{} does not exist at protocol version {v}", T::TYPE_NAME);
            fail(ParseErrorKind::TypeAbsent, JsonPath::root(), message)
        }
        _ => Ok(()),
    }
}

/// What the revision's checks read from a body: its `method` (whose existence is checked, and
/// the 2026-07-28 mandates), its `resultType` (when a string) and its `params._meta` object.
/// Taken from the raw `Value`, or from the typed value read from text
/// ([`WireParse::mandate_facts`]), so both check exactly the same thing.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct MandateFacts<'a> {
    method: Option<&'a str>,
    result_type: Option<&'a str>,
    meta: Option<&'a Map<String, Value>>,
}

impl<'a> MandateFacts<'a> {
    /// A request or notification with this method and `params._meta`.
    pub(crate) fn body(method: &'a str, meta: Option<&'a Map<String, Value>>) -> Option<Self> {
        Some(MandateFacts {
            method: Some(method),
            result_type: None,
            meta,
        })
    }

    /// A result with this `resultType`.
    pub(crate) fn result(result_type: Option<&'a str>) -> Option<Self> {
        Some(MandateFacts {
            method: None,
            result_type,
            meta: None,
        })
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
}

/// The model layer's error (a JSON Pointer and a kind) as the [`ParseError`] of reading a `T`.
fn from_model<T: WireParse>(e: ModelError, version: &VersionLike) -> ParseError {
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
        ModelErrorKind::Invalid(m)
            if m.starts_with("missing field `method`")
                && matches!(T::KIND, Some(Request | Notification)) =>
        {
            ParseErrorKind::MissingMethod
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
    ParseError::new(kind, path, version, T::TYPE_NAME, message)
}

/// A plain lenient parse, its error located by the same read.
pub(crate) fn plain<T: WireParse>(value: &Value, version: &VersionLike) -> Result<T, ParseError> {
    crate::de::located_read::<T>(value).map_err(|e| from_model::<T>(e, version))
}

/// The 2026-07-28 mandates on a `kind` body, on what `facts` reads from it (asked only where
/// they apply: at 2026-07-28, to requests and results); `None` when they apply and `facts` does
/// not tell (the typed value does not keep what they read).
fn mandates<'a>(
    facts: impl FnOnce() -> Option<MandateFacts<'a>>,
    version: &VersionLike,
    type_name: &'static str,
    kind: Option<BodyKind>,
) -> Option<Result<(), ParseError>> {
    let applies = matches!(kind, Some(Request | BodyKind::Result));
    if version.era() != Some(Era::Stateless) || !applies {
        return Some(Ok(()));
    }
    let facts = facts()?;
    let fail =
        |kind, path: JsonPath, message| ParseError::new(kind, path, version, type_name, message);
    if kind == Some(BodyKind::Result) {
        // M1: an unrecognized resultType.
        return Some(match facts.result_type {
            Some(rt) if !RESULT_TYPES_2026.contains(&rt) => Err(fail(
                ParseErrorKind::ResultTypeInvalid,
                JsonPath::root().key("resultType"),
                format!(
                    "unrecognized resultType \"{rt}\"; this protocol version defines \"complete\" and \"input_required\""
                ),
            )),
            _ => Ok(()),
        });
    }
    // M3: the reserved `_meta` keys of a client request.
    if !facts
        .method
        .is_some_and(|m| CLIENT_REQUESTS_2026.contains(&m))
    {
        return Some(Ok(()));
    }
    let mut missing = RESERVED_META
        .iter()
        .filter(|r| r.required && !facts.meta.is_some_and(|m| m.contains_key(r.key)))
        .map(|r| {
            let path = JsonPath::root().key("params").key("_meta").key(r.key);
            let message = format!("required reserved _meta entry {} is missing", r.key);
            fail(ParseErrorKind::MissingRequiredMeta, path, message)
        });
    // One error per missing key: the first, with the rest as its `more`.
    Some(match missing.next() {
        Some(mut first) => {
            first.more.extend(missing);
            Err(first)
        }
        None => Ok(()),
    })
}

/// A body's `Value` read as `T`, with `structure` as its structural parse ([`WireParse::RANKED`],
/// or [`plain`] or its read through the value's text): the answer every input's equals.
fn value_as<T: WireParse>(
    json: &Value,
    version: &VersionLike,
    structure: Structure<T>,
) -> Result<T, ParseError> {
    existence::<T>(json.get("method").and_then(Value::as_str), version)?;
    let parsed = structure(json, version)?;
    let facts = || Some(MandateFacts::of_value(json));
    mandates(facts, version, T::TYPE_NAME, T::KIND).transpose()?;
    Ok(parsed)
}

/// What a read produces: a body `T` (as `PhantomData<T>`) or a result typed by what it answers
/// ([`ResultFor`]). Text is typed straight into it where that read decides; otherwise the text's
/// `Value` answers, as a `Value` given as input does.
trait Target: Copy {
    type Out;
    /// The type a syntax error names.
    const NAME: &'static str;

    /// The typed read of `text` into `slot`, which holds the value when this gives
    /// `Some(Ok(()))`; `None` when that read does not decide.
    fn typed(
        self,
        text: &str,
        version: &VersionLike,
        slot: &mut Option<Self::Out>,
    ) -> Option<Result<(), ParseError>>;

    /// The answer for a `Value` given as input.
    fn of_value(self, json: &Value, version: &VersionLike) -> Result<Self::Out, ParseError>;

    /// The answer for the `Value` of text the typed read did not decide: [`Target::of_value`]'s,
    /// possibly read with the text reader.
    fn of_text_value(self, json: &Value, version: &VersionLike) -> Result<Self::Out, ParseError> {
        self.of_value(json, version)
    }
}

impl<T: WireParse> Target for PhantomData<T> {
    type Out = T;
    const NAME: &'static str = T::TYPE_NAME;

    /// A typed value passes when its type (or method) exists at `version`, then by the
    /// revision's mandates; judged by reference, so a large value is not moved.
    #[inline]
    fn typed(
        self,
        text: &str,
        version: &VersionLike,
        slot: &mut Option<T>,
    ) -> Option<Result<(), ParseError>> {
        if T::RANKED.is_some()
            || strict::from_str_into::<T, _>(text, strict::FromText, slot).is_err()
        {
            return None;
        }
        let parsed = slot.as_ref()?;
        let facts = parsed.mandate_facts();
        let verdict = match existence::<T>(facts.and_then(|f| f.method), version) {
            Ok(()) => mandates(|| facts, version, T::TYPE_NAME, T::KIND)?,
            Err(e) => Err(e),
        };
        Some(verdict.inspect_err(|_| *slot = None))
    }

    fn of_value(self, json: &Value, version: &VersionLike) -> Result<T, ParseError> {
        value_as(json, version, T::RANKED.unwrap_or(plain))
    }

    fn of_text_value(self, json: &Value, version: &VersionLike) -> Result<T, ParseError> {
        // [`plain`] read from the value's text ([`crate::de::located_text_read`]: the same answer
        // and error), so a program whose bodies arrive as text reads them with the text reader
        // alone.
        let plain_text = |v: &Value, ver: &VersionLike| {
            crate::de::located_text_read::<T>(v).map_err(|e| from_model::<T>(e, ver))
        };
        value_as(json, version, T::RANKED.unwrap_or(plain_text))
    }
}

/// Reads `input` as `target` says. The input's kind is known wherever this is instantiated, so
/// a program that reads only text links no typed read of a `Value`.
#[inline]
fn read<G: Target>(
    target: G,
    input: &(impl WireInput + ?Sized),
    version: &VersionLike,
) -> Result<G::Out, ParseError> {
    let text = match input.source() {
        input::Source::Value(json) => return target.of_value(json, version),
        input::Source::Str(text) => text,
        // The typed read only ever sees UTF-8: `serde_json` skips the strings of members a type
        // ignores without checking their bytes, so invalid UTF-8 there would parse. Other bytes
        // are left to the `Value` read, which refuses them.
        input::Source::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return by_value(target, bytes, version),
        },
    };
    let mut slot = None;
    read_into(target, text, version, &mut slot)?;
    slot.map_or_else(|| by_value(target, text.as_bytes(), version), Ok)
}

/// [`read`] of text into `slot`, which holds the value when this returns `Ok` and is empty when
/// it returns `Err`.
#[inline]
fn read_into<G: Target>(
    target: G,
    text: &str,
    version: &VersionLike,
    slot: &mut Option<G::Out>,
) -> Result<(), ParseError> {
    if let Some(done) = target.typed(text, version, slot) {
        return done;
    }
    *slot = None;
    *slot = Some(by_value(target, text.as_bytes(), version)?);
    Ok(())
}

/// The `Value` read of text the typed read did not decide (bad bodies, and the few cases the
/// typed value cannot answer), kept out of line so the typed read stays small.
#[cold]
#[inline(never)]
fn by_value<G: Target>(
    target: G,
    text: &[u8],
    version: &VersionLike,
) -> Result<G::Out, ParseError> {
    let value = serde_json::from_slice(text).map_err(|e| {
        let (path, message) = (JsonPath::root(), e.to_string());
        ParseError::new(ParseErrorKind::Syntax, path, version, G::NAME, message)
    })?;
    target.of_text_value(&value, version)
}

/// What the boundary reads a body from: a parsed [`Value`], JSON text (`str`, `String`) or
/// JSON bytes (`[u8]`, `[u8; N]`, `Vec<u8>`, a line as read from a stream; invalid UTF-8 is a
/// [`ParseErrorKind::Syntax`] error).
///
/// Every input gets the answer its `Value` would: text is read straight into the typed value
/// (no `Value` tree), and only when that fails (a bad body, or duplicate keys, which a `Value`
/// reads last-wins) is it parsed again as a `Value` to give the `Value`'s answer.
pub trait WireInput: input::Sealed {}

pub(crate) mod input {
    use serde_json::Value;

    /// The input as the boundary reads it.
    pub enum Source<'a> {
        Value(&'a Value),
        Str(&'a str),
        Bytes(&'a [u8]),
    }

    /// Only this crate's inputs are [`super::WireInput`]s.
    pub trait Sealed {
        fn source(&self) -> Source<'_>;
    }

    /// Each input type, and the source it is.
    macro_rules! sources {
        ($([$($generics:tt)*] $ty:ty => $source:ident,)*) => {$(
            impl<$($generics)*> Sealed for $ty {
                #[inline]
                fn source(&self) -> Source<'_> {
                    Source::$source(self)
                }
            }
        )*};
    }

    sources! {
        [] Value => Value,
        [] str => Str,
        [] String => Str,
        [] [u8] => Bytes,
        [] Vec<u8> => Bytes,
        [const N: usize] [u8; N] => Bytes,
    }

    impl<T: Sealed + ?Sized> Sealed for &T {
        #[inline]
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
    read(PhantomData, input, &version.into())
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
        let task = match augmented {
            true => TaskRole::Augmented,
            false => TaskRole::Plain,
        };
        ResultFor { task, ..self }
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

/// A method (`&str`, `&String`, …) is the result of a request with that method, answered plainly.
impl<'a, S: AsRef<str> + ?Sized> From<&'a S> for ResultFor<'a> {
    fn from(method: &'a S) -> Self {
        ResultFor::method(method.as_ref())
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

/// The result type of each method (before the input-required and task-handle cases), from the
/// body table (`for_each_body!(by_sender(result_rows(method, tasks_ext, p, unknown)))`):
/// `p!(side, union, variant, type)` reads one; an unknown method evaluates `unknown`. A method
/// either side may send (`ping`, the core tasks requests) is answered by a server. `tasks_ext`:
/// the revision has the tasks extension's forms (`tasks/get` inlines the outcome, `tasks/cancel`
/// is acknowledged empty).
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
    read(answering.into(), input, &version.into())
}

impl Target for ResultFor<'_> {
    type Out = MethodResult;
    const NAME: &'static str = "Result";

    #[inline]
    fn typed(
        self,
        text: &str,
        version: &VersionLike,
        slot: &mut Option<MethodResult>,
    ) -> Option<Result<(), ParseError>> {
        type_result(self, Text(text), version, slot)
    }

    fn of_value(self, json: &Value, version: &VersionLike) -> Result<MethodResult, ParseError> {
        if !json.is_object() {
            return Err(not_an_object(json, version, "Result"));
        }
        let mut slot = None;
        type_result(self, json, version, &mut slot).transpose()?;
        // A `Value` decides every read: the slot is full.
        slot.ok_or_else(|| not_an_object(json, version, "Result"))
    }
}

/// Reads that write the typed value into the caller's slot instead of returning it, for the
/// translator of `mcp-wire-frames` (a typed body is a few hundred bytes, and returning it
/// through each layer copies it each time). Not part of the API: hidden, and it may change in
/// any release. Each answers exactly as [`parse_as`] / [`parse_result_for`] on the same text;
/// `slot` holds the value when it answers `Ok` and is empty otherwise.
#[doc(hidden)]
pub mod in_place {
    use super::*;

    /// [`parse_as`] on text, into `slot`.
    pub fn parse_str<T: WireParse>(
        text: &str,
        version: impl Into<VersionLike>,
        slot: &mut Option<T>,
    ) -> Result<(), ParseError> {
        read_into(PhantomData, text, &version.into(), slot)
    }

    /// [`parse_result_for`] on text, into `slot`.
    pub fn parse_result_str<'a>(
        answering: impl Into<ResultFor<'a>>,
        text: &str,
        version: impl Into<VersionLike>,
        slot: &mut Option<MethodResult>,
    ) -> Result<(), ParseError> {
        read_into(answering.into(), text, &version.into(), slot)
    }

    /// A `T` read from JSON text no strict reader has checked: the read succeeds only on text
    /// the strict reader accepts (no object repeats a key, at most `LEVELS` arrays and objects
    /// nested, the value's own included), so text read this way needs no check of its own.
    pub struct Unchecked<T, const LEVELS: usize>(pub T);

    impl<'de, T: serde::Deserialize<'de>, const LEVELS: usize> serde::Deserialize<'de>
        for Unchecked<T, LEVELS>
    {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let mode = strict::Unchecked { levels: LEVELS };
            T::deserialize(strict::Strict(d, mode)).map(Unchecked)
        }
    }
}

/// Where a result is typed from: its `Value`, whose every read decides (errors included), or
/// its [`Text`], whose typed read decides or leaves the answer to the text's `Value`.
trait ResultSource: Copy {
    /// Reads the result as `T`; `None` when this source does not decide.
    fn read<T: WireParse>(self, version: &VersionLike) -> Option<Result<T, ParseError>>;

    /// The result's `Value`, when the source is one: it then tells the mandates' facts, whether
    /// the result is input-required before any typed read, and that a method has no result.
    fn value(&self) -> Option<&Value>;
}

impl ResultSource for &Value {
    fn read<T: WireParse>(self, version: &VersionLike) -> Option<Result<T, ParseError>> {
        Some(plain(self, version))
    }

    fn value(&self) -> Option<&Value> {
        Some(self)
    }
}

/// JSON text a strict reader has checked.
#[derive(Clone, Copy)]
struct Text<'a>(&'a str);

impl ResultSource for Text<'_> {
    #[inline]
    fn read<T: WireParse>(self, _: &VersionLike) -> Option<Result<T, ParseError>> {
        strict::from_str(self.0, strict::FromText).ok().map(Ok)
    }

    fn value(&self) -> Option<&Value> {
        None
    }
}

/// Types a result as `answering` says at `version`, into `slot` (full only when this gives
/// `Some(Ok(()))`): the one decision of [`parse_result_for`], whatever the input. `None` when
/// `source` does not decide (text then answers by its `Value`).
///
/// A task-augmented request is answered by a `CreateTaskResult`; otherwise the method's own
/// result, or at 2026-07-28, for the [`INPUT_REQUIRED_METHODS`], an `InputRequiredResult` where
/// `resultType` says so (text is read as the method's own result first, the common answer).
fn type_result(
    answering: ResultFor<'_>,
    source: impl ResultSource,
    version: &VersionLike,
    slot: &mut Option<MethodResult>,
) -> Option<Result<(), ParseError>> {
    *slot = None;
    // Whether the revision has the tasks extension's forms of `tasks/get` and `tasks/cancel`
    // (the ledger's `EXTENSION_METHODS`).
    let tasks_ext = version
        .known()
        .is_some_and(|v| super::ledger::extension_method("tasks/get", v));
    let (method, created) = match answering.typing(version.clone()) {
        ResultTyping::CreatedTask(method) => (method, true),
        ResultTyping::Method(method) => (method, false),
    };
    let interim = !created
        && version.era() == Some(Era::Stateless)
        && INPUT_REQUIRED_METHODS.contains(&method);
    // Whether a result whose `resultType` is `rt` is the input-required answer.
    let input_required = |rt: Option<&str>| interim && rt == Some("input_required");
    // Reads the result as `$ty` and, when it is the input-required answer exactly when `$want`
    // says, checks it and puts it in the slot as `$side`'s `$union::$variant`; else leaves `$l`.
    macro_rules! read {
        ($l:lifetime, $want:expr, $side:ident, $union:ident, $variant:ident, $ty:ident) => {{
            let Some(read) = source.read::<model::$ty>(version) else {
                break $l;
            };
            let parsed = match read {
                Ok(parsed) => parsed,
                Err(e) => return Some(Err(e)),
            };
            if input_required(parsed.mandate_facts().and_then(|f| f.result_type)) != $want {
                break $l;
            }
            // The mandates' facts: the source's `Value` when it is one, else the typed value's.
            let facts = || {
                let value = source.value().map(MandateFacts::of_value);
                value.or_else(|| parsed.mandate_facts())
            };
            if let Err(e) = mandates(facts, version, "Result", Some(BodyKind::Result))? {
                return Some(Err(e));
            }
            *slot = Some(MethodResult::$side(model::$union::$variant(parsed)));
        }};
    }
    'own: {
        let value_rt = source.value().and_then(|v| v.get("resultType"));
        if input_required(value_rt.and_then(Value::as_str)) {
            break 'own;
        }
        macro_rules! p {
            ($($row:tt)*) => {
                read!('own, false, $($row)*)
            };
        }
        // A created task is answered as `result_rows!` answers the method: by a server when a
        // client sends it (either side sending it included), or when no row names it.
        let server = || model::method_info(method).is_none_or(|m| m.sender.client());
        match created {
            true if server() => p!(Server, ServerResult, CreateTask, CreateTaskResult),
            true => p!(Client, ClientResult, CreateTask, CreateTaskResult),
            false => {
                model::methods::for_each_body!(by_sender(result_rows(method, tasks_ext, p, {
                    // Text leaves this to its `Value`.
                    let m =
                        format!("no request has method \"{method}\", so its result has no type");
                    let (kind, path) = (ParseErrorKind::UnknownMethod, JsonPath::root());
                    let e = ParseError::new(kind, path, version, "Result", m);
                    return source.value().map(|_| Err(e));
                })))
            }
        }
        return Some(Ok(()));
    }
    'input: {
        if interim {
            read!('input, true, Server, ServerResult, InputRequired, InputRequiredResult);
            return Some(Ok(()));
        }
    }
    None
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
    pub parse: Structure<T>,
}

/// The wire keys of a result type, over every revision, without the base keys (none for a name
/// no revision defines).
fn arm_keys(name: &str) -> &'static BTreeSet<&'static str> {
    static KEYS: OnceLock<HashMap<&str, BTreeSet<&str>>> = OnceLock::new();
    static NONE: BTreeSet<&str> = BTreeSet::new();
    let keys = KEYS.get_or_init(|| {
        let mut keys = HashMap::<_, BTreeSet<_>>::new();
        for t in ProtocolVersion::ALL
            .iter()
            .flat_map(|v| crate::facts::revision(*v).types)
        {
            let fields = t.fields.iter().map(|f| f.name);
            keys.entry(t.name)
                .or_default()
                .extend(fields.filter(|f| !BASE_KEYS.contains(f)));
        }
        keys
    });
    keys.get(name).unwrap_or(&NONE)
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
    let invalid = |message| {
        ParseError::new(
            ParseErrorKind::Invalid,
            JsonPath::root(),
            version,
            union,
            message,
        )
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
            None => Err(invalid(format!(
                "no member of {union} has any of the keys {:?}",
                obj.keys().collect::<Vec<_>>()
            ))),
        };
    }
    let mut first_error = None;
    for group in candidates.chunk_by(|(_, a), (_, b)| a.len() == b.len()) {
        let mut successes: Vec<(&'static str, T)> = Vec::new();
        for (arm, _) in group {
            match (arm.parse)(value, version) {
                Ok(v) => successes.push((arm.name, v)),
                Err(e) => _ = first_error.get_or_insert(e),
            }
        }
        let distinct: BTreeSet<&Vec<&str>> = group.iter().map(|(_, m)| m).collect();
        if successes.len() > 1 && distinct.len() > 1 {
            let names: Vec<_> = successes.iter().map(|(n, _)| *n).collect();
            return Err(invalid(format!(
                "ambiguous result: it parses as each of {names:?}, and any choice drops the others' keys; type it by its request method (parse_result_for)"
            )));
        }
        if let Some((_, v)) = successes.into_iter().next() {
            return Ok(v);
        }
    }
    Err(first_error.unwrap_or_else(|| invalid("no member matched".into())))
}
