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

pub use redirect::{CallbackFuture, FollowRedirect, LoopbackBrowser, UserAgent};
pub use store::{FileStore, MemoryStore, Registration, Secret, Stored, TokenStore, Tokens};

/// A client registered with the authorization server beforehand.
#[derive(Debug, Clone)]
pub struct PreRegistered {
    /// Its client id.
    pub client_id: String,
    /// Its secret (none: a public client).
    pub client_secret: Option<Secret>,
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
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grant::AuthorizationCode(_) => "AuthorizationCode",
            Grant::ClientCredentials => "ClientCredentials",
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
}

impl OAuthConfig {
    /// A configuration for `grant`, with the built-in sender and a memory store.
    pub fn new(grant: Grant) -> Self {
        Self {
            grant,
            http: Arc::new(crate::server::oauth::HttpSender::default()),
            store: Arc::new(MemoryStore::default()),
            client_name: "mcp-wire".to_owned(),
            pre_registered: None,
            client_metadata_url: None,
        }
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
    /// The `Authorization` value requests carry now.
    header: RwLock<Option<HeaderValue>>,
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
        let header = stored
            .tokens
            .as_ref()
            .filter(|t| !t.expired(Duration::from_secs(30)))
            .map(authorization_value);
        Ok(Self {
            server_url,
            config,
            header: RwLock::new(header),
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
        *self.header.write().unwrap_or_else(|e| e.into_inner()) = Some(authorization_value(tokens));
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
        };
        self.keep(&mut stored, tokens)
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
            Registration {
                issuer: server.issuer.clone(),
                client_id: client.client_id.clone(),
                token_endpoint_auth_method: auth_method(server, client.client_secret.is_some()),
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
        match (registration.token_endpoint_auth_method.as_str(), secret) {
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
        let answer = post(
            self.config.http.as_ref(),
            &server.token_endpoint,
            PostBody::Form(&fields),
            &headers,
        )
        .await?;
        read_tokens(&answer, &server.issuer)
            .map_err(|e| failed(format!("token request at {}: {e}", server.token_endpoint)))
    }
}

impl Authorizer for OAuthClient {
    fn request_headers(&self, _: &Method, _: &Uri) -> Vec<(HeaderName, HeaderValue)> {
        let header = self.header.read().unwrap_or_else(|e| e.into_inner());
        header
            .iter()
            .map(|v| (header::AUTHORIZATION, v.clone()))
            .collect()
    }

    fn challenged<'a>(
        &'a self,
        _url: &'a Uri,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> ChallengeFuture<'a> {
        Box::pin(async move {
            let challenge = Challenge::of(headers);
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

/// `Authorization: Bearer …` (marked sensitive, so header dumps hide it).
fn authorization_value(tokens: &Tokens) -> HeaderValue {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", tokens.access_token.expose()))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    value.set_sensitive(true);
    value
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
