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
) -> Result<Emitted, Failure> {
    let model: T = wire::parse_as(body, from).map_err(invalid)?;
    emitted(wire::serialize_for_report(&model, to))
}

fn emitted(r: Result<(Value, EmissionReport), EmitError>) -> Result<Emitted, Failure> {
    let (value, report) = r.map_err(refused)?;
    Ok((
        value,
        report.stripped_pointers(),
        report.injected_pointers(),
    ))
}

/// Parses `body` at `from` as `kind` and emits it for `to`.
pub(crate) fn emit(
    kind: BodyKind<'_>,
    body: Value,
    from: ProtocolVersion,
    to: ProtocolVersion,
) -> Result<Emitted, Failure> {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    match kind {
        BodyKind::Request(C2s) => through::<ClientRequest>(&body, from, to),
        BodyKind::Request(S2c) => through::<ServerRequest>(&body, from, to),
        BodyKind::Notification(C2s) => through::<ClientNotification>(&body, from, to),
        BodyKind::Notification(S2c) => through::<ServerNotification>(&body, from, to),
        BodyKind::Result(_, method) => {
            match wire::parse_result_for(method, &body, from).map_err(invalid)? {
                MethodResult::Server(r) => emitted(wire::serialize_for_report(&r, to)),
                MethodResult::Client(r) => emitted(wire::serialize_for_report(&r, to)),
                _ => Err(Failure::Invalid {
                    reason: format!("the result of {method} is of a kind this tool cannot emit"),
                    code: -32603,
                }),
            }
        }
    }
}
