//! Reading one line into its members as borrowed raw text: the capture record, the frame, the
//! envelope, and what the session needs to place it.

use std::borrow::Cow;

use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::record::{Direction, Format};
use crate::session::Evidence;
use mcp_wire::jsonrpc::RequestId;
use mcp_wire::session::Envelope;

use super::check::{ParamsFacts, checked_at, object, params_at, skip_ws, value_of};
use super::{GiveUp, hollow};

/// A frame member as read: its key and its text.
pub(super) struct Member<'a> {
    pub(super) key: &'a str,
    pub(super) raw: &'a str,
}

/// The members of one object, in order (frames and records have a handful: kept inline).
pub(super) type Members<'a> = SmallVec<[Member<'a>; 8]>;

/// A frame object as read: its members, and what the scan learned of its `params`.
#[derive(Default)]
pub(super) struct FrameRead<'a> {
    pub(super) members: Members<'a>,
    pub(super) params: Option<ParamsFacts>,
    /// How many closing braces end the line after a `result` that is the frame's last member
    /// (1 for a bare frame, 2 for a capture record's); 0: every `result` is checked as read.
    pub(super) closers: usize,
    /// Whether `result` was taken unchecked (see [`unchecked_result_end`]).
    pub(super) unchecked: bool,
}

impl<'a> FrameRead<'a> {
    /// Reads the member `key` whose value starts at `start`; returns the index after it.
    pub(super) fn member(
        &mut self,
        text: &'a str,
        key: &'a str,
        start: usize,
    ) -> Result<usize, GiveUp> {
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
        self.members.push(Member { key, raw });
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
/// that read does not accept is read again, checked ([`read_checked`]). `None` for any other
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
    /// For captures, the record's members (the frame's slot is `None`), with the values of
    /// the members other than `dir`, to be copied.
    pub(super) record: Record<'a>,
    /// The frame's members, in order.
    pub(super) frame: SmallVec<[(&'a str, FrameMember); 8]>,
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

/// A capture record's members: each key, with the value to copy (`None` for the frame).
pub(super) type Record<'a> = SmallVec<[(&'a str, Option<Copied<'a>>); 4]>;

/// A member the direct path writes back unchanged. (Values are boxed: they are rare, and a
/// [`Line`] is moved a few times on its way; an inline `Value` would triple its size.)
pub(super) enum Copied<'a> {
    /// Raw text already in the form `serde_json` writes (`"c2s"`, `"2.0"`).
    Verbatim(&'a str),
    /// Anything else, re-written compactly.
    Value(Box<Value>),
}

/// A frame member and how it is written.
pub(super) enum FrameMember {
    /// `jsonrpc`, always `"2.0"` here.
    Version,
    /// The id (written from its typed form, as the general path does).
    Id,
    /// `method` or `params` of a request or notification (replaced by the emitted body's).
    Body,
    /// `result` of a response (replaced by the emitted body).
    Result,
    /// Anything else, copied.
    Other(Box<Value>),
}

impl Line<'_> {
    /// Whether the line's `result` is not checked yet: everything else is, and the result is
    /// checked by its typed read ([`translate`](super::translate) says [`Unwritten::Unchecked`](super::Unwritten::Unchecked) when that read
    /// does not decide). Until then nothing may be learned from the line: a caller that must
    /// place it in a session first reads it again with [`read_checked`].
    pub fn result_unchecked(&self) -> bool {
        self.unchecked
    }
}

/// Reads `bytes` for the direct path into `slot` (a [`Line`] is a few hundred bytes: read in
/// place rather than returned through each layer), or `None` when the line must take the
/// general path. A response's `result` that ends the line may be left unchecked
/// ([`Line::result_unchecked`]).
pub fn read<'s, 'a>(bytes: &'a [u8], slot: &'s mut Option<Line<'a>>) -> Option<&'s Line<'a>> {
    read_with(bytes, slot, true)
}

/// [`read`] with every member checked as it is read.
pub fn read_checked<'s, 'a>(
    bytes: &'a [u8],
    slot: &'s mut Option<Line<'a>>,
) -> Option<&'s Line<'a>> {
    read_with(bytes, slot, false)
}

pub(super) fn read_with<'s, 'a>(
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

pub(super) fn read_text<'a>(
    text: &'a str,
    slot: &mut Option<Line<'a>>,
    unchecked_result: bool,
) -> Result<(), GiveUp> {
    let b = text.as_bytes();
    // The top-level object: a capture record's members (its frame read one level deeper), or
    // the frame itself.
    // Both readers are filled in place and lent to `classify` (a `FrameRead` is a few hundred
    // bytes, too large to move per line).
    let mut top: SmallVec<[(&str, Option<&str>); 4]> = SmallVec::new();
    let mut inner = FrameRead {
        closers: if unchecked_result { 2 } else { 0 },
        ..FrameRead::default()
    };
    let mut frame: Option<&str> = None;
    let mut bare = FrameRead {
        closers: if unchecked_result { 1 } else { 0 },
        ..FrameRead::default()
    };
    let end = object(text, 0, |key, start| {
        if key == "frame" && b.get(start) == Some(&b'{') {
            let end = object(text, start, |key, at| inner.member(text, key, at))?;
            frame = Some(&text[start..end]);
            top.push((key, None));
            return Ok(end);
        }
        let end = bare.member(text, key, start)?;
        top.push((key, bare.members.last().map(|m| m.raw)));
        Ok(end)
    })?;
    if skip_ws(b, end) != b.len() {
        return Err(GiveUp);
    }
    let has = |k: &str| top.iter().any(|(key, _)| *key == k);
    // The record split, as `Record::from_value` does it.
    match frame {
        Some(frame_text) if !has("jsonrpc") => {
            let dir = match top.iter().find(|(key, _)| *key == "dir") {
                Some((_, Some("\"c2s\""))) => Direction::ClientToServer,
                Some((_, Some("\"s2c\""))) => Direction::ServerToClient,
                _ => return Err(GiveUp),
            };
            let line = classify(Format::Capture(dir), &mut inner, frame_text, text, slot)?;
            // The record's members go straight into the line (it is a few hundred bytes:
            // built where it stays).
            for (key, raw) in &top {
                let copied = match (*key, raw) {
                    (_, None) => None,
                    ("dir", Some(raw)) => Some(Copied::Verbatim(raw)),
                    (_, Some(raw)) => Some(Copied::Value(Box::new(value_of(raw)?))),
                };
                line.record.push((*key, copied));
            }
            Ok(())
        }
        Some(_) => Err(GiveUp),
        None if has("frame") => Err(GiveUp),
        None => classify(
            Format::Bare,
            &mut bare,
            &text[skip_ws(b, 0)..end],
            text,
            slot,
        )
        .map(|_| ()),
    }
}

/// Classifies the frame (success cases of [`Envelope::of`] only) and reads its members into
/// `slot`, with an empty record for the caller to fill; `frame_text` is a sub-slice of the
/// line's `text`.
pub(super) fn classify<'s, 'a>(
    format: Format,
    read: &mut FrameRead<'a>,
    frame_text: &'a str,
    text: &'a str,
    slot: &'s mut Option<Line<'a>>,
) -> Result<&'s mut Line<'a>, GiveUp> {
    let members = &read.members;
    let params = read.params.take();
    let unchecked = read.unchecked;
    let get = |k: &str| members.iter().find(|m| m.key == k).map(|m| m.raw);
    if get("jsonrpc") != Some("\"2.0\"") {
        return Err(GiveUp);
    }
    let id = get("id").map(request_id).transpose()?;
    let is_object = |raw: &str| raw.starts_with('{');
    let method_raw = get("method");
    let result = get("result");
    let params_raw = get("params");
    let (envelope, body) = match (method_raw, result) {
        (Some(m), None) => {
            let method = plain_string(m).map_or_else(
                || serde_json::from_str(m).map_err(|_| GiveUp),
                |s| Ok(s.to_owned()),
            )?;
            if params_raw.is_some_and(|p| !is_object(p)) {
                return Err(GiveUp);
            }
            let envelope = match id {
                Some(id) => Envelope::Request { id, method },
                None => Envelope::Notification { method },
            };
            (envelope, params_raw)
        }
        (None, Some(r)) if is_object(r) => (
            Envelope::Response {
                id: id.ok_or(GiveUp)?,
            },
            Some(r),
        ),
        _ => return Err(GiveUp),
    };
    let is_response = matches!(envelope, Envelope::Response { .. });
    let params = match is_response {
        true => ParamsFacts::default(),
        false => params.unwrap_or_default(),
    };
    // Built in the slot, and its members pushed there (a line is a few hundred bytes).
    let line = slot.insert(Line {
        format,
        record: Record::new(),
        frame: SmallVec::new(),
        envelope,
        method: method_raw,
        body,
        params,
        unchecked: unchecked && is_response,
        frame_text,
        text,
    });
    for m in members.iter() {
        let member = match m.key {
            "jsonrpc" => FrameMember::Version,
            "id" => FrameMember::Id,
            "method" | "params" if !is_response => FrameMember::Body,
            "result" if is_response => FrameMember::Result,
            _ => FrameMember::Other(Box::new(value_of(m.raw)?)),
        };
        line.frame.push((m.key, member));
    }
    Ok(line)
}

/// The text of a JSON string member without escapes (its quotes off), `None` for any other
/// value. Only ever given member text already checked as JSON, so the string has no control
/// characters and ends at its last byte.
pub(super) fn plain_string(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// A request id read as [`RequestId::from_value`] reads it: plain strings and small
/// non-negative integers by hand, anything else through a `Value` (so `-0`, `1.0` and the
/// like are judged exactly as before).
pub(super) fn request_id(raw: &str) -> Result<RequestId, GiveUp> {
    if let Some(s) = plain_string(raw) {
        return Ok(RequestId::String(s.to_owned()));
    }
    let b = raw.as_bytes();
    let digits = !b.is_empty() && b.len() <= 18 && b.iter().all(u8::is_ascii_digit);
    if digits && (b.len() == 1 || b[0] != b'0') {
        return raw.parse().map(RequestId::Integer).map_err(|_| GiveUp);
    }
    let v: Value = serde_json::from_str(raw).map_err(|_| GiveUp)?;
    RequestId::from_value(&v).ok_or(GiveUp)
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
        self.params.task_id.as_deref().map(Cow::Borrowed)
    }
}
