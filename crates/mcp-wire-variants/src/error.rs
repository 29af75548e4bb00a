//! The router's error type and the JSON-RPC error objects it turns into.

pub use mcp_wire::jsonrpc::ErrorData;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::cursor::CursorError;
use crate::wire::{CursorMismatchData, InvalidVariantData, VariantId};

/// The JSON-RPC codes variant errors answer with (the crate's one table): `INVALID_PARAMS` for
/// every variant error a client can cause, `INTERNAL_ERROR` for configuration problems found
/// while negotiating, `METHOD_NOT_FOUND`, and `RESOURCE_NOT_FOUND` (the code most 2025-era SDKs
/// use for an unknown resource URI).
pub use mcp_wire::jsonrpc::codes::{
    INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND,
};

/// Exact message of an unknown or malformed selector (SEP text).
pub const MSG_INVALID_VARIANT: &str = "Invalid server variant";
/// Exact message when variants are off but a selector arrived (SEP text).
pub const MSG_NOT_SUPPORTED: &str = "Server variants not supported";
/// Exact message of a cursor minted under another variant (SEP text).
pub const MSG_CURSOR_MISMATCH: &str = "Cursor invalid for requested variant";
/// Message of a cursor the router did not mint, or one that was altered (Go reference text).
pub const MSG_INVALID_CURSOR: &str = "Invalid cursor format";
/// Message of a request on a closed session or from another principal.
pub const MSG_UNKNOWN_SESSION: &str = "Unknown MCP session";
/// `resources/subscribe` for a resource the active variant does not have (the HTTP adapter's text).
pub const MSG_RESOURCE_UNAVAILABLE: &str = "Resource is unavailable in the active variant";
/// Message when the visibility filter leaves nothing.
pub const MSG_NO_VISIBLE: &str = "No server variants are visible";
/// Message when nothing visible is stable and the client did not ask for experimental variants.
pub const MSG_NO_STABLE: &str = "No stable server variant is visible";

/// Backend error codes that gain `data.activeVariant` (identifier-resolution failures).
pub const ENRICHED_CODES: [i64; 3] = [INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND];

/// Where in a request the offending value sits (for messages and diagnostics).
pub const SELECTOR_PATH: &str = "params._meta[\"io.modelcontextprotocol/server-variant\"]";
/// JSON path of the header selector (outside the body, named for diagnostics only).
pub const HEADER_PATH: &str = "header MCP-Server-Variant";
/// JSON path of a list request's cursor.
pub const CURSOR_PATH: &str = "params.cursor";

/// Adds `activeVariant` to a backend error's `data` when its code is one of [`ENRICHED_CODES`]:
/// merged into an object `data` (an existing `activeVariant` wins), created when `data` is absent;
/// a non-object `data` is left as it is rather than lost.
pub fn with_active_variant(mut error: ErrorData, id: &VariantId) -> ErrorData {
    if !ENRICHED_CODES.contains(&error.code) {
        return error;
    }
    match &mut error.data {
        None => error.data = Some(json!({ "activeVariant": id })),
        Some(Value::Object(map)) => {
            map.entry("activeVariant")
                .or_insert_with(|| Value::String(id.as_str().to_owned()));
        }
        Some(_) => {}
    }
    error
}

/// A ranker broke its contract (a programming error in the server, reported as -32603).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RankerError {
    /// The ranker returned an id that is not among the visible candidates.
    #[error("ranker returned unknown variant id '{0}'")]
    UnknownId(VariantId),
    /// The ranker returned an id twice.
    #[error("ranker returned variant id '{0}' twice")]
    DuplicateId(VariantId),
}

/// Everything the router refuses, each mapping to one JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// The selector names no variant of this session, or is not a string.
    #[error("invalid server variant at {path}: expected one of {available:?}, found {requested:?}")]
    InvalidVariant {
        /// The requested id (`None` when the selector was not a string).
        requested: Option<String>,
        /// The session's ids, unless the catalog hides them.
        available: Option<Vec<VariantId>>,
        /// Where the selector came from ([`SELECTOR_PATH`] or [`HEADER_PATH`]).
        path: &'static str,
    },
    /// A selector arrived where the extension is off (2026-07-28, or a revision not allowed).
    #[error("server variants not supported here, but {path} carries a selector")]
    NotSupported {
        /// Where the selector came from.
        path: &'static str,
    },
    /// A cursor minted under another variant.
    #[error(
        "cursor at {CURSOR_PATH} was minted for variant '{cursor_variant}', request is for '{requested_variant}'"
    )]
    CursorMismatch {
        /// The variant named inside the cursor.
        cursor_variant: VariantId,
        /// The variant the request resolved to.
        requested_variant: VariantId,
    },
    /// A cursor the router did not mint, or one that was altered, or one for another list method.
    #[error("invalid cursor at {CURSOR_PATH} (variant '{active_variant}'): {reason}")]
    InvalidCursor {
        /// The variant the request resolved to.
        active_variant: VariantId,
        /// What was wrong with it.
        reason: CursorError,
    },
    /// The session is closed, or the request comes from another principal.
    #[error("unknown MCP session (closed, or bound to another principal)")]
    UnknownSession,
    /// Nothing is visible to this principal.
    #[error("no server variant is visible to this principal")]
    NoVisibleVariant,
    /// Nothing visible is stable, and the client did not ask for experimental variants.
    #[error("no stable server variant is visible to this principal")]
    NoStableVariant,
    /// The configured ranker broke its contract.
    #[error("ranker contract violated: {0}")]
    Ranker(#[from] RankerError),
}

impl VariantError {
    /// The JSON-RPC code.
    pub fn code(&self) -> i64 {
        match self {
            VariantError::NoVisibleVariant
            | VariantError::NoStableVariant
            | VariantError::Ranker(_) => INTERNAL_ERROR,
            _ => INVALID_PARAMS,
        }
    }

    /// The JSON path of the offending value, when the error is about one.
    pub fn path(&self) -> Option<&'static str> {
        match self {
            VariantError::InvalidVariant { path, .. } | VariantError::NotSupported { path } => {
                Some(path)
            }
            VariantError::CursorMismatch { .. } | VariantError::InvalidCursor { .. } => {
                Some(CURSOR_PATH)
            }
            _ => None,
        }
    }

    /// The wire error object: fixed SEP messages, structured `data`.
    pub fn to_error_data(&self) -> ErrorData {
        let code = self.code();
        match self {
            VariantError::InvalidVariant {
                requested,
                available,
                ..
            } => {
                let data = InvalidVariantData {
                    requested_variant: requested.clone(),
                    available_variants: available.clone(),
                    extra: Map::new(),
                };
                ErrorData::new(code, MSG_INVALID_VARIANT).with_data(to_json(&data))
            }
            VariantError::NotSupported { .. } => ErrorData::new(code, MSG_NOT_SUPPORTED),
            VariantError::CursorMismatch {
                cursor_variant,
                requested_variant,
            } => {
                let data = CursorMismatchData {
                    cursor_variant: cursor_variant.clone(),
                    requested_variant: requested_variant.clone(),
                    active_variant: Some(requested_variant.clone()),
                    extra: Map::new(),
                };
                ErrorData::new(code, MSG_CURSOR_MISMATCH).with_data(to_json(&data))
            }
            VariantError::InvalidCursor { active_variant, .. } => {
                ErrorData::new(code, MSG_INVALID_CURSOR)
                    .with_data(json!({ "activeVariant": active_variant }))
            }
            VariantError::UnknownSession => ErrorData::new(code, MSG_UNKNOWN_SESSION),
            VariantError::NoVisibleVariant => ErrorData::new(code, MSG_NO_VISIBLE),
            VariantError::NoStableVariant => ErrorData::new(code, MSG_NO_STABLE),
            VariantError::Ranker(e) => ErrorData::new(code, e.to_string()),
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_messages_are_byte_exact() {
        assert_eq!(MSG_INVALID_VARIANT, "Invalid server variant");
        assert_eq!(MSG_NOT_SUPPORTED, "Server variants not supported");
        assert_eq!(MSG_CURSOR_MISMATCH, "Cursor invalid for requested variant");
        let e = VariantError::NotSupported {
            path: SELECTOR_PATH,
        };
        assert_eq!(
            serde_json::to_value(e.to_error_data()).unwrap(),
            json!({"code": -32602, "message": "Server variants not supported"})
        );
    }

    #[test]
    fn invalid_variant_shape() {
        let e = VariantError::InvalidVariant {
            requested: Some("gpt-optimized".into()),
            available: Some(vec!["planner".into(), "executor".into()]),
            path: SELECTOR_PATH,
        };
        assert_eq!(
            serde_json::to_value(e.to_error_data()).unwrap(),
            json!({"code": -32602, "message": "Invalid server variant",
                   "data": {"requestedVariant": "gpt-optimized",
                            "availableVariants": ["planner", "executor"]}})
        );
        assert_eq!(e.path(), Some(SELECTOR_PATH));
        let hidden = VariantError::InvalidVariant {
            requested: None,
            available: None,
            path: HEADER_PATH,
        };
        assert_eq!(hidden.to_error_data().data, Some(json!({})));
    }

    #[test]
    fn cursor_mismatch_shape() {
        let e = VariantError::CursorMismatch {
            cursor_variant: "planner".into(),
            requested_variant: "executor".into(),
        };
        assert_eq!(
            serde_json::to_value(e.to_error_data()).unwrap(),
            json!({"code": -32602, "message": "Cursor invalid for requested variant",
                   "data": {"cursorVariant": "planner", "requestedVariant": "executor",
                            "activeVariant": "executor"}})
        );
    }

    // Go: TestEnrichError, TestHandleDirect_ErrorEnrichment, TestHandleDirect_NonEnrichableError.
    #[test]
    fn backend_errors_gain_active_variant() {
        let id = VariantId::from("full");
        for code in ENRICHED_CODES {
            let e = with_active_variant(ErrorData::new(code, "Unknown tool: x"), &id);
            assert_eq!(
                e.data,
                Some(json!({"activeVariant": "full"})),
                "code {code}"
            );
        }
        let merged = with_active_variant(
            ErrorData::new(INVALID_PARAMS, "m").with_data(json!({"hint": "elsewhere"})),
            &id,
        );
        assert_eq!(
            merged.data,
            Some(json!({"hint": "elsewhere", "activeVariant": "full"}))
        );
        let kept = with_active_variant(
            ErrorData::new(INVALID_PARAMS, "m").with_data(json!({"activeVariant": "other"})),
            &id,
        );
        assert_eq!(kept.data, Some(json!({"activeVariant": "other"})));
        let scalar = with_active_variant(
            ErrorData::new(INVALID_PARAMS, "m").with_data(json!("text")),
            &id,
        );
        assert_eq!(scalar.data, Some(json!("text")));
        let internal = with_active_variant(ErrorData::new(INTERNAL_ERROR, "boom"), &id);
        assert_eq!(internal.data, None);
    }

    #[test]
    fn configuration_failures_are_internal_errors() {
        assert_eq!(VariantError::NoStableVariant.code(), INTERNAL_ERROR);
        assert_eq!(VariantError::NoVisibleVariant.code(), INTERNAL_ERROR);
        let e = VariantError::from(RankerError::UnknownId("ghost".into()));
        assert_eq!(e.code(), INTERNAL_ERROR);
        assert_eq!(
            e.to_error_data().message,
            "ranker returned unknown variant id 'ghost'"
        );
        assert_eq!(VariantError::UnknownSession.code(), INVALID_PARAMS);
    }
}
