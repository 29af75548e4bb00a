//! The MCP server-variants extension (SEP-2053): wire types and a transport-free router.
//!
//! A server registers several *variants* of itself (say a compact and a full tool set), each with
//! a backend handle of its own type. At `initialize` the client may send hints; the server ranks
//! the variants for it and advertises the list; later requests pick a variant with
//! `_meta["io.modelcontextprotocol/server-variant"]` or fall back to the session default, which is
//! fixed at `initialize`. The extension exists only at the handshake revisions (2024-11-05 …
//! 2025-11-25); at 2026-07-28 any selector is refused.
//!
//! - [`wire`]: payloads, selector, header, error data (unknown members survive round trips).
//! - [`catalog`]: registration, ranking and the invariants every advertised list satisfies.
//! - [`router`]: negotiation, routing, cursor wrapping, notification tagging, subscriptions.
//! - [`cursor`]: HMAC-signed, variant-scoped cursors.
//! - [`error`]: the layer's error type and its JSON-RPC error objects.
//! - `live` (feature `live`, on by default): the variant-aware front server on the
//!   `mcp-wire-transport` runtime, Streamable HTTP and stdio.
//!
//! ```
//! use mcp_wire_variants::{InitializeInput, PrincipalKey, RequestView, RouteDecision, ServerVariant,
//!     VariantCatalog, VariantRouter};
//! use serde_json::json;
//!
//! let catalog = VariantCatalog::builder()
//!     .variant(ServerVariant::new("compact", "Few tools, short descriptions"), 0, "compact-backend")
//!     .variant(ServerVariant::new("full", "Every tool"), 1, "full-backend")
//!     .cursor_key(b"a server secret of 16+ bytes")
//!     .build()?;
//! let router = VariantRouter::new(catalog);
//!
//! // initialize: the client opts in without hints.
//! let client_caps = json!({"extensions": {"io.modelcontextprotocol/server-variants": {}}});
//! let negotiated = router.initialize(InitializeInput::new("2025-11-25", Some(&client_caps)))?;
//! let mut server_caps = json!({"tools": {}});
//! negotiated.advertisement.unwrap().apply_to(&mut server_caps);
//! let session = negotiated.session;
//! assert_eq!(session.default_variant().as_str(), "compact");
//!
//! // A request selecting `full` goes to the `full` backend.
//! let params = json!({"_meta": {"io.modelcontextprotocol/server-variant": "full"}});
//! let anonymous = PrincipalKey::anonymous();
//! match session.route(&RequestView::new("tools/list", Some(&params), &anonymous)) {
//!     RouteDecision::Dispatch(d) => assert_eq!(d.backend, "full-backend"),
//!     other => panic!("unexpected {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod catalog;
pub mod cursor;
pub mod error;
#[cfg(feature = "live")]
pub mod live;
pub mod methods;
pub mod router;
pub mod wire;

pub use catalog::{
    AdvertisePolicy, CatalogError, CatalogProblem, HintScoreRanker, PrincipalKey, PriorityRanker,
    Ranked, Ranker, RankingInput, VariantCatalog, VariantCatalogBuilder,
};
pub use error::{ErrorData, VariantError};
pub use methods::{ListKind, ScopedMethod};
pub use router::{
    Advertisement, Dispatch, InitializeInput, Negotiated, RequestView, RouteDecision,
    RoutedNotification, SessionSnapshot, SubscriptionRecord, SubscriptionState, UnsubscribeOutcome,
    VariantRouter, VariantSession,
};
pub use wire::{
    ClientVariantsExtension, DeprecationInfo, HintValue, ServerVariant, ServerVariantsExtension,
    VariantHints, VariantId, VariantStatus,
};
