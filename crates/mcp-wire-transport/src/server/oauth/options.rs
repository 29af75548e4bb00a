//! The authorization options every server binary of the workspace takes, spelled once.

use std::net::SocketAddr;

use super::{IntrospectionValidator, ResourceServer};
use crate::Secret;

/// The `--help` lines of [`AuthOptions`].
pub const AUTH_OPTIONS_HELP: &str = "\
authorization (OAuth 2.1 resource server; off unless --auth-issuer is given):
  --auth-issuer URL           accept tokens of this authorization server (repeat or
                              comma-separate for several); turns authorization on
  --auth-scopes A,B           scopes every request's token must grant (403 otherwise)
  --resource URL              the endpoint's canonical URI, the audience tokens must name
                              (default http://<listen address>/mcp)
  --auth-introspection URL    check tokens at this introspection endpoint (RFC 7662)
                              instead of as JWTs against the issuer's keys
  --auth-client-id ID         this server's client id at the introspection endpoint
  --auth-client-secret SECRET its secret (default: the MCP_AUTH_CLIENT_SECRET variable)";

/// The variable the introspection client secret is read from when no option gives it.
const SECRET_VARIABLE: &str = "MCP_AUTH_CLIENT_SECRET";

/// The authorization options of a server binary (see [`AUTH_OPTIONS_HELP`]).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct AuthOptions {
    /// `--auth-issuer`: the accepted authorization servers' issuer identifiers.
    pub issuers: Vec<String>,
    /// `--auth-scopes`: the scopes required.
    pub scopes: Vec<String>,
    /// `--resource`: the canonical URI of the endpoint.
    pub resource: Option<String>,
    /// `--auth-introspection`: the introspection endpoint.
    pub introspection: Option<String>,
    /// `--auth-client-id`.
    pub client_id: Option<String>,
    /// `--auth-client-secret`.
    pub client_secret: Option<Secret>,
}

impl AuthOptions {
    /// Takes the option `flag` when it is one of these, its value from `value`: `Ok(true)`
    /// when taken, `Ok(false)` when `flag` is another option.
    pub fn take(
        &mut self,
        flag: &str,
        value: impl FnOnce() -> Option<String>,
    ) -> Result<bool, String> {
        let list = |v: String| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let value = || value().ok_or_else(|| format!("{flag} needs a value"));
        match flag {
            "--auth-issuer" => self.issuers.extend(list(value()?)),
            "--auth-scopes" => self.scopes.extend(list(value()?)),
            "--resource" => self.resource = Some(value()?),
            "--auth-introspection" => self.introspection = Some(value()?),
            "--auth-client-id" => self.client_id = Some(value()?),
            "--auth-client-secret" => self.client_secret = Some(Secret::new(value()?)),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The canonical URI of an endpoint served at `/mcp` on `listen`: `--resource`, or
    /// `http://<listen>/mcp`.
    pub fn resource_for(&self, listen: SocketAddr) -> String {
        self.resource
            .clone()
            .unwrap_or_else(|| format!("http://{listen}/mcp"))
    }

    /// The resource server these options describe for an endpoint listening at `listen`, or
    /// `None` without `--auth-issuer` (authorization off).
    pub fn resource_server(&self, listen: SocketAddr) -> Result<Option<ResourceServer>, String> {
        if self.issuers.is_empty() {
            return match (&self.introspection, self.scopes.is_empty(), &self.resource) {
                (None, true, None) => Ok(None),
                _ => Err(
                    "--auth-scopes, --resource and --auth-introspection need --auth-issuer".into(),
                ),
            };
        }
        for url in self
            .issuers
            .iter()
            .chain(&self.resource)
            .chain(&self.introspection)
        {
            let uri: http::Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
            if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.authority().is_none() {
                return Err(format!("{url:?} is not an absolute http(s) URL"));
            }
        }
        let resource = self.resource_for(listen);
        let server = match &self.introspection {
            Some(endpoint) => {
                let mut validator =
                    IntrospectionValidator::new(endpoint, &resource, self.issuers.clone());
                if let Some(id) = &self.client_id {
                    let secret = match &self.client_secret {
                        Some(s) => s.expose().to_owned(),
                        None => std::env::var(SECRET_VARIABLE).map_err(|_| {
                            format!(
                                "--auth-client-id needs --auth-client-secret or {SECRET_VARIABLE}"
                            )
                        })?,
                    };
                    validator = validator.with_client(id, secret);
                }
                ResourceServer::new(&resource, self.issuers.clone(), validator)
            }
            None => Self::jwt_server(&resource, &self.issuers)?,
        };
        Ok(Some(server.with_required_scopes(self.scopes.clone())))
    }

    #[cfg(feature = "jwt")]
    fn jwt_server(resource: &str, issuers: &[String]) -> Result<ResourceServer, String> {
        let validator = super::JwtValidator::new(issuers.to_vec(), resource);
        Ok(ResourceServer::new(resource, issuers.to_vec(), validator))
    }

    #[cfg(not(feature = "jwt"))]
    fn jwt_server(_: &str, _: &[String]) -> Result<ResourceServer, String> {
        Err("JWT access tokens need the `jwt` feature; use --auth-introspection".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<AuthOptions, String> {
        let mut options = AuthOptions::default();
        let mut args = args.iter().map(|s| s.to_string());
        while let Some(flag) = args.next() {
            if !options.take(&flag, || args.next())? {
                return Err(format!("not ours: {flag}"));
            }
        }
        Ok(options)
    }

    const LISTEN: &str = "127.0.0.1:4000";

    /// Without the `jwt` feature, an issuer without an introspection endpoint is refused.
    #[cfg(not(feature = "jwt"))]
    #[test]
    fn jwt_validation_needs_its_feature() {
        let o = parse(&["--auth-issuer", "http://a"]).unwrap();
        let error = o.resource_server(LISTEN.parse().unwrap()).err().unwrap();
        assert!(error.contains("`jwt` feature"), "{error}");
    }

    #[cfg(feature = "jwt")]
    #[test]
    fn issuers_repeat_or_comma_separate_and_the_resource_defaults_to_the_endpoint() {
        let o = parse(&[
            "--auth-issuer",
            "http://a,http://b",
            "--auth-issuer",
            "http://c",
            "--auth-scopes",
            "read, write",
        ])
        .unwrap();
        assert_eq!(o.issuers, ["http://a", "http://b", "http://c"]);
        assert_eq!(o.scopes, ["read", "write"]);
        let server = o.resource_server(LISTEN.parse().unwrap()).unwrap().unwrap();
        assert_eq!(server.metadata().resource, "http://127.0.0.1:4000/mcp");
        assert_eq!(server.metadata().authorization_servers, o.issuers);
        assert_eq!(server.metadata().scopes_supported, ["read", "write"]);
    }

    #[test]
    fn without_an_issuer_authorization_stays_off_and_its_options_are_refused() {
        assert!(
            parse(&[])
                .unwrap()
                .resource_server(LISTEN.parse().unwrap())
                .unwrap()
                .is_none()
        );
        let scopes_alone = parse(&["--auth-scopes", "read"]).unwrap();
        assert!(
            scopes_alone
                .resource_server(LISTEN.parse().unwrap())
                .is_err()
        );
        assert_eq!(
            parse(&["--auth-issuer"]).unwrap_err(),
            "--auth-issuer needs a value"
        );
        let relative = parse(&["--auth-issuer", "as.example"]).unwrap();
        assert_eq!(
            relative
                .resource_server(LISTEN.parse().unwrap())
                .unwrap_err(),
            "\"as.example\" is not an absolute http(s) URL"
        );
    }

    #[test]
    fn the_client_secret_is_never_in_debug_output() {
        let o = parse(&["--auth-client-id", "rs", "--auth-client-secret", "hunter2"]).unwrap();
        assert!(!format!("{o:?}").contains("hunter2"));
    }
}
