//! Strict reading of one frame's JSON text: UTF-8 checked first, duplicate keys refused,
//! nesting bounded. The crate's one answer to "may a member repeat?": no, anywhere in a frame
//! (-32700), because `serde_json::Value` silently keeps the last of two equal keys and a frame
//! with two `id`s or two `method`s is ambiguous. Nesting depth is bounded by serde_json's
//! recursion limit (128), which turns a 10,000-deep line into an error instead of a stack
//! overflow. [`JsonRpcMessage::from_json`](crate::jsonrpc::JsonRpcMessage::from_json) and
//! `mcp-frames` read text through here.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::de::error::{ModelError, ModelErrorKind};
use crate::path::JsonPath;

/// Parses one frame's text as a JSON value, strictly (see the module docs). The error is
/// [`ModelErrorKind::NotJson`] (-32700), its text `column N: reason` with the 1-based byte
/// column where the problem was found.
pub fn read(bytes: &[u8]) -> Result<Value, ModelError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| not_json(e.valid_up_to() + 1, "invalid UTF-8"))?;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue.deserialize(&mut de).map_err(from_serde)?;
    de.end().map_err(from_serde)?;
    Ok(value)
}

fn not_json(column: usize, reason: impl fmt::Display) -> ModelError {
    ModelError::new(
        JsonPath::root(),
        ModelErrorKind::NotJson(format!("column {column}: {reason}")),
    )
}

fn from_serde(e: serde_json::Error) -> ModelError {
    // serde_json appends " at line L column C"; keep the reason alone, the column separately.
    let full = e.to_string();
    let reason = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => &full,
    };
    not_json(e.column().max(1), reason)
}

/// A `Value` deserializer that errors on a repeated object key.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key {key:?}")));
            }
            let v = map.next_value_seed(StrictValue)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error's text, `column N: reason`.
    fn fault(bytes: &[u8]) -> String {
        let e = read(bytes).unwrap_err();
        assert_eq!(e.code(), crate::jsonrpc::codes::PARSE_ERROR);
        match e.kind {
            ModelErrorKind::NotJson(text) => text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_like_serde_json_and_keeps_key_order() {
        let v = read(br#"{"b":1,"a":[true,null,1.5,-2,"x"]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":1,"a":[true,null,1.5,-2,"x"]}"#
        );
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_column() {
        // The end of the repeated key.
        assert_eq!(
            fault(br#"{"id":1,"method":"ping","id":2}"#),
            r#"column 28: duplicate key "id""#
        );
        assert_eq!(
            fault(br#"{"p":{"a":1,"a":1}}"#),
            r#"column 15: duplicate key "a""#
        );
    }

    #[test]
    fn truncated_json_reports_the_end_column() {
        assert_eq!(
            fault(br#"{"jsonrpc":"2.0","id":1"#),
            "column 23: EOF while parsing an object"
        );
    }

    #[test]
    fn invalid_utf8_reports_the_first_bad_byte() {
        assert_eq!(fault(b"{\"a\":\"\xff\"}"), "column 7: invalid UTF-8");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let line = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(
            fault(line.as_bytes()),
            "column 128: recursion limit exceeded"
        );
    }

    #[test]
    fn trailing_garbage_is_an_error() {
        assert_eq!(fault(br#"{} {}"#), "column 4: trailing characters");
    }
}
