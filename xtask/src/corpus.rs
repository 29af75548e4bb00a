//! `cargo xtask corpus`: record real sessions between the pinned peers (`tests/peers/`) into
//! `target/corpus/*.jsonl`, in the capture format of the shared corpus (one
//! `{"dir":"c2s"|"s2c","frame":…}` record per line, each frame as the peer wrote it).
//!
//! Every session runs over stdio with `tests/peers/stdio-tap.mjs` in front of the server, which
//! records both directions in order. The SDK pairs that meet directly give each SDK's own
//! traffic at its newest revision (TypeScript SDK 1.32 and 1.9 clients and the Python SDK in
//! front of `server-everything`; the TypeScript SDK v2 and Python clients in front of the TS v2
//! server at 2026-07-28). The other revisions come through the project's bridge
//! (`mcp-frames bridge`, built here): a real client held to one revision in front, a real server
//! held to another behind, both legs recorded (the front leg has the client's own frames, the
//! back leg the server's). Each file is named for its session and the revision that session
//! negotiated, read from the recording (`<session>-<revision>.jsonl`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mcp_wire::ProtocolVersion;
use mcp_wire_tests::peers::{Peers, kill_marked};
use serde_json::{Value, json};

/// Where to write the sessions.
#[derive(clap::Args)]
pub struct Args {
    /// The output directory (default: `target/corpus`).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The bound on one session's run.
const RUN: Duration = Duration::from_secs(120);

/// The environment variable every process of one session inherits, so the session's processes
/// can be found and ended by pid when it is over (a server may outlive its client).
const MARK: &str = "MCP_WIRE_CORPUS_SESSION";

/// A real client.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Client {
    /// `ts-plan-client.mjs` with this SDK package (1.32.x or the 1.9.0 alias).
    TsV1(&'static str),
    /// `ts-v2-plan-client.mjs`, pinned to 2026-07-28.
    TsV2,
    /// `py-plan-client.py` in this mode (`legacy` or `2026-07-28`).
    Python(&'static str),
}

/// A real server.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Server {
    /// `@modelcontextprotocol/server-everything` (TypeScript SDK v1, handshake revisions).
    Everything,
    /// `ts-v2-server.mjs` (TypeScript SDK v2, 2026-07-28 only).
    V2,
}

/// One recorded session: who talks to whom, and through the bridge at which revisions
/// (client side, server side).
struct Session {
    name: &'static str,
    client: Client,
    server: Server,
    bridge: Option<(ProtocolVersion, ProtocolVersion)>,
}

const SDK_1_32: Client = Client::TsV1("@modelcontextprotocol/sdk");
const SDK_1_9: Client = Client::TsV1("mcp-sdk-2024-11-05");

fn sessions() -> Vec<Session> {
    use ProtocolVersion::*;
    let direct = |name, client, server| Session {
        name,
        client,
        server,
        bridge: None,
    };
    let bridged = |name, client, server, front, back| Session {
        name,
        client,
        server,
        bridge: Some((front, back)),
    };
    vec![
        direct("ts1-everything", SDK_1_32, Server::Everything),
        direct("ts1.9-everything", SDK_1_9, Server::Everything),
        direct(
            "py-everything",
            Client::Python("legacy"),
            Server::Everything,
        ),
        direct("tsv2-tsv2", Client::TsV2, Server::V2),
        direct("py-tsv2", Client::Python("2026-07-28"), Server::V2),
        bridged(
            "ts1-bridge-everything",
            SDK_1_32,
            Server::Everything,
            V2025_03_26,
            V2025_06_18,
        ),
        bridged(
            "ts1-bridge-everything",
            SDK_1_32,
            Server::Everything,
            V2025_06_18,
            V2025_03_26,
        ),
        bridged(
            "py-bridge-everything",
            Client::Python("legacy"),
            Server::Everything,
            V2025_06_18,
            V2024_11_05,
        ),
        bridged(
            "tsv2-bridge-everything",
            Client::TsV2,
            Server::Everything,
            V2026_07_28,
            V2025_11_25,
        ),
        bridged(
            "ts1-bridge-tsv2",
            SDK_1_32,
            Server::V2,
            V2025_11_25,
            V2026_07_28,
        ),
    ]
}

/// The plan a client runs against `server`: every kind of traffic the server has (lists with
/// their schemas, calls with text, images, links, embedded resources and structured content,
/// progress, cancellation, sampling, roots, elicitation, completion, logging, subscriptions).
fn plan(client: Client, server: Server) -> Value {
    let modern = matches!(client, Client::TsV2 | Client::Python("2026-07-28"));
    let call =
        |name: &str, arguments: Value| json!({"op": "call", "name": name, "arguments": arguments});
    let mut plan = match server {
        Server::Everything => {
            let uri = "demo://resource/dynamic/text/1";
            vec![
                json!({"op": "tools"}),
                json!({"op": "resources"}),
                json!({"op": "templates"}),
                json!({"op": "prompts"}),
                json!({"op": "wait", "ms": 600}),
                json!({"op": "level", "level": "debug"}),
                call("echo", json!({"message": "hi"})),
                call("get-sum", json!({"a": 2, "b": 3})),
                call("get-tiny-image", json!({})),
                call("get-resource-links", json!({"count": 5})),
                call("get-resource-reference", json!({"resourceId": 2})),
                call("get-structured-content", json!({"location": "Chicago"})),
                call(
                    "get-annotated-message",
                    json!({"messageType": "success", "includeImage": true}),
                ),
                json!({"op": "call", "name": "trigger-long-running-operation",
                       "arguments": {"duration": 0.3, "steps": 3}, "progress": true}),
                call(
                    "trigger-sampling-request",
                    json!({"prompt": "a colour", "maxTokens": 10}),
                ),
                call("get-roots-list", json!({})),
                json!({"op": "call", "name": "trigger-long-running-operation",
                       "arguments": {"duration": 10, "steps": 10}, "cancelAfterMs": 300}),
                json!({"op": "prompt", "name": "simple-prompt"}),
                json!({"op": "prompt", "name": "args-prompt",
                       "arguments": {"city": "Bergen", "state": "Vestland"}}),
                json!({"op": "prompt", "name": "resource-prompt", "arguments": {"resourceType": "Text", "resourceId": "1"}}),
                json!({"op": "complete", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
                       "argument": {"name": "department", "value": "E"}}),
                json!({"op": "read", "uri": uri}),
                json!({"op": "read", "uri": "demo://resource/static/document/architecture.md"}),
                json!({"op": "subscribe", "uri": uri}),
                call("toggle-simulated-logging", json!({})),
                call("toggle-subscriber-updates", json!({})),
                json!({"op": "wait", "ms": 300}),
                json!({"op": "tools"}),
            ]
        }
        Server::V2 => vec![
            json!({"op": "tools"}),
            json!({"op": "resources"}),
            json!({"op": "prompts"}),
            call("echo", json!({"message": "hi"})),
            call("add", json!({"a": 2, "b": 40})),
            json!({"op": "call", "name": "progress", "progress": true}),
            call("sample", json!({})),
            call("roots", json!({})),
            json!({"op": "call", "name": "slow", "cancelAfterMs": 300}),
            json!({"op": "prompt", "name": "greeting"}),
            json!({"op": "complete", "ref": {"type": "ref/prompt", "name": "pick"},
                   "argument": {"name": "colour", "value": "g"}}),
            json!({"op": "read", "uri": "pair://note"}),
            json!({"op": "subscribe", "uri": "pair://note"}),
            json!({"op": "level", "level": "debug"}),
            call("log", json!({})),
            call("touch", json!({})),
            json!({"op": "wait", "ms": 300}),
            json!({"op": "tools"}),
        ],
    };
    if !modern {
        plan.push(json!({"op": "ping"}));
    }
    if client != SDK_1_9 {
        let ask = match server {
            Server::Everything => "trigger-elicitation-request",
            Server::V2 => "ask",
        };
        plan.push(call(ask, json!({})));
    }
    Value::Array(plan)
}

/// Records every session into the output directory (emptied first).
pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let target = mcp_wire_tests::peers::target_dir();
    let out = args.out.unwrap_or_else(|| target.join("corpus"));
    let out = std::path::absolute(&out).unwrap_or(out);
    let peers = mcp_wire_tests::peers::install(&target).context("installing the peers")?;
    let bridge = build_bridge(&root, &target)?;
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("emptying {}", out.display()))?;
    }
    std::fs::create_dir_all(&out)?;
    let scratch = out.join("recording");
    std::fs::create_dir_all(&scratch)?;
    for session in sessions() {
        let started = Instant::now();
        let legs = record(&peers, &bridge, &session, &scratch)?;
        for (leg, path) in legs {
            let (revision, frames) = negotiated(&path)?;
            let name = format!("{}{leg}-{revision}.jsonl", session.name);
            std::fs::rename(&path, out.join(&name))?;
            eprintln!(
                "xtask: {name}: {frames} frames ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }
    std::fs::remove_dir_all(&scratch)?;
    eprintln!("xtask: sessions recorded in {}", out.display());
    Ok(())
}

/// `mcp-frames` with the bridge, built for the bridged sessions.
fn build_bridge(root: &Path, target: &Path) -> anyhow::Result<PathBuf> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args([
            "build",
            "-p",
            "mcp-wire-frames",
            "--features",
            "bridge",
            "--bin",
            "mcp-frames",
        ])
        .status()
        .context("building mcp-frames with the bridge")?;
    if !status.success() {
        bail!("building mcp-frames with the bridge failed ({status})");
    }
    Ok(target.join("debug").join("mcp-frames"))
}

/// Runs one session, its recordings in `scratch`; each leg's suffix (empty for a direct pair)
/// and file.
fn record(
    peers: &Peers,
    bridge: &Path,
    session: &Session,
    scratch: &Path,
) -> anyhow::Result<Vec<(&'static str, PathBuf)>> {
    let tap = |file: &Path| -> anyhow::Result<Vec<String>> {
        let script = peers.script("stdio-tap.mjs")?;
        Ok(vec![
            peers.node().display().to_string(),
            script
                .get_args()
                .next()
                .context("the tap's path")?
                .to_string_lossy()
                .into_owned(),
            file.display().to_string(),
        ])
    };
    let mut server = tap(&scratch.join("back.jsonl"))?;
    server.extend(server_command(peers, session.server)?);
    let (command, legs) = match session.bridge {
        None => (server, vec![("", scratch.join("back.jsonl"))]),
        Some((front, back)) => {
            let mut command = tap(&scratch.join("front.jsonl"))?;
            command.extend([
                bridge.display().to_string(),
                "bridge".into(),
                format!("--client-revisions={front}"),
                format!("--server-revisions={back}"),
                "--".into(),
            ]);
            command.extend(server);
            let legs = vec![
                (".front", scratch.join("front.jsonl")),
                (".back", scratch.join("back.jsonl")),
            ];
            (command, legs)
        }
    };
    let mut client = client_command(peers, session.client, command)?;
    client
        .env("PLAN", plan(session.client, session.server).to_string())
        .env(MARK, scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let outcome = run_bounded(client, scratch);
    kill_marked(MARK, scratch);
    let report: Value = serde_json::from_str(&outcome?).context("the client's report")?;
    let steps = report["steps"].as_array().map_or(&[][..], Vec::as_slice);
    let failed = steps.iter().filter(|s| s.get("error").is_some()).count();
    eprintln!(
        "xtask: {} at {}: {} steps, {failed} answered with an error",
        session.name,
        report["protocolVersion"],
        steps.len()
    );
    Ok(legs)
}

/// The client's command, with the server's (`target`) as its stdio transport.
fn client_command(peers: &Peers, client: Client, target: Vec<String>) -> anyhow::Result<Command> {
    let (mut command, stdio) = match client {
        Client::TsV1(sdk) => {
            let mut command = peers.script("ts-plan-client.mjs")?;
            command.arg(sdk);
            (command, "stdio")
        }
        Client::TsV2 => (peers.script("ts-v2-plan-client.mjs")?, "stdio"),
        Client::Python(mode) => {
            let mut command = peers.python_script("py-plan-client.py");
            command.arg(mode);
            (command, "--stdio")
        }
    };
    command.arg(stdio).args(target);
    Ok(command)
}

/// The server's command line.
fn server_command(peers: &Peers, server: Server) -> anyhow::Result<Vec<String>> {
    let script = match server {
        Server::Everything => peers
            .package("@modelcontextprotocol/server-everything")
            .join("dist/index.js"),
        Server::V2 => peers
            .script("ts-v2-server.mjs")?
            .get_args()
            .next()
            .map(PathBuf::from)
            .context("the v2 server's path")?,
    };
    Ok(vec![
        peers.node().display().to_string(),
        script.display().to_string(),
        "stdio".into(),
    ])
}

/// Runs the client to its end within [`RUN`]; the report it printed.
fn run_bounded(mut command: Command, scratch: &Path) -> anyhow::Result<String> {
    let mut child = command.spawn().context("starting the client")?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            let output = child.wait_with_output()?;
            let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            if !status.success() {
                bail!(
                    "the client failed ({status}):\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            return Ok(stdout);
        }
        if started.elapsed() > RUN {
            let _ = child.kill();
            kill_marked(MARK, scratch);
            bail!("the session did not end within {RUN:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The revision a recorded session negotiated (the `initialize` answer's, else 2026-07-28,
/// which has no handshake), and how many frames it holds. Every line must be a capture record.
fn negotiated(path: &Path) -> anyhow::Result<(ProtocolVersion, usize)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let mut revision = None;
    let mut frames = 0;
    for (i, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not JSON", path.display(), i + 1))?;
        let frame = &record["frame"];
        if !frame.is_object() || !matches!(record["dir"].as_str(), Some("c2s" | "s2c")) {
            bail!("{}:{}: not a capture record", path.display(), i + 1);
        }
        frames += 1;
        if revision.is_none()
            && let Some(v) = frame["result"]["protocolVersion"].as_str()
        {
            revision = Some(
                v.parse()
                    .map_err(|_| anyhow::anyhow!("{}: unknown revision {v:?}", path.display()))?,
            );
        }
    }
    if frames == 0 {
        bail!("{}: the session recorded nothing", path.display());
    }
    Ok((revision.unwrap_or(ProtocolVersion::V2026_07_28), frames))
}
