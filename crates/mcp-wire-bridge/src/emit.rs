//! Every frame the bridge writes upstream goes through here: `serialize_for` at the upstream's
//! revision (the ledger strips, injects, refuses), recorded in the report when it changed
//! anything. A refusal becomes the error the sender gets (`content_untranslatable`, or -32601
//! for a method the revision does not have).

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire::wire::{
    EmitError, EmitErrorKind, EmitOptions, WireBody, serialize_for_report, serialize_for_vec,
};
use mcp_wire_transport::Frame;

use crate::limits::Reason;
use crate::report::{Dir, Report, Status};

/// How frames are emitted: the boundary's default, or `--strict` (only what the target
/// revision declares).
#[derive(Debug, Clone, Copy, Default)]
pub struct Emitter {
    /// Strip members the target revision does not declare instead of passing them.
    pub strict: bool,
}

impl Emitter {
    fn options(self) -> EmitOptions {
        if self.strict {
            EmitOptions::new().strict(true)
        } else {
            EmitOptions::new()
        }
    }
}

/// Emits `body` at `to`, reporting what changed; a refusal is the error for the sender.
pub(crate) fn emit_frame<B: WireBody + ?Sized>(
    body: &B,
    dir: Dir,
    method: &str,
    from: Option<ProtocolVersion>,
    to: ProtocolVersion,
    report: &Report,
    emitter: Emitter,
) -> Result<Frame, ErrorData> {
    // The report pass runs for the report file and for a subscriber that logs translations.
    let traced = tracing::enabled!(tracing::Level::DEBUG);
    let result = if report.enabled() || traced {
        serialize_for_report(body, (to, emitter.options())).map(|(value, changes)| {
            if !changes.is_plain() {
                tracing::debug!(
                    dir = dir.as_str(),
                    method,
                    from = from.map(ProtocolVersion::as_str),
                    to = to.as_str(),
                    stripped = ?changes.stripped_pointers(),
                    injected = ?changes.injected_pointers(),
                    "translated"
                );
            }
            report.emitted(dir, method, from, &changes);
            serde_json::to_vec(&value).unwrap_or_default()
        })
    } else {
        let mut buf = Vec::with_capacity(256);
        serialize_for_vec(body, (to, emitter.options()), &mut buf).map(|()| buf)
    };
    match result {
        Ok(bytes) => Ok(Frame::from_emitted(bytes)),
        Err(e) => {
            tracing::debug!(
                dir = dir.as_str(),
                method,
                from = from.map(ProtocolVersion::as_str),
                to = to.as_str(),
                kind = ?e.kind,
                pointer = %e.path.pointer(),
                cause = e.cause.map(|c| c.to_string()),
                "no form at the other side's revision"
            );
            report.event(dir, method, from, to, Status::Refused, e.to_string());
            Err(refusal(&e, method, from, to))
        }
    }
}

/// The error a sender gets when the other side's revision cannot carry its frame.
pub(crate) fn refusal(
    e: &EmitError,
    method: &str,
    from: Option<ProtocolVersion>,
    to: ProtocolVersion,
) -> ErrorData {
    if matches!(e.kind, EmitErrorKind::TypeAbsent) {
        return ErrorData::new(
            codes::METHOD_NOT_FOUND,
            format!("{method} does not exist at the server's revision {to}: {e}"),
        );
    }
    Reason::ContentUntranslatable.error(
        format!("{method} has no form at {to}: {e}"),
        from.map(|f| (f, to)),
        Some(serde_json::json!({ "path": e.path.pointer() })),
    )
}
