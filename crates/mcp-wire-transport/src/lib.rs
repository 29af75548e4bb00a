//! Live MCP transports carrying raw JSON-RPC frames.
//!
//! - [`frame`]: [`Frame`], one JSON-RPC message (or a 2025-03-26 batch) exactly as it travelled,
//!   and [`Connection`], the bounded duplex every client transport returns.
//! - [`error`]: [`TransportError`], the crate's one error type.
//! - [`stdio`]: newline-delimited frames on our stdin/stdout or a child process's.
//! - `fixtures` (feature `conformance-fixtures`, test support): the conformance suite's fixtures
//!   as a handler (what `conformance_server` serves).
//! - [`client`]: HTTP clients — Streamable HTTP on both wires, and 2024-11-05's HTTP+SSE.
//! - [`telemetry`]: the spans, events and metrics the server runtime records, and (features
//!   `metrics`, `cli`) what a binary installs to see them.
//!
//! Frames are produced and consumed by our code only through `mcp-wire`' boundary
//! (`serialize_for` / `parse_as` at the negotiated revision); the transport itself never
//! rewrites the text it carries.

pub mod client;
pub mod error;
#[cfg(feature = "conformance-fixtures")]
pub mod fixtures;
pub mod frame;
mod routing;
mod secret;
pub mod server;
mod spawn;
pub mod stdio;
pub mod telemetry;

pub use error::TransportError;
pub use frame::{
    Connection, ConnectionDriver, ConnectionEnd, ConnectionHandle, Frame, FrameReceiver,
    FrameSender, ServerStreamGate,
};
pub use secret::Secret;
