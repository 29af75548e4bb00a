//! Checking a member's text for what the strict reader refuses (repeated keys, nesting) without
//! building it, and reading the few facts of `params` and `_meta` the direct path needs: both
//! with the crate's strict reader of unchecked text ([`in_place::Unchecked`]).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny};
use serde_json::Value;
use smallvec::SmallVec;

use mcp_wire::model::meta::keys;
use mcp_wire::wire::in_place;

use super::GiveUp;

/// Nesting levels a member may use (itself included): the direct path's bound is 100 levels
/// (the strict reader's is serde_json's 128 from the start of the line; a line nested deeper
/// takes the general path, which reports it exactly), and a member is taken to sit 3 deep (a
/// capture record's frame members are at 2; assuming more only sends borderline lines to the
/// general path).
const MEMBER_LEVELS: usize = 100 - 3;

/// A member's value read as the strict reader accepts it, within [`MEMBER_LEVELS`].
type Checked<T> = in_place::Unchecked<T, MEMBER_LEVELS>;

/// What the direct path needs from a request's `params` (an object, checked as it is read).
#[derive(Default, Deserialize)]
pub(super) struct ParamsFacts {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]` (an object when present).
    #[serde(rename = "_meta", default)]
    meta: MetaFacts,
    /// A `task` member that is not `null` (a task-augmented request).
    #[serde(default)]
    task: Option<IgnoredAny>,
    /// A `taskId` member (`tasks/*` requests, where it is a string).
    #[serde(rename = "taskId", default)]
    task_id: Option<Value>,
}

/// What the direct path needs from `params._meta` (an object): its protocol version, present
/// with any value (`null` too).
#[derive(Default)]
struct MetaFacts(Option<Box<Value>>);

impl<'de> Deserialize<'de> for MetaFacts {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MetaFactsVisitor)
    }
}

/// An object key, borrowed from the text unless it has escapes.
#[derive(Deserialize)]
#[serde(transparent)]
struct Key<'a>(#[serde(borrow)] Cow<'a, str>);

struct MetaFactsVisitor;

impl<'de> de::Visitor<'de> for MetaFactsVisitor {
    type Value = MetaFacts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<MetaFacts, A::Error> {
        let mut facts = MetaFacts::default();
        while let Some(Key(key)) = map.next_key()? {
            if key == keys::PROTOCOL_VERSION {
                facts.0 = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(facts)
    }
}

impl ParamsFacts {
    pub(super) fn meta_revision(&self) -> Option<&Value> {
        self.meta.0.as_deref()
    }

    pub(super) fn task(&self) -> bool {
        self.task.is_some()
    }

    pub(super) fn task_id(&self) -> Option<&str> {
        self.task_id.as_ref()?.as_str()
    }
}

/// Reads the `params` object at `start`: its facts, its text and the index after it.
pub(super) fn params_at(text: &str, start: usize) -> Result<(ParamsFacts, &str, usize), GiveUp> {
    let (p, raw, end) = value_at::<Checked<ParamsFacts>>(text, start)?;
    Ok((p.0, raw, end))
}

/// Reads the value starting at `i` (no leading whitespace) as `T`: the value, its text, and the
/// index after it. One pass: the check and the span come from the same read.
pub(super) fn value_at<'a, T: Deserialize<'a>>(
    text: &'a str,
    i: usize,
) -> Result<(T, &'a str, usize), GiveUp> {
    let rest = text.get(i..).ok_or(GiveUp)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
    let value = stream.next().ok_or(GiveUp)?.map_err(|_| GiveUp)?;
    let end = i + stream.byte_offset();
    Ok((value, text.get(i..end).ok_or(GiveUp)?, end))
}

/// A member value at `i`, checked as [`Checked`]: its text and the index after it. Most members
/// of a frame (`"2.0"`, an id, a method) are a string without escapes or a short integer,
/// which need no deserializer to be checked.
pub(super) fn checked_at(text: &str, i: usize) -> Result<(&str, usize), GiveUp> {
    if let Some(end) = plain_scalar_end(text.as_bytes(), i) {
        return Ok((&text[i..end], end));
    }
    let (_, raw, end) = value_at::<Checked<IgnoredAny>>(text, i)?;
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
    // The keys seen so far (no allocation for small objects).
    let mut seen: SmallVec<[&str; 16]> = SmallVec::new();
    loop {
        // A key with escapes makes the direct path give up.
        let next = plain_scalar_end(b, i)
            .filter(|_| b[i] == b'"')
            .ok_or(GiveUp)?;
        let key = &text[i + 1..next - 1];
        if seen.contains(&key) {
            return Err(GiveUp);
        }
        seen.push(key);
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

/// The index after the value at `i` when it is a string without escapes or an integer of at
/// most 18 digits without a leading zero (JSON the strict reader accepts, whatever follows it);
/// `None` for anything else.
pub(super) fn plain_scalar_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => {
            let run = b[i + 1..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
            (b[i + 1 + run] == b'"').then_some(i + run + 2)
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
