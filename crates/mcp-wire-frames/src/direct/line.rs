//! Reading one line into its members as borrowed raw text: the capture record, the frame, the
//! envelope, and what the session needs to place it.

use std::borrow::Cow;

use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::record::{Direction, Format};
use crate::session::Evidence;
use mcp_wire::jsonrpc::RequestId;
use mcp_wire::session::Envelope;

use super::check::{ParamsFacts, checked_at, object, params_at, skip_ws};
use super::{GiveUp, hollow};

/// An object's members as read, in order: each key and its value's text (frames and records
/// have a handful: kept inline).
pub(super) type Members<'a> = SmallVec<[(&'a str, &'a str); 8]>;

/// A frame object as read: its members, and what the scan learned of its `params`.
#[derive(Default)]
struct FrameRead<'a> {
    members: Members<'a>,
    params: Option<ParamsFacts>,
    /// How many closing braces end the line after a `result` that is the frame's last member
    /// (1 for a bare frame, 2 for a capture record's); 0: every `result` is checked as read.
    closers: usize,
    /// Whether `result` was taken unchecked (see [`unchecked_result_end`]).
    unchecked: bool,
}

impl<'a> FrameRead<'a> {
    /// Reads the member `key` whose value starts at `start`; returns the index after it.
    fn member(&mut self, text: &'a str, key: &'a str, start: usize) -> Result<usize, GiveUp> {
        // Error responses take the general path (the boundary leaves them as they are).
        let (raw, end) = if key == "error" {
            return Err(GiveUp);
        } else if key == "params" {
            let (p, raw, end) = params_at(text, start)?;
            self.params = Some(p);
            (raw, end)
        } else if key == "result"
            && let Some(end) = unchecked_result_end(text, start, self.closers)
        {
            self.unchecked = true;
            (&text[start..end], end)
        } else {
            checked_at(text, start)?
        };
        self.members.push((key, raw));
        Ok(end)
    }
}

/// Results up to this size may be left unchecked as read (see [`unchecked_result_end`]); larger
/// ones are checked, and their long strings pass through uncopied ([`hollow`]).
pub(super) const UNCHECKED_BELOW: usize = hollow::MIN_BODY;

/// Where a `result` object starting at `start` ends if the frame ends the line (`closers`
/// braces close it and the capture record): at the last `}` before them. Such a result is read
/// only once, by its typed read, which also checks it
/// ([`mcp_wire::wire::in_place::parse_result_str`] of unchecked text), and a line whose result
/// that read does not accept is read again, checked ([`read`]). `None` for any other
/// result: it is checked as it is read.
///
/// The span is found from the end of the line, not by reading the result. It ends at or after
/// the result's own end; where it ends after (a `}` in the members that follow it), it holds
/// more than one value and its typed read fails.
pub(super) fn unchecked_result_end(text: &str, start: usize, closers: usize) -> Option<usize> {
    let b = text.as_bytes();
    if closers == 0 || b.get(start) != Some(&b'{') {
        return None;
    }
    let mut end = b.len();
    for _ in 0..=closers {
        end = start + memchr::memrchr(b'}', &b[start..end])?;
    }
    (end - start < UNCHECKED_BELOW).then_some(end + 1)
}

/// One line read by the direct path: a valid request, notification or success response that
/// the strict reader accepts, but for a `result` left unchecked ([`Line::result_unchecked`]).
pub struct Line<'a> {
    /// Bare or capture record.
    pub format: Format,
    /// For captures, the record's members (the frame among them is written from `frame`).
    pub(super) record: Members<'a>,
    /// The frame's members, in order.
    pub(super) frame: Members<'a>,
    /// The envelope, as [`Envelope::of`] gives it.
    pub envelope: Envelope,
    /// The method, as raw JSON text (requests and notifications).
    pub(super) method: Option<&'a str>,
    /// `params` or `result`, as raw JSON text.
    pub(super) body: Option<&'a str>,
    pub(super) params: ParamsFacts,
    /// Whether `result` is not checked yet (see [`Line::result_unchecked`]).
    pub(super) unchecked: bool,
    /// The frame object's text (a sub-slice of the line).
    pub(super) frame_text: &'a str,
    /// The whole line's text.
    pub(super) text: &'a str,
}

impl Line<'_> {
    /// Whether the line's `result` is not checked yet: everything else is, and the result is
    /// checked by its typed read ([`translate`](super::translate) says
    /// [`Unwritten::Unchecked`](super::Unwritten::Unchecked) when that read does not decide).
    /// Until then nothing may be learned from the line: a caller that must place it in a
    /// session first reads it again, checked ([`read`] without `unchecked_result`).
    pub fn result_unchecked(&self) -> bool {
        self.unchecked
    }
}

/// Reads `bytes` for the direct path into `slot` (a [`Line`] is a few hundred bytes: read in
/// place rather than returned through each layer), or `None` when the line must take the
/// general path. With `unchecked_result`, a response's `result` that ends the line may be left
/// unchecked ([`Line::result_unchecked`]); without, every member is checked as it is read.
pub fn read<'s, 'a>(
    bytes: &'a [u8],
    slot: &'s mut Option<Line<'a>>,
    unchecked_result: bool,
) -> Option<&'s Line<'a>> {
    // The whole line is checked at once, by the vector unit (std's check reads a word at a
    // time).
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut read = read_text(text, slot, unchecked_result);
    if read.is_err() && unchecked_result {
        // The span taken for the result may have swallowed members after it.
        read = read_text(text, slot, false);
    }
    match read {
        Ok(()) => slot.as_ref(),
        Err(GiveUp) => {
            *slot = None;
            None
        }
    }
}

fn read_text<'a>(
    text: &'a str,
    slot: &mut Option<Line<'a>>,
    unchecked_result: bool,
) -> Result<(), GiveUp> {
    let b = text.as_bytes();
    // The top-level object: a capture record's members (its frame read one level deeper), or
    // the frame itself.
    // Both readers are filled in place and lent to `classify` (a `FrameRead` is a few hundred
    // bytes, too large to move per line).
    let mut inner = FrameRead {
        closers: if unchecked_result { 2 } else { 0 },
        ..FrameRead::default()
    };
    let mut frame: Option<&str> = None;
    let mut top = FrameRead {
        closers: if unchecked_result { 1 } else { 0 },
        ..FrameRead::default()
    };
    let end = object(text, 0, |key, start| {
        if key == "frame" && b.get(start) == Some(&b'{') {
            let end = object(text, start, |key, at| inner.member(text, key, at))?;
            frame = Some(&text[start..end]);
            top.members.push((key, &text[start..end]));
            return Ok(end);
        }
        top.member(text, key, start)
    })?;
    if skip_ws(b, end) != b.len() {
        return Err(GiveUp);
    }
    let get = |k: &str| top.members.iter().find(|(key, _)| *key == k).map(|m| m.1);
    // The record split, as `Record::from_value` does it. (A record's own members are checked:
    // a `result` among them left unchecked reads the line again.)
    match frame {
        Some(frame_text) if get("jsonrpc").is_none() && !top.unchecked => {
            let dir = match get("dir") {
                Some("\"c2s\"") => Direction::ClientToServer,
                Some("\"s2c\"") => Direction::ServerToClient,
                _ => return Err(GiveUp),
            };
            let record = std::mem::take(&mut top.members);
            classify(
                Format::Capture(dir),
                record,
                &mut inner,
                frame_text,
                text,
                slot,
            )
        }
        Some(_) => Err(GiveUp),
        None if get("frame").is_some() => Err(GiveUp),
        None => {
            let frame_text = &text[skip_ws(b, 0)..end];
            classify(
                Format::Bare,
                Members::new(),
                &mut top,
                frame_text,
                text,
                slot,
            )
        }
    }
}

/// Classifies the frame (success cases of [`Envelope::of`] only) and reads it into `slot`,
/// with the capture `record`'s members; `frame_text` is a sub-slice of the line's `text`.
fn classify<'a>(
    format: Format,
    record: Members<'a>,
    read: &mut FrameRead<'a>,
    frame_text: &'a str,
    text: &'a str,
    slot: &mut Option<Line<'a>>,
) -> Result<(), GiveUp> {
    let get = |k: &str| read.members.iter().find(|(key, _)| *key == k).map(|m| m.1);
    if get("jsonrpc") != Some("\"2.0\"") {
        return Err(GiveUp);
    }
    // Read as [`RequestId::from_value`] and the envelope read them.
    let id = get("id").map(serde_json::from_str::<RequestId>).transpose();
    let id = id.map_err(|_| GiveUp)?;
    let (method, result, params) = (get("method"), get("result"), get("params"));
    let is_object = |raw: &str| raw.starts_with('{');
    let (envelope, body) = match (method, result) {
        (Some(m), None) if params.is_none_or(is_object) => {
            let method = serde_json::from_str(m).map_err(|_| GiveUp)?;
            let envelope = match id {
                Some(id) => Envelope::Request { id, method },
                None => Envelope::Notification { method },
            };
            (envelope, params)
        }
        (None, Some(r)) if is_object(r) => (
            Envelope::Response {
                id: id.ok_or(GiveUp)?,
            },
            result,
        ),
        _ => return Err(GiveUp),
    };
    let is_response = matches!(envelope, Envelope::Response { .. });
    *slot = Some(Line {
        format,
        record,
        envelope,
        method,
        body,
        params: read
            .params
            .take()
            .filter(|_| !is_response)
            .unwrap_or_default(),
        unchecked: read.unchecked && is_response,
        frame: std::mem::take(&mut read.members),
        frame_text,
        text,
    });
    Ok(())
}

impl Evidence for Line<'_> {
    fn params(&self) -> Option<Cow<'_, Map<String, Value>>> {
        match (&self.envelope, self.body) {
            (Envelope::Response { .. }, _) | (_, None) => None,
            (_, Some(p)) => serde_json::from_str(p).ok().map(Cow::Owned),
        }
    }

    fn result(&self) -> Option<Cow<'_, Value>> {
        match (&self.envelope, self.body) {
            (Envelope::Response { .. }, Some(r)) => serde_json::from_str(r).ok().map(Cow::Owned),
            _ => None,
        }
    }

    fn meta_revision(&self) -> Option<Cow<'_, Value>> {
        self.params.meta_revision().map(Cow::Borrowed)
    }

    fn task_augmented(&self) -> bool {
        self.params.task()
    }

    fn task_id(&self) -> Option<Cow<'_, str>> {
        self.params.task_id().map(Cow::Borrowed)
    }
}
