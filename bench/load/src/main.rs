//! `mcp-load-bench`: N concurrent sessions × M requests each, over loopback Streamable HTTP
//! (the stateful wire at 2025-11-25), against two servers with the same fixtures — our
//! `conformance_server` and one on rmcp 3.x's `StreamableHttpService` — in one run, rounds
//! interleaved. Requests alternate `tools/call test_simple_text` and `resources/read
//! test://static-text`. Prints throughput and p50/p99 latency per server and round, and the ratios.
//!
//! ```sh
//! cargo build --release -p mcp-wire-transport --features cli,conformance-fixtures --bin conformance_server
//! cargo run --release --manifest-path bench/load/Cargo.toml -- \
//!     --ours target/release/conformance_server [--sessions 200] [--requests 100] [--rounds 2]
//! ```
//! (`mcp-load-bench rmcp-server` serves the rmcp fixture server alone; the bench starts it.)
//! Bounded: every request has a 30 s timeout and a run stops after `--deadline` seconds.
//!
//! `--server 'LABEL=PATH ARG…'` (repeatable) replaces the two servers with the ones named, each
//! started as `PATH ARG… --listen 127.0.0.1:0` (for instance two builds of
//! `conformance_server`, or one build with and without `--metrics`); the ratios are then each
//! server's over the first's.
//!
//! `--cluster N` adds N replicas of the `--ours` program (built with the feature `redis`) behind
//! one address: a `redis-server`, the replicas started with `--store redis://…` and one
//! `--secret-file`, HAProxy balancing requests round-robin without stickiness in front (the
//! services of `mcp-wire-tests`, on free loopback ports). Without `--server` it is measured
//! against one `--ours` process keeping its state in memory, rounds interleaved; each session's
//! requests then reach every replica, which restores the session from Redis.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wire_tests::services::{self, Service};
use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

mod rmcp_server;

/// The bench's settings.
struct Settings {
    ours: String,
    /// `--server`: label, program, arguments.
    servers: Vec<(String, String, Vec<String>)>,
    /// `--cluster`: how many replicas of `ours` run behind the balancer.
    cluster: Option<usize>,
    sessions: usize,
    requests: usize,
    rounds: usize,
    deadline: Duration,
}

fn settings() -> Settings {
    let mut s = Settings {
        ours: "target/release/conformance_server".into(),
        servers: Vec::new(),
        cluster: None,
        sessions: 200,
        requests: 100,
        rounds: 2,
        deadline: Duration::from_secs(300),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--ours" => s.ours = value(),
            "--server" => {
                let spec = value();
                let (label, command) = spec.split_once('=').unwrap_or_else(|| usage());
                let mut words = command.split_whitespace().map(str::to_owned);
                let program = words.next().unwrap_or_else(|| usage());
                s.servers.push((label.to_owned(), program, words.collect()));
            }
            "--cluster" => {
                s.cluster = Some(
                    value()
                        .parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .unwrap_or_else(|| usage()),
                )
            }
            "--sessions" => s.sessions = value().parse().unwrap_or_else(|_| usage()),
            "--requests" => s.requests = value().parse().unwrap_or_else(|_| usage()),
            "--rounds" => s.rounds = value().parse().unwrap_or_else(|_| usage()),
            "--deadline" => {
                s.deadline = Duration::from_secs(value().parse().unwrap_or_else(|_| usage()))
            }
            _ => usage(),
        }
    }
    s
}

fn usage() -> ! {
    eprintln!(
        "usage: mcp-load-bench [--ours PATH] [--server 'LABEL=PATH ARG…'…] [--cluster REPLICAS] [--sessions N] [--requests M] [--rounds R] [--deadline SECS]\n       mcp-load-bench rmcp-server"
    );
    std::process::exit(2)
}

/// One measured run against one server.
struct Run {
    seconds: f64,
    latencies: Vec<Duration>,
    errors: usize,
}

impl Run {
    fn throughput(&self) -> f64 {
        self.latencies.len() as f64 / self.seconds
    }

    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[i.min(self.latencies.len() - 1)]
    }
}

#[tokio::main]
async fn main() {
    if std::env::args().nth(1).as_deref() == Some("rmcp-server") {
        return rmcp_server::serve().await;
    }
    let s = settings();
    if !s.servers.is_empty() || s.cluster.is_some() {
        return compare(&s).await;
    }
    let exe = std::env::current_exe().expect("own path");
    let (_ours, ours_url) = start(&s.ours, &["--listen", "127.0.0.1:0"]).await;
    let (_rmcp, rmcp_url) = start(exe.to_str().unwrap(), &["rmcp-server"]).await;
    println!(
        "{} sessions x {} requests, {} rounds (tools/call and resources/read alternating)",
        s.sessions, s.requests, s.rounds
    );
    println!("| round | server | requests | errors | seconds | req/s | p50 ms | p99 ms |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut totals: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    for round in 1..=s.rounds {
        for (i, (name, url)) in [("conformance_server", &ours_url), ("rmcp 3.11", &rmcp_url)]
            .into_iter()
            .enumerate()
        {
            let run = load(url, &s).await;
            println!(
                "| {round} | {name} | {} | {} | {:.2} | {:.0} | {:.2} | {:.2} |",
                run.latencies.len(),
                run.errors,
                run.seconds,
                run.throughput(),
                run.percentile(0.50).as_secs_f64() * 1e3,
                run.percentile(0.99).as_secs_f64() * 1e3,
            );
            totals[i].push(run);
        }
    }
    let best = |runs: &[Run], f: &dyn Fn(&Run) -> f64, max: bool| {
        runs.iter()
            .map(f)
            .fold(if max { 0.0 } else { f64::MAX }, |a, b| {
                if max { a.max(b) } else { a.min(b) }
            })
    };
    let tp = |r: &Run| r.throughput();
    let p99 = |r: &Run| r.percentile(0.99).as_secs_f64();
    println!(
        "best rounds: throughput ours/rmcp = {:.2}, p99 ours/rmcp = {:.2}",
        best(&totals[0], &tp, true) / best(&totals[1], &tp, true),
        best(&totals[0], &p99, false) / best(&totals[1], &p99, false),
    );
}

/// The servers of `--server` (or the `--ours` process) and the `--cluster`, rounds interleaved:
/// each one's table rows, then the medians of the rounds and of the per-round throughput ratios
/// over the first server.
async fn compare(s: &Settings) {
    // Label and URL of each server; the processes (and the cluster) stop when these drop.
    let mut started: Vec<(String, String)> = Vec::new();
    let mut processes = Vec::new();
    let mut cluster = None;
    let mut servers = s.servers.clone();
    if servers.is_empty() {
        servers.push((
            "1 process, state in memory".into(),
            s.ours.clone(),
            Vec::new(),
        ));
    }
    for (label, program, args) in servers {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--listen", "127.0.0.1:0"]);
        let (child, url) = start(&program, &args).await;
        processes.push(child);
        started.push((label, url));
    }
    if let Some(replicas) = s.cluster {
        let started_cluster = cluster.insert(Cluster::start(replicas, &s.ours).await);
        started.push((
            format!("{replicas} replicas, Redis, HAProxy"),
            started_cluster.url(),
        ));
    }
    println!(
        "{} sessions x {} requests, {} rounds (tools/call and resources/read alternating)",
        s.sessions, s.requests, s.rounds
    );
    println!("| round | server | requests | errors | seconds | req/s | p50 ms | p99 ms |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut runs: Vec<Vec<Run>> = started.iter().map(|_| Vec::new()).collect();
    for round in 1..=s.rounds {
        for (i, (label, url)) in started.iter().enumerate() {
            let run = load(url, s).await;
            println!(
                "| {round} | {label} | {} | {} | {:.2} | {:.0} | {:.2} | {:.2} |",
                run.latencies.len(),
                run.errors,
                run.seconds,
                run.throughput(),
                run.percentile(0.50).as_secs_f64() * 1e3,
                run.percentile(0.99).as_secs_f64() * 1e3,
            );
            runs[i].push(run);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!();
    println!("| server | errors | req/s | p50 ms | p99 ms | req/s / first's (median of rounds) |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (i, (label, _)) in started.iter().enumerate() {
        let ratio = median(
            runs[i]
                .iter()
                .zip(&runs[0])
                .map(|(r, first)| r.throughput() / first.throughput())
                .collect(),
        );
        println!(
            "| {label} | {} | {:.0} | {:.2} | {:.2} | {ratio:.3} |",
            runs[i].iter().map(|r| r.errors).sum::<usize>(),
            median(runs[i].iter().map(Run::throughput).collect()),
            median(
                runs[i]
                    .iter()
                    .map(|r| r.percentile(0.5).as_secs_f64() * 1e3)
                    .collect()
            ),
            median(
                runs[i]
                    .iter()
                    .map(|r| r.percentile(0.99).as_secs_f64() * 1e3)
                    .collect()
            ),
        );
    }
}

/// Replicas of one server program sharing a Redis store behind HAProxy, every process on a free
/// loopback port and killed by its own handle when dropped (replicas first, then the balancer,
/// then Redis); its scratch directory (the secret, HAProxy's configuration) is removed then.
struct Cluster {
    replicas: Vec<tokio::process::Child>,
    balancer: Service,
    _redis: Service,
    dir: PathBuf,
}

impl Cluster {
    async fn start(replicas: usize, program: &str) -> Self {
        let mut nonce = [0u8; 8];
        getrandom::fill(&mut nonce).expect("OS randomness");
        let dir = mcp_wire_tests::peers::target_dir()
            .join("load-cluster")
            .join(format!("{:016x}", u64::from_le_bytes(nonce)));
        std::fs::create_dir_all(&dir).expect("the cluster's scratch directory");
        let secret = dir.join("secret");
        let mut bytes = [0u8; 48];
        getrandom::fill(&mut bytes).expect("OS randomness");
        std::fs::write(&secret, bytes).expect("the secret file");
        let redis = services::start_redis(None);
        let store = format!("redis://127.0.0.1:{}", redis.port);
        let secret = secret.to_str().expect("a UTF-8 target path");
        let mut children = Vec::with_capacity(replicas);
        let mut addrs: Vec<SocketAddr> = Vec::with_capacity(replicas);
        for _ in 0..replicas {
            let args = ["--store", &store, "--secret-file", secret];
            let (child, url) =
                start(program, &[&args[..], &["--listen", "127.0.0.1:0"]].concat()).await;
            let addr = url
                .strip_prefix("http://")
                .and_then(|rest| rest.strip_suffix("/mcp"))
                .and_then(|addr| addr.parse().ok())
                .unwrap_or_else(|| panic!("{program} printed {url:?}, not http://ADDR/mcp"));
            children.push(child);
            addrs.push(addr);
        }
        let balancer = services::start_haproxy(&dir, &addrs);
        Self {
            replicas: children,
            balancer,
            _redis: redis,
            dir,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.balancer.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for replica in &mut self.replicas {
            let _ = replica.start_kill();
        }
        self.balancer.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts a server process that prints its URL as its first stdout line.
async fn start(program: &str, args: &[&str]) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the server prints its URL")
        .unwrap()
        .expect("a URL line");
    (child, url)
}

/// Runs `sessions` concurrent sessions of `requests` requests each against `url`.
async fn load(url: &str, s: &Settings) -> Run {
    let started = Instant::now();
    let deadline = started + s.deadline;
    let tasks: Vec<_> = (0..s.sessions)
        .map(|_| {
            let url = url.to_owned();
            let requests = s.requests;
            tokio::spawn(async move { session(&url, requests, deadline).await })
        })
        .collect();
    let mut latencies = Vec::with_capacity(s.sessions * s.requests);
    let mut errors = 0;
    for task in tasks {
        let (l, e) = task.await.unwrap_or_default();
        latencies.extend(l);
        errors += e;
    }
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort();
    if latencies.is_empty() {
        latencies.push(Duration::ZERO);
    }
    Run {
        seconds,
        latencies,
        errors,
    }
}

/// One session: the handshake, then `requests` timed requests; returns latencies and errors.
async fn session(url: &str, requests: usize, deadline: Instant) -> (Vec<Duration>, usize) {
    let options = ClientOptions::default()
        .open_get_stream(false)
        .request_timeout(Duration::from_secs(30));
    let Ok(mut conn) = connect_streamable(url, Wire::Stateful, options) else {
        return (Vec::new(), requests);
    };
    let conn = &mut conn;
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcp-load-bench", "version": "0"}});
    if call(conn, 0, "initialize", init).await.is_none() {
        return (Vec::new(), requests);
    }
    let _ = conn
        .sender
        .send(Frame::parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap())
        .await;
    let mut latencies = Vec::with_capacity(requests);
    let mut errors = 0;
    let tool = Arc::new(json!({"name": "test_simple_text", "arguments": {}}));
    let resource = Arc::new(json!({"uri": "test://static-text"}));
    for i in 0..requests {
        if Instant::now() > deadline {
            errors += requests - i;
            break;
        }
        let (method, params) = if i % 2 == 0 {
            ("tools/call", (*tool).clone())
        } else {
            ("resources/read", (*resource).clone())
        };
        let t = Instant::now();
        match call(conn, i as i64 + 1, method, params).await {
            Some(answer) if answer.get("result").is_some() => latencies.push(t.elapsed()),
            _ => errors += 1,
        }
    }
    conn.close();
    let _ = tokio::time::timeout(Duration::from_secs(5), conn.ended()).await;
    (latencies, errors)
}

/// Sends one request and waits for its answer (skipping other frames).
async fn call(conn: &mut Connection, id: i64, method: &str, params: Value) -> Option<Value> {
    let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    conn.sender
        .send(Frame::parse(frame.to_string()).ok()?)
        .await
        .ok()?;
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), conn.receiver.recv())
            .await
            .ok()??;
        let value = frame.to_value().ok()?;
        if value.get("id") == Some(&json!(id)) && value.get("method").is_none() {
            return Some(value);
        }
    }
}
