//! JSON-RPC envelope classification (identical at every revision): request, notification,
//! success response or error response, with the id typed strictly (string or integer within
//! `i64`, the crate's [`RequestId`]; never a boolean, a fraction or `null` on a request). The
//! classification is the session layer's [`Envelope`].

use std::fmt;

use serde_json::{Map, Value};

pub use mcp_types::jsonrpc::RequestId;
pub use mcp_types::session::Envelope;

/// A frame that is not a valid JSON-RPC 2.0 message (JSON-RPC code -32600).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeError {
    /// What was expected and what was found.
    pub reason: String,
    /// The frame's id when it is usable (so an error reply can still name it).
    pub id: Option<RequestId>,
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fraction",
        Value::Number(n) if n.as_i64().is_none() && n.is_u64() => {
            "an integer beyond the signed 64-bit range"
        }
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Classifies a frame by its envelope.
pub fn classify(frame: &Value) -> Result<Envelope, EnvelopeError> {
    let map = match frame {
        Value::Object(m) => m,
        Value::Array(_) => {
            return Err(EnvelopeError {
                reason: "JSON-RPC batches are not supported at any revision".into(),
                id: None,
            });
        }
        other => {
            return Err(EnvelopeError {
                reason: format!("expected a JSON-RPC object, found {}", kind_of(other)),
                id: None,
            });
        }
    };
    let fail = |reason: String, id: Option<RequestId>| Err(EnvelopeError { reason, id });
    let raw_id = map.get("id");
    let id = raw_id.and_then(RequestId::from_value);
    match map.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => return fail(format!("\"jsonrpc\" must be \"2.0\", found {other}"), id),
        None => return fail("missing \"jsonrpc\": \"2.0\"".into(), id),
    }
    let has = |k: &str| map.contains_key(k);
    let shapes = [has("method"), has("result"), has("error")];
    if shapes.iter().filter(|b| **b).count() > 1 {
        return fail(
            "a frame has exactly one of \"method\", \"result\" and \"error\"".into(),
            id,
        );
    }
    if let (Some(raw), None) = (raw_id, &id)
        && !(raw.is_null() && has("error"))
    {
        return fail(
            format!(
                "\"id\" must be a string or an integer, found {}",
                kind_of(raw)
            ),
            None,
        );
    }
    if let Some(m) = map.get("method") {
        let Value::String(method) = m else {
            return fail(
                format!("\"method\" must be a string, found {}", kind_of(m)),
                id,
            );
        };
        check_object(map, "params", &id)?;
        return Ok(match id {
            Some(id) => Envelope::Request {
                id,
                method: method.clone(),
            },
            None => Envelope::Notification {
                method: method.clone(),
            },
        });
    }
    if has("result") {
        check_object(map, "result", &id)?;
        return match id {
            Some(id) => Ok(Envelope::Response { id }),
            None => fail("a response needs an \"id\"".into(), None),
        };
    }
    if let Some(err) = map.get("error") {
        if raw_id.is_none() {
            return fail(
                "an error response needs an \"id\" (null when unknown)".into(),
                None,
            );
        }
        let Value::Object(e) = err else {
            return fail(
                format!("\"error\" must be an object, found {}", kind_of(err)),
                id,
            );
        };
        let code = match e.get("code").and_then(Value::as_i64) {
            Some(c) if e.get("code").is_some_and(|c| !c.is_f64()) => c,
            _ => return fail("\"error.code\" must be an integer".into(), id),
        };
        if !e.get("message").is_some_and(Value::is_string) {
            return fail("\"error.message\" must be a string".into(), id);
        }
        return Ok(Envelope::Error { id, code });
    }
    fail(
        "neither a request, a notification nor a response: no \"method\", \"result\" or \"error\""
            .into(),
        id,
    )
}

fn check_object(
    map: &Map<String, Value>,
    key: &str,
    id: &Option<RequestId>,
) -> Result<(), EnvelopeError> {
    match map.get(key) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(other) => Err(EnvelopeError {
            reason: format!("\"{key}\" must be an object, found {}", kind_of(other)),
            id: id.clone(),
        }),
    }
}

/// A JSON-RPC error response frame, as written with `--on-refuse error`.
pub fn error_frame(id: &RequestId, code: i64, message: &str) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    m.insert("id".into(), id.to_value());
    let mut e = Map::new();
    e.insert("code".into(), Value::from(code));
    e.insert("message".into(), Value::from(message));
    m.insert("error".into(), Value::Object(e));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_four_shapes() {
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Ok(Envelope::Request {
                id: RequestId::Integer(1),
                method: "ping".into()
            })
        );
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Ok(Envelope::Notification {
                method: "notifications/initialized".into()
            })
        );
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","id":"7","result":{}})),
            Ok(Envelope::Response {
                id: RequestId::String("7".into())
            })
        );
        assert_eq!(
            classify(
                &json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})
            ),
            Ok(Envelope::Error {
                id: None,
                code: -32700
            })
        );
    }

    #[test]
    fn boolean_and_fractional_ids_are_invalid_not_notifications() {
        let e = classify(&json!({"jsonrpc":"2.0","id":true,"method":"x"})).unwrap_err();
        assert_eq!(
            e.reason,
            "\"id\" must be a string or an integer, found a boolean"
        );
        let e = classify(&json!({"jsonrpc":"2.0","id":1.0,"method":"x"})).unwrap_err();
        assert_eq!(
            e.reason,
            "\"id\" must be a string or an integer, found a fraction"
        );
    }

    #[test]
    fn other_envelope_faults() {
        let r = |v: Value| classify(&v).unwrap_err().reason;
        assert_eq!(
            r(json!([1])),
            "JSON-RPC batches are not supported at any revision"
        );
        assert_eq!(
            r(json!({"jsonrpc":"1.0","method":"x"})),
            "\"jsonrpc\" must be \"2.0\", found \"1.0\""
        );
        assert_eq!(
            r(json!({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})),
            "\"params\" must be an object, found an array"
        );
        assert_eq!(
            r(json!({"jsonrpc":"2.0","error":{"code":1,"message":"m"}})),
            "an error response needs an \"id\" (null when unknown)"
        );
        assert_eq!(
            r(json!({"jsonrpc":"2.0","id":1,"result":{},"error":{}})),
            "a frame has exactly one of \"method\", \"result\" and \"error\""
        );
        let e = classify(&json!({"jsonrpc":"2.0","id":3,"method":"x","params":5})).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Integer(3)));
    }

    #[test]
    fn ids_round_trip_with_their_type() {
        for v in [json!(7), json!("7"), json!(i64::MAX), json!(-3)] {
            assert_eq!(RequestId::from_value(&v).unwrap().to_value(), v);
        }
        // Beyond i64 an integer id is refused, as the crate's envelope refuses it.
        let e = classify(&json!({"jsonrpc":"2.0","id":u64::MAX,"method":"x"})).unwrap_err();
        assert_eq!(
            e.reason,
            "\"id\" must be a string or an integer, found an integer beyond the signed 64-bit range"
        );
        assert_eq!(
            error_frame(&RequestId::String("a".into()), -32601, "no"),
            json!({"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}})
        );
    }
}
