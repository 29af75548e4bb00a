//! The version boundary: emit a superset value for one revision, read one revision's JSON into
//! the superset.
//!
//! # Emission
//!
//! [`serialize_for`] (to a [`serde_json::Value`]), [`serialize_for_vec`] (bytes) and
//! [`serialize_for_report`] (value plus an [`EmissionReport`]), each at an [`EmitTarget`] (a
//! revision, with [`EmitOptions`] or without), accept only
//! [`WireBody`] values — requests, notifications, results and JSON-RPC envelopes — so passing a
//! fragment is a compile error.
//!
//! One emitter stands behind these functions (`wire/planned.rs`): it walks the value's description
//! with plans built from the ledger; how it works is in [`design`](crate::design).
//! At 2026-07-28 the body's object also gets the shaping of [`ledger::SHAPING_2026`]
//! (`resultType`, cache hints and the `_meta` protocol version appended after the caller's
//! keys), one row per member in [`shaping::SHAPED_MEMBERS`]: the values accepted, the default
//! injected, the rule.
//!
//! On a refusal the output is discarded ([`serialize_for_vec`] truncates the buffer back); the
//! error has the JSON path of the refused member.
//!
//! # Paths
//!
//! Every path an emission gives, an [`EmitError`]'s and each [`EmissionReport`] change's, is
//! relative to the value handed to the emitter: a body's own members for a body
//! (`/content/1`), the frame for a JSON-RPC envelope (a response's body under `/result`, as in
//! `/result/content/1`; a request's `/params/...` either way). A [`FrameError`] read from a
//! frame's text is relative to the frame too, so a path names the same place whichever way it
//! came.
//!
//! # Reading
//!
//! [`parse_frame`] reads a whole JSON-RPC frame at a revision (its id kept for the reply when
//! the body is bad); [`parse_as`] reads a body (a `Value`, text or bytes); [`parse_result_for`] types a
//! result by the request it answers.

mod body;
mod clean;
pub mod error;
mod frame;
mod impls;
mod json;
pub mod ledger;
mod names;
mod parse;
pub(crate) mod planned;
pub mod report;
pub mod revs;
pub mod shaping;

use serde_json::Value;

pub use body::{BodyInfo, BodyKind};
pub use error::{EmitError, EmitErrorKind, JsonPath, ParseError, ParseErrorKind, PathSegment};
pub use frame::{FrameError, RawFrame, TypedFrame, parse_frame, parse_frame_answering};
pub use impls::WireBody;
pub use ledger::{
    Action, Cause, LedgerRow, MemberAction, MemberRow, OlderForm, RefuseWhen, TypeRow,
};
#[doc(hidden)]
pub use parse::in_place;
pub use parse::{
    INPUT_REQUIRED_METHODS, MandateFacts, MethodResult, ResultFor, ResultTyping, WireInput,
    WireParse, parse_as, parse_result_for,
};
pub use report::{EmissionReport, ReportEntry};
pub use revs::Revisions;

use crate::ProtocolVersion;
use planned::{Bytes, Reporting, Values};

/// Refuses a body (of type `info`) that the revision does not define as a message.
fn check_body(info: BodyInfo, version: ProtocolVersion) -> Result<(), EmitError> {
    let ty = names::known(info.type_name).owner.and_then(|o| o.ty);
    let Some(t) = ty.filter(|t| !t.body.contains(version)) else {
        return Ok(());
    };
    let message = format!(
        "{} has no wire form at protocol version {version}: {}",
        t.name, t.reason
    );
    let cause = Some(Cause::Type(t));
    let mut error = EmitError::new(EmitErrorKind::TypeAbsent, version, message, cause);
    error.body = Some(info.kind);
    Err(error)
}

/// How a body is emitted, beyond its revision.
///
/// By default a member the target revision does not declare but can carry harmlessly (a `pass`
/// ledger row: a display `title`, `icons`, `structuredContent` at 2024-11-05, …) is written,
/// because peers ignore unknown keys, and the report lists it as passed. A **strict** emission
/// strips those members instead (the report lists them as stripped), for peers that validate
/// closed-world. Keys the model does not name (kept from a parse so that a round trip loses
/// nothing) are written either way.
///
/// ```
/// use mcp_wire::ProtocolVersion::V2024_11_05;
/// use mcp_wire::model::{ListToolsResult, Tool};
/// use mcp_wire::wire::{EmitOptions, serialize_for};
///
/// let tool = Tool::new("t", Tool::empty_input_schema()).with_title("T");
/// let r = ListToolsResult::new(vec![tool]);
/// assert_eq!(serialize_for(&r, V2024_11_05)?["tools"][0]["title"], "T");
/// let strict = serialize_for(&r, (V2024_11_05, EmitOptions::new().strict(true)))?;
/// assert!(strict["tools"][0].get("title").is_none());
/// # Ok::<(), mcp_wire::wire::EmitError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct EmitOptions {
    strict: bool,
}

impl EmitOptions {
    /// The default options: not strict.
    pub const fn new() -> Self {
        EmitOptions { strict: false }
    }

    /// Sets whether the emission is strict: it writes only members the target revision declares.
    pub const fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether the emission is strict.
    pub const fn is_strict(self) -> bool {
        self.strict
    }
}

/// What an emission targets: a revision, and [`EmitOptions`]. Every `serialize_for*` function
/// takes a [`ProtocolVersion`] (the default options) or a `(ProtocolVersion, EmitOptions)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EmitTarget {
    /// The revision emitted for.
    pub version: ProtocolVersion,
    /// How it is emitted.
    pub options: EmitOptions,
}

impl From<ProtocolVersion> for EmitTarget {
    fn from(version: ProtocolVersion) -> Self {
        (version, EmitOptions::new()).into()
    }
}

impl From<(ProtocolVersion, EmitOptions)> for EmitTarget {
    fn from((version, options): (ProtocolVersion, EmitOptions)) -> Self {
        EmitTarget { version, options }
    }
}

/// The error of an emission that wrote no whole value (a body whose own `Serialize` wrote
/// nothing).
fn no_value(version: ProtocolVersion) -> EmitError {
    let message = "the emission wrote no value";
    EmitError::new(EmitErrorKind::Serialization, version, message, None)
}

/// Emits `body` for `target` (a revision, or a revision with [`EmitOptions`]) as a JSON value
/// (always an object).
///
/// Below 2026-07-28 a body that uses only what the revision defines comes out exactly as plain
/// `serde_json::to_value` would produce it.
pub fn serialize_for<B: WireBody + ?Sized>(
    body: &B,
    target: impl Into<EmitTarget>,
) -> Result<Value, EmitError> {
    let target = target.into();
    let mut values = Values::new(target.version);
    body.emit_into(target, &mut values)?;
    values.value().ok_or_else(|| no_value(target.version))
}

/// Emits `body` for `target` and lists what was stripped, injected, rewritten and passed.
pub fn serialize_for_report<B: WireBody + ?Sized>(
    body: &B,
    target: impl Into<EmitTarget>,
) -> Result<(Value, EmissionReport), EmitError> {
    let target = target.into();
    let mut reporting = Reporting::new(target.version);
    body.emit_into(target, &mut reporting)?;
    let value = reporting.value().ok_or_else(|| no_value(target.version))?;
    Ok((value, reporting.report))
}

/// Appends the compact JSON text of `body` at `target` to `out` (UTF-8, as `serde_json`
/// writes it); on error `out` is unchanged.
pub fn serialize_for_vec<B: WireBody + ?Sized>(
    body: &B,
    target: impl Into<EmitTarget>,
    out: &mut Vec<u8>,
) -> Result<(), EmitError> {
    let start = out.len();
    let written = body.emit_into(target.into(), &mut Bytes::new(out));
    if written.is_err() {
        out.truncate(start);
    }
    written
}

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod route_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod walk_tests;
