//! What the OAuth tests share: a mock authorization server on loopback (RFC 8414 metadata, a
//! key set, introspection, a client-credentials token endpoint), Ed25519 keys and tokens minted
//! by the test, and one HTTP exchange.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::routing::{get, post};
use base64::Engine as _;
use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The scope the protected servers of the tests require.
pub const SCOPE: &str = "mcp:tools";

/// Now, in unix seconds.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// base64url without padding (a JWT part).
pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// An Ed25519 signing key minted for the test, and its public JWK.
pub struct TestKey {
    /// Its key id.
    pub kid: String,
    /// The private key.
    pub encoding: EncodingKey,
    /// The public key as a JWK (`kid`, `alg: EdDSA`, `use: sig`).
    pub jwk: Value,
}

impl TestKey {
    /// A fresh random key named `kid`.
    pub fn new(kid: &str) -> Self {
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).unwrap();
        // PKCS#8 for an Ed25519 seed: a fixed prefix, then the 32 bytes (RFC 8410).
        let mut der = vec![
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22,
            0x04, 0x20,
        ];
        der.extend_from_slice(&seed);
        let encoding = EncodingKey::from_ed_der(&der);
        let mut jwk =
            serde_json::to_value(Jwk::from_encoding_key(&encoding, Algorithm::EdDSA).unwrap())
                .unwrap();
        jwk["kid"] = json!(kid);
        jwk["alg"] = json!("EdDSA");
        jwk["use"] = json!("sig");
        Self {
            kid: kid.to_owned(),
            encoding,
            jwk,
        }
    }

    /// The public key's bytes (what an HMAC "keyed with the public key" would use).
    pub fn public_bytes(&self) -> Vec<u8> {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(self.jwk["x"].as_str().unwrap())
            .unwrap()
    }

    /// `claims` as a JWT signed with this key (EdDSA, its `kid` in the header).
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

/// What the mock authorization server serves and counts.
#[derive(Default)]
pub struct AsState {
    /// Its issuer identifier (`http://127.0.0.1:PORT`).
    pub issuer: String,
    /// The JWKs its key set publishes.
    pub keys: Mutex<Vec<Value>>,
    /// How often the key set was fetched.
    pub jwks_fetches: AtomicUsize,
    /// Opaque token → its introspection answer.
    pub opaque: Mutex<HashMap<String, Value>>,
    /// The key the token endpoint signs with.
    pub signer: Mutex<Option<(String, EncodingKey)>>,
    /// The form of every token request, decoded.
    pub token_requests: Mutex<Vec<HashMap<String, String>>>,
}

/// A running mock authorization server (stopped when dropped).
pub struct MockAs {
    /// Its issuer identifier.
    pub issuer: String,
    /// What it serves and counts.
    pub state: Arc<AsState>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockAs {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The client credentials the resource server presents at the introspection endpoint.
pub const RS_CLIENT: (&str, &str) = ("mcp-server", "rs-secret");

/// A JSON answer (the crate's axum has no `Json` extractor).
pub fn json_reply(status: StatusCode, value: Value) -> axum::response::Response {
    let mut r = axum::response::Response::new(axum::body::Body::from(value.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

async fn metadata(State(s): State<Arc<AsState>>) -> axum::response::Response {
    json_reply(
        StatusCode::OK,
        json!({
            "issuer": s.issuer,
            "jwks_uri": format!("{}/jwks", s.issuer),
            "introspection_endpoint": format!("{}/introspect", s.issuer),
            "token_endpoint": format!("{}/token", s.issuer),
            // Named because clients' metadata schemas require it; only the client credentials
            // grant is served.
            "authorization_endpoint": format!("{}/authorize", s.issuer),
            "response_types_supported": ["code"],
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "scopes_supported": [SCOPE],
        }),
    )
}

async fn jwks(State(s): State<Arc<AsState>>) -> axum::response::Response {
    s.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let keys = s.keys.lock().unwrap().clone();
    json_reply(StatusCode::OK, json!({"keys": keys}))
}

/// Introspection (RFC 7662) for the resource server `RS_CLIENT`.
async fn introspect(
    State(s): State<Arc<AsState>>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", RS_CLIENT.0, RS_CLIENT.1))
    );
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return json_reply(StatusCode::UNAUTHORIZED, json!({"error": "invalid_client"}));
    }
    let form = form_decode(&body);
    let token = form.get("token").map_or("", String::as_str);
    let answer = s
        .opaque
        .lock()
        .unwrap()
        .get(token)
        .cloned()
        .unwrap_or_else(|| json!({"active": false}));
    json_reply(StatusCode::OK, answer)
}

/// Starts a mock authorization server on a free loopback port: RFC 8414 metadata at
/// `/.well-known/oauth-authorization-server`, `/jwks`, `/introspect`, `/token`.
pub async fn start_as() -> MockAs {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(AsState {
        issuer: issuer.clone(),
        ..AsState::default()
    });
    let app = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/jwks", get(jwks))
        .route("/introspect", post(introspect))
        .route("/token", post(token))
        .with_state(state.clone());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    MockAs {
        issuer,
        state,
        task,
    }
}

impl MockAs {
    /// The token endpoint signs with `key` from now on.
    pub fn sign_with(&self, key: &TestKey) {
        *self.state.signer.lock().unwrap() = Some((key.kid.clone(), key.encoding.clone()));
    }

    /// The key set publishes `keys` (and only them) from now on.
    pub fn publish(&self, keys: &[&TestKey]) {
        *self.state.keys.lock().unwrap() = keys.iter().map(|k| k.jwk.clone()).collect();
    }

    /// How often the key set was fetched.
    pub fn fetches(&self) -> usize {
        self.state.jwks_fetches.load(Ordering::SeqCst)
    }
}

/// An HTTP answer.
pub struct Reply {
    /// Its status.
    pub status: u16,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body (empty for an event stream).
    pub body: String,
}

impl Reply {
    /// The `WWW-Authenticate` header (empty when there is none).
    pub fn challenge(&self) -> &str {
        self.headers
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The JSON-RPC messages of the body (JSON, or SSE `data:` lines).
    pub fn messages(&self) -> Vec<Value> {
        if self.body.trim_start().starts_with('{') {
            return vec![serde_json::from_str(&self.body).unwrap()];
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    }
}

/// One HTTP exchange; an event stream (which stays open) is not read further.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Reply {
    let client: Client<HttpConnector, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let mut request = Request::builder()
        .method(method.clone())
        .uri(format!("http://{addr}{path}"));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let body = match body {
        Value::Null => Bytes::new(),
        v => {
            request = request.header("content-type", "application/json");
            Bytes::from(v.to_string())
        }
    };
    let exchange = async {
        let response = client
            .request(request.body(Full::new(body)).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let (parts, body) = response.into_parts();
        let stream = parts
            .headers
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = if method == Method::GET && stream {
            String::new()
        } else {
            String::from_utf8(body.collect().await.unwrap().to_bytes().to_vec()).unwrap()
        };
        Reply {
            status,
            headers: parts.headers,
            body,
        }
    };
    tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .expect("an answer in time")
}

/// Opens a 2025-11-25 session at `http://{addr}/mcp` (with `authorization` on every request
/// when given), calls the `greet` tool with `name: alice` and returns the text it answered.
pub async fn greet_alice(addr: SocketAddr, authorization: Option<&str>) -> String {
    let mut headers = vec![("accept", "application/json, text/event-stream")];
    if let Some(value) = authorization {
        headers.push(("authorization", value));
    }
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "greet-alice", "version": "1"}}});
    let opened = send(addr, Method::POST, "/mcp", &headers, &init).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let session = opened.headers["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    headers.push(("mcp-session-id", &session));
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "alice"}}});
    let called = send(addr, Method::POST, "/mcp", &headers, &call).await;
    let messages = called.messages();
    messages[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text answer: {}", called.body))
        .to_owned()
}

/// The JSON-RPC messages of an SSE response `body`, each sent on the returned channel as its
/// event arrives (for a stream that stays open); the channel closes when the body ends.
pub fn sse_messages<B>(mut body: B) -> tokio::sync::mpsc::UnboundedReceiver<Value>
where
    B: http_body::Body<Data = Bytes> + Send + Unpin + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut text = String::new();
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(chunk) = frame.into_data() else {
                continue;
            };
            text.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = text.find("\n\n") {
                let event: String = text.drain(..end + 2).collect();
                for data in event.lines().filter_map(|l| l.strip_prefix("data:")) {
                    if let Ok(message) = serde_json::from_str::<Value>(data.trim())
                        && tx.send(message).is_err()
                    {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// The client the token endpoint knows (client credentials grant).
pub const PEER_CLIENT: (&str, &str) = ("peer-client", "peer-secret");

/// `application/x-www-form-urlencoded` decoded.
pub fn form_decode(body: &str) -> HashMap<String, String> {
    let decode = |text: &str| {
        let bytes = text.replace('+', " ").into_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
                (b'%', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// The client credentials grant (RFC 6749 §4.4): a JWT for the requested `resource` (RFC 8707)
/// and scope, to `PEER_CLIENT` authenticated by HTTP Basic or in the form.
async fn token(
    State(s): State<Arc<AsState>>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    let form = form_decode(&body);
    s.token_requests.lock().unwrap().push(form.clone());
    let basic = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| base64::engine::general_purpose::STANDARD.decode(v).ok())
        .map(|v| String::from_utf8_lossy(&v).into_owned());
    let presented = match basic {
        Some(pair) => {
            let (id, secret) = pair.split_once(':').unwrap_or((&pair, ""));
            (
                form_decode(&format!("i={id}"))["i"].clone(),
                form_decode(&format!("s={secret}"))["s"].clone(),
            )
        }
        None => (
            form.get("client_id").cloned().unwrap_or_default(),
            form.get("client_secret").cloned().unwrap_or_default(),
        ),
    };
    if presented != (PEER_CLIENT.0.to_owned(), PEER_CLIENT.1.to_owned()) {
        return json_reply(StatusCode::UNAUTHORIZED, json!({"error": "invalid_client"}));
    }
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return json_reply(
            StatusCode::BAD_REQUEST,
            json!({"error": "unsupported_grant_type"}),
        );
    }
    let scope = form
        .get("scope")
        .cloned()
        .unwrap_or_else(|| SCOPE.to_owned());
    let mut claims = json!({"iss": s.issuer, "sub": PEER_CLIENT.0, "client_id": PEER_CLIENT.0,
        "scope": scope, "iat": now(), "exp": now() + 300});
    if let Some(resource) = form.get("resource") {
        claims["aud"] = json!(resource);
    }
    let Some((kid, key)) = s.signer.lock().unwrap().clone() else {
        return json_reply(StatusCode::SERVICE_UNAVAILABLE, json!({"error": "no key"}));
    };
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid);
    let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    json_reply(
        StatusCode::OK,
        json!({"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": scope}),
    )
}
