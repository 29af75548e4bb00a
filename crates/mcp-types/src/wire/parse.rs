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
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{JsonPath, ParseError, ParseErrorKind, PathSegment};
use super::ledger::{CLIENT_REQUESTS_2026, RESERVED_META, RESULT_TYPES_2026};
use crate::model::{self, ModelError, ModelErrorKind};
use crate::{ProtocolVersion, VersionLike};

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

    /// The structural parse (before mandates). Result unions override it with the ranked
    /// selection; everything else is a plain lenient parse.
    #[doc(hidden)]
    fn parse_structure(value: &Value, version: &VersionLike) -> Result<Self, ParseError> {
        plain(value, version, Self::TYPE_NAME, Self::KIND)
    }
}

/// Converts the model layer's error (a `$.a.b[0]` path and a kind) into a [`ParseError`].
pub(crate) fn from_model(
    e: ModelError,
    version: &VersionLike,
    type_name: &'static str,
    kind_hint: ParseKind,
) -> ParseError {
    let path = parse_dollar_path(&e.path);
    let message = e.kind.to_string();
    let kind = match &e.kind {
        ModelErrorKind::UnknownTag { field, .. } if field == "method" => {
            ParseErrorKind::UnknownMethod
        }
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

/// `$.params.messages[0].content` → segments.
fn parse_dollar_path(text: &str) -> JsonPath {
    let mut segs = Vec::new();
    let rest = text.strip_prefix('$').unwrap_or(text);
    let mut chars = rest.chars().peekable();
    let mut cur = String::new();
    let flush = |cur: &mut String, segs: &mut Vec<PathSegment>| {
        if !cur.is_empty() {
            segs.push(PathSegment::Key(std::mem::take(cur)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '.' => flush(&mut cur, &mut segs),
            '[' => {
                flush(&mut cur, &mut segs);
                let mut idx = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    idx.push(d);
                }
                match idx.parse::<usize>() {
                    Ok(i) => segs.push(PathSegment::Index(i)),
                    Err(_) => segs.push(PathSegment::Key(idx.trim_matches('"').to_owned())),
                }
            }
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut segs);
    JsonPath::from_segments(segs)
}

/// A plain lenient parse; on failure, a second pass locates the error.
pub(crate) fn plain<T: DeserializeOwned>(
    value: &Value,
    version: &VersionLike,
    type_name: &'static str,
    kind: ParseKind,
) -> Result<T, ParseError> {
    match T::deserialize(value) {
        Ok(v) => Ok(v),
        Err(_) => match model::from_value::<T>(value.clone()) {
            Ok(v) => Ok(v),
            Err(e) => Err(from_model(e, version, type_name, kind)),
        },
    }
}

/// The 2026-07-28 mandates on the raw input (they apply to known 2026-07-28 only).
fn mandates(
    value: &Value,
    version: &VersionLike,
    type_name: &'static str,
    kind: ParseKind,
) -> Result<(), ParseError> {
    if version.known() != Some(ProtocolVersion::V2026_07_28) {
        return Ok(());
    }
    match kind {
        ParseKind::Result => {
            // M1: an unrecognized resultType.
            if let Some(Value::String(rt)) = value.get("resultType")
                && !RESULT_TYPES_2026.contains(&rt.as_str())
            {
                return Err(ParseError::new(
                    ParseErrorKind::ResultTypeInvalid,
                    JsonPath::root().key("resultType"),
                    version,
                    type_name,
                    format!(
                        "unrecognized resultType \"{rt}\"; this protocol version defines \"complete\" and \"input_required\""
                    ),
                ));
            }
        }
        ParseKind::Request => {
            // M3: the reserved `_meta` keys of a client request.
            let Some(method) = value.get("method").and_then(Value::as_str) else {
                return Ok(());
            };
            if !CLIENT_REQUESTS_2026.contains(&method) {
                return Ok(());
            }
            let meta = value
                .get("params")
                .and_then(|p| p.get("_meta"))
                .and_then(Value::as_object);
            let errors: Vec<ParseError> = RESERVED_META
                .iter()
                .filter(|r| r.required && !meta.is_some_and(|m| m.contains_key(r.key)))
                .map(|r| {
                    ParseError::new(
                        ParseErrorKind::MissingRequiredMeta,
                        JsonPath::root().key("params").key("_meta").key(r.key),
                        version,
                        type_name,
                        format!("required reserved _meta entry {} is missing", r.key),
                    )
                })
                .collect();
            if let Some(e) = ParseError::join(errors) {
                return Err(e);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Parses `json` as `T` at `version`: the lenient superset parse, then the revision's mandates.
///
/// An unknown version (`VersionLike::Unknown`) parses with no mandates.
pub fn parse_as<T: WireParse>(
    json: &Value,
    version: impl Into<VersionLike>,
) -> Result<T, ParseError> {
    let version = version.into();
    let parsed = T::parse_structure(json, &version)?;
    mandates(json, &version, T::TYPE_NAME, T::KIND)?;
    Ok(parsed)
}

/// Parses JSON text as `T` at `version` (see [`parse_as`]).
pub fn parse_str_as<T: WireParse>(
    text: &str,
    version: impl Into<VersionLike>,
) -> Result<T, ParseError> {
    let version = version.into();
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ParseError::new(
            ParseErrorKind::Syntax,
            JsonPath::root(),
            &version,
            T::TYPE_NAME,
            e.to_string(),
        )
    })?;
    parse_as(&value, version)
}

/// A result typed by the method of the request it answers.
#[derive(Debug, Clone, PartialEq)]
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

/// Parses `json` as the result of a request whose method is `method`.
///
/// The method decides the type: no structural guessing, so `{"tools":[],"prompts":[]}` answering
/// `tools/list` is a `ListToolsResult`. At 2026-07-28 a `resultType` of `input_required` makes
/// the answer of `tools/call`, `prompts/get` or `resources/read` an `InputRequiredResult`; any
/// other value keeps the method's own result (and an unrecognized one is an error). `ping` is
/// answered as a server's `EmptyResult`. An unknown method is [`ParseErrorKind::UnknownMethod`].
pub fn parse_result_for(
    method: &str,
    json: &Value,
    version: impl Into<VersionLike>,
) -> Result<MethodResult, ParseError> {
    use model::{ClientResult as C, ServerResult as S};
    let version = version.into();
    let d = version.known() == Some(ProtocolVersion::V2026_07_28);
    let input_required =
        d && json.get("resultType").and_then(Value::as_str) == Some("input_required");
    let task_handle = json.get("task").is_some();
    macro_rules! p {
        ($ty:ty, $name:literal) => {
            plain::<$ty>(json, &version, $name, ParseKind::Result)
        };
    }
    let result = if input_required && INPUT_REQUIRED_METHODS.contains(&method) {
        MethodResult::Server(S::InputRequired(p!(
            model::InputRequiredResult,
            "InputRequiredResult"
        )?))
    } else if task_handle
        && matches!(
            (
                method,
                json.get("content").is_some(),
                json.get("action").is_some()
            ),
            ("tools/call", false, _)
                | ("sampling/createMessage", false, _)
                | ("elicitation/create", _, false)
        )
    {
        let t = p!(model::CreateTaskResult, "CreateTaskResult")?;
        if method == "tools/call" {
            MethodResult::Server(S::CreateTask(t))
        } else {
            MethodResult::Client(C::CreateTask(t))
        }
    } else {
        match method {
            "initialize" => MethodResult::Server(S::Initialize(p!(
                model::InitializeResult,
                "InitializeResult"
            )?)),
            "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
                MethodResult::Server(S::Empty(p!(model::EmptyResult, "EmptyResult")?))
            }
            "completion/complete" => {
                MethodResult::Server(S::Complete(p!(model::CompleteResult, "CompleteResult")?))
            }
            "prompts/get" => {
                MethodResult::Server(S::GetPrompt(p!(model::GetPromptResult, "GetPromptResult")?))
            }
            "prompts/list" => MethodResult::Server(S::ListPrompts(p!(
                model::ListPromptsResult,
                "ListPromptsResult"
            )?)),
            "resources/list" => MethodResult::Server(S::ListResources(p!(
                model::ListResourcesResult,
                "ListResourcesResult"
            )?)),
            "resources/templates/list" => MethodResult::Server(S::ListResourceTemplates(p!(
                model::ListResourceTemplatesResult,
                "ListResourceTemplatesResult"
            )?)),
            "resources/read" => MethodResult::Server(S::ReadResource(p!(
                model::ReadResourceResult,
                "ReadResourceResult"
            )?)),
            "tools/call" => {
                MethodResult::Server(S::CallTool(p!(model::CallToolResult, "CallToolResult")?))
            }
            "tools/list" => {
                MethodResult::Server(S::ListTools(p!(model::ListToolsResult, "ListToolsResult")?))
            }
            "server/discover" => {
                MethodResult::Server(S::Discover(p!(model::DiscoverResult, "DiscoverResult")?))
            }
            "subscriptions/listen" => MethodResult::Server(S::SubscriptionsListen(p!(
                model::SubscriptionsListenResult,
                "SubscriptionsListenResult"
            )?)),
            "tasks/get" | "tasks/cancel" => {
                MethodResult::Server(S::GetTask(p!(model::GetTaskResult, "GetTaskResult")?))
            }
            "tasks/result" => MethodResult::Server(S::GetTaskPayload(p!(
                model::GetTaskPayloadResult,
                "GetTaskPayloadResult"
            )?)),
            "tasks/list" => {
                MethodResult::Server(S::ListTasks(p!(model::ListTasksResult, "ListTasksResult")?))
            }
            "sampling/createMessage" => MethodResult::Client(C::CreateMessage(p!(
                model::CreateMessageResult,
                "CreateMessageResult"
            )?)),
            "roots/list" => {
                MethodResult::Client(C::ListRoots(p!(model::ListRootsResult, "ListRootsResult")?))
            }
            "elicitation/create" => {
                MethodResult::Client(C::Elicit(p!(model::ElicitResult, "ElicitResult")?))
            }
            other => {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownMethod,
                    JsonPath::root(),
                    &version,
                    "Result",
                    format!("no request has method \"{other}\", so its result has no type"),
                ));
            }
        }
    };
    mandates(json, &version, "Result", ParseKind::Result)?;
    Ok(result)
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
        return Err(ParseError::new(
            ParseErrorKind::Invalid,
            JsonPath::root(),
            version,
            union,
            format!("expected a result object, found {}", kind_of(value)),
        ));
    };
    let d = version.known() == Some(ProtocolVersion::V2026_07_28);
    if d && obj.get("resultType").and_then(Value::as_str) == Some("input_required")
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

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
