//! JSON Pointers (RFC 6901) into frames: building, reading, removing and inserting, plus the
//! structural difference `explain` is checked against.

use serde_json::{Map, Value};

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Appends an escaped token to a pointer.
pub fn push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape(token))
}

/// Splits a pointer into unescaped tokens; `None` if it does not start with `/` (and is not "").
pub fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

fn step<'v>(v: &'v Value, t: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.get(t),
        Value::Array(a) => a.get(t.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The value at `pointer`.
pub fn get<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    tokens(pointer)?.iter().try_fold(value, |v, t| step(v, t))
}

/// Removes the object member at `pointer`; returns it. Array elements are never removed
/// (nothing in a frame is stripped by position).
pub fn remove(value: &mut Value, pointer: &str) -> Option<Value> {
    let toks = tokens(pointer)?;
    let (last, parents) = toks.split_last()?;
    let mut v = value;
    for t in parents {
        v = match v {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(a) => a.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    v.as_object_mut()?.shift_remove(last)
}

/// Sets the object member at `pointer`, creating missing parent objects. Returns false when a
/// parent exists but is not an object (or array with that index).
pub fn insert(value: &mut Value, pointer: &str, new: Value) -> bool {
    let Some(toks) = tokens(pointer) else {
        return false;
    };
    let Some((last, parents)) = toks.split_last() else {
        *value = new;
        return true;
    };
    let mut v = value;
    for t in parents {
        v = match v {
            Value::Object(m) => m
                .entry(t.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(a) => match t.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(e) => e,
                None => return false,
            },
            _ => return false,
        };
    }
    match v {
        Value::Object(m) => {
            m.insert(last.clone(), new);
            true
        }
        _ => false,
    }
}

/// The members removed from `before` and added in `after`, as pointers, walking objects and
/// equal-length arrays; any other change is reported as a removal plus an addition of the
/// whole value at that place.
pub fn diff(before: &Value, after: &Value) -> (Vec<String>, Vec<String>) {
    let mut removed = Vec::new();
    let mut added = Vec::new();
    walk(before, after, String::new(), &mut removed, &mut added);
    (removed, added)
}

fn walk(a: &Value, b: &Value, at: String, removed: &mut Vec<String>, added: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => walk(va, vb, push(&at, k), removed, added),
                    None => removed.push(push(&at, k)),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                added.push(push(&at, k));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                walk(va, vb, format!("{at}/{i}"), removed, added);
            }
        }
        _ if a == b => {}
        _ => {
            removed.push(at.clone());
            added.push(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escaping_round_trips() {
        let p = push("/params/_meta", "io.modelcontextprotocol/protocolVersion");
        assert_eq!(p, "/params/_meta/io.modelcontextprotocol~1protocolVersion");
        let v = json!({"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}});
        assert_eq!(get(&v, &p), Some(&json!("x")));
        assert_eq!(
            tokens("/a~0b/c~1d").unwrap(),
            vec!["a~b".to_string(), "c/d".to_string()]
        );
    }

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
    fn diff_reports_members() {
        let a = json!({"result":{"a":1,"ttlMs":0,"list":[{"k":1}]}});
        let b = json!({"result":{"a":1,"list":[{"k":1,"n":2}],"resultType":"complete"}});
        assert_eq!(
            diff(&a, &b),
            (
                vec!["/result/ttlMs".to_string()],
                vec![
                    "/result/list/0/n".to_string(),
                    "/result/resultType".to_string()
                ]
            )
        );
    }
}
