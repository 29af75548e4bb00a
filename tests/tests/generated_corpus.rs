//! Real captured sessions (`../shared/corpus/*.jsonl`) against the generated revision modules.
//! Each frame must
//! 1. deserialize as the revision's `JSONRPCMessage` and serialize back value-equal, and
//! 2. carry a payload that its direction's union reads and writes back value-equal: requests and
//!    notifications through `ClientRequest`/`ServerRequest`/`ClientNotification`/
//!    `ServerNotification` (keeping only the keys the matched definition declares, since older
//!    revisions model the envelope separately), results through `ClientResult`/`ServerResult`.
//!
//! Frames that do not are listed in [`ALLOWED`] with the reason; the list is checked both ways.

use std::collections::{BTreeMap, BTreeSet};

use mcp_wire::ProtocolVersion;
use mcp_wire::facts;
use mcp_wire_tests::corpus;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The peer probes with a method no revision defines; rejecting it is the right answer.
const BOGUS: &str = "deliberately unknown method `bogus/method`: the union rightly rejects it";
/// Up to 2025-06-18 the schema's `CallToolRequest.params` lists only `name`/`arguments`, not the
/// `_meta` (progressToken) that the generic `Request.params` allows; the typed params drop it.
const CALL_TOOL_META: &str =
    "CallToolRequest.params does not declare `_meta` before 2025-11-25; progressToken dropped";

/// `file:line` → why that frame does not round-trip through its revision's generated types.
/// Real peers (the Python SDK) send later-revision fields (`title`, `websiteUrl`,
/// `structuredContent`, `outputSchema`, progress `message`, elicitation `mode`) to older revisions.
const ALLOWED: &[(&str, &str)] = &[
    (
        "pysdk-2024-11-05.jsonl:11",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:13",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:15",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:2",
        "undeclared keys (later-revision fields leaked by the peer): /capabilities/completions dropped; /serverInfo/title dropped; /serverInfo/websiteUrl dropped",
    ),
    ("pysdk-2024-11-05.jsonl:26", CALL_TOOL_META),
    (
        "pysdk-2024-11-05.jsonl:27",
        "undeclared keys (later-revision fields leaked by the peer): /params/message dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:29",
        "undeclared keys (later-revision fields leaked by the peer): /params/message dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:31",
        "undeclared keys (later-revision fields leaked by the peer): /params/message dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:33",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:39",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:43",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:45",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:47",
        "undeclared keys (later-revision fields leaked by the peer): /resources/0/title dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:49",
        "undeclared keys (later-revision fields leaked by the peer): /resourceTemplates/0/title dropped",
    ),
    (
        "pysdk-2024-11-05.jsonl:61",
        "undeclared keys (later-revision fields leaked by the peer): /prompts/0/title dropped",
    ),
    ("pysdk-2024-11-05.jsonl:72", BOGUS),
    (
        "pysdk-2024-11-05.jsonl:9",
        "undeclared keys (later-revision fields leaked by the peer): /tools/0/annotations dropped; /tools/0/outputSchema dropped; /tools/0/title dropped; /tools/1/outputSchema dropped; /tools/2/outputSchema dropped; /tools/5/outputSchema dropped; /tools/6/outputSchema dropped; /tools/7/outputSchema dropped; /tools/8/outputSchema dropped; /tools/9/outputSchema dropped; /tools/10/outputSchema dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:11",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:13",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:15",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:2",
        "undeclared keys (later-revision fields leaked by the peer): /serverInfo/title dropped; /serverInfo/websiteUrl dropped",
    ),
    ("pysdk-2025-03-26.jsonl:26", CALL_TOOL_META),
    (
        "pysdk-2025-03-26.jsonl:33",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:39",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:43",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:45",
        "undeclared keys (later-revision fields leaked by the peer): /structuredContent dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:47",
        "undeclared keys (later-revision fields leaked by the peer): /resources/0/title dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:49",
        "undeclared keys (later-revision fields leaked by the peer): /resourceTemplates/0/title dropped",
    ),
    (
        "pysdk-2025-03-26.jsonl:61",
        "undeclared keys (later-revision fields leaked by the peer): /prompts/0/title dropped",
    ),
    ("pysdk-2025-03-26.jsonl:72", BOGUS),
    (
        "pysdk-2025-03-26.jsonl:9",
        "undeclared keys (later-revision fields leaked by the peer): /tools/0/outputSchema dropped; /tools/0/title dropped; /tools/1/outputSchema dropped; /tools/2/outputSchema dropped; /tools/5/outputSchema dropped; /tools/6/outputSchema dropped; /tools/7/outputSchema dropped; /tools/8/outputSchema dropped; /tools/9/outputSchema dropped; /tools/10/outputSchema dropped",
    ),
    (
        "pysdk-2025-06-18.jsonl:2",
        "undeclared keys (later-revision fields leaked by the peer): /serverInfo/websiteUrl dropped",
    ),
    ("pysdk-2025-06-18.jsonl:26", CALL_TOOL_META),
    (
        "pysdk-2025-06-18.jsonl:35",
        "undeclared keys (later-revision fields leaked by the peer): /params/mode dropped; /params/requestedSchema/properties/note/default dropped; /params/requestedSchema/title dropped",
    ),
    ("pysdk-2025-06-18.jsonl:74", BOGUS),
    (
        "pysdk-2025-11-25.jsonl:35",
        "undeclared keys (later-revision fields leaked by the peer): /params/requestedSchema/title dropped",
    ),
    ("pysdk-2025-11-25.jsonl:74", BOGUS),
    (
        "pysdk-2026-07-28.jsonl:74",
        "`tools/list` without the `params._meta` that 2026-07-28 requires: rightly rejected",
    ),
    (
        "pysdk-2026-07-28.jsonl:78",
        "`ping` is not a 2026-07-28 client request: rightly rejected",
    ),
    (
        "pysdk-2026-07-28.jsonl:80",
        "`logging/setLevel` is not a 2026-07-28 client request: rightly rejected",
    ),
    (
        "pysdk-2026-07-28.jsonl:82",
        "`resources/subscribe` is not a 2026-07-28 client request: rightly rejected",
    ),
    (
        "pysdk-2026-07-28.jsonl:84",
        "`initialize` is not a 2026-07-28 client request: rightly rejected",
    ),
    ("pysdk-2026-07-28.jsonl:86", BOGUS),
];

/// Stand-in for a union the revision does not define (2026-07-28 has no `ServerRequest`):
/// reading anything as it fails.
#[derive(Debug, Serialize)]
struct NotInRevision;

impl<'de> serde::Deserialize<'de> for NotInRevision {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "this revision defines no such union",
        ))
    }
}

/// Reads `value` as `T` and writes it back; `Err` describes how that failed or what changed.
fn through<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("rejected: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))?;
    if back == *value {
        Ok(())
    } else {
        let mut diffs = Vec::new();
        differences(value, &back, "", &mut diffs);
        Err(format!("lossy: {}", diffs.join("; ")))
    }
}

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

/// The request/notification frame reduced to the keys its definition declares (2024-11-05 ..
/// 2025-06-18 model `jsonrpc`/`id` only on the envelope types).
fn payload_for_member(version: ProtocolVersion, frame: &Map<String, Value>) -> Value {
    let f = facts::revision(version);
    let method = frame
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let member = if frame.contains_key("id") {
        f.request(method)
    } else {
        f.notification(method)
    };
    let Some(fact) = member.and_then(|m| f.type_fact(m.type_name)) else {
        return Value::Object(frame.clone());
    };
    Value::Object(
        frame
            .iter()
            .filter(|(k, _)| fact.field(k).is_some())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// The checks of one frame for one revision module.
macro_rules! revision_checks {
    ($name:ident, $m:ident, $server_request:ty) => {
        fn $name(version: ProtocolVersion, c2s: bool, frame: &Value) -> Vec<String> {
            use mcp_wire::$m as m;
            let mut problems = Vec::new();
            if let Err(e) = through::<m::JSONRPCMessage>(frame) {
                problems.push(format!("JSONRPCMessage {e}"));
            }
            let obj = frame.as_object().expect("frames are objects");
            if obj.contains_key("method") {
                let payload = payload_for_member(version, obj);
                let notification = !obj.contains_key("id");
                let outcome = match (c2s, notification) {
                    (true, false) => through::<m::ClientRequest>(&payload),
                    (false, false) => through::<$server_request>(&payload),
                    (true, true) => through::<m::ClientNotification>(&payload),
                    (false, true) => through::<m::ServerNotification>(&payload),
                };
                if let Err(e) = outcome {
                    problems.push(format!("payload {e}"));
                }
            } else if let Some(result) = obj.get("result") {
                let outcome = if c2s {
                    through::<m::ClientResult>(result)
                } else {
                    through::<m::ServerResult>(result)
                };
                if let Err(e) = outcome {
                    problems.push(format!("result {e}"));
                }
            }
            problems
        }
    };
}

revision_checks!(check_2024_11_05, v2024_11_05, m::ServerRequest);
revision_checks!(check_2025_03_26, v2025_03_26, m::ServerRequest);
revision_checks!(check_2025_06_18, v2025_06_18, m::ServerRequest);
revision_checks!(check_2025_11_25, v2025_11_25, m::ServerRequest);
revision_checks!(check_2026_07_28, v2026_07_28, NotInRevision);

#[test]
fn every_corpus_frame_reads_with_its_revision_module() {
    let mut divergent = BTreeMap::new();
    let mut frames = 0;
    for file in corpus() {
        for (line, captured) in &file.frames {
            frames += 1;
            let c2s = match captured.dir.as_str() {
                "c2s" => true,
                "s2c" => false,
                other => panic!("{}:{line}: unknown direction {other}", file.name),
            };
            let v = file.version;
            let problems = match v {
                ProtocolVersion::V2024_11_05 => check_2024_11_05(v, c2s, &captured.frame),
                ProtocolVersion::V2025_03_26 => check_2025_03_26(v, c2s, &captured.frame),
                ProtocolVersion::V2025_06_18 => check_2025_06_18(v, c2s, &captured.frame),
                ProtocolVersion::V2025_11_25 => check_2025_11_25(v, c2s, &captured.frame),
                ProtocolVersion::V2026_07_28 => check_2026_07_28(v, c2s, &captured.frame),
            };
            if !problems.is_empty() {
                divergent.insert(format!("{}:{line}", file.name), problems.join(" | "));
            }
        }
    }
    assert!(
        frames >= 400,
        "expected the full corpus, read {frames} frames"
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
        "new divergences ({}): {new:#?}\nstale ALLOWED entries: {stale:#?}",
        new.len()
    );
}
