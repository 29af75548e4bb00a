//! Real SDK pairs through the bridge (issue 19's judges): a real client of one revision, the
//! bridge, a real server of another, each pair over stdio on both sides and over HTTP on both
//! sides (SDK 1.9.0 over HTTP+SSE, the transport its newest revision has).
//!
//! Clients: the TypeScript SDK v1 (`tests/peers/ts-plan-client.mjs`, 1.32.2 or 1.9.0), the
//! TypeScript SDK v2 pinned to 2026-07-28 (`ts-v2-plan-client.mjs`) and the Python SDK in
//! either era (`py-plan-client.py`, `legacy` or `2026-07-28`), all running one plan format
//! ([`Step`]). Servers: `@modelcontextprotocol/server-everything` (legacy, SDK v1) and the
//! TypeScript SDK v2 server pinned to 2026-07-28 (`ts-v2-server.mjs`). Every plan runs tools
//! (progress, cancel, sampling, elicitation, roots), resources (read, subscribe, updates),
//! prompts, completion and logging.
//!
//! Both of the bridge's sides are tapped in every pair (stdio: the client reaches the
//! in-process bridge through a small Node relay that logs each direction, the server's stdin
//! and stdout are `tee`d; HTTP: `http-tap.mjs` relays each side and logs every frame of every
//! body and event stream), and every frame the bridge wrote is validated against the pinned
//! schema of the revision of the side it went to: requests and notifications against their
//! definitions, results against the result type of the request they answer, errors against
//! the error envelope. Loopback only; every peer is killed on drop and every run is bounded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_wire_schemas::{SchemaOracle, SchemaStore};
use mcp_wire_tests::peers::{kill_marked, peers};
use mcp_wire_tests::plans::{Outcome, Step, plan_env};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::Child;

mod common;
use common::RUN;

/// How both of the bridge's sides are carried.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wire {
    /// Stdio both sides.
    Stdio,
    /// Streamable HTTP both sides.
    Http,
    /// HTTP+SSE (2024-11-05) downstream, Streamable HTTP upstream.
    Sse,
}

/// The real server behind the bridge.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Server {
    /// `@modelcontextprotocol/server-everything` (SDK v1, handshake era).
    Everything,
    /// `tests/peers/ts-v2-server.mjs` (SDK v2, 2026-07-28 only).
    V2,
}

/// The real client in front of the bridge.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Client {
    /// `ts-plan-client.mjs` with this SDK package (1.32.2 or the 1.9.0 alias).
    TsV1(&'static str),
    /// `ts-v2-plan-client.mjs`, pinned to 2026-07-28.
    TsV2,
    /// `py-plan-client.py` in this mode (`legacy` or `2026-07-28`).
    Python(&'static str),
}

const SDK_1_32: Client = Client::TsV1("@modelcontextprotocol/sdk");
const SDK_1_9: Client = Client::TsV1("mcp-sdk-2024-11-05");

impl Client {
    /// Whether the client speaks 2026-07-28 (else a handshake revision).
    fn modern(self) -> bool {
        matches!(self, Client::TsV2 | Client::Python("2026-07-28"))
    }

    /// Whether the client can answer elicitation (SDK 1.9.0 predates it).
    fn elicits(self) -> bool {
        self != SDK_1_9
    }
}

/// A Node relay from the client's stdio to the bridge's line socket, logging each direction.
const RELAY: &str = r#"
const net = require('net'), fs = require('fs');
const [port, up, down] = process.argv.slice(1);
const s = net.connect(+port, '127.0.0.1');
process.stdin.on('data', d => { fs.appendFileSync(up, d); s.write(d); });
process.stdin.on('end', () => s.end());
s.on('data', d => { fs.appendFileSync(down, d); process.stdout.write(d); });
s.on('close', () => process.exit(0));
"#;

/// A pair's run: the client's outcome and the taps of both sides.
struct Run {
    outcome: Outcome,
    dir: PathBuf,
    upstream: ProtocolVersion,
    wire: Wire,
}

/// A scratch directory for one pair's taps.
fn taps(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-wire-bridge-pairs-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn everything() -> PathBuf {
    peers()
        .package("@modelcontextprotocol/server-everything")
        .join("dist/index.js")
}

/// The v2 server script's path (copied next to the installed packages).
fn v2_script() -> PathBuf {
    peers()
        .script("ts-v2-server.mjs")
        .unwrap()
        .get_args()
        .next()
        .map(PathBuf::from)
        .expect("the script's path")
}

/// Spawns `command` (killed on drop) and reads the URL it prints first.
async fn spawn_printing_url(command: std::process::Command) -> (Child, String) {
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("the peer starts");
    let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    tokio::time::timeout(RUN, out.read_line(&mut url))
        .await
        .expect("the peer prints its URL")
        .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
    (child, url.trim().to_owned())
}

/// An HTTP tap in front of `origin`, logging what it sends there and what comes back; its
/// origin.
async fn http_tap(origin: &str, sent: &Path, received: &Path) -> (Child, String) {
    let mut command = peers().script("http-tap.mjs").unwrap();
    command.arg(origin).arg(sent).arg(received);
    spawn_printing_url(command).await
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The environment variable that marks a pair's stdio servers with its taps directory, so
/// they can be found and killed by pid when the run ends (`kill_marked`).
const MARK: &str = "MCP_WIRE_PAIR";

/// The server over stdio, its stdin and stdout logged to `dir`, its stderr dropped (the bridge
/// kills the `sh`; the pipeline's server, which may keep timers running after its stdin ends,
/// is killed by `kill_marked`).
fn server_stdio(server: Server, dir: &Path) -> UpstreamTarget {
    let (script, arg) = match server {
        Server::Everything => (everything(), "stdio"),
        Server::V2 => (v2_script(), "stdio"),
    };
    let line = format!(
        "tee -a '{0}/to-server.jsonl' | {MARK}='{0}' '{1}' '{2}' {arg} 2>/dev/null | tee -a '{0}/from-server.jsonl'",
        dir.display(),
        peers().node().display(),
        script.display()
    );
    UpstreamTarget::Command(["sh", "-c", &line].map(Into::into).to_vec())
}

/// The server over Streamable HTTP behind a tap logging to `dir`; the processes and the
/// tapped endpoint URL.
async fn server_http(server: Server, dir: &Path) -> (Vec<Child>, String) {
    let (child, origin) = match server {
        Server::Everything => {
            // It binds every interface on PORT; the bridge reaches it on loopback.
            let port = free_port();
            let mut command = peers().node_command(everything());
            command
                .arg("streamableHttp")
                .env("PORT", port.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let mut command = tokio::process::Command::from(command);
            command.kill_on_drop(true);
            let child = command.spawn().expect("server-everything starts");
            (child, format!("http://127.0.0.1:{port}"))
        }
        Server::V2 => {
            let (child, url) = spawn_printing_url(peers().node_command(v2_script())).await;
            (child, url.trim_end_matches("/mcp").to_owned())
        }
    };
    let (tap, tapped) = http_tap(
        &origin,
        &dir.join("to-server.jsonl"),
        &dir.join("from-server.jsonl"),
    )
    .await;
    (vec![child, tap], format!("{tapped}/mcp"))
}

/// The bridge to `target`, retried until the server is up (HTTP servers start slowly).
async fn connect(target: &UpstreamTarget, options: BridgeOptions) -> Arc<Bridge> {
    let deadline = tokio::time::Instant::now() + RUN;
    loop {
        match Bridge::connect(target, options.clone()).await {
            Ok(bridge) => return Arc::new(bridge),
            Err(e) => {
                assert!(tokio::time::Instant::now() < deadline, "{e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// Serves newline-delimited frames on a loopback port, one client after another; the port.
async fn serve_lines(bridge: Arc<Bridge>) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (r, w) = stream.into_split();
            let _ = bridge.serve_lines(r, w).await;
        }
    });
    (port, task)
}

/// The client's command; `target` is its transport's arguments (`stdio <command…>` or a URL).
fn client_command(client: Client, target: Vec<String>) -> std::process::Command {
    let mut command = match client {
        Client::TsV1(sdk) => {
            let mut command = peers().script("ts-plan-client.mjs").unwrap();
            command.arg(sdk);
            command
        }
        Client::TsV2 => peers().script("ts-v2-plan-client.mjs").unwrap(),
        Client::Python(mode) => {
            let mut command = peers().python_script("py-plan-client.py");
            command.arg(mode);
            command
        }
    };
    // The Python client takes `--stdio`, the Node ones `stdio`.
    let mut target = target;
    if matches!(client, Client::Python(_)) && target[0] == "stdio" {
        target[0] = "--stdio".into();
    }
    command.args(target);
    command
}

/// Runs the client with `plan`; its outcome.
async fn observe(mut command: std::process::Command, plan: &[Step]) -> Outcome {
    command.env("PLAN", plan_env(plan));
    Outcome::new(plan, common::observe(command).await)
}

/// Runs one pair: the server, the bridge with `options`, the client with `plan`, every side
/// tapped; then validates every frame the bridge wrote (at least `frames` each way).
async fn run(
    name: &str,
    (client, server, wire): (Client, Server, Wire),
    options: BridgeOptions,
    plan: &[Step],
) -> Run {
    let dir = taps(name);
    let mut held = Vec::new();
    let target = if wire == Wire::Stdio {
        server_stdio(server, &dir)
    } else {
        let (children, url) = server_http(server, &dir).await;
        held.extend(children);
        UpstreamTarget::Url(url)
    };
    let bridge = connect(&target, options).await;
    let upstream = bridge.snapshot().revision;
    assert_eq!(
        upstream == ProtocolVersion::V2026_07_28,
        server == Server::V2,
        "{upstream}"
    );
    let (serving, target) = if wire == Wire::Stdio {
        let (port, serving) = serve_lines(bridge.clone()).await;
        let relay = [
            "stdio".into(),
            peers().node().display().to_string(),
            "-e".into(),
            RELAY.into(),
            port.to_string(),
            dir.join("from-client.jsonl").display().to_string(),
            dir.join("to-client.jsonl").display().to_string(),
        ];
        (serving, relay.to_vec())
    } else {
        let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", front.local_addr().unwrap());
        let serving = {
            let bridge = bridge.clone();
            tokio::spawn(async move {
                let _ = bridge.serve_http(front, "/mcp").await;
            })
        };
        let (tap, tapped) = http_tap(
            &origin,
            &dir.join("from-client.jsonl"),
            &dir.join("to-client.jsonl"),
        )
        .await;
        held.push(tap);
        let path = if wire == Wire::Sse { "sse" } else { "mcp" };
        let kind: &[&str] = match (client, wire) {
            (Client::TsV1(_), Wire::Sse) => &["sse"],
            (Client::TsV1(_), _) => &["streamable"],
            _ => &[],
        };
        let mut target: Vec<String> = kind.iter().map(|k| (*k).to_owned()).collect();
        target.push(format!("{tapped}/{path}"));
        (serving, target)
    };
    let outcome = observe(client_command(client, target), plan).await;
    serving.abort();
    bridge.shutdown(Duration::from_secs(6)).await;
    drop(held);
    Run {
        outcome,
        dir,
        upstream,
        wire,
    }
}

impl std::ops::Deref for Run {
    type Target = Outcome;

    fn deref(&self) -> &Outcome {
        &self.outcome
    }
}

impl Run {
    /// The frames the bridge wrote to `side` (`client` or `server`).
    fn written(&self, side: &str) -> Vec<Value> {
        lines(&self.dir.join(format!("to-{side}.jsonl")))
    }

    /// Validates every frame the bridge wrote to either side against that side's pinned
    /// schema, the client's revision being the one its `initialize` was answered with
    /// (2026-07-28 without one); at least `min` frames each way.
    fn validate(&self, min: usize) {
        let client = self
            .written("client")
            .iter()
            .find_map(|f| f["result"]["protocolVersion"].as_str().map(str::to_owned))
            .map_or(ProtocolVersion::V2026_07_28, |v| {
                v.parse().expect("a known revision")
            });
        let down = validate(
            &self.dir.join("to-client.jsonl"),
            &self.dir.join("from-client.jsonl"),
            client,
        );
        let up = validate(
            &self.dir.join("to-server.jsonl"),
            &self.dir.join("from-server.jsonl"),
            self.upstream,
        );
        assert!(
            down >= min && up >= min,
            "{down} frames to the client, {up} to the server"
        );
    }
}

impl Run {
    /// The client's cancel reached the server: a `notifications/cancelled` naming a request
    /// the bridge sent (a 2026-07-28 server over HTTP is told by the closing of the call's
    /// stream instead).
    fn assert_cancel_crossed(&self) {
        if self.wire != Wire::Stdio && self.upstream == ProtocolVersion::V2026_07_28 {
            return;
        }
        let written = self.written("server");
        let cancelled: Vec<&Value> = written
            .iter()
            .filter(|f| f["method"] == "notifications/cancelled")
            .collect();
        assert!(
            cancelled.iter().any(|c| written
                .iter()
                .any(|f| f.get("method").is_some() && f["id"] == c["params"]["requestId"])),
            "no cancel upstream: {cancelled:?}"
        );
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        kill_marked(MARK, &self.dir);
        if !std::thread::panicking() {
            std::fs::remove_dir_all(&self.dir).ok();
        }
    }
}

fn oracle(v: ProtocolVersion) -> SchemaOracle {
    SchemaOracle::load(&SchemaStore::discover(), v)
        .unwrap_or_else(|e| panic!("pinned schema of {v}: {e} (run `cargo xtask schemas`)"))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Every frame in `written` (what the bridge wrote to a peer at `v`) checked against `v`'s
/// pinned schema; `peer` is what that peer wrote (to type the results by their requests).
/// The era probe (`server/discover`, sent before the upstream's revision is known) is checked
/// at 2026-07-28, the revision it is written at. Returns how many frames were checked; panics
/// with every violation.
fn validate(written: &Path, peer: &Path, v: ProtocolVersion) -> usize {
    let (probes, frames): (Vec<Value>, Vec<Value>) = lines(written)
        .into_iter()
        .partition(|f| f["method"] == "server/discover");
    validate_frames(&probes, peer, ProtocolVersion::V2026_07_28) + validate_frames(&frames, peer, v)
}

fn validate_frames(frames: &[Value], peer: &Path, v: ProtocolVersion) -> usize {
    let oracle = oracle(v);
    let facts = mcp_wire::facts::revision(v);
    let asked: HashMap<String, String> = lines(peer)
        .into_iter()
        .filter_map(|f| {
            Some((
                f.get("id")?.to_string(),
                f.get("method")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let error_envelope = ["JSONRPCErrorResponse", "JSONRPCError"]
        .into_iter()
        .find(|n| oracle.has_definition(n))
        .expect("an error envelope");
    let mut problems = Vec::new();
    for frame in frames {
        let method = frame.get("method").and_then(Value::as_str);
        let (name, instance) = match (method, frame.get("id")) {
            (Some(m), Some(_)) => (facts.request(m).map(|f| f.type_name), frame.clone()),
            (Some(m), None) => (facts.notification(m).map(|f| f.type_name), frame.clone()),
            // A 2026-07-28 call, prompt or read may answer with a round of questions.
            (None, Some(_)) if frame["result"]["resultType"] == "input_required" => {
                (Some("InputRequiredResult"), frame["result"].clone())
            }
            (None, Some(id)) if frame.get("result").is_some() => (
                asked
                    .get(&id.to_string())
                    .and_then(|m| facts.request(m))
                    .and_then(|f| f.result),
                frame["result"].clone(),
            ),
            (None, _) => (Some(error_envelope), frame.clone()),
        };
        let Some(name) = name else {
            problems.push(format!("no definition at {v} for {frame}"));
            continue;
        };
        for check in [("JSONRPCMessage", frame), (name, &instance)] {
            match oracle.violations(check.0, check.1) {
                Ok(list) if list.is_empty() => {}
                Ok(list) => problems.push(format!(
                    "{} at {v}: {frame}: {}",
                    check.0,
                    list.iter()
                        .map(|x| format!("{}: {}", x.path, x.message))
                        .collect::<Vec<_>>()
                        .join("; ")
                )),
                Err(e) => problems.push(format!("{} at {v}: {e}", check.0)),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    frames.len()
}

/// The plan for server-everything: tools (progress, sampling, roots, cancel, elicitation where
/// the client has it), resources (read, subscribe, updates), prompts, completion, logging. A
/// 2026-07-28 client sets its level first: its logs are those of its requests (the roots
/// call logs what it received).
fn everything_plan(client: Client) -> Vec<Step> {
    let uri = "demo://resource/dynamic/text/1";
    let mut plan = vec![
        ("tools", json!({"op": "tools"})),
        // server-everything asks for roots 350 ms after `initialized`, outside any request;
        // a call in flight then would carry the question (Q2: a stdio upstream
        // cannot say which request a server request belongs to).
        ("settle", json!({"op": "wait", "ms": 600})),
        ("level", json!({"op": "level", "level": "debug"})),
        (
            "echo",
            json!({"op": "call", "name": "echo", "arguments": {"message": "hi"}}),
        ),
        (
            "sum",
            json!({"op": "call", "name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        ),
        (
            "progress",
            json!({"op": "call", "name": "trigger-long-running-operation",
                   "arguments": {"duration": 0.3, "steps": 3}, "progress": true}),
        ),
        (
            "sampling",
            json!({"op": "call", "name": "trigger-sampling-request",
                   "arguments": {"prompt": "a colour", "maxTokens": 10}}),
        ),
        ("roots", json!({"op": "call", "name": "get-roots-list"})),
        (
            "cancel",
            json!({"op": "call", "name": "trigger-long-running-operation",
                   "arguments": {"duration": 10, "steps": 10}, "cancelAfterMs": 300}),
        ),
        ("prompts", json!({"op": "prompts"})),
        ("prompt", json!({"op": "prompt", "name": "simple-prompt"})),
        (
            "complete",
            json!({"op": "complete", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
                   "argument": {"name": "department", "value": "E"}}),
        ),
        ("read", json!({"op": "read", "uri": uri})),
        ("subscribe", json!({"op": "subscribe", "uri": uri})),
        (
            "logging",
            json!({"op": "call", "name": "toggle-simulated-logging"}),
        ),
        (
            "updates",
            json!({"op": "call", "name": "toggle-subscriber-updates"}),
        ),
        ("wait", json!({"op": "wait", "ms": 300})),
    ];
    if client.modern() {
        // A 2026-07-28 client hears a log only while one of its requests is open. The log the
        // toggle sends at once races the toggle's answer over HTTP (they travel on different
        // streams of the server), so a request is held open across its next one (5 s pace).
        plan.push((
            "hold",
            json!({"op": "call", "name": "trigger-long-running-operation",
                   "arguments": {"duration": 6, "steps": 1}}),
        ));
    } else {
        plan.push(("ping", json!({"op": "ping"})));
    }
    if client.elicits() {
        plan.push((
            "elicitation",
            json!({"op": "call", "name": "trigger-elicitation-request"}),
        ));
    }
    if matches!(client, Client::Python(_)) {
        // The Python client declares URL elicitation too.
        plan.push((
            "url elicitation",
            json!({"op": "call", "name": "trigger-url-elicitation",
                   "arguments": {"url": "https://example.com/pair"}}),
        ));
        plan.push((
            "url elicitation error",
            json!({"op": "call", "name": "trigger-url-elicitation",
                   "arguments": {"url": "https://example.com/pair", "errorPath": true}}),
        ));
    }
    plan
}

/// What every server-everything pair must show.
fn assert_everything(run: &Run, client: Client) {
    let report = &run.report;
    assert_eq!(report["server"], "mcp-servers/everything", "{report}");
    let tools = run.step("tools").as_array().expect("a tool list");
    for name in [
        "echo",
        "get-sum",
        "trigger-sampling-request",
        "get-roots-list",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name}: {report}");
    }
    assert_eq!(run.step("level"), &json!({}), "{report}");
    assert_eq!(run.step("echo"), "Echo: hi", "{report}");
    assert_eq!(run.step("sum"), "The sum of 2 and 3 is 5.", "{report}");
    let progress = run.step("progress");
    assert!(
        progress["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Long running operation completed")),
        "{report}"
    );
    // SDK 1.9.0 may drop the last progress that arrives right before the answer (its
    // notification and response paths do not keep order); the taps show the bridge wrote
    // all three first (`progress_precedes_the_answer`).
    let seen = run.progress("progress");
    assert!(
        !seen.is_empty() && [1.0, 2.0, 3.0].starts_with(&seen),
        "{report}"
    );
    assert!(
        run.step("sampling")
            .as_str()
            .is_some_and(|t| t.contains("sampled")),
        "sampling crossed: {report}"
    );
    assert!(
        run.step("roots")
            .as_str()
            .is_some_and(|t| t.contains("file:///tmp/pair")),
        "roots crossed: {report}"
    );
    assert_eq!(run.step("cancel"), &json!({"cancelled": true}), "{report}");
    assert!(
        run.step("prompts")
            .as_array()
            .is_some_and(|p| p.iter().any(|n| n == "simple-prompt")),
        "{report}"
    );
    assert_eq!(
        run.step("prompt"),
        &json!(["This is a simple prompt without arguments."]),
        "{report}"
    );
    assert_eq!(run.step("complete"), &json!(["Engineering"]), "{report}");
    assert!(
        run.step("read")[0].as_str().is_some_and(|t| !t.is_empty()),
        "{report}"
    );
    // A legacy client's subscribe answers {}; a 2026-07-28 client's listen acknowledges the URI.
    let subscribed = if client.modern() {
        json!(["demo://resource/dynamic/text/1"])
    } else {
        json!({})
    };
    assert_eq!(run.step("subscribe"), &subscribed, "{report}");
    assert!(
        run.seen("logs").as_u64().is_some_and(|n| n >= 1),
        "logs crossed: {report}"
    );
    assert!(
        run.seen("updated")
            .as_array()
            .is_some_and(|u| u.iter().any(|x| x == "demo://resource/dynamic/text/1")),
        "updates crossed: {report}"
    );
    if client.modern() {
        assert!(
            run.step("hold")
                .as_str()
                .is_some_and(|t| t.starts_with("Long running operation completed")),
            "{report}"
        );
    } else {
        assert_eq!(run.step("ping"), &json!({}), "{report}");
    }
    if matches!(client, Client::Python(_)) {
        // The request path, and the error path (-32042: B11 makes it a round of URL
        // elicitations for a 2026-07-28 client, whose retry reaches the request path).
        for step in ["url elicitation", "url elicitation error"] {
            assert!(
                run.step(step)
                    .as_str()
                    .is_some_and(|t| t.contains("completed the URL elicitation flow")),
                "{step}: {report}"
            );
        }
    }
    if client.elicits() {
        assert!(
            run.step("elicitation")
                .as_str()
                .is_some_and(|t| t.contains("Ada")),
            "elicitation crossed: {report}"
        );
    }
    if client == Client::TsV2 {
        // Its answer's fraction crossed as a number (schema.ts: `number`; the upstream is at a
        // handshake revision whose schema.json renders `integer`).
        assert!(
            run.step("elicitation")
                .as_str()
                .is_some_and(|t| t.contains("- Favorite Number: 3.14")),
            "a fractional answer crossed: {report}"
        );
    }
}

/// The plan for the TS v2 server (2026-07-28 only), through direction A.
fn v2_plan(client: Client) -> Vec<Step> {
    let mut plan = vec![
        ("tools", json!({"op": "tools"})),
        (
            "echo",
            json!({"op": "call", "name": "echo", "arguments": {"message": "hi"}}),
        ),
        (
            "add",
            json!({"op": "call", "name": "add", "arguments": {"a": 2, "b": 40}}),
        ),
        (
            "progress",
            json!({"op": "call", "name": "progress", "progress": true}),
        ),
        ("sampling", json!({"op": "call", "name": "sample"})),
        ("roots", json!({"op": "call", "name": "roots"})),
        (
            "cancel",
            json!({"op": "call", "name": "slow", "cancelAfterMs": 300}),
        ),
        ("prompts", json!({"op": "prompts"})),
        ("prompt", json!({"op": "prompt", "name": "greeting"})),
        (
            "complete",
            json!({"op": "complete", "ref": {"type": "ref/prompt", "name": "pick"},
                   "argument": {"name": "colour", "value": "g"}}),
        ),
        ("read", json!({"op": "read", "uri": "pair://note"})),
        (
            "subscribe",
            json!({"op": "subscribe", "uri": "pair://note"}),
        ),
        ("quiet", json!({"op": "call", "name": "log"})),
        ("level", json!({"op": "level", "level": "info"})),
        ("logging", json!({"op": "call", "name": "log"})),
        ("touch", json!({"op": "call", "name": "touch"})),
        ("wait", json!({"op": "wait", "ms": 300})),
        ("ping", json!({"op": "ping"})),
    ];
    if client.elicits() {
        plan.push(("elicitation", json!({"op": "call", "name": "ask"})));
    }
    plan
}

/// What every TS v2 server pair must show.
fn assert_v2(run: &Run, client: Client) {
    let report = &run.report;
    assert_eq!(report["server"], "ts-v2-pair", "{report}");
    assert_eq!(
        run.step("tools"),
        &json!([
            "add", "ask", "echo", "log", "progress", "roots", "sample", "slow", "touch"
        ]),
        "{report}"
    );
    assert_eq!(run.step("echo"), "echo: hi", "{report}");
    assert_eq!(run.step("add"), "42", "{report}");
    let progress = run.step("progress");
    assert_eq!(progress["text"], "progress done", "{report}");
    let seen = run.progress("progress");
    assert!(
        !seen.is_empty() && [1.0, 2.0, 3.0].starts_with(&seen),
        "{report}"
    );
    assert_eq!(run.step("sampling"), "sampled: sampled", "{report}");
    assert_eq!(run.step("roots"), "roots: file:///tmp/pair", "{report}");
    assert_eq!(run.step("cancel"), &json!({"cancelled": true}), "{report}");
    assert_eq!(
        run.step("prompts"),
        &json!(["greeting", "grüße", "pick"]),
        "{report}"
    );
    assert_eq!(run.step("prompt"), &json!(["hello from v2"]), "{report}");
    assert_eq!(run.step("complete"), &json!(["green"]), "{report}");
    assert_eq!(run.step("read"), &json!(["a note from v2"]), "{report}");
    assert_eq!(run.step("subscribe"), &json!({}), "{report}");
    assert_eq!(run.step("quiet"), "logged", "{report}");
    assert_eq!(run.step("level"), &json!({}), "{report}");
    assert_eq!(run.step("logging"), "logged", "{report}");
    // Nothing before the level was set; at `info`, the info line and not the debug one.
    assert_eq!(run.seen("logs"), 1, "logs crossed: {report}");
    assert_eq!(run.step("touch"), "touched", "{report}");
    assert!(
        run.seen("updated")
            .as_array()
            .is_some_and(|u| u.iter().any(|x| x == "pair://note")),
        "updates crossed: {report}"
    );
    assert_eq!(run.step("ping"), &json!({}), "{report}");
    if client.elicits() {
        assert_eq!(run.step("elicitation"), "hello, Ada", "{report}");
    }
    // Every upstream request was stamped for the stateless era.
    for frame in run.written("server") {
        if frame.get("id").is_some() && frame.get("method").is_some() {
            assert_eq!(
                frame["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
                "{frame}"
            );
        }
    }
}

/// Every progress of the long call, in order, before its answer (the client's token).
fn progress_precedes_the_answer(run: &Run, answer_starts: &str) {
    let to_client = run.written("client");
    let answer = to_client
        .iter()
        .position(|f| {
            f["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with(answer_starts))
        })
        .expect("the long call's answer");
    let progress: Vec<&Value> = to_client[..answer]
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .map(|f| &f["params"]["progress"])
        .collect();
    assert_eq!(progress, [&json!(1), &json!(2), &json!(3)]);
}

/// One server-everything pair, run and judged.
async fn everything_pair(name: &str, client: Client, wire: Wire, options: BridgeOptions) -> Run {
    let run = run(
        name,
        (client, Server::Everything, wire),
        options,
        &everything_plan(client),
    )
    .await;
    assert_everything(&run, client);
    progress_precedes_the_answer(&run, "Long running operation completed");
    run.assert_cancel_crossed();
    run.validate(20);
    run
}

/// One TS v2 server pair, run and judged.
async fn v2_pair(name: &str, client: Client, wire: Wire) -> Run {
    let run = run(
        name,
        (client, Server::V2, wire),
        BridgeOptions::default(),
        &v2_plan(client),
    )
    .await;
    assert_v2(&run, client);
    progress_precedes_the_answer(&run, "progress done");
    run.assert_cancel_crossed();
    run.validate(15);
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_9_0_client_at_2024_11_05_uses_server_everything_over_stdio_both_sides() {
    let run = everything_pair(
        "1.9-everything-stdio",
        SDK_1_9,
        Wire::Stdio,
        BridgeOptions::default(),
    )
    .await;
    assert_eq!(
        run.written("client")[0]["result"]["protocolVersion"],
        "2024-11-05"
    );
    assert_eq!(run.upstream, ProtocolVersion::V2025_11_25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_9_0_client_over_http_sse_uses_a_ts_v2_server_pinned_to_2026_07_28() {
    let run = v2_pair("1.9-v2-sse", SDK_1_9, Wire::Sse).await;
    assert_eq!(
        run.written("client")[0]["result"]["protocolVersion"],
        "2024-11-05"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_at_2025_11_25_uses_server_everything_at_2025_06_18_over_http_both_sides() {
    let run = everything_pair(
        "1.32-everything-http",
        SDK_1_32,
        Wire::Http,
        BridgeOptions::default().server_revisions(vec![ProtocolVersion::V2025_06_18]),
    )
    .await;
    assert_eq!(run.report["protocolVersion"], "2025-11-25");
    assert_eq!(run.upstream, ProtocolVersion::V2025_06_18);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_stdio_both_sides() {
    let run = v2_pair("1.32-v2-stdio", SDK_1_32, Wire::Stdio).await;
    assert_eq!(run.report["protocolVersion"], "2025-11-25");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_http_both_sides() {
    let run = v2_pair("1.32-v2-http", SDK_1_32, Wire::Http).await;
    assert_eq!(run.report["protocolVersion"], "2025-11-25");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_bridge_a_2025_11_25_client_cannot_use_the_ts_v2_server() {
    // The baseline: the same client straight at the server fails.
    let (_server, url) = spawn_printing_url(peers().node_command(v2_script())).await;
    let mut direct = client_command(SDK_1_32, vec!["streamable".into(), url]);
    direct.env("PLAN", json!([{"op": "tools"}]).to_string());
    let mut direct = tokio::process::Command::from(direct);
    direct.kill_on_drop(true);
    let direct = tokio::time::timeout(RUN, direct.output())
        .await
        .expect("the direct client ends")
        .expect("the client runs");
    assert!(
        !direct.status.success(),
        "a 2025-11-25 client reached a 2026-07-28-only server without the bridge"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_v2_client_pinned_to_2026_07_28_uses_server_everything_over_stdio_both_sides() {
    let run = everything_pair(
        "v2-everything-stdio",
        Client::TsV2,
        Wire::Stdio,
        BridgeOptions::default(),
    )
    .await;
    assert_eq!(run.report["protocolVersion"], "2026-07-28");
    assert_eq!(run.report["era"], "modern");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_v2_client_pinned_to_2026_07_28_uses_server_everything_over_http_both_sides() {
    let run = everything_pair(
        "v2-everything-http",
        Client::TsV2,
        Wire::Http,
        BridgeOptions::default(),
    )
    .await;
    assert_eq!(run.report["protocolVersion"], "2026-07-28");
    assert_eq!(run.report["era"], "modern");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_legacy_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_stdio_both_sides() {
    let run = v2_pair("py-legacy-v2-stdio", Client::Python("legacy"), Wire::Stdio).await;
    assert_eq!(run.report["protocolVersion"], "2025-11-25");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_legacy_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_http_both_sides() {
    let run = v2_pair("py-legacy-v2-http", Client::Python("legacy"), Wire::Http).await;
    assert_eq!(run.report["protocolVersion"], "2025-11-25");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_2026_07_28_client_uses_server_everything_over_stdio_both_sides() {
    let run = everything_pair(
        "py-modern-everything-stdio",
        Client::Python("2026-07-28"),
        Wire::Stdio,
        BridgeOptions::default(),
    )
    .await;
    assert_eq!(run.report["protocolVersion"], "2026-07-28");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_2026_07_28_client_uses_server_everything_over_http_both_sides() {
    let run = everything_pair(
        "py-modern-everything-http",
        Client::Python("2026-07-28"),
        Wire::Http,
        BridgeOptions::default(),
    )
    .await;
    assert_eq!(run.report["protocolVersion"], "2026-07-28");
}
