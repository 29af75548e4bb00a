//! The 2026-07-28 `requestState`: the answers of earlier input rounds, bound to the request
//! (method and name) and an expiry, HMAC-SHA256 signed with the server's key. A state that was
//! altered, belongs to another request or has expired is refused (`-32602`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

/// What a `requestState` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RequestState {
    /// The method of the request it belongs to.
    #[serde(rename = "m")]
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    #[serde(rename = "n")]
    pub name: String,
    /// Rounds so far.
    #[serde(rename = "r")]
    pub rounds: usize,
    /// Unix seconds after which the state is refused.
    #[serde(rename = "x")]
    pub expires: u64,
    /// The answers gathered so far, by input key.
    #[serde(rename = "g")]
    pub gathered: IndexMap<String, Value>,
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StateError {
    /// Not in our format.
    #[error("requestState is malformed")]
    Malformed,
    /// The signature does not match: the state was altered.
    #[error("requestState failed its integrity check")]
    Tampered,
    /// Issued for another request.
    #[error("requestState belongs to another request")]
    Mismatch,
    /// Too old.
    #[error("requestState has expired")]
    Expired,
}

/// Signs and checks request states with one key.
#[derive(Clone)]
pub(crate) struct StateSigner {
    key: [u8; 32],
    ttl: Duration,
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSigner").finish_non_exhaustive()
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl StateSigner {
    /// A signer with `key` whose states live `ttl`.
    pub(crate) fn new(key: [u8; 32], ttl: Duration) -> Self {
        Self { key, ttl }
    }

    fn mac(&self, payload: &[u8]) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(payload);
        mac
    }

    /// The signed state text for `method`/`name` after `rounds` with `gathered` answers.
    pub(crate) fn sign(
        &self,
        method: &str,
        name: &str,
        rounds: usize,
        gathered: IndexMap<String, Value>,
    ) -> String {
        let state = RequestState {
            method: method.to_owned(),
            name: name.to_owned(),
            rounds,
            expires: now() + self.ttl.as_secs(),
            gathered,
        };
        let payload = serde_json::to_vec(&state).unwrap_or_default();
        let tag = self.mac(&payload).finalize().into_bytes();
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// The state in `text`, checked for integrity, request and age.
    pub(crate) fn verify(
        &self,
        text: &str,
        method: &str,
        name: &str,
    ) -> Result<RequestState, StateError> {
        let (payload, tag) = text.split_once('.').ok_or(StateError::Malformed)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| StateError::Tampered)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Tampered)?;
        self.mac(&payload)
            .verify_slice(&tag)
            .map_err(|_| StateError::Tampered)?;
        // Read as text, as every other JSON read is (one compiled reader).
        let payload = std::str::from_utf8(&payload).map_err(|_| StateError::Malformed)?;
        let state: RequestState =
            serde_json::from_str(payload).map_err(|_| StateError::Malformed)?;
        if state.method != method || state.name != name {
            return Err(StateError::Mismatch);
        }
        if state.expires < now() {
            return Err(StateError::Expired);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_verifies_and_any_change_is_refused() {
        let signer = StateSigner::new([7; 32], Duration::from_secs(60));
        let mut gathered = IndexMap::new();
        gathered.insert("a".to_owned(), serde_json::json!({"action": "accept"}));
        let text = signer.sign("tools/call", "t", 1, gathered.clone());
        let state = signer.verify(&text, "tools/call", "t").unwrap();
        assert_eq!(state.gathered, gathered);
        assert_eq!(
            signer.verify(&text, "tools/call", "other"),
            Err(StateError::Mismatch)
        );
        let mut tampered = text.clone().into_bytes();
        tampered[3] ^= 1;
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(
            signer.verify(&tampered, "tools/call", "t"),
            Err(StateError::Tampered)
        );
        assert_eq!(
            signer.verify("no-dot", "tools/call", "t"),
            Err(StateError::Malformed)
        );
        let other = StateSigner::new([8; 32], Duration::from_secs(60));
        assert_eq!(
            other.verify(&text, "tools/call", "t"),
            Err(StateError::Tampered)
        );
    }
}
