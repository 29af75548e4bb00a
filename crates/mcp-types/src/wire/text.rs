//! Short strings the emitter holds while it writes: map keys it must read and scalars it checks
//! after writing them. They are almost always a few bytes, so they live inline; a longer one
//! moves to the heap.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Bytes kept inline before a text moves to the heap.
const INLINE: usize = 38;

/// A string of any length, inline when it is short.
#[derive(Clone, PartialEq)]
pub(crate) enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(String),
}

impl Text {
    /// A copy of `s`.
    pub fn new(s: &str) -> Self {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Text::Inline {
                len: s.len() as u8,
                bytes,
            }
        } else {
            Text::Heap(s.to_owned())
        }
    }

    /// Whether the text is `s` (without reading it as a `str`).
    pub fn is(&self, s: &str) -> bool {
        match self {
            Text::Inline { len, bytes } => &bytes[..usize::from(*len)] == s.as_bytes(),
            Text::Heap(h) => h == s,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            // Always a whole copy of a `&str`, so always UTF-8.
            Text::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Text::Heap(s) => s,
        }
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text of a map key as `serde_json` writes it (strings, numbers and booleans are keys;
/// anything else is not, and gives `None`).
pub(crate) fn key_text<K: Serialize + ?Sized>(key: &K) -> Option<Text> {
    key.serialize(KeyText).ok()
}

/// Not a key `serde_json` would write.
#[derive(Debug)]
pub(crate) struct NotAKey;

impl fmt::Display for NotAKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a map key")
    }
}

impl std::error::Error for NotAKey {}

impl ser::Error for NotAKey {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotAKey
    }
}

/// Reads a key's text.
struct KeyText;

macro_rules! number_keys {
    ($($method:ident($ty:ty)),*) => {
        $(
            fn $method(self, v: $ty) -> Result<Text, NotAKey> {
                Ok(Text::new(&v.to_string()))
            }
        )*
    };
}

macro_rules! not_keys {
    ($($method:ident($($arg:ty),*) -> $ret:ty),*) => {
        $(
            fn $method(self, $(_: $arg),*) -> Result<$ret, NotAKey> {
                Err(NotAKey)
            }
        )*
    };
}

impl ser::Serializer for KeyText {
    type Ok = Text;
    type Error = NotAKey;
    type SerializeSeq = Impossible<Text, NotAKey>;
    type SerializeTuple = Impossible<Text, NotAKey>;
    type SerializeTupleStruct = Impossible<Text, NotAKey>;
    type SerializeTupleVariant = Impossible<Text, NotAKey>;
    type SerializeMap = Impossible<Text, NotAKey>;
    type SerializeStruct = Impossible<Text, NotAKey>;
    type SerializeStructVariant = Impossible<Text, NotAKey>;

    fn serialize_str(self, v: &str) -> Result<Text, NotAKey> {
        Ok(Text::new(v))
    }

    fn serialize_char(self, v: char) -> Result<Text, NotAKey> {
        Ok(Text::new(v.encode_utf8(&mut [0; 4])))
    }

    fn serialize_bool(self, v: bool) -> Result<Text, NotAKey> {
        Ok(Text::new(if v { "true" } else { "false" }))
    }

    number_keys!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128)
    );

    fn serialize_f32(self, v: f32) -> Result<Text, NotAKey> {
        self.serialize_f64(f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<Text, NotAKey> {
        // As a JSON number would be written (non-finite numbers are not JSON).
        serde_json::Number::from_f64(v)
            .map(|n| Text::new(&n.to_string()))
            .ok_or(NotAKey)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Text, NotAKey> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Text, NotAKey> {
        value.serialize(self)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Text, NotAKey> {
        Ok(Text::new(variant))
    }

    not_keys!(
        serialize_bytes(&[u8]) -> Text,
        serialize_none() -> Text,
        serialize_unit() -> Text,
        serialize_unit_struct(&'static str) -> Text,
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant
    );

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Text, NotAKey> {
        Err(NotAKey)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_read_as_serde_json_writes_them() {
        assert_eq!(key_text("type").unwrap().as_str(), "type");
        assert_eq!(key_text(&7u8).unwrap().as_str(), "7");
        assert_eq!(key_text(&-7i64).unwrap().as_str(), "-7");
        assert_eq!(key_text(&true).unwrap().as_str(), "true");
        assert_eq!(key_text(&'é').unwrap().as_str(), "é");
        assert_eq!(key_text(&1.5f64).unwrap().as_str(), "1.5");
        assert_eq!(key_text(&Some("k")).unwrap().as_str(), "k");
        assert!(key_text(&json!([1])).is_none());
        assert!(key_text(&()).is_none());
        assert!(key_text(&f64::NAN).is_none());
    }

    #[test]
    fn long_texts_move_to_the_heap_unchanged() {
        let long = "k".repeat(INLINE + 1);
        assert!(matches!(Text::new(&long), Text::Heap(_)));
        assert_eq!(Text::new(&long).as_str(), long);
        let edge = "é".repeat(INLINE / 2);
        assert!(matches!(Text::new(&edge), Text::Inline { .. }));
        assert_eq!(Text::new(&edge).as_str(), edge);
        assert!(Text::new(&edge).is(&edge) && !Text::new(&edge).is("é"));
        assert!(Text::new(&long).is(&long) && !Text::new(&long).is("k"));
    }
}
