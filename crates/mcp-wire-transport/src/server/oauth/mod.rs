//! The server as an OAuth 2.1 resource server (the MCP authorization spec, 2025-06-18 onward).
//!
//! [`ResourceServer`] is an [`Authenticator`]: it publishes the protected resource metadata
//! (RFC 9728) at the well-known URIs, takes the bearer token of the `Authorization` header only,
//! has a [`TokenValidator`] check it, requires scopes, and answers what it refuses with the
//! RFC 6750 challenges the MCP spec profiles (401 `invalid_token`, 403 `insufficient_scope`,
//! each naming the metadata in `resource_metadata`). The principal is the token's subject as
//! its issuer vouches for it, with the client id: what a session, a task or a variant list is
//! bound to.
//!
//! Validators: `JwtValidator` (feature `jwt`) checks JWT access tokens against the keys of the
//! authorization server; [`IntrospectionValidator`] asks the authorization server about opaque
//! ones; any other is a [`TokenValidator`]. [`AuthOptions`] is the command-line spelling every
//! binary of the workspace shares.

#[cfg(any(feature = "jwt", feature = "oauth-client"))]
pub(crate) mod discovery;
mod fetch;
mod introspection;
#[cfg(feature = "jwt")]
mod jwt;
mod options;

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Deserialize;

use super::auth::{
    AuthFuture, AuthRejection, Authenticator, Presented, Principal, ResourceMetadata, bearer_token,
};

#[cfg(feature = "oauth-client")]
pub(crate) use fetch::form_encode;
pub use fetch::{FetchError, FetchFuture, HttpSender, OAuthHttp};
pub use introspection::IntrospectionValidator;
#[cfg(feature = "jwt")]
pub use jwt::JwtValidator;
pub use options::{AUTH_OPTIONS_HELP, AuthOptions};

/// What [`TokenValidator::validate`] returns.
pub type TokenFuture<'a> =
    Pin<Box<dyn Future<Output = Result<TokenClaims, TokenError>> + Send + 'a>>;

/// Checks an access token: issued by an accepted authorization server, for this resource,
/// valid now. Scopes are the [`ResourceServer`]'s to require.
pub trait TokenValidator: Send + Sync + 'static {
    /// The claims of `token`, or why it is refused.
    fn validate<'a>(&'a self, token: &'a str) -> TokenFuture<'a>;
}

/// What a checked token says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenClaims {
    /// The issuer identifier of the authorization server that issued it.
    pub issuer: String,
    /// Whom it was issued for (`sub`; for a client acting for itself, its client id).
    pub subject: String,
    /// The OAuth client it was issued to, when it says.
    pub client_id: Option<String>,
    /// The scopes it grants.
    pub scopes: Vec<String>,
}

impl TokenClaims {
    /// The claims of a token `issuer` issued for `subject`, without client id or scopes.
    pub fn new(issuer: impl Into<String>, subject: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// The same naming the client it was issued to.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The same granting `scopes`.
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = scopes;
        self
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not good for this resource (401 `invalid_token`); the text, sent to the
    /// client as `error_description`, never quotes the token.
    #[error("invalid token: {0}")]
    Invalid(Cow<'static, str>),
    /// The validator could not decide now (its authorization server did not answer): 503.
    #[error("cannot check tokens now: {0}")]
    Unavailable(String),
}

/// A scope claim: RFC 9068's space-separated `scope` string, or an array of scopes.
#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeClaim {
    Text(String),
    List(Vec<String>),
}

impl ScopeClaim {
    fn into_scopes(self) -> Vec<String> {
        match self {
            Self::Text(text) => text.split_whitespace().map(str::to_owned).collect(),
            Self::List(list) => list,
        }
    }
}

/// An authentication hook that makes the server an OAuth resource server (see the module docs).
pub struct ResourceServer {
    metadata: ResourceMetadata,
    metadata_url: String,
    required_scopes: Vec<String>,
    validator: Arc<dyn TokenValidator>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("metadata", &self.metadata)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// The resource `resource` (its canonical URI, the audience its tokens name), whose tokens
    /// the authorization servers `authorization_servers` issue and `validator` checks.
    pub fn new(
        resource: impl Into<String>,
        authorization_servers: Vec<String>,
        validator: impl TokenValidator,
    ) -> Self {
        let metadata = ResourceMetadata::new(resource, authorization_servers);
        Self {
            metadata_url: metadata.url(),
            metadata,
            required_scopes: Vec::new(),
            validator: Arc::new(validator),
        }
    }

    /// The same requiring every scope of `scopes` (a token without one gets 403), which the
    /// metadata lists as `scopes_supported`.
    pub fn with_required_scopes(mut self, scopes: Vec<String>) -> Self {
        self.metadata = self.metadata.with_scopes(scopes.clone());
        self.required_scopes = scopes;
        self
    }

    /// The metadata the server publishes.
    pub fn metadata(&self) -> &ResourceMetadata {
        &self.metadata
    }

    /// A `Bearer` challenge with `params` first, then `resource_metadata`.
    fn challenge(&self, params: &[(&str, &str)]) -> String {
        let mut text = String::from("Bearer ");
        for (name, value) in params {
            text.push_str(&format!("{name}=\"{}\", ", quotable(value)));
        }
        text.push_str(&format!(
            "resource_metadata=\"{}\"",
            quotable(&self.metadata_url)
        ));
        text
    }

    async fn decide(&self, request: &http::request::Parts) -> Result<Principal, AuthRejection> {
        let scope = self.required_scopes.join(" ");
        if query_names_token(request.uri.query()) {
            return Err(AuthRejection::bad_request(self.challenge(&[
                ("error", "invalid_request"),
                (
                    "error_description",
                    "tokens travel only in the Authorization header",
                ),
            ])));
        }
        let token = match bearer_token(&request.headers) {
            Presented::Bearer(token) => token,
            Presented::Nothing | Presented::OtherScheme => {
                let params: &[(&str, &str)] = match scope.is_empty() {
                    true => &[],
                    false => &[("scope", &scope)],
                };
                return Err(AuthRejection::unauthorized(self.challenge(params)));
            }
        };
        let claims = match self.validator.validate(token).await {
            Ok(claims) => claims,
            Err(TokenError::Invalid(why)) => {
                return Err(AuthRejection::unauthorized(self.challenge(&[
                    ("error", "invalid_token"),
                    ("error_description", &why),
                ])));
            }
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!(error = %why, "cannot check a token now");
                return Err(AuthRejection::unavailable());
            }
        };
        let missing = self
            .required_scopes
            .iter()
            .any(|s| !claims.scopes.contains(s));
        if missing {
            return Err(AuthRejection::forbidden(
                self.challenge(&[("error", "insufficient_scope"), ("scope", &scope)]),
            ));
        }
        let mut principal =
            Principal::new(claims.subject, claims.scopes).with_issuer(claims.issuer);
        if let Some(client_id) = claims.client_id {
            principal = principal.with_client_id(client_id);
        }
        Ok(principal)
    }
}

impl Authenticator for ResourceServer {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        Box::pin(self.decide(request))
    }

    fn resource_metadata(&self) -> Option<&ResourceMetadata> {
        Some(&self.metadata)
    }
}

/// Whether a query string carries an `access_token` (RFC 6750 §2.3, which MCP forbids).
fn query_names_token(query: Option<&str>) -> bool {
    query.is_some_and(|q| {
        q.split('&')
            .any(|pair| pair.split('=').next() == Some("access_token"))
    })
}

/// `text` as the inside of an RFC 6750 quoted string: a character it may not hold becomes `?`.
fn quotable(text: &str) -> Cow<'_, str> {
    let allowed = |c: char| matches!(c, ' ' | '!' | '#'..='[' | ']'..='~');
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(
            text.chars()
                .map(|c| if allowed(c) { c } else { '?' })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts the token `good` (scopes `read`) and `admin` (scopes `read admin`).
    struct Fixed;

    impl TokenValidator for Fixed {
        fn validate<'a>(&'a self, token: &'a str) -> TokenFuture<'a> {
            let claims = TokenClaims::new("http://as", "alice").with_client_id("app");
            let answer = match token {
                "good" => Ok(claims.with_scopes(vec!["read".into()])),
                "admin" => Ok(claims.with_scopes(vec!["read".into(), "admin".into()])),
                "down" => Err(TokenError::Unavailable("as down".into())),
                _ => Err(TokenError::Invalid("the token is \"bad\"".into())),
            };
            Box::pin(std::future::ready(answer))
        }
    }

    fn server() -> ResourceServer {
        ResourceServer::new("http://127.0.0.1:9/mcp", vec!["http://as".into()], Fixed)
            .with_required_scopes(vec!["read".into(), "admin".into()])
    }

    async fn decide(uri: &str, authorization: Option<&str>) -> Result<Principal, AuthRejection> {
        let mut request = http::Request::builder().uri(uri);
        if let Some(v) = authorization {
            request = request.header(http::header::AUTHORIZATION, v);
        }
        server()
            .decide(&request.body(()).unwrap().into_parts().0)
            .await
    }

    const METADATA: &str =
        "resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\"";

    #[tokio::test]
    async fn each_refusal_has_its_status_and_challenge() {
        let none = decide("/mcp", None).await.unwrap_err();
        assert_eq!(none.status, http::StatusCode::UNAUTHORIZED);
        assert_eq!(
            none.challenge.unwrap(),
            format!("Bearer scope=\"read admin\", {METADATA}")
        );
        let basic = decide("/mcp", Some("Basic YWxpY2U6eA=="))
            .await
            .unwrap_err();
        assert_eq!(basic.status, http::StatusCode::UNAUTHORIZED);
        let bad = decide("/mcp", Some("Bearer forged")).await.unwrap_err();
        assert_eq!(bad.status, http::StatusCode::UNAUTHORIZED);
        assert_eq!(
            bad.challenge.unwrap(),
            format!(
                "Bearer error=\"invalid_token\", error_description=\"the token is ?bad?\", {METADATA}"
            )
        );
        let narrow = decide("/mcp", Some("Bearer good")).await.unwrap_err();
        assert_eq!(narrow.status, http::StatusCode::FORBIDDEN);
        assert_eq!(
            narrow.challenge.unwrap(),
            format!("Bearer error=\"insufficient_scope\", scope=\"read admin\", {METADATA}")
        );
        let query = decide("/mcp?access_token=admin", Some("Bearer admin"))
            .await
            .unwrap_err();
        assert_eq!(query.status, http::StatusCode::BAD_REQUEST);
        let down = decide("/mcp", Some("Bearer down")).await.unwrap_err();
        assert_eq!(down.status, http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(down.challenge, None);
    }

    #[tokio::test]
    async fn a_valid_token_with_the_scopes_is_its_subject_as_its_issuer_vouches() {
        let principal = decide("/mcp?x=1", Some("Bearer admin")).await.unwrap();
        assert_eq!(&**principal.subject(), "alice");
        assert_eq!(&**principal.key(), "http://as alice");
        assert_eq!(principal.client_id(), Some("app"));
        assert_eq!(principal.scopes(), ["read", "admin"]);
    }
}
