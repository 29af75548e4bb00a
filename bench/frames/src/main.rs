//! Parse and emit every frame of the shared corpus three ways, interleaved in one run:
//!
//! - **baseline**: `serde_json::from_str::<Value>` then `serde_json::to_writer`;
//! - **mcp-wire**: the frame API at the frame's revision — `parse_frame_answering` (envelope
//!   split, then the typed body; results by the request they answer, from
//!   `mcp_wire::session` at load time), then the typed frame written with
//!   `serialize_for_vec` at the same revision;
//! - **rmcp**: `serde_json::from_str` into rmcp 3.11's `ClientJsonRpcMessage` /
//!   `ServerJsonRpcMessage` (by the frame's direction), then `serde_json::to_writer`.
//!
//! Only frames all three read are timed (the corpus's deliberate probes are left out and
//! counted). Prints, per corpus file and over all, the median over rounds of each side's time
//! divided by the baseline's, and the same for the parse alone (`parse_frame_answering` against
//! `serde_json::from_str::<Value>`). Knobs: `MCP_FRAMES_BENCH_ROUNDS` (21), `MCP_FRAMES_BENCH_REPEAT`
//! (20: passes over the frames per round and side), `MCP_WIRE_CORPUS` (the corpus directory);
//! for diagnosis, `MCP_FRAMES_BENCH_ALONE=N` (every frame also timed alone; the N costliest
//! listed) and `MCP_FRAMES_BENCH_ONLY=<route>` (one route over every frame, for a profiler).

use std::path::PathBuf;
use std::time::Instant;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{JsonRpcNotification, JsonRpcRequest, RequestId};
use mcp_wire::model::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};
use mcp_wire::session::{Direction, Session};
use mcp_wire::wire::{RawFrame, ResultFor, TypedFrame, parse_frame_answering, serialize_for_vec};
use serde_json::Value;

/// One corpus frame, with what the typed route needs to read it.
struct Case {
    text: String,
    direction: Direction,
    revision: ProtocolVersion,
    /// For responses: the method answered and whether the request was task-augmented (the
    /// session's `ResultFor`, owned).
    answering: Option<(String, bool, Option<String>)>,
}

impl Case {
    fn result_for(&self) -> Option<ResultFor<'_>> {
        self.answering
            .as_ref()
            .map(|(m, aug, payload)| match payload {
                Some(original) => ResultFor::task_payload(original),
                None => ResultFor::method(m).task_augmented(*aug),
            })
    }
}

fn corpus_dir() -> PathBuf {
    match std::env::var_os("MCP_WIRE_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The mcp-wire route for one frame: `parse_frame_answering` (a response typed by the request
/// it answers, as the session said at load time), then `serialize_for_vec`.
fn ours(case: &Case, out: &mut Vec<u8>) -> bool {
    let v = case.revision;
    let answering = |_: &RequestId| case.result_for();
    match case.direction {
        Direction::ClientToServer => {
            let frame = parse_frame_answering::<ClientRequest, ClientNotification>(
                &case.text, v, answering,
            );
            match frame {
                Ok(frame) => emit(frame, v, out),
                Err(_) => false,
            }
        }
        Direction::ServerToClient => {
            let frame = parse_frame_answering::<ServerRequest, ServerNotification>(
                &case.text, v, answering,
            );
            match frame {
                Ok(frame) => emit(frame, v, out),
                Err(_) => false,
            }
        }
    }
}

fn emit<R, N>(frame: TypedFrame<'_, R, N>, v: ProtocolVersion, out: &mut Vec<u8>) -> bool
where
    JsonRpcRequest<R>: mcp_wire::wire::WireBody,
    JsonRpcNotification<N>: mcp_wire::wire::WireBody,
{
    match frame {
        TypedFrame::Request(r) => serialize_for_vec(&r, v, out).is_ok(),
        TypedFrame::Notification(n) => serialize_for_vec(&n, v, out).is_ok(),
        TypedFrame::Response(r) => serialize_for_vec(&r, v, out).is_ok(),
        TypedFrame::Error(e) => serialize_for_vec(&e, v, out).is_ok(),
        _ => false,
    }
}

fn rmcp_route(case: &Case, out: &mut Vec<u8>) -> bool {
    match case.direction {
        Direction::ClientToServer => {
            match serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(&case.text) {
                Ok(m) => serde_json::to_writer(&mut *out, &m).is_ok(),
                Err(_) => false,
            }
        }
        Direction::ServerToClient => {
            match serde_json::from_str::<rmcp::model::ServerJsonRpcMessage>(&case.text) {
                Ok(m) => serde_json::to_writer(&mut *out, &m).is_ok(),
                Err(_) => false,
            }
        }
    }
}

/// The mcp-wire route's parse alone (`parse_frame_answering`, the frame dropped).
fn ours_parse(case: &Case, _: &mut Vec<u8>) -> bool {
    let v = case.revision;
    let answering = |_: &RequestId| case.result_for();
    match case.direction {
        Direction::ClientToServer => {
            parse_frame_answering::<ClientRequest, ClientNotification>(&case.text, v, answering)
                .is_ok()
        }
        Direction::ServerToClient => {
            parse_frame_answering::<ServerRequest, ServerNotification>(&case.text, v, answering)
                .is_ok()
        }
    }
}

/// The baseline's parse alone (`serde_json::from_str::<Value>`, the value dropped).
fn baseline_parse(case: &Case, _: &mut Vec<u8>) -> bool {
    serde_json::from_str::<Value>(&case.text).is_ok()
}

fn baseline(case: &Case, out: &mut Vec<u8>) -> bool {
    match serde_json::from_str::<Value>(&case.text) {
        Ok(v) => serde_json::to_writer(&mut *out, &v).is_ok(),
        Err(_) => false,
    }
}

/// Reads a corpus file into cases, placing each frame in a session for its revision and the
/// request a response answers.
fn load(path: &std::path::Path) -> (Vec<Case>, usize) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut session = Session::new();
    let mut cases = Vec::new();
    let mut left_out = 0;
    for (i, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line).expect("corpus lines are JSON");
        let direction = match record["dir"].as_str() {
            Some("c2s") => Direction::ClientToServer,
            _ => Direction::ServerToClient,
        };
        let frame_text = record["frame"].to_string();
        let Ok(raw) = RawFrame::split(&frame_text) else {
            left_out += 1;
            continue;
        };
        let Ok(context) = session.observe(i + 1, Some(direction), raw.envelope(), &raw) else {
            left_out += 1;
            continue;
        };
        let Some(revision) = context.revision else {
            left_out += 1;
            continue;
        };
        let answering = context
            .origin
            .as_ref()
            .map(|o| (o.method.clone(), o.task_augmented, o.payload_of.clone()));
        let case = Case {
            text: frame_text,
            direction,
            revision,
            answering,
        };
        let mut scratch = Vec::new();
        if ours(&case, &mut scratch)
            && rmcp_route(&case, &mut scratch)
            && baseline(&case, &mut scratch)
        {
            cases.push(case);
        } else {
            left_out += 1;
        }
    }
    (cases, left_out)
}

fn time(cases: &[Case], repeat: usize, f: fn(&Case, &mut Vec<u8>) -> bool) -> f64 {
    let mut out = Vec::with_capacity(1 << 16);
    let start = Instant::now();
    for _ in 0..repeat {
        for c in cases {
            out.clear();
            std::hint::black_box(f(c, &mut out));
        }
    }
    start.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let rounds = knob("MCP_FRAMES_BENCH_ROUNDS", 21);
    let repeat = knob("MCP_FRAMES_BENCH_REPEAT", 20);
    let dir = corpus_dir();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "the shared corpus is missing: {} ({e}); set MCP_WIRE_CORPUS",
                dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let only = std::env::var("MCP_FRAMES_BENCH_ONLY").ok();
    if only.is_none() {
        println!(
            "| corpus | frames (left out) | mcp-wire / Value | rmcp / Value | mcp-wire / rmcp | parse alone: mcp-wire / Value |"
        );
        println!("| --- | --- | --- | --- | --- | --- |");
    }
    let mut all = Vec::new();
    let mut all_left_out = 0;
    for path in &files {
        let (cases, left_out) = load(path);
        all_left_out += left_out;
        if only.is_none() {
            let name = path.file_name().unwrap().to_string_lossy();
            report(&name, &cases, left_out, rounds, repeat);
        }
        all.extend(cases);
    }
    if let Some(only) = only {
        let Some((_, route)) = ROUTES.iter().find(|(name, _)| *name == only) else {
            panic!("MCP_FRAMES_BENCH_ONLY: one of {:?}", ROUTES.map(|(n, _)| n));
        };
        let seconds = time(&all, repeat, *route);
        println!(
            "{only}: {:.1} µs per pass over {} frames",
            seconds / repeat as f64 * 1e6,
            all.len()
        );
        return;
    }
    report("all", &all, all_left_out, rounds, repeat);
    let alone = knob("MCP_FRAMES_BENCH_ALONE", 0);
    if alone > 0 {
        each_alone(&all, alone, rounds, repeat);
    }
}

/// The routes by name, for `MCP_FRAMES_BENCH_ONLY` (one route over every frame, once: for a
/// profiler such as callgrind or cachegrind, one run per route).
const ROUTES: [(&str, fn(&Case, &mut Vec<u8>) -> bool); 5] = [
    ("baseline", baseline),
    ("ours", ours),
    ("rmcp", rmcp_route),
    ("baseline-parse", baseline_parse),
    ("ours-parse", ours_parse),
];

/// With `MCP_FRAMES_BENCH_ALONE=N`: every frame timed alone (the same frame `repeat` times
/// running, so its code stays in the caches), the baseline and the mcp-wire route. Prints the
/// ratio of the sums beside the mixed run's, and the N frames costing most beyond the baseline:
/// how much of the mixed ratio is the code footprint of a mix, and which frames cost anyway.
fn each_alone(cases: &[Case], n: usize, rounds: usize, repeat: usize) {
    struct Row<'a> {
        baseline: f64,
        ours: f64,
        case: &'a Case,
    }
    let mut rows: Vec<Row<'_>> = cases
        .iter()
        .map(|case| {
            let one = std::slice::from_ref(case);
            let (mut b, mut o) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                b.push(time(one, repeat, baseline));
                o.push(time(one, repeat, ours));
            }
            let per_pass = |t: f64| t / repeat as f64 * 1e9;
            Row {
                baseline: per_pass(median(b)),
                ours: per_pass(median(o)),
                case,
            }
        })
        .collect();
    let (b, o) = rows
        .iter()
        .fold((0.0, 0.0), |(b, o), r| (b + r.baseline, o + r.ours));
    println!(
        "\neach frame alone: mcp-wire {o:.0} ns, baseline {b:.0} ns per pass over {} frames: {:.2}×",
        rows.len(),
        o / b
    );
    rows.sort_by(|x, y| (y.ours - y.baseline).total_cmp(&(x.ours - x.baseline)));
    println!("| beyond the baseline (ns) | ratio | bytes | frame |");
    println!("| --- | --- | --- | --- |");
    for r in rows.iter().take(n) {
        let start: String = r.case.text.chars().take(80).collect();
        println!(
            "| {:.0} | {:.2}× | {} | `{start}…` |",
            r.ours - r.baseline,
            r.ours / r.baseline,
            r.case.text.len()
        );
    }
}

fn report(name: &str, cases: &[Case], left_out: usize, rounds: usize, repeat: usize) {
    let (mut ours_r, mut rmcp_r, mut vs, mut parse_r) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let b = time(cases, repeat, baseline);
        let o = time(cases, repeat, ours);
        let r = time(cases, repeat, rmcp_route);
        let bp = time(cases, repeat, baseline_parse);
        let op = time(cases, repeat, ours_parse);
        ours_r.push(o / b);
        rmcp_r.push(r / b);
        vs.push(o / r);
        parse_r.push(op / bp);
    }
    println!(
        "| {name} | {} ({left_out}) | {:.2}× | {:.2}× | {:.2}× | {:.2}× |",
        cases.len(),
        median(ours_r),
        median(rmcp_r),
        median(vs),
        median(parse_r)
    );
}
