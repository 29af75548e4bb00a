//! `mcp-frames`: translate, validate and explain real MCP traffic between protocol revisions.
//!
//! The layers, bottom up:
//! - [`input`]: the streaming line reader (constant memory, over-long lines skipped);
//! - strict JSON per line (UTF-8, no repeated key, nesting depth): the crate's [`mcp_wire::json_text`];
//! - `record`: bare frames vs capture records `{"dir":…,"frame":…}`;
//! - envelopes, ids and batches: the crate's ([`mcp_wire::session::Envelope`], [`mcp_wire::jsonrpc`]);
//! - [`session`]: per-frame source-revision detection and per-direction id tracking;
//! - [`stream`]: the driver that ties them together and hands frames to a command;
//! - [`pointer`](mod@pointer): editing frames at JSON Pointers (what `explain` is checked against);
//! - `explain`: the `explain` record;
//! - `check`, `convert`: validity at a revision (schema, generated types, mandates), the boundary per frame.
//!
//! Modules without a link are internal; the public ones are what the binary, the tests, the
//! benches and the fuzz targets drive.

pub(crate) mod boundary;
pub(crate) mod check;
pub(crate) mod convert;
pub mod direct;
pub(crate) mod explain;
pub mod input;
pub mod pointer;
pub(crate) mod record;
pub mod session;
pub mod stream;
pub mod translate;
pub mod validate;
pub mod versions;
