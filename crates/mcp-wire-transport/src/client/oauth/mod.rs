//! The OAuth 2.1 client of the MCP authorization spec (feature `oauth-client`): an
//! [`Authorizer`] the HTTP client transports ask for credentials, and which answers a server's
//! 401 or 403 by obtaining a token.
//!
//! On a refusal, [`OAuthClient`] finds who authorizes the server (protected resource metadata
//! from the challenge's `resource_metadata` or the well-known URIs, then the authorization
//! server's metadata; the 2025-03-26 fallbacks when there is none), checks that the metadata is
//! for this server (`resource`) and from the server it names (`issuer`), chooses the scopes (the
//! challenge's, else the resource's `scopes_supported`, else none; on `insufficient_scope` the
//! ones held plus the challenged ones; `offline_access` when the authorization server lists
//! it), identifies the client (pre-registered, a client ID metadata document, or dynamic
//! registration, in that order) and runs the grant: the authorization code flow with PKCE S256
//! and the `resource` parameter through a [`UserAgent`] (checking `state` and RFC 9207's `iss`),
//! or client credentials. A refresh token is used first when one is held. What it obtained is
//! kept in a [`TokenStore`].
//!
//! Tokens and secrets never appear in messages or `Debug` output ([`Secret`]). The HTTP is the
//! resource server's pluggable sender ([`OAuthHttp`]; `https://` with feature `tls`).

mod discovery;
#[cfg(feature = "jwt")]
mod dpop;
mod exchange;
mod redirect;
mod store;

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use serde_json::json;
use sha2::Digest as _;

use self::discovery::{AuthServer, Challenge, ResourceDocument, discover};
use self::exchange::{
    Answer, PostBody, basic_credentials, failed, form_encode_pairs, post, query_pairs,
};
use super::auth::{Authorizer, ChallengeFuture};
use crate::TransportError;
use crate::server::oauth::OAuthHttp;

pub use crate::Secret;
pub use redirect::{CallbackFuture, FollowRedirect, LoopbackBrowser, UserAgent};
pub use store::{FileTokenStore, MemoryTokenStore, Registration, Stored, TokenStore, Tokens};

/// A client registered with the authorization server beforehand.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PreRegistered {
    /// Its client id.
    pub client_id: String,
    /// Its secret (none: a public client, or one authenticating with a key).
    pub client_secret: Option<Secret>,
    /// Its private key, for `private_key_jwt` (RFC 7523 §2.2; feature `jwt`).
    pub private_key: Option<PrivateKey>,
}

impl PreRegistered {
    /// A client known by `client_id` alone (a public client).
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            private_key: None,
        }
    }

    /// Sets [`PreRegistered::client_secret`].
    pub fn secret(mut self, secret: Secret) -> Self {
        self.client_secret = Some(secret);
        self
    }

    /// Sets [`PreRegistered::private_key`].
    pub fn private_key(mut self, key: PrivateKey) -> Self {
        self.private_key = Some(key);
        self
    }
}

/// A client's signing key: PEM text and its JWS algorithm (`ES256`, `RS256`, …).
#[derive(Debug, Clone)]
pub struct PrivateKey {
    /// The key in PEM (PKCS#8 or SEC1 for EC keys, PKCS#1 or PKCS#8 for RSA).
    pub pem: Secret,
    /// The JWS algorithm it signs with.
    pub algorithm: String,
}

/// Where the assertion of a JWT bearer grant (RFC 7523 §2.1) comes from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Assertion {
    /// Given (a workload identity token from the platform).
    Given(Secret),
    /// Exchanged (RFC 8693) at an enterprise identity provider for an identity assertion
    /// authorization grant (an ID-JAG): the user's ID token for one naming the authorization
    /// server and the resource.
    TokenExchange {
        /// The identity provider's token endpoint.
        token_endpoint: String,
        /// This client's id at the identity provider.
        client_id: String,
        /// The user's ID token from the identity provider.
        id_token: Secret,
    },
}

/// How the client obtains tokens.
#[derive(Clone)]
#[non_exhaustive]
pub enum Grant {
    /// The authorization code flow, the user (or a non-interactive stand-in) taken through the
    /// authorization endpoint by the agent.
    AuthorizationCode(Arc<dyn UserAgent>),
    /// Client credentials (RFC 6749 §4.4): a service acting for itself; needs a
    /// [`PreRegistered`] client.
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523): an assertion from elsewhere traded for a token, once
    /// (a refused assertion is not retried, nor another grant tried).
    JwtBearer(Assertion),
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grant::AuthorizationCode(_) => "AuthorizationCode",
            Grant::ClientCredentials => "ClientCredentials",
            Grant::JwtBearer(_) => "JwtBearer",
        })
    }
}

/// What an [`OAuthClient`] works with.
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// How tokens are obtained.
    pub grant: Grant,
    /// Reaches the authorization servers.
    pub http: Arc<dyn OAuthHttp>,
    /// Keeps tokens and registrations.
    pub store: Arc<dyn TokenStore>,
    /// `client_name` of a dynamic registration.
    pub client_name: String,
    /// A client registered beforehand (used first).
    pub pre_registered: Option<PreRegistered>,
    /// The HTTPS URL of this client's metadata document, used as its client id where the
    /// authorization server takes such documents.
    pub client_metadata_url: Option<String>,
    /// Ask for DPoP-bound tokens (RFC 9449) where the authorization server offers ES256 proofs
    /// (feature `jwt`; without it the setting is refused when a token is obtained).
    pub dpop: bool,
}

impl OAuthConfig {
    /// A configuration for `grant`, with the built-in sender and a memory store.
    pub fn new(grant: Grant) -> Self {
        Self {
            grant,
            http: Arc::new(crate::server::oauth::HttpSender::default()),
            store: Arc::new(MemoryTokenStore::default()),
            client_name: "mcp-wire".to_owned(),
            pre_registered: None,
            client_metadata_url: None,
            dpop: false,
        }
    }

    /// Sets [`OAuthConfig::dpop`].
    pub fn dpop(mut self, dpop: bool) -> Self {
        self.dpop = dpop;
        self
    }

    /// Sets [`OAuthConfig::http`].
    pub fn http(mut self, http: Arc<dyn OAuthHttp>) -> Self {
        self.http = http;
        self
    }

    /// Sets [`OAuthConfig::store`].
    pub fn store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// Sets [`OAuthConfig::client_name`].
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Sets [`OAuthConfig::pre_registered`].
    pub fn pre_registered(mut self, client: PreRegistered) -> Self {
        self.pre_registered = Some(client);
        self
    }

    /// Sets [`OAuthConfig::client_metadata_url`].
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("grant", &self.grant)
            .field("client_name", &self.client_name)
            .field("pre_registered", &self.pre_registered)
            .field("client_metadata_url", &self.client_metadata_url)
            .finish_non_exhaustive()
    }
}

/// The OAuth client of one MCP server (see the module docs).
pub struct OAuthClient {
    server_url: String,
    config: OAuthConfig,
    /// The tokens requests carry now.
    current: RwLock<Option<Tokens>>,
    /// The DPoP key, when [`OAuthConfig::dpop`] is set.
    #[cfg(feature = "jwt")]
    dpop: Option<dpop::DpopKey>,
    /// The last DPoP nonces of the authorization server and of the MCP server.
    nonces: Mutex<Nonces>,
    /// The scopes last asked for (kept across a step-up).
    requested_scope: Mutex<Option<String>>,
    /// One authorization at a time.
    flow: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server_url", &self.server_url)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// The client of the MCP endpoint `server_url`, starting from the tokens its store holds.
    pub fn new(server_url: impl Into<String>, config: OAuthConfig) -> Result<Self, TransportError> {
        let server_url = server_url.into();
        let stored = config.store.load(&server_url)?;
        let current = stored
            .tokens
            .filter(|t| !t.expired(Duration::from_secs(30)));
        #[cfg(feature = "jwt")]
        let dpop = match config.dpop {
            true => Some(dpop::DpopKey::generate()?),
            false => None,
        };
        #[cfg(not(feature = "jwt"))]
        if config.dpop {
            return Err(failed("DPoP needs feature jwt"));
        }
        Ok(Self {
            server_url,
            config,
            current: RwLock::new(current),
            #[cfg(feature = "jwt")]
            dpop,
            nonces: Mutex::default(),
            requested_scope: Mutex::new(None),
            flow: tokio::sync::Mutex::new(()),
        })
    }

    /// Obtains a token now (as a first refusal would), without waiting for a server to ask.
    pub async fn authorize(&self) -> Result<(), TransportError> {
        let _flow = self.flow.lock().await;
        self.obtain(StatusCode::UNAUTHORIZED, &Challenge::default())
            .await
    }

    fn set_tokens(&self, tokens: &Tokens) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Some(tokens.clone());
    }

    /// A DPoP proof for a `method` request to `url`, when this client binds its tokens.
    #[cfg(feature = "jwt")]
    fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> Option<Result<String, TransportError>> {
        let key = self.dpop.as_ref()?;
        Some(key.proof(method, url, nonce, access_token))
    }

    #[cfg(not(feature = "jwt"))]
    fn proof(
        &self,
        _: &str,
        _: &str,
        _: Option<&str>,
        _: Option<&str>,
    ) -> Option<Result<String, TransportError>> {
        None
    }

    fn nonces(&self) -> std::sync::MutexGuard<'_, Nonces> {
        self.nonces.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers a refusal: a refresh when it can, else discovery, registration and the grant.
    async fn obtain(
        &self,
        status: StatusCode,
        challenge: &Challenge,
    ) -> Result<(), TransportError> {
        let http = self.config.http.as_ref();
        let mut stored = self.config.store.load(&self.server_url)?;
        let (resource, server) = discover(http, &self.server_url, challenge).await?;
        let step_up = status == StatusCode::FORBIDDEN
            || challenge.error.as_deref() == Some("insufficient_scope");
        if !step_up
            && let Some(tokens) = stored.tokens.clone()
            && let Some(refresh) = &tokens.refresh_token
            && tokens.issuer.as_deref() == Some(server.issuer.as_str())
            && let Some(registration) = registration_for(&stored, &server.issuer)
            && let Ok(fresh) = self
                .token_request(
                    &server,
                    &registration,
                    &[
                        ("grant_type", "refresh_token"),
                        ("refresh_token", refresh.expose()),
                    ],
                    resource.as_ref(),
                )
                .await
        {
            return self.keep(&mut stored, fresh);
        }
        let scope = self.scope(step_up, challenge, resource.as_ref(), &server);
        *self
            .requested_scope
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = scope.clone();
        let registration = self.registration(&server, &mut stored).await?;
        let tokens = match &self.config.grant {
            Grant::AuthorizationCode(agent) => {
                self.code_flow(
                    agent.as_ref(),
                    &server,
                    &registration,
                    scope.as_deref(),
                    resource.as_ref(),
                )
                .await?
            }
            Grant::ClientCredentials => {
                let mut fields = vec![("grant_type", "client_credentials")];
                if let Some(scope) = &scope {
                    fields.push(("scope", scope));
                }
                self.token_request(&server, &registration, &fields, resource.as_ref())
                    .await?
            }
            Grant::JwtBearer(assertion) => {
                let assertion = self
                    .assertion(assertion, &server, resource.as_ref())
                    .await?;
                let mut fields = vec![
                    ("grant_type", JWT_BEARER_GRANT),
                    ("assertion", assertion.expose()),
                ];
                if let Some(scope) = &scope {
                    fields.push(("scope", scope));
                }
                self.token_request(&server, &registration, &fields, resource.as_ref())
                    .await?
            }
        };
        self.keep(&mut stored, tokens)
    }

    /// The assertion of a JWT bearer grant at `server`.
    async fn assertion(
        &self,
        assertion: &Assertion,
        server: &AuthServer,
        resource: Option<&ResourceDocument>,
    ) -> Result<Secret, TransportError> {
        let (token_endpoint, client_id, id_token) = match assertion {
            Assertion::Given(assertion) => return Ok(assertion.clone()),
            Assertion::TokenExchange {
                token_endpoint,
                client_id,
                id_token,
            } => (token_endpoint, client_id, id_token),
        };
        let resource = resource.map_or(self.server_url.as_str(), |r| r.resource.as_str());
        let fields = [
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag",
            ),
            ("subject_token", id_token.expose()),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
            ("audience", server.issuer.as_str()),
            ("resource", resource),
            ("client_id", client_id.as_str()),
        ];
        let answer = post(
            self.config.http.as_ref(),
            token_endpoint,
            PostBody::Form(&fields),
            &[],
        )
        .await?;
        if answer.status != StatusCode::OK {
            return Err(failed(format!(
                "token exchange at {token_endpoint}: {}",
                answer.describe()
            )));
        }
        answer.body["access_token"]
            .as_str()
            .map(Secret::new)
            .ok_or_else(|| {
                failed(format!(
                    "token exchange at {token_endpoint}: no access_token"
                ))
            })
    }

    fn keep(&self, stored: &mut Stored, tokens: Tokens) -> Result<(), TransportError> {
        self.set_tokens(&tokens);
        stored.tokens = Some(tokens);
        self.config.store.save(&self.server_url, stored)
    }

    /// The scopes to ask for (see the module docs).
    fn scope(
        &self,
        step_up: bool,
        challenge: &Challenge,
        resource: Option<&ResourceDocument>,
        server: &AuthServer,
    ) -> Option<String> {
        let mut scopes: Vec<String> = Vec::new();
        let mut add = |text: &str| {
            for scope in text.split_whitespace() {
                if !scopes.iter().any(|s| s == scope) {
                    scopes.push(scope.to_owned());
                }
            }
        };
        if step_up
            && let Some(held) = self
                .requested_scope
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_deref()
        {
            add(held);
        }
        match (
            &challenge.scope,
            resource.and_then(|r| r.scopes_supported.as_ref()),
        ) {
            (Some(challenged), _) => add(challenged),
            (None, Some(supported)) => add(&supported.join(" ")),
            (None, None) => {}
        }
        if server.supports_scope("offline_access") {
            add("offline_access");
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// The client's registration at `server`: the one kept, else pre-registered, a metadata
    /// document, or a new dynamic registration (kept in `stored`).
    async fn registration(
        &self,
        server: &AuthServer,
        stored: &mut Stored,
    ) -> Result<Registration, TransportError> {
        if let Some(registration) = registration_for(stored, &server.issuer) {
            return Ok(registration);
        }
        let registration = if let Some(client) = &self.config.pre_registered {
            let method = match &client.private_key {
                Some(_) => "private_key_jwt".to_owned(),
                None => auth_method(server, client.client_secret.is_some()),
            };
            Registration {
                issuer: server.issuer.clone(),
                client_id: client.client_id.clone(),
                token_endpoint_auth_method: method,
                client_secret: client.client_secret.clone(),
            }
        } else if let (true, Some(url)) = (
            server.client_id_metadata_document_supported,
            &self.config.client_metadata_url,
        ) {
            Registration {
                issuer: server.issuer.clone(),
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: "none".to_owned(),
            }
        } else {
            self.register(server).await?
        };
        stored.registrations.push(registration.clone());
        Ok(registration)
    }

    /// Dynamic client registration (RFC 7591).
    async fn register(&self, server: &AuthServer) -> Result<Registration, TransportError> {
        let endpoint = server.registration_endpoint.as_deref().ok_or_else(|| {
            failed(format!(
                "{} takes no dynamic registration and no client is configured",
                server.issuer
            ))
        })?;
        let mut metadata = json!({
            "client_name": self.config.client_name,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        });
        match &self.config.grant {
            Grant::AuthorizationCode(agent) => {
                metadata["redirect_uris"] = json!([agent.redirect_uri()]);
            }
            Grant::ClientCredentials => {
                metadata["grant_types"] = json!(["client_credentials"]);
                metadata["redirect_uris"] = json!([]);
            }
            Grant::JwtBearer(_) => {
                metadata["grant_types"] = json!([JWT_BEARER_GRANT]);
                metadata["redirect_uris"] = json!([]);
            }
        }
        if let Some(methods) = &server.token_endpoint_auth_methods
            && !methods.iter().any(|m| m == "none")
        {
            metadata["token_endpoint_auth_method"] = json!(auth_method(server, true));
        }
        let answer = post(
            self.config.http.as_ref(),
            endpoint,
            PostBody::Json(&metadata),
            &[],
        )
        .await?;
        if !answer.status.is_success() {
            return Err(failed(format!(
                "dynamic registration at {endpoint}: {}",
                answer.describe()
            )));
        }
        let client_id = answer.body["client_id"]
            .as_str()
            .ok_or_else(|| failed(format!("dynamic registration at {endpoint}: no client_id")))?;
        let client_secret = answer.body["client_secret"].as_str().map(Secret::new);
        let method = answer.body["token_endpoint_auth_method"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| auth_method(server, client_secret.is_some()));
        Ok(Registration {
            issuer: server.issuer.clone(),
            client_id: client_id.to_owned(),
            client_secret,
            token_endpoint_auth_method: method,
        })
    }

    /// The authorization code flow with PKCE S256.
    async fn code_flow(
        &self,
        agent: &dyn UserAgent,
        server: &AuthServer,
        registration: &Registration,
        scope: Option<&str>,
        resource: Option<&ResourceDocument>,
    ) -> Result<Tokens, TransportError> {
        let verifier = random_text(32)?;
        let code_challenge = base64url(&sha2::Sha256::digest(verifier.as_bytes()));
        let state = random_text(16)?;
        let redirect_uri = agent.redirect_uri();
        let mut fields = vec![
            ("response_type", "code"),
            ("client_id", registration.client_id.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_challenge", code_challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
        ];
        if let Some(scope) = scope {
            fields.push(("scope", scope));
        }
        if let Some(resource) = resource {
            fields.push(("resource", resource.resource.as_str()));
        }
        let endpoint = &server.authorization_endpoint;
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", form_encode_pairs(&fields));
        let callback = agent.authorize(&url).await?;
        let response = query_pairs(&callback);
        let param = |name: &str| {
            response
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if let Some(error) = param("error") {
            return Err(failed(format!("the authorization server answered {error}")));
        }
        if param("state") != Some(state.as_str()) {
            return Err(failed(
                "the authorization response's state is not the one sent",
            ));
        }
        match (param("iss"), server.iss_parameter_supported) {
            (Some(iss), _) if iss != server.issuer => {
                return Err(failed(format!(
                    "the authorization response comes from issuer {iss}, not {}",
                    server.issuer
                )));
            }
            (None, true) => {
                return Err(failed(
                    "the authorization response lacks the iss its server promises (RFC 9207)",
                ));
            }
            _ => {}
        }
        let code = param("code").ok_or_else(|| failed("the authorization response has no code"))?;
        let fields = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_verifier", verifier.as_str()),
        ];
        self.token_request(server, registration, &fields, resource)
            .await
    }

    /// A token request with `fields`, the client authenticated as registered and the
    /// resource named.
    async fn token_request(
        &self,
        server: &AuthServer,
        registration: &Registration,
        fields: &[(&str, &str)],
        resource: Option<&ResourceDocument>,
    ) -> Result<Tokens, TransportError> {
        let mut fields = fields.to_vec();
        if let Some(resource) = resource {
            fields.push(("resource", resource.resource.as_str()));
        }
        let mut headers: Vec<(HeaderName, HeaderValue)> = Vec::new();
        let secret = registration.client_secret.as_ref().map(Secret::expose);
        let client_assertion;
        match (registration.token_endpoint_auth_method.as_str(), secret) {
            ("private_key_jwt", _) => {
                client_assertion = self.client_assertion(registration, server)?;
                fields.push(("client_id", registration.client_id.as_str()));
                fields.push(("client_assertion_type", CLIENT_ASSERTION_TYPE));
                fields.push(("client_assertion", client_assertion.expose()));
            }
            ("client_secret_basic", Some(secret)) => {
                headers.push((
                    header::AUTHORIZATION,
                    basic_credentials(&registration.client_id, secret),
                ));
            }
            ("client_secret_post", Some(secret)) => {
                fields.push(("client_id", registration.client_id.as_str()));
                fields.push(("client_secret", secret));
            }
            _ => fields.push(("client_id", registration.client_id.as_str())),
        }
        let dpop = server
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256"));
        let mut answer = None;
        // A DPoP nonce challenge (RFC 9449 §8) is answered once, with the nonce it gives.
        for _ in 0..2 {
            let mut headers = headers.clone();
            if dpop {
                let nonce = self.nonces().token.clone();
                if let Some(proof) =
                    self.proof("POST", &server.token_endpoint, nonce.as_deref(), None)
                {
                    headers.push((DPOP_HEADER, header_value(&proof?)?));
                }
            }
            let posted = post(
                self.config.http.as_ref(),
                &server.token_endpoint,
                PostBody::Form(&fields),
                &headers,
            )
            .await?;
            let challenge = posted.error_code() == Some("use_dpop_nonce");
            let nonce = posted
                .headers
                .get(&DPOP_NONCE_HEADER)
                .and_then(|v| v.to_str().ok());
            if let (true, Some(nonce)) = (challenge, nonce) {
                self.nonces().token = Some(nonce.to_owned());
                answer = Some(posted);
                continue;
            }
            answer = Some(posted);
            break;
        }
        let answer = answer.ok_or_else(|| failed("no token request was made"))?;
        read_tokens(&answer, &server.issuer)
            .map_err(|e| failed(format!("token request at {}: {e}", server.token_endpoint)))
    }
}

impl OAuthClient {
    /// The signed JWT a `private_key_jwt` client authenticates with (RFC 7523 §2.2): issued by
    /// and about the client, for the authorization server's issuer, good for five minutes.
    #[cfg(feature = "jwt")]
    fn client_assertion(
        &self,
        registration: &Registration,
        server: &AuthServer,
    ) -> Result<Secret, TransportError> {
        let key = self
            .config
            .pre_registered
            .as_ref()
            .and_then(|c| c.private_key.as_ref())
            .ok_or_else(|| failed("private_key_jwt needs the client's private key"))?;
        let algorithm: jsonwebtoken::Algorithm = key
            .algorithm
            .parse()
            .map_err(|_| failed(format!("unknown signing algorithm {}", key.algorithm)))?;
        let der = pem_body(key.pem.expose())
            .ok_or_else(|| failed("the client's private key is not PEM text"))?;
        let encoding = match algorithm {
            jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
                jsonwebtoken::EncodingKey::from_ec_der(&der)
            }
            jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_der(&der),
            _ => jsonwebtoken::EncodingKey::from_rsa_der(&der),
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let claims = json!({
            "iss": registration.client_id,
            "sub": registration.client_id,
            "aud": server.issuer,
            "iat": now,
            "exp": now + 300,
            "jti": random_text(16)?,
        });
        let header = jsonwebtoken::Header::new(algorithm);
        jsonwebtoken::encode(&header, &claims, &encoding)
            .map(Secret::new)
            .map_err(|e| failed(format!("signing the client assertion: {e}")))
    }

    #[cfg(not(feature = "jwt"))]
    fn client_assertion(&self, _: &Registration, _: &AuthServer) -> Result<Secret, TransportError> {
        Err(failed("private_key_jwt needs feature jwt"))
    }
}

/// The DER bytes of a PEM block (its base64 lines between the `-----` markers).
#[cfg(feature = "jwt")]
fn pem_body(pem: &str) -> Option<Vec<u8>> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("-----"))
        .collect();
    base64::engine::general_purpose::STANDARD.decode(body).ok()
}

/// The grant type of RFC 7523 §2.1.
const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The client assertion type of RFC 7523 §2.2.
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

impl Authorizer for OAuthClient {
    fn request_headers(&self, method: &Method, url: &Uri) -> Vec<(HeaderName, HeaderValue)> {
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        let Some(tokens) = current.as_ref() else {
            return Vec::new();
        };
        let token = tokens.access_token.expose();
        if tokens.token_type.eq_ignore_ascii_case("DPoP") {
            let nonce = self.nonces().resource.clone();
            let proof = self.proof(
                method.as_str(),
                &url.to_string(),
                nonce.as_deref(),
                Some(token),
            );
            if let Some(Ok(proof)) = proof
                && let (Ok(authorization), Ok(proof)) =
                    (header_value(&format!("DPoP {token}")), header_value(&proof))
            {
                return vec![(header::AUTHORIZATION, authorization), (DPOP_HEADER, proof)];
            }
            return Vec::new();
        }
        match header_value(&format!("Bearer {token}")) {
            Ok(value) => vec![(header::AUTHORIZATION, value)],
            Err(_) => Vec::new(),
        }
    }

    fn challenged<'a>(
        &'a self,
        _url: &'a Uri,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> ChallengeFuture<'a> {
        Box::pin(async move {
            let challenge = Challenge::of(headers);
            // A DPoP nonce challenge (RFC 9449 §9): the same token again, with the nonce.
            let nonce = headers
                .get(&DPOP_NONCE_HEADER)
                .and_then(|v| v.to_str().ok());
            if challenge.error.as_deref() == Some("use_dpop_nonce")
                && let Some(nonce) = nonce
            {
                let mut nonces = self.nonces();
                if nonces.resource.as_deref() != Some(nonce) {
                    nonces.resource = Some(nonce.to_owned());
                    return Ok(true);
                }
            }
            let _flow = self.flow.lock().await;
            self.obtain(status, &challenge).await?;
            Ok(true)
        })
    }
}

/// The registration kept for `issuer`.
fn registration_for(stored: &Stored, issuer: &str) -> Option<Registration> {
    stored
        .registrations
        .iter()
        .find(|r| r.issuer == issuer)
        .cloned()
}

/// How a client with (or without) a secret authenticates at `server`'s token endpoint.
fn auth_method(server: &AuthServer, has_secret: bool) -> String {
    let method = if !has_secret {
        "none"
    } else if server.takes_auth_method("client_secret_basic") {
        "client_secret_basic"
    } else if server.takes_auth_method("client_secret_post") {
        "client_secret_post"
    } else {
        "client_secret_basic"
    };
    method.to_owned()
}

/// The tokens of a token endpoint's answer.
fn read_tokens(answer: &Answer, issuer: &str) -> Result<Tokens, String> {
    if answer.status != StatusCode::OK {
        return Err(answer.describe());
    }
    let body = &answer.body;
    let access_token = body["access_token"]
        .as_str()
        .ok_or("the answer has no access_token")?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    Ok(Tokens {
        access_token: Secret::new(access_token),
        token_type: body["token_type"].as_str().unwrap_or("Bearer").to_owned(),
        refresh_token: body["refresh_token"].as_str().map(Secret::new),
        expires_at: body["expires_in"].as_u64().map(|s| now.saturating_add(s)),
        scope: body["scope"].as_str().map(str::to_owned),
        issuer: Some(issuer.to_owned()),
    })
}

/// A credential-bearing header value (marked sensitive, so header dumps hide it); an error
/// that does not quote it when it holds characters a header cannot carry.
fn header_value(text: &str) -> Result<HeaderValue, TransportError> {
    let mut value = HeaderValue::from_str(text)
        .map_err(|_| failed("a credential holds characters a header cannot carry"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// `DPoP` (RFC 9449 §4.1).
const DPOP_HEADER: HeaderName = HeaderName::from_static("dpop");
/// `DPoP-Nonce` (RFC 9449 §8, §9).
const DPOP_NONCE_HEADER: HeaderName = HeaderName::from_static("dpop-nonce");

/// The DPoP nonces servers handed out, each used in the next proof to that server.
#[derive(Debug, Default)]
struct Nonces {
    token: Option<String>,
    resource: Option<String>,
}

/// `bytes` random bytes, base64url without padding.
fn random_text(bytes: usize) -> Result<String, TransportError> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|e| failed(format!("no randomness: {e}")))?;
    Ok(base64url(&buffer))
}

fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pkce_challenge_is_the_base64url_sha256_of_the_verifier() {
        let verifier = "dBjftJeZ4CVP-mB92K9uhvZ1ohNKGBTZ4nYpW1Jc_Mk";
        let challenge = base64url(&sha2::Sha256::digest(verifier.as_bytes()));
        assert_eq!(challenge, "5xAftc5P1qTIXueZKZ2x6tzNO-SbKkm_infze9T7K84");
        let random = random_text(32).unwrap();
        assert_eq!(random.len(), 43);
        assert_ne!(random, random_text(32).unwrap());
    }
}
