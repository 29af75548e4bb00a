//! Typed Model Context Protocol (MCP) frames for every released protocol revision.
//!
//! - [`version`]: the five revisions as an ordered enum.
//! - [`facts`]: each revision's method and type tables, generated from its pinned schema.
//! - [`model`]: the hand-written superset model (every construct once, every revision's fields).
//! - [`jsonrpc`]: the JSON-RPC 2.0 envelope (ids, frames, batches).
//! - [`wire`]: the version boundary: `serialize_for`, `parse_as`, the ledger.
//! - `v2024_11_05` … `v2026_07_28`: per-revision models generated from the pinned official
//!   JSON Schemas (one Cargo feature each).

pub mod facts;
pub mod jsonrpc;
pub mod model;
pub mod version;
pub mod wire;

pub use version::{Era, ProtocolVersion, UnknownVersionError, VersionLike};
