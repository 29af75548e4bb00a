//! [`Strict`]: the deserializer every parse of the model reads through (text, `Value`, a frame's
//! members, replayed union entries). It forwards everything to the deserializer it wraps, and
//! the wrappers it hands out (to visitors, maps, sequences, enums) are `Strict` again, so two
//! rules hold at every nesting level:
//!
//! - **A struct is a JSON object.** serde's derived structs also read a JSON array, field by
//!   field (`visit_seq`), so `"params":["x"]` would be a struct whose first field is `"x"`;
//!   every type the model reads as a struct is an object in the schema. The array form is
//!   refused with serde's own message (`invalid type: sequence, expected struct Tool`), located
//!   by the path tracker when one runs ([`super::from_value`]).
//! - **An ignored member is still JSON a `Value` can hold.** `serde_json` skips the value of a
//!   member a type does not name without reading it as a value: a number out of range
//!   (`6E9373`) or a lone surrogate escape passes there, and the same text read as a `Value`
//!   is refused. `Strict` reads ignored values as values (through [`de::IgnoredAny`]'s own
//!   visitor), so the text paths refuse what a `Value` cannot hold, in ignored members too.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Unexpected, Visitor};

/// A deserializer whose structs are objects and, when `TEXT` (it reads JSON text), whose
/// ignored values are read as values (see the module docs). Over a `Value` (`TEXT` false) an
/// ignored value is skipped as usual: a `Value` holds only what a `Value` can hold.
pub(crate) struct Strict<D, const TEXT: bool>(pub(crate) D);

/// Reads a `T` from JSON text through [`Strict`] (trailing text refused, as
/// `serde_json::from_str`).
#[inline]
pub(crate) fn from_str<'a, T: de::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut d = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Strict::<_, true>(&mut d))?;
    d.end()?;
    Ok(value)
}

/// [`from_str`] into `slot`, which holds the value when this returns `Ok` and is empty
/// otherwise (the value is not returned through this function's `Result`, which would copy
/// it).
#[inline]
pub(crate) fn from_str_into<'a, T: de::Deserialize<'a>>(
    text: &'a str,
    slot: &mut Option<T>,
) -> serde_json::Result<()> {
    let mut d = serde_json::Deserializer::from_str(text);
    *slot = Some(T::deserialize(Strict::<_, true>(&mut d))?);
    d.end().inspect_err(|_| *slot = None)
}

/// Reads a `T` from a `Value` through [`Strict`].
#[inline]
pub(crate) fn from_value<'de, T: de::Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    T::deserialize(Strict::<D, false>(d))
}

/// A seed whose deserializer is wrapped in [`Strict`].
pub(crate) struct StrictSeed<S, const TEXT: bool>(pub(crate) S);

impl<'de, S: DeserializeSeed<'de>, const TEXT: bool> DeserializeSeed<'de> for StrictSeed<S, TEXT> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict::<D, TEXT>(d))
    }
}

/// A visitor whose deserializers, maps, sequences and enums are wrapped in [`Strict`].
struct Wrap<V, const TEXT: bool>(V);

/// A struct's visitor: refuses the array form, else [`Wrap`].
struct ObjectOnly<V, const TEXT: bool>(V);

/// Values larger than this many bytes are read through [`Slotted`].
const SLOTTED_ABOVE: usize = 96;

/// Drives `$visitor` with `$read` (a deserializer's method call taking the visitor): a value of
/// more than [`SLOTTED_ABOVE`] bytes is put into a slot by the visitor rather than returned
/// through the deserializer's own `Result`s, each of which would copy it (a typed body is a few
/// hundred bytes). Which of the two is decided at compile time.
macro_rules! slotted {
    ($visitor:expr, |$v:ident| $read:expr) => {{
        let visitor = $visitor;
        if std::mem::size_of::<V::Value>() <= SLOTTED_ABOVE {
            let $v = visitor;
            $read
        } else {
            let mut slot = None;
            let $v = Slotted(visitor, &mut slot);
            $read?;
            slot.ok_or_else(|| de::Error::custom("a visitor gave no value"))
        }
    }};
}

/// A visitor that puts the value of the visitor it wraps into a slot (see [`slotted!`]).
struct Slotted<'s, 'de, W: Visitor<'de>>(W, &'s mut Option<W::Value>);

/// Hands `$visit` (a macro writing one visitor method per entry) the visitor methods that take
/// a plain value, with the value's type.
macro_rules! value_visits {
    ($visit:ident) => {
        $visit!(
            visit_bool(bool),
            visit_i8(i8),
            visit_i16(i16),
            visit_i32(i32),
            visit_i64(i64),
            visit_i128(i128),
            visit_u8(u8),
            visit_u16(u16),
            visit_u32(u32),
            visit_u64(u64),
            visit_u128(u128),
            visit_f32(f32),
            visit_f64(f64),
            visit_char(char),
            visit_str(&str),
            visit_borrowed_str(&'de str),
            visit_string(String),
            visit_bytes(&[u8]),
            visit_borrowed_bytes(&'de [u8]),
            visit_byte_buf(Vec<u8>)
        );
    };
}

macro_rules! slot_visit {
    ($($method:ident($ty:ty)),*) => {
        $(
            #[inline]
            fn $method<E: de::Error>(self, v: $ty) -> Result<(), E> {
                *self.1 = Some(self.0.$method(v)?);
                Ok(())
            }
        )*
    };
}

impl<'de, W: Visitor<'de>> Visitor<'de> for Slotted<'_, 'de, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    value_visits!(slot_visit);

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.1 = Some(self.0.visit_none()?);
        Ok(())
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        *self.1 = Some(self.0.visit_unit()?);
        Ok(())
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        *self.1 = Some(self.0.visit_some(d)?);
        Ok(())
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        *self.1 = Some(self.0.visit_newtype_struct(d)?);
        Ok(())
    }

    #[inline]
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        *self.1 = Some(self.0.visit_seq(seq)?);
        Ok(())
    }

    #[inline]
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        *self.1 = Some(self.0.visit_map(map)?);
        Ok(())
    }

    #[inline]
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        *self.1 = Some(self.0.visit_enum(data)?);
        Ok(())
    }
}

macro_rules! forward_deserialize {
    ($($method:ident),*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method(Wrap::<V, TEXT>(visitor))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>, const TEXT: bool> Deserializer<'de> for Strict<D, TEXT> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_identifier
    );

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        slotted!(Wrap::<V, TEXT>(visitor), |v| self.0.deserialize_any(v))
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        slotted!(Wrap::<V, TEXT>(visitor), |v| self.0.deserialize_map(v))
    }

    /// From text: read as a value (see the module docs), then dropped.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if TEXT {
            self.0.deserialize_any(Wrap::<V, TEXT>(visitor))
        } else {
            self.0.deserialize_ignored_any(Wrap::<V, TEXT>(visitor))
        }
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_unit_struct(name, Wrap::<V, TEXT>(visitor))
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_newtype_struct(name, Wrap::<V, TEXT>(visitor))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Wrap::<V, TEXT>(visitor))
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Wrap::<V, TEXT>(visitor))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        slotted!(ObjectOnly::<V, TEXT>(visitor), |v| self
            .0
            .deserialize_struct(name, fields, v))
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_enum(name, variants, Wrap::<V, TEXT>(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty)),*) => {
        $(
            #[inline]
            fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
                self.0.$method(v)
            }
        )*
    };
}

/// The visitor methods of [`Wrap`] and [`ObjectOnly`] but `visit_seq`.
macro_rules! visitor_body {
    () => {
        type Value = V::Value;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.expecting(f)
        }

        value_visits!(forward_visit);

        #[inline]
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_none()
        }

        #[inline]
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.0.visit_unit()
        }

        #[inline]
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.visit_some(Strict::<D, TEXT>(d))
        }

        #[inline]
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.visit_newtype_struct(Strict::<D, TEXT>(d))
        }

        #[inline]
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.0.visit_map(Strict::<A, TEXT>(map))
        }

        #[inline]
        fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
            self.0.visit_enum(Strict::<A, TEXT>(data))
        }
    };
}

impl<'de, V: Visitor<'de>, const TEXT: bool> Visitor<'de> for Wrap<V, TEXT> {
    visitor_body!();

    #[inline]
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(Strict::<A, TEXT>(seq))
    }
}

impl<'de, V: Visitor<'de>, const TEXT: bool> Visitor<'de> for ObjectOnly<V, TEXT> {
    visitor_body!();

    /// A struct read from an array: refused.
    #[cold]
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Seq, &self))
    }
}

impl<'de, A: de::SeqAccess<'de>, const TEXT: bool> de::SeqAccess<'de> for Strict<A, TEXT> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(StrictSeed::<_, TEXT>(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>, const TEXT: bool> de::MapAccess<'de> for Strict<A, TEXT> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(StrictSeed::<_, TEXT>(seed))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(StrictSeed::<_, TEXT>(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: de::EnumAccess<'de>, const TEXT: bool> de::EnumAccess<'de> for Strict<A, TEXT> {
    type Error = A::Error;
    type Variant = Strict<A::Variant, TEXT>;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        self.0
            .variant_seed(StrictSeed::<_, TEXT>(seed))
            .map(|(v, variant)| (v, Strict::<_, TEXT>(variant)))
    }
}

impl<'de, A: de::VariantAccess<'de>, const TEXT: bool> de::VariantAccess<'de> for Strict<A, TEXT> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(StrictSeed::<_, TEXT>(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap::<V, TEXT>(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0
            .struct_variant(fields, ObjectOnly::<V, TEXT>(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::{Value, json};

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: String,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        inner: Inner,
        #[serde(default)]
        list: Vec<Inner>,
        #[serde(default)]
        maybe: Option<Inner>,
    }

    #[test]
    fn structs_are_objects_at_every_depth() {
        let ok = r#"{"inner":{"a":"x"},"list":[{"a":"y"}],"maybe":{"a":"z"}}"#;
        assert!(from_str::<Outer>(ok).is_ok());
        assert!(from_value::<Outer, _>(&serde_json::from_str::<Value>(ok).unwrap()).is_ok());
        for bad in [
            r#"[{"a":"x"}]"#,
            r#"{"inner":["x"]}"#,
            r#"{"inner":{"a":"x"},"list":[["y"]]}"#,
            r#"{"inner":{"a":"x"},"maybe":["z"]}"#,
        ] {
            // Plain serde reads each of these field by field.
            assert!(serde_json::from_str::<Outer>(bad).is_ok(), "{bad}");
            let e = from_str::<Outer>(bad).unwrap_err().to_string();
            assert!(e.contains("invalid type: sequence, expected struct"), "{e}");
            let value: Value = serde_json::from_str(bad).unwrap();
            let e = from_value::<Outer, _>(&value).unwrap_err().to_string();
            assert!(e.contains("invalid type: sequence, expected struct"), "{e}");
            assert!(from_value::<Outer, _>(value).is_err(), "{bad}");
        }
    }

    #[test]
    fn ignored_members_are_read_as_values() {
        for bad in [
            r#"{"inner":{"a":"x"},"ttl":6E9373}"#,
            r#"{"inner":{"a":"x","b":[1,{"c":-1e400}]}}"#,
            r#"{"inner":{"a":"x"},"s":"\ud800"}"#,
        ] {
            assert!(serde_json::from_str::<Outer>(bad).is_ok(), "{bad}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
            assert!(from_str::<Outer>(bad).is_err(), "{bad}");
        }
        let fine = json!({"inner": {"a": "x", "b": [1, {"c": 1e300}]}, "s": "\u{1F600}"});
        assert!(from_str::<Outer>(&fine.to_string()).is_ok());
    }
}
