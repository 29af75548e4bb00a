//! `mcp-frames`: translate, validate and explain real MCP traffic between protocol revisions.
//!
//! The layers, bottom up:
//! - [`input`]: the streaming line reader (constant memory, over-long lines skipped);
//! - [`json`]: strict JSON per line (UTF-8, duplicate keys, nesting depth);
//! - [`record`]: bare frames vs capture records `{"dir":…,"frame":…}`;
//! - envelopes, ids and batches: the crate's ([`mcp_types::session::Envelope`], [`mcp_types::jsonrpc`]);
//! - [`session`]: per-frame source-revision detection and per-direction id tracking;
//! - [`stream`]: the driver that ties them together and hands frames to a command;
//! - [`pointer`]: JSON Pointers for `explain`;
//! - [`explain`]: the `explain` record.

mod boundary;
pub mod check;
pub mod convert;
pub mod direct;
pub mod explain;
pub mod input;
pub mod json;
pub mod pointer;
pub mod record;
pub mod session;
pub mod stream;
pub mod translate;
pub mod typed;
pub mod validate;
pub mod versions;
