//! Throughput of `translate` against a plain serde_json baseline, in the same run.
//!
//! The inputs:
//! - **the shared corpus**: for each source revision, its real captured sessions
//!   (`../shared/corpus`) concatenated and replicated to at least `MCP_FRAMES_BENCH_MB` MB
//!   (default 20), translated to every revision;
//! - **the recorded sessions**: each session `cargo xtask corpus` recorded between the pinned
//!   peers (`target/corpus`, or `MCP_FRAMES_BENCH_RECORDED`), replicated the same way and
//!   translated to every revision: every SDK's key order, frame sizes and open members;
//! - **a generated 2025-06-18 session** (a handshake, then rounds of tool calls with progress,
//!   resource reads, prompt gets and list calls), about 8 MB, to 2025-11-25 and 2026-07-28;
//! - **a generated session of large frames** (1 MiB base64 arguments and images, about 21 MB),
//!   to 2025-11-25 and 2026-07-28 (2025-11-25 source).
//!
//! The baseline parses each line into a `serde_json::Value` (keeping member order) and writes it
//! back, which is the least any line-by-line rewriter does. After criterion's groups (generated
//! session only), interleaved rounds time the baseline and each target back to back on the same
//! input, and the bench prints every pair's median ratio, each source's worst and median, then
//! the worst and the median pair over all.

#![allow(missing_docs)] // criterion's macros generate an undocumented `benches` function

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_wire::ProtocolVersion;
use mcp_wire_frames::session::Session;
use mcp_wire_frames::stream::{self, Output};
use mcp_wire_frames::translate::{Mode, OnRefuse, Translate};

/// Rounds of the side-by-side ratio pass: this machine's neighbours make single rounds vary by
/// a fifth, so the median needs a couple of dozen.
const RATIO_ROUNDS: usize = 25;

/// Rounds of the side-by-side pass per corpus source (each round runs the baseline and all five
/// targets on a 20 MB input, so fewer rounds than for the generated session).
const CORPUS_ROUNDS: usize = 11;

/// A knob read from the environment, with its default.
fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// `one` repeated until it holds at least `min_bytes` (each repetition starts with its own
/// handshake, so the session sees one real session after another).
fn replicated(one: &[u8], min_bytes: usize) -> Vec<u8> {
    let mut one = one.to_vec();
    if !one.ends_with(b"\n") {
        one.push(b'\n');
    }
    let mut input = Vec::with_capacity(min_bytes + one.len());
    while input.len() < min_bytes {
        input.extend_from_slice(&one);
    }
    input
}

/// One input of the corpus table: its name, its revision and its replicated text.
struct Source {
    name: String,
    revision: ProtocolVersion,
    input: Vec<u8>,
}

/// For each source revision, the shared corpus sessions captured at it, concatenated; then each
/// recorded session on its own; each replicated to at least `min_bytes`.
fn sources(min_bytes: usize) -> Vec<Source> {
    let mut out = Vec::new();
    for revision in ProtocolVersion::ALL {
        let mut one = Vec::new();
        for (path, version) in mcp_wire_tests::corpus_files() {
            if version == revision {
                one.extend_from_slice(&std::fs::read(&path).expect("corpus file readable"));
                if !one.ends_with(b"\n") {
                    one.push(b'\n');
                }
            }
        }
        assert!(!one.is_empty(), "no corpus session at {revision}");
        out.push(Source {
            name: format!("shared corpus {revision}"),
            revision,
            input: replicated(&one, min_bytes),
        });
    }
    let recorded = std::env::var_os("MCP_FRAMES_BENCH_RECORDED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| mcp_wire_tests::peers::target_dir().join("corpus"));
    let mut files: Vec<_> = std::fs::read_dir(&recorded)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    files.sort();
    if files.is_empty() {
        println!(
            "no recorded sessions in {} (run `cargo xtask corpus`): the shared corpus only",
            recorded.display()
        );
    }
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let revision = ProtocolVersion::ALL
            .into_iter()
            .find(|v| name.ends_with(v.as_str()))
            .unwrap_or_else(|| panic!("{name}: names no revision"));
        let one = std::fs::read(&path).expect("recorded session readable");
        out.push(Source {
            name,
            revision,
            input: replicated(&one, min_bytes),
        });
    }
    out
}

/// The revisions a knob names (comma-separated), or all of them when it is unset: the corpus
/// table can be cut down to one pair, e.g. for a run under `valgrind --tool=callgrind`
/// (`MCP_FRAMES_BENCH_ONLY` also keeps only the sources whose name contains it).
fn revisions(name: &str) -> Vec<ProtocolVersion> {
    match std::env::var(name) {
        Ok(list) => list
            .split(',')
            .map(|v| v.trim().parse().expect("a protocol revision"))
            .collect(),
        Err(_) => ProtocolVersion::ALL.to_vec(),
    }
}

/// Median of a list of ratios.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times one call.
fn time(f: &dyn Fn() -> usize) -> f64 {
    let s = Instant::now();
    black_box(f());
    s.elapsed().as_secs_f64()
}

/// The median ratio of each target against the baseline over `rounds` interleaved rounds on one
/// input: each round times the baseline, then every target, back to back.
fn interleaved(input: &[u8], targets: &[ProtocolVersion], rounds: usize) -> (f64, Vec<f64>) {
    let sides: Vec<Box<dyn Fn() -> usize + '_>> = targets
        .iter()
        .map(|to| Box::new(move || translate(input, *to)) as Box<dyn Fn() -> usize>)
        .collect();
    interleaved_sides(input, &sides, rounds)
}

/// The median baseline time, and the median ratio of each side against the baseline over
/// `rounds` interleaved rounds on one input: each round times the baseline, then every side.
fn interleaved_sides(
    input: &[u8],
    sides: &[Box<dyn Fn() -> usize + '_>],
    rounds: usize,
) -> (f64, Vec<f64>) {
    let mut base = Vec::new();
    let mut ratios = vec![Vec::new(); sides.len()];
    for _ in 0..rounds {
        let b = time(&|| baseline(input));
        base.push(b);
        for (side, r) in sides.iter().zip(&mut ratios) {
            r.push(time(side.as_ref()) / b);
        }
    }
    (
        median(&mut base),
        ratios.iter_mut().map(|r| median(r)).collect(),
    )
}

/// The line a generated input's ratios are printed under.
fn print_input(name: &str, input: &[u8], base: f64) {
    println!(
        "{name}: {:.1} MB, {} lines; baseline {:.1} ms (median)",
        input.len() as f64 / 1e6,
        input.iter().filter(|b| **b == b'\n').count(),
        base * 1e3
    );
}

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

/// The baseline: parse each line into a `Value` and write it back. (Never inlined, here and in
/// `translate_counted`, so a profile shows each side as one function.)
#[inline(never)]
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
#[inline(never)]
fn translate_counted(input: &[u8], to: ProtocolVersion) -> (usize, usize) {
    let mut handler = Translate::new(to, Mode::Translate(OnRefuse::Skip));
    let n = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut out = Output::new(Box::new(Count(n.clone())), Box::new(std::io::sink()));
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
    let (base, ratios) = interleaved(&input, &targets, RATIO_ROUNDS);
    print_input("generated session", &input, base);
    for (to, r) in targets.iter().zip(&ratios) {
        let (_, direct) = translate_counted(&input, *to);
        println!(
            "  translate 2025-06-18 -> {to}: {r:.2}x the baseline (median of {RATIO_ROUNDS} rounds; {direct} frames on the direct path)"
        );
    }

    large_frames(RATIO_ROUNDS);

    corpus_pairs(
        knob("MCP_FRAMES_BENCH_MB", 20) * 1_000_000,
        knob("MCP_FRAMES_BENCH_CORPUS_ROUNDS", CORPUS_ROUNDS),
    );
}

/// A 2025-11-25 session of large frames: a handshake, then rounds of a `tools/call` with a
/// 1 MiB base64 argument answered by a 1 MiB image (and a short text), about 20 MB in all.
fn large_session() -> Vec<u8> {
    let data: String = (0..1 << 20)
        .map(|i| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64] as char
        })
        .collect();
    let mut s = Vec::new();
    let mut w = |line: String| {
        s.extend_from_slice(line.as_bytes());
        s.push(b'\n');
    };
    w(r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}}"#.into());
    w(r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench-server","version":"1.0.0"}}}}"#.into());
    w(r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#.into());
    for id in 1..=10 {
        w(format!(
            r#"{{"dir":"c2s","frame":{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"upload","arguments":{{"image":"{data}"}}}}}}}}"#
        ));
        w(format!(
            r#"{{"dir":"s2c","frame":{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"image","data":"{data}","mimeType":"image/png"}},{{"type":"text","text":"stored"}}]}}}}}}"#
        ));
    }
    s
}

/// The large-frame session to 2025-11-25 and 2026-07-28, against the baseline.
fn large_frames(rounds: usize) {
    let input = large_session();
    let targets = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28];
    let (base, ratios) = interleaved(&input, &targets, rounds);
    print_input("large frames", &input, base);
    for (to, r) in targets.iter().zip(&ratios) {
        println!(
            "  translate 2025-11-25 -> {to}: {r:.2}x the baseline (median of {rounds} rounds)"
        );
    }
}

/// Every source of the corpus table to every target, printed as a table: each pair's median
/// ratio, each source's worst and median, and the worst and the median pair over all.
fn corpus_pairs(min_bytes: usize, rounds: usize) {
    if rounds == 0 {
        return;
    }
    let targets = revisions("MCP_FRAMES_BENCH_TARGETS");
    let kept = revisions("MCP_FRAMES_BENCH_SOURCES");
    let only = std::env::var("MCP_FRAMES_BENCH_ONLY").ok();
    let mut all = Vec::new();
    println!(
        "corpus, each source replicated to >= {} MB; median of {rounds} interleaved rounds",
        min_bytes / 1_000_000
    );
    println!(
        "| source | {} | worst | median | direct |",
        targets
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("| --- |{}", " --- |".repeat(targets.len() + 3));
    for source in sources(min_bytes) {
        if !kept.contains(&source.revision)
            || only
                .as_ref()
                .is_some_and(|o| !source.name.contains(o.as_str()))
        {
            continue;
        }
        let (_, mut ratios) = interleaved(&source.input, &targets, rounds);
        let cells: Vec<String> = ratios.iter().map(|r| format!("{r:.2}x")).collect();
        let lines = source.input.iter().filter(|b| **b == b'\n').count();
        let direct = translate_counted(&source.input, targets[0]).1;
        all.extend(&ratios);
        let worst = ratios.iter().copied().fold(f64::MIN, f64::max);
        println!(
            "| {} | {} | {worst:.2}x | {:.2}x | {:.0}% |",
            source.name,
            cells.join(" | "),
            median(&mut ratios),
            100.0 * direct as f64 / lines as f64
        );
    }
    let worst = all.iter().copied().fold(f64::MIN, f64::max);
    println!(
        "corpus pairs: worst {worst:.2}x, median {:.2}x the baseline ({} pairs)",
        median(&mut all),
        all.len()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
