//! Request headers: the DNS-rebinding check, media types, `Mcp-Param-*` values.

use axum::response::Response;
use http::{HeaderMap, HeaderName, StatusCode, header};

use super::response::plain;
use crate::server::shared::ServerShared;

/// DNS-rebinding protection: `Host` and `Origin` (when present) must name an allowed host.
#[allow(clippy::result_large_err)]
pub(super) fn check_host_origin(
    shared: &ServerShared,
    headers: &HeaderMap,
) -> Result<(), Response> {
    let allowed = |authority: &str| {
        shared
            .allowed_hosts
            .iter()
            .any(|allowed| host_is(allowed, authority))
    };
    if let Some(host) = headers.get(header::HOST) {
        let ok = host.to_str().is_ok_and(allowed);
        if !ok {
            return Err(plain(StatusCode::FORBIDDEN, "host not allowed"));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| {
            o.split_once("://")
                .is_some_and(|(_, rest)| allowed(rest.split('/').next().unwrap_or("")))
        });
        if !ok {
            return Err(plain(StatusCode::FORBIDDEN, "origin not allowed"));
        }
    }
    Ok(())
}

/// Whether `authority` (`host[:port]` or `[v6][:port]`) names the host `allowed` (spelled as
/// in [`crate::server::ServerConfig::allowed_hosts`], a v6 address in brackets), any case.
fn host_is(allowed: &str, authority: &str) -> bool {
    match authority.strip_prefix('[') {
        Some(rest) => {
            let v6 = rest.split(']').next().unwrap_or_default();
            allowed
                .strip_prefix('[')
                .and_then(|a| a.strip_suffix(']'))
                .is_some_and(|a| a.eq_ignore_ascii_case(v6))
        }
        None => allowed.eq_ignore_ascii_case(authority.split(':').next().unwrap_or_default()),
    }
}

pub(super) fn header_str<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

pub(super) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.split(';').next().unwrap_or("").trim())
        .any(|v| v == mime || v == "*/*")
}

/// The `Mcp-Param-*` headers: (lowercased name after the prefix, raw value).
pub(super) fn param_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let rest = name.as_str().strip_prefix("mcp-param-")?;
            Some((rest.to_owned(), value.to_str().ok()?.trim().to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn hosts_match_with_or_without_a_port_in_any_case() {
        let cases = [
            ("localhost", "localhost", true),
            ("localhost", "LocalHost:8080", true),
            ("127.0.0.1", "127.0.0.1:1", true),
            ("localhost", "localhost.evil.example", false),
            ("localhost", "evil.example:80", false),
            ("[::1]", "[::1]:8080", true),
            ("[::1]", "[::1]", true),
            ("[::1]", "[::2]:8080", false),
            ("::1", "[::1]:8080", false),
            ("[::1]", "::1", false),
            ("localhost", "", false),
        ];
        for (allowed, authority, expected) in cases {
            assert_eq!(
                host_is(allowed, authority),
                expected,
                "{allowed} / {authority}"
            );
        }
    }

    #[test]
    fn accept_lists_are_read_per_media_type() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(&h, "application/json") && accepts(&h, "text/event-stream"));
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert!(!accepts(&h, "application/json"));
        h.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(accepts(&h, "text/event-stream"));
    }
}
