//! The bridge's overhead on loopback (issue 19's judge): request round trips from one client
//! to one server, through the bridge and through a plain byte relay (a tokio TCP relay, the
//! baseline), in the same run with the rounds interleaved. Same transport on every hop
//! (Streamable HTTP, stateful wire downstream). Two pairs:
//!
//! - **same revision**: a 2025-11-25 client; the bridge speaks 2025-11-25 upstream too;
//! - **across eras**: a 2025-06-18 client; the bridge speaks 2026-07-28 upstream (the
//!   stateless wire, stamped requests, shaped results), the relay lets the same dual-era
//!   server answer the client natively.
//!
//! Across eras, a third path is measured for reference: a 2026-07-28 client through the relay
//! (the stateless wire, stamped requests), i.e. the server's own cost at the revision the
//! bridge speaks upstream; its ratio is not a goal.
//!
//! The server is the project's conformance fixtures (all five revisions), the request
//! `tools/call test_simple_text`. The server, the middle hop and the client each run on a
//! one-thread runtime of their own. Latency: one request at a time; throughput: `--clients`
//! sessions, each one request at a time. Output: a markdown table (p50/p99 in µs, req/s, the
//! bridge/relay ratios, and the on-CPU µs per sequential round trip of the middle hop's thread
//! and of the server's, from `/proc/thread-self/schedstat`) and the load average before and
//! after. The CPU columns say what a hop costs apart from the wake-ups between threads that
//! latency also counts.
//!
//! ```sh
//! cargo bench -p mcp-wire-bridge --bench overhead -- --rounds 15 --requests 2000
//! ```
//!
//! `--pair same` or `--pair across` runs one pair only (for a profiler).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wire::ProtocolVersion;
use mcp_wire_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Value, json};

/// Every wait of the bench: it stops by itself.
const DEADLINE: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy)]
struct Args {
    rounds: usize,
    requests: usize,
    clients: usize,
    warmup: usize,
    /// Only the pair whose label starts with this (`same`, `across`); all when `None`.
    pair: Option<&'static str>,
}

fn args() -> Args {
    let mut args = Args {
        rounds: 15,
        requests: 2000,
        clients: 8,
        warmup: 200,
        pair: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{flag} takes a number"))
        };
        match flag.as_str() {
            "--rounds" => args.rounds = value(),
            "--requests" => args.requests = value(),
            "--clients" => args.clients = value(),
            "--warmup" => args.warmup = value(),
            "--pair" => {
                args.pair = match it.next().as_deref() {
                    Some("same") => Some("same"),
                    Some("across") => Some("across"),
                    other => panic!("--pair takes same or across, found {other:?}"),
                }
            }
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    args
}

/// A runtime of its own on a thread of its own.
fn runtime(name: &str) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(name)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The fixtures on a free port at every revision; its URL.
fn start_server(rt: &tokio::runtime::Runtime) -> String {
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let server = Server::new(ConformanceFixtures::new(), ServerConfig::default());
        tokio::spawn(async move {
            let _ = server.serve(listener).await;
        });
        url
    })
}

/// A plain byte relay to the server's address; the relay's URL.
fn start_relay(rt: &tokio::runtime::Runtime, server_url: &str) -> String {
    let upstream = server_url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    let Ok(mut up) = tokio::net::TcpStream::connect(&upstream).await else {
                        return;
                    };
                    let _ = down.set_nodelay(true);
                    let _ = up.set_nodelay(true);
                    let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                });
            }
        });
        url
    })
}

/// The bridge in front of the server, speaking `upstream` to it; the bridge's URL.
fn start_bridge(
    rt: &tokio::runtime::Runtime,
    server_url: &str,
    upstream: ProtocolVersion,
) -> String {
    let target = UpstreamTarget::Url(server_url.to_owned());
    rt.block_on(async move {
        let bridge = Arc::new(
            Bridge::connect(
                &target,
                BridgeOptions::default().server_revisions(vec![upstream]),
            )
            .await
            .expect("the bridge connects"),
        );
        assert_eq!(bridge.snapshot().revision, upstream);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = bridge.serve_http(listener, "/mcp").await;
        });
        url
    })
}

/// One client session: initialized at `revision`, then one request at a time.
struct Session {
    conn: Connection,
    next: i64,
}

impl Session {
    async fn open(url: &str, revision: &str) -> Session {
        if revision == ProtocolVersion::V2026_07_28.as_str() {
            // The stateless wire: no handshake, the identity rides on every request.
            let conn = connect_streamable(url, Wire::Stateless, ClientOptions::default())
                .expect("a client");
            return Session { conn, next: 1 };
        }
        let conn = connect_streamable(
            url,
            Wire::Stateful,
            ClientOptions::default().open_get_stream(false),
        )
        .expect("a client");
        let mut session = Session { conn, next: 1 };
        let init = session
            .request(
                "initialize",
                json!({"protocolVersion": revision, "capabilities": {},
                       "clientInfo": {"name": "overhead-bench", "version": "1"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
        session
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    async fn send(&self, value: Value) {
        let frame = Frame::parse(serde_json::to_vec(&value).unwrap()).unwrap();
        self.conn
            .sender
            .send(frame)
            .await
            .expect("the client sends");
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let frame = tokio::time::timeout(DEADLINE, self.conn.receiver.recv())
                .await
                .expect("an answer in time")
                .expect("the connection is open");
            let value = frame.to_value().unwrap();
            if value["id"] == json!(id) && value.get("method").is_none() {
                return value;
            }
        }
    }

    /// One round trip of the measured request (stamped on the stateless wire); checks the
    /// answer.
    async fn call(&mut self, modern: bool) -> Duration {
        let mut params = json!({"name": "test_simple_text", "arguments": {}});
        if modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "overhead-bench", "version": "1"}
            });
        }
        let started = Instant::now();
        let answer = self.request("tools/call", params).await;
        let took = started.elapsed();
        assert_eq!(
            answer["result"]["content"][0]["text"], "This is a simple text response for testing.",
            "{answer}"
        );
        assert_eq!(
            answer["result"].get("resultType").is_some(),
            modern,
            "{answer}"
        );
        took
    }
}

/// What one path measured over all rounds.
#[derive(Default)]
struct Measured {
    latencies: Vec<Duration>,
    requests: usize,
    elapsed: Duration,
    /// On-CPU time of the middle hop's thread over the sequential round trips.
    middle_cpu: Duration,
    /// On-CPU time of the server's thread over the sequential round trips.
    server_cpu: Duration,
}

impl Measured {
    fn quantile(&mut self, q: f64) -> Duration {
        self.latencies.sort_unstable();
        let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
        self.latencies[i]
    }

    fn throughput(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// Mean on-CPU µs per sequential round trip of the middle hop and of the server.
    fn cpu_per_request(&self) -> (f64, f64) {
        let n = self.latencies.len().max(1) as f64;
        (micros(self.middle_cpu) / n, micros(self.server_cpu) / n)
    }
}

/// The threads whose CPU time a round reads: the middle hop's and the server's (each runtime
/// has one worker).
#[derive(Clone)]
struct Hops {
    middle: tokio::runtime::Handle,
    server: tokio::runtime::Handle,
}

impl Hops {
    /// The on-CPU time so far of the middle hop's and the server's threads.
    async fn cpu(&self) -> (Duration, Duration) {
        (on_cpu(&self.middle).await, on_cpu(&self.server).await)
    }
}

/// The on-CPU time of the worker thread of `rt` (`/proc/thread-self/schedstat`, read there);
/// zero where the kernel does not say.
async fn on_cpu(rt: &tokio::runtime::Handle) -> Duration {
    let read = || {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(Duration::ZERO, Duration::from_nanos)
    };
    rt.spawn(async move { read() })
        .await
        .unwrap_or(Duration::ZERO)
}

/// One round on one path: `requests` sequential round trips, then `requests` spread over
/// `clients` sessions.
async fn round(url: &str, revision: &str, args: Args, hops: &Hops, into: &mut Measured) {
    let modern = revision == ProtocolVersion::V2026_07_28.as_str();
    let mut session = Session::open(url, revision).await;
    for _ in 0..args.warmup {
        session.call(modern).await;
    }
    let (middle, server) = hops.cpu().await;
    for _ in 0..args.requests {
        into.latencies.push(session.call(modern).await);
    }
    let (middle_after, server_after) = hops.cpu().await;
    into.middle_cpu += middle_after.saturating_sub(middle);
    into.server_cpu += server_after.saturating_sub(server);
    let mut sessions = Vec::new();
    for _ in 0..args.clients {
        sessions.push(Session::open(url, revision).await);
    }
    let each = args.requests.div_ceil(args.clients);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for mut s in sessions {
        tasks.spawn(async move {
            for _ in 0..each {
                s.call(modern).await;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("a client task");
    }
    into.elapsed += started.elapsed();
    into.requests += each * args.clients;
}

/// One printed row: a path's figures.
struct Row {
    p50: Duration,
    p99: Duration,
    throughput: f64,
    middle_cpu: f64,
    server_cpu: f64,
}

impl Row {
    fn of(measured: &mut Measured) -> Row {
        let (middle_cpu, server_cpu) = measured.cpu_per_request();
        Row {
            p50: measured.quantile(0.5),
            p99: measured.quantile(0.99),
            throughput: measured.throughput(),
            middle_cpu,
            server_cpu,
        }
    }

    /// The row, with its ratios to `baseline`'s.
    fn print(&self, label: &str, path: &str, baseline: &Row) {
        println!(
            "| {label} | {path} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} |",
            micros(self.p50),
            micros(self.p99),
            self.throughput,
            self.p50.as_secs_f64() / baseline.p50.as_secs_f64(),
            self.p99.as_secs_f64() / baseline.p99.as_secs_f64(),
            self.throughput / baseline.throughput,
            self.middle_cpu,
            self.server_cpu,
        );
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let args = args();
    let before = load();
    let server_rt = runtime("server");
    let middle_rt = runtime("middle");
    let client_rt = runtime("client");
    let server = start_server(&server_rt);
    let relay = start_relay(&middle_rt, &server);
    let hops = Hops {
        middle: middle_rt.handle().clone(),
        server: server_rt.handle().clone(),
    };
    let pairs = [
        (
            "same revision (2025-11-25 → 2025-11-25)",
            "2025-11-25",
            ProtocolVersion::V2025_11_25,
        ),
        (
            "across eras (2025-06-18 → 2026-07-28)",
            "2025-06-18",
            ProtocolVersion::V2026_07_28,
        ),
    ];
    println!(
        "rounds {}, {} sequential round trips and {} over {} sessions per round and path; load before: {before}",
        args.rounds, args.requests, args.requests, args.clients
    );
    println!();
    println!(
        "| pair | path | p50 µs | p99 µs | req/s | p50 ratio | p99 ratio | req/s ratio | middle CPU µs/req | server CPU µs/req |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (label, client_revision, upstream) in pairs {
        if args.pair.is_some_and(|p| !label.starts_with(p)) {
            continue;
        }
        let bridge = start_bridge(&middle_rt, &server, upstream);
        // Across eras: the upstream's revision through the relay too (for reference).
        let reference = (upstream.as_str() != client_revision).then_some(upstream.as_str());
        let (mut relayed, mut bridged) = (Measured::default(), Measured::default());
        let mut referenced = Measured::default();
        client_rt.block_on(async {
            for r in 0..args.rounds {
                // Interleaved, and the order alternates so neither path always goes first.
                if r % 2 == 0 {
                    round(&relay, client_revision, args, &hops, &mut relayed).await;
                    round(&bridge, client_revision, args, &hops, &mut bridged).await;
                } else {
                    round(&bridge, client_revision, args, &hops, &mut bridged).await;
                    round(&relay, client_revision, args, &hops, &mut relayed).await;
                }
                if let Some(revision) = reference {
                    round(&relay, revision, args, &hops, &mut referenced).await;
                }
            }
        });
        let baseline = Row::of(&mut relayed);
        baseline.print(label, "relay", &baseline);
        let bridged = Row::of(&mut bridged);
        bridged.print(label, "bridge", &baseline);
        println!(
            "| {label} | added by the bridge | {:.0} | {:.0} | | | | | {:.1} | |",
            micros(bridged.p50.saturating_sub(baseline.p50)),
            micros(bridged.p99.saturating_sub(baseline.p99)),
            bridged.middle_cpu - baseline.middle_cpu,
        );
        if let Some(revision) = reference {
            Row::of(&mut referenced).print(
                label,
                &format!("relay, a {revision} client (reference)"),
                &baseline,
            );
        }
    }
    println!();
    println!("load after: {}", load());
}
