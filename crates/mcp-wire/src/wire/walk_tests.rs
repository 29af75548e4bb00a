//! The emitter writes subtrees that need no shaping (see `clean`) without looking at them. These
//! tests emit every body of the shared corpus and every 2026-07-28 example at every revision,
//! with and without a report, once that way and once walking every object, and require the same
//! bytes, the same report and the same refusal. The bytes are also compared with `serde_json`
//! writing the same emission's `Value`, which checks the byte writer (`json`) on real frames.

use std::path::{Path, PathBuf};

use serde_json::Value;
use walkdir::WalkDir;

use super::planned::WALK_EVERYTHING;
use super::tests::{Emitted, emitted};
use super::*;
use crate::model::{
    ClientNotification, ClientRequest, ClientResult, ServerNotification, ServerRequest,
    ServerResult,
};

/// One typed body, emitted at a revision by every output (see `tests::emitted`), walking every
/// object or not.
type Body = Box<dyn Fn(ProtocolVersion, bool) -> Emitted>;

fn boxed<B: WireBody + 'static>(b: B) -> Body {
    Box::new(move |v, walk_everything| {
        WALK_EVERYTHING.set(walk_everything);
        let out = emitted(&b, v);
        WALK_EVERYTHING.set(false);
        out
    })
}

fn shared(dir: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(dir);
    assert!(
        path.is_dir(),
        "these tests need the shared corpus and schemas at {} (the workspace's ../shared)",
        path.display()
    );
    path
}

/// The files under `dir` (and its subdirectories) named `*.ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let walk = WalkDir::new(dir).follow_links(true).sort_by_file_name();
    let all = walk.into_iter().map(|e| e.expect("readable").into_path());
    all.filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// Bodies of the corpus (requests, notifications, results typed by their request's method) and
/// of the 2026-07-28 examples (whichever union takes them).
fn bodies() -> Vec<Body> {
    let mut out = Vec::new();
    for path in &files(&shared("corpus"), "jsonl") {
        let version = ProtocolVersion::ALL
            .into_iter()
            .find(|v| path.to_string_lossy().contains(v.as_str()))
            .expect("a revision in the corpus file name");
        let text = std::fs::read_to_string(path).expect("corpus file");
        let mut methods = std::collections::HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record: Value = serde_json::from_str(line).expect("corpus line");
            let c2s = record["dir"] == "c2s";
            let mut frame = record["frame"].as_object().cloned().unwrap_or_default();
            frame.shift_remove("jsonrpc");
            let id = frame.shift_remove("id").map(|i| (c2s, i.to_string()));
            if let Some(m) = frame.get("method").and_then(Value::as_str) {
                if let Some(id) = id.clone() {
                    methods.insert(id, m.to_owned());
                }
                let body = Value::Object(frame);
                let parsed = match (c2s, id.is_some()) {
                    (true, true) => parse_as::<ClientRequest>(&body, version).map(boxed),
                    (false, true) => parse_as::<ServerRequest>(&body, version).map(boxed),
                    (true, false) => parse_as::<ClientNotification>(&body, version).map(boxed),
                    (false, false) => parse_as::<ServerNotification>(&body, version).map(boxed),
                };
                out.extend(parsed.ok());
            } else if let (Some(result), Some((dir, id))) = (frame.get("result"), id) {
                let Some(m) = methods.get(&(!dir, id)) else {
                    continue;
                };
                out.extend(parse_result_for(m, result, version).map(boxed).ok());
            }
        }
    }
    let v = ProtocolVersion::V2026_07_28;
    for path in &files(&shared("schemas/2026-07-28/examples"), "json") {
        let text = std::fs::read_to_string(path).expect("example file");
        let Ok(json) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let body = parse_as::<ClientRequest>(&json, v)
            .map(boxed)
            .or_else(|_| parse_as::<ServerRequest>(&json, v).map(boxed))
            .or_else(|_| parse_as::<ClientNotification>(&json, v).map(boxed))
            .or_else(|_| parse_as::<ServerNotification>(&json, v).map(boxed))
            .or_else(|_| parse_as::<ServerResult>(&json, v).map(boxed))
            .or_else(|_| parse_as::<ClientResult>(&json, v).map(boxed));
        out.extend(body.ok());
    }
    out
}

#[test]
fn writing_clean_subtrees_unlooked_changes_nothing_and_bytes_match_values() {
    let bodies = bodies();
    assert!(bodies.len() > 400, "only {} bodies parsed", bodies.len());
    let (mut written, mut refused) = (0, 0);
    // The text (member order included) and the report, or the refusal.
    let seen = |e: Emitted| e.map(|(value, report)| (value.to_string(), report));
    for (i, body) in bodies.iter().enumerate() {
        for v in ProtocolVersion::ALL {
            let fast = seen(body(v, false));
            assert_eq!(fast, seen(body(v, true)), "body {i} at {v}");
            written += usize::from(fast.is_ok());
            refused += usize::from(fast.is_err());
        }
    }
    let enough = written > 1500 && refused > 100;
    assert!(enough, "{written} written, {refused} refused");
}
