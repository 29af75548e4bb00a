//! What the HTTP client transports ask of whoever holds the client's credentials: the headers
//! each request carries, and what to do when the server refuses one (401, 403). The OAuth 2.1
//! client (`client::oauth`, feature `oauth-client`) is one [`Authorizer`]; a fixed token is
//! another ([`StaticToken`]).

use std::future::Future;
use std::pin::Pin;

use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};

use crate::TransportError;

/// What [`Authorizer::challenged`] returns: whether sending the request again may succeed.
pub type ChallengeFuture<'a> =
    Pin<Box<dyn Future<Output = Result<bool, TransportError>> + Send + 'a>>;

/// Gives an HTTP client transport the credentials of its requests.
pub trait Authorizer: Send + Sync + 'static {
    /// The headers a request of `method` to `url` carries (`Authorization`, and for
    /// proof-of-possession tokens their proof).
    fn request_headers(&self, method: &Method, url: &Uri) -> Vec<(HeaderName, HeaderValue)>;

    /// The server refused a request to `url` with `status` and `headers` (its
    /// `WWW-Authenticate` challenge): obtain what the next attempt needs. `Ok(true)`: send it
    /// again; `Ok(false)`: nothing more to try (the refusal stands); an error: the attempt to
    /// authorize failed, and says why (never quoting a credential).
    fn challenged<'a>(
        &'a self,
        url: &'a Uri,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> ChallengeFuture<'a>;
}

/// A bearer token obtained elsewhere, sent as it is; a refusal is final.
pub struct StaticToken(HeaderValue);

impl StaticToken {
    /// `Authorization: Bearer <token>`; an error when the token cannot be a header value.
    pub fn bearer(token: &str) -> Result<Self, TransportError> {
        let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            TransportError::protocol(
                mcp_wire::jsonrpc::codes::INVALID_PARAMS,
                "the token holds characters a header cannot carry",
            )
        })?;
        value.set_sensitive(true);
        Ok(Self(value))
    }
}

impl std::fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticToken(..)")
    }
}

impl Authorizer for StaticToken {
    fn request_headers(&self, _: &Method, _: &Uri) -> Vec<(HeaderName, HeaderValue)> {
        vec![(header::AUTHORIZATION, self.0.clone())]
    }

    fn challenged<'a>(
        &'a self,
        _: &'a Uri,
        _: StatusCode,
        _: &'a HeaderMap,
    ) -> ChallengeFuture<'a> {
        Box::pin(async { Ok(false) })
    }
}

/// How many times one request is sent again after a refusal its authorizer answered (a
/// server that keeps refusing — an unreachable scope — ends the loop).
pub(crate) const MAX_AUTHORIZATIONS_PER_REQUEST: u32 = 2;

/// Whether `status` is a refusal an authorizer may answer.
pub(crate) fn is_auth_refusal(status: StatusCode) -> bool {
    status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN
}
