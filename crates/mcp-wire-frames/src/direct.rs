//! The direct path of `translate`: one line read once, borrowing, and written once.
//!
//! The general path parses a line into a `serde_json::Value`, splits record and frame, cuts the
//! body out as another `Value`, and builds the output as a `Value` again. Here the line is read
//! into its members as borrowed raw text: the capture record's members, the frame's members,
//! and nothing deeper. The body (`params` or `result`) is checked for what the strict reader of
//! [`mcp_wire::json_text`] refuses (duplicate keys, depth) without building anything (by a byte scanner,
//! with `serde_json` judging only what it is unsure of), parsed from its text into the superset
//! at the source revision, and emitted for the target; when the body ends the frame it is
//! emitted straight into the output line, with the envelope written around it.
//!
//! A `result` that ends the line is not scanned: its span is taken from the line's end, and its
//! typed read checks it while it parses it (no repeated key, bounded nesting:
//! [`wire::parse_unchecked_result_str_into`]). The caller runs that read before the session
//! places the line (with the context [`crate::session::Session::preview_answer`] gives), and
//! reads the line again, checked ([`read_checked`]), whenever the read does not decide: the
//! session never learns from a line the strict reader would refuse.
//!
//! The direct path writes what the general path writes, byte for byte. Error responses are
//! copied as they are; frames the session or the method tables refuse are reported without
//! being read further; a body the boundary refuses at the target or finds invalid at the source
//! is reported from the boundary's own error, which is the general path's (see
//! `crate::translate`). Anything else (invalid JSON, envelope faults, a value whose own
//! serialization fails) makes it give up, and the line takes the general path, which reports
//! it exactly as before. Giving up after the session has seen the frame is fine: the caller then
//! rebuilds the general path's view of the line and continues from the same session state.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use mcp_wire::model::{
    ClientNotification, ClientRequest, Meta, RequestMeta, ServerNotification, ServerRequest,
};
use mcp_wire::wire::{
    self, EmitError, EmitErrorKind, MethodResult, ParseError, ParseErrorKind, WireBody, WireParse,
};
use mcp_wire::{Era, ProtocolVersion};
use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use smallvec::SmallVec;

use crate::boundary::Restate;
use crate::boundary::{BodyKind, Failure};
use crate::record::{Direction, Format};
use crate::session::{ClientIdentity, Evidence};
use mcp_wire::jsonrpc::RequestId;
use mcp_wire::model::meta::keys;
use mcp_wire::session::Envelope;

mod hollow;
mod scan;

use scan::skip_ws;

/// Nesting bound of the direct path. The strict reader's bound is serde_json's (128 levels
/// from the start of the line); a line nested deeper than this takes the general path, which
/// reports it exactly.
const MAX_DEPTH: usize = 100;

/// Why the direct path gave up (never shown: the general path takes over and reports).
#[derive(Debug)]
struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not for the direct path")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<T: fmt::Display>(_: T) -> Self {
        GiveUp
    }
}

/// An object key, borrowed from the line unless it had escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The keys seen in one object, for the duplicate check (no allocation for small objects, and
/// nothing written before a key arrives: the envelope readers make one per object they read).
struct Seen<'a> {
    borrowed: SmallVec<[&'a str; 16]>,
    owned: Vec<String>,
}

impl<'a> Seen<'a> {
    fn new() -> Self {
        Seen {
            borrowed: SmallVec::new(),
            owned: Vec::new(),
        }
    }

    /// Adds `key`; `false` if it was already there.
    fn insert(&mut self, key: Key<'a>) -> bool {
        let k: &str = &key.0;
        if self.borrowed.contains(&k) || self.owned.iter().any(|s| s == k) {
            return false;
        }
        match key.0 {
            Cow::Borrowed(b) => self.borrowed.push(b),
            Cow::Owned(o) => self.owned.push(o),
        }
        true
    }
}

/// Checks a value the way the strict reader would accept it (no duplicate key at any depth,
/// bounded nesting, numbers in range), building nothing.
#[derive(Clone, Copy)]
struct Check {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Check {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.deeper::<A::Error>()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.deeper::<A::Error>()?;
        let mut seen = Seen::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if !seen.insert(key) {
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
}

impl Check {
    fn deeper<E: de::Error>(self) -> Result<Check, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom("too deep"));
        }
        Ok(Check {
            depth: self.depth + 1,
        })
    }
}

/// Checks `raw` (a member at nesting `depth`) with [`Check`].
fn check(raw: &str, depth: usize) -> Result<(), GiveUp> {
    let mut de = serde_json::Deserializer::from_str(raw);
    Check { depth }.deserialize(&mut de).map_err(|_| GiveUp)?;
    de.end().map_err(|_| GiveUp)
}

/// A member checked with [`Check`], then read as a `Value` (members the direct path copies).
fn value_of(raw: &str, depth: usize) -> Result<Value, GiveUp> {
    if scan::vouched_end(raw, 0, depth) != Some(raw.len()) {
        check(raw, depth)?;
    }
    serde_json::from_str(raw).map_err(|_| GiveUp)
}

/// The byte scanner held to the deserializer, for the differential fuzz target (`fuzz/`) and
/// the scanner's own tests. Not part of the API: it exposes the direct path's internals.
#[doc(hidden)]
pub mod scan_oracle {
    use serde_json::Value;

    use super::{Checked, check, scan, value_at};

    /// The direct path's nesting bound: depths at and beyond it are never vouched for.
    pub const MAX_DEPTH: usize = super::MAX_DEPTH;

    /// The scanner's verdict on the value at the start of `text` (no leading whitespace), nested
    /// at `depth`: the index after it when the scanner vouches for it, `None` when unsure.
    pub fn vouched_end(text: &str, depth: usize) -> Option<usize> {
        scan::vouched_end(text, 0, depth)
    }

    /// The deserializer's verdict on the same value: the index after it when the strict check at
    /// `depth` and `serde_json` both accept it.
    pub fn judged_end(text: &str, depth: usize) -> Option<usize> {
        let (Checked, raw, end) = value_at::<Checked>(text, 0).ok()?;
        check(raw, depth).ok()?;
        serde_json::from_str::<Value>(raw).ok()?;
        Some(end)
    }

    /// The scanner's contract: it may be unsure, but when it vouches for a value the
    /// deserializer accepts exactly that text and reads the value to the same end (what follows
    /// the value is the caller's to check). `Err` describes a breach.
    pub fn soundness(text: &str, depth: usize) -> Result<(), String> {
        let Some(end) = vouched_end(text, depth) else {
            return Ok(());
        };
        let Some(vouched) = text.get(..end) else {
            return Err(format!(
                "vouched end {end} is not a char boundary of {text:?}"
            ));
        };
        if judged_end(vouched, depth) != Some(end) {
            return Err(format!(
                "vouched for {vouched:?} at depth {depth}, which the deserializer reads as {:?}",
                judged_end(vouched, depth)
            ));
        }
        match judged_end(text, depth) {
            Some(judged) if judged != end => Err(format!(
                "{text:?} at depth {depth}: vouched end {end}, deserializer's end {judged}"
            )),
            _ => Ok(()),
        }
    }
}

/// The nesting the direct path assumes for every member of a frame (a capture record's frame
/// members are at 2; assuming more only sends borderline lines to the general path).
const MEMBER_DEPTH: usize = 3;

/// A member value read by [`Check`] at [`MEMBER_DEPTH`].
struct Checked;

impl<'de> de::Deserialize<'de> for Checked {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Check {
            depth: MEMBER_DEPTH,
        }
        .deserialize(d)
        .map(|()| Checked)
    }
}

/// A `params` member read by [`ParamsScan`] at [`MEMBER_DEPTH`].
struct CheckedParams<'a>(ParamsFacts<'a>);

impl<'de> de::Deserialize<'de> for CheckedParams<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsScan {
            depth: MEMBER_DEPTH,
        })
        .map(CheckedParams)
    }
}

/// What the direct path needs from a request's `params._meta`.
#[derive(Default)]
struct MetaFacts<'a> {
    /// The `_meta` member's text (a sub-slice of `params`).
    raw: Option<&'a str>,
    /// Its member count.
    len: usize,
    /// `io.modelcontextprotocol/protocolVersion`.
    revision: Option<Box<Value>>,
    has_client_info: bool,
    has_capabilities: bool,
}

/// What the direct path needs from a request's `params` (checked on the way).
#[derive(Default)]
struct ParamsFacts<'a> {
    len: usize,
    meta: MetaFacts<'a>,
    /// A `task` member that is not `null` (a task-augmented request).
    task: bool,
    /// The raw text of a `taskId` member (`tasks/*` requests).
    task_id: Option<&'a str>,
}

impl<'a> ParamsFacts<'a> {
    /// Notes what a member says about tasks.
    fn note_task_member(&mut self, key: &str, raw: &'a str) {
        match key {
            "task" => self.task = raw != "null",
            "taskId" => self.task_id = Some(raw),
            _ => {}
        }
    }
}

struct ParamsScan {
    depth: usize,
}

impl<'de> Visitor<'de> for ParamsScan {
    type Value = ParamsFacts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsFacts<'de>, A::Error> {
        let inner = Check { depth: self.depth }.deeper::<A::Error>()?;
        let mut seen = Seen::new();
        let mut facts = ParamsFacts::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let is_meta = key.0 == "_meta";
            let name = key.0.clone();
            if !seen.insert(key) {
                return Err(de::Error::custom("duplicate key"));
            }
            facts.len += 1;
            if is_meta {
                let raw: &'de RawValue = map.next_value()?;
                facts.meta = meta_facts(raw, inner.depth).map_err(de::Error::custom)?;
            } else if matches!(&*name, "task" | "taskId") {
                let raw: &'de RawValue = map.next_value()?;
                check(raw.get(), inner.depth).map_err(de::Error::custom)?;
                facts.note_task_member(&name, raw.get());
            } else {
                map.next_value_seed(inner)?;
            }
        }
        Ok(facts)
    }
}

struct MetaScan {
    depth: usize,
}

impl<'de> Visitor<'de> for MetaScan {
    type Value = MetaFacts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaFacts<'de>, A::Error> {
        let inner = Check { depth: self.depth }.deeper::<A::Error>()?;
        let mut seen = Seen::new();
        let mut facts = MetaFacts::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let name = key.0.clone();
            if !seen.insert(key) {
                return Err(de::Error::custom("duplicate key"));
            }
            facts.len += 1;
            match &*name {
                keys::PROTOCOL_VERSION => {
                    let raw: &'de RawValue = map.next_value()?;
                    facts.revision = Some(Box::new(
                        value_of(raw.get(), inner.depth).map_err(de::Error::custom)?,
                    ));
                    continue;
                }
                keys::CLIENT_INFO => facts.has_client_info = true,
                keys::CLIENT_CAPABILITIES => facts.has_capabilities = true,
                _ => {}
            }
            map.next_value_seed(inner)?;
        }
        Ok(facts)
    }
}

/// Reads `params._meta`; a `_meta` that is not an object gives up (the general path decides).
fn meta_facts(raw: &RawValue, depth: usize) -> Result<MetaFacts<'_>, GiveUp> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let mut facts = de.deserialize_map(MetaScan { depth }).map_err(|_| GiveUp)?;
    facts.raw = Some(raw.get());
    Ok(facts)
}

/// The nesting of a `params` member's value ([`ParamsScan`] reads `params` at [`MEMBER_DEPTH`]).
const PARAMS_MEMBER_DEPTH: usize = MEMBER_DEPTH + 1;

/// The nesting of a `params._meta` member's value.
const META_MEMBER_DEPTH: usize = PARAMS_MEMBER_DEPTH + 1;

/// Reads the `params` object at `start` as [`CheckedParams`] does: its facts, its text and the
/// index after it. The [`scan`]ner reads it when it vouches for every member; otherwise the
/// deserializer judges.
fn params_at(text: &str, start: usize) -> Result<(ParamsFacts<'_>, &str, usize), GiveUp> {
    if let Some(read) = scanned_params(text, start) {
        return Ok(read);
    }
    let (p, raw, end) = value_at::<CheckedParams<'_>>(text, start)?;
    Ok((p.0, raw, end))
}

/// [`params_at`] by the [`scan`]ner alone; `None` when it cannot vouch for the object.
fn scanned_params(text: &str, start: usize) -> Option<(ParamsFacts<'_>, &str, usize)> {
    let mut facts = ParamsFacts::default();
    let end = object(text, start, |key, at| {
        facts.len += 1;
        if key == "_meta" {
            let (meta, end) = scanned_meta(text, at).ok_or(GiveUp)?;
            facts.meta = meta;
            return Ok(end);
        }
        let end = scan::vouched_end(text, at, PARAMS_MEMBER_DEPTH).ok_or(GiveUp)?;
        facts.note_task_member(key, &text[at..end]);
        Ok(end)
    })
    .ok()?;
    Some((facts, &text[start..end], end))
}

/// `params._meta` at `start`, read as [`MetaScan`] does, by the [`scan`]ner alone; `None`
/// when it cannot vouch for the object (including a `_meta` that is not one).
fn scanned_meta(text: &str, start: usize) -> Option<(MetaFacts<'_>, usize)> {
    let mut facts = MetaFacts::default();
    let end = object(text, start, |key, at| {
        facts.len += 1;
        let end = scan::vouched_end(text, at, META_MEMBER_DEPTH).ok_or(GiveUp)?;
        match key {
            keys::PROTOCOL_VERSION => {
                facts.revision = Some(serde_json::from_str(&text[at..end]).map_err(|_| GiveUp)?);
            }
            keys::CLIENT_INFO => facts.has_client_info = true,
            keys::CLIENT_CAPABILITIES => facts.has_capabilities = true,
            _ => {}
        }
        Ok(end)
    })
    .ok()?;
    facts.raw = Some(&text[start..end]);
    Some((facts, end))
}

/// The object key at `i` when it is plain (no escapes, no control characters), and the index
/// after its closing quote. Other keys make the direct path give up.
fn key_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return Err(GiveUp);
    }
    let start = i + 1;
    // Keys are short: read by the word, not by a search set up for long runs.
    let end = scan::plain_run_end(b, start);
    if b.get(end) != Some(&b'"') {
        return Err(GiveUp);
    }
    Ok((&text[start..end], end + 1))
}

/// Reads the value starting at `i` (no leading whitespace) as `T`: the value, its text, and the
/// index after it. One pass: the check and the span come from the same read.
fn value_at<'a, T: de::Deserialize<'a>>(
    text: &'a str,
    i: usize,
) -> Result<(T, &'a str, usize), GiveUp> {
    let rest = text.get(i..).ok_or(GiveUp)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
    let value = stream.next().ok_or(GiveUp)?.map_err(|_| GiveUp)?;
    let end = i + stream.byte_offset();
    Ok((value, text.get(i..end).ok_or(GiveUp)?, end))
}

/// A member value at `i`, checked as [`Checked`] would check it: its text and the index after
/// it. What the [`scan`]ner vouches for is read without a deserializer.
fn checked_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    if let Some(end) = scan::vouched_end(text, i, MEMBER_DEPTH) {
        return Ok((&text[i..end], end));
    }
    let (Checked, raw, end) = value_at::<Checked>(text, i)?;
    Ok((raw, end))
}

/// Walks the members of the object at `i` (after whitespace), calling `each(key, start)` with
/// the index where each value starts; `each` returns the index after the value. Duplicate keys
/// give up. Returns the index after the closing brace.
fn object<'a>(
    text: &'a str,
    i: usize,
    mut each: impl FnMut(&'a str, usize) -> Result<usize, GiveUp>,
) -> Result<usize, GiveUp> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, i);
    if b.get(i) != Some(&b'{') {
        return Err(GiveUp);
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Ok(i + 1);
    }
    let mut seen = Seen::new();
    loop {
        let (key, next) = key_at(text, i)?;
        if !seen.insert(Key(Cow::Borrowed(key))) {
            return Err(GiveUp);
        }
        i = skip_ws(b, next);
        if b.get(i) != Some(&b':') {
            return Err(GiveUp);
        }
        i = skip_ws(b, i + 1);
        i = skip_ws(b, each(key, i)?);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return Ok(i + 1),
            _ => return Err(GiveUp),
        }
    }
}

/// A frame member as read: its key and its text.
struct Member<'a> {
    key: &'a str,
    raw: &'a str,
}

/// The members of one object, in order (frames and records have a handful: kept inline).
type Members<'a> = SmallVec<[Member<'a>; 8]>;

/// A frame object as read: its members, and what the scan learned of its `params`.
#[derive(Default)]
struct FrameRead<'a> {
    members: Members<'a>,
    params: Option<ParamsFacts<'a>>,
    /// How many closing braces end the line after a `result` that is the frame's last member
    /// (1 for a bare frame, 2 for a capture record's); 0: every `result` is checked as read.
    closers: usize,
    /// Whether `result` was taken unchecked (see [`unchecked_result_end`]).
    unchecked: bool,
}

impl<'a> FrameRead<'a> {
    /// Reads the member `key` whose value starts at `start`; returns the index after it.
    fn member(&mut self, text: &'a str, key: &'a str, start: usize) -> Result<usize, GiveUp> {
        let (raw, end) = if key == "params" {
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
const UNCHECKED_BELOW: usize = hollow::MIN_BODY;

/// Nesting levels an unchecked `result` may use (itself included), so that everything in it
/// stays within [`MAX_DEPTH`] as a member at [`MEMBER_DEPTH`].
const UNCHECKED_LEVELS: usize = MAX_DEPTH - MEMBER_DEPTH;

/// Where a `result` object starting at `start` ends if it is the frame's last member and the
/// frame ends the line (`closers` braces follow it, with whitespace): such a result is read only
/// once, by its typed read, which also checks it ([`wire::parse_unchecked_result_str_into`]),
/// and a line whose result that read does not accept is read again, checked ([`read_checked`]).
/// `None` for any other result: it is checked as it is read.
///
/// The span is found from the end of the line, not by reading the result; if the result was not
/// the last member after all, the span holds more than one value and its typed read fails.
fn unchecked_result_end(text: &str, start: usize, closers: usize) -> Option<usize> {
    let b = text.as_bytes();
    if closers == 0 || b.get(start) != Some(&b'{') {
        return None;
    }
    let mut end = text.trim_end_matches(JSON_WS).len();
    for _ in 0..closers {
        end = end.checked_sub(1)?;
        if b[end] != b'}' {
            return None;
        }
        end = text[..end].trim_end_matches(JSON_WS).len();
    }
    (end > start && b[end - 1] == b'}' && end - start < UNCHECKED_BELOW).then_some(end)
}

/// JSON's whitespace characters.
const JSON_WS: [char; 4] = [' ', '\t', '\n', '\r'];

/// One line read by the direct path: a valid request, notification, success or error response
/// that the strict reader accepts, but for a `result` left unchecked ([`Line::result_unchecked`]).
pub struct Line<'a> {
    /// Bare or capture record.
    pub format: Format,
    /// For captures, the record's members (the frame's slot is `None`), with the values of
    /// the members other than `dir`, to be copied.
    record: Record<'a>,
    /// The frame's members, in order.
    frame: SmallVec<[(&'a str, FrameMember); 8]>,
    /// The envelope, as [`Envelope::of`] gives it.
    pub envelope: Envelope,
    /// The method, as raw JSON text (requests and notifications).
    method: Option<&'a str>,
    /// `params` or `result`, as raw JSON text.
    body: Option<&'a str>,
    params: ParamsFacts<'a>,
    /// Whether `result` is not checked yet (see [`Line::result_unchecked`]).
    unchecked: bool,
    /// The frame object's text (a sub-slice of the line).
    frame_text: &'a str,
    /// The whole line's text.
    text: &'a str,
}

/// A capture record's members: each key, with the value to copy (`None` for the frame).
type Record<'a> = SmallVec<[(&'a str, Option<Copied<'a>>); 4]>;

/// A member the direct path writes back unchanged. (Values are boxed: they are rare, and a
/// [`Line`] is moved a few times on its way; an inline `Value` would triple its size.)
enum Copied<'a> {
    /// Raw text already in the form `serde_json` writes (`"c2s"`, `"2.0"`).
    Verbatim(&'a str),
    /// Anything else, re-written compactly.
    Value(Box<Value>),
}

/// A frame member and how it is written.
enum FrameMember {
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

const KNOWN_FRAME_KEYS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

impl Line<'_> {
    /// Whether the line's `result` is not checked yet: everything else is, and the result is
    /// checked by its typed read ([`translate`] says [`Unwritten::Unchecked`] when that read
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

fn read_with<'s, 'a>(
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
                    (_, Some(raw)) => Some(Copied::Value(Box::new(value_of(raw, 1)?))),
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
fn classify<'s, 'a>(
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
    if get("error").is_some() {
        return classify_error(format, members, frame_text, text, slot);
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
            _ => FrameMember::Other(Box::new(value_of(m.raw, MEMBER_DEPTH)?)),
        };
        line.frame.push((m.key, member));
    }
    Ok(line)
}

/// The text of a JSON string member without escapes (its quotes off), `None` for any other
/// value. Only ever given member text already checked as JSON, so the string has no control
/// characters and ends at its last byte.
fn plain_string(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// A request id read as [`RequestId::from_value`] reads it: plain strings and small
/// non-negative integers by hand, anything else through a `Value` (so `-0`, `1.0` and the
/// like are judged exactly as before).
fn request_id(raw: &str) -> Result<RequestId, GiveUp> {
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

/// An error response: every member but `jsonrpc` is copied as its value, and the envelope is
/// the one [`Envelope::of`] gives for those values (so every fault it finds is
/// left to the general path, which reports it).
fn classify_error<'s, 'a>(
    format: Format,
    members: &Members<'a>,
    frame_text: &'a str,
    text: &'a str,
    slot: &'s mut Option<Line<'a>>,
) -> Result<&'s mut Line<'a>, GiveUp> {
    let mut values = Map::new();
    for m in members {
        values.insert(m.key.to_owned(), value_of(m.raw, MEMBER_DEPTH)?);
    }
    let frame_value = Value::Object(values);
    let envelope = Envelope::of(&frame_value).map_err(|_| GiveUp)?;
    if !matches!(envelope, Envelope::Error { .. }) {
        return Err(GiveUp);
    }
    let Value::Object(values) = frame_value else {
        return Err(GiveUp);
    };
    let frame = members
        .iter()
        .zip(values)
        .map(|(m, (_, v))| match m.key {
            "jsonrpc" => (m.key, FrameMember::Version),
            _ => (m.key, FrameMember::Other(Box::new(v))),
        })
        .collect();
    Ok(slot.insert(Line {
        format,
        record: Record::new(),
        frame,
        envelope,
        method: None,
        body: None,
        params: ParamsFacts::default(),
        unchecked: false,
        frame_text,
        text,
    }))
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

    fn result_member(&self, key: &str) -> Option<Cow<'_, Value>> {
        match (&self.envelope, self.body) {
            (Envelope::Response { .. }, Some(r)) => {
                let mut de = serde_json::Deserializer::from_str(r);
                de.deserialize_map(MemberOf(key)).ok()?.map(Cow::Owned)
            }
            _ => None,
        }
    }

    fn meta_revision(&self) -> Option<Cow<'_, Value>> {
        self.params.meta.revision.as_deref().map(Cow::Borrowed)
    }

    fn task_augmented(&self) -> bool {
        self.params.task
    }

    fn task_id(&self) -> Option<Cow<'_, str>> {
        let raw = self.params.task_id?;
        // Only strings name a task.
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    }
}

/// Reads the member of an object named by its key as a `Value`, and skips the others without
/// building them (the line is already checked: no key repeats).
struct MemberOf<'k>(&'k str);

impl<'de> Visitor<'de> for MemberOf<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == self.0 {
                found = Some(map.next_value()?);
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Reusable buffers of the direct path.
#[derive(Default)]
pub struct Buffers {
    body: String,
    emitted: Vec<u8>,
    /// The client identity last written, with its JSON text (written once per `initialize`,
    /// not once per request).
    identity: Option<(Arc<ClientIdentity>, IdentityText)>,
    /// The client identity's `_meta` entries, lent to each parsed request for its emission.
    lent: LentIdentity,
    /// The output line, newline included, after a successful [`translate`] (with placeholders
    /// where `splices` says).
    line: Vec<u8>,
    /// A large body's long strings, taken out before it is parsed ([`hollow`]).
    hollow: hollow::Hollow,
    /// Where the output line's placeholders are replaced by the input's strings.
    splices: hollow::Splices,
}

impl Buffers {
    /// See [`crate::translate::Translate::with_pass_through`].
    pub fn pass_through(&mut self, min_body: usize, min_string: usize) {
        self.hollow.limits = hollow::Limits {
            min_body,
            min_string,
        };
    }

    /// The output line [`translate`] or [`unchanged`] made of `line`, in pieces (the long
    /// strings of a large body come straight from `line`'s text).
    pub fn output<'a>(&'a self, line: &'a Line<'_>) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.splices.pieces(&self.line, line.text.as_bytes())
    }
}

/// The `_meta` entries of a client identity, owned once and lent to each request that lacks
/// them, so restating the identity costs nothing per request in the usual case: a request
/// without `_meta` is lent the whole map (swapped in for the emission and swapped back out
/// after: no hashing, no allocation); one with a `_meta` of its own gets copies of the entries
/// it lacks.
struct LentIdentity {
    /// The identity the entries were made from (the session's, kept alive so that the same
    /// pointer is the same identity).
    of: Option<Arc<ClientIdentity>>,
    /// `clientInfo` and `clientCapabilities` entries, in that order, where the identity has them.
    entries: Meta,
}

/// How [`LentIdentity::lend`] lent the entries to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lent {
    /// The identity has no entries: the request is left as it is (no `_meta` made for it).
    Nothing,
    /// The request had no `_meta`: the entries are its `_meta` until they are taken back.
    Whole,
    /// The request had a `_meta`: copies of the entries it lacked were added to its end.
    Copied,
}

impl LentIdentity {
    /// The entries of `identity` (made anew only when it changed).
    fn entries_of(&mut self, identity: &Arc<ClientIdentity>) -> &mut Self {
        if !self.of.as_ref().is_some_and(|of| Arc::ptr_eq(of, identity)) {
            self.entries = Meta(
                [
                    (keys::CLIENT_INFO, &identity.client_info),
                    (keys::CLIENT_CAPABILITIES, &identity.capabilities),
                ]
                .into_iter()
                .filter_map(|(key, v)| Some((key.to_owned(), v.clone()?)))
                .collect(),
            );
            self.of = Some(identity.clone());
        }
        self
    }

    /// Gives `request` the entries its `_meta` lacks (at its end, as `convert::add_identity`
    /// adds them).
    fn lend(&mut self, request: &mut ClientRequest) -> Lent {
        if self.entries.is_empty() {
            return Lent::Nothing;
        }
        if request.meta().is_none() {
            std::mem::swap(request.meta_mut(), &mut self.entries);
            return Lent::Whole;
        }
        let meta = request.meta_mut();
        for (key, value) in self.entries.iter() {
            if !meta.contains_key(key) {
                meta.insert(key.clone(), value.clone());
            }
        }
        Lent::Copied
    }

    /// Takes lent entries back from `request` (copies stay: the request is not emitted again).
    fn take_back(&mut self, request: &mut ClientRequest, lent: Lent) {
        if lent == Lent::Whole {
            std::mem::swap(request.meta_mut(), &mut self.entries);
        }
    }
}

impl Default for LentIdentity {
    fn default() -> Self {
        LentIdentity {
            of: None,
            entries: Meta::new(),
        }
    }
}

/// The `_meta` entries of a client identity as JSON text (`"key":value`).
#[derive(Debug, Default)]
struct IdentityText {
    client_info: Option<String>,
    capabilities: Option<String>,
}

impl IdentityText {
    fn of(identity: &ClientIdentity) -> Result<Self, GiveUp> {
        let entry = |key: &str, v: &Option<Value>| -> Result<Option<String>, GiveUp> {
            let Some(v) = v else { return Ok(None) };
            let mut text = serde_json::to_string(key).map_err(|_| GiveUp)?;
            text.push(':');
            text.push_str(&serde_json::to_string(v).map_err(|_| GiveUp)?);
            Ok(Some(text))
        };
        Ok(IdentityText {
            client_info: entry(keys::CLIENT_INFO, &identity.client_info)?,
            capabilities: entry(keys::CLIENT_CAPABILITIES, &identity.capabilities)?,
        })
    }
}

/// Params from this size on are parsed from the frame's own text (see [`body_text`]).
const LARGE_PARAMS: usize = 64 * 1024;

/// The body text the boundary parses, borrowed from the line where it can be (no copy of a body
/// that may be tens of megabytes): for responses the `result` text; for requests and
/// notifications `{"method":…,"params":…}` built in `buf`, with the client identity added
/// where `convert::add_identity` adds it, or, when nothing is added and the params are large,
/// the frame's own text. That reads as the same body: a request or notification type has
/// exactly the members `method` and `params` and ignores any other (`jsonrpc`, `id`, unknown
/// frame members), and its errors and mandates concern those two alone.
fn body_text<'t: 'r, 'b: 'r, 'r>(
    line: &Line<'t>,
    identity: Option<&IdentityText>,
    buf: &'b mut String,
) -> Result<&'r str, GiveUp> {
    buf.clear();
    let Some(method) = line.method else {
        return line.body.ok_or(GiveUp);
    };
    // The `_meta` entries to add, as `"key":value` text.
    let mut add = String::new();
    if let Some(identity) = identity {
        let meta = &line.params.meta;
        let entries = [
            (&identity.client_info, meta.has_client_info),
            (&identity.capabilities, meta.has_capabilities),
        ];
        for (entry, present) in entries {
            let Some(entry) = entry else { continue };
            if present {
                continue;
            }
            if !add.is_empty() {
                add.push(',');
            }
            add.push_str(entry);
        }
    }
    if add.is_empty() && line.body.is_some_and(|p| p.len() >= LARGE_PARAMS) {
        return Ok(line.frame_text);
    }
    buf.push_str("{\"method\":");
    buf.push_str(method);
    match line.body {
        None if add.is_empty() => {}
        None => {
            buf.push_str(",\"params\":{\"_meta\":{");
            buf.push_str(&add);
            buf.push_str("}}");
        }
        Some(p) => {
            buf.push_str(",\"params\":");
            let p: &str = p;
            let meta = &line.params.meta;
            if add.is_empty() {
                buf.push_str(p);
            } else if let Some(m) = meta.raw {
                if !m.starts_with('{') {
                    return Err(GiveUp);
                }
                // `_meta` is a sub-slice of `params`: add the entries before its `}`.
                let start = (m.as_ptr() as usize)
                    .checked_sub(p.as_ptr() as usize)
                    .ok_or(GiveUp)?;
                let end = start + m.len();
                if end > p.len() {
                    return Err(GiveUp);
                }
                buf.push_str(&p[..end - 1]);
                if meta.len > 0 {
                    buf.push(',');
                }
                buf.push_str(&add);
                buf.push('}');
                buf.push_str(&p[end..]);
            } else if line.params.len == 0 {
                buf.push_str("{\"_meta\":{");
                buf.push_str(&add);
                buf.push_str("}}");
            } else {
                buf.push_str(&p[..p.len() - 1]);
                buf.push_str(",\"_meta\":{");
                buf.push_str(&add);
                buf.push_str("}}");
            }
        }
    }
    buf.push('}');
    Ok(buf)
}

/// Where the boundary's verdict on a body is kept when it is the one the general path reaches
/// (the direct path then gives up with it, see [`Unwritten::Failed`]).
type Verdict = Option<Failure>;

/// A parse failure: kept as the general path reports it (`parse_str_as` fails exactly as
/// `parse_as` does on the same text; a syntax error cannot arise from a checked body, and is
/// left to the general path all the same).
fn parse_failed(e: ParseError, verdict: &mut Verdict) -> GiveUp {
    if e.kind != ParseErrorKind::Syntax {
        *verdict = Some(crate::boundary::invalid(e));
    }
    GiveUp
}

/// An emission failure: a refusal is kept as the general path reports it (the shaping
/// serializer refuses alike whatever it writes into); a failure of a value's own `Serialize`
/// is left to the general path.
fn emit_failed(e: EmitError, verdict: &mut Verdict) -> GiveUp {
    if e.kind != EmitErrorKind::Serialization {
        *verdict = Some(crate::boundary::refused(e));
    }
    GiveUp
}

/// Parses `text` as a `T` at `from` and emits it for `to` into `out`. (The body is parsed into
/// a slot here and written from there: a typed body is a few hundred bytes, and every layer it
/// were returned through would copy it.)
fn through<T: WireParse + WireBody + Restate>(
    text: &str,
    from: ProtocolVersion,
    to: ProtocolVersion,
    out: &mut Vec<u8>,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    let mut slot: Option<T> = None;
    wire::parse_str_into(text, from, &mut slot).map_err(|e| parse_failed(e, verdict))?;
    let model = slot.as_mut().ok_or(GiveUp)?;
    model.restate(to);
    wire::serialize_for_vec(model, to, out).map_err(|e| emit_failed(e, verdict))
}

/// Parses the body at `from` and emits it for `to` into `out`; a client request is lent the
/// `restated` identity entries it lacks for its emission. The boundary's verdict on a body it
/// does not write goes into `verdict`. An `unchecked` result is read by the typed read that
/// checks it; when that read does not decide, this gives up with no verdict.
#[allow(clippy::too_many_arguments)]
fn emit(
    kind: BodyKind<'_>,
    text: &str,
    unchecked: bool,
    from: ProtocolVersion,
    to: ProtocolVersion,
    restated: Option<&mut LentIdentity>,
    out: &mut Vec<u8>,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    match kind {
        BodyKind::Request(C2s) if let Some(identity) = restated => {
            let mut slot: Option<ClientRequest> = None;
            wire::parse_str_into(text, from, &mut slot).map_err(|e| parse_failed(e, verdict))?;
            let request = slot.as_mut().ok_or(GiveUp)?;
            request.restate(to);
            let lent = identity.lend(request);
            let emitted = wire::serialize_for_vec(request, to, out);
            identity.take_back(request, lent);
            emitted.map_err(|e| emit_failed(e, verdict))
        }
        BodyKind::Request(C2s) => through::<ClientRequest>(text, from, to, out, verdict),
        BodyKind::Request(S2c) => through::<ServerRequest>(text, from, to, out, verdict),
        BodyKind::Notification(C2s) => through::<ClientNotification>(text, from, to, out, verdict),
        BodyKind::Notification(S2c) => through::<ServerNotification>(text, from, to, out, verdict),
        BodyKind::Result(_, answering) => {
            let mut slot = None;
            let parsed = match unchecked {
                false => wire::parse_result_str_into(answering, text, from, &mut slot),
                true => wire::parse_unchecked_result_str_into(
                    answering,
                    text,
                    UNCHECKED_LEVELS,
                    from,
                    &mut slot,
                )
                .ok_or(GiveUp)?,
            };
            parsed.map_err(|e| parse_failed(e, verdict))?;
            match slot.as_mut().ok_or(GiveUp)? {
                MethodResult::Server(r) => {
                    r.restate(to);
                    wire::serialize_for_vec(r, to, out)
                }
                MethodResult::Client(r) => {
                    r.restate(to);
                    wire::serialize_for_vec(r, to, out)
                }
                _ => return Err(GiveUp),
            }
            .map_err(|e| emit_failed(e, verdict))
        }
    }
}

/// Each key (with its quotes) and value text of a compact JSON object, in order.
type SplitMembers<'t> = SmallVec<[(&'t [u8], &'t [u8]); 4]>;

/// The top-level members of a compact JSON object written by `serde_json`: each key with its
/// quotes, and the value's text.
fn split_members(text: &[u8]) -> Option<SplitMembers<'_>> {
    let inner = text.strip_prefix(b"{")?.strip_suffix(b"}")?;
    let mut out = SmallVec::new();
    let mut i = 0;
    while i < inner.len() {
        let key_end = string_end(inner, i)?;
        let key = &inner[i..key_end];
        if inner.get(key_end) != Some(&b':') {
            return None;
        }
        let start = key_end + 1;
        let end = value_end(inner, start)?;
        out.push((key, &inner[start..end]));
        i = end;
        if i < inner.len() {
            if inner[i] != b',' {
                return None;
            }
            i += 1;
        }
    }
    Some(out)
}

/// The end (exclusive) of the JSON string starting at `at`.
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        // The next quote or backslash (compact output has no control characters in strings).
        i = scan::plain_run_end(text, i);
        match *text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The end (exclusive) of the compact JSON value starting at `at`.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i = string_end(text, i)?;
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some(i)
}

fn push_key(out: &mut Vec<u8>, key: &str) -> Result<(), GiveUp> {
    serde_json::to_writer(&mut *out, key).map_err(|_| GiveUp)?;
    out.push(b':');
    Ok(())
}

fn push_value(out: &mut Vec<u8>, value: &Value) -> Result<(), GiveUp> {
    serde_json::to_writer(&mut *out, value).map_err(|_| GiveUp)
}

/// Where the emitted body goes in the output frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The body is written where it lands: a response's `result`, or a request's or
    /// notification's `method` and `params` when they end the frame, in that order. A request
    /// or notification body emits `method` first and then, if any, `params` (the members of
    /// every request and notification type), so its members are the frame's last ones, in the
    /// order the split layout would give them.
    InPlace,
    /// The body is emitted first and its members placed one by one ([`write_split_frame`]).
    Split,
}

impl Layout {
    fn of(line: &Line<'_>) -> Layout {
        if matches!(line.envelope, Envelope::Response { .. }) {
            return Layout::InPlace;
        }
        // From the first body member on: each member's key if it is a body member.
        let mut keys = line
            .frame
            .iter()
            .skip_while(|(_, m)| !matches!(m, FrameMember::Body))
            .map(|(key, m)| matches!(m, FrameMember::Body).then_some(*key));
        let in_place = matches!(
            (keys.next(), keys.next(), keys.next()),
            (Some(Some("method")), None | Some(Some("params")), None)
        );
        if in_place {
            Layout::InPlace
        } else {
            Layout::Split
        }
    }
}

/// The body of the output frame: emitted while the frame is written, or already emitted.
enum Body<'e> {
    Emit(&'e mut dyn FnMut(&mut Vec<u8>) -> Result<(), GiveUp>),
    Emitted(&'e [u8]),
}

/// Writes the frame around the body, in the input's member order (as `convert::put_back`
/// places it).
fn write_frame(line: &Line<'_>, body: &mut Body<'_>, out: &mut Vec<u8>) -> Result<(), GiveUp> {
    let emit = match body {
        Body::Emit(emit) => emit,
        Body::Emitted(emitted) => return write_split_frame(line, emitted, out),
    };
    out.push(b'{');
    let mut first = true;
    for (key, member) in &line.frame {
        match member {
            FrameMember::Body => {
                // The body object's `{` stands in for the separator and its `}` closes the
                // frame: `method` and `params` are the last members, after `jsonrpc` at least
                // (every frame the direct path reads has it).
                if first {
                    return Err(GiveUp);
                }
                let at = out.len();
                emit(out)?;
                if !out[at..].starts_with(b"{\"method\":") {
                    return Err(GiveUp);
                }
                out[at] = b',';
                return Ok(());
            }
            FrameMember::Result => {
                separate(out, &mut first);
                out.extend_from_slice(b"\"result\":");
                emit(out)?;
            }
            other => write_envelope_member(line, key, other, &mut first, out)?,
        }
    }
    out.push(b'}');
    Ok(())
}

/// A `,` before every member but the first.
fn separate(out: &mut Vec<u8>, first: &mut bool) {
    if !std::mem::take(first) {
        out.push(b',');
    }
}

/// Writes a frame member that is not the body: `jsonrpc`, `id`, or one copied.
fn write_envelope_member(
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

/// [`write_frame`] for a request or notification body already emitted (responses are always
/// written in place): its members are placed where the frame has them, and members the body
/// gained are appended.
fn write_split_frame(line: &Line<'_>, emitted: &[u8], out: &mut Vec<u8>) -> Result<(), GiveUp> {
    let body_members = split_members(emitted).ok_or(GiveUp)?;
    let emitted_member = |k: &[u8]| {
        body_members
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| *v)
    };
    out.push(b'{');
    let mut first = true;
    for (key, member) in &line.frame {
        match member {
            FrameMember::Body => {
                let quoted = if *key == "method" {
                    &b"\"method\""[..]
                } else {
                    &b"\"params\""[..]
                };
                if let Some(v) = emitted_member(quoted) {
                    separate(out, &mut first);
                    out.extend_from_slice(quoted);
                    out.push(b':');
                    out.extend_from_slice(v);
                }
            }
            // A `result` member is not expected here (`write_envelope_member` gives up).
            other => write_envelope_member(line, key, other, &mut first, out)?,
        }
    }
    // Members the body gained are appended (a materialized `params`), in body order.
    let frame_has = |name: &str| line.frame.iter().any(|(key, _)| *key == name);
    for (k, v) in &body_members {
        let name = k.get(1..k.len().saturating_sub(1)).unwrap_or_default();
        let in_frame = match name {
            b"method" | b"params" => line
                .frame
                .iter()
                .any(|(key, m)| key.as_bytes() == name && matches!(m, FrameMember::Body)),
            _ => {
                // A body member that could collide with an envelope member: not here.
                if KNOWN_FRAME_KEYS.iter().any(|n| n.as_bytes() == name)
                    || std::str::from_utf8(name).map_or(true, frame_has)
                {
                    return Err(GiveUp);
                }
                false
            }
        };
        if !in_frame {
            separate(out, &mut first);
            out.extend_from_slice(k);
            out.push(b':');
            out.extend_from_slice(v);
        }
    }
    out.push(b'}');
    Ok(())
}

/// Why [`translate`] wrote nothing.
#[derive(Debug)]
pub enum Unwritten {
    /// The boundary refused the body at the target or found it invalid at the source, with the
    /// failure the general path reports for the same line.
    Failed(Failure),
    /// The line's unchecked `result` ([`Line::result_unchecked`]) was not accepted by its typed
    /// read: read the line again with [`read_checked`].
    Unchecked,
    /// Not for the direct path: the general path takes the line (and reports what went wrong).
    GaveUp,
}

/// Translates one line read by [`read`] into `buffers.line` (newline included).
pub fn translate(
    line: &Line<'_>,
    kind: BodyKind<'_>,
    from: ProtocolVersion,
    to: ProtocolVersion,
    identity: Option<&Arc<ClientIdentity>>,
    buffers: &mut Buffers,
) -> Result<(), Unwritten> {
    let mut verdict = None;
    translate_into(line, kind, from, to, identity, buffers, &mut verdict).map_err(|GiveUp| {
        match (verdict, line.unchecked) {
            (Some(failure), _) => Unwritten::Failed(failure),
            // Whatever went wrong, the result may not be JSON the general path accepts.
            (None, true) => Unwritten::Unchecked,
            (None, false) => Unwritten::GaveUp,
        }
    })
}

fn translate_into(
    line: &Line<'_>,
    kind: BodyKind<'_>,
    from: ProtocolVersion,
    to: ProtocolVersion,
    identity: Option<&Arc<ClientIdentity>>,
    buffers: &mut Buffers,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    let identity = identity.filter(|_| {
        to.era() == Era::Stateless && kind == BodyKind::Request(Direction::ClientToServer)
    });
    // The general path adds the identity to the body before parsing it (`convert::add_identity`),
    // and so does the direct path wherever that can change the verdict: the identity goes into
    // the text first. Below 2026-07-28 a request that has `params` has an open `_meta` map in
    // them, where the entries change nothing the parse decides, so they are lent to the parsed
    // request instead ([`LentIdentity`]), not parsed again from text. A request without
    // `params` gets them materialized, which can (`tools/call` then lacks `params.name`, not
    // `params`); a 2026-07-28 source is checked for its `_meta` mandates while it is parsed.
    let (spliced, restated) = match identity {
        Some(id) if from.era() != Era::Stateless && line.body.is_some() => (None, Some(id)),
        other => (other, None),
    };
    let Buffers {
        body,
        emitted,
        identity: cached,
        lent,
        line: out,
        hollow,
        splices,
    } = buffers;
    splices.clear();
    let restated = restated.map(|id| lent.entries_of(id));
    let identity = match spliced {
        None => None,
        Some(id) => {
            if cached.as_ref().is_none_or(|(c, _)| !Arc::ptr_eq(c, id)) {
                *cached = Some((id.clone(), IdentityText::of(id)?));
            }
            cached.as_ref().map(|(_, text)| text)
        }
    };
    let text = body_text(line, identity, body)?;
    let mut restated = restated;
    // A large body's long strings stay in the line (see [`hollow`]); whatever goes wrong with
    // the hollowed body, the whole one is read as usual. (An unchecked result is never
    // hollowed: its strings must be read to be checked.)
    let target = Target { from, to, kind };
    if let Some(hollowed) = hollow.of(line.text, text).filter(|_| !line.unchecked) {
        let written = body_into_line(
            line,
            target,
            hollowed,
            restated.as_deref_mut(),
            emitted,
            out,
            verdict,
        );
        match written {
            Ok(()) if hollow.splices(out, splices) => return Ok(()),
            // The boundary's verdict stands unless it quotes a placeholder: a long string
            // decides nothing there (the premise of hollowing), so a refused or invalid large
            // frame costs no more than a translated one.
            Err(GiveUp)
                if verdict
                    .as_ref()
                    .is_some_and(|f| !hollow.quoted_in(f.reason())) =>
            {
                return Err(GiveUp);
            }
            _ => *verdict = None,
        }
    }
    body_into_line(line, target, text, restated, emitted, out, verdict)
}

/// Where a body goes: its kind, and the revisions it is read at and written for.
#[derive(Clone, Copy)]
struct Target<'k> {
    from: ProtocolVersion,
    to: ProtocolVersion,
    kind: BodyKind<'k>,
}

/// Emits the body `text` of `line` for the target and writes the output line around it.
fn body_into_line(
    line: &Line<'_>,
    target: Target<'_>,
    text: &str,
    mut restated: Option<&mut LentIdentity>,
    emitted: &mut Vec<u8>,
    out: &mut Vec<u8>,
    verdict: &mut Verdict,
) -> Result<(), GiveUp> {
    let Target { from, to, kind } = target;
    let unchecked = line.unchecked;
    let mut emit_body = |out: &mut Vec<u8>| {
        let restated = restated.as_deref_mut();
        emit(kind, text, unchecked, from, to, restated, out, verdict)
    };
    // The emitted body goes straight into the output when it lands as one piece; otherwise it
    // is emitted on its own and its members are placed one by one.
    let mut placed = match Layout::of(line) {
        Layout::InPlace => Body::Emit(&mut emit_body),
        Layout::Split => {
            emitted.clear();
            emit_body(emitted)?;
            Body::Emitted(emitted)
        }
    };
    write_line(line, &mut placed, out)
}

/// Writes a line the boundary leaves as it is (an error response: the same at every revision)
/// into `buffers.line`, newline included, as the general path writes it; `false` means give up.
pub fn unchanged(line: &Line<'_>, buffers: &mut Buffers) -> bool {
    let mut no_body = |_: &mut Vec<u8>| Err(GiveUp);
    buffers.splices.clear();
    write_line(line, &mut Body::Emit(&mut no_body), &mut buffers.line).is_ok()
}

/// Writes the output line (record, frame around `body`, newline) into `out`.
fn write_line(line: &Line<'_>, body: &mut Body<'_>, out: &mut Vec<u8>) -> Result<(), GiveUp> {
    let placed = body;
    out.clear();
    match line.format {
        Format::Bare => write_frame(line, placed, out)?,
        Format::Capture(_) => {
            out.push(b'{');
            for (i, (key, copied)) in line.record.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_key(out, key)?;
                match copied {
                    None => write_frame(line, placed, out)?,
                    Some(Copied::Verbatim(s)) => out.extend_from_slice(s.as_bytes()),
                    Some(Copied::Value(v)) => push_value(out, v)?,
                }
            }
            out.push(b'}');
        }
    }
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`read`] into a slot of its own.
    fn read_owned(bytes: &[u8]) -> Option<Line<'_>> {
        let mut slot = None;
        read(bytes, &mut slot)?;
        slot
    }

    #[test]
    fn members_are_read_as_the_deserializer_reads_them() {
        // Vouched for by the scanner: read without a deserializer.
        for text in [
            r#""c2s""#,
            r#""""#,
            r#""a\"b""#,
            "0",
            "-7",
            "1.5",
            "12345678901234567890123",
            "true",
            "null",
            "[1,{}]",
        ] {
            let framed = format!("{text},");
            assert_eq!(
                scan::vouched_end(&framed, 0, MEMBER_DEPTH),
                Some(text.len()),
                "{text}"
            );
            assert_eq!(
                checked_at(&framed, 0).ok(),
                Some((text, text.len())),
                "{text}"
            );
        }
        // Whatever the scanner leaves, the deserializer judges as before.
        assert!(checked_at("01", 0).is_err());
        assert!(checked_at(r#"{"a":1,"a":2}"#, 0).is_err());
        assert_eq!(checked_at("1e3,", 0).ok(), Some(("1e3", 3)));
        assert_eq!(
            checked_at(r#"{"\u0061":1},"#, 0).ok(),
            Some((r#"{"\u0061":1}"#, 12))
        );
    }

    #[test]
    fn params_are_read_alike_by_the_scanner_and_the_deserializer() {
        for text in [
            r#"{}"#,
            r#"{"name":"x","_meta":{"progressToken":1}}"#,
            r#"{ "_meta" : { "io.modelcontextprotocol/protocolVersion" : "2026-07-28", "io.modelcontextprotocol/clientInfo":{} } , "a":[1] }"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}},"b":null}"#,
        ] {
            let (fast, fast_raw, fast_end) = scanned_params(text, 0).expect(text);
            let (CheckedParams(slow), slow_raw, slow_end) =
                value_at::<CheckedParams<'_>>(text, 0).expect(text);
            assert_eq!((fast_raw, fast_end), (slow_raw, slow_end), "{text}");
            assert_eq!(fast.len, slow.len, "{text}");
            let (f, s) = (&fast.meta, &slow.meta);
            assert_eq!(f.raw, s.raw, "{text}");
            assert_eq!(f.len, s.len, "{text}");
            assert_eq!(f.revision, s.revision, "{text}");
            assert_eq!(f.has_client_info, s.has_client_info, "{text}");
            assert_eq!(f.has_capabilities, s.has_capabilities, "{text}");
        }
        // Not vouched for: the deserializer decides (and refuses or accepts as before).
        for (text, accepted) in [
            (r#"{"_meta":1}"#, false),
            (r#"{"a":1,"a":2}"#, false),
            (r#"{"\u0061":1}"#, true),
            (r#"{"_meta":{"x":1e2}}"#, true),
        ] {
            assert!(scanned_params(text, 0).is_none(), "{text}");
            assert_eq!(params_at(text, 0).is_ok(), accepted, "{text}");
        }
    }

    #[test]
    fn results_that_end_the_line_are_left_to_their_typed_read() {
        let unchecked = |text: &str| read_owned(text.as_bytes()).map(|l| l.result_unchecked());
        for (text, left) in [
            (
                r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{"a":[1]}}}"#,
                true,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"result":{"a":{}} } "#, true),
            (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, true),
            // The last member, as far as the end of the line tells: its typed read finds out.
            (r#"{"jsonrpc":"2.0","id":1,"result":{},"x":{}}"#, true),
            // Not the last member, or not a result: checked as read.
            (
                r#"{"dir":"s2c","frame":{"result":{"a":1},"jsonrpc":"2.0","id":1}}"#,
                false,
            ),
            (
                r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{}},"t":1}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
                false,
            ),
        ] {
            assert_eq!(unchecked(text), Some(left), "{text}");
            let mut slot = None;
            let checked = read_checked(text.as_bytes(), &mut slot).map(Line::result_unchecked);
            assert_eq!(checked, Some(false), "{text}");
        }
        // A span that swallowed members the read needs is read again, checked.
        let text = r#"{"result":{"a":1},"jsonrpc":"2.0","id":1,"x":{}}"#;
        assert_eq!(unchecked(text), Some(false));
        // Large results are checked as read (their long strings pass through uncopied).
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"s":"{}"}}}}"#,
            "x".repeat(UNCHECKED_BELOW)
        );
        assert_eq!(unchecked(&big), Some(false));
    }

    #[test]
    fn bodies_that_end_the_frame_are_emitted_in_place() {
        for (text, layout) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
                Layout::InPlace,
            ),
            (r#"{"jsonrpc":"2.0","method":"m"}"#, Layout::InPlace),
            (r#"{"id":1,"result":{},"jsonrpc":"2.0"}"#, Layout::InPlace),
            (
                r#"{"jsonrpc":"2.0","params":{},"method":"m"}"#,
                Layout::Split,
            ),
            (r#"{"jsonrpc":"2.0","method":"m","id":1}"#, Layout::Split),
            (r#"{"method":"m","jsonrpc":"2.0"}"#, Layout::Split),
            (
                r#"{"jsonrpc":"2.0","method":"m","params":{},"x":1}"#,
                Layout::Split,
            ),
        ] {
            let line = read_owned(text.as_bytes()).expect(text);
            assert_eq!(Layout::of(&line), layout, "{text}");
        }
    }

    #[test]
    fn long_strings_of_a_large_body_are_not_copied() {
        let data = "QUJD".repeat(32 * 1024);
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{data}","mimeType":"image/png"}}]}}}}"#
        );
        let line = read_owned(text.as_bytes()).unwrap();
        let mut buffers = Buffers::default();
        let kind = BodyKind::Result(
            Direction::ServerToClient,
            mcp_wire::wire::ResultFor::method("tools/call"),
        );
        for to in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let from = ProtocolVersion::V2025_11_25;
            translate(&line, kind, from, to, None, &mut buffers).unwrap();
            // The written line holds a placeholder, not the data; the output holds the data.
            assert!(buffers.line.len() < 1024, "{to}");
            let pieces: Vec<&[u8]> = buffers.output(&line).collect();
            assert_eq!(pieces.len(), 3, "{to}");
            assert_eq!(pieces[1], format!("\"{data}\"").as_bytes());
            let out: Vec<u8> = pieces.concat();
            let written: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(written["result"]["content"][0]["data"], data.as_str());
        }
        // A small body is written whole.
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let line = read_owned(text.as_bytes()).unwrap();
        let from = ProtocolVersion::V2025_11_25;
        translate(&line, kind, from, from, None, &mut buffers).unwrap();
        assert_eq!(buffers.output(&line).count(), 1);
    }

    #[test]
    fn compact_objects_split_into_members() {
        let m =
            split_members(br#"{"method":"a\"b","params":{"x":[1,{"y":"}"}],"z":null}}"#).unwrap();
        assert_eq!(
            m.as_slice(),
            [
                (&br#""method""#[..], &br#""a\"b""#[..]),
                (&br#""params""#[..], &br#"{"x":[1,{"y":"}"}],"z":null}"#[..]),
            ]
        );
        assert!(split_members(b"{}").unwrap().is_empty());
        assert_eq!(split_members(b"{\"a\":1"), None);
        // Escapes at the ends of strings, and strings that never end.
        let m = split_members(br#"{"k\\":"\\","v":"\""}"#).unwrap();
        assert_eq!(
            m.as_slice(),
            [
                (&br#""k\\""#[..], &br#""\\""#[..]),
                (&br#""v""#[..], &br#""\"""#[..])
            ]
        );
        assert_eq!(split_members(br#"{"k":"ab\"}"#), None);
        assert_eq!(split_members(br#"{"k":"ab\}"#), None);
    }

    #[test]
    fn lines_the_general_path_must_judge_are_given_up() {
        for bad in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"k":1,"k":1}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":1E400}}"#,
            br#"{"jsonrpc":"2.0","id":true,"method":"x"}"#,
            // Error responses the envelope refuses: not an object, no message.
            br#"{"jsonrpc":"2.0","id":1,"error":"m"}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x"} x"#,
            br#"{"dir":"up","frame":{"jsonrpc":"2.0","method":"x"}}"#,
            br#"{"frame":{"jsonrpc":"2.0","method":"x"}}"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
            // Bad UTF-8 deep in lines long enough for the vector check: an encoded surrogate,
            // an overlong slash, a sequence cut off at the line's end.
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\xed\xa0\x80\"}}",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\xc0\xaf\"}}",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\"}}\xe2\x82",
            // Duplicates among the keys held inline and beyond them.
            br#"{"jsonrpc":"2.0","method":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"a":7}"#,
            br#"{"jsonrpc":"2.0","method":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"g":8}"#,
            br#"{"jsonrpc":"2.0","method":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"h":9}"#,
            br#"{"jsonrpc":"2.0","method":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"p":17}"#,
            // Scalars the fast reader leaves to the deserializer, which refuses them.
            br#"{"jsonrpc":"2.0","id":01,"method":"x"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","n":tru}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}",
        ] {
            assert!(read_owned(bad).is_none(), "{}", String::from_utf8_lossy(bad));
        }
        // An error response without `id` is one with an unknown id (the crate's rule), read here.
        let no_id = read_owned(br#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}"#).unwrap();
        assert_eq!(no_id.envelope, Envelope::Error { id: None, code: 1 });
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":{}{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        assert!(read_owned(deep.as_bytes()).is_none());
        // Many distinct keys are fine.
        assert!(
            read_owned(br#"{"jsonrpc":"2.0","method":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}"#)
                .is_some()
        );
    }

    #[test]
    fn meta_facts_are_read_while_checking() {
        let l = read_owned(br#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{}}}}}"#).unwrap();
        assert_eq!(l.format, Format::Capture(Direction::ClientToServer));
        assert_eq!(
            l.envelope,
            Envelope::Request {
                id: RequestId::String("a".into()),
                method: "tools/list".into()
            }
        );
        assert_eq!(
            l.meta_revision().as_deref(),
            Some(&Value::from("2026-07-28"))
        );
        assert!(l.params.meta.has_client_info && !l.params.meta.has_capabilities);
    }

    #[test]
    fn a_result_member_is_read_as_the_parsed_frame_gives_it() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t-1","status":"working"},"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"task":{}}}"#,
        ];
        for text in lines {
            let line = read_owned(text.as_bytes()).expect(text);
            let frame: Value = serde_json::from_str(text).unwrap();
            for key in ["protocolVersion", "task", "capabilities", "absent"] {
                assert_eq!(
                    Evidence::result_member(&line, key),
                    Evidence::result_member(&frame, key),
                    "{key} of {text}"
                );
            }
        }
        let line = read_owned(lines[1].as_bytes()).unwrap();
        assert_eq!(
            Evidence::result_member(&line, "task").as_deref(),
            Some(&serde_json::json!({"taskId": "t-1", "status": "working"}))
        );
    }

    #[test]
    fn identity_entries_are_lent_and_taken_back() {
        let id = Arc::new(ClientIdentity {
            client_info: Some(serde_json::json!({"name": "c", "version": "1"})),
            capabilities: Some(serde_json::json!({"roots": {}})),
        });
        let both = serde_json::json!({
            keys::CLIENT_INFO: {"name": "c", "version": "1"},
            keys::CLIENT_CAPABILITIES: {"roots": {}}
        });
        let mut lent = LentIdentity::default();
        let parse = |text: &str| -> ClientRequest { serde_json::from_str(text).unwrap() };
        let meta_of =
            |r: &ClientRequest| serde_json::to_value(r).unwrap()["params"]["_meta"].clone();
        for _ in 0..2 {
            // No params: both entries are its `_meta`, in order, and come back whole.
            let mut r = parse(r#"{"method":"tools/list"}"#);
            let how = lent.entries_of(&id).lend(&mut r);
            assert_eq!(how, Lent::Whole);
            assert_eq!(meta_of(&r), both);
            lent.take_back(&mut r, how);
            assert!(r.meta().is_some_and(|m| m.is_empty()));
            assert_eq!(Value::Object(lent.entries.0.clone()), both);
            // A request that states its own client info keeps it; capabilities are added at
            // the end of its `_meta`.
            let mut r = parse(
                r#"{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1,"io.modelcontextprotocol/clientInfo":{"name":"own"}}}}"#,
            );
            let how = lent.entries_of(&id).lend(&mut r);
            assert_eq!(how, Lent::Copied);
            assert_eq!(
                meta_of(&r),
                serde_json::json!({
                    "progressToken": 1,
                    keys::CLIENT_INFO: {"name": "own"},
                    keys::CLIENT_CAPABILITIES: {"roots": {}}
                })
            );
            let keys_in_order: Vec<_> = r.meta().unwrap().keys().cloned().collect();
            assert_eq!(
                keys_in_order.last().map(String::as_str),
                Some(keys::CLIENT_CAPABILITIES)
            );
            lent.take_back(&mut r, how);
            // The entries stay whole for the next request.
            assert_eq!(Value::Object(lent.entries.0.clone()), both);
        }
        // An identity with no entries lends nothing: no `_meta` is made.
        let none = Arc::new(ClientIdentity {
            client_info: None,
            capabilities: None,
        });
        let mut r = parse(r#"{"method":"tools/call","params":{"name":"x"}}"#);
        assert_eq!(lent.entries_of(&none).lend(&mut r), Lent::Nothing);
        assert!(r.meta().is_none());
        // A new identity replaces the entries.
        let other = Arc::new(ClientIdentity {
            client_info: None,
            capabilities: Some(serde_json::json!({})),
        });
        let mut r = parse(r#"{"method":"tools/list"}"#);
        assert_eq!(lent.entries_of(&other).lend(&mut r), Lent::Whole);
        assert_eq!(
            meta_of(&r),
            serde_json::json!({keys::CLIENT_CAPABILITIES: {}})
        );
    }

    #[test]
    fn identity_is_spliced_into_the_body_text() {
        let id = ClientIdentity {
            client_info: Some(serde_json::json!({"name":"c"})),
            capabilities: Some(serde_json::json!({})),
        };
        let mut buf = String::new();
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
                r#"{"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ }}"#,
                r#"{"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1 }}"#,
                r#"{"method":"m","params":{"a":1 ,"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":1},"b":2}}"#,
                r#"{"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":1,"io.modelcontextprotocol/clientCapabilities":{}},"b":2}}"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{}}}"#,
                r#"{"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ),
        ];
        for (input, want) in cases {
            let l = read_owned(input.as_bytes()).unwrap();
            let text = IdentityText::of(&id).unwrap();
            assert_eq!(
                body_text(&l, Some(&text), &mut buf).unwrap(),
                want,
                "{input}"
            );
        }
    }
}
