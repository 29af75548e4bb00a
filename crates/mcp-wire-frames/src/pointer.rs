//! Editing frames at JSON Pointers (RFC 6901): removing and inserting object members, what
//! `explain`'s accounting is checked against. Pointers are the crate's: written by
//! [`mcp_wire::JsonPath::pointer`], read by [`mcp_wire::pointer_tokens`]; reading a value at
//! one is `serde_json`'s [`Value::pointer`].

use mcp_wire::pointer_tokens;
use serde_json::{Map, Value};

/// Removes the object member at `pointer`; returns it. Array elements are never removed
/// (nothing in a frame is stripped by position).
pub fn remove(value: &mut Value, pointer: &str) -> Option<Value> {
    let toks = pointer_tokens(pointer)?;
    let (last, parents) = toks.split_last()?;
    parent(value, parents, false)?.shift_remove(last)
}

/// Sets the object member at `pointer`, creating missing parent objects. Returns false when a
/// parent exists but is not an object (or array with that index).
pub fn insert(value: &mut Value, pointer: &str, new: Value) -> bool {
    let Some(toks) = pointer_tokens(pointer) else {
        return false;
    };
    let Some((last, parents)) = toks.split_last() else {
        *value = new;
        return true;
    };
    let parent = parent(value, parents, true);
    parent.map(|m| m.insert(last.clone(), new)).is_some()
}

/// The object at the path `tokens` (array elements by index); with `create`, missing members
/// on the way are made empty objects. `None` when the path leads elsewhere.
fn parent<'v>(
    value: &'v mut Value,
    tokens: &[String],
    create: bool,
) -> Option<&'v mut Map<String, Value>> {
    let mut v = value;
    for t in tokens {
        v = match (v, create) {
            (Value::Object(m), false) => m.get_mut(t)?,
            (Value::Object(m), true) => m
                .entry(t.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            (Value::Array(a), _) => a.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    v.as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::JsonPath;
    use serde_json::json;

    #[test]
    fn remove_and_insert() {
        let mut v = json!({"result":{"tools":[{"name":"t","x":1}],"ttlMs":0}});
        assert_eq!(remove(&mut v, "/result/ttlMs"), Some(json!(0)));
        assert_eq!(remove(&mut v, "/result/tools/0/x"), Some(json!(1)));
        assert!(insert(&mut v, "/params/_meta/k", json!(true)));
        assert_eq!(
            v,
            json!({"result":{"tools":[{"name":"t"}]},"params":{"_meta":{"k":true}}})
        );
        assert!(!insert(&mut v, "/result/tools/name", json!(1)));
    }

    #[test]
    fn escaped_keys_are_edited_where_the_crate_points() {
        let at = JsonPath::root()
            .key("params")
            .key("_meta")
            .key("io.modelcontextprotocol/protocolVersion")
            .pointer();
        let mut v = json!({"params":{"_meta":{}}});
        assert!(insert(&mut v, &at, json!("x")));
        assert_eq!(
            v,
            json!({"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}})
        );
        assert_eq!(v.pointer(&at), Some(&json!("x")));
        assert_eq!(remove(&mut v, &at), Some(json!("x")));
    }
}
