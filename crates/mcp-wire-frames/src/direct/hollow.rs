//! Long strings of a large body pass through as the line's own bytes.
//!
//! A frame of tens of megabytes is nearly all one or two strings (base64 `data` or `blob`, a
//! resource's `text`, a tool argument). Parsing them into the model copies them, and the output
//! line copies them again: three times the line in memory, and two copies of the bytes in time.
//! The boundary never looks inside such a string: it decides by members, tags and value types,
//! and writes a string as [`mcp_wire::wire`]'s writer escapes it. So before a large body is
//! parsed, each long string value whose text is already in that writer's form (no escapes, or
//! only the ones it writes) is replaced by a short placeholder string. The placeholders go
//! through the boundary like any string, and the output line is written in pieces: the emitted
//! text around each placeholder, and in its place the original string's bytes, straight from the
//! input line (see [`Splice`]).
//!
//! A placeholder is `"<mark><index>"`: the mark holds a random number drawn once per process,
//! and a line whose text holds the mark is not hollowed, so no string of the input can pass for
//! one. The emitted line is accepted only if every occurrence of the mark in it is a whole
//! placeholder string, standing as a JSON value of its own with a known index; otherwise (and
//! whenever the boundary refuses or finds invalid the hollowed body with a message that quotes a
//! placeholder) the body is read again whole, as without this module.

use std::fmt::Write as _;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::OnceLock;

use memchr::memmem;
use smallvec::SmallVec;

/// Bodies from this size on are looked through for long strings; smaller ones are parsed as
/// they are (real traffic is mostly small frames, which gain nothing).
pub(super) const MIN_BODY: usize = 64 * 1024;

/// Strings from this length on (quotes included) pass through as the line's bytes: far longer
/// than any tag, name or revision the boundary decides by.
const MIN_STRING: usize = 1024;

/// Hex digits of a placeholder's index.
const INDEX_DIGITS: usize = 8;

/// The mark of this process's placeholders, and its finder.
fn mark() -> &'static (String, memmem::Finder<'static>) {
    static MARK: OnceLock<(String, memmem::Finder<'static>)> = OnceLock::new();
    MARK.get_or_init(|| {
        let nonce = std::collections::hash_map::RandomState::new().hash_one(0x6d63_7077_u64);
        let mark = format!("mcp-wire-hollow-{nonce:016x}-");
        let finder = memmem::Finder::new(mark.as_bytes()).into_owned();
        (mark, finder)
    })
}

/// A hollowed body: its text with placeholders, where each replaced string lies in the line's
/// text (quotes included), and where the written line holds each placeholder. Reused from line
/// to line.
pub(super) struct Hollow {
    text: String,
    strings: SmallVec<[Range<usize>; 4]>,
    /// The written line's placeholders, in order (see [`Hollow::splices`]).
    parts: Vec<Splice>,
    /// Bodies shorter than this are parsed whole.
    pub(super) min_body: usize,
    /// Strings (quotes included) shorter than this are parsed.
    pub(super) min_string: usize,
}

impl Default for Hollow {
    fn default() -> Self {
        let (text, strings, parts) = Default::default();
        let (min_body, min_string) = (MIN_BODY, MIN_STRING);
        Hollow {
            text,
            strings,
            parts,
            min_body,
            min_string,
        }
    }
}

impl Hollow {
    /// `body` with its long strings replaced by placeholders, or `None` when it has none or
    /// must be read whole (it is not a sub-slice of `line`, or `line` holds the mark). The last
    /// line's placeholders are forgotten.
    pub(super) fn of(&mut self, line: &str, body: &str) -> Option<&str> {
        self.text.clear();
        self.strings.clear();
        self.parts.clear();
        if body.len() < self.min_body {
            return None;
        }
        let offset = (body.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        if offset + body.len() > line.len() {
            return None;
        }
        let (mark, finder) = mark();
        if finder.find(line.as_bytes()).is_some() {
            return None;
        }
        let mut copied = 0;
        for string in long_strings(body.as_bytes(), self.min_string) {
            self.text.push_str(&body[copied..string.start]);
            self.text.push('"');
            self.text.push_str(mark);
            let index = self.strings.len();
            // Infallible on a String.
            let _ = write!(self.text, "{index:0width$x}", width = INDEX_DIGITS);
            self.text.push('"');
            copied = string.end;
            self.strings
                .push(offset + string.start..offset + string.end);
        }
        if self.strings.is_empty() {
            return None;
        }
        self.text.push_str(&body[copied..]);
        Some(&self.text)
    }

    /// Forgets the last line's placeholders (for a line written with none).
    pub(super) fn forget(&mut self) {
        self.parts.clear();
    }

    /// Whether `text` (a message about the hollowed body) holds a placeholder.
    pub(super) fn quoted_in(&self, text: &str) -> bool {
        mark().1.find(text.as_bytes()).is_some()
    }

    /// Finds every placeholder in the written `line`; `false` (and none kept) unless each
    /// occurrence of the mark is a whole placeholder string.
    pub(super) fn splices(&mut self, line: &[u8]) -> bool {
        self.parts.clear();
        let (mark, finder) = mark();
        for at in finder.find_iter(line) {
            let Some(quote) = at.checked_sub(1) else {
                self.parts.clear();
                return false;
            };
            let digits = at + mark.len();
            let close = digits + INDEX_DIGITS;
            let index = line
                .get(digits..close)
                .and_then(|d| std::str::from_utf8(d).ok())
                .and_then(|d| usize::from_str_radix(d, 16).ok());
            let stands_alone = line[quote] == b'"'
                && escaped_before(line, quote).is_multiple_of(2)
                && line.get(close) == Some(&b'"');
            match index.and_then(|i| self.strings.get(i)) {
                Some(from) if stands_alone => self.parts.push(Splice {
                    at: quote..close + 1,
                    from: from.clone(),
                }),
                _ => {
                    self.parts.clear();
                    return false;
                }
            }
        }
        true
    }

    /// The pieces of the output line: `written`'s text with each placeholder replaced by its
    /// string from the input line `read`.
    pub(super) fn pieces<'a>(
        &'a self,
        written: &'a [u8],
        read: &'a [u8],
    ) -> impl Iterator<Item = &'a [u8]> + 'a {
        // Each placeholder's string follows the written text since the one before it.
        let starts = std::iter::once(0).chain(self.parts.iter().map(|p| p.at.end));
        let tail = self.parts.last().map_or(0, |p| p.at.end);
        (self.parts.iter().zip(starts))
            .flat_map(|(p, start)| [&written[start..p.at.start], &read[p.from.clone()]])
            .chain(std::iter::once(&written[tail..]))
    }
}

/// How many backslashes stand right before `at`.
fn escaped_before(line: &[u8], at: usize) -> usize {
    line[..at].iter().rev().take_while(|b| **b == b'\\').count()
}

/// One placeholder in a written line, and the frame text that replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Splice {
    /// The placeholder string in the written line, quotes included.
    at: Range<usize>,
    /// The original string in the line's text, quotes included.
    from: Range<usize>,
}

/// The long string values of valid JSON `text` whose text is in the writer's form, each as a
/// range with its quotes.
fn long_strings(text: &[u8], min: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let start = at + memchr::memchr(b'"', text.get(at..)?)?;
            let (end, canonical) = string_end(text, start)?;
            at = end;
            if end - start >= min && canonical && !is_key(text, end) {
                return Some(start..end);
            }
        }
    })
}

/// The end (after the closing quote) of the string whose opening quote is at `start`, and
/// whether every escape in it is the one the writer writes.
pub(super) fn string_end(text: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut at = start + 1;
    let mut canonical = true;
    loop {
        at += memchr::memchr2(b'"', b'\\', text.get(at..)?)?;
        if text[at] == b'"' {
            return Some((at + 1, canonical));
        }
        let escape = text.get(at..)?;
        canonical &= is_written_escape(escape);
        at += if escape.get(1) == Some(&b'u') { 6 } else { 2 };
    }
}

/// Whether the escape at the start of `escape` is the one the writer (serde_json's escaping)
/// writes for its character: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, and `\u00xx` in lower-case
/// hex for the other control characters.
fn is_written_escape(escape: &[u8]) -> bool {
    match escape.get(1) {
        Some(b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r') => true,
        Some(b'u') => {
            let hex = escape.get(2..6).unwrap_or_default();
            matches!(hex, [b'0', b'0', b'0' | b'1', b'0'..=b'9' | b'a'..=b'f'])
                && !matches!(&hex[2..], b"08" | b"09" | b"0a" | b"0c" | b"0d")
        }
        _ => false,
    }
}

/// Whether the string ending at `end` is an object key (the next token is `:`).
fn is_key(text: &[u8], end: usize) -> bool {
    text.get(super::check::skip_ws(text, end)) == Some(&b':')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn long(c: char) -> String {
        std::iter::repeat_n(c, MIN_STRING).collect()
    }

    #[test]
    fn only_long_values_in_the_written_form_are_found() {
        let data = long('A');
        let key = long('k');
        let escaped = format!("{}\\n\\u001f\\\"", long('t'));
        let foreign = format!("{}\\/", long('u'));
        let upper = format!("{}\\u001F", long('v'));
        let text = format!(
            r#"{{"short":"x","{key}":1,"data":"{data}","list":["{escaped}","{foreign}","{upper}"]}}"#
        );
        let found: Vec<&str> = long_strings(text.as_bytes(), MIN_STRING)
            .map(|r| &text[r])
            .collect();
        assert_eq!(found, [format!("\"{data}\""), format!("\"{escaped}\"")]);
    }

    #[test]
    fn placeholders_are_spliced_back_in_order() {
        let data = long('A');
        let blob = long('B');
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":"{data}","pad":"{}","b":["{blob}"]}}}}"#,
            "p".repeat(MIN_BODY)
        );
        let body_start = frame.find("{\"a\"").unwrap();
        let body = &frame[body_start..frame.len() - 1];
        let mut hollow = Hollow::default();
        let hollowed = hollow.of(&frame, body).unwrap().to_owned();
        assert!(hollowed.len() < body.len());
        // The boundary writes the strings elsewhere, one twice: each is replaced.
        let value: serde_json::Value = serde_json::from_str(&hollowed).unwrap();
        let written = serde_json::to_vec(&serde_json::json!({
            "b": value["b"][0], "a": value["a"], "again": value["a"], "n": 1
        }))
        .unwrap();
        assert!(hollow.splices(&written));
        let out: Vec<u8> = hollow
            .pieces(&written, frame.as_bytes())
            .flatten()
            .copied()
            .collect();
        let expected = format!(r#"{{"b":"{blob}","a":"{data}","again":"{data}","n":1}}"#);
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn a_placeholder_that_does_not_stand_alone_is_refused() {
        let data = long('A');
        let frame = format!(r#"{{"a":"{data}","pad":"{}"}}"#, "p".repeat(MIN_BODY));
        let mut hollow = Hollow::default();
        let hollowed = hollow.of(&frame, &frame).unwrap().to_owned();
        let value: serde_json::Value = serde_json::from_str(&hollowed).unwrap();
        let placeholder = value["a"].as_str().unwrap().to_owned();
        for written in [
            // Inside another string (a value written as JSON text), with a prefix, cut short.
            serde_json::to_vec(&serde_json::json!({ "t": value.to_string() })).unwrap(),
            serde_json::to_vec(&serde_json::json!({ "t": format!("x{placeholder}") })).unwrap(),
            serde_json::to_vec(&serde_json::json!({ "t": &placeholder[..placeholder.len() - 1] }))
                .unwrap(),
        ] {
            assert!(!hollow.splices(&written));
            assert!(hollow.parts.is_empty());
        }
    }

    /// A string of one to seven characters repeated to a short, a middling or a long length,
    /// with characters the writer escapes, one it may leave alone (`/`), and non-ASCII.
    fn string() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            'a', '/', '"', '\\', '\n', '\u{1}', 'é', '😀', '\u{7f}',
        ]);
        (prop::collection::vec(chars, 1..8), 0..3usize).prop_map(|(unit, size)| {
            let unit: String = unit.into_iter().collect();
            unit.repeat([10, 600, 1500][size] / unit.len() + 1)
        })
    }

    fn value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            string().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::vec((string(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the body, hollowing then writing its value back (as the boundary writes
        /// strings) and splicing gives the text the writer gives for the whole body: in the
        /// writer's form, each long string passes through; with foreign escapes (`\/`), it
        /// is read whole.
        #[test]
        fn hollowed_bodies_are_written_as_whole_ones(v in value()) {
            let body = serde_json::json!({ "pad": "p".repeat(MIN_BODY), "v": v });
            let written_whole = serde_json::to_string(&body).unwrap();
            let foreign = written_whole.replace('/', "\\/");
            for input in [&written_whole, &foreign] {
                let mut hollow = Hollow::default();
                let text = hollow.of(input, input).unwrap_or(input).to_owned();
                // The padding at least is taken out.
                prop_assert!(text.len() < input.len());
                let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
                let written = serde_json::to_vec(&parsed).unwrap();
                prop_assert!(hollow.splices(&written));
                let out: Vec<u8> = hollow.pieces(&written, input.as_bytes()).flatten().copied().collect();
                prop_assert_eq!(String::from_utf8(out).unwrap(), written_whole.clone());
            }
        }
    }

    #[test]
    fn a_frame_holding_the_mark_is_not_hollowed() {
        let (mark, _) = mark();
        let data = long('A');
        let frame = format!(
            r#"{{"a":"{data}","m":"{mark}","pad":"{}"}}"#,
            "p".repeat(MIN_BODY)
        );
        assert!(Hollow::default().of(&frame, &frame).is_none());
        let frame = format!(r#"{{"a":"{data}","pad":"{}"}}"#, "p".repeat(MIN_BODY));
        assert!(Hollow::default().of(&frame, &frame).is_some());
        // Anywhere in the line, also outside the body.
        let line = format!(r#"{{"note":"{mark}","frame":{frame}}}"#);
        let body = &line[line.find("{\"a\"").unwrap()..line.len() - 1];
        assert_eq!(body, frame);
        assert!(Hollow::default().of(&line, body).is_none());
        // Small bodies are read whole.
        let frame = format!(r#"{{"a":"{data}"}}"#);
        assert!(Hollow::default().of(&frame, &frame).is_none());
    }
}
