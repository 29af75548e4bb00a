//! The authentication hook: an HTTP request's headers → the principal the request acts for.

use std::sync::Arc;

/// Who a request acts for, as the authentication hook decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The principal's name (`"anonymous"` when no hook is installed).
    pub subject: Arc<str>,
    /// Scopes or roles the hook granted.
    pub scopes: Arc<[String]>,
}

impl Principal {
    /// The principal of unauthenticated requests.
    pub fn anonymous() -> Self {
        // Made once: every unauthenticated request shares it.
        static ANONYMOUS: std::sync::OnceLock<Principal> = std::sync::OnceLock::new();
        ANONYMOUS
            .get_or_init(|| Self {
                subject: Arc::from("anonymous"),
                scopes: Arc::from(Vec::new()),
            })
            .clone()
    }

    /// A named principal with scopes.
    pub fn new(subject: impl Into<Arc<str>>, scopes: Vec<String>) -> Self {
        Self {
            subject: subject.into(),
            scopes: Arc::from(scopes),
        }
    }
}

/// Why the hook refused a request (answered with HTTP 401 and a `WWW-Authenticate` header).
#[derive(Debug, Clone)]
pub struct AuthRejection {
    /// The `WWW-Authenticate` challenge.
    pub challenge: String,
}

/// Decides who an HTTP request acts for.
pub trait Authenticator: Send + Sync + 'static {
    /// The principal for a request with these headers, or a rejection.
    fn authenticate(&self, headers: &http::HeaderMap) -> Result<Principal, AuthRejection>;
}

/// Everyone is [`Principal::anonymous`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAuth;

impl Authenticator for NoAuth {
    fn authenticate(&self, _: &http::HeaderMap) -> Result<Principal, AuthRejection> {
        Ok(Principal::anonymous())
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
}

impl Authenticator for BearerTokens {
    fn authenticate(&self, headers: &http::HeaderMap) -> Result<Principal, AuthRejection> {
        let presented = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let reject = |error: &str| AuthRejection {
            challenge: format!("Bearer error=\"{error}\""),
        };
        let token = presented.ok_or_else(|| reject("invalid_request"))?;
        self.tokens
            .iter()
            .find(|(t, _)| constant_time_eq(t.as_bytes(), token.as_bytes()))
            .map(|(_, p)| p.clone())
            .ok_or_else(|| reject("invalid_token"))
    }
}

/// Compares two byte strings in time independent of where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_map_to_principals() {
        let auth = BearerTokens::new().with_token("s3cret", Principal::new("alice", vec![]));
        let mut headers = http::HeaderMap::new();
        assert!(auth.authenticate(&headers).is_err());
        headers.insert(http::header::AUTHORIZATION, "Bearer wrong".parse().unwrap());
        assert!(auth.authenticate(&headers).is_err());
        headers.insert(
            http::header::AUTHORIZATION,
            "Bearer s3cret".parse().unwrap(),
        );
        assert_eq!(&*auth.authenticate(&headers).unwrap().subject, "alice");
    }
}
