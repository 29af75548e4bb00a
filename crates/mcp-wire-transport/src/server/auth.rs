//! The authentication hook: an HTTP request's head → the principal the request acts for, or the
//! answer that refuses it; and the protected resource metadata (RFC 9728) a hook that takes part
//! in OAuth publishes beside the endpoint.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use http::StatusCode;
use serde::Serialize;

/// Who a request acts for, as the authentication hook decided.
///
/// Sessions, tasks and (in `mcp-wire-variants`) variant lists, cursors and subscriptions are
/// bound to the principal's identity, [`Principal::key`]: its subject qualified by the issuer
/// that vouched for it. Scopes and the client id are not part of the identity, so a client that
/// comes back with a token carrying more scopes (a step-up) keeps its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    subject: Arc<str>,
    issuer: Option<Arc<str>>,
    client_id: Option<Arc<str>>,
    scopes: Arc<[String]>,
    key: Arc<str>,
}

impl Principal {
    /// The principal of unauthenticated requests.
    pub fn anonymous() -> Self {
        // Made once: every unauthenticated request shares it.
        static ANONYMOUS: std::sync::OnceLock<Principal> = std::sync::OnceLock::new();
        ANONYMOUS
            .get_or_init(|| Self::new("anonymous", Vec::new()))
            .clone()
    }

    /// A named principal with scopes.
    pub fn new(subject: impl Into<Arc<str>>, scopes: Vec<String>) -> Self {
        let subject = subject.into();
        Self {
            key: subject.clone(),
            subject,
            issuer: None,
            client_id: None,
            scopes: Arc::from(scopes),
        }
    }

    /// The same principal as vouched for by `issuer` (an OAuth authorization server): its
    /// identity becomes the pair (issuer, subject).
    pub fn with_issuer(mut self, issuer: impl Into<Arc<str>>) -> Self {
        let issuer = issuer.into();
        self.key = Arc::from(format!("{issuer} {}", self.subject));
        self.issuer = Some(issuer);
        self
    }

    /// The same principal acting through the OAuth client `client_id`.
    pub fn with_client_id(mut self, client_id: impl Into<Arc<str>>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The principal's name (`"anonymous"` when no hook is installed; a token's `sub`).
    pub fn subject(&self) -> &Arc<str> {
        &self.subject
    }

    /// The authorization server that issued the principal's token, if one did.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The OAuth client the request came through, when the token names one.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Scopes or roles the hook granted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The identity everything a principal owns is bound to: the subject, or for a principal
    /// an issuer vouched for, `"<issuer> <subject>"` (an issuer URL holds no space).
    pub fn key(&self) -> &Arc<str> {
        &self.key
    }

    /// Whether `other` is the same identity (scopes and client id aside).
    pub fn same_identity(&self, other: &Principal) -> bool {
        self.key == other.key
    }
}

/// Why the hook refused a request: the HTTP status (401 when no valid credential came, 403 when
/// it lacks a scope, 400 for a malformed one, 503 when the hook could not decide) and the
/// `WWW-Authenticate` challenge sent with it. Neither ever quotes the credential.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuthRejection {
    /// The answer's status.
    pub status: StatusCode,
    /// The `WWW-Authenticate` challenge, when the answer carries one.
    pub challenge: Option<String>,
}

impl AuthRejection {
    /// 401 with `challenge`.
    pub fn unauthorized(challenge: impl Into<String>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            challenge: Some(challenge.into()),
        }
    }

    /// 403 with `challenge` (a valid credential without what the request needs).
    pub fn forbidden(challenge: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            challenge: Some(challenge.into()),
        }
    }

    /// 400 with `challenge` (a credential sent in a way the server refuses).
    pub fn bad_request(challenge: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            challenge: Some(challenge.into()),
        }
    }

    /// 503 without a challenge: the hook could not decide now (its authorization server is
    /// unreachable), the client may retry.
    pub fn unavailable() -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            challenge: None,
        }
    }
}

/// What [`Authenticator::authenticate`] returns.
pub type AuthFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Principal, AuthRejection>> + Send + 'a>>;

/// Decides who an HTTP request acts for. The runtime asks it on every route it serves (the
/// Streamable HTTP endpoint's POST, GET and DELETE, and 2024-11-05's `GET /sse` and
/// `POST /messages`) before it reads anything else of the request.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal for a request with this head, or a rejection.
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a>;

    /// The protected resource metadata the server publishes at its well-known URIs (RFC 9728),
    /// for a hook that takes part in OAuth. `None` (the default): nothing is published.
    fn resource_metadata(&self) -> Option<&ResourceMetadata> {
        None
    }
}

/// Everyone is [`Principal::anonymous`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAuth;

impl Authenticator for NoAuth {
    fn authenticate<'a>(&'a self, _: &'a http::request::Parts) -> AuthFuture<'a> {
        Box::pin(std::future::ready(Ok(Principal::anonymous())))
    }
}

/// Bearer tokens from a fixed table: `Authorization: Bearer <token>` → its principal.
#[derive(Debug, Clone, Default)]
pub struct BearerTokens {
    tokens: Vec<(String, Principal)>,
}

impl BearerTokens {
    /// An empty table (every request is refused).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a token.
    pub fn with_token(mut self, token: impl Into<String>, principal: Principal) -> Self {
        self.tokens.push((token.into(), principal));
        self
    }

    fn check(&self, headers: &http::HeaderMap) -> Result<Principal, AuthRejection> {
        let token = match bearer_token(headers) {
            Presented::Bearer(token) => token,
            Presented::Nothing | Presented::OtherScheme => {
                return Err(AuthRejection::unauthorized("Bearer"));
            }
        };
        self.tokens
            .iter()
            .find(|(t, _)| constant_time_eq(t.as_bytes(), token.as_bytes()))
            .map(|(_, p)| p.clone())
            .ok_or_else(|| AuthRejection::unauthorized("Bearer error=\"invalid_token\""))
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        Box::pin(std::future::ready(self.check(&request.headers)))
    }
}

/// What a request's `Authorization` header presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presented<'a> {
    /// No `Authorization` header (or one that is not text).
    Nothing,
    /// A credential of another scheme (`Basic …`, …): no bearer token.
    OtherScheme,
    /// `Bearer <token>` (the scheme's name is case-insensitive, RFC 9110).
    Bearer(&'a str),
}

/// The bearer token of `headers`, if their `Authorization` header carries one.
pub(crate) fn bearer_token(headers: &http::HeaderMap) -> Presented<'_> {
    let Some(value) = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return Presented::Nothing;
    };
    let value = value.trim();
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
            let token = token.trim();
            if token.is_empty() {
                Presented::OtherScheme
            } else {
                Presented::Bearer(token)
            }
        }
        _ => Presented::OtherScheme,
    }
}

/// Compares two byte strings in time independent of where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The well-known path prefix of protected resource metadata (RFC 9728 §3).
pub const RESOURCE_METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// Protected resource metadata (RFC 9728): the document that tells an MCP client which
/// authorization servers issue tokens for this server and which scopes to ask for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ResourceMetadata {
    /// The canonical URI of the MCP endpoint (RFC 8707): the audience tokens must carry.
    pub resource: String,
    /// The issuer identifiers of the authorization servers whose tokens are accepted.
    pub authorization_servers: Vec<String>,
    /// The scopes a client should ask for (omitted when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens travel: only `header` (never the query string or the body).
    pub bearer_methods_supported: Vec<String>,
}

impl ResourceMetadata {
    /// The metadata of `resource`, whose tokens `authorization_servers` issue.
    pub fn new(resource: impl Into<String>, authorization_servers: Vec<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".to_owned()],
        }
    }

    /// The same with `scopes_supported`.
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes_supported = scopes;
        self
    }

    /// The paths the document is served at: the well-known prefix with the resource's path
    /// inserted after it (`/.well-known/oauth-protected-resource/mcp` for `…/mcp`), then the
    /// root one (`/.well-known/oauth-protected-resource`), which clients try next.
    pub fn paths(&self) -> Vec<String> {
        let path = resource_path(&self.resource);
        let mut paths = Vec::with_capacity(2);
        if !path.is_empty() {
            paths.push(format!("{RESOURCE_METADATA_PREFIX}{path}"));
        }
        paths.push(RESOURCE_METADATA_PREFIX.to_owned());
        paths
    }

    /// The absolute URL of the document at the path-inserted well-known URI, which 401 and 403
    /// challenges name in `resource_metadata`.
    pub fn url(&self) -> String {
        let origin = resource_origin(&self.resource);
        let path = resource_path(&self.resource);
        format!("{origin}{RESOURCE_METADATA_PREFIX}{path}")
    }
}

/// `scheme://authority` of an absolute URI (the whole text when it has no path).
pub(crate) fn resource_origin(resource: &str) -> &str {
    let after_scheme = resource.find("://").map_or(0, |i| i + 3);
    let end = resource[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(resource.len(), |i| after_scheme + i);
    &resource[..end]
}

/// The path of an absolute URI without a trailing `/` (empty for the root).
pub(crate) fn resource_path(resource: &str) -> &str {
    let rest = &resource[resource_origin(resource).len()..];
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    rest[..end].trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(authorization: Option<&str>) -> http::request::Parts {
        let mut request = http::Request::builder().uri("/mcp");
        if let Some(v) = authorization {
            request = request.header(http::header::AUTHORIZATION, v);
        }
        request.body(()).unwrap().into_parts().0
    }

    fn decide(
        auth: &impl Authenticator,
        authorization: Option<&str>,
    ) -> Result<Principal, AuthRejection> {
        let parts = head(authorization);
        futures_util::FutureExt::now_or_never(auth.authenticate(&parts)).expect("ready")
    }

    #[test]
    fn bearer_tokens_map_to_principals() {
        let auth = BearerTokens::new().with_token("s3cret", Principal::new("alice", vec![]));
        let missing = decide(&auth, None).unwrap_err();
        assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
        assert_eq!(missing.challenge.as_deref(), Some("Bearer"));
        let wrong = decide(&auth, Some("Bearer wrong")).unwrap_err();
        assert_eq!(
            wrong.challenge.as_deref(),
            Some("Bearer error=\"invalid_token\"")
        );
        assert_eq!(
            &**decide(&auth, Some("Bearer s3cret")).unwrap().subject(),
            "alice"
        );
        // The scheme's name is case-insensitive; Basic credentials are no bearer token.
        assert_eq!(
            &**decide(&auth, Some("bearer s3cret")).unwrap().subject(),
            "alice"
        );
        assert!(decide(&auth, Some("Basic czNjcmV0Og==")).is_err());
    }

    #[test]
    fn identities_are_qualified_by_their_issuer() {
        let plain = Principal::new("alice", vec![]);
        let from_a = Principal::new("alice", vec!["read".into()]).with_issuer("http://a");
        let from_b = Principal::new("alice", vec![]).with_issuer("http://b");
        assert_eq!(&**from_a.key(), "http://a alice");
        assert!(!from_a.same_identity(&from_b));
        assert!(!from_a.same_identity(&plain));
        let stepped_up = Principal::new("alice", vec!["read".into(), "write".into()])
            .with_issuer("http://a")
            .with_client_id("other-client");
        assert!(from_a.same_identity(&stepped_up));
    }

    #[test]
    fn metadata_is_served_at_the_path_inserted_and_root_uris() {
        let md = ResourceMetadata::new("http://127.0.0.1:3000/mcp", vec!["http://as".into()]);
        assert_eq!(
            md.paths(),
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            md.url(),
            "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"
        );
        let root = ResourceMetadata::new("https://mcp.example.com/", vec![]);
        assert_eq!(root.paths(), ["/.well-known/oauth-protected-resource"]);
        assert_eq!(
            root.url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        let json = serde_json::to_value(&md).unwrap();
        assert_eq!(
            json["bearer_methods_supported"],
            serde_json::json!(["header"])
        );
        assert!(json.get("scopes_supported").is_none());
    }
}
