//! JWT access tokens checked against the keys their authorization server publishes.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use super::discovery::discover;
use super::fetch::{HttpSender, OAuthHttp, get_json};
use super::{ScopeClaim, TokenClaims, TokenError, TokenFuture, TokenValidator};

/// The signature algorithms accepted: asymmetric ones only. `none` is no algorithm, and an HMAC
/// would let anyone holding the published key (that is, everyone) sign.
const ALLOWED_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Checks JWT access tokens (RFC 9068) locally: the signature against the key set of the
/// authorization server named by the token's `iss` (one of those accepted; its metadata found
/// by RFC 8414, then OpenID Connect discovery; its `jwks_uri` fetched and kept), with an
/// asymmetric algorithm; `iss` exactly; `aud` naming the resource (a string, or an array
/// holding it); `exp` and `nbf` with a small leeway.
///
/// Keys are fetched again when a token names a key id the set lacks (a rotation) or the set
/// has been kept longer than its maximum age, but at most once per refresh interval for each
/// authorization server: a flood of tokens naming made-up key ids costs one fetch. A key the
/// server no longer publishes is forgotten at the next fetch.
pub struct JwtValidator {
    audience: String,
    leeway: Duration,
    refresh_interval: Duration,
    max_key_age: Duration,
    http: Arc<dyn OAuthHttp>,
    issuers: Vec<IssuerKeys>,
}

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("audience", &self.audience)
            .field(
                "issuers",
                &self.issuers.iter().map(|i| &i.issuer).collect::<Vec<_>>(),
            )
            .field("leeway", &self.leeway)
            .finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// Accepts tokens of the authorization servers `issuers` (their issuer identifiers) issued
    /// for `audience`, the resource's canonical URI. A 30 s leeway, keys fetched again at most
    /// every 30 s and kept at most 15 min, plain HTTP to the authorization servers.
    pub fn new(issuers: Vec<String>, audience: impl Into<String>) -> Self {
        // The RustCrypto backend, unless the process chose one already.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        Self {
            audience: audience.into(),
            leeway: Duration::from_secs(30),
            refresh_interval: Duration::from_secs(30),
            max_key_age: Duration::from_secs(15 * 60),
            http: Arc::new(HttpSender::default()),
            issuers: issuers.into_iter().map(IssuerKeys::new).collect(),
        }
    }

    /// The same with `leeway` on `exp` and `nbf` (clock skew between servers).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The same fetching an authorization server's keys at most once per `interval`.
    pub fn with_refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// The same keeping a fetched key set at most `age` before fetching it again.
    pub fn with_max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    /// The same speaking to authorization servers through `http`.
    pub fn with_http(mut self, http: Arc<dyn OAuthHttp>) -> Self {
        self.http = http;
        self
    }

    async fn check(&self, token: &str) -> Result<TokenClaims, TokenError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the token is not a JWT with a known algorithm"))?;
        if !ALLOWED_ALGORITHMS.contains(&header.alg) {
            return Err(invalid("the token's algorithm is not accepted"));
        }
        let peek: IssuerPeek = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| invalid("the token's claims are not a JSON object"))?;
        let issuer = self
            .issuers
            .iter()
            .find(|i| peek.iss.as_deref() == Some(i.issuer.as_str()))
            .ok_or_else(|| invalid("the token's issuer is not accepted"))?;
        let key = issuer
            .key_for(self, header.kid.as_deref(), header.alg)
            .await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&issuer.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let claims = jsonwebtoken::decode::<AccessClaims>(token, &key.key, &validation)
            .map_err(|e| TokenError::Invalid(describe(e.kind())))?
            .claims;
        let client_id = claims.client_id.or(claims.azp);
        let subject = claims
            .sub
            .or_else(|| client_id.clone())
            .ok_or_else(|| invalid("the token names no subject"))?;
        let scopes = claims
            .scope
            .or(claims.scp)
            .map(ScopeClaim::into_scopes)
            .unwrap_or_default();
        let mut out = TokenClaims::new(issuer.issuer.clone(), subject).with_scopes(scopes);
        if let Some(client_id) = client_id {
            out = out.with_client_id(client_id);
        }
        Ok(out)
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> TokenFuture<'a> {
        Box::pin(self.check(token))
    }
}

fn invalid(why: &'static str) -> TokenError {
    TokenError::Invalid(Cow::Borrowed(why))
}

/// What a refused token is told, in words that quote nothing of it.
fn describe(kind: &ErrorKind) -> Cow<'static, str> {
    Cow::Borrowed(match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidAudience => "the token was not issued for this resource",
        ErrorKind::InvalidIssuer => "the token's issuer is not accepted",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
            "the token's algorithm does not fit its key"
        }
        ErrorKind::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
        _ => "the token is malformed",
    })
}

/// The one claim read before the signature is checked: which authorization server to ask.
#[derive(Deserialize)]
struct IssuerPeek {
    iss: Option<String>,
}

/// The claims of an access token the principal is made of (RFC 9068 §2.2, with the `scp` and
/// `azp` spellings some servers use).
#[derive(Deserialize)]
struct AccessClaims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    scope: Option<ScopeClaim>,
    scp: Option<ScopeClaim>,
}

/// One key of a set: what it may verify.
struct Key {
    kid: Option<String>,
    family: AlgorithmFamily,
    algorithm: Option<Algorithm>,
    key: DecodingKey,
}

impl Key {
    /// A signature key of the JWK `value` (asymmetric, not marked for encryption, its `alg`
    /// a signature algorithm when it names one), if it is one.
    fn from_jwk(value: &Value) -> Option<Self> {
        let jwk = serde_json::from_value::<Jwk>(value.clone()).ok()?;
        let family = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => AlgorithmFamily::Rsa,
            AlgorithmParameters::EllipticCurve(_) => AlgorithmFamily::Ec,
            AlgorithmParameters::OctetKeyPair(_) => AlgorithmFamily::Ed,
            _ => return None,
        };
        if matches!(
            jwk.common.public_key_use,
            Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
        ) {
            return None;
        }
        let algorithm = match value.get("alg") {
            Some(alg) => Some(alg.as_str()?.parse::<Algorithm>().ok()?),
            None => None,
        };
        Some(Self {
            kid: jwk.common.key_id.clone(),
            family,
            algorithm,
            key: DecodingKey::from_jwk(&jwk).ok()?,
        })
    }

    fn fits(&self, algorithm: Algorithm) -> bool {
        self.family == algorithm.family() && self.algorithm.is_none_or(|a| a == algorithm)
    }
}

/// The keys last fetched from one authorization server.
#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    fetched: Option<Instant>,
}

impl KeySet {
    /// The key a token signed with `algorithm` under `kid` is checked with: the one with that
    /// id, or without an id, the only key that fits.
    fn find(&self, kid: Option<&str>, algorithm: Algorithm) -> Option<Arc<Key>> {
        let mut fitting = self.keys.iter().filter(|k| k.fits(algorithm));
        match kid {
            Some(kid) => fitting.find(|k| k.kid.as_deref() == Some(kid)).cloned(),
            None => {
                let only = fitting.next()?;
                fitting.next().is_none().then(|| only.clone())
            }
        }
    }
}

/// The key set of one authorization server and its refreshing.
struct IssuerKeys {
    issuer: String,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching, so concurrent misses wait for one fetch instead of each making one.
    refresh: tokio::sync::Mutex<Refresh>,
}

#[derive(Default)]
struct Refresh {
    jwks_uri: Option<String>,
    last_attempt: Option<Instant>,
}

impl IssuerKeys {
    fn new(issuer: String) -> Self {
        Self {
            issuer,
            keys: RwLock::new(Arc::new(KeySet::default())),
            refresh: tokio::sync::Mutex::new(Refresh::default()),
        }
    }

    fn current(&self) -> Arc<KeySet> {
        self.keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn fresh(&self, set: &KeySet, validator: &JwtValidator) -> bool {
        set.fetched
            .is_some_and(|t| t.elapsed() < validator.max_key_age)
    }

    async fn key_for(
        &self,
        validator: &JwtValidator,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> Result<Arc<Key>, TokenError> {
        let set = self.current();
        if self.fresh(&set, validator)
            && let Some(key) = set.find(kid, algorithm)
        {
            return Ok(key);
        }
        let mut refresh = self.refresh.lock().await;
        // Another request may have fetched while this one waited.
        let set = self.current();
        if self.fresh(&set, validator)
            && let Some(key) = set.find(kid, algorithm)
        {
            return Ok(key);
        }
        let may_fetch = refresh
            .last_attempt
            .is_none_or(|t| t.elapsed() >= validator.refresh_interval);
        if may_fetch {
            refresh.last_attempt = Some(Instant::now());
            match self.fetch(validator, &mut refresh).await {
                Ok(fetched) => {
                    *self
                        .keys
                        .write()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(fetched);
                }
                Err(e) => tracing::warn!(
                    issuer = %self.issuer,
                    error = %e,
                    "cannot fetch the authorization server's keys"
                ),
            }
        }
        let set = self.current();
        if set.fetched.is_none() {
            return Err(TokenError::Unavailable(format!(
                "no keys of {} yet",
                self.issuer
            )));
        }
        set.find(kid, algorithm)
            .ok_or_else(|| invalid("the token's key is not one its issuer publishes"))
    }

    async fn fetch(
        &self,
        validator: &JwtValidator,
        refresh: &mut Refresh,
    ) -> Result<KeySet, super::FetchError> {
        let http = &*validator.http;
        let jwks_uri = match &refresh.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let metadata = discover(http, &self.issuer).await?;
                let uri = metadata.jwks_uri.ok_or_else(|| {
                    super::FetchError::new(format!(
                        "the metadata of {} names no jwks_uri",
                        self.issuer
                    ))
                })?;
                refresh.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let document = get_json(http, &jwks_uri).await?;
        let keys = document
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| super::FetchError::new(format!("{jwks_uri}: no keys array")))?
            .iter()
            // A key this server cannot use is skipped, not a reason to drop the others.
            .filter_map(Key::from_jwk)
            .map(Arc::new)
            .collect();
        tracing::debug!(issuer = %self.issuer, %jwks_uri, "fetched the authorization server's keys");
        Ok(KeySet {
            keys,
            fetched: Some(Instant::now()),
        })
    }
}
