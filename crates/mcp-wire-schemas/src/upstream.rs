//! Named fixes of the pinned `schema.json` files where they contradict their source, `schema.ts`.
//!
//! Each revision's `schema.json` is rendered from its `schema.ts`. The renderer writes a TS
//! `number` as JSON Schema `integer` unless the field is annotated `@TJS-type number`; the spec's
//! authors annotate the fields that carry fractions (progress, priorities, temperature, the
//! `NumberSchema` bounds) and leave counts, sizes, codes and ids as `integer` on purpose. Where an
//! annotation is missing on a field whose values are user data of any number, the rendering is
//! wrong, and where it is, `schema.ts` is the contract. [`UPSTREAM_FIXES`] lists every such
//! field, checked against `schema.ts` at the pinned commit:
//!
//! | fix | revisions | `schema.ts` | pinned `schema.json` |
//! |---|---|---|---|
//! | `elicit_result_content_numbers` | 2025-06-18, 2025-11-25, 2026-07-28 | `ElicitResult.content` values `string \| number \| boolean` (`\| string[]` from 2025-11-25) | `integer` for `number` |
//! | `json_value_any_json` | 2026-07-28 | `JSONValue = string \| number \| boolean \| null \| JSONObject \| JSONArray` | no `null`, `integer` for `number` |
//! | `number_schema_bounds_are_numbers` | 2025-06-18, 2025-11-25, 2026-07-28 | `NumberSchema.minimum`/`maximum` (and `default` from 2025-11-25) `@TJS-type number` | `number` already: a guard, rewrites nothing |
//!
//! Everything that reads the pinned schemas as a contract applies the same table: the code
//! generator (`cargo xtask codegen`: generated types and facts), the [`SchemaOracle`] and with it
//! `mcp-frames validate --schema`. Each fix fails loudly ([`SchemaError::StaleFix`]) when it finds
//! nothing to correct at a revision it is declared for, so a corrected upstream schema is noticed
//! at the next pin: drop the fix (or its revision) then.
//!
//! [`SchemaOracle`]: crate::SchemaOracle

use mcp_wire::ProtocolVersion;
use serde_json::{Map, Value, json};

use crate::{SchemaError, definitions_key};

use ProtocolVersion as V;

/// One correction of a pinned `schema.json` where it contradicts `schema.ts`.
#[derive(Debug, Clone, Copy)]
pub struct UpstreamFix {
    /// The fix's name, for messages.
    pub name: &'static str,
    /// The revisions whose pinned schema it corrects; at each it must find something to do.
    pub revisions: &'static [ProtocolVersion],
    /// What `schema.ts` declares, in its own notation.
    pub declared: &'static str,
    /// Rewrites one revision's definitions: how many places it changed (a guard: checked), or
    /// why the schema no longer has the shape it corrects.
    apply: fn(&mut Map<String, Value>) -> Result<usize, String>,
}

/// Every upstream fix, in the order they apply.
pub const UPSTREAM_FIXES: &[UpstreamFix] = &[
    UpstreamFix {
        name: "elicit_result_content_numbers",
        revisions: &[V::V2025_06_18, V::V2025_11_25, V::V2026_07_28],
        declared: "ElicitResult.content?: { [key: string]: string | number | boolean (| string[]) }",
        apply: elicit_result_content_numbers,
    },
    UpstreamFix {
        name: "json_value_any_json",
        revisions: &[V::V2026_07_28],
        declared: "JSONValue = string | number | boolean | null | JSONObject | JSONArray",
        apply: json_value_any_json,
    },
    UpstreamFix {
        name: "number_schema_bounds_are_numbers",
        revisions: &[V::V2025_06_18, V::V2025_11_25, V::V2026_07_28],
        declared: "NumberSchema.minimum / maximum / default: @TJS-type number",
        apply: number_schema_bounds_are_numbers,
    },
];

/// Applies every fix declared for `version` to its whole schema document `doc`; fails when one
/// finds nothing to correct (the upstream schema changed: the fix is stale).
pub fn apply_upstream_fixes(version: ProtocolVersion, doc: &mut Value) -> Result<(), SchemaError> {
    let stale = |name: &'static str, message: String| SchemaError::StaleFix {
        version,
        name,
        message,
    };
    let Some(defs) = doc
        .get_mut(definitions_key(version))
        .and_then(Value::as_object_mut)
    else {
        return Err(stale(
            "(all)",
            format!("the schema has no `{}` object", definitions_key(version)),
        ));
    };
    for fix in UPSTREAM_FIXES {
        if !fix.revisions.contains(&version) {
            continue;
        }
        match (fix.apply)(defs) {
            Ok(0) => {
                return Err(stale(
                    fix.name,
                    "it found nothing to correct; if schema.json now matches schema.ts, drop the \
                     fix or this revision from UPSTREAM_FIXES"
                        .to_owned(),
                ));
            }
            Ok(_) => {}
            Err(message) => return Err(stale(fix.name, message)),
        }
    }
    Ok(())
}

/// Calls `f` on `schema` and every schema below it reached through `properties`, `items`,
/// `additionalProperties` and the union keywords.
fn each_schema(
    schema: &mut Value,
    f: &mut dyn FnMut(&mut Value) -> Result<usize, String>,
) -> Result<usize, String> {
    let mut n = 0;
    if let Value::Object(o) = schema {
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            for p in props.values_mut() {
                n += each_schema(p, f)?;
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(s @ Value::Object(_)) = o.get_mut(key) {
                n += each_schema(s, f)?;
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(parts)) = o.get_mut(key) {
                for p in parts {
                    n += each_schema(p, f)?;
                }
            }
        }
    }
    Ok(n + f(schema)?)
}

/// `ElicitResult.content` values: the answer to a `NumberSchema` field of type `"number"` may be
/// any number (`2.5`), as `schema.ts` says; the rendering types the scalar arm `["string",
/// "integer", "boolean"]`. Widens `integer` to `number` there.
fn elicit_result_content_numbers(defs: &mut Map<String, Value>) -> Result<usize, String> {
    let values = defs
        .get_mut("ElicitResult")
        .and_then(|d| d.pointer_mut("/properties/content/additionalProperties"))
        .ok_or("ElicitResult.content has no additionalProperties schema")?;
    each_schema(values, &mut |s| {
        let Some(Value::Array(types)) = s.get_mut("type") else {
            return Ok(0);
        };
        if types.iter().any(|t| t == "number") {
            return Err(format!(
                "ElicitResult.content values are typed {types:?} upstream now"
            ));
        }
        let mut n = 0;
        for t in types.iter_mut().filter(|t| *t == "integer") {
            *t = json!("number");
            n += 1;
        }
        Ok(n)
    })
}

/// 2026-07-28 `JSONValue` renders as `JSONObject | JSONValue[] | string | integer | boolean`:
/// no `null`, no fractions. `schema.ts` allows both, which makes it any JSON value.
fn json_value_any_json(defs: &mut Map<String, Value>) -> Result<usize, String> {
    let value = defs.get_mut("JSONValue").ok_or("no JSONValue definition")?;
    let text = value.to_string();
    if text.contains("\"null\"") || text.contains("\"number\"") {
        return Err(format!(
            "JSONValue admits null or number upstream now: {text}"
        ));
    }
    *value = json!({});
    Ok(1)
}

/// A guard, not a rewrite: the `NumberSchema` bounds and default are annotated `@TJS-type
/// number` and render as `number` (a form may ask for `0.5`). Counts the properties checked;
/// fails if one has become `integer`.
fn number_schema_bounds_are_numbers(defs: &mut Map<String, Value>) -> Result<usize, String> {
    let props = defs
        .get("NumberSchema")
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object)
        .ok_or("NumberSchema has no properties")?;
    let mut n = 0;
    for key in ["minimum", "maximum", "default"] {
        if let Some(p) = props.get(key) {
            if p.get("type") != Some(&json!("number")) {
                return Err(format!(
                    "NumberSchema.{key} is {p}, not number: widen it here"
                ));
            }
            n += 1;
        }
    }
    Ok(n)
}
