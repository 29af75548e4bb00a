//! The crate's one error type.

use std::time::Duration;

use mcp_wire::jsonrpc::codes;

/// Why a transport operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// An I/O error of the underlying socket, pipe or process.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The peer answered with an HTTP status we cannot use.
    #[error("HTTP status {status}: {message}")]
    HttpStatus {
        /// The status code.
        status: u16,
        /// What the body or the context said.
        message: String,
    },
    /// A frame exceeded the configured maximum size.
    #[error("frame of {size} bytes exceeds the limit of {limit} bytes")]
    FrameTooLarge {
        /// The size seen so far (at least `limit + 1`).
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Bytes that are not one JSON value (or not UTF-8).
    #[error("bad frame: {0}")]
    BadFrame(String),
    /// The peer closed the connection.
    #[error("peer closed the connection")]
    PeerClosed,
    /// Nothing arrived within the allowed time.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// A client could not obtain the authorization a server asked for (discovery,
    /// registration, the authorization or token request failed, or a check of what the
    /// authorization server said did). The message never quotes a credential.
    #[error("authorization failed: {0}")]
    Authorization(String),
    /// The peer broke the protocol; `code` is the JSON-RPC error code it maps to.
    #[error("protocol error {code}: {message}")]
    Protocol {
        /// The JSON-RPC error code.
        code: i64,
        /// What was expected and what was found.
        message: String,
    },
}

impl TransportError {
    /// A protocol error with a JSON-RPC code.
    pub fn protocol(code: i64, message: impl Into<String>) -> Self {
        Self::Protocol {
            code,
            message: message.into(),
        }
    }

    /// The JSON-RPC error code this error maps to, where it maps to one.
    pub fn jsonrpc_code(&self) -> Option<i64> {
        match self {
            Self::Protocol { code, .. } => Some(*code),
            Self::BadFrame(_) => Some(codes::PARSE_ERROR),
            Self::FrameTooLarge { .. } => Some(codes::INVALID_REQUEST),
            _ => None,
        }
    }
}
