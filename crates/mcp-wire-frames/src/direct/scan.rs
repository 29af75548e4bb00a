//! A byte scanner that vouches for a JSON value without a deserializer.
//!
//! The direct path must only take lines the strict reader of [`mcp_wire::json_text`] accepts: valid
//! JSON, no repeated key in any object, bounded nesting, numbers a `serde_json::Value` holds.
//! Checking that with `serde_json` costs a full deserializer instance per visitor; this scanner
//! does it in one tight loop for what real traffic contains. It answers only "certainly
//! accepted" (with the value's end) or "not sure": keys with escapes, numbers with an exponent,
//! broken surrogate pairs, anything malformed. The caller then checks with `serde_json`, which
//! decides exactly as before.

use smallvec::SmallVec;

use super::MAX_DEPTH;

/// The index after the JSON value that starts at `i` (no leading whitespace), when the strict
/// reader certainly accepts it as a value nested at `depth`; `None` when not sure.
pub(super) fn vouched_end(text: &str, i: usize, depth: usize) -> Option<usize> {
    Scanner {
        text,
        keys: SmallVec::new(),
    }
    .value(i, depth)
}

/// JSON whitespace, as the strict reader skips it.
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Bytes a string may hold without a closer look: not `"`, not `\`, not a control character.
static PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = false;
        c += 1;
    }
    t[b'"' as usize] = false;
    t[b'\\' as usize] = false;
    t
};

/// The index of the first byte at or after `j` that is not [`PLAIN`] (`b.len()` if none).
/// Strings are most of a frame's bytes, so they are read a word of eight bytes at a time, and
/// the word that holds the string's end says where it is (most strings, keys and tags, end in
/// their first or second word: no byte-by-byte loop to leave, mispredicted, at each).
pub(super) fn plain_run_end(b: &[u8], mut j: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    // A high bit for every byte of `v` that is zero, or for none. Bits above the lowest set
    // one may be false alarms (a borrow carried up); the lowest is always a true one.
    let zero_bytes = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(word) = b.get(j..j + 8) {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(word);
        let v = u64::from_le_bytes(bytes);
        // Bytes below 0x20 (control characters), `"` and `\`.
        let stop = (v.wrapping_sub(ONES * 0x20) & !v & HIGH)
            | zero_bytes(v ^ (ONES * u64::from(b'"')))
            | zero_bytes(v ^ (ONES * u64::from(b'\\')));
        if stop != 0 {
            // Little-endian: the first byte is the lowest.
            return j + (stop.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    while j < b.len() && PLAIN[b[j] as usize] {
        j += 1;
    }
    j
}

/// Integer digits beyond which a number might leave `f64`'s range (its largest is about
/// 1.8e308): such numbers are left to `serde_json`.
const MAX_INTEGER_DIGITS: usize = 300;

/// The scanner over one text; every method takes the index where its value starts.
struct Scanner<'a> {
    text: &'a str,
    /// The keys of the objects being read, outermost first: each object's own keys are the
    /// ones from where it started, taken off again when it ends (one stack for the whole
    /// value, so no object sets up a key set of its own).
    keys: SmallVec<[&'a str; 32]>,
}

impl<'a> Scanner<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The end of any value at `i`, nested at `depth`.
    fn value(&mut self, i: usize, depth: usize) -> Option<usize> {
        let b = self.bytes();
        match *b.get(i)? {
            b'"' => self.string(i).map(|(end, _)| end),
            b'{' => self.container(i, depth, b'}'),
            b'[' => self.container(i, depth, b']'),
            b't' => literal(b, i, b"true"),
            b'f' => literal(b, i, b"false"),
            b'n' => literal(b, i, b"null"),
            b'-' | b'0'..=b'9' => number(b, i),
            _ => None,
        }
    }

    /// The end of the string whose opening quote is at `i`, and whether it has no escapes.
    fn string(&self, i: usize) -> Option<(usize, bool)> {
        let b = self.bytes();
        debug_assert_eq!(b.get(i), Some(&b'"'));
        let mut j = i + 1;
        let mut plain = true;
        loop {
            j = plain_run_end(b, j);
            match *b.get(j)? {
                b'"' => return Some((j + 1, plain)),
                b'\\' => {
                    plain = false;
                    j = escape_end(b, j)?;
                }
                _ => return None, // a control character
            }
        }
    }

    /// The end of the array or object at `i`; `close` is its closing bracket.
    fn container(&mut self, i: usize, depth: usize, close: u8) -> Option<usize> {
        let b = self.bytes();
        if depth >= MAX_DEPTH {
            return None;
        }
        let mut j = skip_ws(b, i + 1);
        if *b.get(j)? == close {
            return Some(j + 1);
        }
        let object = close == b'}';
        let own_keys = self.keys.len();
        loop {
            if object {
                j = self.key(j, own_keys)?;
            }
            j = skip_ws(b, self.value(j, depth + 1)?);
            match *b.get(j)? {
                b',' => j = skip_ws(b, j + 1),
                c if c == close => {
                    self.keys.truncate(own_keys);
                    return Some(j + 1);
                }
                _ => return None,
            }
        }
    }

    /// Reads an object key at `i` and its colon: the index of the value after them. The key
    /// must be new among the object's keys (those from `own_keys` on) and have no escapes
    /// (escaped keys are compared only after unescaping, which is left to `serde_json`).
    fn key(&mut self, i: usize, own_keys: usize) -> Option<usize> {
        let b = self.bytes();
        if *b.get(i)? != b'"' {
            return None;
        }
        let (end, plain) = self.string(i)?;
        let text = self.text;
        let key = &text[i + 1..end - 1];
        if !plain || self.keys[own_keys..].contains(&key) {
            return None;
        }
        self.keys.push(key);
        let j = skip_ws(b, end);
        (*b.get(j)? == b':').then(|| skip_ws(b, j + 1))
    }
}

/// The end of `word` (`true`, `false`, `null`) at `i`.
fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    b[i..].starts_with(word).then_some(i + word.len())
}

/// The index after the escape whose backslash is at `i`; `None` for an invalid escape or a
/// `\u` surrogate that is not half of a pair.
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => {
            let unit = hex4(b, i + 2)?;
            match unit {
                0xD800..=0xDBFF => {
                    let low = (b.get(i + 6..i + 8)? == b"\\u")
                        .then(|| hex4(b, i + 8))
                        .flatten()?;
                    (0xDC00..=0xDFFF).contains(&low).then_some(i + 12)
                }
                0xDC00..=0xDFFF => None,
                _ => Some(i + 6),
            }
        }
        _ => None,
    }
}

/// The code unit of the four hex digits at `i`.
fn hex4(b: &[u8], i: usize) -> Option<u16> {
    let digits = b.get(i..i + 4)?;
    let mut n = 0u16;
    for d in digits {
        n = n * 16 + (*d as char).to_digit(16)? as u16;
    }
    Some(n)
}

/// The index after a number without an exponent and with at most [`MAX_INTEGER_DIGITS`]
/// integer digits, in JSON's grammar (no leading zeros, digits after a point).
fn number(b: &[u8], i: usize) -> Option<usize> {
    let digits_from = |j: usize| j + b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
    let start = if b[i] == b'-' { i + 1 } else { i };
    let int_end = digits_from(start);
    let n = int_end - start;
    if n == 0 || n > MAX_INTEGER_DIGITS || (n > 1 && b[start] == b'0') {
        return None;
    }
    let end = match b.get(int_end) {
        Some(b'.') => {
            let frac_end = digits_from(int_end + 1);
            if frac_end == int_end + 1 {
                return None;
            }
            frac_end
        }
        _ => int_end,
    };
    match b.get(end) {
        Some(b'e' | b'E') => None,
        _ => Some(end),
    }
}

#[cfg(test)]
mod tests;
