//! Finding who authorizes a protected MCP server: its protected resource metadata (RFC 9728),
//! then its authorization server's metadata (RFC 8414, OpenID Connect discovery), with the
//! fallbacks of the 2025-03-26 revision for servers that publish neither.

use http::HeaderMap;
use serde_json::Value;

use super::exchange::{failed, get_json};
use crate::TransportError;
use crate::server::auth::{resource_origin, resource_path};
use crate::server::oauth::OAuthHttp;
use crate::server::oauth::discovery::metadata_urls;

/// The parameters of a `Bearer` challenge (`WWW-Authenticate`, RFC 6750 §3, RFC 9728 §5.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

impl Challenge {
    /// The `Bearer` (or `DPoP`) challenge among `headers`' `WWW-Authenticate` values.
    pub fn of(headers: &HeaderMap) -> Self {
        let mut challenge = Challenge::default();
        for value in headers.get_all(http::header::WWW_AUTHENTICATE) {
            let Ok(text) = value.to_str() else { continue };
            for (name, value) in auth_params(text) {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => &mut challenge.resource_metadata,
                    "scope" => &mut challenge.scope,
                    "error" => &mut challenge.error,
                    _ => continue,
                };
                slot.get_or_insert(value);
            }
        }
        challenge
    }
}

/// The `name=value` / `name="quoted value"` parameters of a challenge, the scheme skipped.
fn auth_params(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    // The scheme: the first token unless it is already a parameter.
    if let Some((first, after)) = rest.split_once(' ')
        && !first.contains('=')
    {
        rest = after;
    }
    while !rest.is_empty() {
        rest = rest.trim_start_matches([' ', ',']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim().to_owned();
        rest = &rest[eq + 1..];
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut text = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, c)) = chars.next() {
                            text.push(c);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => text.push(c),
                }
            }
            value = text;
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_owned();
            rest = &rest[end..];
        }
        out.push((name, value));
    }
    out
}

/// What the client reads of a protected resource's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceDocument {
    /// The resource identifier (the `resource` parameter of the requests, RFC 8707).
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// The protected resource metadata of the MCP endpoint `server_url`: at the challenge's
/// `resource_metadata` when it names one, else at the well-known URIs (path-inserted, then at
/// the root). `None` when there is none (a 2025-03-26 server). Its `resource` must be the
/// endpoint or one of its path prefixes on the same origin.
pub(crate) async fn resource_metadata(
    http: &dyn OAuthHttp,
    server_url: &str,
    challenge: &Challenge,
) -> Result<Option<ResourceDocument>, TransportError> {
    let origin = resource_origin(server_url);
    let path = resource_path(server_url);
    let mut urls = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        urls.push(url.clone());
    }
    if !path.is_empty() {
        urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    for url in urls {
        let Some(document) = get_json(http, &url).await? else {
            continue;
        };
        let resource =
            string(&document, "resource").ok_or_else(|| failed(format!("{url}: no resource")))?;
        if !resource_covers(&resource, server_url) {
            return Err(failed(format!(
                "{url}: the metadata is for resource {resource}, not for {server_url}"
            )));
        }
        let authorization_servers = strings(&document, "authorization_servers").unwrap_or_default();
        return Ok(Some(ResourceDocument {
            resource,
            authorization_servers,
            scopes_supported: strings(&document, "scopes_supported"),
        }));
    }
    Ok(None)
}

/// Whether `resource` names `server_url`: the same origin (ASCII case aside), and a path that
/// is the endpoint's or a whole-segment prefix of it.
pub(crate) fn resource_covers(resource: &str, server_url: &str) -> bool {
    let same_origin = resource_origin(resource).eq_ignore_ascii_case(resource_origin(server_url));
    let prefix = resource_path(resource);
    let path = resource_path(server_url);
    same_origin
        && (path == prefix || (path.starts_with(prefix) && path[prefix.len()..].starts_with('/')))
}

/// What the client reads of an authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods: Option<Vec<String>>,
    pub grant_types_supported: Option<Vec<String>>,
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207: the authorization response carries `iss`.
    pub iss_parameter_supported: bool,
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthServer {
    fn read(document: &Value) -> Result<Self, TransportError> {
        let required = |name: &str| {
            string(document, name).ok_or_else(|| failed(format!("the metadata has no {name}")))
        };
        Ok(Self {
            issuer: required("issuer")?,
            authorization_endpoint: required("authorization_endpoint")?,
            token_endpoint: required("token_endpoint")?,
            registration_endpoint: string(document, "registration_endpoint"),
            scopes_supported: strings(document, "scopes_supported"),
            token_endpoint_auth_methods: strings(document, "token_endpoint_auth_methods_supported"),
            grant_types_supported: strings(document, "grant_types_supported"),
            client_id_metadata_document_supported: document
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            iss_parameter_supported: document
                .get("authorization_response_iss_parameter_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            dpop_signing_alg_values_supported: strings(
                document,
                "dpop_signing_alg_values_supported",
            ),
        })
    }

    /// The 2025-03-26 defaults for a server without metadata: the endpoints at fixed paths of
    /// its origin.
    fn defaults(origin: &str) -> Self {
        Self {
            issuer: origin.to_owned(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            token_endpoint_auth_methods: None,
            grant_types_supported: None,
            client_id_metadata_document_supported: false,
            iss_parameter_supported: false,
            dpop_signing_alg_values_supported: None,
        }
    }

    /// Whether the server lists `scope` among those it supports.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }

    /// Whether the token endpoint takes client authentication `method` (RFC 8414: unlisted
    /// means `client_secret_basic` only).
    pub fn takes_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }
}

/// The metadata of the authorization server `issuer`, from the first of its well-known URIs
/// that has one; its `issuer` must be exactly `issuer` (RFC 8414 §3.3).
pub(crate) async fn auth_server(
    http: &dyn OAuthHttp,
    issuer: &str,
) -> Result<Option<AuthServer>, TransportError> {
    for url in metadata_urls(issuer) {
        let Some(document) = get_json(http, &url).await? else {
            continue;
        };
        let server = AuthServer::read(&document).map_err(|e| failed(format!("{url}: {e}")))?;
        if server.issuer != issuer {
            return Err(failed(format!(
                "{url}: the metadata names issuer {}, not {issuer}",
                server.issuer
            )));
        }
        return Ok(Some(server));
    }
    Ok(None)
}

/// Who authorizes `server_url`: its resource metadata (if any) and its authorization server.
/// Without resource metadata (2025-03-26), the authorization server is the endpoint's origin,
/// with the default endpoints when it publishes no metadata either.
pub(crate) async fn discover(
    http: &dyn OAuthHttp,
    server_url: &str,
    challenge: &Challenge,
) -> Result<(Option<ResourceDocument>, AuthServer), TransportError> {
    let resource = resource_metadata(http, server_url, challenge).await?;
    let issuer = match &resource {
        Some(document) => document
            .authorization_servers
            .first()
            .cloned()
            .ok_or_else(|| failed("the resource metadata names no authorization server"))?,
        None => resource_origin(server_url).to_owned(),
    };
    match auth_server(http, &issuer).await? {
        Some(server) => Ok((resource, server)),
        None if resource.is_none() => Ok((None, AuthServer::defaults(&issuer))),
        None => Err(failed(format!(
            "no metadata for authorization server {issuer}"
        ))),
    }
}

fn string(document: &Value, name: &str) -> Option<String> {
    document
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn strings(document: &Value, name: &str) -> Option<Vec<String>> {
    let items = document.get(name)?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_with_quotes_and_escapes() {
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::WWW_AUTHENTICATE,
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", error_description="say \"no\"""#
                .parse()
                .unwrap(),
        );
        let challenge = Challenge::of(&headers);
        assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(challenge.scope.as_deref(), Some("a b"));
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        headers.insert(
            http::header::WWW_AUTHENTICATE,
            "Bearer error=invalid_token".parse().unwrap(),
        );
        assert_eq!(
            Challenge::of(&headers).error.as_deref(),
            Some("invalid_token")
        );
    }

    #[test]
    fn a_resource_covers_its_endpoint_and_path_prefixes_only() {
        assert!(resource_covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(resource_covers("http://h:1", "http://h:1/mcp"));
        assert!(resource_covers("HTTP://H:1/", "http://h:1/mcp"));
        assert!(!resource_covers("http://h:1/mc", "http://h:1/mcp"));
        assert!(!resource_covers("http://h:2/mcp", "http://h:1/mcp"));
        assert!(!resource_covers(
            "https://evil.example/mcp",
            "http://h:1/mcp"
        ));
    }
}
