//! Short strings the emitter holds while it writes: map keys it must read and scalars it checks
//! after writing them. They are almost always a few bytes, so they live inline; a longer one
//! moves to the heap.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};
use serde_json::ser::{CompactFormatter, Formatter};

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
    with_key(key, Text::new)
}

/// `read` applied to the text of a map key as `serde_json` writes it, without copying a string
/// key; `None` when `key` is not one `serde_json` would write.
#[inline]
pub(crate) fn with_key<K: Serialize + ?Sized, R>(
    key: &K,
    read: impl FnOnce(&str) -> R,
) -> Option<R> {
    key.serialize(KeyWith(read)).ok()
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

/// Hands a key's text to a reader.
struct KeyWith<F>(F);

macro_rules! number_keys {
    ($($method:ident($ty:ty)),*) => {
        $(
            fn $method(self, v: $ty) -> Result<R, NotAKey> {
                Ok((self.0)(&v.to_string()))
            }
        )*
    };
}

/// A float key as `serde_json` writes it (with `f32`'s own digits); non-finite floats are not
/// keys.
fn float_key<R>(
    finite: bool,
    write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>,
    read: impl FnOnce(&str) -> R,
) -> Result<R, NotAKey> {
    if !finite {
        return Err(NotAKey);
    }
    let mut digits = Vec::with_capacity(24);
    write(&mut digits).map_err(|_| NotAKey)?;
    std::str::from_utf8(&digits).map(read).map_err(|_| NotAKey)
}

impl<R, F: FnOnce(&str) -> R> ser::Serializer for KeyWith<F> {
    type Ok = R;
    type Error = NotAKey;
    type SerializeSeq = Impossible<R, NotAKey>;
    type SerializeTuple = Impossible<R, NotAKey>;
    type SerializeTupleStruct = Impossible<R, NotAKey>;
    type SerializeTupleVariant = Impossible<R, NotAKey>;
    type SerializeMap = Impossible<R, NotAKey>;
    type SerializeStruct = Impossible<R, NotAKey>;
    type SerializeStructVariant = Impossible<R, NotAKey>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<R, NotAKey> {
        Ok((self.0)(v))
    }

    fn serialize_char(self, v: char) -> Result<R, NotAKey> {
        Ok((self.0)(v.encode_utf8(&mut [0; 4])))
    }

    fn serialize_bool(self, v: bool) -> Result<R, NotAKey> {
        Ok((self.0)(if v { "true" } else { "false" }))
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

    fn serialize_f32(self, v: f32) -> Result<R, NotAKey> {
        float_key(
            v.is_finite(),
            |out| CompactFormatter.write_f32(out, v),
            self.0,
        )
    }

    fn serialize_f64(self, v: f64) -> Result<R, NotAKey> {
        float_key(
            v.is_finite(),
            |out| CompactFormatter.write_f64(out, v),
            self.0,
        )
    }

    transparent!();

    refusing!(NotAKey;
        serialize_bytes(&[u8]) -> R,
        serialize_none() -> R,
        serialize_unit() -> R,
        serialize_unit_struct(&'static str) -> R,
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
    ) -> Result<R, NotAKey> {
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
        // `f32` keys with `f32`'s digits, as serde_json writes them.
        assert_eq!(key_text(&0.1f32).unwrap().as_str(), "0.1");
        for f in [0.1f64, 1e300, -0.0, 123.456] {
            let written = serde_json::to_string(&serde_json::json!({ "k": f })).unwrap();
            assert!(
                written.contains(key_text(&f).unwrap().as_str()),
                "{written}"
            );
        }
        assert_eq!(key_text(&Some("k")).unwrap().as_str(), "k");
        assert!(key_text(&json!([1])).is_none());
        assert!(key_text(&()).is_none());
        assert!(key_text(&f64::NAN).is_none());
        assert_eq!(with_key("type", |k| k == "type"), Some(true));
        assert_eq!(with_key(&12u16, str::len), Some(2));
        assert_eq!(with_key(&json!({}), str::len), None);
    }

    #[test]
    fn long_texts_move_to_the_heap_unchanged() {
        let long = "k".repeat(INLINE + 1);
        assert!(matches!(Text::new(&long), Text::Heap(_)));
        assert_eq!(Text::new(&long).as_str(), long);
        let edge = "é".repeat(INLINE / 2);
        assert!(matches!(Text::new(&edge), Text::Inline { .. }));
        assert_eq!(Text::new(&edge).as_str(), edge);
    }
}
