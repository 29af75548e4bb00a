//! Reading one line into its members as borrowed raw text: the capture record, the frame, the
//! envelope, and what the session needs to place it.

use std::borrow::Cow;

use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::record::{Direction, Format};
use crate::session::Evidence;
use mcp_wire::jsonrpc::RequestId;
use mcp_wire::session::Envelope;

use super::GiveUp;
use super::check::{ParamsFacts, checked_at, object, params_at, skip_ws};

/// An object's members as read, in order: each key and its value's text (frames and records
/// have a handful: kept inline).
pub(super) type Members<'a> = SmallVec<[(&'a str, &'a str); 8]>;

/// A frame object as read: its members, and what the scan learned of its `params`.
#[derive(Default)]
struct FrameRead<'a> {
    members: Members<'a>,
    params: Option<ParamsFacts>,
}

impl<'a> FrameRead<'a> {
    /// Reads the member `key` whose value starts at `start`; returns the index after it.
    fn member(&mut self, text: &'a str, key: &'a str, start: usize) -> Result<usize, GiveUp> {
        let (raw, end) = match key {
            "params" => {
                let (p, raw, end) = params_at(text, start)?;
                self.params = Some(p);
                (raw, end)
            }
            _ => checked_at(text, start)?,
        };
        self.members.push((key, raw));
        Ok(end)
    }
}

/// One line read by the direct path: a valid request, notification, success or error response
/// that the strict reader accepts.
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
    /// `params` or `result`, as raw JSON text (an error response's `params`: only read).
    pub(super) body: Option<&'a str>,
    pub(super) params: ParamsFacts,
    /// The frame object's text (a sub-slice of the line).
    pub(super) frame_text: &'a str,
    /// The whole line's text.
    pub(super) text: &'a str,
}

/// Reads `bytes` for the direct path into `slot` (a [`Line`] is a few hundred bytes: read in
/// place rather than returned through each layer), or `None` when the line must take the
/// general path. Every member is checked as it is read.
pub fn read<'s, 'a>(bytes: &'a [u8], slot: &'s mut Option<Line<'a>>) -> Option<&'s Line<'a>> {
    // The whole line is checked at once, by the vector unit (std's check reads a word at a
    // time).
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    if read_text(text, slot).is_err() {
        *slot = None;
    }
    slot.as_ref()
}

fn read_text<'a>(text: &'a str, slot: &mut Option<Line<'a>>) -> Result<(), GiveUp> {
    let b = text.as_bytes();
    // The top-level object: a capture record's members (its frame read one level deeper), or
    // the frame itself.
    // Both readers are filled in place and lent to `classify` (a `FrameRead` is a few hundred
    // bytes, too large to move per line).
    let (mut inner, mut top) = (FrameRead::default(), FrameRead::default());
    let mut frame: Option<&str> = None;
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
    // The record split, as `Record::from_value` does it.
    match frame {
        Some(frame_text) if get("jsonrpc").is_none() => {
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
    let (method, result, params) = (get("method"), get("result"), get("params"));
    // Read as [`RequestId::from_value`] and the envelope read them.
    let id = || get("id").map(serde_json::from_str::<RequestId>).transpose();
    let is_object = |raw: &str| raw.starts_with('{');
    let (envelope, body) = match (method, result, get("error")) {
        (Some(m), None, None) if params.is_none_or(is_object) => {
            let method = serde_json::from_str(m).map_err(|_| GiveUp)?;
            let envelope = match id().map_err(|_| GiveUp)? {
                Some(id) => Envelope::Request { id, method },
                None => Envelope::Notification { method },
            };
            (envelope, params)
        }
        (None, Some(r), None) if is_object(r) => {
            let id = id().ok().flatten().ok_or(GiveUp)?;
            (Envelope::Response { id }, result)
        }
        // An error response (small, and rarer) is judged by the envelope judge itself.
        (None, None, Some(_)) => {
            let frame: Value = serde_json::from_str(frame_text).map_err(|_| GiveUp)?;
            (Envelope::of(&frame).map_err(|_| GiveUp)?, params)
        }
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
