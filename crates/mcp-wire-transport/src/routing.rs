//! The MCP HTTP headers, and what a stateless (2026-07-28) request's `Mcp-Name` copies from its
//! body, by method: one place for the client that writes them and the server that checks them.

use http::HeaderName;

/// `Mcp-Session-Id` (the stateful wire's session).
pub(crate) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method` (stateless wire: copies the body's `method`).
pub(crate) const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name` (stateless wire: copies the member [`name_member`] names).
pub(crate) const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
/// `Last-Event-ID` (resuming an SSE stream).
pub(crate) const LAST_EVENT_HEADER: HeaderName = HeaderName::from_static("last-event-id");

/// The params member a request's `Mcp-Name` copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameMember {
    /// `params.name`.
    Name,
    /// `params.uri`.
    Uri,
    /// `params.taskId`.
    TaskId,
}

/// Which params member `Mcp-Name` copies, by method (methods without one have no row).
const NAME_MEMBER: &[(&str, NameMember)] = &[
    ("tools/call", NameMember::Name),
    ("prompts/get", NameMember::Name),
    ("resources/read", NameMember::Uri),
    // The tasks extension (SEP-2663) routes its methods by task.
    ("tasks/get", NameMember::TaskId),
    ("tasks/update", NameMember::TaskId),
    ("tasks/cancel", NameMember::TaskId),
];

/// The member `Mcp-Name` copies for `method`; `None` when its requests carry no name.
pub(crate) fn name_member(method: &str) -> Option<NameMember> {
    NAME_MEMBER
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, member)| *member)
}

/// A header value, decoded from `=?base64?…?=` when wrapped so; `None` when the wrapper holds
/// invalid base64 or non-UTF-8.
pub(crate) fn decode_header_value(raw: &str) -> Option<String> {
    use base64::Engine;
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_decode_from_the_base64_wrapper_only() {
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        // Missing padding and characters outside the alphabet are refused.
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
        assert_eq!(decode_header_value("=?base64?SGVs!!!bG8=?="), None);
    }
}
