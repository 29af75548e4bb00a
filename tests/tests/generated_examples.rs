//! The official 2026-07-28 examples against the generated `v2026_07_28` module:
//! - every `examples/<Type>/<file>.json` deserializes into `v2026_07_28::<Type>` and serializes
//!   back value-equal (or is in [`ALLOWED`] with its reason; the list is checked both ways);
//! - the re-serialized value validates against the same-named schema definition;
//! - every example of a union member, read as the union, picks that member.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use mcp_wire::ProtocolVersion;
use mcp_wire::facts::{self, TypeRef};
use mcp_wire::v2026_07_28 as m;
use mcp_wire_schemas::{SchemaOracle, SchemaStore};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Examples that do not round-trip, with the reason. `<Type>/<file>` → reason.
const ALLOWED: &[(&str, &str)] = &[
    (
        "ListRootsRequest/list-roots-request.json",
        "upstream example carries an `id`, which ListRootsRequest does not declare; the key is dropped",
    ),
    (
        "ReadResourceResultResponse/read-resource-result-response.json",
        "upstream example lacks the required `ttlMs`/`cacheScope`, so only InputRequiredResult \
         matches and `contents` is dropped",
    ),
];

/// Round-trips `value` through `T`: `Ok(reserialized)` or the deserialization error.
fn round_trip<T: DeserializeOwned + Serialize + std::fmt::Debug>(
    value: &Value,
) -> Result<(Value, String), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let debug = format!("{typed:?}");
    let back = serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))?;
    Ok((back, debug))
}

/// `type name → round trip through that generated type`, for the example types and the unions.
macro_rules! dispatch {
    ($($t:ident),* $(,)?) => {
        fn dispatch(name: &str, value: &Value) -> Option<Result<(Value, String), String>> {
            match name {
                $(stringify!($t) => Some(round_trip::<m::$t>(value)),)*
                _ => None,
            }
        }
    };
}

dispatch!(
    AudioContent,
    BlobResourceContents,
    BooleanSchema,
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CallToolResultResponse,
    CancelledNotification,
    CancelledNotificationParams,
    ClientCapabilities,
    CompleteRequest,
    CompleteRequestParams,
    CompleteResult,
    CompleteResultResponse,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    DiscoverRequest,
    DiscoverResult,
    DiscoverResultResponse,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    EmbeddedResource,
    GetPromptRequest,
    GetPromptRequestParams,
    GetPromptResult,
    GetPromptResultResponse,
    HeaderMismatchError,
    ImageContent,
    InputRequests,
    InputRequiredResult,
    InputResponses,
    InternalError,
    InvalidParamsError,
    ListPromptsRequest,
    ListPromptsResult,
    ListPromptsResultResponse,
    ListResourceTemplatesRequest,
    ListResourceTemplatesResult,
    ListResourceTemplatesResultResponse,
    ListResourcesRequest,
    ListResourcesResult,
    ListResourcesResultResponse,
    ListRootsRequest,
    ListRootsResult,
    ListToolsRequest,
    ListToolsResult,
    ListToolsResultResponse,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    MethodNotFoundError,
    MissingRequiredClientCapabilityError,
    ModelPreferences,
    NumberSchema,
    PaginatedRequestParams,
    ParseError,
    ProgressNotification,
    ProgressNotificationParams,
    PromptListChangedNotification,
    ReadResourceRequest,
    ReadResourceResult,
    ReadResourceResultResponse,
    Resource,
    ResourceLink,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams,
    Root,
    SamplingMessage,
    ServerCapabilities,
    StringSchema,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsListenRequest,
    SubscriptionsListenResult,
    SubscriptionsListenResultResponse,
    TextContent,
    TextResourceContents,
    TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    Tool,
    ToolListChangedNotification,
    ToolResultContent,
    ToolUseContent,
    UnsupportedProtocolVersionError,
    UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
    // The named unions, for member selection.
    ClientRequest,
    ContentBlock,
    ElicitRequestParams,
    EnumSchema,
    InputRequest,
    InputResponse,
    JSONRPCMessage,
    JSONRPCResponse,
    MultiSelectEnumSchema,
    PrimitiveSchemaDefinition,
    SamplingMessageContentBlock,
    ServerNotification,
    ServerResult,
    SingleSelectEnumSchema,
);

fn store() -> SchemaStore {
    SchemaStore::discover()
}

/// Every example as `(Type, file name, value)`, sorted.
fn examples() -> Vec<(String, String, Value)> {
    let dir: PathBuf = store()
        .examples_dir()
        .unwrap_or_else(|e| panic!("{e} (run `cargo xtask schemas`)"));
    let mut out = Vec::new();
    for ty in std::fs::read_dir(&dir).expect("examples dir readable") {
        let ty = ty.expect("dir entry").path();
        let ty_name = ty.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&ty).expect("example type dir readable") {
            let f = f.expect("dir entry").path();
            let text = std::fs::read_to_string(&f).expect("example readable");
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", f.display()));
            out.push((
                ty_name.clone(),
                f.file_name().unwrap().to_string_lossy().into_owned(),
                value,
            ));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert!(
        out.len() > 100,
        "expected the full examples tree, found {}",
        out.len()
    );
    out
}

/// Keys or values that differ between `a` and `b`, as JSON pointers (first few).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => differences(u, v, &format!("{path}/{k}"), out),
                    (Some(_), None) => out.push(format!("{path}/{k} dropped")),
                    (None, Some(_)) => out.push(format!("{path}/{k} added")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}/{i}"), out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} became {b}")),
        _ => {}
    }
}

#[test]
fn every_example_round_trips_through_its_generated_type() {
    let oracle = SchemaOracle::load(&store(), ProtocolVersion::V2026_07_28)
        .unwrap_or_else(|e| panic!("{e} (run `cargo xtask schemas`)"));
    let mut divergent = BTreeMap::new();
    let mut invalid = Vec::new();
    let mut passed = 0;
    for (ty, file, value) in examples() {
        let key = format!("{ty}/{file}");
        let outcome = dispatch(&ty, &value)
            .unwrap_or_else(|| panic!("{key}: no generated type {ty} in the dispatch list"));
        match outcome {
            Err(e) => {
                divergent.insert(key, format!("does not deserialize: {e}"));
            }
            Ok((back, _)) if back != value => {
                let mut diffs = Vec::new();
                differences(&value, &back, "", &mut diffs);
                divergent.insert(key, diffs.join("; "));
            }
            Ok((back, _)) => {
                passed += 1;
                let v = oracle.violations(&ty, &back).expect("definition exists");
                if !v.is_empty() {
                    invalid.push(format!("{key}: {v:?}"));
                }
            }
        }
    }
    assert!(
        invalid.is_empty(),
        "re-serialized examples fail the schema: {invalid:#?}"
    );
    let allowed: BTreeSet<&str> = ALLOWED.iter().map(|(k, _)| *k).collect();
    let new: Vec<_> = divergent
        .iter()
        .filter(|(k, _)| !allowed.contains(k.as_str()))
        .collect();
    let stale: Vec<_> = allowed
        .iter()
        .filter(|k| !divergent.contains_key(**k))
        .collect();
    assert!(
        new.is_empty() && stale.is_empty(),
        "new divergences: {new:#?}\nstale ALLOWED entries: {stale:#?}"
    );
    assert_eq!(
        passed + ALLOWED.len(),
        129,
        "examples that round-trip cleanly"
    );
}

#[test]
fn every_union_picks_the_member_an_example_belongs_to() {
    let f = facts::revision(ProtocolVersion::V2026_07_28);
    let mut checked = 0;
    let mut wrong = Vec::new();
    let examples = examples();
    for union in f.types.iter().filter(|t| !t.members.is_empty()) {
        for member in union.members {
            let TypeRef::Named(member) = member else {
                continue;
            };
            for (ty, file, value) in examples.iter().filter(|(ty, ..)| ty == member) {
                let key = format!("{ty}/{file}");
                if ALLOWED.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                let outcome = dispatch(union.name, value)
                    .unwrap_or_else(|| panic!("union {} missing from dispatch", union.name));
                checked += 1;
                match outcome {
                    Ok((back, debug))
                        if back == *value && debug.starts_with(&format!("{member}(")) => {}
                    Ok((_, debug)) => wrong.push(format!(
                        "{key} as {}: picked {}",
                        union.name,
                        debug.split('(').next().unwrap_or_default()
                    )),
                    Err(e) => wrong.push(format!("{key} as {}: {e}", union.name)),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "wrong union members: {wrong:#?}");
    assert!(checked >= 70, "only {checked} union cases checked");
}
