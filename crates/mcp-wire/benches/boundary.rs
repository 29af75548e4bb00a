#![allow(missing_docs)] // criterion_group! generates undocumented items
//! `serialize_for` and `parse_as` on a mix of real frames (the shared corpus), against plain
//! `serde_json` on the same superset values, in the same run; and the text entry points
//! (`parse_as`, `parse_result_for`) against `serde_json::from_str` of a `Value` and of
//! the same concrete types, from the same frame text.
//!
//! Run with `cargo bench -p mcp-wire --bench boundary`; the latest ratios are in
//! `docs/benchmarks.md`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_wire::ProtocolVersion;
use mcp_wire::model::*;
use mcp_wire::wire::*;
use serde::Deserialize;
use serde_json::Value;

/// One typed body of the corpus, with its source JSON.
enum Body {
    ClientRequest(ClientRequest),
    ServerNotification(ServerNotification),
    Result(&'static str, ServerResult),
}

fn corpus() -> Vec<(Body, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "the corpus is needed for the benches: {}: {e}",
                dir.display()
            )
        })
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let version = ProtocolVersion::ALL
            .into_iter()
            .find(|v| path.to_string_lossy().contains(v.as_str()))
            .expect("version in file name");
        let mut methods = std::collections::HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let rec: Value = serde_json::from_str(line).expect("corpus line");
            let frame = &rec["frame"];
            let c2s = rec["dir"] == "c2s";
            let mut body = frame.as_object().cloned().unwrap_or_default();
            body.shift_remove("jsonrpc");
            let id = body.shift_remove("id").map(|i| i.to_string());
            if let Some(m) = frame.get("method").and_then(Value::as_str) {
                if let Some(id) = id {
                    methods.insert(id, m.to_owned());
                }
                let body = Value::Object(body);
                if c2s {
                    if let Ok(r) = parse_as::<ClientRequest>(&body, version) {
                        out.push((Body::ClientRequest(r), body));
                    }
                } else if let Ok(n) = parse_as::<ServerNotification>(&body, version) {
                    out.push((Body::ServerNotification(n), body));
                }
            } else if let (Some(result), false) = (frame.get("result"), c2s) {
                let Some(m) = id.and_then(|id| methods.get(&id)) else {
                    continue;
                };
                let m: &'static str = Box::leak(m.clone().into_boxed_str());
                if let Ok(MethodResult::Server(r)) = parse_result_for(m, result, version) {
                    out.push((Body::Result(m, r), result.clone()));
                }
            }
        }
    }
    out
}

/// Plain `serde_json` of the same concrete result type (what `parse_result_for` picks by method).
fn plain_result(r: &ServerResult, json: &Value) -> bool {
    macro_rules! de {
        ($($v:ident($t:ty)),*) => {
            match r {
                $(ServerResult::$v(_) => <$t>::deserialize(json).is_ok(),)*
                _ => ServerResult::deserialize(json).is_ok(),
            }
        };
    }
    de!(
        Empty(EmptyResult),
        Initialize(InitializeResult),
        Discover(DiscoverResult),
        Complete(CompleteResult),
        GetPrompt(GetPromptResult),
        ListPrompts(ListPromptsResult),
        ListResources(ListResourcesResult),
        ListResourceTemplates(ListResourceTemplatesResult),
        ReadResource(ReadResourceResult),
        CallTool(CallToolResult),
        ListTools(ListToolsResult),
        SubscriptionsListen(SubscriptionsListenResult),
        InputRequired(InputRequiredResult)
    )
}

/// The bodies that have a wire form at `v` (refusals are a different, slow path).
fn emittable(bodies: &[(Body, Value)], v: ProtocolVersion) -> Vec<&Body> {
    bodies
        .iter()
        .map(|(b, _)| b)
        .filter(|b| {
            let mut buf = Vec::new();
            match b {
                Body::ClientRequest(r) => serialize_for_vec(r, v, &mut buf).is_ok(),
                Body::ServerNotification(n) => serialize_for_vec(n, v, &mut buf).is_ok(),
                Body::Result(_, r) => serialize_for_vec(r, v, &mut buf).is_ok(),
            }
        })
        .collect()
}

/// Writes every body with plain `serde_json` (not inlined: profilers count it per call).
#[inline(never)]
fn plain_all(bodies: &[&Body], buf: &mut Vec<u8>) {
    for b in bodies {
        buf.clear();
        match b {
            Body::ClientRequest(r) => serde_json::to_writer(&mut *buf, r),
            Body::ServerNotification(n) => serde_json::to_writer(&mut *buf, n),
            Body::Result(_, r) => serde_json::to_writer(&mut *buf, r),
        }
        .unwrap();
        black_box(&buf);
    }
}

/// Writes every body with `serialize_for_vec` at `v` (not inlined, as above).
#[inline(never)]
fn shaped_all(bodies: &[&Body], v: ProtocolVersion, buf: &mut Vec<u8>) {
    for b in bodies {
        buf.clear();
        match b {
            Body::ClientRequest(r) => serialize_for_vec(r, v, buf),
            Body::ServerNotification(n) => serialize_for_vec(n, v, buf),
            Body::Result(_, r) => serialize_for_vec(r, v, buf),
        }
        .unwrap();
        black_box(&buf);
    }
}

/// Builds every body's `Value` with plain `serde_json::to_value` (not inlined, as above).
#[inline(never)]
fn plain_values(bodies: &[&Body]) {
    for b in bodies {
        black_box(
            match b {
                Body::ClientRequest(r) => serde_json::to_value(r),
                Body::ServerNotification(n) => serde_json::to_value(n),
                Body::Result(_, r) => serde_json::to_value(r),
            }
            .unwrap(),
        );
    }
}

/// Builds every body's `Value` with `serialize_for` at `v` (not inlined, as above).
#[inline(never)]
fn shaped_values(bodies: &[&Body], v: ProtocolVersion) {
    for b in bodies {
        black_box(
            match b {
                Body::ClientRequest(r) => serialize_for(r, v),
                Body::ServerNotification(n) => serialize_for(n, v),
                Body::Result(_, r) => serialize_for(r, v),
            }
            .unwrap(),
        );
    }
}

/// The median over `ROUNDS` rounds of the time ratio of `b` to `a`, the two run back to back
/// in each round (a busy machine slows both sides of one round alike).
fn interleaved(mut a: impl FnMut(), mut b: impl FnMut()) -> f64 {
    const ROUNDS: usize = 41;
    const REPS: usize = 20;
    let mut ratios = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = std::time::Instant::now();
        (0..REPS).for_each(|_| a());
        let first = start.elapsed();
        let start = std::time::Instant::now();
        (0..REPS).for_each(|_| b());
        ratios.push(start.elapsed().as_secs_f64() / first.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    ratios[ROUNDS / 2]
}

/// After criterion's groups: the emission ratio per revision, from rounds that run the plain and
/// the shaped pass back to back (a busy machine slows both sides of one round alike); each ratio
/// is the median over the rounds.
fn emit_ratios(_: &mut Criterion) {
    let bodies = corpus();
    let mut buf = Vec::with_capacity(4096);
    let mut buf2 = Vec::with_capacity(4096);
    for v in ProtocolVersion::ALL {
        let ok = emittable(&bodies, v);
        let bytes = interleaved(
            || plain_all(&ok, &mut buf),
            || shaped_all(&ok, v, &mut buf2),
        );
        let values = interleaved(|| plain_values(&ok), || shaped_values(&ok, v));
        println!(
            "serialize_for_vec at {v}: {bytes:.2}x plain serde_json::to_writer; serialize_for: {values:.2}x plain serde_json::to_value ({} bodies; medians of 41 interleaved rounds)",
            ok.len()
        );
    }
}

fn emit(c: &mut Criterion) {
    let bodies = corpus();
    for v in ProtocolVersion::ALL {
        let ok = emittable(&bodies, v);
        let mut group = c.benchmark_group(format!("emit/{v}"));
        group.bench_function("plain serde_json", |bch| {
            let mut buf = Vec::with_capacity(4096);
            bch.iter(|| plain_all(&ok, &mut buf))
        });
        group.bench_function("serialize_for", |bch| {
            let mut buf = Vec::with_capacity(4096);
            bch.iter(|| shaped_all(&ok, v, &mut buf))
        });
        group.finish();
    }
}

/// Plain `serde_json` of the same concrete result type, from text.
fn plain_result_text(r: &ServerResult, text: &str) -> bool {
    macro_rules! de {
        ($($v:ident($t:ty)),*) => {
            match r {
                $(ServerResult::$v(_) => serde_json::from_str::<$t>(text).is_ok(),)*
                _ => serde_json::from_str::<ServerResult>(text).is_ok(),
            }
        };
    }
    de!(
        Empty(EmptyResult),
        Initialize(InitializeResult),
        Discover(DiscoverResult),
        Complete(CompleteResult),
        GetPrompt(GetPromptResult),
        ListPrompts(ListPromptsResult),
        ListResources(ListResourcesResult),
        ListResourceTemplates(ListResourceTemplatesResult),
        ReadResource(ReadResourceResult),
        CallTool(CallToolResult),
        ListTools(ListToolsResult),
        SubscriptionsListen(SubscriptionsListenResult),
        InputRequired(InputRequiredResult)
    )
}

fn parse(c: &mut Criterion) {
    let bodies = corpus();
    for v in ProtocolVersion::ALL {
        // Bodies of that revision's shape: emitted at `v`, as a peer at `v` would send them.
        let inputs: Vec<(&Body, Value, String)> = bodies
            .iter()
            .filter_map(|(b, _)| {
                let json = match b {
                    Body::ClientRequest(r) => serialize_for(r, v),
                    Body::ServerNotification(n) => serialize_for(n, v),
                    Body::Result(_, r) => serialize_for(r, v),
                }
                .ok()?;
                let text = serde_json::to_string(&json).ok()?;
                Some((b, json, text))
            })
            .collect();
        let plain_value = || {
            for (b, json, _) in &inputs {
                match b {
                    Body::ClientRequest(_) => {
                        black_box(ClientRequest::deserialize(json).is_ok());
                    }
                    Body::ServerNotification(_) => {
                        black_box(ServerNotification::deserialize(json).is_ok());
                    }
                    Body::Result(_, r) => {
                        black_box(plain_result(r, json));
                    }
                }
            }
        };
        let wire_value = || {
            for (b, json, _) in &inputs {
                match b {
                    Body::ClientRequest(_) => {
                        black_box(parse_as::<ClientRequest>(json, v).is_ok());
                    }
                    Body::ServerNotification(_) => {
                        black_box(parse_as::<ServerNotification>(json, v).is_ok());
                    }
                    Body::Result(m, _) => {
                        black_box(parse_result_for(m, json, v).is_ok());
                    }
                }
            }
        };
        // From the frame text: what a reader of a stream does.
        let text_value = || {
            for (_, _, text) in &inputs {
                black_box(serde_json::from_str::<Value>(text).is_ok());
            }
        };
        let text_plain = || {
            for (b, _, text) in &inputs {
                match b {
                    Body::ClientRequest(_) => {
                        black_box(serde_json::from_str::<ClientRequest>(text).is_ok());
                    }
                    Body::ServerNotification(_) => {
                        black_box(serde_json::from_str::<ServerNotification>(text).is_ok());
                    }
                    Body::Result(_, r) => {
                        black_box(plain_result_text(r, text));
                    }
                }
            }
        };
        let text_wire = || {
            for (b, _, text) in &inputs {
                match b {
                    Body::ClientRequest(_) => {
                        black_box(parse_as::<ClientRequest>(text, v).is_ok());
                    }
                    Body::ServerNotification(_) => {
                        black_box(parse_as::<ServerNotification>(text, v).is_ok());
                    }
                    Body::Result(m, _) => {
                        black_box(parse_result_for(m, text, v).is_ok());
                    }
                }
            }
        };
        let mut group = c.benchmark_group(format!("parse/{v}"));
        group.bench_function("plain serde_json", |bch| bch.iter(plain_value));
        group.bench_function("parse_as / parse_result_for", |bch| bch.iter(wire_value));
        group.bench_function("text: serde_json Value", |bch| bch.iter(text_value));
        group.bench_function("text: plain serde_json typed", |bch| bch.iter(text_plain));
        group.bench_function("text: parse_as / parse_result_for", |bch| {
            bch.iter(text_wire)
        });
        group.finish();
        if std::env::args().any(|a| a == "--bench") {
            // The ratios once more side by side: the variants take turns, round after round, so
            // a noisy neighbour slows them alike; each ratio compares medians.
            let m = side_by_side(&[
                &plain_value,
                &wire_value,
                &text_value,
                &text_plain,
                &text_wire,
            ]);
            eprintln!(
                "parse/{v} ratios: parse_as/plain {:.2}x; text: parse_as/Value {:.2}x, parse_as/plain typed {:.2}x, plain typed/Value {:.2}x",
                m[1] / m[0],
                m[4] / m[2],
                m[4] / m[3],
                m[3] / m[2],
            );
        }
    }
}

/// Median seconds per run of each function, the functions taking turns for 101 rounds.
fn side_by_side(fs: &[&dyn Fn()]) -> Vec<f64> {
    let mut times = vec![Vec::new(); fs.len()];
    for _ in 0..101 {
        for (f, t) in fs.iter().zip(&mut times) {
            let start = std::time::Instant::now();
            f();
            t.push(start.elapsed().as_secs_f64());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = emit, parse, emit_ratios
}
criterion_main!(benches);
