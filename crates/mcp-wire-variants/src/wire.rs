//! Wire types of the server-variants extension: what travels in `initialize`, in `_meta` and in
//! the `MCP-Server-Variant` header.
//!
//! Every payload struct keeps the members it does not know in an `extra` map, so a value read from
//! a newer peer and written back loses nothing.

use std::fmt;

use mcp_wire::model::{ClientCapabilities, Meta, ServerCapabilities};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Key of the extension inside `capabilities.extensions` (and, for Go interop, `experimental`).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/server-variants";

/// Key of the per-request selector inside `params._meta` (singular, unlike [`EXTENSION_ID`]).
pub const META_KEY: &str = "io.modelcontextprotocol/server-variant";

/// The optional HTTP header that selects a variant; `_meta` wins when both are present.
pub const HTTP_HEADER: &str = "MCP-Server-Variant";

/// Whether an HTTP header name is [`HTTP_HEADER`] (header names compare case-insensitively).
pub fn is_variant_header(name: &str) -> bool {
    name.eq_ignore_ascii_case(HTTP_HEADER)
}

/// The well-known hint keys of the SEP's common vocabulary.
pub mod hint_keys {
    /// Target model family or provider (`anthropic`, `openai`, `local`, `any`, …).
    pub const MODEL_FAMILY: &str = "modelFamily";
    /// Intended usage (`autonomous-agent`, `ide`, `planning`, `execution`, …).
    pub const USE_CASE: &str = "useCase";
    /// Verbosity and token budget (`compact`, `standard`, `verbose`).
    pub const CONTEXT_SIZE: &str = "contextSize";
    /// What the client can render (`rich`, `markdown`, `text-only`).
    pub const RENDERING_CAPABILITIES: &str = "renderingCapabilities";
    /// Natural-language optimisation (`en`, `multilingual`, `code-focused`).
    pub const LANGUAGE_OPTIMIZATION: &str = "languageOptimization";
    /// Not in the SEP vocabulary: our default ranker matches this key against a variant's status,
    /// and the value `experimental` here is how a client explicitly asks for experimental variants.
    pub const STATUS: &str = "status";
}

/// A server-defined variant identifier (free-form text, unique within one catalog).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VariantId(String);

impl VariantId {
    /// Wraps an identifier. Emptiness is checked where variants are registered, not here, so that
    /// a peer's value always parses.
    pub fn new(id: impl Into<String>) -> Self {
        VariantId(id.into())
    }

    /// The identifier text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for VariantId {
    fn from(s: &str) -> Self {
        VariantId(s.to_owned())
    }
}

impl From<String> for VariantId {
    fn from(s: String) -> Self {
        VariantId(s)
    }
}

impl AsRef<str> for VariantId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for VariantId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for VariantId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// How mature a variant is. A missing `status` on the wire means [`VariantStatus::Stable`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VariantStatus {
    /// Production ready; the only status allowed at the head of a list by default.
    Stable,
    /// May change without notice; leads a list only when the client asked for it.
    Experimental,
    /// Will be removed; `deprecationInfo` says how to migrate.
    Deprecated,
    /// A status this crate does not know (kept so a round trip preserves it).
    Other(String),
}

impl VariantStatus {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            VariantStatus::Stable => "stable",
            VariantStatus::Experimental => "experimental",
            VariantStatus::Deprecated => "deprecated",
            VariantStatus::Other(s) => s,
        }
    }

    /// Ordering weight used to break ranking ties: stable 0, experimental 1, deprecated 2, other 3.
    pub fn weight(&self) -> u8 {
        match self {
            VariantStatus::Stable => 0,
            VariantStatus::Experimental => 1,
            VariantStatus::Deprecated => 2,
            VariantStatus::Other(_) => 3,
        }
    }
}

impl From<&str> for VariantStatus {
    fn from(s: &str) -> Self {
        match s {
            "stable" => VariantStatus::Stable,
            "experimental" => VariantStatus::Experimental,
            "deprecated" => VariantStatus::Deprecated,
            other => VariantStatus::Other(other.to_owned()),
        }
    }
}

impl Serialize for VariantStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for VariantStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(VariantStatus::from(s.as_ref()))
    }
}

/// Migration guidance attached to a deprecated variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DeprecationInfo {
    /// Why the variant is deprecated and how to migrate.
    pub message: String,
    /// The id of the variant to move to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<VariantId>,
    /// ISO 8601 date (optionally with a time) until which the variant keeps working.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removal_date: Option<String>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl DeprecationInfo {
    /// Guidance with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        DeprecationInfo {
            message: message.into(),
            replacement: None,
            removal_date: None,
            extra: Map::new(),
        }
    }

    /// Sets the replacement variant id.
    pub fn with_replacement(mut self, id: impl Into<VariantId>) -> Self {
        self.replacement = Some(id.into());
        self
    }

    /// Sets the removal date (`YYYY-MM-DD`, optionally followed by `T` and a time).
    pub fn with_removal_date(mut self, date: impl Into<String>) -> Self {
        self.removal_date = Some(date.into());
        self
    }
}

/// Whether `date` is `YYYY-MM-DD` with a plausible month and day, optionally followed by `T…`.
pub fn is_valid_removal_date(date: &str) -> bool {
    let cut = date.len().min(10);
    if !date.is_char_boundary(cut) {
        return false;
    }
    let (day_part, rest) = date.split_at(cut);
    if !(rest.is_empty() || rest.starts_with('T')) {
        return false;
    }
    let bytes = day_part.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = &day_part[r];
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse().ok())
            .flatten()
    };
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(_), Some(month), Some(day)) => (1..=12).contains(&month) && (1..=31).contains(&day),
        _ => false,
    }
}

/// One entry of `availableVariants`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerVariant {
    /// Unique id, used as the selector value.
    pub id: VariantId,
    /// Who the variant is for and what it trades off (read by people and models).
    #[serde(default)]
    pub description: String,
    /// Server hints: key → single string (kept as JSON so odd values from a peer survive).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub hints: Map<String, Value>,
    /// Maturity; absent means stable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<VariantStatus>,
    /// Migration guidance, meant for deprecated variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_info: Option<DeprecationInfo>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ServerVariant {
    /// A variant with an id and a description and nothing else (so: stable).
    pub fn new(id: impl Into<VariantId>, description: impl Into<String>) -> Self {
        ServerVariant {
            id: id.into(),
            description: description.into(),
            hints: Map::new(),
            status: None,
            deprecation_info: None,
            extra: Map::new(),
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.hints.insert(key.into(), Value::String(value.into()));
        self
    }

    /// Sets the status.
    pub fn with_status(mut self, status: VariantStatus) -> Self {
        self.status = Some(status);
        self
    }

    /// Marks the variant deprecated with the given guidance.
    pub fn deprecated(mut self, info: DeprecationInfo) -> Self {
        self.status = Some(VariantStatus::Deprecated);
        self.deprecation_info = Some(info);
        self
    }

    /// The status, with absence read as stable.
    pub fn effective_status(&self) -> VariantStatus {
        self.status.clone().unwrap_or(VariantStatus::Stable)
    }

    /// Whether the effective status is stable.
    pub fn is_stable(&self) -> bool {
        matches!(self.status, None | Some(VariantStatus::Stable))
    }

    /// A server hint as text (`None` when absent or not a string).
    pub fn hint(&self, key: &str) -> Option<&str> {
        self.hints.get(key).and_then(Value::as_str)
    }
}

/// A client hint value: one string, or strings in preference order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintValue {
    /// A single acceptable value.
    One(String),
    /// Acceptable values, most preferred first.
    Many(Vec<String>),
}

impl HintValue {
    /// Reads a JSON value; `None` unless it is a string or an array of strings.
    pub fn from_json(value: &Value) -> Option<HintValue> {
        match value {
            Value::String(s) => Some(HintValue::One(s.clone())),
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(HintValue::Many),
            _ => None,
        }
    }

    /// The values, most preferred first.
    pub fn values(&self) -> Vec<&str> {
        match self {
            HintValue::One(s) => vec![s.as_str()],
            HintValue::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }

    /// Position of `value` in the preference list.
    pub fn position_of(&self, value: &str) -> Option<usize> {
        self.values().iter().position(|v| *v == value)
    }

    fn to_json(&self) -> Value {
        match self {
            HintValue::One(s) => Value::String(s.clone()),
            HintValue::Many(v) => Value::Array(v.iter().cloned().map(Value::String).collect()),
        }
    }
}

impl From<&str> for HintValue {
    fn from(s: &str) -> Self {
        HintValue::One(s.to_owned())
    }
}

impl From<String> for HintValue {
    fn from(s: String) -> Self {
        HintValue::One(s)
    }
}

impl From<Vec<String>> for HintValue {
    fn from(v: Vec<String>) -> Self {
        HintValue::Many(v)
    }
}

impl<const N: usize> From<[&str; N]> for HintValue {
    fn from(v: [&str; N]) -> Self {
        HintValue::Many(v.iter().map(|s| (*s).to_owned()).collect())
    }
}

/// What a client says about itself so the server can rank variants (`variantHints`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct VariantHints {
    /// Free-form description of the client's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Hint key → string or string array, kept as JSON; read through [`VariantHints::get`].
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub hints: Map<String, Value>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl VariantHints {
    /// No description, no hints.
    pub fn new() -> Self {
        VariantHints::default()
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds a hint.
    pub fn with_hint(mut self, key: impl Into<String>, value: impl Into<HintValue>) -> Self {
        self.hints.insert(key.into(), value.into().to_json());
        self
    }

    /// A hint, when present and well-formed (a string or an array of strings).
    pub fn get(&self, key: &str) -> Option<HintValue> {
        self.hints.get(key).and_then(HintValue::from_json)
    }

    /// Well-formed hints in wire order; malformed ones are skipped (see [`Self::malformed_keys`]).
    pub fn iter(&self) -> impl Iterator<Item = (&str, HintValue)> {
        self.hints
            .iter()
            .filter_map(|(k, v)| HintValue::from_json(v).map(|h| (k.as_str(), h)))
    }

    /// Keys whose value is neither a string nor an array of strings (ignored when ranking).
    pub fn malformed_keys(&self) -> Vec<&str> {
        self.hints
            .iter()
            .filter(|(_, v)| HintValue::from_json(v).is_none())
            .map(|(k, _)| k.as_str())
            .collect()
    }

    /// Whether any well-formed hint value (or array element) equals `value`.
    pub fn mentions(&self, value: &str) -> bool {
        self.iter().any(|(_, h)| h.position_of(value).is_some())
    }
}

/// The client's extension payload in `initialize` (an empty object means "supported, no hints").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClientVariantsExtension {
    /// Ranking input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_hints: Option<VariantHints>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClientVariantsExtension {
    /// A payload carrying hints.
    pub fn with_hints(hints: VariantHints) -> Self {
        ClientVariantsExtension {
            variant_hints: Some(hints),
            extra: Map::new(),
        }
    }

    /// Reads a payload leniently: a malformed `variantHints` is dropped (the client still opted
    /// in), a non-object payload counts as `{}`.
    pub fn from_json_lenient(value: &Value) -> Self {
        let Some(object) = value.as_object() else {
            return ClientVariantsExtension::default();
        };
        let mut extra = object.clone();
        let variant_hints = extra
            .remove("variantHints")
            .and_then(|v| serde_json::from_value::<VariantHints>(v).ok());
        ClientVariantsExtension {
            variant_hints,
            extra,
        }
    }
}

/// The server's extension payload in the `initialize` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerVariantsExtension {
    /// Ranked variants; element 0 is the session default. Omitted rather than sent empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub available_variants: Vec<ServerVariant>,
    /// Whether the principal could see more variants than listed (absent reads as `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_variants_available: Option<bool>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ServerVariantsExtension {
    /// Whether the payload says the server supports variants (a non-empty list).
    pub fn is_supported(&self) -> bool {
        !self.available_variants.is_empty()
    }

    /// The default variant (first of the list).
    pub fn default_variant(&self) -> Option<&ServerVariant> {
        self.available_variants.first()
    }

    /// Ids listed more than once (a non-conforming server; clients keep the first occurrence).
    pub fn duplicate_ids(&self) -> Vec<&VariantId> {
        let mut seen = std::collections::HashSet::new();
        self.available_variants
            .iter()
            .map(|v| &v.id)
            .filter(|id| !seen.insert(*id))
            .collect()
    }
}

/// Which capability map carries the extension payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtensionSlot {
    /// `capabilities.extensions` (what the SEP specifies).
    Extensions,
    /// `capabilities.experimental` (what the Go reference uses).
    Experimental,
}

impl ExtensionSlot {
    /// The capability member name.
    pub const fn member(self) -> &'static str {
        match self {
            ExtensionSlot::Extensions => "extensions",
            ExtensionSlot::Experimental => "experimental",
        }
    }
}

/// Where a server writes its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SlotPolicy {
    /// Only `capabilities.extensions` (the default).
    #[default]
    Extensions,
    /// Only `capabilities.experimental`, for clients built on the Go reference.
    Experimental,
    /// Both maps.
    Both,
}

impl SlotPolicy {
    /// The slots this policy writes.
    pub fn slots(self) -> &'static [ExtensionSlot] {
        match self {
            SlotPolicy::Extensions => &[ExtensionSlot::Extensions],
            SlotPolicy::Experimental => &[ExtensionSlot::Experimental],
            SlotPolicy::Both => &[ExtensionSlot::Extensions, ExtensionSlot::Experimental],
        }
    }
}

/// Slots a reader looks in, in order: the SEP's place first, then the Go reference's.
const READ_ORDER: [ExtensionSlot; 2] = [ExtensionSlot::Extensions, ExtensionSlot::Experimental];

/// Finds the client's payload in a `ClientCapabilities` JSON object.
///
/// Returns the payload and the slot it came from, or `None` when the client did not opt in.
pub fn read_client_extension(
    capabilities: &Value,
) -> Option<(ClientVariantsExtension, ExtensionSlot)> {
    READ_ORDER.into_iter().find_map(|slot| {
        capabilities
            .get(slot.member())
            .and_then(|m| m.get(EXTENSION_ID))
            .map(|v| (ClientVariantsExtension::from_json_lenient(v), slot))
    })
}

/// Finds the client's payload in typed client capabilities (`extensions` first, then
/// `experimental`).
pub fn read_client_capabilities(
    capabilities: &ClientCapabilities,
) -> Option<(ClientVariantsExtension, ExtensionSlot)> {
    [
        (ExtensionSlot::Extensions, &capabilities.extensions),
        (ExtensionSlot::Experimental, &capabilities.experimental),
    ]
    .into_iter()
    .find_map(|(slot, map)| {
        map.as_ref()
            .and_then(|m| m.get(EXTENSION_ID))
            .map(|v| (ClientVariantsExtension::from_json_lenient(v), slot))
    })
}

/// Writes a server payload into typed server capabilities under the slots of `policy`.
pub fn write_server_capabilities(
    capabilities: &mut ServerCapabilities,
    payload: &ServerVariantsExtension,
    policy: SlotPolicy,
) {
    let value = serde_json::to_value(payload).unwrap_or(Value::Object(Map::new()));
    for slot in policy.slots() {
        let map = match slot {
            ExtensionSlot::Extensions => &mut capabilities.extensions,
            ExtensionSlot::Experimental => &mut capabilities.experimental,
        };
        map.get_or_insert_with(Map::new)
            .insert(EXTENSION_ID.to_owned(), value.clone());
    }
}

/// Finds a server's payload in a `ServerCapabilities` JSON object (client side).
pub fn read_server_extension(
    capabilities: &Value,
) -> Option<Result<ServerVariantsExtension, serde_json::Error>> {
    READ_ORDER.into_iter().find_map(|slot| {
        capabilities
            .get(slot.member())
            .and_then(|m| m.get(EXTENSION_ID))
            .map(|v| serde_json::from_value(v.clone()))
    })
}

/// Writes a payload into a capabilities JSON object under the slots of `policy`, creating the
/// maps as needed and keeping every other key. A non-object `capabilities` is replaced by one.
pub fn write_extension<T: Serialize>(capabilities: &mut Value, payload: &T, policy: SlotPolicy) {
    let payload = serde_json::to_value(payload).unwrap_or(Value::Object(Map::new()));
    if !capabilities.is_object() {
        *capabilities = Value::Object(Map::new());
    }
    let Value::Object(caps) = capabilities else {
        return;
    };
    for slot in policy.slots() {
        let map = caps
            .entry(slot.member())
            .or_insert_with(|| Value::Object(Map::new()));
        if !map.is_object() {
            *map = Value::Object(Map::new());
        }
        if let Value::Object(map) = map {
            map.insert(EXTENSION_ID.to_owned(), payload.clone());
        }
    }
}

/// The selector found in a request's or notification's `_meta`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// No selector (key absent or JSON `null`).
    Absent,
    /// A string selector (possibly empty, which names no variant).
    Id(String),
    /// A value of another JSON type.
    Malformed(Value),
}

/// Reads the selector from a `_meta` object (`None` or a non-object `_meta` means absent).
pub fn read_selector(meta: Option<&Value>) -> Selector {
    selector_value(meta.and_then(|m| m.get(META_KEY)))
}

/// Typed access to the selector in a [`Meta`] map.
pub trait MetaExt {
    /// The selector (`io.modelcontextprotocol/server-variant`).
    fn server_variant(&self) -> Selector;
    /// Sets the selector.
    fn set_server_variant(&mut self, id: &VariantId);
}

impl MetaExt for Meta {
    fn server_variant(&self) -> Selector {
        selector_value(self.0.get(META_KEY))
    }

    fn set_server_variant(&mut self, id: &VariantId) {
        self.0
            .insert(META_KEY.to_owned(), Value::String(id.as_str().to_owned()));
    }
}

fn selector_value(value: Option<&Value>) -> Selector {
    match value {
        None | Some(Value::Null) => Selector::Absent,
        Some(Value::String(s)) => Selector::Id(s.clone()),
        Some(other) => Selector::Malformed(other.clone()),
    }
}

/// Reads the selector from a request's `params` (looks at `params._meta`).
pub fn read_params_selector(params: Option<&Value>) -> Selector {
    read_selector(params.and_then(|p| p.get("_meta")))
}

/// Writes `id` as the selector into `params._meta`, creating `params` and `_meta` as needed and
/// keeping every other `_meta` key. Used to tag notifications and to rewrite forwarded requests.
pub fn write_selector(params: &mut Value, id: &VariantId) {
    if !params.is_object() {
        *params = Value::Object(Map::new());
    }
    let Value::Object(p) = params else { return };
    let meta = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(meta) = meta {
        meta.insert(META_KEY.to_owned(), Value::String(id.as_str().to_owned()));
    }
}

/// `error.data` of "Invalid server variant".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InvalidVariantData {
    /// The id the client asked for (absent when the selector was not a string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_variant: Option<String>,
    /// The ids this principal may use in this session (absent when enumeration is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_variants: Option<Vec<VariantId>>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `error.data` of "Cursor invalid for requested variant".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CursorMismatchData {
    /// The variant the cursor was minted under.
    pub cursor_variant: VariantId,
    /// The variant the request resolved to.
    pub requested_variant: VariantId,
    /// Same as `requestedVariant`; the SEP asks cursor errors to name the active variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_variant: Option<VariantId>,
    /// Members this crate does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(v: Value) -> Value {
        serde_json::to_value(serde_json::from_value::<T>(v).unwrap()).unwrap()
    }

    #[test]
    fn server_payload_round_trips_with_unknown_members() {
        let payload = json!({
            "availableVariants": [
                {"id": "planner", "description": "Long descriptions.",
                 "hints": {"useCase": "planning", "contextSize": "verbose"}, "status": "stable",
                 "x-extra": {"kept": true}},
                {"id": "executor", "description": "Terse."},
                {"id": "legacy-v1", "description": "Old.", "status": "deprecated",
                 "deprecationInfo": {"message": "Migrate.", "replacement": "planner",
                                     "removalDate": "2026-12-31", "ticket": 7}},
                {"id": "next", "description": "From a newer server.", "status": "beta"}
            ],
            "moreVariantsAvailable": true,
            "futureMember": [1, 2]
        });
        assert_eq!(
            round_trip::<ServerVariantsExtension>(payload.clone()),
            payload
        );
        let parsed: ServerVariantsExtension = serde_json::from_value(payload).unwrap();
        assert_eq!(
            parsed.available_variants[1].effective_status(),
            VariantStatus::Stable
        );
        assert_eq!(
            parsed.available_variants[3].status,
            Some(VariantStatus::Other("beta".into()))
        );
        assert_eq!(
            parsed.available_variants[0].hint("useCase"),
            Some("planning")
        );
        assert_eq!(parsed.extra["futureMember"], json!([1, 2]));
        assert!(parsed.duplicate_ids().is_empty());
        assert_eq!(parsed.default_variant().unwrap().id, "planner");
    }

    #[test]
    fn client_side_parsing_is_tolerant() {
        // Missing description reads as empty; duplicates are reported, not fatal.
        let payload: ServerVariantsExtension = serde_json::from_value(json!({
            "availableVariants": [{"id": "a"}, {"id": "b", "description": "B"}, {"id": "a"}]
        }))
        .unwrap();
        assert_eq!(payload.available_variants[0].description, "");
        assert_eq!(payload.duplicate_ids(), vec![&VariantId::from("a")]);
        assert_eq!(payload.more_variants_available, None);
    }

    #[test]
    fn optional_members_are_omitted() {
        let v = serde_json::to_value(ServerVariant::new("a", "desc")).unwrap();
        assert_eq!(v, json!({"id": "a", "description": "desc"}));
        let empty = serde_json::to_value(ServerVariantsExtension::default()).unwrap();
        assert_eq!(empty, json!({}));
        assert!(!ServerVariantsExtension::default().is_supported());
    }

    #[test]
    fn client_payload_string_and_array_hints() {
        let payload = json!({"variantHints": {
            "description": "Coding agent",
            "hints": {"modelFamily": "anthropic", "useCase": ["planning", "execution"],
                      "weird": 42},
            "later": "kept"
        }});
        assert_eq!(
            round_trip::<ClientVariantsExtension>(payload.clone()),
            payload
        );
        let parsed = ClientVariantsExtension::from_json_lenient(&payload);
        let hints = parsed.variant_hints.unwrap();
        assert_eq!(
            hints.get("modelFamily"),
            Some(HintValue::One("anthropic".into()))
        );
        let use_case = hints.get("useCase").unwrap();
        assert_eq!(use_case.values(), vec!["planning", "execution"]);
        assert_eq!(use_case.position_of("execution"), Some(1));
        assert_eq!(hints.get("weird"), None);
        assert_eq!(hints.malformed_keys(), vec!["weird"]);
        assert_eq!(hints.extra["later"], json!("kept"));
    }

    #[test]
    fn lenient_client_payload() {
        assert_eq!(
            ClientVariantsExtension::from_json_lenient(&json!({})),
            ClientVariantsExtension::default()
        );
        assert_eq!(
            ClientVariantsExtension::from_json_lenient(&json!("yes")),
            ClientVariantsExtension::default()
        );
        let bad = ClientVariantsExtension::from_json_lenient(&json!({"variantHints": 3, "x": 1}));
        assert_eq!(bad.variant_hints, None);
        assert_eq!(bad.extra["x"], json!(1));
    }

    #[test]
    fn built_hints_serialize_like_the_sep_example() {
        let hints = VariantHints::new()
            .with_description("agent")
            .with_hint(hint_keys::MODEL_FAMILY, "anthropic")
            .with_hint(hint_keys::CONTEXT_SIZE, ["standard", "compact"]);
        assert_eq!(
            serde_json::to_value(&hints).unwrap(),
            json!({"description": "agent",
                   "hints": {"modelFamily": "anthropic", "contextSize": ["standard", "compact"]}})
        );
        assert!(hints.mentions("compact"));
        assert!(!hints.mentions("experimental"));
    }

    #[test]
    fn client_payload_read_from_extensions_then_experimental() {
        let both = json!({
            "extensions": {EXTENSION_ID: {"variantHints": {"hints": {"a": "1"}}}},
            "experimental": {EXTENSION_ID: {}}
        });
        let (payload, slot) = read_client_extension(&both).unwrap();
        assert_eq!(slot, ExtensionSlot::Extensions);
        assert!(payload.variant_hints.is_some());
        let go = json!({"experimental": {EXTENSION_ID: {}}});
        assert_eq!(
            read_client_extension(&go).unwrap().1,
            ExtensionSlot::Experimental
        );
        assert_eq!(read_client_extension(&json!({"roots": {}})), None);
        assert_eq!(read_client_extension(&json!(null)), None);
    }

    #[test]
    fn write_extension_keeps_other_capabilities() {
        let mut caps = json!({"tools": {"listChanged": true}, "extensions": {"other/ext": {}}});
        let payload = ServerVariantsExtension {
            available_variants: vec![ServerVariant::new("a", "A")],
            more_variants_available: Some(false),
            extra: Map::new(),
        };
        write_extension(&mut caps, &payload, SlotPolicy::Both);
        assert_eq!(
            caps,
            json!({
                "tools": {"listChanged": true},
                "extensions": {"other/ext": {}, EXTENSION_ID: {
                    "availableVariants": [{"id": "a", "description": "A"}],
                    "moreVariantsAvailable": false}},
                "experimental": {EXTENSION_ID: {
                    "availableVariants": [{"id": "a", "description": "A"}],
                    "moreVariantsAvailable": false}}
            })
        );
        let back = read_server_extension(&caps).unwrap().unwrap();
        assert_eq!(back, payload);
    }

    #[test]
    fn selector_typing() {
        assert_eq!(read_selector(None), Selector::Absent);
        assert_eq!(
            read_selector(Some(&json!({META_KEY: null}))),
            Selector::Absent
        );
        assert_eq!(
            read_selector(Some(&json!("not an object"))),
            Selector::Absent
        );
        assert_eq!(
            read_selector(Some(&json!({META_KEY: ""}))),
            Selector::Id(String::new())
        );
        assert_eq!(
            read_params_selector(Some(&json!({"_meta": {META_KEY: "full"}}))),
            Selector::Id("full".into())
        );
        assert_eq!(
            read_selector(Some(&json!({META_KEY: 5}))),
            Selector::Malformed(json!(5))
        );
    }

    #[test]
    fn write_selector_keeps_other_meta_keys() {
        let mut params = json!({"uri": "file:///a", "_meta": {"progressToken": "p"}});
        write_selector(&mut params, &VariantId::from("full"));
        assert_eq!(
            params,
            json!({"uri": "file:///a", "_meta": {"progressToken": "p", META_KEY: "full"}})
        );
        let mut none = Value::Null;
        write_selector(&mut none, &VariantId::from("x"));
        assert_eq!(none, json!({"_meta": {META_KEY: "x"}}));
    }

    #[test]
    fn typed_capabilities_helpers() {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "experimental": {EXTENSION_ID: {"variantHints": {"hints": {"a": "b"}}}}
        }))
        .unwrap();
        let (payload, slot) = read_client_capabilities(&caps).unwrap();
        assert_eq!(slot, ExtensionSlot::Experimental);
        assert_eq!(
            payload.variant_hints.unwrap().get("a"),
            Some(HintValue::One("b".into()))
        );
        assert_eq!(read_client_capabilities(&ClientCapabilities::new()), None);

        let mut server: ServerCapabilities =
            serde_json::from_value(json!({"tools": {}, "extensions": {"x/y": {}}})).unwrap();
        let payload = ServerVariantsExtension {
            available_variants: vec![ServerVariant::new("a", "A")],
            more_variants_available: Some(false),
            extra: Map::new(),
        };
        write_server_capabilities(&mut server, &payload, SlotPolicy::Extensions);
        assert_eq!(
            serde_json::to_value(&server).unwrap(),
            json!({"tools": {}, "extensions": {"x/y": {}, EXTENSION_ID: {
                "availableVariants": [{"id": "a", "description": "A"}],
                "moreVariantsAvailable": false}}})
        );
    }

    #[test]
    fn meta_selector_accessors() {
        let mut meta = Meta::new();
        assert_eq!(meta.server_variant(), Selector::Absent);
        meta.set_server_variant(&VariantId::from("full"));
        assert_eq!(meta.server_variant(), Selector::Id("full".into()));
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            json!({META_KEY: "full"})
        );
    }

    #[test]
    fn header_name_is_case_insensitive() {
        assert!(is_variant_header("mcp-server-variant"));
        assert!(is_variant_header("MCP-SERVER-VARIANT"));
        assert!(!is_variant_header("mcp-session-id"));
    }

    #[test]
    fn removal_dates() {
        assert!(is_valid_removal_date("2026-12-31"));
        assert!(is_valid_removal_date("2026-12-31T00:00:00Z"));
        assert!(!is_valid_removal_date("2026-13-01"));
        assert!(!is_valid_removal_date("31.12.2026"));
        assert!(!is_valid_removal_date("2026-12-31 noon"));
        assert!(!is_valid_removal_date(""));
        assert!(!is_valid_removal_date("2026-1é-01"));
        assert!(!is_valid_removal_date("2026-12-éé"));
    }

    #[test]
    fn status_weights_and_strings() {
        for (s, w) in [
            ("stable", 0),
            ("experimental", 1),
            ("deprecated", 2),
            ("x", 3),
        ] {
            let status = VariantStatus::from(s);
            assert_eq!(status.weight(), w);
            assert_eq!(status.as_str(), s);
        }
    }
}
