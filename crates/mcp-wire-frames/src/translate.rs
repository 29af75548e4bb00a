//! `mcp-frames translate` and `mcp-frames explain`: each frame parsed at its source revision
//! and emitted for the target with the boundary; `explain` prints what that changed instead of
//! the frame.

use std::io;

use mcp_wire::ProtocolVersion;
use mcp_wire::wire::EmitOptions;

use crate::boundary::{BodyKind, Failure};
use crate::check;
use crate::convert::{self, Converted};
use crate::direct::{self, Unwritten};
use crate::explain::{Explanation, Status};
use crate::record::{Direction, Record};
use crate::session::{FrameContext, Session};
use crate::stream::{self, Fault, LineHandler, Output, Placed};
use mcp_wire::jsonrpc::{ErrorData, JsonRpcError, RequestId, codes};
use mcp_wire::session::Envelope;

/// What `translate` does with a refused request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnRefuse {
    /// Report it on stderr only.
    Skip,
    /// Also answer it with a JSON-RPC error frame on stdout.
    Error,
}

/// Whether the handler writes frames (`translate`) or change lists (`explain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write each translated frame in its record's format.
    Translate(OnRefuse),
    /// Write one `explain` record (an `Explanation`) per input line.
    Explain,
}

/// The outcome of one frame.
enum Outcome {
    Translated(Box<Converted>),
    /// Not written (`status` says whether refused or invalid), with the reason and the code of
    /// the error that answers it.
    NotWritten {
        status: Status,
        reason: String,
        code: i64,
    },
}

impl From<Failure> for Outcome {
    fn from(failure: Failure) -> Outcome {
        match failure {
            Failure::Refused { reason, code } => Outcome::refused(reason, code),
            Failure::Invalid { reason, code } => Outcome::invalid(reason, code),
        }
    }
}

impl Outcome {
    fn refused(reason: String, code: i64) -> Outcome {
        Outcome::NotWritten {
            status: Status::Refused,
            reason,
            code,
        }
    }

    fn invalid(reason: String, code: i64) -> Outcome {
        Outcome::NotWritten {
            status: Status::Invalid,
            reason,
            code,
        }
    }
}

/// The `translate`/`explain` state: target, mode, counts.
pub struct Translate {
    to: ProtocolVersion,
    mode: Mode,
    translated: usize,
    refused: usize,
    invalid: usize,
    direct: usize,
    buffers: direct::Buffers,
    options: EmitOptions,
}

impl Translate {
    /// A handler translating to `to`.
    pub fn new(to: ProtocolVersion, mode: Mode) -> Self {
        Translate {
            to,
            mode,
            translated: 0,
            refused: 0,
            invalid: 0,
            direct: 0,
            buffers: direct::Buffers::default(),
            options: EmitOptions::new(),
        }
    }

    /// Emits with `options` (`--strict`: only what the target declares). A strict handler
    /// takes the general path for every line.
    pub fn with_emit_options(mut self, options: EmitOptions) -> Self {
        self.options = options;
        self
    }

    /// Which strings pass through as the input line's own bytes, never copied (see
    /// [`crate::direct`]): those of `min_string` bytes and more (quotes included) in bodies of
    /// `min_body` bytes and more. The defaults (1 KiB in 64 KiB) keep it to large frames, and
    /// to strings far longer than any tag or name the boundary decides by; lower limits are for
    /// tests that want every frame to take that route.
    pub fn with_pass_through(mut self, min_body: usize, min_string: usize) -> Self {
        self.buffers.pass_through(min_body, min_string);
        self
    }

    /// How many frames took the direct path (see [`crate::direct`]); the rest took the
    /// general one.
    pub fn direct_count(&self) -> usize {
        self.direct
    }

    fn outcome(&self, placed: &mut Placed, session: &Session) -> Outcome {
        match self.gate(&placed.envelope, &placed.context) {
            Err(outcome) => outcome,
            Ok(None) => {
                // Error responses are the same at every revision.
                let frame = std::mem::take(&mut placed.record.frame);
                Outcome::Translated(Box::new(Converted::unchanged(frame)))
            }
            Ok(Some(from)) => {
                let report = self.mode == Mode::Explain;
                let identity = session.client_identity();
                match convert::convert(
                    placed,
                    from,
                    self.to,
                    identity.map(|i| &**i),
                    report,
                    self.options,
                ) {
                    Ok(c) => Outcome::Translated(Box::new(c)),
                    Err(failure) => failure.into(),
                }
            }
        }
    }

    /// The checks before the boundary: `Ok(Some(from))` when the body goes through the
    /// boundary from `from`, `Ok(None)` for an error response (passed unchanged), `Err` with the
    /// outcome otherwise.
    fn gate(
        &self,
        envelope: &Envelope,
        context: &FrameContext,
    ) -> Result<Option<ProtocolVersion>, Outcome> {
        let to = self.to;
        let d = context.direction;
        let invalid = |reason: String, code: i64| Err(Outcome::invalid(reason, code));
        // Answers to requests that never reached the output are not forwarded either.
        if let Some(origin) = &context.origin
            && !origin.forwarded
        {
            return Err(Outcome::refused(
                format!(
                    "answers {} (line {}), which was not translated",
                    origin.method, origin.position
                ),
                codes::INTERNAL_ERROR,
            ));
        }
        if let Envelope::Error { .. } = envelope {
            return Ok(None);
        }
        let Some(from) = context.revision else {
            return invalid(
                "cannot tell the source revision: no initialize or _meta protocolVersion \
                 seen so far (give --from)"
                    .into(),
                // The translator's own configuration lacks the revision: not the peer's fault.
                codes::INTERNAL_ERROR,
            );
        };
        match envelope {
            Envelope::Request { method, .. } | Envelope::Notification { method } => {
                let request = matches!(envelope, Envelope::Request { .. });
                if let Some(p) = check::method_problem(from, d, method, request) {
                    return invalid(p, codes::METHOD_NOT_FOUND);
                }
                let problem = check::method_problem(to, d, method, request).or_else(|| {
                    context
                        .task_augmented
                        .then(|| check::augmentation_problem(from, to, method))
                        .flatten()
                });
                if let Some(p) = problem {
                    return Err(Outcome::refused(
                        format!("no form at {to}: {p}"),
                        codes::METHOD_NOT_FOUND,
                    ));
                }
            }
            Envelope::Response { .. } => {
                let Some(origin) = &context.origin else {
                    return invalid(
                        "a response without a request".into(),
                        codes::INVALID_REQUEST,
                    );
                };
                if check::method_fact(from, d.reverse(), &origin.method, true).is_none() {
                    return invalid(
                        format!(
                            "answers {} (line {}), which is not a request at {from}",
                            origin.method, origin.position
                        ),
                        codes::INVALID_REQUEST,
                    );
                }
            }
            Envelope::Error { .. } => {}
        }
        Ok(Some(from))
    }

    /// The direct path for one line (see [`crate::direct`]); `Ok(false)` when it gives up before
    /// the session saw the frame, so the caller runs the general path.
    fn direct_line(
        &mut self,
        line: usize,
        bytes: &[u8],
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        let mut slot = None;
        let Some(read) = direct::read(bytes, &mut slot) else {
            return Ok(false);
        };
        let stated = read.format.direction();
        if !read.result_unchecked() {
            return self.direct_placed(line, bytes, read, None, session, out);
        }
        // A response whose `result` the read left unchecked: its typed read checks it, before
        // the session may learn anything from the line. Unless that read decides, the line is
        // read again, checked, and goes the usual way.
        if let Some(translated) = self.unchecked_result(read, stated, session) {
            return self.direct_placed(line, bytes, read, Some(translated), session, out);
        }
        let mut checked = None;
        match direct::read_checked(bytes, &mut checked) {
            Some(read) => self.direct_placed(line, bytes, read, None, session, out),
            None => Ok(false),
        }
    }

    /// [`direct::translate`] of a response whose `result` is unchecked, with the context the
    /// session will give it, before the session places it; `None` when that does not decide
    /// (the result's typed read did not accept it, or the frame is not simply translated).
    fn unchecked_result(
        &mut self,
        read: &direct::Line<'_>,
        stated: Option<Direction>,
        session: &Session,
    ) -> Option<Result<(), Unwritten>> {
        let Envelope::Response { id } = &read.envelope else {
            return None;
        };
        let context = session.preview_answer(stated, id)?;
        let Ok(Some(from)) = self.gate(&read.envelope, &context) else {
            return None;
        };
        let origin = context.origin.as_ref()?;
        let kind = BodyKind::Result(context.direction, origin.result_for());
        match direct::translate(read, kind, from, self.to, None, &mut self.buffers) {
            Err(Unwritten::Unchecked) => None,
            decided => Some(decided),
        }
    }

    /// The direct path for a line read (checked, or with its result's translation already
    /// `decided`): the session places the frame, and the frame is translated or reported.
    fn direct_placed(
        &mut self,
        line: usize,
        bytes: &[u8],
        read: &direct::Line<'_>,
        mut decided: Option<Result<(), Unwritten>>,
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        // An unchecked result is decided before the session may see the line.
        debug_assert!(!read.result_unchecked() || decided.is_some());
        let stated = read.format.direction();
        let context = match session.observe(line, stated, &read.envelope, read) {
            Ok(c) => c,
            Err(e) => {
                let fault = match stream::read(line, bytes) {
                    Ok((record, envelope)) => stream::session_fault(line, e, &envelope, record),
                    Err(fault) => fault,
                };
                self.fault(fault, out)?;
                return Ok(true);
            }
        };
        let mut gate = self.gate(&read.envelope, &context);
        if let Ok(Some(from)) = gate {
            let d = context.direction;
            let kind = match &read.envelope {
                Envelope::Request { .. } => Some(BodyKind::Request(d)),
                Envelope::Notification { .. } => Some(BodyKind::Notification(d)),
                Envelope::Response { .. } => context
                    .origin
                    .as_ref()
                    .map(|o| BodyKind::Result(d, o.result_for())),
                Envelope::Error { .. } => None,
            };
            let identity = session.client_identity();
            if let Some(kind) = kind {
                let translated = decided.take().unwrap_or_else(|| {
                    direct::translate(read, kind, from, self.to, identity, &mut self.buffers)
                });
                match translated {
                    Ok(()) => {
                        if let Envelope::Request { id, .. } = &read.envelope {
                            session.set_forwarded(d, id, true);
                        }
                        self.translated += 1;
                        self.direct += 1;
                        out.raw_line_pieces(self.buffers.output(read))?;
                        return Ok(true);
                    }
                    // The boundary's own verdict, as the general path would reach it.
                    Err(Unwritten::Failed(failure)) => gate = Err(failure.into()),
                    // (`Unchecked` only arises before the session placed the frame.)
                    Err(Unwritten::GaveUp | Unwritten::Unchecked) => {}
                }
            }
        }
        // A frame not written costs no more than a translated one: an error response is copied
        // as it is, and a refusal (the gate's or the boundary's) is reported from what the
        // direct read already knows (unless it must be answered, which needs the record).
        match gate {
            Ok(None) if direct::unchanged(read, &mut self.buffers) => {
                self.translated += 1;
                self.direct += 1;
                out.raw_line_pieces(self.buffers.output(read))?;
                return Ok(true);
            }
            Err(Outcome::NotWritten { status, reason, .. })
                if self.mode == Mode::Translate(OnRefuse::Skip) =>
            {
                self.direct += 1;
                self.not_written(line, status, reason, out)?;
                return Ok(true);
            }
            _ => {}
        }
        // The general path from here on, with the session as the frame left it.
        match stream::read(line, bytes) {
            Ok((record, envelope)) => {
                let placed = Placed {
                    line,
                    record,
                    envelope,
                    context,
                };
                self.frame(placed, session, out)?;
            }
            Err(fault) => self.fault(fault, out)?,
        }
        Ok(true)
    }

    /// With `--on-refuse error`: answers a refused or invalid request so its sender is not left
    /// waiting. The reply travels the other way (a capture record's `dir` is reversed).
    fn reply(
        &self,
        out: &mut Output,
        record: Option<&mut Record>,
        request: Option<(&RequestId, Direction)>,
        code: i64,
        reason: &str,
    ) -> io::Result<()> {
        let (Mode::Translate(OnRefuse::Error), Some((id, dir))) = (self.mode, request) else {
            return Ok(());
        };
        let error = JsonRpcError::new(Some(id.clone()), ErrorData::new(code, reason));
        let frame = serde_json::to_value(&error).map_err(io::Error::other)?;
        let line = match record {
            Some(r) => r.render_reply(frame, dir.reverse()),
            None => frame,
        };
        out.json_line(&line)
    }

    /// Counts and reports a frame that is not written: `line N: refused|invalid: reason` on
    /// stderr, and for `explain` its record. Returns the reason when the frame may still be
    /// answered (`translate`), `None` when the explain record was written instead.
    fn not_written(
        &mut self,
        line: usize,
        status: Status,
        reason: String,
        out: &mut Output,
    ) -> io::Result<Option<String>> {
        let label = match status {
            Status::Refused => {
                self.refused += 1;
                "refused"
            }
            _ => {
                self.invalid += 1;
                "invalid"
            }
        };
        out.report(line, &format!("{label}: {reason}"))?;
        if self.mode == Mode::Explain {
            Self::explain_line(out, &Explanation::not_written(line, status, reason))?;
            return Ok(None);
        }
        Ok(Some(reason))
    }

    fn explain_line(out: &mut Output, record: &Explanation) -> io::Result<()> {
        let value = serde_json::to_value(record).map_err(io::Error::other)?;
        out.json_line(&value)
    }
}

impl LineHandler for Translate {
    fn direct(
        &mut self,
        line: usize,
        bytes: &[u8],
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        match self.mode {
            Mode::Translate(_) if !self.options.is_strict() => {
                self.direct_line(line, bytes, session, out)
            }
            Mode::Translate(_) | Mode::Explain => Ok(false),
        }
    }

    fn frame(
        &mut self,
        mut placed: Placed,
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<()> {
        let outcome = self.outcome(&mut placed, session);
        let d = placed.context.direction;
        let request_id = match &placed.envelope {
            Envelope::Request { id, .. } => Some(id.clone()),
            _ => None,
        };
        if let (Some(id), Outcome::Translated(_)) = (&request_id, &outcome) {
            session.set_forwarded(d, id, true);
        }
        let line = placed.line;
        match outcome {
            Outcome::Translated(c) => {
                self.translated += 1;
                match self.mode {
                    Mode::Translate(_) => {
                        let rendered = placed.record.render(c.frame);
                        out.json_line(&rendered)
                    }
                    Mode::Explain => {
                        let record = Explanation::written(line, c.stripped, c.injected)
                            .with_passed(c.passed)
                            .with_rewritten(c.rewritten);
                        Self::explain_line(out, &record)
                    }
                }
            }
            Outcome::NotWritten {
                status,
                reason,
                code,
            } => {
                let Some(reason) = self.not_written(line, status, reason, out)? else {
                    return Ok(());
                };
                let req = request_id.as_ref().map(|id| (id, d));
                self.reply(out, Some(&mut placed.record), req, code, &reason)
            }
        }
    }

    fn fault(&mut self, mut fault: Fault, out: &mut Output) -> io::Result<()> {
        let Some(reason) = self.not_written(fault.line, Status::Invalid, fault.reason, out)? else {
            return Ok(());
        };
        let req = fault.request.as_ref().map(|(id, d)| (id, *d));
        let record = fault.record.as_deref_mut();
        self.reply(out, record, req, fault.code, &reason)
    }

    fn summary(&self) -> String {
        let verb = match self.mode {
            Mode::Translate(_) => "translated",
            Mode::Explain => "explained",
        };
        format!(
            "{verb} {}, refused {}, invalid {}",
            self.translated, self.refused, self.invalid
        )
    }

    fn all_fine(&self) -> bool {
        self.refused == 0 && self.invalid == 0
    }
}
