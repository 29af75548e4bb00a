//! The driver shared by every command: read lines, parse them, split record and frame, check
//! the envelope, place the frame in the session, and hand each outcome to a [`LineHandler`].
//! One bad line never stops the stream: every failure becomes a [`Fault`] with its line number.

use std::io::{self, BufRead, Write};

use mcp_wire::jsonrpc::{RequestId, batch_messages, codes};
use mcp_wire::session::Envelope;
use mcp_wire::{VersionLike, json_text};
use serde::Serialize;
use serde_json::Value;

use crate::input::{LineContent, LineReader};
use crate::record::{Direction, Record};
use crate::session::{FrameContext, Session, SessionError};

/// A frame placed in its session, ready for a command.
#[derive(Debug)]
pub struct Placed {
    /// 1-based line number.
    pub line: usize,
    /// The record (format and frame).
    pub record: Record,
    /// The envelope classification.
    pub envelope: Envelope,
    /// Direction, revision and the request answered.
    pub context: FrameContext,
}

/// A line that could not be placed, and why.
#[derive(Debug)]
pub struct Fault {
    /// 1-based line number.
    pub line: usize,
    /// The message for stderr (without the `line N: ` prefix).
    pub reason: String,
    /// For a request that could be identified: its id and direction, so a command can answer it.
    pub request: Option<(RequestId, Direction)>,
    /// The JSON-RPC error code that answers it (-32700 not JSON, -32600 invalid request, …).
    pub code: i64,
    /// The record, when the line was at least JSON.
    pub record: Option<Box<Record>>,
}

impl Fault {
    /// The fault for a line that is not a placeable frame, with its `record` when the line was
    /// at least JSON. A request whose id is still readable is named (sent in the direction the
    /// record states, else by the client), so a command can answer it.
    fn new(line: usize, reason: String, code: i64, record: Option<Record>) -> Fault {
        let request = record.as_ref().and_then(|r| {
            let (frame, d) = (&r.frame, r.format.direction());
            let id = frame.get("id").and_then(RequestId::from_value);
            let id = id.filter(|_| frame.get("method").is_some())?;
            Some((id, d.unwrap_or(Direction::ClientToServer)))
        });
        let record = record.map(Box::new);
        Fault {
            line,
            reason,
            request,
            code,
            record,
        }
    }
}

/// What a command does with each line.
pub trait LineHandler {
    /// A frame placed in the session.
    fn frame(&mut self, placed: Placed, session: &mut Session, out: &mut Output) -> io::Result<()>;
    /// A line that could not be placed.
    fn fault(&mut self, fault: Fault, out: &mut Output) -> io::Result<()>;
    /// Offers the raw line first: a handler with a faster path handles it completely and
    /// returns `true`, or returns `false` without touching the session, and the line then
    /// takes the general path ([`LineHandler::frame`] or [`LineHandler::fault`]).
    fn direct(
        &mut self,
        line: usize,
        bytes: &[u8],
        session: &mut Session,
        out: &mut Output,
    ) -> io::Result<bool> {
        let _ = (line, bytes, session, out);
        Ok(false)
    }
    /// The final stderr line, e.g. `translated 10, refused 2, invalid 1`.
    fn summary(&self) -> String;
    /// Whether every line was fine (exit status 0).
    fn all_fine(&self) -> bool;
}

/// Where results go: JSON lines to stdout, `line N: …` messages to stderr.
pub struct Output {
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    buf: Vec<u8>,
}

impl Output {
    /// Output to the given writers (stdout is written in whole lines).
    pub fn new(stdout: Box<dyn Write>, stderr: Box<dyn Write>) -> Self {
        Output {
            stdout,
            stderr,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// Writes one JSON value as one compact line to stdout.
    pub fn json_line<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, value).map_err(io::Error::other)?;
        self.buf.push(b'\n');
        self.stdout.write_all(&self.buf)
    }

    /// Writes pieces that together form one line (newline included) to stdout.
    pub fn raw_line_pieces<'a>(
        &mut self,
        pieces: impl IntoIterator<Item = &'a [u8]>,
    ) -> io::Result<()> {
        pieces
            .into_iter()
            .try_for_each(|piece| self.stdout.write_all(piece))
    }

    /// Writes `line N: message` to stderr.
    pub fn report(&mut self, line: usize, message: &str) -> io::Result<()> {
        writeln!(self.stderr, "line {line}: {message}")
    }

    /// Writes a free line to stderr.
    pub fn note(&mut self, message: &str) -> io::Result<()> {
        writeln!(self.stderr, "{message}")
    }

    /// Flushes both streams.
    pub fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()?;
        self.stderr.flush()
    }
}

/// Runs `handler` over every line of `input`, then writes its summary. I/O errors (reading the
/// input, writing the output) end the run with `Err`; everything about the content is a fault.
pub fn run<R: BufRead>(
    input: R,
    max_line_bytes: usize,
    session: &mut Session,
    handler: &mut dyn LineHandler,
    out: &mut Output,
) -> io::Result<()> {
    let mut reader = LineReader::new(input, max_line_bytes);
    while let Some((line, content)) = reader.next_line()? {
        if let LineContent::Bytes(bytes) = content
            && handler.direct(line, bytes, session, out)?
        {
            continue;
        }
        place_line(line, content, session, handler, out)?;
    }
    let summary = handler.summary();
    out.note(&summary)?;
    out.flush()
}

/// Places every message of one line in the session and hands each to `handler`, in order: a
/// line holds one message, or, where the session's revision has them (2025-03-26), a batch
/// whose messages are placed one by one, as if each had its own line.
fn place_line(
    line: usize,
    content: LineContent<'_>,
    session: &mut Session,
    handler: &mut dyn LineHandler,
    out: &mut Output,
) -> io::Result<()> {
    let bytes = match content {
        LineContent::Bytes(b) => b,
        LineContent::TooLong { bytes } => {
            let reason =
                format!("line of {bytes} bytes exceeds the limit (--max-line-bytes); skipped");
            return handler.fault(Fault::new(line, reason, codes::PARSE_ERROR, None), out);
        }
    };
    let mut record = match read_record(line, bytes) {
        Ok(record) => record,
        Err(fault) => return handler.fault(fault, out),
    };
    let revision = match session.current() {
        Some(v) => VersionLike::Known(v),
        None => VersionLike::Unknown("(not yet known)".into()),
    };
    if let Err(e) = batch_messages(&record.frame, &revision) {
        return handler.fault(Fault::new(line, e.to_string(), e.code(), Some(record)), out);
    }
    let Value::Array(messages) = &mut record.frame else {
        return place(line, classify(line, record), None, session, handler, out);
    };
    // An allowed batch: its messages are moved out of the record, not copied.
    for (i, message) in std::mem::take(messages).into_iter().enumerate() {
        let read = classify(line, record.with_frame(message)).map_err(|mut fault| {
            fault.reason = format!("batch message {i}: {}", fault.reason);
            fault
        });
        place(line, read, None, session, handler, out)?;
    }
    Ok(())
}

/// Places one classified message in the session (unless the caller did: `observed`) and hands
/// the outcome to `handler`.
pub(crate) fn place(
    line: usize,
    read: Result<(Record, Envelope), Fault>,
    observed: Option<Result<FrameContext, SessionError>>,
    session: &mut Session,
    handler: &mut dyn LineHandler,
    out: &mut Output,
) -> io::Result<()> {
    let (record, envelope) = match read {
        Ok(read) => read,
        Err(fault) => return handler.fault(fault, out),
    };
    let observed = observed.unwrap_or_else(|| {
        session.observe(line, record.format.direction(), &envelope, &record.frame)
    });
    match observed {
        Ok(context) => {
            let placed = Placed {
                line,
                record,
                envelope,
                context,
            };
            handler.frame(placed, session, out)
        }
        Err(e) => handler.fault(Fault::new(line, e.to_string(), e.code(), Some(record)), out),
    }
}

/// Reads one line that holds a single message into its record and envelope (everything
/// [`place_line`] does before the session, for a line the direct path already read).
pub(crate) fn read(line: usize, bytes: &[u8]) -> Result<(Record, Envelope), Fault> {
    classify(line, read_record(line, bytes)?)
}

/// Parses one line (strict JSON) and splits record from frame.
fn read_record(line: usize, bytes: &[u8]) -> Result<Record, Fault> {
    let fault = |reason, code| Fault::new(line, reason, code, None);
    let value = json_text::read(bytes).map_err(|e| fault(e.kind.to_string(), e.code()))?;
    Record::from_value(value).map_err(|e| fault(e, codes::INVALID_REQUEST))
}

/// The record with its frame's envelope, judged by the crate's envelope rules.
fn classify(line: usize, record: Record) -> Result<(Record, Envelope), Fault> {
    match Envelope::of(&record.frame) {
        Ok(envelope) => Ok((record, envelope)),
        Err(e) => Err(Fault::new(line, e.to_string(), e.code(), Some(record))),
    }
}
