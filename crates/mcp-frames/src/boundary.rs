//! The only module that calls the boundary (`mcp_types::wire`): parse a body at the source
//! revision into the superset model, emit it for the target with an emission report.

use mcp_types::ProtocolVersion;
use mcp_types::model::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};
use mcp_types::wire::{
    self, EmissionReport, EmitError, EmitOptions, MethodResult, ParseError, WireBody, WireParse,
};
use serde_json::Value;

use crate::convert::{BodyKind, Failure};
use crate::record::Direction;

/// What [`emit`] returns: the emitted body and the body-relative pointers of what the emission
/// changed (all empty without a report).
#[derive(Debug, Default)]
pub(crate) struct Emitted {
    pub value: Value,
    pub stripped: Vec<String>,
    pub injected: Vec<String>,
    /// Members written although the target does not declare them (a `pass` ledger row).
    pub passed: Vec<String>,
    /// Union members written in an older form the target carries.
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

fn through<T: WireParse + WireBody>(
    body: &Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: bool,
    options: EmitOptions,
) -> Result<Emitted, Failure> {
    let model: T = wire::parse_as(body, from).map_err(invalid)?;
    emit_model(&model, to, report, options)
}

/// Emits with the report (for `explain`) or without (cheaper: no path tracking).
fn emit_model<B: WireBody>(
    model: &B,
    to: ProtocolVersion,
    report: bool,
    options: EmitOptions,
) -> Result<Emitted, Failure> {
    if report {
        emitted(wire::serialize_for_report_with(model, to, options))
    } else {
        let value = wire::serialize_for_with(model, to, options).map_err(refused)?;
        Ok(Emitted {
            value,
            ..Emitted::default()
        })
    }
}

fn emitted(r: Result<(Value, EmissionReport), EmitError>) -> Result<Emitted, Failure> {
    let (value, report) = r.map_err(refused)?;
    Ok(Emitted {
        stripped: report.stripped_pointers(),
        injected: report.injected_pointers(),
        passed: report.passed_pointers(),
        rewritten: report.rewritten_pointers(),
        value,
    })
}

/// Parses `body` at `from` as `kind` and emits it for `to` with `options`; with `report`, also
/// lists what the emission stripped, injected, passed and rewrote.
pub(crate) fn emit(
    kind: BodyKind<'_>,
    body: Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: bool,
    options: EmitOptions,
) -> Result<Emitted, Failure> {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    let (r, o) = (report, options);
    match kind {
        BodyKind::Request(C2s) => through::<ClientRequest>(&body, from, to, r, o),
        BodyKind::Request(S2c) => through::<ServerRequest>(&body, from, to, r, o),
        BodyKind::Notification(C2s) => through::<ClientNotification>(&body, from, to, r, o),
        BodyKind::Notification(S2c) => through::<ServerNotification>(&body, from, to, r, o),
        BodyKind::Result(_, answering) => {
            match wire::parse_result_for(answering, &body, from).map_err(invalid)? {
                MethodResult::Server(m) => emit_model(&m, to, r, o),
                MethodResult::Client(m) => emit_model(&m, to, r, o),
                _ => Err(Failure::Invalid {
                    reason: format!(
                        "the result of {} is of a kind this tool cannot emit",
                        answering.method_answered()
                    ),
                    code: -32603,
                }),
            }
        }
    }
}

fn parse_only<T: WireParse>(body: &Value, version: ProtocolVersion) -> Result<(), ParseError> {
    wire::parse_as::<T>(body, version).map(|_| ())
}

/// Reads `body` as `kind` at `version` with the boundary (the lenient superset parse plus the
/// revision's mandates, e.g. the reserved `_meta` keys at 2026-07-28); returns every error as a
/// body-relative JSON Pointer and a message.
pub(crate) fn parse_errors(
    kind: BodyKind<'_>,
    body: &Value,
    version: ProtocolVersion,
) -> Vec<(String, String)> {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    let r = match kind {
        BodyKind::Request(C2s) => parse_only::<ClientRequest>(body, version),
        BodyKind::Request(S2c) => parse_only::<ServerRequest>(body, version),
        BodyKind::Notification(C2s) => parse_only::<ClientNotification>(body, version),
        BodyKind::Notification(S2c) => parse_only::<ServerNotification>(body, version),
        BodyKind::Result(_, answering) => {
            wire::parse_result_for(answering, body, version).map(|_| ())
        }
    };
    match r {
        Ok(()) => Vec::new(),
        Err(e) => e
            .all()
            .map(|e| {
                (
                    e.path.pointer(),
                    format!("{} (boundary): {}", e.type_name, e.message),
                )
            })
            .collect(),
    }
}
