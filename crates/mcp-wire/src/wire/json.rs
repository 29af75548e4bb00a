//! The compact JSON writer behind the byte outputs ([`super::serialize_for_vec`] and the
//! functions built on it).
//!
//! It writes exactly the bytes that `serde_json::to_writer` writes (compact format, the same
//! escapes, numbers and map-key rules; the tests compare the two on every shape of the serde data
//! model and on random strings), straight into a `Vec<u8>`. Numbers go through `serde_json`'s own
//! [`CompactFormatter`], so they cannot differ. What differs is speed on strings, which are most of
//! an MCP frame's bytes: the scan for bytes that need escaping looks at eight bytes at a time
//! instead of one, and clean runs are copied in one piece.

use std::fmt::{self, Display};

use serde::ser::{self, Impossible, Serialize};
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

/// The error type of the writer (the same as `serde_json`'s: a sink passes it on unchanged).
type Error = serde_json::Error;
type Result<T> = std::result::Result<T, Error>;

/// The struct name `serde_json` gives a [`serde_json::value::RawValue`]: its text is written
/// verbatim.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A compact JSON serializer appending to a byte buffer.
pub(crate) struct JsonWriter<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> JsonWriter<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        JsonWriter { out }
    }
}

/// Writing to a `Vec` never fails; `serde_json`'s formatter API still returns `io::Result`.
fn infallible(r: std::io::Result<()>) -> Result<()> {
    r.map_err(serde_json::Error::io)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `chunk` (little-endian) that needs escaping in a JSON string: a
/// control character, `"` or `\`. Bits above the lowest set one may be false positives (a borrow
/// runs upwards); the lowest one is exact, and it is the only one read.
#[inline]
fn escape_mask(chunk: u64) -> u64 {
    let control = chunk.wrapping_sub(ONES * 0x20) & !chunk;
    let q = chunk ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = chunk ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (control | quote | backslash) & HIGH
}

/// Whether `byte` needs escaping in a JSON string.
#[inline]
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Writes the escape of `byte` (one that [`needs_escape`]) the way `serde_json` does.
fn write_escape(out: &mut Vec<u8>, byte: u8) {
    let escape = match byte {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        0x08 => CharEscape::Backspace,
        0x09 => CharEscape::Tab,
        0x0A => CharEscape::LineFeed,
        0x0C => CharEscape::FormFeed,
        0x0D => CharEscape::CarriageReturn,
        other => CharEscape::AsciiControl(other),
    };
    // Infallible on a Vec.
    let _ = CompactFormatter.write_char_escape(out, escape);
}

/// The eight bytes of `bytes` from `at` as one word (the caller checks the bounds).
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The four bytes of `bytes` from `at` as the low half of a word.
#[inline(always)]
fn half_word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// The position of the first byte of `bytes` that needs escaping, if any.
///
/// Whole words are scanned eight bytes at a time; the last partial word is read as the word
/// that ends the string (its bytes already scanned are masked off), and strings of four to
/// seven bytes as two overlapping halves, so no byte is looked at one by one except in strings
/// shorter than four.
#[inline]
fn first_escape(bytes: &[u8]) -> Option<usize> {
    let n = bytes.len();
    if n >= 8 {
        let mut at = 0;
        while at + 8 <= n {
            let mask = escape_mask(word(bytes, at));
            if mask != 0 {
                return Some(at + (mask.trailing_zeros() / 8) as usize);
            }
            at += 8;
        }
        if at < n {
            // The word ending the string; its first `8 - (n - at)` bytes were scanned above
            // (clean, so no borrow reaches the rest).
            let scanned = 8 - (n - at);
            let mask = escape_mask(word(bytes, n - 8)) & (u64::MAX << (8 * scanned));
            if mask != 0 {
                return Some(n - 8 + (mask.trailing_zeros() / 8) as usize);
            }
        }
        None
    } else if n >= 4 {
        // Bytes 0..4 in the low half, bytes n-4..n in the high half.
        let mask = escape_mask(half_word(bytes, 0) | half_word(bytes, n - 4) << 32);
        if mask == 0 {
            return None;
        }
        let lane = (mask.trailing_zeros() / 8) as usize;
        Some(if lane < 4 { lane } else { n + lane - 8 })
    } else {
        bytes.iter().position(|&b| needs_escape(b))
    }
}

/// Appends the escaped contents of `s` (without quotes).
#[inline]
fn write_str_contents(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    match first_escape(bytes) {
        None => out.extend_from_slice(bytes),
        Some(at) => write_escaped_from(out, bytes, at),
    }
}

/// Appends `bytes` escaped, the first byte to escape being at `first`.
#[cold]
fn write_escaped_from(out: &mut Vec<u8>, bytes: &[u8], first: usize) {
    out.reserve(bytes.len() + 8);
    out.extend_from_slice(&bytes[..first]);
    write_escape(out, bytes[first]);
    let mut rest = &bytes[first + 1..];
    while let Some(at) = first_escape(rest) {
        out.extend_from_slice(&rest[..at]);
        write_escape(out, rest[at]);
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
}

/// Appends `s` as a JSON string.
#[inline]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_str_contents(out, s);
    out.push(b'"');
}

/// Writes a number through `serde_json`'s formatter (the same digits by construction); a float
/// (`if is_finite`) that is not finite is `null`, as `serde_json` writes it.
macro_rules! numbers {
    ($($method:ident($ty:ty) => $write:ident;)*) => {
        $(
            #[inline]
            fn $method(self, v: $ty) -> Result<()> {
                infallible(CompactFormatter.$write(self.out, v))
            }
        )*
    };
    ($($method:ident($ty:ty) => $write:ident if $finite:ident;)*) => {
        $(
            fn $method(self, v: $ty) -> Result<()> {
                if !v.$finite() {
                    return self.serialize_unit();
                }
                infallible(CompactFormatter.$write(self.out, v))
            }
        )*
    };
}

impl<'a, 'w> ser::Serializer for &'w mut JsonWriter<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    numbers! {
        serialize_i8(i8) => write_i8;
        serialize_i16(i16) => write_i16;
        serialize_i32(i32) => write_i32;
        serialize_i64(i64) => write_i64;
        serialize_i128(i128) => write_i128;
        serialize_u8(u8) => write_u8;
        serialize_u16(u16) => write_u16;
        serialize_u32(u32) => write_u32;
        serialize_u64(u64) => write_u64;
        serialize_u128(u128) => write_u128;
    }

    numbers! {
        serialize_f32(f32) => write_f32 if is_finite;
        serialize_f64(f64) => write_f64 if is_finite;
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        infallible(CompactFormatter.write_byte_array(self.out, v))
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_unit()
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'w, 'a>> {
        self.out.push(b'[');
        Ok(Compound::new(self, Close::Array))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'w, 'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'w, 'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":[");
        Ok(Compound::new(self, Close::ArrayInObject))
    }

    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'w, 'a>> {
        self.out.push(b'{');
        Ok(Compound::new(self, Close::Object))
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'w, 'a>> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::new(self, Close::Raw));
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":{");
        Ok(Compound::new(self, Close::ObjectInObject))
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<()> {
        struct Escaping<'o>(&'o mut Vec<u8>);
        impl fmt::Write for Escaping<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                write_str_contents(self.0, s);
                Ok(())
            }
        }
        self.out.push(b'"');
        fmt::write(&mut Escaping(self.out), format_args!("{value}"))
            .map_err(|_| ser::Error::custom("a Display implementation returned an error"))?;
        self.out.push(b'"');
        Ok(())
    }
}

/// How a [`Compound`] ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Close {
    Array,
    Object,
    /// A tuple variant: `{"variant":[…]}`.
    ArrayInObject,
    /// A struct variant: `{"variant":{…}}`.
    ObjectInObject,
    /// A raw JSON value: its one field is written verbatim.
    Raw,
}

/// An array or object being written.
pub(crate) struct Compound<'w, 'a> {
    w: &'w mut JsonWriter<'a>,
    close: Close,
    first: bool,
}

impl<'w, 'a> Compound<'w, 'a> {
    fn new(w: &'w mut JsonWriter<'a>, close: Close) -> Self {
        Compound {
            w,
            close,
            first: true,
        }
    }

    #[inline]
    fn separator(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.w.out.push(b',');
        }
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.separator();
        value.serialize(&mut *self.w)
    }

    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        if self.close == Close::Raw {
            return if key == RAW_VALUE_TOKEN {
                let out = &mut *self.w.out;
                value.serialize(StrOnly(|raw: &str| out.extend_from_slice(raw.as_bytes())))
            } else {
                Err(ser::Error::custom("expected RawValue"))
            };
        }
        self.separator();
        write_str(self.w.out, key);
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }

    #[inline]
    fn finish(self) -> Result<()> {
        let tail: &[u8] = match self.close {
            Close::Array => b"]",
            Close::Object => b"}",
            Close::ArrayInObject => b"]}",
            Close::ObjectInObject => b"}}",
            Close::Raw => b"",
        };
        self.w.out.extend_from_slice(tail);
        Ok(())
    }
}

/// The traits of arrays and objects: a sequence's element (or tuple field) is a value after a
/// separator; a struct's field a key and a value ([`Compound::field`]).
macro_rules! compound {
    ($($trait:ident::$method:ident($($key:ident: $k:ty)?) => $write:ident;)+) => {
        $(
            impl ser::$trait for Compound<'_, '_> {
                type Ok = ();
                type Error = Error;
                #[inline]
                fn $method<T: Serialize + ?Sized>(&mut self, $($key: $k,)? value: &T) -> Result<()> {
                    self.$write($($key,)? value)
                }
                #[inline]
                fn end(self) -> Result<()> {
                    self.finish()
                }
            }
        )+
    };
}

compound! {
    SerializeSeq::serialize_element() => element;
    SerializeTuple::serialize_element() => element;
    SerializeTupleStruct::serialize_field() => element;
    SerializeTupleVariant::serialize_field() => element;
    SerializeStruct::serialize_field(key: &'static str) => field;
    SerializeStructVariant::serialize_field(key: &'static str) => field;
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.separator();
        let out = &mut *self.w.out;
        match key.serialize(StrOnly(|k: &str| write_str(out, k))) {
            Ok(()) => Ok(()),
            Err(_) => serde_json_key(self.w.out, key),
        }
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }

    #[inline]
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// `serde::Serializer` methods that all fail with `$err` (`<T>`: a method generic over the
/// value it is given).
macro_rules! refusing {
    ($err:expr; $($method:ident $(<$t:ident>)? ($($arg:ty),*) -> $ret:ty),* $(,)?) => {
        $(
            fn $method $(<$t: Serialize + ?Sized>)? (self, $(_: $arg),*) -> Result<$ret> {
                Err($err)
            }
        )*
    };
}

/// The error of [`StrOnly`] on anything but a string.
fn not_a_str() -> Error {
    ser::Error::custom("expected a string")
}

/// The one-entry map `{key: null}`.
struct OneKey<'k, K: ?Sized>(&'k K);

impl<K: Serialize + ?Sized> Serialize for OneKey<'_, K> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &())?;
        map.end()
    }
}

/// Writes a map key that is not a string as `serde_json` writes it (a scalar in quotes, or its
/// refusal): the text of its [`OneKey`] map without the rest.
#[cold]
#[inline(never)]
fn serde_json_key<T: Serialize + ?Sized>(out: &mut Vec<u8>, key: &T) -> Result<()> {
    let text = serde_json::to_vec(&OneKey(key))?;
    let key = text
        .strip_prefix(b"{")
        .and_then(|t| t.strip_suffix(b":null}"))
        .ok_or_else(not_a_str)?;
    out.extend_from_slice(key);
    Ok(())
}

/// A serializer of a string alone, handed to `F`: a map key's text, a raw JSON value's text.
/// Anything else fails with [`not_a_str`] (a key then takes [`serde_json_key`]).
struct StrOnly<F>(F);

impl<F: FnOnce(&str)> ser::Serializer for StrOnly<F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        (self.0)(v);
        Ok(())
    }

    refusing!(not_a_str();
        serialize_bool(bool) -> (),
        serialize_i8(i8) -> (),
        serialize_i16(i16) -> (),
        serialize_i32(i32) -> (),
        serialize_i64(i64) -> (),
        serialize_u8(u8) -> (),
        serialize_u16(u16) -> (),
        serialize_u32(u32) -> (),
        serialize_u64(u64) -> (),
        serialize_f32(f32) -> (),
        serialize_f64(f64) -> (),
        serialize_char(char) -> (),
        serialize_bytes(&[u8]) -> (),
        serialize_none() -> (),
        serialize_unit() -> (),
        serialize_unit_struct(&'static str) -> (),
        serialize_unit_variant(&'static str, u32, &'static str) -> (),
        serialize_seq(Option<usize>) -> Impossible<(), Error>,
        serialize_tuple(usize) -> Impossible<(), Error>,
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>,
        serialize_map(Option<usize>) -> Impossible<(), Error>,
        serialize_struct(&'static str, usize) -> Impossible<(), Error>,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>,
        serialize_some<T>(&T) -> (),
        serialize_newtype_struct<T>(&'static str, &T) -> (),
        serialize_newtype_variant<T>(&'static str, u32, &'static str, &T) -> (),
    );
}

#[cfg(test)]
pub(super) mod tests;
