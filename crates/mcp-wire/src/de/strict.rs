//! [`Strict`]: the deserializer every parse of the model reads through (text, `Value`, a frame's
//! members, replayed union entries). It forwards everything to the deserializer it wraps, and
//! the wrappers it hands out (to visitors, maps, sequences, enums) are `Strict` again, so two
//! rules hold at every nesting level:
//!
//! - **A struct is a JSON object.** serde's derived structs also read a JSON array, field by
//!   field (`visit_seq`), so `"params":["x"]` would be a struct whose first field is `"x"`;
//!   every type the model reads as a struct is an object in the schema. The array form is
//!   refused with serde's own message (`invalid type: sequence, expected struct Tool`), located
//!   at its path when errors are located ([`super::from_value`]).
//! - **An ignored member is still JSON a `Value` can hold.** `serde_json` skips the value of a
//!   member a type does not name without reading it as a value: a number out of range
//!   (`6E9373`) or a lone surrogate escape passes there, and the same text read as a `Value`
//!   is refused. `Strict` reads ignored values as values (through [`de::IgnoredAny`]'s own
//!   visitor), so the text paths refuse what a `Value` cannot hold, in ignored members too.
//!
//! A third rule holds for text not yet checked by a strict reader ([`Unchecked`]): **no object
//! repeats a key, and nesting is bounded.** A typed read that succeeds in that mode has then
//! read the whole text as strict JSON (what `json_text` accepts, within the bound), so its caller
//! needs no separate check of the text. Any failure says nothing about which rule broke: the
//! caller checks the text as usual.

use std::borrow::Cow;
use std::fmt;
use std::hash::BuildHasher;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Unexpected, Visitor};
use serde_json::Value;
use smallvec::SmallVec;

use super::error::{Step, located};
use super::value::ValueRef;

/// How a [`Strict`] parse reads its input: what it checks beyond the two rules every mode keeps.
pub(crate) trait Mode: Copy {
    /// Whether the input is JSON text (ignored values are then read as values).
    const TEXT: bool;
    /// Whether an error climbing out of a map entry or an array element gets that step put in
    /// front of its path when errors are located ([`super::error::located`]). The `Value` reads
    /// and the reads of checked text do it, so one read both types a value and locates its
    /// error (a located read of text: [`super::located_text_read`]).
    const LOCATES: bool = false;
    /// The keys of one object read so far, for the repeated-key check (`()`: not checked).
    type Keys: Keys;
    /// The mode one level of nesting deeper; an error past the mode's bound.
    fn deeper<E: de::Error>(self) -> Result<Self, E>;
}

/// The keys of one object read so far.
pub(crate) trait Keys: Default {
    /// Whether keys are looked at (else `add` is never called).
    const CHECKED: bool;
    /// Adds `key`; an error if the object already has it.
    fn add<E: de::Error>(&mut self, key: &str) -> Result<(), E>;
}

impl Keys for () {
    const CHECKED: bool = false;

    fn add<E: de::Error>(&mut self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// Reads a `Value` (or a replayed entry): nothing is checked beyond what a `Value` holds.
#[derive(Clone, Copy)]
pub(crate) struct FromValue;

/// Reads JSON text a strict reader has checked, or whose repeated keys and depth are the
/// caller's business.
#[derive(Clone, Copy)]
pub(crate) struct FromText;

/// Reads JSON text no strict reader has checked: every object's keys differ, and at most
/// `levels` arrays and objects nest (the value's own included).
#[derive(Clone, Copy)]
pub(crate) struct Unchecked {
    /// Levels of nesting left.
    pub(crate) levels: usize,
}

impl Mode for FromValue {
    const TEXT: bool = false;
    const LOCATES: bool = true;
    type Keys = ();

    #[inline]
    fn deeper<E: de::Error>(self) -> Result<Self, E> {
        Ok(self)
    }
}

impl Mode for FromText {
    const TEXT: bool = true;
    const LOCATES: bool = true;
    type Keys = ();

    #[inline]
    fn deeper<E: de::Error>(self) -> Result<Self, E> {
        Ok(self)
    }
}

impl Mode for Unchecked {
    const TEXT: bool = true;
    type Keys = KeyHashes;

    #[inline]
    fn deeper<E: de::Error>(self) -> Result<Self, E> {
        match self.levels.checked_sub(1) {
            Some(levels) => Ok(Unchecked { levels }),
            None => Err(E::custom("nested too deep")),
        }
    }
}

/// An object's keys as hashes: two equal keys always clash; two different keys clash with
/// a chance of one in 2^64, which only sends the caller to its own check of the text.
#[derive(Default)]
pub(crate) struct KeyHashes(SmallVec<[u64; 16]>);

impl Keys for KeyHashes {
    const CHECKED: bool = true;

    #[inline]
    fn add<E: de::Error>(&mut self, key: &str) -> Result<(), E> {
        // A fixed seed: nothing is gained by provoking a clash (see above).
        let h = foldhash::fast::FixedState::default().hash_one(key);
        if self.0.contains(&h) {
            return Err(E::custom(format_args!("duplicate key `{key}`")));
        }
        self.0.push(h);
        Ok(())
    }
}

/// A deserializer whose structs are objects and, in a text mode, whose ignored values are read
/// as values; in [`Unchecked`] mode also no repeated key and bounded nesting (see the module
/// docs). The same wrapper serves as sequence, enum and variant access.
pub(crate) struct Strict<D, M>(pub(crate) D, pub(crate) M);

/// A map access whose keys are checked as its mode says, and whose values are [`Strict`].
pub(crate) struct StrictMap<A, M: Mode> {
    map: A,
    mode: M,
    keys: M::Keys,
    /// Entries handed out so far (counted when the mode locates errors).
    entries: usize,
}

/// A sequence access whose elements are [`Strict`]; it counts them when the mode locates
/// errors.
pub(crate) struct StrictSeq<A, M> {
    seq: A,
    mode: M,
    elements: usize,
}

/// Reads a `T` from JSON text through [`Strict`] in `mode` (trailing text refused, as
/// `serde_json::from_str`).
#[inline]
pub(crate) fn from_str<'a, T: de::Deserialize<'a>, M: Mode>(
    text: &'a str,
    mode: M,
) -> serde_json::Result<T> {
    let mut d = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Strict(&mut d, mode))?;
    d.end()?;
    Ok(value)
}

/// [`from_str`] into `slot`, which holds the value when this returns `Ok` and is empty
/// otherwise (the value is not returned through this function's `Result`, which would copy
/// it).
#[inline]
pub(crate) fn from_str_into<'a, T: de::Deserialize<'a>, M: Mode>(
    text: &'a str,
    mode: M,
    slot: &mut Option<T>,
) -> serde_json::Result<()> {
    let mut d = serde_json::Deserializer::from_str(text);
    *slot = Some(T::deserialize(Strict(&mut d, mode))?);
    d.end().inspect_err(|_| *slot = None)
}

/// Reads a `T` from a `Value` through [`Strict`] (the value is read, never lent from).
#[inline]
pub(crate) fn from_value<'de, T: de::Deserialize<'de>>(value: &Value) -> serde_json::Result<T> {
    T::deserialize(Strict(ValueRef(value), FromValue))
}

/// A seed whose deserializer is wrapped in [`Strict`].
pub(crate) struct StrictSeed<S, M>(pub(crate) S, pub(crate) M);

impl<'de, S: DeserializeSeed<'de>, M: Mode> DeserializeSeed<'de> for StrictSeed<S, M> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict(d, self.1))
    }
}

/// A visitor whose deserializers, maps, sequences and enums are wrapped in [`Strict`].
struct Wrap<V, M>(V, M);

/// A struct's visitor: refuses the array form, else [`Wrap`].
struct ObjectOnly<V, M>(V, M);

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
                self.0.$method(Wrap(visitor, self.1))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>, M: Mode> Deserializer<'de> for Strict<D, M> {
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
        slotted!(Wrap(visitor, self.1), |v| self.0.deserialize_any(v))
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        slotted!(Wrap(visitor, self.1), |v| self.0.deserialize_map(v))
    }

    /// From text: read as a value (see the module docs), then dropped.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if M::TEXT {
            self.0.deserialize_any(Wrap(visitor, self.1))
        } else {
            self.0.deserialize_ignored_any(Wrap(visitor, self.1))
        }
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Wrap(visitor, self.1))
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_newtype_struct(name, Wrap(visitor, self.1))
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Wrap(visitor, self.1))
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Wrap(visitor, self.1))
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        slotted!(ObjectOnly(visitor, self.1), |v| self
            .0
            .deserialize_struct(name, fields, v))
    }

    /// From text: read as [`TextEnum`] says, so that text and its `Value` answer alike.
    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap(visitor, self.1);
        if M::TEXT {
            let visitor = TextEnum {
                visitor,
                name,
                variants,
            };
            return self.0.deserialize_any(visitor);
        }
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// An enum read from text as [`ValueRef`] reads one from a `Value`: a string is a unit variant,
/// an object of one entry a variant and its value, and anything else is `invalid type: …,
/// expected string or map` (`serde_json`'s text reader says `expected value` there, and its
/// `Value` reader the former: a body's text and its `Value` must give one answer).
struct TextEnum<V> {
    visitor: V,
    name: &'static str,
    variants: &'static [&'static str],
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TextEnum<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("string or map")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.visitor.visit_enum(v.into_deserializer())
    }

    /// The one entry, read as a `Value` and handed to [`ValueRef`]. Any other number of entries
    /// is refused as [`ValueRef`] refuses it (the entries are counted as read, so an object that
    /// repeats its one key is refused too).
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let one_entry = || de::Error::invalid_value(Unexpected::Map, &"map with a single key");
        let Some((variant, value)) = map.next_entry::<String, Value>()? else {
            return Err(one_entry());
        };
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(one_entry());
        }
        let object = Value::Object(serde_json::Map::from_iter([(variant, value)]));
        ValueRef(&object)
            .deserialize_enum(self.name, self.variants, self.visitor)
            .map_err(de::Error::custom)
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
            self.0.visit_some(Strict(d, self.1))
        }

        #[inline]
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            self.0.visit_newtype_struct(Strict(d, self.1))
        }

        #[inline]
        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            self.0
                .visit_map(StrictMap::new(map, self.1.deeper::<A::Error>()?))
        }

        #[inline]
        fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
            self.0
                .visit_enum(Strict(data, self.1.deeper::<A::Error>()?))
        }
    };
}

impl<'de, V: Visitor<'de>, M: Mode> Visitor<'de> for Wrap<V, M> {
    visitor_body!();

    #[inline]
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(StrictSeq {
            seq,
            mode: self.1.deeper::<A::Error>()?,
            elements: 0,
        })
    }
}

impl<'de, V: Visitor<'de>, M: Mode> Visitor<'de> for ObjectOnly<V, M> {
    visitor_body!();

    /// A struct read from an array: refused.
    #[cold]
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Seq, &self))
    }
}

impl<'de, A: de::SeqAccess<'de>, M: Mode> de::SeqAccess<'de> for StrictSeq<A, M> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let read = self.seq.next_element_seed(StrictSeed(seed, self.mode));
        if M::LOCATES {
            let index = self.elements;
            self.elements += 1;
            return read.map_err(|e| located(e, Step::Index(index)));
        }
        read
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

impl<A, M: Mode> StrictMap<A, M> {
    fn new(map: A, mode: M) -> Self {
        StrictMap {
            map,
            mode,
            keys: M::Keys::default(),
            entries: 0,
        }
    }
}

impl<'de, A: de::MapAccess<'de>, M: Mode> de::MapAccess<'de> for StrictMap<A, M> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if !<M::Keys as Keys>::CHECKED {
            if M::LOCATES {
                self.entries += 1;
            }
            return self.map.next_key_seed(StrictSeed(seed, self.mode));
        }
        // The key is read as a string first, to be checked, then handed to the seed as one
        // (JSON keys are strings: a seed that wants a number or the like is refused, and the
        // caller checks the text its own way).
        let Some(key) = self.map.next_key_seed(CowStr)? else {
            return Ok(None);
        };
        self.keys.add::<A::Error>(&key)?;
        match key {
            Cow::Borrowed(k) => seed.deserialize(de::value::BorrowedStrDeserializer::new(k)),
            Cow::Owned(k) => seed.deserialize(k.into_deserializer()),
        }
        .map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let read = self.map.next_value_seed(StrictSeed(seed, self.mode));
        if M::LOCATES {
            // The value of the entry whose key was handed out last.
            let entry = self.entries.wrapping_sub(1);
            return read.map_err(|e| located(e, Step::Entry(entry)));
        }
        read
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

impl<'de, A: de::EnumAccess<'de>, M: Mode> de::EnumAccess<'de> for Strict<A, M> {
    type Error = A::Error;
    type Variant = Strict<A::Variant, M>;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let mode = self.1;
        self.0
            .variant_seed(StrictSeed(seed, mode))
            .map(|(v, variant)| (v, Strict(variant, mode)))
    }
}

impl<'de, A: de::VariantAccess<'de>, M: Mode> de::VariantAccess<'de> for Strict<A, M> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(StrictSeed(seed, self.1))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor, self.1))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, ObjectOnly(visitor, self.1))
    }
}

/// Reads a string (an object key, or a value such as `method`), borrowed when the input
/// allows it. The one such seed of the crate: the frame reader uses it too.
pub(crate) struct CowStr;

impl<'de> DeserializeSeed<'de> for CowStr {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CowStr {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
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
        assert!(from_str::<Outer, _>(ok, FromText).is_ok());
        assert!(from_value::<Outer>(&serde_json::from_str::<Value>(ok).unwrap()).is_ok());
        for bad in [
            r#"[{"a":"x"}]"#,
            r#"{"inner":["x"]}"#,
            r#"{"inner":{"a":"x"},"list":[["y"]]}"#,
            r#"{"inner":{"a":"x"},"maybe":["z"]}"#,
        ] {
            // Plain serde reads each of these field by field.
            assert!(serde_json::from_str::<Outer>(bad).is_ok(), "{bad}");
            let e = from_str::<Outer, _>(bad, FromText).unwrap_err().to_string();
            assert!(e.contains("invalid type: sequence, expected struct"), "{e}");
            let value: Value = serde_json::from_str(bad).unwrap();
            let e = from_value::<Outer>(&value).unwrap_err().to_string();
            assert!(e.contains("invalid type: sequence, expected struct"), "{e}");
        }
    }

    /// A struct with open members: a `Value` and flattened extras.
    #[derive(Debug, Deserialize)]
    struct Open {
        #[allow(dead_code)]
        v: Value,
        #[serde(flatten)]
        #[allow(dead_code)]
        rest: serde_json::Map<String, Value>,
    }

    #[test]
    fn unchecked_text_refuses_repeated_keys_and_deep_nesting() {
        let unchecked = |levels| Unchecked { levels };
        for ok in [
            r#"{"v":{"k":1,"l":[{"k":2}]},"x":{"k":1}}"#,
            r#"{"v":{"a":1,"\u0062":2}}"#,
            r#"{"v":[[1]],"w":[]}"#,
        ] {
            assert!(from_str::<Open, _>(ok, unchecked(4)).is_ok(), "{ok}");
        }
        for repeated in [
            r#"{"v":{"k":1,"k":2}}"#,
            r#"{"v":[{"k":1},{"k":1,"k":1}]}"#,
            r#"{"v":{"a":1,"\u0061":2}}"#,
            r#"{"v":1,"x":2,"x":3}"#,
            r#"{"v":1,"x":{"y":{"z":1,"z":1}}}"#,
        ] {
            // Read as text, a `Value` keeps the last of repeated keys; unchecked, they are refused.
            assert!(
                from_str::<Open, _>(repeated, FromText).is_ok(),
                "{repeated}"
            );
            let e = from_str::<Open, _>(repeated, unchecked(8)).unwrap_err();
            assert!(e.to_string().contains("duplicate key"), "{repeated}: {e}");
        }
        // Repeated keys of an ignored member, and of typed fields.
        for repeated in [
            r#"{"inner":{"a":"x","b":1,"b":1}}"#,
            r#"{"inner":{"a":"x"},"o":[{"k":1,"\u006b":2}]}"#,
        ] {
            assert!(
                from_str::<Outer, _>(repeated, FromText).is_ok(),
                "{repeated}"
            );
            assert!(
                from_str::<Outer, _>(repeated, unchecked(8)).is_err(),
                "{repeated}"
            );
        }
        // Every array and object counts, the outermost one included.
        let nested = r#"{"v":[[1]]}"#;
        assert!(from_str::<Open, _>(nested, unchecked(3)).is_ok());
        let e = from_str::<Open, _>(nested, unchecked(2)).unwrap_err();
        assert!(e.to_string().contains("nested too deep"), "{e}");
        assert!(from_str::<Open, _>(r#"{"v":{"k":{}}}"#, unchecked(2)).is_err());
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
            assert!(from_str::<Outer, _>(bad, FromText).is_err(), "{bad}");
        }
        let fine = json!({"inner": {"a": "x", "b": [1, {"c": 1e300}]}, "s": "\u{1F600}"});
        assert!(from_str::<Outer, _>(&fine.to_string(), FromText).is_ok());
    }
}
