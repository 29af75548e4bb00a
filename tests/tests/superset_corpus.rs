//! Every frame of the real-peer corpus parses into the superset model, with params typed by
//! `method` and results typed by the method of the request they answer (request ids are tracked
//! per direction), and serializes back value-equal. Exceptions live in [`ALLOWLIST`], which is
//! checked both ways: an unlisted divergence fails, and so does a listed frame that no longer
//! diverges.

use std::collections::{BTreeMap, HashMap};

use mcp_wire::jsonrpc::{JsonRpcMessage, RawMessage, RequestId};
use mcp_wire::model::{
    ClientNotification, ClientRequest, ClientResult, ModelErrorKind, ServerNotification,
    ServerRequest, ServerResult, from_value,
};
use serde_json::Value;

/// What a listed frame is expected to do instead of round-tripping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Divergence {
    /// The typed parse fails with an unknown `method` tag (JSON-RPC -32601).
    UnknownMethod,
}

/// `(file, line, divergence, reason)`.
const ALLOWLIST: &[(&str, usize, Divergence, &str)] = &[
    (
        "pysdk-2024-11-05.jsonl",
        72,
        Divergence::UnknownMethod,
        "the capture driver probes `bogus/method`; no revision defines it (the server answers -32601)",
    ),
    (
        "pysdk-2025-03-26.jsonl",
        72,
        Divergence::UnknownMethod,
        "the capture driver probes `bogus/method`; no revision defines it (the server answers -32601)",
    ),
    (
        "pysdk-2025-06-18.jsonl",
        74,
        Divergence::UnknownMethod,
        "the capture driver probes `bogus/method`; no revision defines it (the server answers -32601)",
    ),
    (
        "pysdk-2025-11-25.jsonl",
        74,
        Divergence::UnknownMethod,
        "the capture driver probes `bogus/method`; no revision defines it (the server answers -32601)",
    ),
    (
        "pysdk-2026-07-28.jsonl",
        86,
        Divergence::UnknownMethod,
        "the capture driver probes `bogus/method`; no revision defines it (the server answers -32601)",
    ),
];

/// The outcome of one frame.
#[derive(Debug, PartialEq)]
enum Outcome {
    RoundTrips,
    Diverges(Divergence),
    Fails(String),
}

fn typed(dir: &str, frame: &Value, pending: &mut HashMap<(String, RequestId), String>) -> Outcome {
    let raw = match RawMessage::from_value(frame.clone()) {
        Ok(m) => m,
        Err(e) => return Outcome::Fails(format!("envelope: {e}")),
    };
    let client = dir == "c2s";
    let result: Result<Value, mcp_wire::model::ModelError> = match raw {
        JsonRpcMessage::Request(r) => {
            pending.insert((dir.to_owned(), r.id.clone()), r.request.method.clone());
            if client {
                r.parse_as::<ClientRequest>()
                    .map(|t| serde_json::to_value(t).unwrap())
            } else {
                r.parse_as::<ServerRequest>()
                    .map(|t| serde_json::to_value(t).unwrap())
            }
        }
        JsonRpcMessage::Notification(n) => {
            if client {
                n.parse_as::<ClientNotification>()
                    .map(|t| serde_json::to_value(t).unwrap())
            } else {
                n.parse_as::<ServerNotification>()
                    .map(|t| serde_json::to_value(t).unwrap())
            }
        }
        JsonRpcMessage::Response(r) => {
            let other = if client { "s2c" } else { "c2s" };
            let Some(method) = pending.get(&(other.to_owned(), r.id.clone())).cloned() else {
                return Outcome::Fails(format!("response to unknown request id {}", r.id));
            };
            let body = Value::Object(r.result.clone());
            // The method-less (structural) guess must agree with the by-method type on every
            // real result: it is the fallback when no request id can be matched.
            let typed = if client {
                ClientResult::from_method(&method, body.clone())
                    .inspect(|t| {
                        let guess: ClientResult =
                            from_value(body.clone()).expect("structural parse");
                        assert_eq!(guess.type_name(), t.type_name(), "{method}: {body}");
                    })
                    .map(|t| serde_json::to_value(t).unwrap())
            } else {
                ServerResult::from_method(&method, body.clone())
                    .inspect(|t| {
                        let guess: ServerResult =
                            from_value(body.clone()).expect("structural parse");
                        assert_eq!(guess.type_name(), t.type_name(), "{method}: {body}");
                    })
                    .map(|t| serde_json::to_value(t).unwrap())
            };
            typed.map(|result| {
                serde_json::to_value(mcp_wire::jsonrpc::JsonRpcResponse::new(r.id, result)).unwrap()
            })
        }
        JsonRpcMessage::Error(e) => Ok(serde_json::to_value(e).unwrap()),
        _ => return Outcome::Fails("unexpected message kind".into()),
    };
    match result {
        Ok(back) if &back == frame => Outcome::RoundTrips,
        Ok(back) => Outcome::Fails(format!(
            "re-serialized differently:\n  in:  {frame}\n  out: {back}"
        )),
        Err(e) => match e.kind {
            ModelErrorKind::UnknownTag { ref field, .. } if field == "method" => {
                Outcome::Diverges(Divergence::UnknownMethod)
            }
            _ => Outcome::Fails(format!("typed parse: {e}")),
        },
    }
}

#[test]
fn every_corpus_frame_round_trips_through_the_superset() {
    let allow: BTreeMap<(&str, usize), Divergence> = ALLOWLIST
        .iter()
        .map(|(f, l, d, _)| ((*f, *l), *d))
        .collect();
    let mut problems = Vec::new();
    let mut seen_allowed = Vec::new();
    let mut frames = 0;
    for file in mcp_wire_tests::corpus() {
        let mut pending = HashMap::new();
        for (line, captured) in &file.frames {
            frames += 1;
            let outcome = typed(&captured.dir, &captured.frame, &mut pending);
            let listed = allow.get(&(file.name.as_str(), *line));
            match (outcome, listed) {
                (Outcome::RoundTrips, None) => {}
                (Outcome::Diverges(d), Some(l)) if d == *l => {
                    seen_allowed.push((file.name.clone(), *line));
                }
                (outcome, listed) => problems.push(format!(
                    "{}:{line}: {outcome:?} (allowlist says {listed:?})",
                    file.name
                )),
            }
        }
    }
    for (f, l, _, reason) in ALLOWLIST {
        if !seen_allowed.iter().any(|(sf, sl)| sf == f && sl == l) {
            problems.push(format!("stale allowlist entry {f}:{l} ({reason})"));
        }
    }
    assert!(frames > 400, "corpus unexpectedly small: {frames} frames");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
