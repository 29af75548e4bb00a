//! Drives the `variants_stdio` example over stdio, frame by frame.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

const EXT: &str = "io.modelcontextprotocol/server-variants";
const SEL: &str = "io.modelcontextprotocol/server-variant";

/// A running example server.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(common::example_binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawning the example");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    fn send_raw(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("writing to the example");
        self.stdin.flush().expect("flushing");
    }

    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(10))
            .expect("the example answers within 10 s");
        serde_json::from_str(&line).expect("the example writes JSON lines")
    }

    /// Sends a request and returns the whole response frame.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut frame = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            frame["params"] = params;
        }
        self.send_raw(&frame.to_string());
        let reply = self.recv();
        assert_eq!(reply["id"], json!(id), "{reply}");
        assert_eq!(reply["jsonrpc"], "2.0");
        reply
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    fn error(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        assert!(reply.get("result").is_none(), "{method}: {reply}");
        reply["error"].clone()
    }

    fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let result = self.result(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "stdio-test", "version": "0"}}),
        );
        self.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        result
    }

    /// Every tool name of every page, and the number of pages.
    fn list_all(&mut self, variant: Option<&str>) -> (Vec<String>, usize) {
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        for pages in 1.. {
            let mut params = json!({});
            if let Some(v) = variant {
                params["_meta"] = json!({SEL: v});
            }
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let result = self.result("tools/list", params);
            names.extend(
                result["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned()),
            );
            match result.get("nextCursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
                None => return (names, pages),
            }
        }
        unreachable!()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ids(initialize_result: &Value) -> Vec<String> {
    initialize_result["capabilities"]["extensions"][EXT]["availableVariants"]
        .as_array()
        .expect("availableVariants advertised")
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect()
}

fn text(call_result: &Value) -> String {
    call_result["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn initialize_without_hints_advertises_priority_order_and_deprecation() {
    let mut s = Server::start();
    let result = s.initialize("2025-11-25", json!({}));
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(ids(&result), ["compact", "full", "preview", "legacy"]);
    let payload = &result["capabilities"]["extensions"][EXT];
    assert_eq!(payload["moreVariantsAvailable"], false);
    assert_eq!(payload["availableVariants"][2]["status"], "experimental");
    assert_eq!(
        payload["availableVariants"][3],
        json!({"id": "legacy", "description": "The first-generation search tool.",
               "status": "deprecated",
               "deprecationInfo": {"message": "search_v1 is superseded by search in the full variant.",
                                   "replacement": "full", "removalDate": "2027-06-30"}})
    );
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": false})
    );
    // No selector: the default variant (compact) serves.
    assert_eq!(s.list_all(None), (vec!["search".to_owned()], 1));
}

#[test]
fn initialize_with_hints_fixes_the_session_default() {
    let mut s = Server::start();
    let caps = json!({"extensions": {EXT: {"variantHints": {
        "description": "planning agent", "hints": {"contextSize": ["verbose", "compact"]}}}}});
    let result = s.initialize("2025-06-18", caps);
    assert_eq!(result["protocolVersion"], "2025-06-18");
    // Stable `full` beats experimental `preview` on the tie; compact scores lower.
    assert_eq!(ids(&result), ["full", "preview", "compact", "legacy"]);
    let (tools, pages) = s.list_all(None);
    assert_eq!(
        (tools, pages),
        (vec!["search".into(), "fetch".into(), "summarize".into()], 2)
    );
    let call = s.result(
        "tools/call",
        json!({"name": "summarize", "arguments": {"text": "t"}}),
    );
    assert_eq!(text(&call), "summarize (text) served by variant full: t");
}

#[test]
fn experimental_head_only_when_the_client_asks() {
    let mut s = Server::start();
    let caps = json!({"experimental": {EXT: {"variantHints": {
        "hints": {"contextSize": "verbose", "status": "experimental"}}}}});
    let result = s.initialize("2025-03-26", caps);
    assert_eq!(ids(&result)[0], "preview");
    assert_eq!(s.list_all(None).0.len(), 4);
}

#[test]
fn list_and_call_per_variant() {
    let mut s = Server::start();
    s.initialize("2025-11-25", json!({"extensions": {EXT: {}}}));
    let expected: [(&str, &[&str], usize); 4] = [
        ("compact", &["search"], 1),
        ("full", &["search", "fetch", "summarize"], 2),
        ("preview", &["search", "fetch", "summarize", "translate"], 2),
        ("legacy", &["search_v1"], 1),
    ];
    for (variant, tools, pages) in expected {
        let (names, n) = s.list_all(Some(variant));
        assert_eq!(names, tools, "{variant}");
        assert_eq!(n, pages, "{variant}");
        for tool in tools {
            let call = s.result(
                "tools/call",
                json!({"name": tool, "arguments": {}, "_meta": {SEL: variant}}),
            );
            assert!(
                text(&call).contains(&format!("served by variant {variant}")),
                "{variant}/{tool}: {call}"
            );
            assert_eq!(call["isError"], false);
        }
    }
    // Namespace isolation: `fetch` does not exist in compact.
    let e = s.error(
        "tools/call",
        json!({"name": "fetch", "arguments": {}, "_meta": {SEL: "compact"}}),
    );
    assert_eq!(
        e,
        json!({"code": -32602, "message": "Unknown tool: fetch",
               "data": {"activeVariant": "compact"}})
    );
}

#[test]
fn invalid_variant_error_names_the_session_list() {
    let mut s = Server::start();
    s.initialize("2025-11-25", json!({}));
    let e = s.error("tools/list", json!({"_meta": {SEL: "gpt-optimized"}}));
    assert_eq!(
        e,
        json!({"code": -32602, "message": "Invalid server variant",
               "data": {"requestedVariant": "gpt-optimized",
                        "availableVariants": ["compact", "full", "preview", "legacy"]}})
    );
    // Also on an unscoped method: a selector present is a selector validated.
    let e = s.error("ping", json!({"_meta": {SEL: 3}}));
    assert_eq!(e["message"], "Invalid server variant");
    assert_eq!(s.result("ping", json!({"_meta": {SEL: "full"}})), json!({}));
}

#[test]
fn cursor_reuse_across_variants_is_rejected() {
    let mut s = Server::start();
    s.initialize("2025-11-25", json!({}));
    let first = s.result("tools/list", json!({"_meta": {SEL: "full"}}));
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    assert!(cursor.starts_with("mcv1."), "{cursor}");
    let e = s.error(
        "tools/list",
        json!({"cursor": cursor, "_meta": {SEL: "preview"}}),
    );
    assert_eq!(
        e,
        json!({"code": -32602, "message": "Cursor invalid for requested variant",
               "data": {"cursorVariant": "full", "requestedVariant": "preview",
                        "activeVariant": "preview"}})
    );
    // Same cursor, right variant: page 2.
    let second = s.result(
        "tools/list",
        json!({"cursor": cursor, "_meta": {SEL: "full"}}),
    );
    assert_eq!(second["tools"][0]["name"], "summarize");
    // The backend's raw cursor is not accepted, nor an altered one.
    let mut altered = cursor.clone();
    let last = altered.pop().unwrap();
    altered.push(if last == '0' { '1' } else { '0' });
    for bad in ["2".to_owned(), altered] {
        let e = s.error("tools/list", json!({"cursor": bad, "_meta": {SEL: "full"}}));
        assert_eq!(
            e,
            json!({"code": -32602, "message": "Invalid cursor format",
                   "data": {"activeVariant": "full"}})
        );
    }
}

#[test]
fn cursors_do_not_survive_a_server_restart() {
    // Each process derives its own signing key, so a cursor from another run is refused.
    let mut a = Server::start();
    a.initialize("2025-11-25", json!({}));
    let cursor = a.result("tools/list", json!({"_meta": {SEL: "full"}}))["nextCursor"].clone();
    let mut b = Server::start();
    b.initialize("2025-11-25", json!({}));
    let e = b.error(
        "tools/list",
        json!({"cursor": cursor, "_meta": {SEL: "full"}}),
    );
    assert_eq!(e["message"], "Invalid cursor format");
}

#[test]
fn protocol_negotiation_goes_down_to_a_handshake_revision() {
    for (offered, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let mut s = Server::start();
        let result = s.initialize(offered, json!({}));
        assert_eq!(result["protocolVersion"], answered, "{offered}");
        assert_eq!(ids(&result).len(), 4, "{offered}");
    }
}

#[test]
fn ping_and_clean_errors() {
    let mut s = Server::start();
    // Before initialize: ping works, tools need a session, 2026-style selectors are refused,
    // and server/discover (the 2026-07-28 probe) is not a method of this legacy server.
    assert_eq!(s.result("ping", Value::Null), json!({}));
    let e = s.error("tools/list", json!({}));
    assert_eq!(e["code"], -32600);
    let e = s.error("tools/list", json!({"_meta": {SEL: "full"}}));
    assert_eq!(
        e,
        json!({"code": -32602, "message": "Server variants not supported"})
    );
    let e = s.error("server/discover", json!({}));
    assert_eq!(e["code"], -32601);
    let e = s.error(
        "initialize",
        json!({"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
    );
    assert_eq!(
        e,
        // The message is for the peer; where the fault is goes in `data.pointer`.
        json!({"code": -32602, "message": "missing field `protocolVersion`",
               "data": {"pointer": "/params"}})
    );

    s.initialize("2025-11-25", json!({}));
    assert_eq!(s.result("ping", Value::Null), json!({}));
    for method in ["resources/list", "prompts/get", "completion/complete"] {
        let e = s.error(method, json!({}));
        assert_eq!(e["code"], -32601, "{method}");
        assert_eq!(e["data"], json!({"activeVariant": "compact"}), "{method}");
    }
    let e = s.error("logging/setLevel", json!({"level": "info"}));
    assert_eq!(e["code"], -32601);
    let e = s.error("initialize", json!({"protocolVersion": "2025-11-25"}));
    assert_eq!(e["code"], -32600);
    let e = s.error("tools/call", json!([1, 2]));
    assert_eq!(e["code"], -32602);
    let e = s.error("tools/call", json!({"arguments": {}}));
    assert_eq!(e["code"], -32602);

    s.send_raw("this is not json");
    let reply = s.recv();
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32700);
    s.send_raw(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#);
    let reply = s.recv();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );
    // Still alive afterwards.
    assert_eq!(s.result("ping", Value::Null), json!({}));
}

#[test]
fn results_validate_against_each_revisions_schema() {
    use mcp_wire::ProtocolVersion;
    use mcp_wire_schemas::{SchemaOracle, SchemaStore};

    let store = SchemaStore::discover();
    for version in ProtocolVersion::ALL
        .into_iter()
        .filter(|v| *v <= ProtocolVersion::LATEST_HANDSHAKE)
    {
        let oracle = SchemaOracle::load(&store, version).unwrap_or_else(|e| {
            panic!("pinned schema {version} not found ({e}); run `cargo xtask schemas`")
        });
        let check = |name: &str, value: &Value| {
            let violations = oracle.violations(name, value).unwrap();
            assert!(
                violations.is_empty(),
                "{version} {name}: {violations:?}\n{value}"
            );
        };
        let mut s = Server::start();
        let caps =
            json!({"extensions": {EXT: {"variantHints": {"hints": {"contextSize": "verbose"}}}}});
        let init = s.initialize(version.as_str(), caps);
        assert_eq!(init["protocolVersion"], version.as_str());
        check("InitializeResult", &init);
        for variant in ["compact", "full", "preview", "legacy"] {
            let page = s.result("tools/list", json!({"_meta": {SEL: variant}}));
            check("ListToolsResult", &page);
            let name = page["tools"][0]["name"].clone();
            let call = s.result(
                "tools/call",
                json!({"name": name, "arguments": {}, "_meta": {SEL: variant}}),
            );
            check("CallToolResult", &call);
        }
    }
}
