//! The only module that calls the boundary (`mcp_wire::wire`): parse a body at the source
//! revision into the superset model, emit it for the target with an emission report.

use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    ClientNotification, ClientRequest, ServerNotification, ServerRequest, ServerResult,
};
use mcp_wire::session::{Envelope, FrameContext};
use mcp_wire::wire::{self, EmitError, EmitOptions, MethodResult, ParseError, ResultFor, WireBody};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::Direction;

/// Why a frame was not converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Valid at the source, but without a form at the target.
    Refused {
        /// Why.
        reason: String,
        /// The JSON-RPC code for an error reply.
        code: i64,
    },
    /// Not valid at the source revision.
    Invalid {
        /// Why.
        reason: String,
        /// The JSON-RPC code for an error reply.
        code: i64,
    },
}

impl Failure {
    /// Why the frame was not converted.
    pub fn reason(&self) -> &str {
        match self {
            Failure::Refused { reason, .. } | Failure::Invalid { reason, .. } => reason,
        }
    }
}

/// What the body of a frame is, for the boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind<'a> {
    /// A request sent in the given direction.
    Request(Direction),
    /// A notification sent in the given direction.
    Notification(Direction),
    /// The result of a request (its method, and how it asked to be answered), sent in the
    /// given direction.
    Result(Direction, ResultFor<'a>),
}

impl<'c> BodyKind<'c> {
    /// The body of a frame placed in its session: `None` for an error response (the same at
    /// every revision) and for a response that answers no known request.
    pub fn of(envelope: &Envelope, context: &'c FrameContext) -> Option<BodyKind<'c>> {
        let d = context.direction;
        match envelope {
            Envelope::Request { .. } => Some(BodyKind::Request(d)),
            Envelope::Notification { .. } => Some(BodyKind::Notification(d)),
            Envelope::Response { .. } => {
                (context.origin.as_ref()).map(|o| BodyKind::Result(d, o.result_for()))
            }
            Envelope::Error { .. } => None,
        }
    }

    /// Where the body sits in its frame, as a JSON Pointer prefix: a result under `/result`, a
    /// request's or notification's `method` and `params` in the frame itself.
    pub fn at(self) -> &'static str {
        match self {
            BodyKind::Result(..) => "/result",
            _ => "",
        }
    }
}

/// What an emission changed, as JSON Pointers (all empty without a report): body-relative as
/// [`emit`] gives them, frame-relative in the `explain` record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Members of the input left out.
    pub stripped: Vec<String>,
    /// Members of the output added.
    pub injected: Vec<String>,
    /// Members written although the target revision does not declare them (a `pass` ledger
    /// row; a strict emission strips them instead).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// Members whose value the output replaces: union members written in an older form the
    /// target carries, and the revision an `initialize` or its answer names (restated as the
    /// target).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewritten: Vec<String>,
}

/// A body not valid at its source revision, as `translate` reports it.
pub(crate) fn invalid(e: ParseError) -> Failure {
    Failure::Invalid {
        reason: format!("not valid at its revision: {e}"),
        code: e.code(),
    }
}

/// A body the target revision cannot carry, as `translate` reports it.
pub(crate) fn refused(e: EmitError) -> Failure {
    Failure::Refused {
        reason: e.to_string(),
        code: e.code(),
    }
}

/// What `translate` restates for the target in a parsed body, beyond what the boundary emits:
/// the revision an `initialize` offers and the one its answer chose are the target's (a peer
/// at the target reads them to agree on the revision). Both paths of `translate` call it
/// between the parse and the emission.
pub(crate) trait Restate {
    /// Restates the body for `to`; returns the body-relative pointer of the member whose value
    /// changed, if one did.
    fn restate(&mut self, to: ProtocolVersion) -> Option<&'static str> {
        let _ = to;
        None
    }
}

/// Sets `revision` to `to`; whether it changed.
fn restate_revision(revision: &mut String, to: ProtocolVersion) -> bool {
    if revision == to.as_str() {
        return false;
    }
    *revision = to.as_str().to_owned();
    true
}

impl Restate for ClientRequest {
    fn restate(&mut self, to: ProtocolVersion) -> Option<&'static str> {
        match self {
            ClientRequest::Initialize(r) => restate_revision(&mut r.params.protocol_version, to)
                .then_some("/params/protocolVersion"),
            _ => None,
        }
    }
}

impl Restate for ServerResult {
    fn restate(&mut self, to: ProtocolVersion) -> Option<&'static str> {
        match self {
            ServerResult::Initialize(r) => {
                restate_revision(&mut r.protocol_version, to).then_some("/protocolVersion")
            }
            _ => None,
        }
    }
}

impl Restate for MethodResult {
    fn restate(&mut self, to: ProtocolVersion) -> Option<&'static str> {
        match self {
            MethodResult::Server(r) => r.restate(to),
            _ => None,
        }
    }
}

impl Restate for ServerRequest {}
impl Restate for ClientNotification {}
impl Restate for ServerNotification {}

/// The one table from a body's kind to its superset type: `$each` with the type `$T` of a
/// request or notification body, `$result` with the [`ResultFor`] `$answering` of a result
/// (read as a [`MethodResult`]).
macro_rules! by_kind {
    ($kind:expr, |$T:ident| $each:expr, |$answering:ident| $result:expr $(,)?) => {{
        use mcp_wire::model::{
            ClientNotification, ClientRequest, ServerNotification, ServerRequest,
        };
        use $crate::boundary::BodyKind;
        use $crate::record::Direction::{ClientToServer as C2s, ServerToClient as S2c};
        match $kind {
            BodyKind::Request(C2s) => by_kind!(@ $T = ClientRequest, $each),
            BodyKind::Request(S2c) => by_kind!(@ $T = ServerRequest, $each),
            BodyKind::Notification(C2s) => by_kind!(@ $T = ClientNotification, $each),
            BodyKind::Notification(S2c) => by_kind!(@ $T = ServerNotification, $each),
            BodyKind::Result(_, $answering) => $result,
        }
    }};
    (@ $T:ident = $ty:ty, $each:expr) => {{
        type $T = $ty;
        $each
    }};
}
pub(crate) use by_kind;

/// [`Restate`]s the body, then emits it, with the report (for `explain`) or without
/// (cheaper: no path tracking); the restated member is listed as rewritten.
fn restated_emit<B: WireBody + Restate>(
    model: &mut B,
    to: ProtocolVersion,
    report: bool,
    options: EmitOptions,
) -> Result<(Value, Changes), Failure> {
    let restated = model.restate(to);
    if !report {
        let value = wire::serialize_for(model, (to, options)).map_err(refused)?;
        return Ok((value, Changes::default()));
    }
    let (value, r) = wire::serialize_for_report(model, (to, options)).map_err(refused)?;
    let mut changes = Changes {
        stripped: r.stripped_pointers(),
        injected: r.injected_pointers(),
        passed: r.passed_pointers(),
        rewritten: r.rewritten_pointers(),
    };
    changes.rewritten.extend(restated.map(str::to_owned));
    Ok((value, changes))
}

/// Parses `body` at `from` as `kind` with the boundary (the lenient superset parse plus the
/// revision's mandates, e.g. the reserved `_meta` keys at 2026-07-28) and emits it for `to` with
/// `options`; with `report`, also lists what the emission stripped, injected, passed and rewrote.
pub(crate) fn emit(
    kind: BodyKind<'_>,
    body: &Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: bool,
    options: EmitOptions,
) -> Result<(Value, Changes), Failure> {
    let (r, o) = (report, options);
    by_kind!(
        kind,
        |T| restated_emit(
            &mut wire::parse_as::<T>(body, from).map_err(invalid)?,
            to,
            r,
            o
        ),
        |answering| {
            let mut result = wire::parse_result_for(answering, body, from).map_err(invalid)?;
            restated_emit(&mut result, to, r, o)
        },
    )
}

/// [`emit`]'s parse alone: whether `body` is a valid `kind` body at `version`.
pub(crate) fn parse(
    kind: BodyKind<'_>,
    body: &Value,
    version: ProtocolVersion,
) -> Result<(), ParseError> {
    by_kind!(
        kind,
        |T| wire::parse_as::<T>(body, version).map(drop),
        |answering| wire::parse_result_for(answering, body, version).map(drop),
    )
}
