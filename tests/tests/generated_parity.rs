//! Parity oracle, per revision, between the pinned schema and what `cargo xtask codegen` emitted:
//! - every schema definition has a generated type of the same name (and the facts list exactly
//!   the schema's definitions);
//! - the facts' method tables equal the members of the schema's `ClientRequest`, `ServerRequest`,
//!   `ClientNotification`, `ServerNotification` unions, and the generated union enums have one
//!   variant per member.

use std::collections::BTreeSet;

use mcp_wire::ProtocolVersion;
use mcp_wire::facts::{self, MethodFact};
use mcp_wire_schemas::{SchemaStore, definitions_key, workspace_root};
use serde_json::{Map, Value};

fn definitions(v: ProtocolVersion) -> Map<String, Value> {
    let schema = SchemaStore::discover()
        .schema(v)
        .unwrap_or_else(|e| panic!("{e} (run `cargo xtask schemas`)"));
    schema[definitions_key(v)]
        .as_object()
        .expect("definitions object")
        .clone()
}

fn generated_source(v: ProtocolVersion) -> String {
    let path = workspace_root()
        .join("crates/mcp-wire/src/generated")
        .join(format!("{}.rs", v.module_name()));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Names of the top-level `pub struct`/`pub enum` items of a generated file, and of the
/// zero-sized discriminators declared by `wire_const_*! { … Name = value }`.
fn declared_types(src: &str) -> BTreeSet<String> {
    src.lines()
        .filter_map(|l| {
            l.strip_prefix("pub struct ")
                .or_else(|| l.strip_prefix("pub enum "))
                .or_else(|| {
                    let t = l.strip_prefix("    ")?;
                    let (name, _) = t.split_once(" = ")?;
                    name.chars().all(|c| c.is_ascii_alphanumeric()).then_some(t)
                })
        })
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Variant names of `pub enum <name> { … }` in a generated file.
fn enum_variants(src: &str, name: &str) -> Option<BTreeSet<String>> {
    let start = src.find(&format!("pub enum {name} {{"))?;
    let body = &src[start..];
    let body = &body[..body.find("\n}")?];
    Some(
        body.lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| !l.starts_with("///") && !l.starts_with("#["))
            .filter_map(|l| l.split(['(', ',']).next())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

fn ref_name(v: &Value) -> Option<&str> {
    v["$ref"].as_str()?.rsplit('/').next()
}

/// `(method, definition)` of each member of union `name`, straight from the schema. A
/// single-member union is rendered upstream as a copy of its member; its own `method` counts.
fn union_methods(defs: &Map<String, Value>, name: &str) -> BTreeSet<String> {
    let Some(def) = defs.get(name) else {
        return BTreeSet::new();
    };
    let members: Vec<&Value> = match def.get("anyOf") {
        Some(any) => any
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &defs[ref_name(m).expect("member is a $ref")])
            .collect(),
        None => vec![def],
    };
    members
        .iter()
        .map(|m| {
            m["properties"]["method"]["const"]
                .as_str()
                .expect("member has a const method")
                .to_owned()
        })
        .collect()
}

fn methods(table: &[MethodFact]) -> BTreeSet<String> {
    table.iter().map(|m| m.method.to_owned()).collect()
}

#[test]
fn every_definition_has_a_generated_type_and_a_fact() {
    for v in ProtocolVersion::ALL {
        let defs = definitions(v);
        let src = generated_source(v);
        let declared = declared_types(&src);
        let missing: Vec<&String> = defs.keys().filter(|d| !declared.contains(*d)).collect();
        assert!(missing.is_empty(), "{v}: no generated type for {missing:?}");
        let fact_names: BTreeSet<&str> = facts::revision(v).types.iter().map(|t| t.name).collect();
        let schema_names: BTreeSet<&str> = defs.keys().map(String::as_str).collect();
        assert_eq!(fact_names, schema_names, "{v}: facts vs schema definitions");
        // No generator artefacts in type or variant names.
        for bad in ["Variant0", "Variant1", "Subtype", "subtype_"] {
            assert!(!src.contains(bad), "{v}: generated code contains {bad}");
        }
    }
}

#[test]
fn method_tables_equal_the_schema_unions() {
    let mut rows = 0;
    for v in ProtocolVersion::ALL {
        let defs = definitions(v);
        let f = facts::revision(v);
        for (union, table) in [
            ("ClientRequest", f.client_requests),
            ("ServerRequest", f.server_requests),
            ("ClientNotification", f.client_notifications),
            ("ServerNotification", f.server_notifications),
        ] {
            let expected = union_methods(&defs, union);
            assert_eq!(methods(table), expected, "{v}: {union}");
            rows += table.len();
        }
    }
    // 17+8+4+8 (2024-11-05) … summed over the five revisions.
    assert!(rows > 120, "only {rows} method rows");
}

#[test]
fn generated_union_enums_have_one_variant_per_member() {
    let mut checked = 0;
    for v in ProtocolVersion::ALL {
        let defs = definitions(v);
        let src = generated_source(v);
        for (name, def) in &defs {
            let Some(any) = def.get("anyOf").and_then(Value::as_array) else {
                continue;
            };
            let members: BTreeSet<String> =
                any.iter().filter_map(ref_name).map(str::to_owned).collect();
            if members.len() != any.len() {
                continue; // unions with inline members are covered by the examples test
            }
            let Some(variants) = enum_variants(&src, name) else {
                // 2026-07-28 `JSONValue` is deliberately any JSON value (upstream fix).
                assert_eq!(
                    (v, name.as_str()),
                    (ProtocolVersion::V2026_07_28, "JSONValue")
                );
                continue;
            };
            assert_eq!(variants, members, "{v}: variants of {name}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} unions compared");
}
