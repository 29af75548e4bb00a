//! The boundary's verdict on a body, and writing the output line: the envelope around the
//! emitted body, members in the input's order.

use mcp_wire::ProtocolVersion;
use mcp_wire::model::ClientRequest;
use mcp_wire::wire::{
    self, EmitError, EmitErrorKind, ParseError, ParseErrorKind, WireBody, WireParse,
};
use serde_json::Value;

use crate::boundary::{BodyKind, Restate, by_kind};
use crate::record::Direction;
use mcp_wire::session::Envelope;

use super::check::plain_scalar_end;
use super::identity::LentIdentity;
use super::line::Line;
use super::{GiveUp, Unwritten};

/// A parse failure as the general path reports it (`parse_as` fails exactly as `parse_as` does
/// on the same text; a syntax error cannot arise from a checked body, and is left to the
/// general path all the same).
pub(super) fn parse_failed(e: ParseError) -> Unwritten {
    match e.kind {
        ParseErrorKind::Syntax => Unwritten::GaveUp,
        _ => Unwritten::Failed(crate::boundary::invalid(e)),
    }
}

/// An emission failure: a refusal as the general path reports it (the shaping serializer
/// refuses alike whatever it writes into); a failure of a value's own `Serialize` is left to
/// the general path.
pub(super) fn emit_failed(e: EmitError) -> Unwritten {
    match e.kind {
        EmitErrorKind::Serialization => Unwritten::GaveUp,
        _ => Unwritten::Failed(crate::boundary::refused(e)),
    }
}

/// Parses `text` as a `T` at `from` and emits it for `to` into `out`. (The body is parsed into
/// a slot here and written from there: a typed body is a few hundred bytes, and every layer it
/// were returned through would copy it.)
pub(super) fn through<T: WireParse + WireBody + Restate>(
    text: &str,
    from: ProtocolVersion,
    to: ProtocolVersion,
    out: &mut Vec<u8>,
) -> Result<(), Unwritten> {
    let mut slot: Option<T> = None;
    wire::in_place::parse_str(text, from, &mut slot).map_err(parse_failed)?;
    let model = slot.as_mut().ok_or(GiveUp)?;
    model.restate(to);
    wire::serialize_for_vec(model, to, out).map_err(emit_failed)
}

/// Parses the body at `from` and emits it for `to` into `out`; a client request is lent the
/// `restated` identity entries it lacks for its emission.
pub(super) fn emit(
    kind: BodyKind<'_>,
    text: &str,
    from: ProtocolVersion,
    to: ProtocolVersion,
    restated: Option<&mut LentIdentity>,
    out: &mut Vec<u8>,
) -> Result<(), Unwritten> {
    if let (BodyKind::Request(Direction::ClientToServer), Some(identity)) = (kind, restated) {
        let mut slot: Option<ClientRequest> = None;
        if let Err(e) = wire::in_place::parse_str(text, from, &mut slot) {
            // The general path parses the body with the entries it lacked: it decides.
            return Err(match identity.entries.is_empty() {
                true => parse_failed(e),
                false => Unwritten::GaveUp,
            });
        }
        let request = slot.as_mut().ok_or(GiveUp)?;
        request.restate(to);
        let emitted = identity.lent_to(request, |r| wire::serialize_for_vec(r, to, out));
        return emitted.map_err(emit_failed);
    }
    by_kind!(kind, |T| through::<T>(text, from, to, out), |answering| {
        let mut slot = None;
        wire::in_place::parse_result_str(answering, text, from, &mut slot).map_err(parse_failed)?;
        let result = slot.as_mut().ok_or(GiveUp)?;
        result.restate(to);
        wire::serialize_for_vec(result, to, out).map_err(emit_failed)
    })
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

/// Writes a member's checked text as `serde_json` writes its value: as it stands when it is a
/// string without escapes or a short integer (written alike), else through a `Value`.
pub(super) fn push_copied(out: &mut Vec<u8>, raw: &str) -> Result<(), GiveUp> {
    if plain_scalar_end(raw.as_bytes(), 0) == Some(raw.len()) {
        out.extend_from_slice(raw.as_bytes());
        return Ok(());
    }
    let value: Value = serde_json::from_str(raw).map_err(|_| GiveUp)?;
    serde_json::to_writer(&mut *out, &value).map_err(|_| GiveUp)
}

/// Writes the frame around the emitted body, in the input's member order (as
/// `convert::put_back` places it): a result in `result`'s place; a request's or notification's
/// `method` and `params` where the frame has them, and a `params` it gained (materialized for
/// the target) appended; an error response has no body. Every other member is copied (an id the
/// envelope accepts, a string or an `i64`, is written as its typed form is).
pub(super) fn write_frame(line: &Line<'_>, body: &[u8], out: &mut Vec<u8>) -> Result<(), GiveUp> {
    let is_response = matches!(line.envelope, Envelope::Response { .. });
    let has_method = line.method.is_some();
    let (mut method, mut params) = match has_method {
        false => (None, None),
        true => {
            let (method, params) = method_and_params(body).ok_or(GiveUp)?;
            (Some(method), params)
        }
    };
    out.push(b'{');
    let open = out.len();
    for (key, raw) in &line.frame {
        let emitted = match *key {
            "result" if is_response => Some(body),
            "method" if has_method => method.take(),
            "params" if has_method => match params.take() {
                None => continue,
                taken => taken,
            },
            _ => None,
        };
        if out.len() > open {
            out.push(b',');
        }
        push_key(out, key)?;
        match emitted {
            Some(text) => out.extend_from_slice(text),
            None => push_copied(out, raw)?,
        }
    }
    if let Some(text) = params {
        out.extend_from_slice(b",\"params\":");
        out.extend_from_slice(text);
    }
    out.push(b'}');
    Ok(())
}
