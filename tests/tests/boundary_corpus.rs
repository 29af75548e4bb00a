//! Every frame of the real-peer corpus and every 2026-07-28 example body, translated to each of
//! the five revisions: refused with a reason, or valid against the target's pinned schema; and
//! the emitted body parses back to the original minus exactly the reported strips.

mod common;

use std::collections::HashMap;

use common::{Body, Kind, Outcome, check_round_trip, translate};
use mcp_wire::ProtocolVersion;
use serde_json::Value;

fn body_of(frame: &Value) -> Value {
    let mut m = frame.as_object().cloned().unwrap_or_default();
    m.shift_remove("jsonrpc");
    m.shift_remove("id");
    Value::Object(m)
}

#[derive(Default)]
struct Tally {
    bodies: usize,
    valid: usize,
    refused: usize,
    reasons: HashMap<String, usize>,
}

impl Tally {
    fn run(&mut self, body: &Body, method: &'static str, label: &str) {
        self.bodies += 1;
        for v in ProtocolVersion::ALL {
            match translate(body, v, label) {
                Outcome::Valid(value, report) => {
                    self.valid += 1;
                    check_round_trip(body, &value, &report, v, method, label);
                }
                Outcome::Refused(e) => {
                    self.refused += 1;
                    *self.reasons.entry(format!("{:?}", e.kind)).or_default() += 1;
                }
            }
        }
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

#[test]
fn corpus_frames_translate_to_every_revision() {
    let mut tally = Tally::default();
    let mut errors = 0;
    let mut rejected = Vec::new();
    for file in mcp_wire_tests::corpus() {
        // Request ids per direction, to type responses by their request's method.
        let mut pending: HashMap<(String, String), &'static str> = HashMap::new();
        for (line, f) in &file.frames {
            let label = format!("{}:{line}", file.name);
            let frame = &f.frame;
            let c2s = f.dir == "c2s";
            let id = frame.get("id").map(|i| i.to_string());
            let (kind, method) = if let Some(m) = frame.get("method").and_then(Value::as_str) {
                if let Some(id) = &id {
                    pending.insert((f.dir.clone(), id.clone()), leak(m));
                    (
                        if c2s {
                            Kind::ClientRequest
                        } else {
                            Kind::ServerRequest
                        },
                        "",
                    )
                } else {
                    (
                        if c2s {
                            Kind::ClientNotification
                        } else {
                            Kind::ServerNotification
                        },
                        "",
                    )
                }
            } else if frame.get("result").is_some() {
                let other = if c2s { "s2c" } else { "c2s" };
                let method = pending
                    .get(&(other.to_owned(), id.clone().unwrap_or_default()))
                    .copied()
                    .unwrap_or_else(|| panic!("{label}: response to an unknown request"));
                (Kind::Result(method), method)
            } else {
                errors += 1;
                continue;
            };
            let json = match kind {
                Kind::Result(_) => frame["result"].clone(),
                _ => body_of(frame),
            };
            let body = match Body::parse(kind, &json, file.version) {
                Ok(b) => b,
                Err(e) => {
                    // The captures include deliberately bad requests (answered with an error).
                    assert!(
                        f.dir == "c2s" && frame.get("id").is_some(),
                        "{label}: does not parse at {}: {e}",
                        file.version
                    );
                    rejected.push(format!("{label}: {:?} {}", e.kind, e.path));
                    continue;
                }
            };
            tally.run(&body, method, &label);
        }
    }
    eprintln!("rejected at the source revision: {rejected:#?}");
    assert!(rejected.len() <= 12, "{} frames rejected", rejected.len());
    eprintln!(
        "corpus: {} bodies × 5 revisions: {} valid, {} refused {:?}; {} error frames",
        tally.bodies, tally.valid, tally.refused, tally.reasons, errors
    );
    assert!(
        tally.bodies >= 400,
        "the corpus has {} bodies",
        tally.bodies
    );
    assert!(tally.valid > tally.refused);
}

/// The method whose result is `name`, from the generated method tables.
fn method_of_result(name: &str) -> &'static str {
    match name {
        "InputRequiredResult" => return "tools/call",
        "EmptyResult" => return "ping",
        _ => {}
    }
    for v in ProtocolVersion::ALL.into_iter().rev() {
        let f = mcp_wire::facts::revision(v);
        if let Some(m) = f
            .client_requests
            .iter()
            .chain(f.server_requests)
            .find(|m| m.result == Some(name))
        {
            return m.method;
        }
    }
    panic!("no method returns {name}")
}

#[test]
fn examples_of_2026_07_28_translate_to_every_revision() {
    let dir = mcp_wire_schemas::SchemaStore::discover()
        .examples_dir()
        .expect("the pinned 2026-07-28 examples are present (run `cargo xtask schemas`)");
    let facts = mcp_wire::facts::revision(ProtocolVersion::V2026_07_28);
    let mut tally = Tally::default();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let ty = entry.file_name().to_string_lossy().into_owned();
        let (kind, method): (Kind<'static>, &'static str) =
            if let Some(m) = facts.client_requests.iter().find(|m| m.type_name == ty) {
                let _ = m;
                (Kind::ClientRequest, "")
            } else if ["CreateMessageRequest", "ListRootsRequest", "ElicitRequest"]
                .contains(&ty.as_str())
            {
                (Kind::ServerRequest, "")
            } else if facts.client_notifications.iter().any(|m| m.type_name == ty) {
                (Kind::ClientNotification, "")
            } else if facts.server_notifications.iter().any(|m| m.type_name == ty) {
                (Kind::ServerNotification, "")
            } else if ty.ends_with("Result") {
                let m = method_of_result(&ty);
                (Kind::Result(m), m)
            } else if let Some(result) = ty
                .strip_suffix("Response")
                .filter(|r| r.ends_with("Result"))
            {
                let m = method_of_result(result);
                (Kind::Result(m), m)
            } else {
                continue; // fragments and error objects are not bodies
            };
        let mut files: Vec<_> = std::fs::read_dir(entry.path()).unwrap().flatten().collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let label = format!("examples/{ty}/{}", file.file_name().to_string_lossy());
            let text = std::fs::read_to_string(file.path()).unwrap();
            let json: Value = serde_json::from_str(&text).unwrap();
            let json = if ty.ends_with("ResultResponse") {
                json["result"].clone()
            } else if matches!(kind, Kind::Result(_)) {
                json
            } else {
                body_of(&json)
            };
            let body = Body::parse(kind, &json, ProtocolVersion::V2026_07_28)
                .unwrap_or_else(|e| panic!("{label}: does not parse at 2026-07-28: {e}"));
            tally.run(&body, method, &label);
        }
    }
    eprintln!(
        "examples: {} bodies × 5 revisions: {} valid, {} refused {:?}",
        tally.bodies, tally.valid, tally.refused, tally.reasons
    );
    assert!(tally.bodies >= 50, "{} example bodies", tally.bodies);
}
