//! Opaque tokens checked by asking the authorization server (token introspection, RFC 7662).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::fetch::{HttpSender, OAuthHttp, post_form};
use super::{ScopeClaim, TokenClaims, TokenError, TokenFuture, TokenValidator};

/// Checks a token by posting it to the authorization server's introspection endpoint with this
/// server's client credentials (HTTP Basic), on every request. The answer must say `active`,
/// name the resource in `aud` (a string, or an array holding it) and, when it has them, an
/// accepted `iss`, an `exp` not past and an `nbf` not ahead (with a small leeway).
pub struct IntrospectionValidator {
    endpoint: String,
    audience: String,
    issuers: Vec<String>,
    client: Option<(String, String)>,
    leeway: Duration,
    http: Arc<dyn OAuthHttp>,
}

impl std::fmt::Debug for IntrospectionValidator {
    // The client secret stays out of every log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("endpoint", &self.endpoint)
            .field("audience", &self.audience)
            .field("issuers", &self.issuers)
            .field("client_id", &self.client.as_ref().map(|(id, _)| id))
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidator {
    /// Asks `endpoint` about tokens that must have been issued for `audience` (the resource's
    /// canonical URI) by one of `issuers` (the first stands for tokens whose answer names none).
    pub fn new(
        endpoint: impl Into<String>,
        audience: impl Into<String>,
        issuers: Vec<String>,
    ) -> Self {
        Self {
            endpoint: endpoint.into(),
            audience: audience.into(),
            issuers,
            client: None,
            leeway: Duration::from_secs(30),
            http: Arc::new(HttpSender::default()),
        }
    }

    /// The same authenticating to the endpoint as the client `id` with `secret`.
    pub fn with_client(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.client = Some((id.into(), secret.into()));
        self
    }

    /// The same with `leeway` on `exp` and `nbf`.
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The same speaking to the endpoint through `http`.
    pub fn with_http(mut self, http: Arc<dyn OAuthHttp>) -> Self {
        self.http = http;
        self
    }

    async fn check(&self, token: &str) -> Result<TokenClaims, TokenError> {
        let client = self.client.as_ref().map(|(i, s)| (i.as_str(), s.as_str()));
        let answer = post_form(
            &*self.http,
            &self.endpoint,
            &[("token", token), ("token_type_hint", "access_token")],
            client,
        )
        .await
        .map_err(|e| TokenError::Unavailable(e.to_string()))?;
        self.claims_of(&answer, now())
    }

    /// The claims of an introspection answer, read at `now` (unix seconds).
    fn claims_of(&self, answer: &Value, now: u64) -> Result<TokenClaims, TokenError> {
        let invalid = |why: &'static str| TokenError::Invalid(Cow::Borrowed(why));
        if answer.get("active").and_then(Value::as_bool) != Some(true) {
            return Err(invalid("the token is not active"));
        }
        let leeway = self.leeway.as_secs();
        if let Some(exp) = answer.get("exp").and_then(Value::as_u64)
            && exp.saturating_add(leeway) < now
        {
            return Err(invalid("the token has expired"));
        }
        if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
            && nbf > now.saturating_add(leeway)
        {
            return Err(invalid("the token is not valid yet"));
        }
        let for_us = match answer.get("aud") {
            Some(Value::String(aud)) => *aud == self.audience,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&self.audience)),
            _ => false,
        };
        if !for_us {
            return Err(invalid("the token was not issued for this resource"));
        }
        let issuer = match answer.get("iss").and_then(Value::as_str) {
            Some(iss) => self
                .issuers
                .iter()
                .find(|i| i.as_str() == iss)
                .ok_or_else(|| invalid("the token's issuer is not accepted"))?,
            None => self
                .issuers
                .first()
                .ok_or_else(|| invalid("the token's issuer is not accepted"))?,
        };
        let text = |name: &str| answer.get(name).and_then(Value::as_str).map(str::to_owned);
        let client_id = text("client_id");
        let subject = text("sub")
            .or_else(|| client_id.clone())
            .ok_or_else(|| invalid("the token names no subject"))?;
        let scopes = answer
            .get("scope")
            .cloned()
            .and_then(|s| serde_json::from_value::<ScopeClaim>(s).ok())
            .map(ScopeClaim::into_scopes)
            .unwrap_or_default();
        let mut claims = TokenClaims::new(issuer.clone(), subject).with_scopes(scopes);
        if let Some(client_id) = client_id {
            claims = claims.with_client_id(client_id);
        }
        Ok(claims)
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> TokenFuture<'a> {
        Box::pin(self.check(token))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn validator() -> IntrospectionValidator {
        IntrospectionValidator::new(
            "http://as/introspect",
            "http://rs/mcp",
            vec!["http://as".into()],
        )
        .with_client("rs", "secret")
    }

    fn refusal(answer: Value) -> String {
        validator()
            .claims_of(&answer, 1_000)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_active_answer_for_this_resource_makes_claims() {
        let claims = validator()
            .claims_of(
                &json!({"active": true, "sub": "alice", "client_id": "app",
                    "scope": "read write", "aud": ["http://other", "http://rs/mcp"],
                    "iss": "http://as", "exp": 2_000}),
                1_000,
            )
            .unwrap();
        assert_eq!(claims.subject, "alice");
        assert_eq!(claims.issuer, "http://as");
        assert_eq!(claims.client_id.as_deref(), Some("app"));
        assert_eq!(claims.scopes, ["read", "write"]);
    }

    #[test]
    fn each_rule_of_the_answer_refuses_on_its_own() {
        let ok = json!({"active": true, "sub": "a", "aud": "http://rs/mcp"});
        let with = |k: &str, v: Value| {
            let mut a = ok.clone();
            a[k] = v;
            a
        };
        assert_eq!(
            refusal(with("active", json!(false))),
            "invalid token: the token is not active"
        );
        assert_eq!(
            refusal(with("aud", json!("http://rs/other"))),
            "invalid token: the token was not issued for this resource"
        );
        assert_eq!(
            refusal(json!({"active": true, "sub": "a"})),
            "invalid token: the token was not issued for this resource"
        );
        assert_eq!(
            refusal(with("iss", json!("http://evil"))),
            "invalid token: the token's issuer is not accepted"
        );
        assert_eq!(
            refusal(with("exp", json!(900))),
            "invalid token: the token has expired"
        );
        assert_eq!(
            refusal(with("nbf", json!(1_100))),
            "invalid token: the token is not valid yet"
        );
        // Within the leeway, both hold.
        assert!(
            validator()
                .claims_of(&with("exp", json!(990)), 1_000)
                .is_ok()
        );
    }

    #[test]
    fn the_client_secret_is_never_in_debug_output() {
        let text = format!("{:?}", validator());
        assert!(text.contains("\"rs\""), "{text}");
        assert!(!text.contains("secret"), "{text}");
    }
}
