//! DPoP (RFC 9449): proof-of-possession of a key the client generates, bound to its tokens.
//! Each token request and each request carrying a DPoP-bound token has a fresh proof, a JWT
//! signed with the key (ES256) naming the HTTP method and URL, the server's nonce when it
//! asked for one, and (to a resource server) the hash of the access token.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use serde_json::{Value, json};
use sha2::Digest as _;

use super::exchange::failed;
use crate::TransportError;

/// The JWS algorithm of the proofs.
pub(crate) const ALGORITHM: &str = "ES256";

/// A P-256 key pair held for the life of one client (never stored).
pub(crate) struct DpopKey {
    key: p256::ecdsa::SigningKey,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: Value,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DpopKey(…)")
    }
}

impl DpopKey {
    /// A new random key.
    pub fn generate() -> Result<Self, TransportError> {
        // A random 32-byte string is a valid scalar but for a negligible share; draw again then.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| failed(format!("no randomness: {e}")))?;
            if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&bytes) {
                let point = key.verifying_key().to_sec1_point(false);
                let coordinates = point.as_bytes();
                let jwk = json!({
                    "kty": "EC",
                    "crv": "P-256",
                    "x": base64url(&coordinates[1..33]),
                    "y": base64url(&coordinates[33..65]),
                });
                return Ok(Self { key, jwk });
            }
        }
        Err(failed("could not draw a DPoP key"))
    }

    /// A proof for a `method` request to `url` (its query and fragment left out), with the
    /// server's `nonce` and, for a resource request, the `access_token` it accompanies.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> Result<String, TransportError> {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let mut jti = [0u8; 16];
        getrandom::fill(&mut jti).map_err(|e| failed(format!("no randomness: {e}")))?;
        let iat = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        let mut claims = json!({"jti": base64url(&jti), "htm": method, "htu": htu, "iat": iat});
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        if let Some(token) = access_token {
            claims["ath"] = json!(base64url(&sha2::Sha256::digest(token.as_bytes())));
        }
        let signing_input = format!(
            "{}.{}",
            base64url(header.to_string().as_bytes()),
            base64url(claims.to_string().as_bytes())
        );
        let signature: p256::ecdsa::Signature = self.key.sign(signing_input.as_bytes());
        Ok(format!(
            "{signing_input}.{}",
            base64url(&signature.to_bytes())
        ))
    }
}

fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(jwt: &str, index: usize) -> Value {
        let text = jwt.split('.').nth(index).unwrap();
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn a_proof_verifies_with_its_jwk_and_names_the_request() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof("POST", "http://rs/mcp?x=1#f", Some("n1"), Some("token"))
            .unwrap();
        let header = part(&proof, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none());
        let claims = part(&proof, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://rs/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], base64url(&sha2::Sha256::digest(b"token")));
        let x = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let mut sec1 = vec![4u8];
        sec1.extend(x);
        sec1.extend(y);
        let verifying = p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1).unwrap();
        let (input, signature) = proof.rsplit_once('.').unwrap();
        let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(signature)
            .unwrap();
        let signature = p256::ecdsa::Signature::from_slice(&signature).unwrap();
        use p256::ecdsa::signature::Verifier as _;
        verifying.verify(input.as_bytes(), &signature).unwrap();
        let other = key.proof("POST", "http://rs/mcp", None, None).unwrap();
        assert_ne!(part(&other, 1)["jti"], claims["jti"]);
    }
}
