//! The live variant-aware server (feature `live`): a front server on the `mcp-wire-transport`
//! runtime that owns the transport (Streamable HTTP on both wires, HTTP+SSE, stdio), answers
//! `initialize` itself and dispatches each variant-scoped request to the selected variant's
//! inner server — the Go reference's `Server.Run` design, on the sans-IO [`crate::router`].
//!
//! - A variant's backend is any [`Handler`] (or an existing [`Server`]), unchanged.
//! - `initialize`: the union of the backends' capabilities; the ranked `availableVariants`
//!   (and `moreVariantsAvailable`) for this principal and these hints, when the catalog
//!   advertises; the negotiated list is kept against the session id (`MCP-Session-Id` over
//!   HTTP) and the principal the authentication hook gave.
//! - Every later request: [`crate::VariantSession::route`] with the `_meta` selector and the
//!   `MCP-Server-Variant` header (`_meta` wins). Scoped methods go to the variant's backend
//!   with the resolved id in `_meta`; list results are paged with variant-bound signed
//!   cursors; backend errors gain `activeVariant`. `ping`, `logging/setLevel` and every other
//!   method are the front's own.
//! - Notifications: a backend's list changes are re-sent on each affected session's stream,
//!   tagged with the variant; progress and logs go to the request's stream as on any server.
//! - Subscriptions: `resources/subscribe` checks the resource exists in the variant, records
//!   (variant, uri) and opens the [`SubscriptionProvider`]'s stream; its updates go to the
//!   session's standalone stream, tagged. `resources/unsubscribe`, DELETE and disconnects
//!   close the streams.
//! - At 2026-07-28 (no `initialize`, no session) the extension does not exist: selectors are
//!   refused with "Server variants not supported" and the first-ranked stable variant serves
//!   as a plain server; nothing is advertised (`server/discover` included).

mod server;

pub use server::{
    Backend, LiveConfigError, ResourceUpdate, SubscriptionProvider, VariantServer,
    VariantServerBuilder, union_capabilities,
};

pub use mcp_wire_transport::server::{Handler, Server};
