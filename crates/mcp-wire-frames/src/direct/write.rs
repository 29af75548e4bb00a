//! The boundary's verdict on a body, and writing the output line: the envelope around the
//! emitted body, members in the input's order.

use mcp_wire::ProtocolVersion;
use mcp_wire::model::ClientRequest;
use mcp_wire::wire::{
    self, EmitError, EmitErrorKind, ParseError, ParseErrorKind, WireBody, WireParse,
};
use serde_json::Value;

use crate::boundary::{BodyKind, Failure, Restate, by_kind};
use crate::record::Direction;
use mcp_wire::jsonrpc::RequestId;
use mcp_wire::session::Envelope;

use super::GiveUp;
use super::check::MEMBER_LEVELS;
use super::identity::LentIdentity;
use super::line::{FrameMember, Line};

/// Where the boundary's verdict on a body is kept when it is the one the general path reaches
/// (the direct path then gives up with it, see [`Unwritten::Failed`](super::Unwritten::Failed)).
pub(super) type Verdict = Option<Failure>;

/// A parse failure: kept as the general path reports it (`parse_as` fails exactly as
/// `parse_as` does on the same text; a syntax error cannot arise from a checked body, and is
/// left to the general path all the same).
pub(super) fn parse_failed(e: ParseError, verdict: &mut Verdict) -> GiveUp {
    if e.kind != ParseErrorKind::Syntax {
        *verdict = Some(crate::boundary::invalid(e));
    }
    GiveUp
}

/// An emission failure: a refusal is kept as the general path reports it (the shaping
/// serializer refuses alike whatever it writes into); a failure of a value's own `Serialize`
/// is left to the general path.
pub(super) fn emit_failed(e: EmitError, verdict: &mut Verdict) -> GiveUp {
    if e.kind != EmitErrorKind::Serialization {
        *verdict = Some(crate::boundary::refused(e));
    }
    GiveUp
}

/// Parses `text` as a `T` at `from` and emits it for `to` into `out`. (The body is parsed into
/// a slot here and written from there: a typed body is a few hundred bytes, and every layer it
/// were returned through would copy it.)
pub(super) fn through<T: WireParse + WireBody + Restate>(
    text: &str,
    from: ProtocolVersion,
    to: ProtocolVersion,
    out: &mut Vec<u8>,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    let mut slot: Option<T> = None;
    wire::in_place::parse_str(text, from, &mut slot).map_err(|e| parse_failed(e, verdict))?;
    let model = slot.as_mut().ok_or(GiveUp)?;
    model.restate(to);
    wire::serialize_for_vec(model, to, out).map_err(|e| emit_failed(e, verdict))
}

/// Parses the body at `from` and emits it for `to` into `out`; a client request is lent the
/// `restated` identity entries it lacks for its emission. The boundary's verdict on a body it
/// does not write goes into `verdict`. An `unchecked` result is read by the typed read that
/// checks it; when that read does not decide, this gives up with no verdict.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit(
    kind: BodyKind<'_>,
    text: &str,
    unchecked: bool,
    from: ProtocolVersion,
    to: ProtocolVersion,
    restated: Option<&mut LentIdentity>,
    out: &mut Vec<u8>,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    if let (BodyKind::Request(Direction::ClientToServer), Some(identity)) = (kind, restated) {
        let mut slot: Option<ClientRequest> = None;
        if let Err(e) = wire::in_place::parse_str(text, from, &mut slot) {
            // The general path parses the body with the entries it lacked: it decides.
            return Err(match identity.entries.is_empty() {
                true => parse_failed(e, verdict),
                false => GiveUp,
            });
        }
        let request = slot.as_mut().ok_or(GiveUp)?;
        request.restate(to);
        let lent = identity.lend(request);
        let emitted = wire::serialize_for_vec(request, to, out);
        identity.take_back(request, lent);
        return emitted.map_err(|e| emit_failed(e, verdict));
    }
    by_kind!(
        kind,
        |T| through::<T>(text, from, to, out, verdict),
        |answering| {
            let (mut slot, levels) = (None, unchecked.then_some(MEMBER_LEVELS));
            wire::in_place::parse_result_str(answering, text, levels, from, &mut slot)
                .ok_or(GiveUp)?
                .map_err(|e| parse_failed(e, verdict))?;
            let result = slot.as_mut().ok_or(GiveUp)?;
            result.restate(to);
            wire::serialize_for_vec(result, to, out).map_err(|e| emit_failed(e, verdict))
        }
    )
}

/// The `method` and `params` texts of an emitted request or notification body: every such
/// type writes `{"method":…}` or `{"method":…,"params":{…}}`, in that order.
pub(super) fn method_and_params(emitted: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    let rest = emitted.strip_prefix(b"{\"method\":")?.strip_suffix(b"}")?;
    let (method, params) = rest.split_at(super::hollow::string_end(rest, 0)?.0);
    match params.strip_prefix(b",\"params\":") {
        Some(params) => Some((method, Some(params))),
        None => params.is_empty().then_some((method, None)),
    }
}

pub(super) fn push_key(out: &mut Vec<u8>, key: &str) -> Result<(), GiveUp> {
    serde_json::to_writer(&mut *out, key).map_err(|_| GiveUp)?;
    out.push(b':');
    Ok(())
}

pub(super) fn push_value(out: &mut Vec<u8>, value: &Value) -> Result<(), GiveUp> {
    serde_json::to_writer(&mut *out, value).map_err(|_| GiveUp)
}

/// Writes the frame around the emitted body, in the input's member order (as
/// `convert::put_back` places it): a result in `result`'s place; a request's or notification's
/// `method` and `params` where the frame has them, and a `params` it gained (materialized for
/// the target) appended.
pub(super) fn write_frame(line: &Line<'_>, body: &[u8], out: &mut Vec<u8>) -> Result<(), GiveUp> {
    let (mut method, mut params) = match line.envelope {
        Envelope::Response { .. } => (None, None),
        _ => {
            let (method, params) = method_and_params(body).ok_or(GiveUp)?;
            (Some(method), params)
        }
    };
    out.push(b'{');
    let mut first = true;
    for (key, member) in &line.frame {
        let text = match member {
            FrameMember::Result => Some(body),
            FrameMember::Body if *key == "method" => method.take(),
            FrameMember::Body => params.take(),
            other => {
                write_envelope_member(line, key, other, &mut first, out)?;
                continue;
            }
        };
        if let Some(text) = text {
            separate(out, &mut first);
            push_key(out, key)?;
            out.extend_from_slice(text);
        }
    }
    if let Some(text) = params {
        out.extend_from_slice(b",\"params\":");
        out.extend_from_slice(text);
    }
    out.push(b'}');
    Ok(())
}

/// A `,` before every member but the first.
pub(super) fn separate(out: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        out.push(b',');
    }
}

/// Writes a frame member that is not the body: `jsonrpc`, `id`, or one copied.
pub(super) fn write_envelope_member(
    line: &Line<'_>,
    key: &str,
    member: &FrameMember,
    first: &mut bool,
    out: &mut Vec<u8>,
) -> Result<(), GiveUp> {
    match member {
        FrameMember::Version => {
            separate(out, first);
            out.extend_from_slice(b"\"jsonrpc\":\"2.0\"");
        }
        FrameMember::Id => {
            let id = match &line.envelope {
                Envelope::Request { id, .. } | Envelope::Response { id } => id,
                _ => return Err(GiveUp),
            };
            separate(out, first);
            out.extend_from_slice(b"\"id\":");
            match id {
                RequestId::Integer(i) => serde_json::to_writer(&mut *out, i),
                RequestId::String(s) => serde_json::to_writer(&mut *out, s),
            }
            .map_err(|_| GiveUp)?;
        }
        FrameMember::Other(v) => {
            separate(out, first);
            push_key(out, key)?;
            push_value(out, v)?;
        }
        FrameMember::Body | FrameMember::Result => return Err(GiveUp),
    }
    Ok(())
}
