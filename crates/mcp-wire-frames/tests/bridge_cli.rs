//! `mcp-frames bridge` as a process (feature `bridge`): a scripted 2025-06-18 stdio server as
//! the child upstream, a 2025-11-25 client on the bridge's stdin/stdout. The call in flight
//! when the server exits is failed with `upstream_closed`, the bridge says why on stderr and
//! exits 1, and the report names the synthesized `initialize`.
#![cfg(feature = "bridge")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[test]
fn the_bridge_fails_the_pending_call_and_exits_1_when_its_upstream_dies() {
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}"#;
    let server = format!("read l; echo '{init}'; read l; read l; exit 3");
    let report = std::env::temp_dir().join(format!("bridge-cli-{}.jsonl", std::process::id()));
    let mut bridge = Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
        .args(["bridge", "--server-revisions", "2025-06-18", "--report"])
        .arg(&report)
        .args(["--", "sh", "-c", &server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-frames bridge starts");
    let mut stdin = bridge.stdin.take().unwrap();
    let mut stdout = BufReader::new(bridge.stdout.take().unwrap());
    for frame in [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}),
    ] {
        writeln!(stdin, "{frame}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answers = Vec::new();
    let mut line = String::new();
    while answers.len() < 2 && stdout.read_line(&mut line).unwrap() > 0 {
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
        line.clear();
    }
    assert_eq!(
        answers[0]["result"]["protocolVersion"], "2025-11-25",
        "{answers:?}"
    );
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "scripted");
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(
        answers[1]["error"]["data"]["reason"], "upstream_closed",
        "{answers:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = bridge.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the bridge did not end");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut bridge.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("upstream closed") && stderr.contains("exit status: 3"),
        "{stderr}"
    );
    let lines = std::fs::read_to_string(&report).unwrap();
    std::fs::remove_file(&report).ok();
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["method"], "initialize");
    assert_eq!(first["status"], "synthesized");
    assert_eq!(first["from"], "2025-06-18");
    assert_eq!(first["to"], "2025-11-25");
}

/// What the bridge read before its stdin closed is answered before it exits, when the end of
/// input follows the request at once (many runs: losing the answer was a race).
#[test]
fn the_bridge_answers_what_it_read_before_its_stdin_closed() {
    const RUNS: usize = 20;
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}"#;
    let server = format!("read l; echo '{init}'; while read l; do :; done");
    let request = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"eof-test","version":"1"}}});
    let mut lost = Vec::new();
    for run in 0..RUNS {
        let mut bridge = Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
            .args(["bridge", "--server-revisions", "2025-06-18"])
            .args(["--", "sh", "-c", &server])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mcp-frames bridge starts");
        let mut stdin = bridge.stdin.take().unwrap();
        writeln!(stdin, "{request}").unwrap();
        // The end of input right after the request.
        drop(stdin);
        let stdout = bridge.stdout.take().unwrap();
        let reading = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
                .collect::<Vec<Value>>()
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = bridge.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = bridge.kill();
                panic!("run {run}: the bridge did not exit once its input ended");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let answers = reading.join().unwrap();
        assert!(status.success(), "run {run}: {status:?}");
        match answers.as_slice() {
            [answer] if answer["id"] == 1 => {
                assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
            }
            _ => lost.push((run, answers)),
        }
    }
    assert!(
        lost.is_empty(),
        "{} of {RUNS} runs lost the answer; first: {:?}",
        lost.len(),
        lost.first()
    );
}

/// `--auth-issuer` and its companions are listed by `--help`, and make the HTTP client side a
/// protected resource whose default `resource` is the listen URL (no token: 401 naming the
/// metadata).
#[test]
fn the_bridge_takes_the_authorization_options() {
    let help = Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
        .args(["bridge", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for option in [
        "--auth-issuer <URL>",
        "--auth-scopes <A,B>",
        "--resource <URL>",
        "--auth-introspection <URL>",
        "--auth-client-id <ID>",
        "--auth-client-secret <SECRET>",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
    let init = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}"#;
    let server = format!("read l; echo '{init}'; while read l; do :; done");
    let mut bridge = Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
        .args(["bridge", "--listen", "http://127.0.0.1:0/mcp"])
        .args(["--auth-issuer", "http://127.0.0.1:9", "--auth-scopes", "s"])
        .args([
            "--server-revisions",
            "2025-06-18",
            "--",
            "sh",
            "-c",
            &server,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp-frames bridge starts");
    let mut url = String::new();
    BufReader::new(bridge.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut response);
    let _ = bridge.kill();
    let _ = bridge.wait();
    assert!(response.starts_with("HTTP/1.1 401"), "{response}");
    assert!(
        response.contains(&format!(
            "www-authenticate: Bearer scope=\"s\", resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{response}"
    );
}
