//! `parse_as`: every body type (and the fragments with a [`WireParse`]), and every method's
//! result through `parse_result_for`, at every revision and at an unknown one.
//!
//! Input: byte 0 picks the version ([`crate::version_like`]), byte 1 the type (an index into
//! [`TYPES`], then into the methods for results), the rest is the JSON text.
//!
//! Checked: nothing panics; `parse_as` on the bytes and on the text gives exactly what it gives
//! on the same text parsed as a `serde_json::Value` (result or error), and the same holds for
//! `parse_result_for`; a parsed body meets the emission
//! contract of [`crate::emission`] at every revision.

use std::fmt::Debug;

use mcp_wire::VersionLike;
use mcp_wire::facts;
use mcp_wire::model::*;
use mcp_wire::wire::{MethodResult, ParseError, WireParse, parse_as, parse_result_for};
use serde_json::Value;

use crate::emission;
use crate::seeds::{BodyKind, Sources};

/// One parse target: its spec name, the text check, and (for bodies) the check of a value
/// already parsed leniently, which [`crate::targets::serialize_for`] uses.
pub struct Target {
    /// The spec type name, e.g. `CallToolResult`.
    pub name: &'static str,
    /// Parses text at a version and checks the contract.
    pub text: fn(&[u8], &VersionLike),
    /// For bodies: parses a generated value leniently (no mandates) and checks emission.
    pub value: Option<fn(&Value)>,
}

macro_rules! targets {
    (bodies: $($body:ident),* ; fragments: $($fragment:ident),* $(,)?) => {
        /// Every type `parse_as` can produce that the fuzzer covers, bodies first.
        pub static TYPES: &[Target] = &[
            $(Target {
                name: stringify!($body),
                text: |t, v| {
                    if let Some(b) = parsed::<$body>(t, v) {
                        emission::check(&b);
                    }
                },
                value: Some(|value| {
                    if let Ok(b) = parse_as::<$body>(value, VersionLike::Unknown("fuzz".into())) {
                        emission::check(&b);
                    }
                }),
            },)*
            $(Target {
                name: stringify!($fragment),
                text: |t, v| {
                    parsed::<$fragment>(t, v);
                },
                value: None,
            },)*
        ];
    };
}

targets! {
    bodies:
    // requests
    PingRequest, InitializeRequest, CompleteRequest, SetLevelRequest, GetPromptRequest,
    ListPromptsRequest, ListResourcesRequest, ListResourceTemplatesRequest, ReadResourceRequest,
    SubscribeRequest, UnsubscribeRequest, CallToolRequest, ListToolsRequest, DiscoverRequest,
    SubscriptionsListenRequest, GetTaskRequest, GetTaskPayloadRequest, ListTasksRequest,
    CancelTaskRequest, CreateMessageRequest, ListRootsRequest, ElicitRequest,
    // notifications
    CancelledNotification, ProgressNotification, InitializedNotification,
    RootsListChangedNotification, LoggingMessageNotification, ResourceUpdatedNotification,
    ResourceListChangedNotification, ToolListChangedNotification, PromptListChangedNotification,
    ElicitationCompleteNotification, SubscriptionsAcknowledgedNotification,
    TaskStatusNotification,
    // results
    EmptyResult, InitializeResult, DiscoverResult, CompleteResult, GetPromptResult,
    ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ReadResourceResult,
    CallToolResult, ListToolsResult, SubscriptionsListenResult, InputRequiredResult,
    CreateTaskResult, GetTaskResult, GetTaskPayloadResult, ListTasksResult, CreateMessageResult,
    ListRootsResult, ElicitResult,
    // unions
    ClientRequest, ServerRequest, ClientNotification, ServerNotification, ServerResult,
    ClientResult;
    fragments:
    ContentBlock, SamplingMessage, ClientCapabilities, ServerCapabilities, Tool, InputRequest,
    InputResponse,
}

/// Every request method of every revision (sorted), then one no revision has: the methods whose
/// results `parse_result_for` types.
pub fn methods() -> &'static [&'static str] {
    static METHODS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    METHODS.get_or_init(|| {
        let mut all: Vec<&'static str> = mcp_wire::ProtocolVersion::ALL
            .into_iter()
            .flat_map(|v| {
                let f = facts::revision(v);
                f.client_requests.iter().chain(f.server_requests)
            })
            .map(|m| m.method)
            .collect();
        all.sort_unstable();
        all.dedup();
        all.push("x-fuzz/unknown");
        all
    })
}

/// The index byte of type `name` in [`TYPES`].
pub fn type_index(name: &str) -> Option<u8> {
    TYPES.iter().position(|t| t.name == name).map(|i| i as u8)
}

/// The index byte of the result of `method` (after [`TYPES`]).
pub fn result_index(method: &str) -> Option<u8> {
    methods()
        .iter()
        .position(|m| *m == method)
        .map(|i| (TYPES.len() + i) as u8)
}

/// One input.
pub fn run(data: &[u8]) {
    let [version, selector, text @ ..] = data else {
        return;
    };
    let version = crate::version_like(*version);
    let selector = usize::from(*selector) % (TYPES.len() + methods().len());
    match TYPES.get(selector) {
        Some(target) => (target.text)(text, &version),
        None => result_for(methods()[selector - TYPES.len()], text, &version),
    }
}

/// `parse_as` on `bytes`, on their text and on their `Value`: they must agree; the parsed value, if any.
fn parsed<T: WireParse + PartialEq + Debug>(bytes: &[u8], version: &VersionLike) -> Option<T> {
    agree(
        bytes,
        |b| parse_as::<T>(b, version.clone()),
        |s| parse_as::<T>(s, version.clone()),
        |v| parse_as::<T>(v, version.clone()),
    )
}

/// `parse_result_for` on `bytes`, their text and their `Value`; a result meets the emission contract.
fn result_for(method: &str, bytes: &[u8], version: &VersionLike) {
    let result = agree(
        bytes,
        |b| parse_result_for(method, b, version.clone()),
        |s| parse_result_for(method, s, version.clone()),
        |v| parse_result_for(method, v, version.clone()),
    );
    match result {
        Some(MethodResult::Server(r)) => emission::check(&r),
        Some(MethodResult::Client(r)) => emission::check(&r),
        Some(_) | None => {}
    }
}

/// The three entry points of one parse must give the same answer; the value when it parses.
fn agree<T: PartialEq + Debug>(
    bytes: &[u8],
    slice: impl Fn(&[u8]) -> Result<T, ParseError>,
    text: impl Fn(&str) -> Result<T, ParseError>,
    value: impl Fn(&Value) -> Result<T, ParseError>,
) -> Option<T> {
    let from_slice = slice(bytes);
    let Ok(s) = std::str::from_utf8(bytes) else {
        assert!(from_slice.is_err(), "invalid UTF-8 parsed: {from_slice:?}");
        return None;
    };
    let from_str = text(s);
    assert_eq!(
        from_slice, from_str,
        "the slice and str forms disagree on {s:?}"
    );
    match serde_json::from_str::<Value>(s) {
        Ok(v) => assert_eq!(
            from_str,
            value(&v),
            "the text form and the Value form disagree on {s:?}"
        ),
        Err(_) => assert!(from_str.is_err(), "non-JSON text parsed: {s:?}"),
    }
    from_str.ok()
}

/// Real bodies at their session's revision (and requests at a neighbouring one), typed by their
/// method; each example under its type (at 2026-07-28), and typed as a result of every method
/// whose result type it names.
pub fn seeds(sources: &Sources) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let seed = |version: u8, selector: u8, value: &Value| {
        let mut s = vec![version, selector];
        s.extend(serde_json::to_vec(value).expect("JSON"));
        s
    };
    for body in sources.bodies() {
        let v = crate::revision_byte(body.version);
        let client = body.dir != "s2c";
        let union = match (body.kind, client) {
            (BodyKind::Request, true) => "ClientRequest",
            (BodyKind::Request, false) => "ServerRequest",
            (BodyKind::Notification, true) => "ClientNotification",
            (BodyKind::Notification, false) => "ServerNotification",
            (BodyKind::Result, _) => {
                if let Some(i) = result_index(body.method) {
                    out.push(seed(v, i, body.value));
                }
                continue;
            }
        };
        if let Some(i) = type_index(union) {
            out.push(seed(v, i, body.value));
            out.push(seed((v + 1) % 5, i, body.value));
        }
    }
    let latest = crate::revision_byte(mcp_wire::ProtocolVersion::V2026_07_28);
    for example in &sources.examples {
        if let Some(i) = type_index(&example.type_name) {
            out.push(seed(latest, i, &example.value));
        }
        let f = facts::revision(mcp_wire::ProtocolVersion::V2026_07_28);
        for m in f.client_requests.iter().chain(f.server_requests) {
            if m.result == Some(example.type_name.as_str())
                && let Some(i) = result_index(m.method)
            {
                out.push(seed(latest, i, &example.value));
            }
        }
    }
    out
}
