//! Schema pre-passes: rewrites of a revision's definitions before typify sees them. Each pass is
//! a named, documented function that returns how many places it changed; the driver fails when a
//! pass changes nothing on a revision it is declared for, so a pass that no longer applies (the
//! upstream schema moved on) is noticed instead of silently rotting.
//!
//! These passes shape the schema for typify. Corrections of upstream mistakes (a TS `number`
//! rendered `integer`) are not here: they are `mcp_wire_schemas::UPSTREAM_FIXES`, applied to the
//! whole document before the facts and the types are generated, and by the schema oracle too.

use anyhow::{Context, bail};
use mcp_wire::ProtocolVersion;
use serde_json::{Map, Value, json};

use super::schema::{Defs, flatten_object, ref_name};

use ProtocolVersion as V;

/// One pre-pass.
pub struct Pass {
    /// The function's name, for messages.
    pub name: &'static str,
    /// Revisions on which it must change something.
    pub revisions: &'static [ProtocolVersion],
    /// The rewrite; returns the number of places changed.
    pub run: fn(&mut Defs) -> anyhow::Result<usize>,
}

const ALL: &[ProtocolVersion] = &ProtocolVersion::ALL;

/// The pre-passes, in the order they run.
pub const PRE_PASSES: &[Pass] = &[
    Pass {
        name: "flatten_all_of",
        revisions: &[V::V2025_11_25, V::V2026_07_28],
        run: flatten_all_of,
    },
    Pass {
        name: "alias_single_member_unions",
        revisions: &[V::V2026_07_28],
        run: alias_single_member_unions,
    },
    Pass {
        name: "ref_named_copies_in_unions",
        revisions: &[V::V2025_03_26],
        run: ref_named_copies_in_unions,
    },
    Pass {
        name: "open_tool_schemas",
        revisions: &[
            V::V2024_11_05,
            V::V2025_03_26,
            V::V2025_06_18,
            V::V2025_11_25,
        ],
        run: open_tool_schemas,
    },
    Pass {
        name: "hoist_jsonrpc_version",
        revisions: ALL,
        run: hoist_jsonrpc_version,
    },
    Pass {
        name: "const_to_enum",
        revisions: ALL,
        run: const_to_enum,
    },
    Pass {
        name: "order_union_members",
        revisions: ALL,
        run: order_union_members,
    },
    Pass {
        name: "any_of_to_one_of",
        revisions: ALL,
        run: any_of_to_one_of,
    },
];

/// Runs every pre-pass declared for `version`, failing on a pass that no longer applies.
pub fn run_all(version: ProtocolVersion, defs: &mut Defs) -> anyhow::Result<()> {
    for pass in PRE_PASSES {
        if !pass.revisions.contains(&version) {
            continue;
        }
        let changed = (pass.run)(defs).with_context(|| format!("{version}: pass {}", pass.name))?;
        if changed == 0 {
            bail!(
                "{version}: pre-pass {} changed nothing; the schema no longer needs it — remove it \
                 or its revision from PRE_PASSES",
                pass.name
            );
        }
    }
    Ok(())
}

/// The name of the shared definition that replaces every `jsonrpc: {"const": "2.0"}`.
pub const JSONRPC_VERSION: &str = "JSONRPCVersion";

/// Calls `f` on every schema node below (and including) `schema`, children first. Only
/// schema-valued keywords are followed, so a property *named* `const` or `oneOf` is never
/// mistaken for the keyword.
fn visit_schemas(
    schema: &mut Value,
    f: &mut dyn FnMut(&mut Value) -> anyhow::Result<usize>,
) -> anyhow::Result<usize> {
    let mut n = 0;
    if let Value::Object(o) = schema {
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            for p in props.values_mut() {
                n += visit_schemas(p, f)?;
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(s @ Value::Object(_)) = o.get_mut(key) {
                n += visit_schemas(s, f)?;
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(parts)) = o.get_mut(key) {
                for p in parts {
                    n += visit_schemas(p, f)?;
                }
            }
        }
    }
    n += f(schema)?;
    Ok(n)
}

fn visit_defs(
    defs: &mut Defs,
    f: &mut dyn FnMut(&mut Value) -> anyhow::Result<usize>,
) -> anyhow::Result<usize> {
    let mut n = 0;
    for d in defs.values_mut() {
        n += visit_schemas(d, f)?;
    }
    Ok(n)
}

/// typify 0.8 panics on `allOf[$ref Result, $ref Task]` (2025-11-25 `GetTaskResult`; an
/// assertion in its merge code) and merges less predictably than we need. Replaces every `allOf`
/// with one object holding the merged properties and `required`; an open part keeps the merged
/// object open.
fn flatten_all_of(defs: &mut Defs) -> anyhow::Result<usize> {
    let snapshot = defs.clone();
    visit_defs(defs, &mut |s| {
        if s.get("allOf").is_none() {
            return Ok(0);
        }
        let flat = flatten_object(&snapshot, s)?;
        let open_map = s["allOf"].as_array().into_iter().flatten().any(|part| {
            let part = ref_name(part).and_then(|n| snapshot.get(n)).unwrap_or(part);
            part.get("additionalProperties")
                .is_some_and(|ap| ap != &json!(false))
        });
        let mut obj = Map::new();
        obj.insert("type".into(), json!("object"));
        obj.insert(
            "properties".into(),
            Value::Object(flat.properties.into_iter().collect()),
        );
        obj.insert("required".into(), json!(flat.required));
        if open_map {
            obj.insert("additionalProperties".into(), json!({}));
        }
        *s = Value::Object(obj);
        Ok(1)
    })
}

/// A TypeScript union with one member renders as a copy of that member: 2026-07-28
/// `ClientNotification` is `CancelledNotification` again. Typify would generate a second
/// struct (and a second `method` enum); we make it an alias of the named twin instead.
fn alias_single_member_unions(defs: &mut Defs) -> anyhow::Result<usize> {
    let mut n = 0;
    for union in [
        "ClientRequest",
        "ServerRequest",
        "ClientNotification",
        "ServerNotification",
    ] {
        let Some(def) = defs.get(union) else { continue };
        if def.get("anyOf").is_some() {
            continue;
        }
        let shape = strip(def);
        let twin = defs
            .iter()
            .find(|(name, d)| name.as_str() != union && strip(d) == shape)
            .map(|(name, _)| name.clone())
            .with_context(|| format!("{union} is neither a union nor a copy of a definition"))?;
        let prefix = ref_prefix(defs);
        defs.insert(
            union.to_owned(),
            json!({ "$ref": format!("{prefix}{twin}") }),
        );
        n += 1;
    }
    Ok(n)
}

fn strip(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// A union member written inline although a definition of exactly that shape exists (2025-03-26
/// `JSONRPCMessage` spells out the two batch arrays instead of referring to `JSONRPCBatchRequest`
/// / `JSONRPCBatchResponse`). typify would name such members `Variant4`; a `$ref` gives the member
/// its spec name.
fn ref_named_copies_in_unions(defs: &mut Defs) -> anyhow::Result<usize> {
    let shapes: Vec<(String, Value)> = defs.iter().map(|(n, d)| (n.clone(), strip(d))).collect();
    let prefix = ref_prefix(defs);
    visit_defs(defs, &mut |s| {
        let Some(Value::Array(members)) = s.get_mut("anyOf") else {
            return Ok(0);
        };
        let mut n = 0;
        for m in members.iter_mut() {
            if ref_name(m).is_some() {
                continue;
            }
            let shape = strip(m);
            if let Some((name, _)) = shapes.iter().find(|(_, d)| *d == shape) {
                *m = json!({ "$ref": format!("{prefix}{name}") });
                n += 1;
            }
        }
        Ok(n)
    })
}

/// `#/$defs/` or `#/definitions/`, whichever the revision uses.
fn ref_prefix(defs: &Defs) -> &'static str {
    if defs.values().any(|d| d.to_string().contains("#/$defs/")) {
        "#/$defs/"
    } else {
        "#/definitions/"
    }
}

/// Tool `inputSchema`/`outputSchema` are JSON Schema documents: their interiors (`$defs`,
/// `additionalProperties`, `$schema` …) must survive a round trip. The schema leaves
/// `additionalProperties` unset there, which typify reads as "drop unknown keys"; we mark them
/// open so the generated struct keeps the rest in a map. (2026-07-28 declares them open itself.)
fn open_tool_schemas(defs: &mut Defs) -> anyhow::Result<usize> {
    let mut n = 0;
    if let Some(props) = defs
        .get_mut("Tool")
        .and_then(|t| t.get_mut("properties"))
        .and_then(Value::as_object_mut)
    {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(Value::Object(s)) = props.get_mut(key) {
                if s.contains_key("additionalProperties") {
                    continue;
                }
                s.insert("additionalProperties".into(), json!({}));
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Every JSON-RPC object repeats `jsonrpc: {"const": "2.0"}` (37 times in 2026-07-28). Points
/// them all at one shared definition, [`JSONRPC_VERSION`], so one enum is generated instead of
/// one per struct.
fn hoist_jsonrpc_version(defs: &mut Defs) -> anyhow::Result<usize> {
    let prefix = ref_prefix(defs);
    let target = json!({ "$ref": format!("{prefix}{JSONRPC_VERSION}") });
    let n = visit_defs(defs, &mut |s| {
        let Some(Value::Object(props)) = s.get_mut("properties") else {
            return Ok(0);
        };
        match props.get_mut("jsonrpc") {
            Some(p) if p.get("const") == Some(&json!("2.0")) => {
                *p = target.clone();
                Ok(1)
            }
            _ => Ok(0),
        }
    })?;
    if defs.contains_key(JSONRPC_VERSION) {
        bail!("the schema now defines {JSONRPC_VERSION} itself");
    }
    defs.insert(
        JSONRPC_VERSION.into(),
        json!({ "type": "string", "enum": ["2.0"] }),
    );
    Ok(n)
}

/// typify ignores `const` ("let's not bother with const values"), so `type: "text"` would be a
/// free `String`. A one-value `enum` becomes a one-variant Rust enum that is checked on read and
/// written on emit.
fn const_to_enum(defs: &mut Defs) -> anyhow::Result<usize> {
    visit_defs(defs, &mut |s| {
        let Some(o) = s.as_object_mut() else {
            return Ok(0);
        };
        let Some(c) = o.remove("const") else {
            return Ok(0);
        };
        o.insert("enum".into(), json!([c]));
        Ok(1)
    })
}

/// Untagged enums try members in order, so the most specific member must come first. Orders the
/// `$ref` members of each union by descending number of required properties; the open base
/// definitions `Result` / `EmptyResult`, which match anything, go last. The sort is stable.
fn order_union_members(defs: &mut Defs) -> anyhow::Result<usize> {
    let snapshot = defs.clone();
    let weight = |m: &Value| -> usize {
        let Some(name) = ref_name(m) else {
            return 0;
        };
        let mut target = snapshot.get(name);
        // Follow aliases such as `EmptyResult = $ref Result`.
        while let Some(next) = target.and_then(ref_name).and_then(|n| snapshot.get(n)) {
            target = Some(next);
        }
        target
            .and_then(|t| flatten_object(&snapshot, t).ok())
            .map_or(0, |f| f.required.len())
    };
    visit_defs(defs, &mut |s| {
        let Some(Value::Array(members)) = s.get_mut("anyOf") else {
            return Ok(0);
        };
        let before = members.clone();
        members.sort_by_key(|m| {
            let base = matches!(ref_name(m), Some("Result" | "EmptyResult"));
            (base, std::cmp::Reverse(weight(m)))
        });
        Ok(usize::from(*members != before))
    })
}

/// typify emits a "struct of flattened `Option`s" for an `anyOf` it cannot prove exclusive, which
/// silently loses data; for `oneOf` it emits an untagged enum. MCP unions are exclusive by intent,
/// so every `anyOf` becomes `oneOf`.
fn any_of_to_one_of(defs: &mut Defs) -> anyhow::Result<usize> {
    visit_defs(defs, &mut |s| {
        let Some(o) = s.as_object_mut() else {
            return Ok(0);
        };
        let Some(parts) = o.remove("anyOf") else {
            return Ok(0);
        };
        o.insert("oneOf".into(), parts);
        Ok(1)
    })
}
