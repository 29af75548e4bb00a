//! The bridge's HTTP client side as an OAuth resource server: tokens of the mock authorization
//! server of `mcp_wire_tests::oauth` are checked at the bridge, and none reaches the upstream;
//! and the bridge signing in to a protected upstream with its own OAuth client.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{self, Method};
use mcp_wire_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_wire_tests::oauth::{PEER_CLIENT, SCOPE, TestKey, greet_alice, now, send, start_as};
use mcp_wire_transport::client::oauth::{Grant, OAuthClient, OAuthConfig, PreRegistered, Secret};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::oauth::{JwtValidator, ResourceServer};
use mcp_wire_transport::server::{
    AuthFuture, Authenticator, Principal, ResourceMetadata, Server, ServerConfig,
};
use serde_json::json;

/// Lets everyone in, noting the `Authorization` header of every request.
struct Recorder(Arc<Mutex<Vec<Option<String>>>>);

impl Authenticator for Recorder {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        let presented = request
            .headers
            .get(http::header::AUTHORIZATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        self.0.lock().unwrap().push(presented);
        Box::pin(std::future::ready(Ok(Principal::anonymous())))
    }
}

#[tokio::test]
async fn the_bridge_checks_tokens_and_never_passes_them_upstream() {
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let upstream = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            authenticator: Arc::new(Recorder(recorded.clone())),
            ..ServerConfig::default()
        },
    );
    let upstream_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", upstream_listener.local_addr().unwrap());
    let serving = upstream.clone();
    let upstream_task = tokio::spawn(async move {
        let _ = serving.serve(upstream_listener).await;
    });

    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let validator = JwtValidator::new(vec![authz.issuer.clone()], &resource);
    let protected = ResourceServer::new(&resource, vec![authz.issuer.clone()], validator)
        .with_required_scopes(vec![SCOPE.into()]);
    let options = BridgeOptions::default().authenticator(Arc::new(protected));
    let bridge = Bridge::connect(&UpstreamTarget::Url(upstream_url), options)
        .await
        .unwrap();
    let bridge_task = tokio::spawn(async move {
        let _ = bridge.serve_http(listener, "/mcp").await;
    });

    let accept = ("accept", "application/json, text/event-stream");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-bridge", "version": "1"}}});
    let refused = send(addr, Method::POST, "/mcp", &[accept], &init).await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.challenge(),
        format!(
            "Bearer scope=\"{SCOPE}\", resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
        )
    );
    let claims = json!({"iss": authz.issuer, "sub": "alice", "aud": resource, "scope": SCOPE,
        "exp": now() + 300});
    let bearer = format!("Bearer {}", key.sign(&claims));
    assert_eq!(greet_alice(addr, Some(&bearer)).await, "Hello, alice!");
    // The upstream answered the bridge's own requests, none with a client's credentials.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let seen = recorded.lock().unwrap().clone();
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.iter().all(Option::is_none), "{seen:?}");
    bridge_task.abort();
    upstream_task.abort();
}

/// Notes the `Authorization` header of every request, then lets `inner` decide.
struct Noting<A>(Arc<Mutex<Vec<Option<String>>>>, A);

impl<A: Authenticator> Authenticator for Noting<A> {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        let presented = request
            .headers
            .get(http::header::AUTHORIZATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        self.0.lock().unwrap().push(presented);
        self.1.authenticate(request)
    }

    fn resource_metadata(&self) -> Option<&ResourceMetadata> {
        self.1.resource_metadata()
    }
}

#[tokio::test]
async fn the_bridge_signs_in_to_a_protected_upstream_with_its_own_client() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    authz.sign_with(&key);
    let upstream_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", upstream_listener.local_addr().unwrap());
    let validator = JwtValidator::new(vec![authz.issuer.clone()], &upstream_url);
    let protected = ResourceServer::new(&upstream_url, vec![authz.issuer.clone()], validator)
        .with_required_scopes(vec![SCOPE.into()]);
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let upstream = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            authenticator: Arc::new(Noting(recorded.clone(), protected)),
            ..ServerConfig::default()
        },
    );
    let upstream_task = tokio::spawn(async move {
        let _ = upstream.serve(upstream_listener).await;
    });

    let client = PreRegistered::new(PEER_CLIENT.0).secret(Secret::new(PEER_CLIENT.1));
    let config = OAuthConfig::new(Grant::ClientCredentials).pre_registered(client);
    let oauth = OAuthClient::new(&upstream_url, config).unwrap();
    let options = BridgeOptions::default().upstream_authorizer(Arc::new(oauth));
    let bridge = Bridge::connect(&UpstreamTarget::Url(upstream_url.clone()), options)
        .await
        .expect("the bridge signs in and connects");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let bridge_task = tokio::spawn(async move {
        let _ = bridge.serve_http(listener, "/mcp").await;
    });

    // A client of the bridge presents a token of its own; the bridge's side is open.
    let downstream = "Bearer downstream-token";
    assert_eq!(greet_alice(addr, Some(downstream)).await, "Hello, alice!");
    // One client-credentials grant, for the upstream as the resource.
    let requests = authz.state.token_requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["grant_type"], "client_credentials");
    assert_eq!(requests[0]["resource"], upstream_url);
    assert_eq!(requests[0]["scope"], SCOPE);
    // The upstream saw the bridge's first request without a token, then only the bridge's
    // own token — never the client's.
    let seen = recorded.lock().unwrap().clone();
    assert_eq!(seen.first(), Some(&None), "{seen:?}");
    let tokens: Vec<&String> = seen.iter().flatten().collect();
    assert!(tokens.len() >= 2, "{seen:?}");
    assert!(
        tokens
            .iter()
            .all(|t| t.starts_with("Bearer ey") && *t == tokens[0]),
        "{seen:?}"
    );
    bridge_task.abort();
    upstream_task.abort();
}
