//! Throughput of `translate` against a plain serde_json baseline, in the same run.
//!
//! The input is a generated 2025-06-18 session (a handshake, then rounds of tool calls with
//! progress, resource reads, prompt gets and list calls), about 8 MB. The baseline parses each
//! line into a `serde_json::Value` and writes it back, which is the least any line-by-line
//! rewriter does. After criterion's groups, interleaved rounds time both and print the ratios.

#![allow(missing_docs)] // criterion's macros generate an undocumented `benches` function

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_frames::session::Session;
use mcp_frames::stream::{self, Output};
use mcp_frames::translate::{Mode, OnRefuse, Translate};
use mcp_types::ProtocolVersion;

/// Rounds of the side-by-side ratio pass: this machine's neighbours make single rounds vary by
/// a fifth, so the median needs a couple of dozen.
const RATIO_ROUNDS: usize = 25;

/// A generated capture-format session of `rounds` rounds.
fn session(rounds: usize) -> Vec<u8> {
    let mut s = Vec::new();
    let mut w = |line: String| {
        s.extend_from_slice(line.as_bytes());
        s.push(b'\n');
    };
    w(r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"bench","version":"1.0.0"}}}}"#.into());
    w(r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"bench-server","version":"1.0.0"}}}}"#.into());
    w(r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#.into());
    for r in 0..rounds {
        let id = 1 + r * 5;
        w(format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"lookup","arguments":{{"query":"harbour {r}","limit":10}},"_meta":{{"progressToken":{id}}}}}}}}}"#
        ));
        w(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{id},"progress":1,"total":2,"message":"searching"}}}}}}"#
        ));
        w(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"Found 3 results for harbour {r}: Bergen, Ålesund, Tromsø"}}],"structuredContent":{{"results":["Bergen","Ålesund","Tromsø"],"count":3}},"isError":false}}}}}}"#
        ));
        w(format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":{},"method":"resources/read","params":{{"uri":"harbour://{r}/notices"}}}}}}"#,
            id + 1
        ));
        w(format!(
            r##"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{},"result":{{"contents":[{{"uri":"harbour://{r}/notices","mimeType":"text/markdown","text":"# Notices\n- works near the pier until 18:00\n- buoy B{r} unlit"}}]}}}}}}"##,
            id + 1
        ));
        w(format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":{},"method":"prompts/get","params":{{"name":"plan","arguments":{{"from":"Bergen","to":"harbour {r}"}}}}}}}}"#,
            id + 2
        ));
        w(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{},"result":{{"description":"Passage plan","messages":[{{"role":"user","content":{{"type":"text","text":"Plan a passage from Bergen to harbour {r}."}}}}]}}}}}}"#,
            id + 2
        ));
        w(format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":{},"method":"tools/list"}}}}"#,
            id + 3
        ));
        w(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{},"result":{{"tools":[{{"name":"lookup","description":"Search harbours","inputSchema":{{"type":"object","properties":{{"query":{{"type":"string"}},"limit":{{"type":"integer"}}}},"required":["query"]}},"annotations":{{"readOnlyHint":true}}}}]}}}}}}"#,
            id + 3
        ));
    }
    s
}

/// The baseline: parse each line into a `Value` and write it back.
fn baseline(input: &[u8]) -> usize {
    let mut out = Vec::with_capacity(input.len());
    for line in input.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        serde_json::to_writer(&mut out, &v).unwrap();
        out.push(b'\n');
    }
    out.len()
}

/// A `Write` that counts bytes, shared with the caller.
struct Count(std::rc::Rc<std::cell::Cell<usize>>);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `mcp-frames translate --to <to>` over the input, in process; returns bytes written and
/// how many frames took the direct path.
fn translate_counted(input: &[u8], to: ProtocolVersion) -> (usize, usize) {
    let n = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut out = Output::new(Box::new(Count(n.clone())), Box::new(std::io::sink()));
    let mut handler = Translate::new(to, Mode::Translate(OnRefuse::Skip));
    let mut session = Session::new();
    stream::run(input, 1 << 24, &mut session, &mut handler, &mut out).unwrap();
    (n.get(), handler.direct_count())
}

/// `mcp-frames translate --to <to>` over the input, in process; returns bytes written.
fn translate(input: &[u8], to: ProtocolVersion) -> usize {
    translate_counted(input, to).0
}

fn bench(c: &mut Criterion) {
    let rounds: usize = std::env::var("MCP_FRAMES_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000);
    let input = session(rounds);
    let mut g = c.benchmark_group("translate");
    g.throughput(Throughput::Bytes(input.len() as u64));
    g.sample_size(10);
    g.bench_function("serde_json baseline (parse + write)", |b| {
        b.iter(|| baseline(black_box(&input)))
    });
    for to in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        g.bench_function(format!("translate 2025-06-18 -> {to}"), |b| {
            b.iter(|| translate(black_box(&input), to))
        });
    }
    g.finish();

    // The ratios, measured once more side by side: rounds of (baseline, each target) run back
    // to back, so a busy machine slows both sides of a ratio alike; each ratio is the median of
    // the per-round ratios.
    let targets = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];
    let time = |f: &dyn Fn() -> usize| {
        let s = Instant::now();
        black_box(f());
        s.elapsed()
    };
    let mut base = Vec::new();
    let mut ratios = vec![Vec::new(); targets.len()];
    for _ in 0..RATIO_ROUNDS {
        let b = time(&|| baseline(&input));
        base.push(b);
        for (i, to) in targets.iter().enumerate() {
            let t = time(&|| translate(&input, *to));
            ratios[i].push(t.as_secs_f64() / b.as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    base.sort();
    println!(
        "input: {:.1} MB, {} lines; baseline {:?} (median)",
        input.len() as f64 / 1e6,
        input.iter().filter(|b| **b == b'\n').count(),
        base[base.len() / 2]
    );
    for (to, r) in targets.iter().zip(&mut ratios) {
        let (_, direct) = translate_counted(&input, *to);
        println!(
            "translate -> {to}: {:.2}x the baseline (median of {} rounds; {direct} frames on the direct path)",
            median(r),
            r.len()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
