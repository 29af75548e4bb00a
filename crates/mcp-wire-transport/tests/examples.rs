//! The examples run: `examples/server.rs` served over Streamable HTTP and over stdio, driven by
//! `examples/client.rs` and by real SDK clients (the plan clients of `tests/peers/`): each lists
//! the tools, resources and prompts, calls `add` (its `structuredContent` satisfies the
//! `outputSchema` the tool lists) and `echo`, reads `note://hello` and gets `greet`. Loopback
//! only; every run is bounded in time.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_wire::model::Tool;
use mcp_wire::tool::OutputCheck;
use mcp_wire_tests::peers::peers;
use mcp_wire_tests::plans::{Outcome, Step, plan_env};
use serde_json::{Value, json};

/// The longest a client run, or a server's start, may take.
const RUN: Duration = Duration::from_secs(60);

/// An example of this crate. `cargo test` builds the examples with the tests; when only a test
/// target was built, the example is built here first.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in <target>/<profile>/deps");
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "mcp-wire-transport", "--example", name])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the {name} example failed");
    }
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// The example server, killed when dropped.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `examples/server.rs --http` on a free loopback port, once it accepts connections; its URL.
fn http_server() -> (Served, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port();
    let address = format!("127.0.0.1:{port}");
    let child = Command::new(example("server"))
        .args(["--http", &address])
        .stdout(Stdio::null())
        .spawn()
        .expect("the example server starts");
    let served = Served(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(
            started.elapsed() < RUN,
            "the server does not listen on {address}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (served, format!("http://{address}/mcp"))
}

/// Runs `command` to its end (bounded) and reads the one JSON object it prints.
fn report(mut command: Command) -> Value {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let started = Instant::now();
    while child.try_wait().expect("the client's status").is_none() {
        if started.elapsed() > RUN {
            let _ = child.kill();
            panic!("{command:?} did not finish within {RUN:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("the client's output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{command:?} failed:\n{stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{command:?} printed no JSON ({e}):\n{stderr}"))
}

/// The example client on `target` with the operations every run performs.
fn example_client(target: &[&str]) -> Value {
    let mut command = Command::new(example("client"));
    command.args(target).args([
        "call",
        "add",
        r#"{"a": 2, "b": 3}"#,
        "call",
        "echo",
        r#"{"text": "hi"}"#,
        "call",
        "add",
        r#"{"a": 2, "b": "three"}"#,
        "read",
        "note://hello",
        "prompt",
        "greet",
        r#"{"name": "Ada"}"#,
        "prompt",
        "greet",
        "{}",
    ]);
    report(command)
}

/// `structured` satisfies the `outputSchema` of the tool `tool` (as listed).
fn assert_satisfies_output_schema(tool: &Value, structured: &Value) {
    let tool: Tool = serde_json::from_value(tool.clone()).expect("a listed tool");
    let check = OutputCheck::for_tool(&tool).expect("add lists an outputSchema");
    check
        .check(structured)
        .unwrap_or_else(|e| panic!("{structured} does not satisfy add's outputSchema: {e}"));
}

/// What the example client must see of the example server.
fn assert_example_session(report: &Value) {
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(report["serverInfo"]["name"], "demo-server", "{report}");
    let tools = report["tools"].as_array().expect("a tool list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["add", "echo"], "{report}");
    let add = &tools[0];
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]), "{add}");
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["description"],
        "The first addend."
    );
    assert_eq!(add["outputSchema"]["required"], json!(["sum"]), "{add}");
    // No schema carries the Rust type's name as its title.
    for tool in tools {
        assert_eq!(tool["inputSchema"].get("title"), None, "{tool}");
    }
    assert_eq!(add["outputSchema"].get("title"), None, "{add}");
    assert_eq!(tools[1].get("outputSchema"), None, "{report}");
    assert_eq!(
        report["resources"],
        json!([{"uri": "note://hello", "name": "hello"}])
    );
    assert_eq!(
        report["prompts"],
        json!([{"name": "greet", "description": "Greet someone by name",
            "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]}])
    );

    let answers = report["answers"].as_array().expect("the answers");
    assert_eq!(answers.len(), 6, "{report}");
    let sum = &answers[0];
    assert_eq!(sum["structuredContent"], json!({"sum": 5}), "{sum}");
    assert_eq!(
        sum["content"],
        json!([{"type": "text", "text": "{\"sum\":5}"}])
    );
    assert_satisfies_output_schema(add, &sum["structuredContent"]);
    assert_eq!(
        answers[1],
        json!({"content": [{"type": "text", "text": "hi"}]})
    );
    // An argument of the wrong type: -32602 at its pointer.
    let bad = &answers[2]["error"];
    assert_eq!(bad["code"], -32602, "{bad}");
    assert_eq!(bad["data"]["pointer"], "/arguments/b", "{bad}");
    assert_eq!(
        answers[3],
        json!({"contents": [{"uri": "note://hello", "mimeType": "text/plain",
            "text": "Hello from mcp-wire!"}]})
    );
    assert_eq!(
        answers[4],
        json!({"messages": [{"role": "user",
            "content": {"type": "text", "text": "Please greet Ada warmly."}}]})
    );
    // A missing prompt argument: -32602 at the arguments.
    let missing = &answers[5]["error"];
    assert_eq!(missing["code"], -32602, "{missing}");
    assert_eq!(missing["data"]["pointer"], "/arguments", "{missing}");
}

#[test]
fn the_example_client_drives_the_example_server_over_http() {
    let (_server, url) = http_server();
    assert_example_session(&example_client(&[&url]));
}

#[test]
fn the_example_client_drives_the_example_server_over_stdio() {
    let server = example("server");
    let command_line = format!("{} --stdio", server.display());
    assert!(
        !server.display().to_string().contains(char::is_whitespace),
        "the client splits its command line at spaces: {command_line}"
    );
    assert_example_session(&example_client(&["stdio", &command_line]));
}

/// The plan every real client runs against the example server.
fn plan() -> Vec<Step> {
    vec![
        ("tools", json!({"op": "tools"})),
        ("resources", json!({"op": "resources"})),
        ("prompts", json!({"op": "prompts"})),
        (
            "add",
            json!({"op": "call", "name": "add", "arguments": {"a": 2, "b": 3}, "full": true}),
        ),
        (
            "echo",
            json!({"op": "call", "name": "echo", "arguments": {"text": "hi"}}),
        ),
        ("read", json!({"op": "read", "uri": "note://hello"})),
        (
            "greet",
            json!({"op": "prompt", "name": "greet", "arguments": {"name": "Ada"}}),
        ),
    ]
}

/// Runs a plan client with [`plan`] and checks what it saw. The SDK clients check a
/// `structuredContent` against the `outputSchema` they listed themselves (a mismatch fails the
/// call, which the step would report as an error).
fn assert_sdk_session(mut command: Command, revision: &str) {
    let plan = plan();
    command.env("PLAN", plan_env(&plan));
    let outcome = Outcome::new(&plan, report(command));
    let report = &outcome.report;
    assert_eq!(report["protocolVersion"], revision, "{report}");
    assert_eq!(report["server"], "demo-server", "{report}");
    assert_eq!(outcome.step("tools"), &json!(["add", "echo"]), "{report}");
    assert_eq!(
        outcome.step("resources"),
        &json!(["note://hello"]),
        "{report}"
    );
    assert_eq!(outcome.step("prompts"), &json!(["greet"]), "{report}");
    assert_eq!(
        outcome.step("add"),
        &json!({"text": "{\"sum\":5}", "structured": {"sum": 5}, "isError": false}),
        "{report}"
    );
    assert_eq!(outcome.step("echo"), "hi", "{report}");
    assert_eq!(
        outcome.step("read"),
        &json!(["Hello from mcp-wire!"]),
        "{report}"
    );
    assert_eq!(
        outcome.step("greet"),
        &json!(["Please greet Ada warmly."]),
        "{report}"
    );
}

#[test]
fn sdk_clients_drive_the_example_server_over_http() {
    let (_server, url) = http_server();
    let mut ts = peers().script("ts-plan-client.mjs").unwrap();
    ts.args(["@modelcontextprotocol/sdk", "streamable", &url]);
    assert_sdk_session(ts, "2025-11-25");
    let mut ts_v2 = peers().script("ts-v2-plan-client.mjs").unwrap();
    ts_v2.arg(&url);
    assert_sdk_session(ts_v2, "2026-07-28");
}

#[test]
fn sdk_clients_drive_the_example_server_over_stdio() {
    let server = example("server");
    let server = server.to_str().expect("a UTF-8 path");
    let mut ts = peers().script("ts-plan-client.mjs").unwrap();
    ts.args(["@modelcontextprotocol/sdk", "stdio", server, "--stdio"]);
    assert_sdk_session(ts, "2025-11-25");
    let mut py = peers().python_script("py-plan-client.py");
    py.args(["legacy", "--stdio", server, "--stdio"]);
    assert_sdk_session(py, "2025-11-25");
}
