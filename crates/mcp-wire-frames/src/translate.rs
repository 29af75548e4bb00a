//! `mcp-frames translate` and `mcp-frames explain`: each frame parsed at its source revision
//! and emitted for the target with the boundary; `explain` prints what that changed instead of
//! the frame.

use std::io;

use mcp_wire::ProtocolVersion;
use mcp_wire::wire::EmitOptions;

use crate::boundary::{BodyKind, Changes, Failure};
use crate::check;
use crate::convert;
use crate::direct::{self, Unwritten};
use crate::explain::{Explanation, Status};
use crate::record::{Direction, Record};
use crate::session::{FrameContext, Session};
use crate::stream::{self, Fault, LineHandler, Output, Placed};
use mcp_wire::jsonrpc::{ErrorData, JsonRpcError, RequestId, codes};
use mcp_wire::session::Envelope;
use serde_json::Value;

/// What `translate` does with a refused request (`--on-refuse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnRefuse {
    /// Report it on stderr only.
    Skip,
    /// Also answer it with a JSON-RPC error frame (same id) on stdout, so the sender is not
    /// left waiting.
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

    /// The frame for the target and what changed in it, or why it is not written.
    fn outcome(&self, placed: &mut Placed, session: &Session) -> Result<(Value, Changes), Failure> {
        let frame = &mut placed.record.frame;
        let Some((from, kind)) = self.gate(&placed.envelope, &placed.context)? else {
            // Error responses are the same at every revision.
            return Ok((std::mem::take(frame), Changes::default()));
        };
        let identity = session.client_identity().map(|i| &**i);
        let report = self.mode == Mode::Explain;
        convert::convert(frame, kind, from, self.to, identity, report, self.options)
    }

    /// The checks before the boundary: `Ok(Some((from, kind)))` when the `kind` body goes
    /// through the boundary from `from`, `Ok(None)` for an error response (passed unchanged),
    /// `Err` with why the frame is not written otherwise.
    fn gate<'c>(
        &self,
        envelope: &Envelope,
        context: &'c FrameContext,
    ) -> Result<Option<(ProtocolVersion, BodyKind<'c>)>, Failure> {
        let to = self.to;
        let d = context.direction;
        let invalid = |reason: String, code: i64| Err(Failure::Invalid { reason, code });
        let refused = |reason: String, code: i64| Err(Failure::Refused { reason, code });
        // Answers to requests that never reached the output are not forwarded either.
        if let Some(origin) = &context.origin
            && !origin.forwarded
        {
            return refused(
                format!(
                    "answers {} (line {}), which was not translated",
                    origin.method, origin.position
                ),
                codes::INTERNAL_ERROR,
            );
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
        if let Some((reason, code)) = check::table_problem(envelope, context, from) {
            return invalid(reason, code);
        }
        if let Some((method, request)) = check::method_of(envelope) {
            let problem = check::method_problem(to, d, method, request).or_else(|| {
                context
                    .task_augmented
                    .then(|| check::augmentation_problem(from, to, method))
                    .flatten()
            });
            if let Some(p) = problem {
                return refused(format!("no form at {to}: {p}"), codes::METHOD_NOT_FOUND);
            }
        }
        Ok(BodyKind::of(envelope, context).map(|kind| (from, kind)))
    }

    /// The direct path for a line read: the session places the frame, and the frame is
    /// translated (an error response copied as it stands) or reported.
    fn direct_placed(
        &mut self,
        line: usize,
        bytes: &[u8],
        read: &direct::Line<'_>,
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        let observed = session.observe(line, read.format.direction(), &read.envelope, read);
        if let Ok(context) = &observed {
            let written = match self.gate(&read.envelope, context) {
                Ok(Some((from, kind))) => {
                    let identity = session.client_identity();
                    direct::translate(read, kind, from, self.to, identity, &mut self.buffers)
                }
                // An error response, the same at every revision, is written as it stands.
                Ok(None) => direct::copy(read, &mut self.buffers),
                Err(failure) => Err(Unwritten::Failed(failure)),
            };
            match written {
                Ok(()) => {
                    if let Envelope::Request { id, .. } = &read.envelope {
                        session.set_forwarded(context.direction, id, true);
                    }
                    self.translated += 1;
                    self.direct += 1;
                    out.raw_line_pieces(self.buffers.output(read))?;
                    return Ok(true);
                }
                // A frame not written costs no more than a translated one: the gate's refusal or
                // the boundary's verdict (as the general path reaches it) is reported from the
                // direct read (unless it must be answered, which needs the record).
                Err(Unwritten::Failed(failure)) if self.mode == Mode::Translate(OnRefuse::Skip) => {
                    self.direct += 1;
                    self.not_written(line, failure, None, None, out)?;
                    return Ok(true);
                }
                Err(_) => {}
            }
        }
        // The general path from here on, with the session as the frame left it.
        let record = stream::read(line, bytes);
        stream::place(line, record, Some(observed), session, self, out)?;
        Ok(true)
    }

    /// Counts and reports a frame that is not written: `line N: refused|invalid: reason` on
    /// stderr, and for `explain` its record. With `--on-refuse error`, a `request` is answered
    /// so its sender is not left waiting; the reply travels the other way (a capture record's
    /// `dir` is reversed).
    fn not_written(
        &mut self,
        line: usize,
        failure: Failure,
        record: Option<&mut Record>,
        request: Option<(&RequestId, Direction)>,
        out: &mut Output,
    ) -> io::Result<()> {
        let (status, label, reason, code) = match failure {
            Failure::Refused { reason, code } => {
                self.refused += 1;
                (Status::Refused, "refused", reason, code)
            }
            Failure::Invalid { reason, code } => {
                self.invalid += 1;
                (Status::Invalid, "invalid", reason, code)
            }
        };
        out.report(line, &format!("{label}: {reason}"))?;
        let (id, dir) = match (self.mode, request) {
            (Mode::Explain, _) => {
                return out.json_line(&Explanation::not_written(line, status, reason));
            }
            (Mode::Translate(OnRefuse::Error), Some(request)) => request,
            (Mode::Translate(_), _) => return Ok(()),
        };
        let error = JsonRpcError::new(Some(id.clone()), ErrorData::new(code, reason));
        let frame = serde_json::to_value(&error).map_err(io::Error::other)?;
        let line = match record {
            Some(r) => r.render_reply(frame, dir.reverse()),
            None => frame,
        };
        out.json_line(&line)
    }
}

impl LineHandler for Translate {
    /// The direct path (see [`crate::direct`]), for `translate` without `--strict`.
    fn direct(
        &mut self,
        line: usize,
        bytes: &[u8],
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        let mut slot = None;
        let read = match self.mode {
            Mode::Translate(_) if !self.options.is_strict() => direct::read(bytes, &mut slot),
            Mode::Translate(_) | Mode::Explain => None,
        };
        match read {
            Some(read) => self.direct_placed(line, bytes, read, session, out),
            None => Ok(false),
        }
    }

    fn frame(
        &mut self,
        mut placed: Placed,
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<()> {
        let outcome = self.outcome(&mut placed, session);
        let (line, d) = (placed.line, placed.context.direction);
        let request = match &placed.envelope {
            Envelope::Request { id, .. } => Some((id, d)),
            _ => None,
        };
        match outcome {
            Ok((frame, changes)) => {
                if let Some((id, d)) = request {
                    session.set_forwarded(d, id, true);
                }
                self.translated += 1;
                match self.mode {
                    Mode::Translate(_) => out.json_line(&placed.record.render(frame)),
                    Mode::Explain => out.json_line(&Explanation::written(line, changes)),
                }
            }
            Err(failure) => self.not_written(line, failure, Some(&mut placed.record), request, out),
        }
    }

    fn fault(&mut self, mut fault: Fault, out: &mut Output) -> io::Result<()> {
        let (reason, code) = (fault.reason, fault.code);
        let failure = Failure::Invalid { reason, code };
        let request = fault.request.as_ref().map(|(id, d)| (id, *d));
        let record = fault.record.as_deref_mut();
        self.not_written(fault.line, failure, record, request, out)
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
