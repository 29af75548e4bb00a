//! The only module that calls the boundary (`mcp_types::wire`): parse a body at the source
//! revision into the superset model, emit it for the target with an emission report.

use mcp_types::ProtocolVersion;
use mcp_types::model::{ClientNotification, ClientRequest, ServerNotification, ServerRequest};
use mcp_types::wire::{
    self, EmissionReport, EmitError, MethodResult, ParseError, WireBody, WireParse,
};
use serde_json::Value;

use crate::convert::{BodyKind, Failure};
use crate::record::Direction;

/// What [`emit`] returns: the emitted body and the body-relative stripped/injected pointers.
pub(crate) type Emitted = (Value, Vec<String>, Vec<String>);

fn invalid(e: ParseError) -> Failure {
    Failure::Invalid {
        reason: format!("not valid at its revision: {e}"),
        code: i64::from(e.code()),
    }
}

fn refused(e: EmitError) -> Failure {
    Failure::Refused {
        reason: e.to_string(),
        code: i64::from(e.code()),
    }
}

fn through<T: WireParse + WireBody>(
    body: &Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: bool,
) -> Result<Emitted, Failure> {
    let model: T = wire::parse_as(body, from).map_err(invalid)?;
    emit_model(&model, to, report)
}

/// Emits with the report (for `explain`) or without (cheaper: no path tracking).
fn emit_model<B: WireBody>(
    model: &B,
    to: ProtocolVersion,
    report: bool,
) -> Result<Emitted, Failure> {
    if report {
        emitted(wire::serialize_for_report(model, to))
    } else {
        let value = wire::serialize_for(model, to).map_err(refused)?;
        Ok((value, Vec::new(), Vec::new()))
    }
}

fn emitted(r: Result<(Value, EmissionReport), EmitError>) -> Result<Emitted, Failure> {
    let (value, report) = r.map_err(refused)?;
    Ok((
        value,
        report.stripped_pointers(),
        report.injected_pointers(),
    ))
}

/// Parses `body` at `from` as `kind` and emits it for `to`; with `report`, also lists what the
/// emission stripped and injected.
pub(crate) fn emit(
    kind: BodyKind<'_>,
    body: Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
    report: bool,
) -> Result<Emitted, Failure> {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    match kind {
        BodyKind::Request(C2s) => through::<ClientRequest>(&body, from, to, report),
        BodyKind::Request(S2c) => through::<ServerRequest>(&body, from, to, report),
        BodyKind::Notification(C2s) => through::<ClientNotification>(&body, from, to, report),
        BodyKind::Notification(S2c) => through::<ServerNotification>(&body, from, to, report),
        BodyKind::Result(_, answering) => {
            match wire::parse_result_for(answering, &body, from).map_err(invalid)? {
                MethodResult::Server(r) => emit_model(&r, to, report),
                MethodResult::Client(r) => emit_model(&r, to, report),
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
