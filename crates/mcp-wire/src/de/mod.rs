//! How every parse of the crate reads JSON into typed values, below the envelope and the model
//! that use it:
//!
//! - [`error`]: [`ModelError`], the located, typed error of a read, and [`error::codes`], the
//!   JSON-RPC error codes every error of the crate maps to;
//! - [`strict`]: the deserializer every read goes through (a struct is an object; an ignored
//!   member is still JSON);
//! - this file: the streaming reads of the model's unions, and [`from_value`].
//!
//! # Unions
//!
//! Streaming parse of the model's unions: the member is chosen while the object's entries
//! arrive, and the member struct then reads the same entries, without a `serde_json::Value` tree
//! of the whole object in between.
//!
//! - **Tagged unions** ([`Tagged`], used by `tagged_union!` and the `mode`-tagged elicitation
//!   params): when the tag is the object's first key (the usual case on real traffic), nothing is
//!   buffered: the tag is read, then the member struct reads the tag entry again (members carry
//!   their discriminator as a `tag!` field) followed by the rest of the map, straight from the
//!   input. Entries before the tag are kept as `(key, Value)` and replayed first, in their order.
//! - **Key-chosen unions** (no tag: `ResourceContents`, `InputResponse`, the result unions): the
//!   entries are collected into a short list (not a map), the member is chosen by which keys are
//!   present, and the list is replayed into it.
//!
//! This works for any `Deserializer`: text (`serde_json::from_str`/`from_slice`), `Value` and
//! `&Value`. Errors keep the kinds of [`error`] (`UnknownTag`, `MissingTag`) and, under
//! [`from_value`], their JSON paths: an error inside a replayed entry gets the entry's key put in
//! front of its path (only while `from_value` runs; the text reads need no path).
//!
//! Duplicate keys: a `Value` keeps the last of duplicate keys (it reads
//! `{"type":"text","text":"a","text":"b"}` as `"b"`); streaming hands both entries to the member,
//! and serde's derived structs refuse a duplicate field. The wire boundary's text entry points
//! (`parse_as`, …) fall back to the `Value` path whenever the streaming parse fails, so they
//! keep the last-wins reading.

pub(crate) mod error;
pub(crate) mod strict;
pub(crate) mod value;

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, IntoDeserializer, MapAccess,
    SeqAccess, Unexpected, Visitor,
};
use serde_json::Value;

pub(crate) use self::error::PreciseGuard;
use self::error::{ModelError, encode, from_value_error, missing_tag, under_entry, unknown_tag};
use self::strict::{CowStr, FromValue, Strict};
use self::value::ValueRef;

/// An object key as read: borrowed from the input when the input allows it.
pub(crate) type Key<'de> = Cow<'de, str>;

/// One buffered object entry.
pub(crate) type Entry<'de> = (Key<'de>, Value);

/// Reads a map key; `None` when it equals `field` (no copy is made of that one).
struct KeySeed(&'static str);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<Key<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<Key<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok((v != self.0).then_some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((v != self.0).then(|| Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok((v != self.0).then_some(Cow::Owned(v)))
    }
}

/// What a discriminator's value turned out to be.
enum TagRead {
    /// One of the known tags (its index).
    Known(usize),
    /// A string that is no known tag.
    Unknown(String),
    /// Not a string at all (read over and dropped).
    NotString,
}

/// Reads a discriminator value against the known tags; never fails on a well-formed value (a
/// non-string is [`TagRead::NotString`], so the union reports its own missing-tag error).
struct TagSeed(&'static [&'static str]);

impl TagSeed {
    fn read(&self, v: &str) -> TagRead {
        match self.0.iter().position(|t| *t == v) {
            Some(i) => TagRead::Known(i),
            None => TagRead::Unknown(v.to_owned()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = TagRead;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TagRead, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = TagRead;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a discriminator")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TagRead, E> {
        Ok(self.read(v))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_unit<E: de::Error>(self) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_none<E: de::Error>(self) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<TagRead, D::Error> {
        <IgnoredAny as de::Deserialize>::deserialize(d).map(|_| TagRead::NotString)
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<TagRead, E> {
        Ok(TagRead::NotString)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TagRead, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(TagRead::NotString)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TagRead, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(TagRead::NotString)
    }
}

/// What the replay emits between the buffered entries and the rest of the map.
enum Head {
    /// Nothing.
    None,
    /// A discriminator entry with a known value (`"method": "tools/call"`).
    Tag(&'static str, &'static str),
    /// A key already read from the real map, whose value the real map still holds.
    Key(&'static str),
}

/// A `MapAccess` that replays buffered entries, then the [`Head`], then forwards to the real map.
pub(crate) struct Replay<'de, A> {
    buffered: std::vec::IntoIter<Entry<'de>>,
    /// The buffered entry whose key was just handed out.
    pending: Option<Entry<'de>>,
    head: Head,
    /// The value of a replayed tag, due after its key.
    tag_value: Option<&'static str>,
    /// Whether the head's key was handed out and its value must come from the real map.
    head_value_from_inner: bool,
    inner: Option<A>,
}

impl<'de, A: MapAccess<'de>> Replay<'de, A> {
    fn new(buffered: Vec<Entry<'de>>, head: Head, inner: Option<A>) -> Self {
        Replay {
            buffered: buffered.into_iter(),
            pending: None,
            head,
            tag_value: None,
            head_value_from_inner: false,
            inner,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some(entry) = self.buffered.next() {
            let key = match &entry.0 {
                Cow::Borrowed(k) => seed.deserialize(BorrowedStrDeserializer::new(k)),
                Cow::Owned(k) => seed.deserialize(k.as_str().into_deserializer()),
            };
            self.pending = Some(entry);
            return key.map(Some);
        }
        match std::mem::replace(&mut self.head, Head::None) {
            Head::Tag(field, value) => {
                self.tag_value = Some(value);
                return seed
                    .deserialize(BorrowedStrDeserializer::new(field))
                    .map(Some);
            }
            Head::Key(field) => {
                self.head_value_from_inner = true;
                return seed
                    .deserialize(BorrowedStrDeserializer::new(field))
                    .map(Some);
            }
            Head::None => {}
        }
        match &mut self.inner {
            Some(inner) => inner.next_key_seed(seed),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if let Some((key, value)) = self.pending.take() {
            return replay_value(seed, &key, value);
        }
        if let Some(value) = self.tag_value.take() {
            return seed.deserialize(TagValue(value, PhantomData));
        }
        self.head_value_from_inner = false;
        match &mut self.inner {
            Some(inner) => inner.next_value_seed(seed),
            None => Err(A::Error::custom("a map value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        None
    }
}

/// A replayed discriminator value: a string, which (like `serde_json`) also reads as `Some`
/// of itself for an optional tag field (`mode` of the form-mode elicitation params).
struct TagValue<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for TagValue<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        BorrowedStrDeserializer::<E>::new(self.0).deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Deserializes a buffered entry's value. Under [`from_value`] the error carries the
/// entry's key and the path inside the value (packed like every union error); otherwise only
/// the message is kept.
fn replay_value<'de, V: DeserializeSeed<'de>, E: de::Error>(
    seed: V,
    key: &str,
    value: Value,
) -> Result<V::Value, E> {
    seed.deserialize(Strict(ValueRef(&value), FromValue))
        .map_err(|e| under_entry(e, key))
}

/// A union chosen by a string discriminator; implemented by `tagged_union!`.
pub(crate) trait Tagged: Sized {
    /// The discriminator key (`"type"`, `"method"`, `"mode"`).
    const TAG_FIELD: &'static str;
    /// The known tag values, in member order.
    const TAG_VALUES: &'static [&'static str];
    /// The member read when the discriminator is absent (`None`: absence is an error).
    const DEFAULT_MEMBER: Option<usize> = None;

    /// Parses member number `index` (of [`Self::TAG_VALUES`]) from `d`.
    fn member<'de, D: Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error>;
}

/// The `Deserialize` body of a [`Tagged`] union.
pub(crate) fn deserialize_tagged<'de, T: Tagged, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    d.deserialize_any(TaggedVisitor::<T>(PhantomData))
}

struct TaggedVisitor<T>(PhantomData<T>);

/// Implements every non-object `visit_*` of a union visitor by building the `Value` and handing
/// it to the visitor's `value` method (the `Value` detour's behaviour for values that are not
/// objects: the union or its default member reports the error).
macro_rules! scalars_as_value {
    () => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            self.value(Value::Bool(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.value(Value::from(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.value(Value::from(v))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.value(Value::from(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            self.value(Value::from(v))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.value(Value::Null)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.value(Value::Null)
        }
        fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
            let value = <Value as de::Deserialize>::deserialize(SeqAccessDeserializer::new(seq))?;
            self.value(value)
        }
    };
}

impl<T: Tagged> TaggedVisitor<T> {
    fn value<E: de::Error>(self, value: Value) -> Result<T, E> {
        match T::DEFAULT_MEMBER {
            Some(i) => T::member(i, Strict(ValueRef(&value), FromValue)).map_err(E::custom),
            None => Err(missing_tag(T::TAG_FIELD)),
        }
    }
}

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with a `{}` discriminator", T::TAG_FIELD)
    }

    scalars_as_value!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut buffered = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed(T::TAG_FIELD))? {
            match key {
                Some(key) => {
                    let value: Value = map.next_value()?;
                    buffered.push((key, value));
                }
                None => {
                    return match map.next_value_seed(TagSeed(T::TAG_VALUES))? {
                        TagRead::Known(i) => {
                            let head = Head::Tag(T::TAG_FIELD, T::TAG_VALUES[i]);
                            let replay = Replay::new(buffered, head, Some(map));
                            T::member(i, MapAccessDeserializer::new(replay))
                        }
                        TagRead::Unknown(tag) => {
                            Err(unknown_tag(T::TAG_FIELD, &tag, T::TAG_VALUES))
                        }
                        TagRead::NotString => Err(missing_tag(T::TAG_FIELD)),
                    };
                }
            }
        }
        match T::DEFAULT_MEMBER {
            Some(i) => T::member(i, MapAccessDeserializer::new(Replay::<A>::done(buffered))),
            None => Err(missing_tag(T::TAG_FIELD)),
        }
    }
}

impl<'de, A: MapAccess<'de>> Replay<'de, A> {
    /// A replay of entries read to the end of the map.
    fn done(buffered: Vec<Entry<'de>>) -> Self {
        Replay::new(buffered, Head::None, None)
    }
}

/// The entries of an object read so far, for unions chosen by their keys.
pub(crate) struct Entries<'de> {
    entries: Vec<Entry<'de>>,
}

impl<'de> Entries<'de> {
    /// Whether key `key` is present.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// The value of key `key` (the last one, like a `Value` map, if it is repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Parses the entries as `T` (a member struct), in their order.
    pub(crate) fn parse<T: de::Deserialize<'de>>(self) -> Result<T, String> {
        T::deserialize(MapAccessDeserializer::new(
            Replay::<NoMap<de::value::Error>>::done(self.entries),
        ))
        .map_err(|e| e.to_string())
    }
}

/// A map with no entries, standing for a real map already read to its end.
struct NoMap<E>(PhantomData<E>);

impl<'de, E: de::Error> MapAccess<'de> for NoMap<E> {
    type Error = E;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _: K) -> Result<Option<K::Value>, E> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, _: V) -> Result<V::Value, E> {
        Err(E::custom("a map value was asked for before its key"))
    }
}

/// When a row of a key-ranked union ([`KeyRank`]) picks its member.
pub(crate) enum Keys {
    /// The object has at least one of these keys.
    Any(&'static [&'static str]),
    /// The object has every one of these keys.
    All(&'static [&'static str]),
    /// The key holds this string.
    Equals(&'static str, &'static str),
}

impl Keys {
    fn hold(&self, e: &Entries<'_>) -> bool {
        match self {
            Keys::Any(keys) => keys.iter().any(|k| e.has(k)),
            Keys::All(keys) => keys.iter().all(|k| e.has(k)),
            Keys::Equals(key, want) => e.get(key).and_then(Value::as_str) == Some(*want),
        }
    }
}

/// Parses an object's entries as one member of a union.
pub(crate) type ParseMember<T> = for<'a> fn(Entries<'a>) -> Result<T, String>;

/// A union chosen by the keys of its object: the first row whose [`Keys`] hold parses the
/// entries; when none does, `otherwise` does.
pub(crate) struct KeyRank<T: 'static> {
    pub rows: &'static [(Keys, ParseMember<T>)],
    pub otherwise: ParseMember<T>,
}

impl<T> KeyRank<T> {
    /// Parses `e` as the member its keys pick.
    pub(crate) fn choose(&self, e: Entries<'_>) -> Result<T, String> {
        let parse = self
            .rows
            .iter()
            .find(|(keys, _)| keys.hold(&e))
            .map_or(self.otherwise, |(_, parse)| *parse);
        parse(e)
    }
}

/// Reads a whole object into [`Entries`] and lets `choose` parse them; any other JSON value is
/// handed to `scalar` as a `Value` (so the member reports its own "invalid type" error, as it did
/// when every union went through a `Value`).
pub(crate) fn deserialize_by_keys<'de, T, D: Deserializer<'de>>(
    d: D,
    choose: fn(Entries<'de>) -> Result<T, String>,
    scalar: fn(Value) -> Result<T, String>,
) -> Result<T, D::Error> {
    struct V<'de, T> {
        choose: fn(Entries<'de>) -> Result<T, String>,
        scalar: fn(Value) -> Result<T, String>,
    }
    impl<'de, T> V<'de, T> {
        fn value<E: de::Error>(self, value: Value) -> Result<T, E> {
            (self.scalar)(value).map_err(E::custom)
        }
    }
    impl<'de, T> Visitor<'de> for V<'de, T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut entries = Vec::new();
            while let Some(key) = map.next_key_seed(CowStr)? {
                let value: Value = map.next_value()?;
                entries.push((key, value));
            }
            (self.choose)(Entries { entries }).map_err(A::Error::custom)
        }

        scalars_as_value!();
    }
    d.deserialize_any(V { choose, scalar })
}

/// Unions chosen by whether one key is present (`ResourceContents`: `blob`): entries before
/// that key are buffered; once it is seen the rest streams into `with`. Without it, or for a
/// value that is not an object, the value is `without`.
pub(crate) fn deserialize_if_key<'de, D, W, O, T>(
    d: D,
    key: &'static str,
    with: fn(W) -> T,
    without: fn(O) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    W: de::Deserialize<'de>,
    O: de::Deserialize<'de>,
{
    struct V<W, O, T> {
        key: &'static str,
        with: fn(W) -> T,
        without: fn(O) -> T,
    }
    impl<'de, W, O: de::Deserialize<'de>, T> V<W, O, T> {
        fn value<E: de::Error>(self, value: Value) -> Result<T, E> {
            strict::from_value::<O>(&value)
                .map(self.without)
                .map_err(E::custom)
        }
    }
    impl<'de, W, O, T> Visitor<'de> for V<W, O, T>
    where
        W: de::Deserialize<'de>,
        O: de::Deserialize<'de>,
    {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut buffered = Vec::new();
            while let Some(key) = map.next_key_seed(KeySeed(self.key))? {
                match key {
                    Some(key) => {
                        let value: Value = map.next_value()?;
                        buffered.push((key, value));
                    }
                    None => {
                        let replay = Replay::new(buffered, Head::Key(self.key), Some(map));
                        return W::deserialize(MapAccessDeserializer::new(replay)).map(self.with);
                    }
                }
            }
            O::deserialize(MapAccessDeserializer::new(Replay::<A>::done(buffered)))
                .map(self.without)
        }

        scalars_as_value!();
    }
    d.deserialize_any(V { key, with, without })
}

/// `SamplingContent`-style unions: an array is `many`; anything else is `one`.
pub(crate) fn deserialize_one_or_many<'de, D, One, Many, T>(
    d: D,
    one: fn(One) -> T,
    many: fn(Many) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    One: de::Deserialize<'de>,
    Many: de::Deserialize<'de>,
{
    struct V<One, Many, T> {
        one: fn(One) -> T,
        many: fn(Many) -> T,
    }
    impl<'de, One: de::Deserialize<'de>, Many, T> V<One, Many, T> {
        fn scalar<E: de::Error>(self, value: Value) -> Result<T, E> {
            strict::from_value::<One>(&value)
                .map(self.one)
                .map_err(E::custom)
        }
    }
    impl<'de, One, Many, T> Visitor<'de> for V<One, Many, T>
    where
        One: de::Deserialize<'de>,
        Many: de::Deserialize<'de>,
    {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object or an array")
        }

        fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<T, S::Error> {
            Many::deserialize(SeqAccessDeserializer::new(seq)).map(self.many)
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            One::deserialize(MapAccessDeserializer::new(map)).map(self.one)
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
            self.scalar(Value::Bool(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            self.scalar(Value::from(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            self.scalar(Value::from(v))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
            self.scalar(Value::from(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            self.scalar(Value::from(v))
        }
        fn visit_unit<E: de::Error>(self) -> Result<T, E> {
            self.scalar(Value::Null)
        }
        fn visit_none<E: de::Error>(self) -> Result<T, E> {
            self.scalar(Value::Null)
        }
    }
    d.deserialize_any(V { one, many })
}

/// Reads a string and checks it is `expected` without copying it (the `tag!` constants).
pub(crate) fn expect_tag<'de, D: Deserializer<'de>>(
    d: D,
    expected: &'static str,
) -> Result<(), D::Error> {
    struct V(&'static str);
    struct Quoted(&'static str);
    impl de::Expected for Quoted {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "\"{}\"", self.0)
        }
    }
    impl Visitor<'_> for V {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
            if v == self.0 {
                Ok(())
            } else {
                Err(E::invalid_value(Unexpected::Str(v), &Quoted(self.0)))
            }
        }
    }
    d.deserialize_str(V(expected))
}

/// Reads a string for an open enumeration without an intermediate copy.
pub(crate) fn read_open_str<'de, D: Deserializer<'de>, T>(
    d: D,
    from_str: fn(&str) -> T,
    from_string: fn(String) -> T,
) -> Result<T, D::Error> {
    struct V<T> {
        from_str: fn(&str) -> T,
        from_string: fn(String) -> T,
    }
    impl<T> Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            Ok((self.from_str)(v))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
            Ok((self.from_string)(v))
        }
    }
    d.deserialize_str(V {
        from_str,
        from_string,
    })
}

/// The untagged unions of the generated modules (only they use this, so it is built with
/// them).
#[cfg(any_revision)]
mod generated_unions {
    use super::*;
    use crate::de::error::ModelErrorKind;

    /// One member of a generated untagged union (see [`untagged`]): its type's name, the string
    /// constants it requires (`type` = `"text"`), the keys it names, and its parse.
    pub(crate) struct Member<T> {
        /// The member type's spec name, e.g. `TextContent`.
        pub(crate) name: &'static str,
        /// Required string constants of the member (its discriminators), `(key, value)`.
        pub(crate) tags: &'static [(&'static str, &'static str)],
        /// The wire keys the member names.
        pub(crate) keys: &'static [&'static str],
        /// Parses the value as this member, wrapped in the union.
        pub(crate) parse: fn(&Value) -> Result<T, ModelError>,
    }

    /// A generated union member's parse, located ([`from_value`]'s path and kind).
    pub(crate) fn member<T: de::DeserializeOwned>(value: &Value) -> Result<T, ModelError> {
        located_read(value)
    }

    /// The `Deserialize` of a generated untagged union (emitted by `cargo xtask codegen`): the
    /// first member that parses; when none does, the error of the closest one, named, at its JSON
    /// path (serde's derived untagged enums say only "data did not match any variant").
    ///
    /// Closest: the member whose discriminators the value carries (a member with another
    /// `type` ranks below one with none), then the one naming most of the value's keys, then the
    /// one that failed deepest; the first in schema order on a tie.
    pub(crate) fn untagged<'de, D: Deserializer<'de>, T>(
        d: D,
        union: &str,
        members: &[Member<T>],
    ) -> Result<T, D::Error> {
        let value = <Value as de::Deserialize>::deserialize(d)?;
        let mut closest: Option<((u8, usize, usize), &'static str, ModelError)> = None;
        for m in members {
            let e = match (m.parse)(&value) {
                Ok(v) => return Ok(v),
                Err(e) => e,
            };
            let tagged = if m.tags.is_empty() {
                1
            } else if m
                .tags
                .iter()
                .all(|(k, c)| value.get(k).and_then(Value::as_str) == Some(c))
            {
                2
            } else {
                0
            };
            let named = value.as_object().map_or(0, |o| {
                o.keys().filter(|k| m.keys.contains(&k.as_str())).count()
            });
            let score = (tagged, named, e.path.segments().len());
            if closest.as_ref().is_none_or(|(best, ..)| score > *best) {
                closest = Some((score, m.name, e));
            }
        }
        let Some((_, name, e)) = closest else {
            return Err(D::Error::custom(format!("{union} has no members")));
        };
        let message = format!(
            "no member of {union} matches; the closest, {name}, fails: {}",
            e.kind
        );
        if self::error::precise() {
            // Under `from_value` the path joins the union's own (`/content/0` + `/text`).
            return Err(D::Error::custom(encode(
                &e.path,
                &ModelErrorKind::Invalid(message),
            )));
        }
        Err(D::Error::custom(if e.path.is_root() {
            message
        } else {
            format!("{message} (at {})", e.path.pointer())
        }))
    }
}
#[cfg(any_revision)]
pub(crate) use generated_unions::{Member, member, untagged};

/// One arm of a generated module's `check_method_type`: `value` read as the generated type `T`,
/// the error at the failing member.
#[cfg(any_revision)]
pub(crate) fn check_as<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize::<_, T>(value).map(|_| ())
}

/// Parses `value` as `T`, reporting failures as a located, typed [`ModelError`].
pub fn from_value<T: de::DeserializeOwned>(value: Value) -> Result<T, ModelError> {
    located_read(&value)
}

/// [`from_value`] of a value the caller keeps (a member of a larger value), without a copy.
pub fn from_value_ref<T: de::DeserializeOwned>(value: &Value) -> Result<T, ModelError> {
    located_read(value)
}

/// Reads `value` as `T` through [`Strict`], with errors located: the one read of a `Value`,
/// which types it and, when it fails, says where (each map and array level the error climbs
/// out of puts its step in front of the path; see [`error::located`]).
pub(crate) fn located_read<T: de::DeserializeOwned>(value: &Value) -> Result<T, ModelError> {
    let _precise = PreciseGuard::enter();
    T::deserialize(Strict(ValueRef(value), FromValue)).map_err(|e| from_value_error(e, value))
}

/// Reads `value` as `T` from the value's JSON text, with the answer and the located error of
/// [`located_read`]: the text reader every text path already has, so a program that reads only
/// text needs no typed read of a `Value` to word its errors. The text is the value's own
/// serialization, in the value's member order, so each [`error::Step::Entry`] the read locates
/// names the same member of `value`.
pub(crate) fn located_text_read<T: de::DeserializeOwned>(value: &Value) -> Result<T, ModelError> {
    let text = value.to_string();
    let _precise = PreciseGuard::enter();
    strict::from_str(&text, strict::FromText).map_err(|e| from_value_error(e, value))
}

/// Parses `value` as `T` inside a `Deserialize` impl (union dispatch), keeping the member's
/// inner path and error kind in the returned serde error.
pub(crate) fn dispatch<T: de::DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    from_value(value).map_err(|e| E::custom(encode(&e.path, &e.kind)))
}

/// `deserialize_with` for optional any-JSON fields: a present `null` is kept as `Some(Null)`
/// (serde's `Option` would read it as absent), so `"structuredContent": null` round-trips.
pub(crate) fn keep_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

/// Reads the string discriminator `field` of an object value (`None` if absent or not a string).
pub(crate) fn tag_of<'v>(value: &'v Value, field: &str) -> Option<&'v str> {
    value.get(field).and_then(Value::as_str)
}
