//! Real SDK pairs through the bridge (issue 19's judges): a real client of one revision, the
//! bridge, a real server of another, each run over stdio on both sides and over HTTP on both
//! sides. The client is the TypeScript SDK v1 (`tests/peers/ts-plan-client.mjs`, 1.32.2 or
//! 1.9.0), the server `@modelcontextprotocol/server-everything` (legacy, SDK v1) or the
//! TypeScript SDK v2 server pinned to 2026-07-28 (`tests/peers/ts-v2-server.mjs`).
//!
//! On stdio, both of the bridge's sides are tapped (the client reaches the in-process bridge
//! through a small Node relay that logs each direction; the server's stdin and stdout are
//! `tee`d), and every frame the bridge wrote is validated against the pinned schema of the
//! revision of the side it went to: requests and notifications against their definitions,
//! results against the result type of the request they answer, errors against the error
//! envelope. Loopback only; every run is bounded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcp_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_schemas::{SchemaOracle, SchemaStore};
use mcp_types::ProtocolVersion;
use mcp_wire_tests::peers::peers;
use serde_json::{Value, json};

const RUN: Duration = Duration::from_secs(90);

/// A scratch directory for one test's taps.
fn taps(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-pairs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn everything() -> PathBuf {
    peers()
        .package("@modelcontextprotocol/server-everything")
        .join("dist/index.js")
}

/// server-everything over stdio, its stdin and stdout logged to `dir`.
fn everything_stdio_tapped(dir: &Path) -> UpstreamTarget {
    let script = format!(
        "tee -a '{0}/to-server.jsonl' | '{1}' '{2}' stdio | tee -a '{0}/from-server.jsonl'",
        dir.display(),
        peers().node().display(),
        everything().display()
    );
    UpstreamTarget::Command(["sh", "-c", &script].map(Into::into).to_vec())
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

/// The plan client's command over stdio through the relay (taps in `dir`).
fn client_stdio(sdk: &str, port: u16, dir: &Path) -> std::process::Command {
    let mut command = peers().script("ts-plan-client.mjs").unwrap();
    command
        .arg(sdk)
        .arg("stdio")
        .arg(peers().node())
        .args(["-e", RELAY, &port.to_string()])
        .arg(dir.join("from-client.jsonl"))
        .arg(dir.join("to-client.jsonl"));
    command
}

fn client_http(sdk: &str, url: &str) -> std::process::Command {
    let mut command = peers().script("ts-plan-client.mjs").unwrap();
    command.arg(sdk).arg("streamable").arg(url);
    command
}

async fn observe(mut command: std::process::Command, plan: &Value) -> Value {
    command.env("PLAN", plan.to_string());
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(RUN, command.output())
        .await
        .unwrap_or_else(|_| panic!("{command:?} did not finish within {RUN:?}"))
        .expect("the client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client failed ({}):\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("the client printed no JSON ({e}):\n{stderr}"))
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
    let facts = mcp_types::facts::revision(v);
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

/// The plan for server-everything: tools (progress, cancel, sampling, roots, elicitation where
/// the client has it), resources (read, subscribe, updates), prompts, completion, logging.
fn everything_plan(elicitation: bool) -> Value {
    let uri = "demo://resource/dynamic/text/1";
    let mut plan = vec![
        json!({"op": "tools"}),
        json!({"op": "call", "name": "echo", "arguments": {"message": "hi"}}),
        json!({"op": "call", "name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        json!({"op": "call", "name": "trigger-long-running-operation",
               "arguments": {"duration": 0.3, "steps": 3}, "progress": true}),
        json!({"op": "call", "name": "trigger-sampling-request",
               "arguments": {"prompt": "a colour", "maxTokens": 10}}),
        json!({"op": "call", "name": "get-roots-list"}),
        json!({"op": "call", "name": "trigger-long-running-operation",
               "arguments": {"duration": 10, "steps": 10}, "cancelAfterMs": 300}),
        json!({"op": "ping"}),
        json!({"op": "prompts"}),
        json!({"op": "prompt", "name": "simple-prompt"}),
        json!({"op": "complete", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
               "argument": {"name": "department", "value": "E"}}),
        json!({"op": "read", "uri": uri}),
        json!({"op": "subscribe", "uri": uri}),
        json!({"op": "level", "level": "debug"}),
        json!({"op": "call", "name": "toggle-simulated-logging"}),
        json!({"op": "call", "name": "toggle-subscriber-updates"}),
        json!({"op": "wait", "ms": 300}),
    ];
    if elicitation {
        plan.push(json!({"op": "call", "name": "trigger-elicitation-request"}));
    }
    Value::Array(plan)
}

/// What every server-everything run must show.
fn assert_everything(report: &Value, elicitation: bool) {
    let steps = report["steps"].as_array().expect("steps");
    let tools = steps[0].as_array().expect("a tool list");
    for name in [
        "echo",
        "get-sum",
        "trigger-sampling-request",
        "get-roots-list",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name}: {report}");
    }
    assert_eq!(steps[1], "Echo: hi", "{report}");
    assert_eq!(steps[2], "The sum of 2 and 3 is 5.", "{report}");
    // SDK 1.9.0 may drop the last progress that arrives right before the answer (its
    // notification and response paths do not keep order); the stdio taps check the bridge
    // wrote all three first.
    let progress = steps[3]["progress"].as_array().cloned().unwrap_or_default();
    assert!(
        !progress.is_empty() && [json!(1), json!(2), json!(3)].starts_with(&progress),
        "{report}"
    );
    assert!(
        steps[4].as_str().is_some_and(|t| t.contains("sampled")),
        "sampling crossed: {report}"
    );
    assert!(
        steps[5]
            .as_str()
            .is_some_and(|t| t.contains("file:///tmp/pair")),
        "roots crossed: {report}"
    );
    assert!(
        steps[6]["error"]
            .as_str()
            .is_some_and(|e| e.contains("pair cancels")),
        "cancelled: {report}"
    );
    assert_eq!(steps[7], json!({}), "{report}");
    assert!(
        steps[8]
            .as_array()
            .is_some_and(|p| p.iter().any(|n| n == "simple-prompt")),
        "{report}"
    );
    assert_eq!(
        steps[9],
        json!(["This is a simple prompt without arguments."]),
        "{report}"
    );
    assert_eq!(steps[10], json!(["Engineering"]), "{report}");
    assert!(
        steps[11][0].as_str().is_some_and(|t| !t.is_empty()),
        "{report}"
    );
    assert_eq!(steps[12], json!({}), "{report}");
    assert_eq!(steps[13], json!({}), "{report}");
    assert!(
        report["seen"]["logs"].as_u64().is_some_and(|n| n >= 1),
        "logs crossed: {report}"
    );
    assert!(
        report["seen"]["updated"]
            .as_array()
            .is_some_and(|u| u.iter().any(|x| x == "demo://resource/dynamic/text/1")),
        "updates crossed: {report}"
    );
    if elicitation {
        let last = steps.last().and_then(Value::as_str).unwrap_or_default();
        assert!(last.contains("Ada"), "elicitation crossed: {report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_9_0_client_at_2024_11_05_uses_server_everything_over_stdio_both_sides() {
    let dir = taps("everything-stdio");
    let bridge = Arc::new(
        Bridge::connect(&everything_stdio_tapped(&dir), BridgeOptions::default())
            .await
            .expect("the bridge connects"),
    );
    let upstream = bridge.snapshot().revision;
    assert_eq!(upstream, ProtocolVersion::V2025_11_25);
    let (port, serving) = serve_lines(bridge.clone()).await;
    let report = observe(
        client_stdio("mcp-sdk-2024-11-05", port, &dir),
        &everything_plan(false),
    )
    .await;
    assert_eq!(report["server"], "mcp-servers/everything", "{report}");
    assert_everything(&report, false);
    serving.abort();
    let to_client = lines(&dir.join("to-client.jsonl"));
    assert_eq!(to_client[0]["result"]["protocolVersion"], "2024-11-05");
    // Every progress of the long call, in order, before its answer (the client's token).
    let answer = to_client
        .iter()
        .position(|f| {
            f["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Long running operation completed"))
        })
        .expect("the long call's answer");
    let progress: Vec<&Value> = to_client[..answer]
        .iter()
        .filter(|f| f["method"] == "notifications/progress")
        .map(|f| &f["params"]["progress"])
        .collect();
    assert_eq!(progress, [&json!(1), &json!(2), &json!(3)]);
    bridge.shutdown(Duration::from_secs(6)).await;
    let down = validate(
        &dir.join("to-client.jsonl"),
        &dir.join("from-client.jsonl"),
        ProtocolVersion::V2024_11_05,
    );
    let up = validate(
        &dir.join("to-server.jsonl"),
        &dir.join("from-server.jsonl"),
        upstream,
    );
    assert!(
        down > 20 && up > 20,
        "{down} frames to the client, {up} to the server"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_at_2025_11_25_uses_server_everything_at_2025_06_18_over_http_both_sides() {
    // server-everything's Streamable HTTP mode on a free port (it binds every interface; the
    // bridge reaches it on loopback).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = tokio::process::Command::from(peers().node_command(everything()));
    server
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut server = server.spawn().expect("server-everything starts");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let bridge = {
        let deadline = tokio::time::Instant::now() + RUN;
        loop {
            match Bridge::connect(
                &UpstreamTarget::Url(url.clone()),
                BridgeOptions::default().server_revisions(vec![ProtocolVersion::V2025_06_18]),
            )
            .await
            {
                Ok(b) => break Arc::new(b),
                Err(e) => {
                    assert!(tokio::time::Instant::now() < deadline, "{e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    };
    assert_eq!(bridge.snapshot().revision, ProtocolVersion::V2025_06_18);
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front_url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.serve_http(front, "/mcp").await })
    };
    let report = observe(
        client_http("@modelcontextprotocol/sdk", &front_url),
        &everything_plan(true),
    )
    .await;
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_everything(&report, true);
    serving.abort();
    let _ = server.kill().await;
}

/// The TS v2 pair server's command (`tests/peers/ts-v2-pair-server.mjs`) and its path.
fn v2_server() -> (std::process::Command, PathBuf) {
    let command = peers().script("ts-v2-pair-server.mjs").unwrap();
    let script = command
        .get_args()
        .next()
        .map(PathBuf::from)
        .expect("the script's path");
    (command, script)
}

/// The plan for the TS v2 server: what it offers, through direction A.
fn v2_plan() -> Value {
    json!([
        {"op": "tools"},
        {"op": "call", "name": "echo", "arguments": {"message": "hi"}},
        {"op": "call", "name": "add", "arguments": {"a": 2, "b": 40}},
        {"op": "prompts"},
        {"op": "prompt", "name": "greeting"},
        {"op": "read", "uri": "pair://note"},
        {"op": "ping"},
    ])
}

fn assert_v2(report: &Value) {
    assert_eq!(report["server"], "ts-v2-pair", "{report}");
    let steps = &report["steps"];
    assert_eq!(steps[0], json!(["add", "echo"]), "{report}");
    assert_eq!(steps[1], "echo: hi", "{report}");
    assert_eq!(steps[2], "42", "{report}");
    assert_eq!(steps[3], json!(["greeting"]), "{report}");
    assert_eq!(steps[4], json!(["hello from v2"]), "{report}");
    assert_eq!(steps[5], json!(["a note from v2"]), "{report}");
    assert_eq!(steps[6], json!({}), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_stdio_both_sides() {
    let dir = taps("v2-stdio");
    let (_, script) = v2_server();
    let upstream = format!(
        "tee -a '{0}/to-server.jsonl' | '{1}' '{2}' stdio | tee -a '{0}/from-server.jsonl'",
        dir.display(),
        peers().node().display(),
        script.display()
    );
    let bridge = Arc::new(
        Bridge::connect(
            &UpstreamTarget::Command(["sh", "-c", &upstream].map(Into::into).to_vec()),
            BridgeOptions::default(),
        )
        .await
        .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().revision, ProtocolVersion::V2026_07_28);
    let (port, serving) = serve_lines(bridge.clone()).await;
    let report = observe(
        client_stdio("@modelcontextprotocol/sdk", port, &dir),
        &v2_plan(),
    )
    .await;
    assert_v2(&report);
    serving.abort();
    bridge.shutdown(Duration::from_secs(6)).await;
    let to_client = lines(&dir.join("to-client.jsonl"));
    assert_eq!(to_client[0]["result"]["protocolVersion"], "2025-11-25");
    let down = validate(
        &dir.join("to-client.jsonl"),
        &dir.join("from-client.jsonl"),
        ProtocolVersion::V2025_11_25,
    );
    let up = validate(
        &dir.join("to-server.jsonl"),
        &dir.join("from-server.jsonl"),
        ProtocolVersion::V2026_07_28,
    );
    // Every upstream request was stamped for the stateless era.
    for frame in lines(&dir.join("to-server.jsonl")) {
        if frame.get("id").is_some() && frame.get("method").is_some() {
            assert_eq!(
                frame["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
                "{frame}"
            );
        }
    }
    assert!(
        down >= 8 && up >= 7,
        "{down} frames to the client, {up} to the server"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_1_32_client_uses_a_ts_v2_server_pinned_to_2026_07_28_over_http_both_sides() {
    let (command, _) = v2_server();
    let mut server = tokio::process::Command::from(command);
    server
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut server = server.spawn().expect("the v2 server starts");
    let mut out = tokio::io::BufReader::new(server.stdout.take().unwrap());
    let mut url = String::new();
    tokio::time::timeout(
        RUN,
        tokio::io::AsyncBufReadExt::read_line(&mut out, &mut url),
    )
    .await
    .expect("the server prints its URL")
    .unwrap();
    let bridge = Arc::new(
        Bridge::connect(
            &UpstreamTarget::Url(url.trim().to_owned()),
            BridgeOptions::default(),
        )
        .await
        .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().revision, ProtocolVersion::V2026_07_28);
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front_url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.serve_http(front, "/mcp").await })
    };
    let report = observe(
        client_http("@modelcontextprotocol/sdk", &front_url),
        &v2_plan(),
    )
    .await;
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_v2(&report);
    // The baseline: the same client straight at the server fails (reference §5.2).
    let mut direct =
        tokio::process::Command::from(client_http("@modelcontextprotocol/sdk", url.trim()));
    direct.env("PLAN", v2_plan().to_string()).kill_on_drop(true);
    let direct = tokio::time::timeout(RUN, direct.output())
        .await
        .expect("the direct client ends")
        .expect("the client runs");
    assert!(
        !direct.status.success(),
        "a 2025-11-25 client reached a 2026-07-28-only server without the bridge"
    );
    serving.abort();
    let _ = server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_v2_client_pinned_to_2026_07_28_uses_server_everything_over_stdio_both_sides() {
    // Direction B: the client speaks 2026-07-28 only, server-everything a handshake revision.
    let dir = taps("b-stdio");
    let bridge = Arc::new(
        Bridge::connect(&everything_stdio_tapped(&dir), BridgeOptions::default())
            .await
            .expect("the bridge connects"),
    );
    let upstream = bridge.snapshot().revision;
    assert_ne!(upstream, ProtocolVersion::V2026_07_28);
    let (port, serving) = serve_lines(bridge.clone()).await;
    let mut command = peers().script("ts-v2-plan-client.mjs").unwrap();
    command
        .arg("stdio")
        .arg(peers().node())
        .args(["-e", RELAY, &port.to_string()])
        .arg(dir.join("from-client.jsonl"))
        .arg(dir.join("to-client.jsonl"));
    let plan = json!([
        {"op": "tools"},
        {"op": "call", "name": "echo", "arguments": {"message": "hi"}},
        {"op": "call", "name": "get-sum", "arguments": {"a": 2, "b": 3}},
        {"op": "call", "name": "trigger-long-running-operation",
         "arguments": {"duration": 0.3, "steps": 3}, "progress": true},
        {"op": "prompts"},
        {"op": "prompt", "name": "simple-prompt"},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
         "argument": {"name": "department", "value": "E"}},
        {"op": "read", "uri": "demo://resource/dynamic/text/1"},
    ]);
    let report = observe(command, &plan).await;
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    assert_eq!(report["era"], "modern", "{report}");
    let steps = &report["steps"];
    assert!(
        steps[0]
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == "echo")),
        "{report}"
    );
    assert_eq!(steps[1], "Echo: hi", "{report}");
    assert_eq!(steps[2], "The sum of 2 and 3 is 5.", "{report}");
    assert!(
        steps[3]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Long running operation completed")),
        "{report}"
    );
    assert!(
        steps[4]
            .as_array()
            .is_some_and(|p| p.iter().any(|n| n == "simple-prompt")),
        "{report}"
    );
    assert_eq!(
        steps[5],
        json!(["This is a simple prompt without arguments."]),
        "{report}"
    );
    assert_eq!(steps[6], json!(["Engineering"]), "{report}");
    assert!(
        steps[7][0].as_str().is_some_and(|t| !t.is_empty()),
        "{report}"
    );
    serving.abort();
    bridge.shutdown(Duration::from_secs(6)).await;
    let down = validate(
        &dir.join("to-client.jsonl"),
        &dir.join("from-client.jsonl"),
        ProtocolVersion::V2026_07_28,
    );
    let up = validate(
        &dir.join("to-server.jsonl"),
        &dir.join("from-server.jsonl"),
        upstream,
    );
    assert!(
        down >= 8 && up >= 8,
        "{down} frames to the client, {up} to the server"
    );
    std::fs::remove_dir_all(&dir).ok();
}
