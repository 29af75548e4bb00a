//! Which types need no shaping at a revision: the emitter writes such a subtree exactly as plain
//! `serde_json` would, without looking at it.
//!
//! A type is *dirty* at revision V when one of its own ledger rows applies at V (in the
//! emission without a report, `pass` rows do not count: they write the value verbatim, which is
//! what plain serialization does; a strict emission uses the report's bits), when its type row
//! makes it absent inside a body at V, when a member row refuses or rewrites it at V, or when
//! a field, union member, array item or map value reaches a dirty type. Fields are read from the
//! generated facts of **every** revision (the superset carries all of them) and from the emitter's
//! own [`EDGES`]. `_meta` is never followed: the emitter writes it
//! verbatim except under a 2026-07-28 client request's role, which is never passed through.
//! A name the facts and the ledger do not know is never clean (nothing is known about it).

use foldhash::{HashMap, HashSet};
use std::sync::OnceLock;

use super::ledger::{Action, ByName, EDGES, LEDGER, MEMBERS, MemberAction, TYPES};
use crate::ProtocolVersion;
use crate::facts::{self, TypeKind, TypeRef};

/// The bit of [`clean_bits`] for `version`, with or without a report: the low
/// [`ProtocolVersion::COUNT`] bits without, the next as many with.
pub(crate) fn clean_bit(version: ProtocolVersion, report: bool) -> u16 {
    1 << (version.index() + if report { ProtocolVersion::COUNT } else { 0 })
}

// Two bits per revision.
const _: () = assert!(2 * ProtocolVersion::COUNT <= u16::BITS as usize);

/// The revisions (by [`clean_bit`]) at which `name`'s subtree needs no shaping; 0 when unknown.
pub(crate) fn clean_bits(name: &str) -> u16 {
    static INDEX: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
    INDEX.get_or_init(build).get(name).copied().unwrap_or(0)
}

/// The fields of one object type whose values never need shaping at some revisions, each with
/// the [`clean_bit`]s at which its value needs nothing: the emitter writes such a field's value
/// unwrapped even when the object itself is walked.
pub(crate) type FieldTable = ByName<u16>;

/// The field table of the object type `name`, if its facts list fields worth one (values that
/// are objects, arrays or open JSON; scalars cost nothing to walk).
pub(crate) fn field_table(name: &str) -> Option<&'static FieldTable> {
    static INDEX: OnceLock<HashMap<&'static str, FieldTable>> = OnceLock::new();
    INDEX.get_or_init(build_field_tables).get(name)
}

/// Every bit of [`clean_bit`].
const ALL_BITS: u16 = (1 << 10) - 1;

/// Adds the names a value of type `t` reaches to `out` (`_meta` is never followed).
fn reach(t: &TypeRef, out: &mut Vec<&'static str>) {
    match t {
        TypeRef::Named(n) => out.push(n),
        TypeRef::Array(item) | TypeRef::Map(item) => reach(item, out),
        TypeRef::Union(members) => members.iter().for_each(|m| reach(m, out)),
        TypeRef::Object { fields, .. } => fields
            .iter()
            .filter(|f| f.name != "_meta")
            .for_each(|f| reach(&f.ty, out)),
        TypeRef::Scalar(_) | TypeRef::Enum(_) | TypeRef::Any => {}
    }
}

fn build_field_tables() -> HashMap<&'static str, FieldTable> {
    // Per (type, field): the bits at every revision that defines it (the superset holds the
    // union of all of them), and of the emitter's own edges.
    let mut bits: HashMap<(&'static str, &'static str), u16> = HashMap::default();
    for v in ProtocolVersion::ALL {
        for t in facts::revision(v).types {
            if t.kind != TypeKind::Object {
                continue;
            }
            for f in t.fields {
                let worth = !matches!(f.ty, TypeRef::Scalar(_) | TypeRef::Enum(_));
                if worth && f.name != "_meta" {
                    // The clean bits of every name the value reaches.
                    let mut names = Vec::new();
                    reach(&f.ty, &mut names);
                    let field = names.iter().fold(ALL_BITS, |b, n| b & clean_bits(n));
                    *bits.entry((t.name, f.name)).or_insert(ALL_BITS) &= field;
                }
            }
        }
    }
    for e in EDGES {
        *bits.entry((e.owner, e.key)).or_insert(ALL_BITS) &= clean_bits(e.child);
    }
    let mut out: HashMap<&'static str, FieldTable> = HashMap::default();
    for ((owner, field), b) in bits {
        if b != 0 {
            out.entry(owner).or_default().push(field, b);
        }
    }
    out
}

/// Every type name the facts or the ledger know, with the names its subtree reaches.
fn graph() -> HashMap<&'static str, Vec<&'static str>> {
    let mut g: HashMap<&'static str, Vec<&'static str>> = HashMap::default();
    for v in ProtocolVersion::ALL {
        for t in facts::revision(v).types {
            let out = g.entry(t.name).or_default();
            match t.kind {
                TypeKind::Object => t
                    .fields
                    .iter()
                    .filter(|f| f.name != "_meta")
                    .for_each(|f| reach(&f.ty, out)),
                TypeKind::Union => t.members.iter().for_each(|m| reach(m, out)),
                TypeKind::Other => t.target.iter().for_each(|m| reach(m, out)),
                TypeKind::Enum => {}
            }
        }
    }
    for e in EDGES {
        g.entry(e.owner).or_default().push(e.child);
        g.entry(e.child).or_default();
    }
    g
}

fn build() -> HashMap<&'static str, u16> {
    let graph = graph();
    let mut out: HashMap<&'static str, u16> = HashMap::default();
    for report in [false, true] {
        for v in ProtocolVersion::ALL {
            // Dirty by their own rows.
            let mut dirty: HashSet<&'static str> = LEDGER
                .iter()
                .filter(|r| r.revisions.contains(v) && (report || r.action != Action::Pass))
                .map(|r| r.owner)
                .chain(
                    TYPES
                        .iter()
                        .filter(|t| !t.nested.contains(v))
                        .map(|t| t.name),
                )
                .chain(
                    MEMBERS
                        .iter()
                        .filter(|m| m.revisions.contains(v))
                        .filter(|m| !matches!(m.action, MemberAction::Same(_)))
                        .map(|m| m.member),
                )
                .collect();
            // Propagate to everything that reaches a dirty name or one the graph does not know
            // (its fields are unknown), until nothing changes.
            loop {
                let before = dirty.len();
                for (name, reaches) in &graph {
                    if !dirty.contains(name)
                        && reaches
                            .iter()
                            .any(|r| dirty.contains(r) || !graph.contains_key(r))
                    {
                        dirty.insert(name);
                    }
                }
                if dirty.len() == before {
                    break;
                }
            }
            let bit = clean_bit(v, report);
            for name in graph.keys() {
                let bits = out.entry(name).or_default();
                if !dirty.contains(name) {
                    *bits |= bit;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    fn clean(name: &str, v: ProtocolVersion, report: bool) -> bool {
        clean_bits(name) & clean_bit(v, report) != 0
    }

    /// The clean bits of the value of `owner.field` (0: not in the owner's table).
    fn field(owner: &str, field: &str) -> u16 {
        field_table(owner)
            .and_then(|t| t.get(field))
            .map_or(0, |b| *b)
    }

    /// Dirty by its own rows, by a dirty type it reaches (through unions and arrays), or by
    /// being unknown.
    #[test]
    fn what_makes_a_type_dirty() {
        let rows = [
            // resultType is stripped below 2026-07-28.
            ("CallToolResult", V2025_11_25, false),
            // Tool.inputSchema is checked at every revision.
            ("Tool", V2026_07_28, false),
            // Audio content is absent at 2024-11-05, so every list of content blocks is dirty
            // there ...
            ("AudioContent", V2024_11_05, false),
            ("PromptMessage", V2024_11_05, false),
            ("GetPromptResult", V2024_11_05, false),
            // ... and at 2025-11-25 a prompt message needs nothing.
            ("PromptMessage", V2025_11_25, true),
            ("NoSuchType", V2025_11_25, false),
        ];
        for (name, v, want) in rows {
            assert_eq!(clean(name, v, false), want, "{name} at {v}");
        }
        assert_eq!(clean_bits("NoSuchType"), 0);
    }

    #[test]
    fn pass_rows_count_only_with_a_report() {
        // TextContent's `_meta`/`annotations` rows are `pass` at the oldest revision, if any.
        let rows: Vec<_> = LEDGER
            .iter()
            .filter(|r| r.owner == "TextContent" && r.revisions.contains(V2024_11_05))
            .collect();
        assert!(rows.iter().all(|r| r.action == Action::Pass), "{rows:?}");
        assert!(clean("TextContent", V2024_11_05, false));
        assert_eq!(clean("TextContent", V2024_11_05, true), rows.is_empty());
    }

    #[test]
    fn field_tables_follow_the_field_types() {
        let v4 = clean_bit(V2025_11_25, false);
        let v1 = clean_bit(V2024_11_05, false);
        let content = field("CallToolResult", "content");
        // Content blocks need nothing at 2025-11-25, but audio is absent at 2024-11-05.
        assert_ne!(content & v4, 0);
        assert_eq!(content & v1, 0);
        // Scalars are not listed (nothing to save), nor is `_meta`.
        assert_eq!(field("CallToolResult", "isError"), 0);
        assert_eq!(field("CallToolResult", "_meta"), 0);
        // The emitter's own edge: ClientCapabilities.roots is a RootsCapability.
        let roots = field("ClientCapabilities", "roots");
        assert_eq!(roots & !clean_bits("RootsCapability"), 0);
    }
}
