//! The writer against `serde_json::to_vec`: every shape of the serde data model, map keys (and
//! the keys both refuse), raw values, and random strings and values.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::*;

/// What `serde_json` writes, or its error text.
fn reference<T: Serialize + ?Sized>(value: &T) -> std::result::Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|e| e.to_string())
}

/// What the writer writes, or its error text.
fn ours<T: Serialize + ?Sized>(value: &T) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    value
        .serialize(&mut JsonWriter::new(&mut out))
        .map(|()| out)
        .map_err(|e| e.to_string())
}

/// The writer writes `value` as `serde_json` does: the same text, or the same refusal.
#[track_caller]
fn same<T: Serialize + ?Sized>(value: &T) {
    let text = |r: std::result::Result<Vec<u8>, String>| r.map(String::from_utf8);
    assert_eq!(text(ours(value)), text(reference(value)));
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(u8);

#[derive(Serialize)]
struct Pair(i32, &'static str);

#[derive(Serialize)]
enum Shape {
    Unit,
    Newtype(i64),
    Tuple(u8, bool),
    Struct { a: Option<u8>, b: &'static str },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Everything {
    a_bool: bool,
    signed: (i8, i16, i32, i64, i128),
    unsigned: (u8, u16, u32, u64, u128),
    floats: (f32, f64),
    chars: Vec<char>,
    text: String,
    none: Option<u8>,
    some: Option<&'static str>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    tuple: (u8, &'static str, ()),
    tuple_struct: Pair,
    shapes: Vec<Shape>,
    empty_vec: Vec<u8>,
    empty_map: BTreeMap<String, u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    nested: Vec<Vec<BTreeMap<&'static str, Vec<u8>>>>,
}

/// Bytes through `serialize_bytes` (a `Vec<u8>` would be a sequence).
struct Bytes(&'static [u8]);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// A value written through `collect_str`.
struct Displayed(&'static str);

impl Serialize for Displayed {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("<{}|{}>", self.0, self.0))
    }
}

/// Every shape of the serde data model, raw values and JSON values.
#[test]
fn every_shape_of_the_data_model_is_written_as_serde_json_writes_it() {
    same(&Everything {
        a_bool: true,
        signed: (i8::MIN, -300, i32::MAX, i64::MIN, i128::MIN),
        unsigned: (255, 0, 7, u64::MAX, u128::MAX),
        floats: (0.1, -1.5e300),
        chars: vec!['a', '"', '\\', '\n', '\u{1}', 'é', '🦀'],
        text: "plain".into(),
        none: None,
        some: Some("x"),
        unit: (),
        unit_struct: Unit,
        newtype: Newtype(3),
        tuple: (1, "two", ()),
        tuple_struct: Pair(-1, "p"),
        shapes: vec![
            Shape::Unit,
            Shape::Newtype(-9),
            Shape::Tuple(4, false),
            Shape::Struct { a: None, b: "b" },
            Shape::Struct { a: Some(1), b: "" },
        ],
        empty_vec: vec![],
        empty_map: BTreeMap::new(),
        skipped: None,
        nested: vec![
            vec![],
            vec![BTreeMap::from([("k", vec![1, 2]), ("", vec![])])],
        ],
    });
    #[rustfmt::skip]
    let floats = [0.0, -0.0, 1.0, 0.1 + 0.2, 1e21, 1e-7, f64::MAX, f64::MIN_POSITIVE, f64::NAN,
        f64::INFINITY, f64::NEG_INFINITY];
    for f in floats {
        same(&f);
        same(&(f as f32));
    }
    same(&Bytes(b"\x00\xffab"));
    same(&Bytes(b""));
    same(&Displayed("a\"b\\c\u{7}"));
    same(&Some(Some(())));
    // Raw values verbatim, and JSON values with every kind of member.
    let raw = serde_json::value::RawValue::from_string(r#"{"a" : [1, 2]}"#.to_owned()).unwrap();
    same(&raw);
    same(&vec![raw.clone(), raw]);
    same(&json!({
        "null": null, "t": true, "f": false, "i": -12, "u": u64::MAX, "x": 2.5,
        "s": "line\nbreak \"quoted\" back\\slash \u{1f} \u{7f} é 🦀",
        "a": [[], {}, [null, {"k": "v"}]], "": {"": ""}
    }));
}

#[test]
fn map_keys_follow_serde_json_including_its_refusals() {
    same(&BTreeMap::from([(1i32, "a"), (-2, "b")]));
    same(&BTreeMap::from([(u128::MAX, 0)]));
    same(&BTreeMap::from([(true, 1), (false, 2)]));
    same(&BTreeMap::from([('"', 1), ('é', 2)]));
    same(&BTreeMap::from([("a\tb\u{0}", 1)]));
    #[derive(Serialize)]
    enum Key {
        Variant,
        Newtype(u8),
    }
    same(&OneKey(&Key::Variant));
    same(&OneKey(&Newtype(7)));
    same(&OneKey(&1.5f64));
    same(&OneKey(&-0.25f32));
    same(&OneKey(&Some("k")));
    same(&OneKey(&Displayed("shown")));
    same(&OneKey(&f64::NAN));
    same(&OneKey(&f32::INFINITY));
    // The keys serde_json refuses are refused with the same message (a NaN key too).
    #[rustfmt::skip]
    let refused = [ours(&OneKey(&Key::Newtype(1))), ours(&OneKey(&())), ours(&OneKey(&Unit)),
        ours(&OneKey(&None::<&str>)), ours(&OneKey(&Bytes(b"k"))), ours(&OneKey(&vec![1])),
        ours(&OneKey(&(1, 2))), ours(&OneKey(&BTreeMap::<u8, u8>::new()))];
    for (i, refused) in refused.into_iter().enumerate() {
        assert_eq!(refused, Err("key must be a string".to_owned()), "key {i}");
    }
    assert!(ours(&OneKey(&f64::NAN)).is_err());
}

/// Every ASCII character and multi-byte characters of every UTF-8 length, at every position
/// of strings around the eight-byte scan's chunk size, alone and with a second character to
/// escape at the end (which must not hide the first).
#[test]
fn strings_of_every_length_around_the_chunk_size() {
    let multi_byte = [
        "é",
        "\u{7ff}",
        "\u{800}",
        "\u{2028}",
        "\u{ffff}",
        "🦀",
        "\u{10ffff}",
    ];
    let specials: Vec<String> = (0u8..0x80)
        .map(|b| char::from(b).to_string())
        .chain(multi_byte.map(String::from))
        .collect();
    for len in 0..24 {
        for special in &specials {
            for at in 0..=len {
                for tail in ["", "\n"] {
                    let mut s: String = "x".repeat(len);
                    s.insert_str(at, special);
                    s.push_str(tail);
                    same(&s);
                }
            }
        }
    }
}

/// Strings drawn mostly from the characters that matter to escaping.
pub(in crate::wire) fn tricky_string() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("a".to_owned()),
        Just("bcdefgh".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        (0u8..0x20).prop_map(|b| char::from(b).to_string()),
        Just("\u{7f}".to_owned()),
        Just("é".to_owned()),
        Just("\u{2028}".to_owned()),
        Just("🦀".to_owned()),
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

/// JSON values of every kind, with tricky strings as keys and values.
pub(in crate::wire) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        tricky_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((tricky_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Arbitrary strings escaped, and random values written, as `serde_json` writes them.
    #[test]
    fn strings_and_values_are_written_as_serde_json_writes_them(
        s in any::<String>(), v in json_value()
    ) {
        prop_assert_eq!(ours(&s), reference(&s));
        prop_assert_eq!(ours(&v), reference(&v));
    }
}
