//! Checking a body's text for what the strict reader refuses (repeated keys, nesting) without
//! building it, and reading the few facts of `params` and `_meta` the direct path needs.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use smallvec::SmallVec;

use mcp_wire::model::meta::keys;

use super::{GiveUp, MAX_DEPTH};

/// An object key, borrowed from the line unless it had escapes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub(super) struct Key<'a>(#[serde(borrow)] pub(super) Cow<'a, str>);

/// The keys seen in one object, for the duplicate check (no allocation for small objects, and
/// nothing written before a key arrives: the envelope readers make one per object they read).
#[derive(Default)]
pub(super) struct Seen<'a>(SmallVec<[Key<'a>; 16]>);

impl<'a> Seen<'a> {
    /// Adds `key`; `false` if it was already there.
    pub(super) fn insert(&mut self, key: Key<'a>) -> bool {
        let new = !self.0.contains(&key);
        if new {
            self.0.push(key);
        }
        new
    }
}

/// Checks a value the way the strict reader would accept it (no duplicate key at any depth,
/// bounded nesting, numbers in range), building nothing.
#[derive(Clone, Copy)]
pub(super) struct Check {
    pub(super) depth: usize,
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
        let mut seen = Seen::default();
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
    pub(super) fn deeper<E: de::Error>(self) -> Result<Check, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom("too deep"));
        }
        Ok(Check {
            depth: self.depth + 1,
        })
    }
}

/// Checks `raw` (a member at nesting `depth`) with [`Check`].
pub(super) fn check(raw: &str, depth: usize) -> Result<(), GiveUp> {
    let mut de = serde_json::Deserializer::from_str(raw);
    Check { depth }.deserialize(&mut de).map_err(|_| GiveUp)?;
    de.end().map_err(|_| GiveUp)
}

/// A member checked with [`Check`], then read as a `Value` (members the direct path copies).
pub(super) fn value_of(raw: &str, depth: usize) -> Result<Value, GiveUp> {
    check(raw, depth)?;
    serde_json::from_str(raw).map_err(|_| GiveUp)
}

/// The nesting the direct path assumes for every member of a frame (a capture record's frame
/// members are at 2; assuming more only sends borderline lines to the general path).
pub(super) const MEMBER_DEPTH: usize = 3;

/// A member value read by [`Check`] at [`MEMBER_DEPTH`].
pub(super) struct Checked;

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
pub(super) struct CheckedParams<'a>(pub(super) ParamsFacts<'a>);

impl<'de> de::Deserialize<'de> for CheckedParams<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsScan {
            depth: MEMBER_DEPTH,
            meta: false,
        })
        .map(CheckedParams)
    }
}

/// What the direct path needs from a request's `params` (checked on the way).
#[derive(Default)]
pub(super) struct ParamsFacts<'a> {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`.
    pub(super) meta_revision: Option<Box<Value>>,
    /// A `task` member that is not `null` (a task-augmented request).
    pub(super) task: bool,
    /// The raw text of a `taskId` member (`tasks/*` requests).
    pub(super) task_id: Option<&'a str>,
}

/// Reads `params` (or, with `meta`, its `_meta`) as [`Check`] at `depth` does, keeping the
/// facts of [`ParamsFacts`]; anything but an object is refused (the general path decides).
#[derive(Clone, Copy)]
pub(super) struct ParamsScan {
    pub(super) depth: usize,
    pub(super) meta: bool,
}

impl<'de> DeserializeSeed<'de> for ParamsScan {
    type Value = ParamsFacts<'de>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<ParamsFacts<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ParamsScan {
    type Value = ParamsFacts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamsFacts<'de>, A::Error> {
        let inner = Check { depth: self.depth }.deeper::<A::Error>()?;
        let mut seen = Seen::default();
        let mut facts = ParamsFacts::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let name = key.0.clone();
            if !seen.insert(key) {
                return Err(de::Error::custom("duplicate key"));
            }
            match (self.meta, &*name) {
                (false, "_meta") => {
                    let meta = ParamsScan {
                        depth: inner.depth,
                        meta: true,
                    };
                    facts.meta_revision = map.next_value_seed(meta)?.meta_revision;
                }
                (false, "task" | "taskId") => {
                    let raw: &'de RawValue = map.next_value()?;
                    check(raw.get(), inner.depth).map_err(de::Error::custom)?;
                    match &*name {
                        "task" => facts.task = raw.get() != "null",
                        _ => facts.task_id = Some(raw.get()),
                    }
                }
                (true, keys::PROTOCOL_VERSION) => {
                    let raw: &'de RawValue = map.next_value()?;
                    let revision = value_of(raw.get(), inner.depth).map_err(de::Error::custom)?;
                    facts.meta_revision = Some(Box::new(revision));
                }
                _ => map.next_value_seed(inner)?,
            }
        }
        Ok(facts)
    }
}

/// Reads the `params` object at `start` as [`CheckedParams`]: its facts, its text and the
/// index after it.
pub(super) fn params_at(
    text: &str,
    start: usize,
) -> Result<(ParamsFacts<'_>, &str, usize), GiveUp> {
    let (p, raw, end) = value_at::<CheckedParams<'_>>(text, start)?;
    Ok((p.0, raw, end))
}

/// The object key at `i` when it is plain (no escapes, no control characters), and the index
/// after its closing quote. Other keys make the direct path give up.
pub(super) fn key_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return Err(GiveUp);
    }
    let start = i + 1;
    let end = plain_end(b, start);
    if b.get(end) != Some(&b'"') {
        return Err(GiveUp);
    }
    Ok((&text[start..end], end + 1))
}

/// Reads the value starting at `i` (no leading whitespace) as `T`: the value, its text, and the
/// index after it. One pass: the check and the span come from the same read.
pub(super) fn value_at<'a, T: de::Deserialize<'a>>(
    text: &'a str,
    i: usize,
) -> Result<(T, &'a str, usize), GiveUp> {
    let rest = text.get(i..).ok_or(GiveUp)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
    let value = stream.next().ok_or(GiveUp)?.map_err(|_| GiveUp)?;
    let end = i + stream.byte_offset();
    Ok((value, text.get(i..end).ok_or(GiveUp)?, end))
}

/// A member value at `i`, checked by [`Checked`]: its text and the index after it. Most members
/// of a frame (`"2.0"`, an id, a method) are a string without escapes or a short integer,
/// which need no deserializer to be checked.
pub(super) fn checked_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    if let Some(end) = plain_scalar_end(text.as_bytes(), i) {
        return Ok((&text[i..end], end));
    }
    let (Checked, raw, end) = value_at::<Checked>(text, i)?;
    Ok((raw, end))
}

/// Walks the members of the object at `i` (after whitespace), calling `each(key, start)` with
/// the index where each value starts; `each` returns the index after the value. Duplicate keys
/// give up. Returns the index after the closing brace.
pub(super) fn object<'a>(
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
    let mut seen = Seen::default();
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

/// JSON whitespace, as the strict reader skips it.
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The index of the first `"`, `\\` or control character at or after `start` (`b.len()` if
/// none): a string's plain run.
fn plain_end(b: &[u8], start: usize) -> usize {
    b[start..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map_or(b.len(), |n| start + n)
}

/// The index after the value at `i` when it is a string without escapes or an integer of at
/// most 18 digits without a leading zero (JSON the strict reader accepts, whatever follows it);
/// `None` for anything else.
fn plain_scalar_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => {
            let end = plain_end(b, i + 1);
            (b.get(end) == Some(&b'"')).then_some(end + 1)
        }
        first @ b'0'..=b'9' => {
            let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let fraction = matches!(b.get(i + digits), Some(b'.' | b'e' | b'E'));
            let leading_zero = first == b'0' && digits > 1;
            (digits <= 18 && !fraction && !leading_zero).then_some(i + digits)
        }
        _ => None,
    }
}
