//! Typed Model Context Protocol (MCP) frames for every released protocol revision.
//!
//! - [`version`]: the five revisions as an ordered enum.
//! - [`facts`]: each revision's method and type tables, generated from its pinned schema.
//! - [`model`]: the hand-written superset model (every construct once, every revision's fields).
//! - [`jsonrpc`]: the JSON-RPC 2.0 envelope (ids, frames, batches).
//! - [`json_text`]: strict reading of a frame's text (UTF-8, no repeated key, bounded nesting).
//! - [`wire`]: the version boundary: `serialize_for`, `parse_as`, the ledger.
//! - [`session`]: what a stream of frames says about itself: revisions, ids per direction,
//!   the client identity, what each response answers.
//! - `tool` (feature `schemars`): typed tools, their schemas from Rust types.
//! - `v2024_11_05` … `v2026_07_28`: per-revision models generated from the pinned official
//!   JSON Schemas (one Cargo feature each): one revision's exact definitions, for code that
//!   must hold that form; [`convert`] goes between them and the superset.
//! - [`design`]: how the emitter and the generated modules work inside (no API).
//!
//! # Which API for which job
//!
//! | you write | reach for |
//! | --- | --- |
//! | a server: read a request, answer it | [`wire::parse_frame`] at the session's revision; build results with the [`model`] constructors; emit with [`wire::serialize_for_vec`] of a [`jsonrpc::JsonRpcResponse`]; a bad frame is answered with [`wire::FrameError::reply`] |
//! | a proxy or bridge: relay between revisions | [`session::Session`] (revision, ids per direction, identity, what each answer answers) over [`wire::RawFrame`]; [`wire::RawFrame::parse`] at the source revision with [`session::Pending::result_for`]; [`wire::serialize_for_report`] at the target for what changed |
//! | a validator: judge captured traffic | [`session::Session`], [`wire::parse_as`] / [`wire::parse_result_for`] (method and type existence, the 2026-07-28 mandates), errors as [`jsonrpc::ErrorData`] with a JSON Pointer |
//! | code against one revision's exact schema | the generated `v…` modules (wire names and shapes exactly as that schema has them; variant names differ from the superset's by one rule, see [`design`]); [`convert::to_superset`] / [`convert::from_superset`] to move a value across; [`facts`] for its method and type tables |
//!
//! Errors: every error type ([`model::ModelError`], [`wire::ParseError`], [`wire::EmitError`],
//! [`wire::FrameError`], [`session::SessionError`], [`convert::ConvertError`]) converts into
//! [`jsonrpc::ErrorData`] with a code from the one table [`jsonrpc::codes`] and, where it has one,
//! the JSON Pointer of the fault in `data.pointer`.

pub mod convert;
mod de;
pub mod design;
pub mod facts;
pub mod json_text;
pub mod jsonrpc;
pub mod model;
mod path;
pub mod session;
#[cfg(feature = "schemars")]
pub mod tool;
pub mod version;
pub mod wire;
mod wire_const;

/// The MCP 2024-11-05 types, generated from the pinned schema by `cargo xtask codegen`.
// Untagged unions of unequal members; boxing would change the generated API for little gain.
#[allow(clippy::large_enum_variant)]
#[cfg(feature = "v2024_11_05")]
#[path = "generated/v2024_11_05.rs"]
pub mod v2024_11_05;

/// The MCP 2025-03-26 types, generated from the pinned schema by `cargo xtask codegen`.
// Untagged unions of unequal members; boxing would change the generated API for little gain.
#[allow(clippy::large_enum_variant)]
#[cfg(feature = "v2025_03_26")]
#[path = "generated/v2025_03_26.rs"]
pub mod v2025_03_26;

/// The MCP 2025-06-18 types, generated from the pinned schema by `cargo xtask codegen`.
// Untagged unions of unequal members; boxing would change the generated API for little gain.
#[allow(clippy::large_enum_variant)]
#[cfg(feature = "v2025_06_18")]
#[path = "generated/v2025_06_18.rs"]
pub mod v2025_06_18;

/// The MCP 2025-11-25 types, generated from the pinned schema by `cargo xtask codegen`.
// Untagged unions of unequal members; boxing would change the generated API for little gain.
#[allow(clippy::large_enum_variant)]
#[cfg(feature = "v2025_11_25")]
#[path = "generated/v2025_11_25.rs"]
pub mod v2025_11_25;

/// The MCP 2026-07-28 types, generated from the pinned schema by `cargo xtask codegen`.
// Untagged unions of unequal members; boxing would change the generated API for little gain.
#[allow(clippy::large_enum_variant)]
#[cfg(feature = "v2026_07_28")]
#[path = "generated/v2026_07_28.rs"]
pub mod v2026_07_28;

pub use path::{JsonPath, PathSegment, pointer_tokens};
/// schemars 1, re-exported for `#[derive(JsonSchema)]` at the version [`tool`] uses.
#[cfg(feature = "schemars")]
pub use schemars;
pub use version::{Era, ProtocolVersion, UnknownVersionError, VersionLike};
