//! Typed Model Context Protocol (MCP) frames for every released protocol revision.
//!
//! - [`version`]: the five revisions as an ordered enum.
//! - `v2024_11_05` … `v2026_07_28`: per-revision models generated from the pinned official
//!   JSON Schemas (one Cargo feature each).

pub mod version;

pub use version::{Era, ProtocolVersion, UnknownVersionError, VersionLike};
