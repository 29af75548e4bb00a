//! The server as an OAuth resource server, against a mock authorization server started here
//! (metadata, key set and introspection on loopback; keys and tokens minted by the test).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_wire_tests::oauth::*;
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::oauth::{IntrospectionValidator, JwtValidator, ResourceServer};
use mcp_wire_transport::server::{Authenticator, Server, ServerConfig};
use serde_json::{Value, json};

/// The conformance fixtures served at `/mcp` behind `auth`, built for the endpoint's URI.
struct Protected {
    addr: SocketAddr,
    resource: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Protected {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(auth: impl FnOnce(&str) -> Arc<dyn Authenticator>) -> Protected {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let config = ServerConfig {
        authenticator: auth(&resource),
        ..ServerConfig::default()
    };
    let server = Server::new(ConformanceFixtures::new(), config);
    let task = tokio::spawn(async move {
        let _ = server.serve(listener).await;
    });
    Protected {
        addr,
        resource,
        task,
    }
}

/// A server whose tokens are JWTs of `issuer` with the scope `mcp:tools`.
async fn serve_jwt(issuer: &str, refresh: Duration) -> Protected {
    let issuer = issuer.to_owned();
    serve(|resource| {
        let validator = JwtValidator::new(vec![issuer.clone()], resource)
            .with_leeway(Duration::from_secs(30))
            .with_refresh_interval(refresh);
        Arc::new(
            ResourceServer::new(resource, vec![issuer], validator)
                .with_required_scopes(vec![SCOPE.into()]),
        )
    })
    .await
}

/// Claims that pass every rule at `server` for `sub`.
fn good_claims(issuer: &str, server: &Protected, sub: &str) -> Value {
    json!({"iss": issuer, "sub": sub, "aud": server.resource, "client_id": "test-client",
        "scope": format!("openid {SCOPE}"), "iat": now(), "exp": now() + 300})
}

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1"}}})
}

/// A POST to `/mcp` with `bearer` (when given) and `extra` headers.
async fn post_mcp(
    server: &Protected,
    bearer: Option<&str>,
    extra: &[(&str, &str)],
    body: &Value,
) -> Reply {
    let auth = bearer.map(|t| format!("Bearer {t}"));
    let mut headers = vec![ACCEPT];
    if let Some(a) = &auth {
        headers.push(("authorization", a));
    }
    headers.extend_from_slice(extra);
    send(server.addr, Method::POST, "/mcp", &headers, body).await
}

/// Opens a 2025-11-25 session as `bearer`; its id.
async fn open_session(server: &Protected, bearer: &str) -> String {
    let reply = post_mcp(server, Some(bearer), &[], &initialize()).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.headers["mcp-session-id"].to_str().unwrap().to_owned()
}

fn metadata_url(server: &Protected) -> String {
    format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    )
}

#[tokio::test]
async fn the_metadata_is_published_at_the_path_inserted_and_the_root_uri() {
    let authz = start_as().await;
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let reply = send(server.addr, Method::GET, path, &[], &Value::Null).await;
        assert_eq!(reply.status, 200, "{path}");
        let body: Value = serde_json::from_str(&reply.body).unwrap();
        assert_eq!(
            body,
            json!({"resource": server.resource, "authorization_servers": [authz.issuer],
                "scopes_supported": [SCOPE], "bearer_methods_supported": ["header"]})
        );
    }
    // A server without authorization publishes nothing.
    let open = serve(|_| Arc::new(mcp_wire_transport::server::NoAuth)).await;
    let reply = send(
        open.addr,
        Method::GET,
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        &Value::Null,
    )
    .await;
    assert_eq!(reply.status, 404);
}

/// A route to try: method, path, headers, body.
type Route<'a> = (Method, &'a str, &'a [(&'a str, &'a str)], Value);

#[tokio::test]
async fn every_route_of_both_wires_challenges_a_request_without_a_token() {
    let authz = start_as().await;
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let expected = format!(
        "Bearer scope=\"{SCOPE}\", resource_metadata=\"{}\"",
        metadata_url(&server)
    );
    let stateless = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let routes: [Route<'_>; 6] = [
        (Method::POST, "/mcp", &[ACCEPT], initialize()),
        (
            Method::POST,
            "/mcp",
            &stateless,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ),
        (
            Method::GET,
            "/mcp",
            &[("accept", "text/event-stream"), ("mcp-session-id", "s")],
            Value::Null,
        ),
        (
            Method::DELETE,
            "/mcp",
            &[("mcp-session-id", "s")],
            Value::Null,
        ),
        (
            Method::GET,
            "/sse",
            &[("accept", "text/event-stream")],
            Value::Null,
        ),
        (Method::POST, "/messages?sessionId=s", &[], initialize()),
    ];
    for (method, path, headers, body) in routes {
        let reply = send(server.addr, method.clone(), path, headers, &body).await;
        assert_eq!(reply.status, 401, "{method} {path}");
        assert_eq!(reply.challenge(), expected, "{method} {path}");
        // Basic credentials are no bearer token.
        let mut with_basic = headers.to_vec();
        with_basic.push(("authorization", "Basic YWxpY2U6c2VjcmV0"));
        let reply = send(server.addr, method.clone(), path, &with_basic, &body).await;
        assert_eq!(reply.status, 401, "Basic on {method} {path}");
        assert_eq!(reply.challenge(), expected, "Basic on {method} {path}");
    }
}

#[tokio::test]
async fn a_valid_token_lists_and_calls_tools_on_both_wires() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let token = key.sign(&good_claims(&authz.issuer, &server, "alice"));

    let session = open_session(&server, &token).await;
    let with_session = [("mcp-session-id", session.as_str())];
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "alice"}}});
    let reply = post_mcp(&server, Some(&token), &with_session, &call).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        reply.messages()[0]["result"]["content"][0]["text"],
        "Hello, alice!"
    );

    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let list =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta}});
    let stateless = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let reply = post_mcp(&server, Some(&token), &stateless, &list).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let tools = reply.messages()[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    assert!(tools.iter().any(|t| t["name"] == "greet"));
    // The same request without the token is challenged.
    assert_eq!(post_mcp(&server, None, &stateless, &list).await.status, 401);
}

#[tokio::test]
async fn each_broken_rule_is_answered_401_invalid_token() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    let stranger = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let good = good_claims(&authz.issuer, &server, "alice");
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };
    let without = |k: &str| {
        let mut c = good.clone();
        c.as_object_mut().unwrap().remove(k);
        c
    };
    let header_none = b64(br#"{"alg":"none","typ":"JWT"}"#);
    let alg_none = format!("{header_none}.{}.", b64(good.to_string().as_bytes()));
    let mut hs_header = Header::new(Algorithm::HS256);
    hs_header.kid = Some("k1".into());
    let hmac_with_public_key = jsonwebtoken::encode(
        &hs_header,
        &good,
        &EncodingKey::from_secret(&key.public_bytes()).unwrap(),
    )
    .unwrap();
    let tampered = {
        let token = key.sign(&good);
        let parts: Vec<&str> = token.split('.').collect();
        let payload = b64(with("sub", json!("root")).to_string().as_bytes());
        format!("{}.{payload}.{}", parts[0], parts[2])
    };
    let cases = [
        (
            "wrong audience",
            key.sign(&with("aud", json!("http://127.0.0.1:1/mcp"))),
            "the token was not issued for this resource",
        ),
        (
            "audience array without us",
            key.sign(&with("aud", json!(["http://other/mcp"]))),
            "the token was not issued for this resource",
        ),
        (
            "wrong issuer",
            key.sign(&with("iss", json!("http://127.0.0.1:1"))),
            "the token's issuer is not accepted",
        ),
        (
            "expired",
            key.sign(&with("exp", json!(now() - 120))),
            "the token has expired",
        ),
        (
            "not yet valid",
            key.sign(&with("nbf", json!(now() + 120))),
            "the token is not valid yet",
        ),
        (
            "no exp",
            key.sign(&without("exp")),
            "the token lacks exp, iss or aud",
        ),
        (
            "signed by another key under the same kid",
            stranger.sign(&good),
            "the token's signature does not verify",
        ),
        (
            "payload changed after signing",
            tampered,
            "the token's signature does not verify",
        ),
        (
            "alg none",
            alg_none,
            "the token is not a JWT with a known algorithm",
        ),
        (
            "HS256 keyed with the public key",
            hmac_with_public_key,
            "the token's algorithm is not accepted",
        ),
        (
            "not a JWT",
            "opaque-token".to_owned(),
            "the token is not a JWT with a known algorithm",
        ),
    ];
    for (rule, token, why) in cases {
        let reply = post_mcp(&server, Some(&token), &[], &initialize()).await;
        assert_eq!(reply.status, 401, "{rule}");
        assert_eq!(
            reply.challenge(),
            format!(
                "Bearer error=\"invalid_token\", error_description=\"{why}\", resource_metadata=\"{}\"",
                metadata_url(&server)
            ),
            "{rule}"
        );
        assert!(!reply.challenge().contains(&token), "{rule}");
    }
    // Within the leeway, and with the resource in an audience array, the token holds.
    let lenient = with("exp", json!(now() - 5));
    let lenient = {
        let mut c = lenient;
        c["aud"] = json!(["http://other/mcp", server.resource]);
        c
    };
    assert_eq!(
        post_mcp(&server, Some(&key.sign(&lenient)), &[], &initialize())
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn a_token_without_the_required_scope_is_answered_403() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let mut claims = good_claims(&authz.issuer, &server, "alice");
    claims["scope"] = json!("openid profile");
    let reply = post_mcp(&server, Some(&key.sign(&claims)), &[], &initialize()).await;
    assert_eq!(reply.status, 403);
    assert_eq!(
        reply.challenge(),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{SCOPE}\", resource_metadata=\"{}\"",
            metadata_url(&server)
        )
    );
    // The scopes as an array (`scp`) count as well.
    claims.as_object_mut().unwrap().remove("scope");
    claims["scp"] = json!([SCOPE]);
    let reply = post_mcp(&server, Some(&key.sign(&claims)), &[], &initialize()).await;
    assert_eq!(reply.status, 200);
}

#[tokio::test]
async fn a_token_in_the_query_string_is_refused() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let token = key.sign(&good_claims(&authz.issuer, &server, "alice"));
    let path = format!("/mcp?access_token={token}");
    let reply = send(server.addr, Method::POST, &path, &[ACCEPT], &initialize()).await;
    assert_eq!(reply.status, 400);
    assert!(
        reply
            .challenge()
            .starts_with("Bearer error=\"invalid_request\"")
    );
    // Even beside a good header: the query must not carry one.
    let auth = format!("Bearer {token}");
    let reply = send(
        server.addr,
        Method::POST,
        &path,
        &[ACCEPT, ("authorization", &auth)],
        &initialize(),
    )
    .await;
    assert_eq!(reply.status, 400);
}

#[tokio::test]
async fn keys_are_fetched_again_on_an_unknown_kid_at_most_once_per_interval() {
    let authz = start_as().await;
    let old = TestKey::new("old");
    let new = TestKey::new("new");
    authz.publish(&[&old]);
    let interval = Duration::from_millis(400);
    let server = serve_jwt(&authz.issuer, interval).await;
    let claims = good_claims(&authz.issuer, &server, "alice");
    assert_eq!(
        post_mcp(&server, Some(&old.sign(&claims)), &[], &initialize())
            .await
            .status,
        200
    );
    assert_eq!(authz.fetches(), 1);

    // The authorization server rotates: `new` replaces `old`. Within the interval, a token
    // under the new kid is refused without a fetch; so is a flood of made-up kids.
    authz.publish(&[&new]);
    let refused = post_mcp(&server, Some(&new.sign(&claims)), &[], &initialize()).await;
    assert_eq!(refused.status, 401);
    assert!(
        refused
            .challenge()
            .contains("the token's key is not one its issuer publishes")
    );
    let flood = (0..20).map(|i| TestKey::new(&format!("made-up-{i}")).sign(&claims));
    for token in flood {
        assert_eq!(
            post_mcp(&server, Some(&token), &[], &initialize())
                .await
                .status,
            401
        );
    }
    assert_eq!(authz.fetches(), 1);

    // After the interval, the unknown kid triggers one fetch and the token holds.
    tokio::time::sleep(interval).await;
    assert_eq!(
        post_mcp(&server, Some(&new.sign(&claims)), &[], &initialize())
            .await
            .status,
        200
    );
    assert_eq!(authz.fetches(), 2);
    // The retired key is gone with that fetch.
    let retired = post_mcp(&server, Some(&old.sign(&claims)), &[], &initialize()).await;
    assert_eq!(retired.status, 401);
    assert_eq!(authz.fetches(), 2);
}

#[tokio::test]
async fn a_session_belongs_to_the_subject_that_opened_it() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let alice = key.sign(&good_claims(&authz.issuer, &server, "alice"));
    let bob = key.sign(&good_claims(&authz.issuer, &server, "bob"));
    let session = open_session(&server, &alice).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let on_session = [("mcp-session-id", session.as_str())];
    assert_eq!(
        post_mcp(&server, Some(&bob), &on_session, &list)
            .await
            .status,
        404
    );
    let bob_auth = format!("Bearer {bob}");
    let get_stream = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", session.as_str()),
        ("authorization", bob_auth.as_str()),
    ];
    assert_eq!(
        send(server.addr, Method::GET, "/mcp", &get_stream, &Value::Null)
            .await
            .status,
        404
    );
    let delete = [
        ("mcp-session-id", session.as_str()),
        ("authorization", bob_auth.as_str()),
    ];
    assert_eq!(
        send(server.addr, Method::DELETE, "/mcp", &delete, &Value::Null)
            .await
            .status,
        404
    );
    // Alice's session survived both, and a new token of hers (a step-up, another client)
    // still finds it.
    let mut again = good_claims(&authz.issuer, &server, "alice");
    again["client_id"] = json!("another-client");
    again["scope"] = json!(format!("{SCOPE} admin"));
    let alice_again = key.sign(&again);
    assert_eq!(
        post_mcp(&server, Some(&alice_again), &on_session, &list)
            .await
            .status,
        200
    );
    let alice_auth = format!("Bearer {alice}");
    let get_stream = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", session.as_str()),
        ("authorization", alice_auth.as_str()),
    ];
    assert_eq!(
        send(server.addr, Method::GET, "/mcp", &get_stream, &Value::Null)
            .await
            .status,
        200
    );
    let delete = [
        ("mcp-session-id", session.as_str()),
        ("authorization", alice_auth.as_str()),
    ];
    assert_eq!(
        send(server.addr, Method::DELETE, "/mcp", &delete, &Value::Null)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn http_sse_routes_take_the_token_and_bind_the_stream_to_its_subject() {
    let authz = start_as().await;
    let key = TestKey::new("k1");
    authz.publish(&[&key]);
    let server = serve_jwt(&authz.issuer, Duration::from_secs(30)).await;
    let alice = format!(
        "Bearer {}",
        key.sign(&good_claims(&authz.issuer, &server, "alice"))
    );
    let bob = format!(
        "Bearer {}",
        key.sign(&good_claims(&authz.issuer, &server, "bob"))
    );
    // Open the stream by hand to read its endpoint event.
    let client: Client<HttpConnector, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let request = Request::get(format!("http://{}/sse", server.addr))
        .header("accept", "text/event-stream")
        .header("authorization", &alice)
        .body(Full::new(Bytes::new()))
        .unwrap();
    let response = client.request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut text = String::new();
    while !text.contains("\n\n") {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Some(data) = frame.data_ref() {
            text.push_str(std::str::from_utf8(data).unwrap());
        }
    }
    let endpoint = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap()
        .trim()
        .to_owned();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    let bob_post = send(
        server.addr,
        Method::POST,
        &endpoint,
        &[("authorization", &bob)],
        &init,
    )
    .await;
    assert_eq!(bob_post.status, 404);
    let alice_post = send(
        server.addr,
        Method::POST,
        &endpoint,
        &[("authorization", &alice)],
        &init,
    )
    .await;
    assert_eq!(alice_post.status, 202);
}

#[tokio::test]
async fn opaque_tokens_are_introspected_with_the_servers_credentials() {
    let authz = start_as().await;
    let issuer = authz.issuer.clone();
    let endpoint = format!("{issuer}/introspect");
    let server = serve(|resource| {
        let validator = IntrospectionValidator::new(&endpoint, resource, vec![issuer.clone()])
            .with_client(RS_CLIENT.0, RS_CLIENT.1);
        Arc::new(
            ResourceServer::new(resource, vec![issuer.clone()], validator)
                .with_required_scopes(vec![SCOPE.into()]),
        )
    })
    .await;
    let answer = |aud: &str| {
        json!({"active": true, "sub": "carol", "client_id": "app", "scope": SCOPE,
            "aud": aud, "iss": authz.issuer, "exp": now() + 300})
    };
    {
        let mut opaque = authz.state.opaque.lock().unwrap();
        opaque.insert("good".into(), answer(&server.resource));
        opaque.insert("elsewhere".into(), answer("http://127.0.0.1:1/mcp"));
    }
    assert_eq!(
        post_mcp(&server, Some("good"), &[], &initialize())
            .await
            .status,
        200
    );
    for token in ["elsewhere", "unknown"] {
        let reply = post_mcp(&server, Some(token), &[], &initialize()).await;
        assert_eq!(reply.status, 401, "{token}");
        assert!(
            reply
                .challenge()
                .starts_with("Bearer error=\"invalid_token\"")
        );
    }
    // With the wrong credentials the authorization server refuses to answer: the server
    // cannot decide, and says so with 503 rather than blaming the token.
    let wrong = serve(|resource| {
        let validator = IntrospectionValidator::new(&endpoint, resource, vec![issuer.clone()])
            .with_client(RS_CLIENT.0, "not-the-secret");
        Arc::new(ResourceServer::new(
            resource,
            vec![issuer.clone()],
            validator,
        ))
    })
    .await;
    assert_eq!(
        post_mcp(&wrong, Some("good"), &[], &initialize())
            .await
            .status,
        503
    );
}

#[tokio::test]
async fn an_unreachable_authorization_server_is_503_not_a_refused_token() {
    // A port nobody listens on.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let key = TestKey::new("k1");
    let server = serve_jwt(&issuer, Duration::from_secs(30)).await;
    let token = key.sign(&good_claims(&issuer, &server, "alice"));
    let reply = post_mcp(&server, Some(&token), &[], &initialize()).await;
    assert_eq!(reply.status, 503);
    assert_eq!(reply.challenge(), "");
}
