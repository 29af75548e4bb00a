//! Strict JSON reading of one line: UTF-8 checked first, duplicate keys rejected, nesting bounded.
//!
//! `serde_json::Value` silently keeps the last of two equal keys; a frame with two `id`s or two
//! `method`s is ambiguous, so this reader refuses it. Nesting depth is bounded by serde_json's
//! recursion limit (128), which turns a 10,000-deep line into an error instead of a stack overflow.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why a line is not a JSON value. `column` is the 1-based byte column within the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// 1-based byte offset in the line where the problem was found.
    pub column: usize,
    /// What was wrong, e.g. `EOF while parsing an object` or `duplicate key "id"`.
    pub reason: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.reason)
    }
}

/// Parses one line as a JSON value, strictly (see the module docs).
pub fn parse_line(bytes: &[u8]) -> Result<Value, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|e| JsonError {
        column: e.valid_up_to() + 1,
        reason: "invalid UTF-8".to_owned(),
    })?;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue.deserialize(&mut de).map_err(to_json_error)?;
    de.end().map_err(to_json_error)?;
    Ok(value)
}

fn to_json_error(e: serde_json::Error) -> JsonError {
    // serde_json appends " at line L column C"; keep the reason alone, the column separately.
    let full = e.to_string();
    let reason = match full.rfind(" at line ") {
        Some(i) => full[..i].to_owned(),
        None => full,
    };
    JsonError {
        column: e.column().max(1),
        reason,
    }
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

    #[test]
    fn parses_like_serde_json_and_keeps_key_order() {
        let v = parse_line(br#"{"b":1,"a":[true,null,1.5,-2,"x"]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":1,"a":[true,null,1.5,-2,"x"]}"#
        );
    }

    #[test]
    fn duplicate_keys_are_refused_with_their_column() {
        let e = parse_line(br#"{"id":1,"method":"ping","id":2}"#).unwrap_err();
        assert_eq!(e.reason, r#"duplicate key "id""#);
        assert_eq!(e.column, 28); // the end of the repeated key
        let nested = parse_line(br#"{"p":{"a":1,"a":1}}"#).unwrap_err();
        assert_eq!(nested.reason, r#"duplicate key "a""#);
    }

    #[test]
    fn truncated_json_reports_the_end_column() {
        let e = parse_line(br#"{"jsonrpc":"2.0","id":1"#).unwrap_err();
        assert_eq!(e.reason, "EOF while parsing an object");
        assert_eq!(e.column, 23);
    }

    #[test]
    fn invalid_utf8_reports_the_first_bad_byte() {
        let e = parse_line(b"{\"a\":\"\xff\"}").unwrap_err();
        assert_eq!(
            e,
            JsonError {
                column: 7,
                reason: "invalid UTF-8".into()
            }
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let line = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = parse_line(line.as_bytes()).unwrap_err();
        assert_eq!(e.reason, "recursion limit exceeded");
        assert_eq!(e.column, 128);
    }

    #[test]
    fn trailing_garbage_is_an_error() {
        let e = parse_line(br#"{} {}"#).unwrap_err();
        assert_eq!(e.reason, "trailing characters");
        assert_eq!(e.column, 4);
    }
}
