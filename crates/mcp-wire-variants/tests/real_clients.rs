//! Real clients judge the live variants server: the official Python SDK client and the
//! TypeScript SDK v1 client (pinned in `tests/peers/`, installed by `mcp_wire_tests::peers`; a
//! failed install fails the test, it never skips) drive the `variants_http` example over
//! Streamable HTTP on loopback — initialize with hints, read `availableVariants`, select per
//! request by `_meta` and by header, page through variant-bound cursors, get the -32602 errors
//! with their `data` for a cross-variant cursor, a tampered cursor and an invalid variant,
//! subscribe and receive a tagged update on the GET stream, DELETE the session — and bob, who
//! cannot see `preview`, as a client without the payload. Each run is bounded.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The longest a client run may take.
const RUN: Duration = Duration::from_secs(90);

/// The example server, killed (by its own handle) when dropped.
struct Example {
    child: Child,
    url: String,
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn example() -> Example {
    let mut child = Command::new(common::example("variants_http"))
        .args(["--listen", "127.0.0.1:0", "--tick-ms", "100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("variants_http starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped stdout"))
        .read_line(&mut line)
        .expect("variants_http prints its URL");
    let url = line.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "first line {url:?}");
    Example { child, url }
}

/// Runs a client to its end (bounded) and reads the JSON object it prints.
fn observe(mut command: Command) -> Value {
    let (tx, rx) = mpsc::channel();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let _ = stdout.read_to_end(&mut out);
        let _ = stderr.read_to_end(&mut err);
        let _ = tx.send((out, err));
    });
    let Ok((out, err)) = rx.recv_timeout(RUN) else {
        let _ = child.kill();
        panic!("{command:?} did not finish within {RUN:?}");
    };
    let status = child.wait().expect("the client ends");
    let err = String::from_utf8_lossy(&err);
    assert!(status.success(), "client failed ({status}):\n{err}");
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("no JSON from the client ({e}):\n{err}"))
}

/// What both SDKs must observe (the example ranks for `contextSize: verbose`: `full` and
/// `preview` match, stable first, then the rest by priority).
fn expected() -> Value {
    let sel = "io.modelcontextprotocol/server-variant";
    json!({
        "alice": {
            "advertised": ["full", "preview", "compact", "legacy"],
            "more": false,
            "default": ["search", "fetch"],
            "previewPages": [["search", "fetch"], ["summarize", "translate"], null],
            "call": "translate (text) served by variant preview: hallo",
            "byHeader": ["search_v1"],
            "metaWins": ["search"],
            "crossVariantCursor": {"code": -32602, "message": "Cursor invalid for requested variant",
                "data": {"cursorVariant": "preview", "requestedVariant": "full", "activeVariant": "full"}},
            "tamperedCursor": {"code": -32602, "message": "Invalid cursor format",
                "data": {"activeVariant": "preview"}},
            "invalidVariant": {"code": -32602, "message": "Invalid server variant",
                "data": {"requestedVariant": "gpt-optimized",
                         "availableVariants": ["full", "preview", "compact", "legacy"]}},
            "update": {"method": "notifications/resources/updated",
                       "params": {"uri": "demo://index", "_meta": {sel: "full"}}},
            "delete": 200,
            "afterDelete": 404
        },
        "bob": {
            "extensionAdvertised": false,
            "tools": ["search"],
            "preview": {"code": -32602, "message": "Invalid server variant",
                "data": {"requestedVariant": "preview",
                         "availableVariants": ["compact", "full", "legacy"]}}
        }
    })
}

fn interop(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

#[test]
fn python_sdk_client_over_streamable_http() {
    let server = example();
    let mut command = Command::new(mcp_wire_tests::peers::peers().python());
    command
        .arg(interop("variants_http_client.py"))
        .arg(&server.url);
    let mut seen = observe(command);
    // The Python client also reports the session id it deleted (a 64-hex-digit id).
    let session = seen["alice"]
        .as_object_mut()
        .unwrap()
        .remove("session")
        .unwrap();
    assert_eq!(session.as_str().map(str::len), Some(64), "{session}");
    assert_eq!(seen, expected());
}

#[test]
fn typescript_sdk_v1_client_over_streamable_http() {
    let server = example();
    let mut command =
        mcp_wire_tests::peers::peers().node_command(interop("variants-http-client.cjs"));
    command.arg(&server.url);
    assert_eq!(observe(command), expected());
}

/// A raw POST of `body` with `headers`; the status line and the response.
fn raw_post(url: &str, headers: &[&str], body: &str) -> String {
    let authority = url
        .strip_prefix("http://")
        .and_then(|u| u.split('/').next())
        .unwrap();
    let mut stream = TcpStream::connect(authority).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
}

#[test]
fn the_example_refuses_requests_without_a_known_token_and_says_so_in_help() {
    let help = Command::new(common::example("variants_http"))
        .arg("--help")
        .output()
        .expect("--help runs");
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    for needle in [
        "--listen HOST:PORT",
        "Authorization: Bearer alice   sees all four variants",
        "Authorization: Bearer bob     sees compact, full and legacy (not preview)",
        "HTTP 401",
        "/mcp",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
    let server = example();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for headers in [&[][..], &["Authorization: Bearer mallory"][..]] {
        let response = raw_post(&server.url, headers, ping);
        assert!(
            response.starts_with("HTTP/1.1 401") && response.contains("www-authenticate: Bearer"),
            "{headers:?}: {response}"
        );
    }
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let response = raw_post(&server.url, &["Authorization: Bearer alice"], init);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
}
