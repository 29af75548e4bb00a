use proptest::prelude::*;
use serde_json::Value;

use super::super::MAX_DEPTH;
use super::super::scan_oracle::{judged_end, soundness};
use super::vouched_end;

fn assert_sound(text: &str, depth: usize) {
    if let Err(breach) = soundness(text, depth) {
        panic!("{breach}");
    }
}

#[test]
fn what_real_traffic_holds_is_vouched_for() {
    for text in [
        r#"{"content":[{"type":"text","text":"Found: Bergen, Ålesund, Tromsø"}],"isError":false}"#,
        r#"{ "a" : [ 1 , -2.50 , 0 , true , false , null ] ,"b":{}, "c":[] }"#,
        r#""tab\t quote\" slash\/ back\\ \b\f\n\r""#,
        r#""\u00e9 \u20AC \ud83d\ude00 \u0000""#,
        "-0.0",
        "123456789012345678901234567890",
    ] {
        assert_eq!(vouched_end(text, 0, 1), Some(text.len()), "{text}");
        assert_sound(text, 1);
    }
}

#[test]
fn a_string_ends_where_it_ends_at_every_offset_in_a_word() {
    // The scanner reads strings eight bytes at a time and takes the end from the word that
    // holds it: every position of the closing quote, of an escape and of a control character
    // within and across words, with plain bytes (ASCII and multi-byte) before and after.
    for filler in ["a", "é", "\u{7f}", " "] {
        for len in 0..24 {
            let body = filler.repeat(len);
            for (inner, ok) in [
                (body.clone(), true),
                (format!("{body}\\\"x"), true),
                (format!("{body}\\n{body}"), true),
                (format!("{body}\n"), false),
                (format!("{body}\u{1}x"), false),
            ] {
                let text = format!("\"{inner}\",7");
                let end = inner.len() + 2;
                assert_eq!(vouched_end(&text, 0, 1), ok.then_some(end), "{text:?}");
                assert_sound(&text, 1);
            }
        }
    }
}

#[test]
fn doubtful_or_invalid_values_are_left_to_the_deserializer() {
    for text in [
        "",
        "{",
        "[1,]",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{1:2}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":{"b":1,"b":1}}"#,
        r#"{"\u0061":1}"#,
        "\"a\tb\"",
        r#""\x""#,
        r#""\u12""#,
        r#""\ud800""#,
        r#""\ud800\u0041""#,
        r#""\udc00""#,
        "01",
        "-",
        "1.",
        ".5",
        "1e3",
        "1E-3",
        "+1",
        "tru",
        "nul",
        "\"open",
    ] {
        assert_eq!(vouched_end(text, 0, 1), None, "{text}");
    }
    let huge = format!("1{}", "0".repeat(400));
    assert_eq!(vouched_end(&huge, 0, 1), None);
    assert_eq!(
        judged_end(&huge, 1),
        None,
        "serde_json: number out of range"
    );
}

#[test]
fn nesting_is_bounded_as_the_deserializer_bounds_it() {
    for levels in [1, 2, 50] {
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let text = format!("{}0{}", open.repeat(levels), close.repeat(levels));
            let deepest_allowed = MAX_DEPTH - levels;
            assert_eq!(vouched_end(&text, 0, deepest_allowed), Some(text.len()));
            assert_eq!(judged_end(&text, deepest_allowed), Some(text.len()));
            assert_eq!(vouched_end(&text, 0, deepest_allowed + 1), None);
            assert_eq!(judged_end(&text, deepest_allowed + 1), None);
        }
    }
}

/// Any JSON value, with strings full of what needs escaping.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\"\\\\/\u{0}-\u{1f}é€😀 ]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_/.]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Characters that make or break JSON, for mutations.
const EDITS: &[char] = &[
    '"', '\\', '{', '}', '[', ']', ',', ':', '0', '1', '-', '.', 'e', 'u', 'd', '8', ' ', '\t',
    '\u{1}', 't', 'n',
];

proptest! {
    #[test]
    fn serialized_values_are_vouched_for_and_sound(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        assert_sound(&text, 1);
        // serde_json writes large floats with an exponent, which the scanner leaves alone.
        if !text.contains(['e', 'E']) || matches!(v, Value::String(_)) {
            prop_assert_eq!(vouched_end(&text, 0, 1), Some(text.len()), "{}", text);
        }
    }

    #[test]
    fn mutated_values_are_never_vouched_for_wrongly(
        v in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, prop::sample::select(EDITS)), 1..4),
    ) {
        let mut chars: Vec<char> = serde_json::to_string(&v).unwrap().chars().collect();
        for (at, op, c) in edits {
            let i = at.index(chars.len() + 1);
            match op {
                0 => chars.insert(i, c),
                1 if i < chars.len() => { chars.remove(i); }
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        let text: String = chars.into_iter().collect();
        for depth in [1, MAX_DEPTH - 2] {
            assert_sound(&text, depth);
        }
    }
}
