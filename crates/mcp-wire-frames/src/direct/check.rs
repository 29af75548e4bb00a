//! Checking a body's text for what the strict reader refuses (repeated keys, nesting) without
//! building it, and reading the few facts of `params` and `_meta` the direct path needs.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use smallvec::SmallVec;

use mcp_wire::model::meta::keys;

use super::scan::skip_ws;
use super::{GiveUp, MAX_DEPTH, scan};

/// An object key, borrowed from the line unless it had escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key<'a>(pub(super) Cow<'a, str>);

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
pub(super) struct Seen<'a> {
    pub(super) borrowed: SmallVec<[&'a str; 16]>,
    pub(super) owned: Vec<String>,
}

impl<'a> Seen<'a> {
    pub(super) fn new() -> Self {
        Seen {
            borrowed: SmallVec::new(),
            owned: Vec::new(),
        }
    }

    /// Adds `key`; `false` if it was already there.
    pub(super) fn insert(&mut self, key: Key<'a>) -> bool {
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
        })
        .map(CheckedParams)
    }
}

/// What the direct path needs from a request's `params._meta`.
#[derive(Default)]
pub(super) struct MetaFacts<'a> {
    /// The `_meta` member's text (a sub-slice of `params`).
    pub(super) raw: Option<&'a str>,
    /// Its member count.
    pub(super) len: usize,
    /// `io.modelcontextprotocol/protocolVersion`.
    pub(super) revision: Option<Box<Value>>,
    pub(super) has_client_info: bool,
    pub(super) has_capabilities: bool,
}

/// What the direct path needs from a request's `params` (checked on the way).
#[derive(Default)]
pub(super) struct ParamsFacts<'a> {
    pub(super) len: usize,
    pub(super) meta: MetaFacts<'a>,
    /// A `task` member that is not `null` (a task-augmented request).
    pub(super) task: bool,
    /// The raw text of a `taskId` member (`tasks/*` requests).
    pub(super) task_id: Option<&'a str>,
}

impl<'a> ParamsFacts<'a> {
    /// Notes what a member says about tasks.
    pub(super) fn note_task_member(&mut self, key: &str, raw: &'a str) {
        match key {
            "task" => self.task = raw != "null",
            "taskId" => self.task_id = Some(raw),
            _ => {}
        }
    }
}

pub(super) struct ParamsScan {
    pub(super) depth: usize,
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

pub(super) struct MetaScan {
    pub(super) depth: usize,
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
pub(super) fn meta_facts(raw: &RawValue, depth: usize) -> Result<MetaFacts<'_>, GiveUp> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let mut facts = de.deserialize_map(MetaScan { depth }).map_err(|_| GiveUp)?;
    facts.raw = Some(raw.get());
    Ok(facts)
}

/// The nesting of a `params` member's value ([`ParamsScan`] reads `params` at [`MEMBER_DEPTH`]).
pub(super) const PARAMS_MEMBER_DEPTH: usize = MEMBER_DEPTH + 1;

/// The nesting of a `params._meta` member's value.
pub(super) const META_MEMBER_DEPTH: usize = PARAMS_MEMBER_DEPTH + 1;

/// Reads the `params` object at `start` as [`CheckedParams`] does: its facts, its text and the
/// index after it. The [`scan`]ner reads it when it vouches for every member; otherwise the
/// deserializer judges.
pub(super) fn params_at(
    text: &str,
    start: usize,
) -> Result<(ParamsFacts<'_>, &str, usize), GiveUp> {
    if let Some(read) = scanned_params(text, start) {
        return Ok(read);
    }
    let (p, raw, end) = value_at::<CheckedParams<'_>>(text, start)?;
    Ok((p.0, raw, end))
}

/// [`params_at`] by the [`scan`]ner alone; `None` when it cannot vouch for the object.
pub(super) fn scanned_params(text: &str, start: usize) -> Option<(ParamsFacts<'_>, &str, usize)> {
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
pub(super) fn scanned_meta(text: &str, start: usize) -> Option<(MetaFacts<'_>, usize)> {
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
pub(super) fn key_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
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

/// A member value at `i`, checked as [`Checked`] would check it: its text and the index after
/// it. What the [`scan`]ner vouches for is read without a deserializer.
pub(super) fn checked_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    if let Some(end) = scan::vouched_end(text, i, MEMBER_DEPTH) {
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
