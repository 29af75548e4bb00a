//! The `variants_http` example as an OAuth resource server (`--auth-issuer`): the variants'
//! principals come from access tokens of the mock authorization server of
//! `mcp_wire_tests::oauth`.

mod common;

use std::process::Stdio;
use std::time::Duration;

use http::Method;
use mcp_wire_tests::oauth::{SCOPE, TestKey, now, send, start_as};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::process::Command;

const EXT: &str = "io.modelcontextprotocol/server-variants";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"extensions": {EXT: {}}},
        "clientInfo": {"name": "oauth-variants", "version": "0"}}})
}

#[tokio::test]
async fn the_variant_list_follows_the_tokens_subject() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let mut child = Command::new(common::example("variants_http"))
        .args(["--listen", "127.0.0.1:0", "--auth-issuer", &authz.issuer])
        .args(["--auth-scopes", SCOPE])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("variants_http starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("variants_http prints its URL")
        .unwrap()
        .expect("a URL line");
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let accept = ("accept", "application/json, text/event-stream");
    let variants_of = |sub: &str| {
        let claims = json!({"iss": authz.issuer, "sub": sub, "aud": url, "scope": SCOPE,
            "exp": now() + 300});
        let bearer = format!("Bearer {}", key.sign(&claims));
        async move {
            let reply = send(
                addr,
                Method::POST,
                "/mcp",
                &[accept, ("authorization", &bearer)],
                &initialize(),
            )
            .await;
            assert_eq!(reply.status, 200, "{}", reply.body);
            reply.messages()[0]["result"]["capabilities"]["extensions"][EXT]["availableVariants"]
                .as_array()
                .expect("availableVariants")
                .iter()
                .map(|v| v["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        variants_of("alice").await,
        ["compact", "full", "preview", "legacy"]
    );
    assert_eq!(variants_of("bob").await, ["compact", "full", "legacy"]);
    // The demo's fixed bearer tokens are no access tokens.
    let demo = send(
        addr,
        Method::POST,
        "/mcp",
        &[accept, ("authorization", "Bearer alice")],
        &initialize(),
    )
    .await;
    assert_eq!(demo.status, 401);
    assert!(demo.challenge().contains("error=\"invalid_token\""));
}
