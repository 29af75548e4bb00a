//! Variant-scoped, tamper-evident pagination cursors.
//!
//! A cursor leaving the router is `mcv1.<hex payload>.<hex tag>`: the payload is a small JSON
//! object naming the variant, the list method and the backend's own cursor; the tag is an
//! HMAC-SHA256 over the payload plus the session binding (principal and session tag), keyed with
//! the server's [`CursorKey`]. The binding is not written into the cursor, so a cursor replayed by
//! another principal or in another session fails verification like any altered cursor. The
//! router needs no state to check a cursor.
//!
//! Keys rotate: cursors are minted with the current key and verified with it or with any
//! previous key still configured ([`open_with`]); dropping a previous key retires it. A cursor
//! may carry an expiry (unix seconds, inside the signed payload), checked against the time the
//! caller passes in (the router reads no clock).

use std::fmt;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::methods::ListKind;
use crate::wire::VariantId;

type HmacSha256 = Hmac<Sha256>;

const PREFIX: &str = "mcv1.";
const DOMAIN: &[u8] = b"mcp-wire-variants/cursor/v1";

/// The smallest accepted key length in bytes.
pub const MIN_KEY_LEN: usize = 16;

/// The server's secret for signing cursors. `Debug` never prints it.
#[derive(Clone)]
pub struct CursorKey {
    /// The keyed MAC, ready to be cloned per cursor.
    mac: HmacSha256,
    len: usize,
}

impl CursorKey {
    /// Wraps key bytes; at least [`MIN_KEY_LEN`] bytes are required.
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, CursorKeyTooShort> {
        let bytes = bytes.as_ref();
        let too_short = CursorKeyTooShort { len: bytes.len() };
        if bytes.len() < MIN_KEY_LEN {
            return Err(too_short);
        }
        let mac = <HmacSha256 as Mac>::new_from_slice(bytes).map_err(|_| too_short)?;
        Ok(CursorKey {
            mac,
            len: bytes.len(),
        })
    }
}

impl fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CursorKey(<{} bytes>)", self.len)
    }
}

/// A cursor key shorter than [`MIN_KEY_LEN`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cursor key must be at least {MIN_KEY_LEN} bytes, found {len}")]
pub struct CursorKeyTooShort {
    /// The length given.
    pub len: usize,
}

/// What a cursor says once its tag has been verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorClaims {
    /// The variant whose backend produced the page.
    pub variant: VariantId,
    /// The list method the cursor continues.
    pub list: ListKind,
    /// The backend's own cursor.
    pub inner: String,
    /// When the cursor stops being accepted (unix seconds), if it expires.
    pub expires: Option<u64>,
}

/// The session a cursor is bound to (never written into the cursor).
#[derive(Debug, Clone, Copy)]
pub struct CursorBinding<'a> {
    /// The principal's key.
    pub principal: &'a str,
    /// The transport's session tag (e.g. its `MCP-Session-Id`); empty when it has none.
    pub session: &'a str,
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The cursor is not a JSON string.
    #[error("expected a string cursor, found JSON {found}")]
    NotAString {
        /// The JSON type found.
        found: &'static str,
    },
    /// Not in the router's format (e.g. a raw backend cursor or garbage).
    #[error("expected a cursor minted by this server ('{PREFIX}…'), found something else")]
    Malformed,
    /// The tag does not verify: altered, signed with another key, or from another session.
    #[error("cursor signature does not verify (altered, or issued to another session)")]
    BadSignature,
    /// A valid cursor whose expiry has passed.
    #[error("cursor expired at {expired_at} (unix seconds)")]
    Expired {
        /// When it expired.
        expired_at: u64,
    },
    /// A valid cursor of another list method.
    #[error("cursor continues {found}, not {expected}")]
    WrongMethod {
        /// The method of the request.
        expected: &'static str,
        /// The method the cursor was minted for.
        found: &'static str,
    },
}

#[derive(Serialize, Deserialize)]
struct Payload {
    v: VariantId,
    m: String,
    c: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    e: Option<u64>,
}

fn tag(key: &CursorKey, payload: &[u8], binding: CursorBinding<'_>) -> HmacSha256 {
    let mut mac = key.mac.clone();
    for part in [
        DOMAIN,
        payload,
        binding.principal.as_bytes(),
        binding.session.as_bytes(),
    ] {
        mac.update(&(part.len() as u64).to_be_bytes());
        mac.update(part);
    }
    mac
}

/// Mints a cursor for `claims`, bound to `binding`.
pub fn mint(key: &CursorKey, claims: &CursorClaims, binding: CursorBinding<'_>) -> String {
    let payload = Payload {
        v: claims.variant.clone(),
        m: claims.list.method().to_owned(),
        c: claims.inner.clone(),
        e: claims.expires,
    };
    let bytes = serde_json::to_vec(&payload).unwrap_or_default();
    let mac = tag(key, &bytes, binding).finalize().into_bytes();
    format!("{PREFIX}{}.{}", hex(&bytes), hex(&mac))
}

/// Verifies and opens a cursor with one key (no expiry check).
pub fn open(
    key: &CursorKey,
    cursor: &str,
    binding: CursorBinding<'_>,
) -> Result<CursorClaims, CursorError> {
    open_with(std::slice::from_ref(key), cursor, binding, None)
}

/// Verifies and opens a cursor: the tag must verify (constant time) under one of `keys` (the
/// current key first, then previous ones not yet retired) before anything is read; then, when
/// `now` (unix seconds) is given, an expired cursor is refused.
pub fn open_with(
    keys: &[CursorKey],
    cursor: &str,
    binding: CursorBinding<'_>,
    now: Option<u64>,
) -> Result<CursorClaims, CursorError> {
    let body = cursor.strip_prefix(PREFIX).ok_or(CursorError::Malformed)?;
    let (payload_hex, tag_hex) = body.split_once('.').ok_or(CursorError::Malformed)?;
    let payload = unhex(payload_hex).ok_or(CursorError::Malformed)?;
    let given = unhex(tag_hex).ok_or(CursorError::Malformed)?;
    if !keys
        .iter()
        .any(|key| tag(key, &payload, binding).verify_slice(&given).is_ok())
    {
        return Err(CursorError::BadSignature);
    }
    let payload: Payload = serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed)?;
    let list = ListKind::from_method(&payload.m).ok_or(CursorError::Malformed)?;
    if let (Some(expired_at), Some(now)) = (payload.e, now)
        && now >= expired_at
    {
        return Err(CursorError::Expired { expired_at });
    }
    Ok(CursorClaims {
        variant: payload.v,
        list,
        inner: payload.c,
        expires: payload.e,
    })
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let nibble = |c: u8| -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    };
    text.as_bytes()
        .chunks(2)
        .map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIND: CursorBinding<'static> = CursorBinding {
        principal: "alice",
        session: "s1",
    };

    fn key() -> CursorKey {
        CursorKey::new(*b"0123456789abcdef0123456789abcdef").unwrap()
    }

    fn claims(variant: &str, inner: &str) -> CursorClaims {
        CursorClaims {
            variant: variant.into(),
            list: ListKind::Tools,
            inner: inner.into(),
            expires: None,
        }
    }

    #[test]
    fn previous_keys_verify_until_retired() {
        let old = CursorKey::new(*b"the-old-key-0123456789").unwrap();
        let c = mint(&old, &claims("compact", "2"), BIND);
        // Rotated: the new key mints, the old one still verifies.
        let rotated = [key(), old.clone()];
        assert_eq!(
            open_with(&rotated, &c, BIND, None),
            Ok(claims("compact", "2"))
        );
        // Retired: only the new key is left.
        assert_eq!(
            open_with(&[key()], &c, BIND, None),
            Err(CursorError::BadSignature)
        );
        // New cursors are minted with the current key and verify under it alone.
        let fresh = mint(&key(), &claims("compact", "3"), BIND);
        assert!(open_with(&[key()], &fresh, BIND, None).is_ok());
    }

    #[test]
    fn expiry_is_signed_and_checked_against_the_given_time() {
        let expiring = CursorClaims {
            expires: Some(1_000),
            ..claims("full", "p2")
        };
        let c = mint(&key(), &expiring, BIND);
        assert_eq!(
            open_with(&[key()], &c, BIND, Some(999)),
            Ok(expiring.clone())
        );
        assert_eq!(
            open_with(&[key()], &c, BIND, Some(1_000)),
            Err(CursorError::Expired { expired_at: 1_000 })
        );
        // Without a time the expiry cannot be checked (the caller did not say when it is).
        assert_eq!(open_with(&[key()], &c, BIND, None), Ok(expiring));
        // The expiry is inside the signed payload: pushing it out breaks the tag.
        let (payload_hex, tag_hex) = c.strip_prefix("mcv1.").unwrap().split_once('.').unwrap();
        let payload = String::from_utf8(unhex(payload_hex).unwrap()).unwrap();
        let later = payload.replace("1000", "9999");
        let forged = format!("mcv1.{}.{}", hex(later.as_bytes()), tag_hex);
        assert_eq!(
            open_with(&[key()], &forged, BIND, Some(999)),
            Err(CursorError::BadSignature)
        );
    }

    #[test]
    fn round_trip() {
        let c = mint(&key(), &claims("compact", "page-2"), BIND);
        assert!(c.starts_with("mcv1."));
        assert_eq!(open(&key(), &c, BIND), Ok(claims("compact", "page-2")));
    }

    #[test]
    fn tampering_is_detected() {
        let c = mint(&key(), &claims("compact", "2"), BIND);
        // Re-sign nothing, just swap the variant inside the payload.
        let (payload_hex, tag_hex) = c.strip_prefix("mcv1.").unwrap().split_once('.').unwrap();
        let payload = String::from_utf8(unhex(payload_hex).unwrap()).unwrap();
        let forged_payload = payload.replace("compact", "full");
        let forged = format!("mcv1.{}.{}", hex(forged_payload.as_bytes()), tag_hex);
        assert_eq!(open(&key(), &forged, BIND), Err(CursorError::BadSignature));
        // Flip one hex digit of the tag.
        let mut flipped = c.clone().into_bytes();
        let last = flipped.len() - 1;
        flipped[last] = if flipped[last] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).unwrap();
        assert_eq!(open(&key(), &flipped, BIND), Err(CursorError::BadSignature));
    }

    #[test]
    fn other_key_principal_or_session_fails() {
        let c = mint(&key(), &claims("compact", "2"), BIND);
        let other_key = CursorKey::new(*b"ffffffffffffffffffffffffffffffff").unwrap();
        assert_eq!(open(&other_key, &c, BIND), Err(CursorError::BadSignature));
        let bob = CursorBinding {
            principal: "bob",
            ..BIND
        };
        assert_eq!(open(&key(), &c, bob), Err(CursorError::BadSignature));
        let s2 = CursorBinding {
            session: "s2",
            ..BIND
        };
        assert_eq!(open(&key(), &c, s2), Err(CursorError::BadSignature));
    }

    #[test]
    fn garbage_is_malformed() {
        // The Go reference's plain base64 format is not accepted: it is forgeable.
        for garbage in [
            "",
            "page-2",
            "eyJ2IjoiY29tcGFjdCIsImMiOiJwYWdlLTIifQ==",
            "mcv1.",
            "mcv1.zz.00",
            "mcv1.abc.00",
            "mcv1.7b7d",
        ] {
            assert_eq!(
                open(&key(), garbage, BIND),
                Err(CursorError::Malformed),
                "{garbage:?}"
            );
        }
    }

    #[test]
    fn short_keys_are_refused_and_never_printed() {
        assert_eq!(
            CursorKey::new(b"short").unwrap_err(),
            CursorKeyTooShort { len: 5 }
        );
        assert_eq!(format!("{:?}", key()), "CursorKey(<32 bytes>)");
    }

    #[test]
    fn hex_round_trip() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("ABCD"), None);
    }
}
