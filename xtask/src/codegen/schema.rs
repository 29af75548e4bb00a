//! Small helpers over a schema document held as `serde_json::Value` (shared by the facts and the
//! type generators).

use anyhow::{Context, bail};
use serde_json::{Map, Value};

/// A revision's definitions (`definitions` or `$defs`), in schema order.
pub type Defs = Map<String, Value>;

/// The definition name of a `{"$ref": "#/definitions/X"}` / `#/$defs/X` schema.
pub fn ref_name(schema: &Value) -> Option<&str> {
    let r = schema.get("$ref")?.as_str()?;
    r.strip_prefix("#/$defs/")
        .or_else(|| r.strip_prefix("#/definitions/"))
}

/// An object schema with `allOf` merged away.
#[derive(Debug, Clone, Default)]
pub struct FlatObject {
    /// Properties in schema order; a later `allOf` part overrides an earlier one in place.
    pub properties: Vec<(String, Value)>,
    /// Required property names (union over all parts).
    pub required: Vec<String>,
    /// `additionalProperties` is not `false` in any part.
    pub open: bool,
}

/// Merges an object schema and its `allOf` parts (resolving `$ref` parts) into one property list.
pub fn flatten_object(defs: &Defs, schema: &Value) -> anyhow::Result<FlatObject> {
    let mut flat = FlatObject {
        open: true,
        ..FlatObject::default()
    };
    merge_into(defs, schema, &mut flat, 0)?;
    Ok(flat)
}

fn merge_into(
    defs: &Defs,
    schema: &Value,
    flat: &mut FlatObject,
    depth: usize,
) -> anyhow::Result<()> {
    if depth > 16 {
        bail!("allOf nesting too deep");
    }
    if let Some(name) = ref_name(schema) {
        let target = defs
            .get(name)
            .with_context(|| format!("allOf part $ref to undefined {name}"))?;
        return merge_into(defs, target, flat, depth + 1);
    }
    if let Some(parts) = schema.get("allOf") {
        for part in parts.as_array().context("allOf is not an array")? {
            merge_into(defs, part, flat, depth + 1)?;
        }
    }
    if let Some(props) = schema.get("properties") {
        for (name, prop) in props.as_object().context("properties is not an object")? {
            match flat.properties.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = prop.clone(),
                None => flat.properties.push((name.clone(), prop.clone())),
            }
        }
    }
    if let Some(req) = schema.get("required") {
        for r in req.as_array().context("required is not an array")? {
            let r = r.as_str().context("required entry is not a string")?;
            if !flat.required.iter().any(|x| x == r) {
                flat.required.push(r.to_owned());
            }
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        flat.open = false;
    }
    Ok(())
}
