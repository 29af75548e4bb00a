//! Authorization server metadata: found from the issuer identifier (RFC 8414, then OpenID
//! Connect discovery), and what the validators read of it.

#[cfg(feature = "jwt")]
use serde_json::Value;

#[cfg(feature = "jwt")]
use super::fetch::{FetchError, OAuthHttp, get_json};
use crate::server::auth::{resource_origin, resource_path};

/// What the validators read of an authorization server's metadata.
#[cfg(feature = "jwt")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IssuerMetadata {
    /// Where its signing keys are published (a JWK set).
    pub jwks_uri: Option<String>,
}

/// The URLs an issuer's metadata is looked for at, in order: RFC 8414's path-inserted
/// `oauth-authorization-server`, then OpenID Connect's path-inserted and (for an issuer with a
/// path) path-appended `openid-configuration`.
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let origin = resource_origin(issuer);
    let path = resource_path(issuer);
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

/// The metadata of `issuer`: the first document found whose `issuer` is exactly `issuer`
/// (RFC 8414 §3.3: a document naming another issuer is not this one's).
#[cfg(feature = "jwt")]
pub(crate) async fn discover(
    http: &dyn OAuthHttp,
    issuer: &str,
) -> Result<IssuerMetadata, FetchError> {
    let mut problems = Vec::new();
    for url in metadata_urls(issuer) {
        match get_json(http, &url).await {
            Ok(document) => {
                if document.get("issuer").and_then(Value::as_str) != Some(issuer) {
                    problems.push(format!("{url}: names another issuer"));
                    continue;
                }
                let jwks_uri = document
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                return Ok(IssuerMetadata { jwks_uri });
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    Err(FetchError::new(format!(
        "no metadata for issuer {issuer} ({})",
        problems.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_at_rfc_8414_then_openid_uris() {
        assert_eq!(
            metadata_urls("http://as.example:8080"),
            [
                "http://as.example:8080/.well-known/oauth-authorization-server",
                "http://as.example:8080/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("http://as.example/tenant/1/"),
            [
                "http://as.example/.well-known/oauth-authorization-server/tenant/1",
                "http://as.example/.well-known/openid-configuration/tenant/1",
                "http://as.example/tenant/1/.well-known/openid-configuration",
            ]
        );
    }
}
