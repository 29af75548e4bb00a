//! `conformance_server --auth-issuer …` against the mock authorization server of
//! `mcp_wire_tests::oauth`: the options, the protected endpoint, and real SDK clients
//! completing the OAuth flow.

use std::process::Stdio;
use std::time::Duration;

use http::Method;
use mcp_wire_tests::oauth::*;
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

/// The longest a process run may take.
const RUN: Duration = Duration::from_secs(60);

/// `conformance_server --listen 127.0.0.1:0 ARGS`; it and its `/mcp` URL.
async fn server(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("conformance_server starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(RUN, lines.next_line())
        .await
        .expect("conformance_server prints its URL")
        .unwrap()
        .expect("a URL line");
    (child, url)
}

fn addr_of(url: &str) -> std::net::SocketAddr {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-cli-test", "version": "1"}}})
}

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

#[tokio::test]
async fn help_lists_the_authorization_options() {
    let output = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
        .arg("--help")
        .output()
        .await
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for option in [
        "--auth-issuer URL",
        "--auth-scopes A,B",
        "--resource URL",
        "--auth-introspection URL",
        "--auth-client-id ID",
        "--auth-client-secret SECRET",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
}

#[tokio::test]
async fn without_auth_issuer_nothing_is_protected_or_published() {
    let (_child, url) = server(&[]).await;
    let addr = addr_of(&url);
    let metadata = send(
        addr,
        Method::GET,
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        &Value::Null,
    )
    .await;
    assert_eq!(metadata.status, 404);
    let reply = send(addr, Method::POST, "/mcp", &[ACCEPT], &initialize()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

#[tokio::test]
async fn with_auth_issuer_the_endpoint_is_a_resource_server() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let (_child, url) = server(&["--auth-issuer", &authz.issuer, "--auth-scopes", SCOPE]).await;
    let addr = addr_of(&url);
    let metadata = send(
        addr,
        Method::GET,
        "/.well-known/oauth-protected-resource",
        &[],
        &Value::Null,
    )
    .await;
    let document: Value = serde_json::from_str(&metadata.body).unwrap();
    assert_eq!(
        document,
        json!({"resource": url, "authorization_servers": [authz.issuer],
            "scopes_supported": [SCOPE], "bearer_methods_supported": ["header"]})
    );
    let refused = send(addr, Method::POST, "/mcp", &[ACCEPT], &initialize()).await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.challenge(),
        format!(
            "Bearer scope=\"{SCOPE}\", resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
        )
    );
    let claims = json!({"iss": authz.issuer, "sub": "alice", "aud": url, "scope": SCOPE,
        "exp": now() + 300});
    let bearer = format!("Bearer {}", key.sign(&claims));
    let reply = send(
        addr,
        Method::POST,
        "/mcp",
        &[ACCEPT, ("authorization", &bearer)],
        &initialize(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // A token for another resource (the default resource is this endpoint's URI) is refused.
    let elsewhere = json!({"iss": authz.issuer, "sub": "alice", "scope": SCOPE,
        "aud": "http://127.0.0.1:1/mcp", "exp": now() + 300});
    let bearer = format!("Bearer {}", key.sign(&elsewhere));
    let reply = send(
        addr,
        Method::POST,
        "/mcp",
        &[ACCEPT, ("authorization", &bearer)],
        &initialize(),
    )
    .await;
    assert_eq!(reply.status, 401);
}

#[tokio::test]
async fn options_without_an_issuer_are_refused_at_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
        .args(["--listen", "127.0.0.1:0", "--auth-scopes", "x"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("need --auth-issuer"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A real SDK client run to its end (bounded); the JSON object it prints.
async fn run_client(mut command: std::process::Command) -> Value {
    command.stdin(Stdio::null());
    mcp_wire_tests::peers::run_to_json(command, RUN).await
}

/// The protected conformance server and the mock authorization server, ready for a client of
/// `PEER_CLIENT` with the client credentials grant.
async fn protected_for_peers() -> (MockAs, Child, String) {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    authz.sign_with(&key);
    let (child, url) = server(&["--auth-issuer", &authz.issuer, "--auth-scopes", SCOPE]).await;
    (authz, child, url)
}

/// What a peer must have done: listed the fixtures, called `greet` as `who`, and asked the
/// token endpoint for this server's URI (RFC 8707) with the client credentials grant.
fn assert_flow(authz: &MockAs, url: &str, seen: &Value, who: &str) {
    let tools = seen["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t == "greet"), "{seen}");
    assert_eq!(seen["greeting"], format!("Hello, {who}!"), "{seen}");
    let requests = authz.state.token_requests.lock().unwrap().clone();
    assert!(!requests.is_empty());
    for form in &requests {
        assert_eq!(form["grant_type"], "client_credentials", "{form:?}");
        assert_eq!(form["resource"], url, "{form:?}");
    }
}

#[tokio::test]
async fn the_typescript_sdk_client_completes_the_oauth_flow() {
    let (authz, _child, url) = protected_for_peers().await;
    let mut command = mcp_wire_tests::peers::peers()
        .script("ts-oauth-client.mjs")
        .unwrap();
    command.args([&url, &authz.issuer, PEER_CLIENT.0, PEER_CLIENT.1, SCOPE]);
    let seen = run_client(command).await;
    assert_flow(&authz, &url, &seen, "ts");
}

#[tokio::test]
async fn the_python_sdk_client_completes_the_oauth_flow() {
    let (authz, _child, url) = protected_for_peers().await;
    let mut command = mcp_wire_tests::peers::peers().python_script("py-oauth-client.py");
    command.args([&url, &authz.issuer, PEER_CLIENT.0, PEER_CLIENT.1, SCOPE]);
    let seen = run_client(command).await;
    assert_flow(&authz, &url, &seen, "py");
}
