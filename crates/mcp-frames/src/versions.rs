//! `mcp-frames versions`: the known revisions, their era, and what changed in each, computed
//! from the generated revision facts (method tables and type/field tables) — nothing here is
//! written by hand per revision.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use mcp_types::facts::{self, MethodFact, RevisionFacts};
use mcp_types::{Era, ProtocolVersion};

/// What changed from the previous revision to this one.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Methods (with their table, e.g. `client request tools/call`) new in this revision.
    pub added_methods: Vec<String>,
    /// Methods of the previous revision that this one no longer defines.
    pub removed_methods: Vec<String>,
    /// Schema definitions new in this revision.
    pub added_types: Vec<String>,
    /// Schema definitions of the previous revision that this one no longer has.
    pub removed_types: Vec<String>,
    /// Object definitions present in both, with fields added (`+name`) or removed (`-name`).
    pub changed_fields: Vec<(String, Vec<String>)>,
}

fn methods(f: &RevisionFacts) -> BTreeSet<String> {
    let tables: [(&str, &[MethodFact]); 4] = [
        ("client request", f.client_requests),
        ("server request", f.server_requests),
        ("client notification", f.client_notifications),
        ("server notification", f.server_notifications),
    ];
    tables
        .iter()
        .flat_map(|(kind, t)| t.iter().map(move |m| format!("{kind} {}", m.method)))
        .collect()
}

/// The changes between `v`'s predecessor and `v` (everything is "added" for the first one).
pub fn changes(v: ProtocolVersion) -> Changes {
    let now = facts::revision(v);
    let Some(prev) = v.previous().map(facts::revision) else {
        return Changes {
            added_methods: methods(now).into_iter().collect(),
            added_types: now.types.iter().map(|t| t.name.to_owned()).collect(),
            ..Changes::default()
        };
    };
    let (mn, mp) = (methods(now), methods(prev));
    let tn: BTreeSet<&str> = now.types.iter().map(|t| t.name).collect();
    let tp: BTreeSet<&str> = prev.types.iter().map(|t| t.name).collect();
    let mut changed_fields = Vec::new();
    for t in now.types {
        let Some(old) = prev.type_fact(t.name) else {
            continue;
        };
        let mut delta: Vec<String> = t
            .fields
            .iter()
            .filter(|f| old.field(f.name).is_none())
            .map(|f| format!("+{}", f.name))
            .collect();
        delta.extend(
            old.fields
                .iter()
                .filter(|f| t.field(f.name).is_none())
                .map(|f| format!("-{}", f.name)),
        );
        if !delta.is_empty() {
            changed_fields.push((t.name.to_owned(), delta));
        }
    }
    Changes {
        added_methods: mn.difference(&mp).cloned().collect(),
        removed_methods: mp.difference(&mn).cloned().collect(),
        added_types: tn.difference(&tp).map(|s| s.to_string()).collect(),
        removed_types: tp.difference(&tn).map(|s| s.to_string()).collect(),
        changed_fields,
    }
}

fn era_name(e: Era) -> &'static str {
    match e {
        Era::Handshake => "handshake era (initialize negotiates the revision)",
        Era::Stateless => "stateless era (every request names its revision in _meta)",
    }
}

/// The text `mcp-frames versions` prints.
pub fn render() -> String {
    let mut out = String::new();
    for v in ProtocolVersion::ALL {
        let f = facts::revision(v);
        let _ = writeln!(out, "{v}  {}", era_name(v.era()));
        let _ = writeln!(
            out,
            "  {} definitions; {} client requests, {} server requests, {} client notifications, {} server notifications",
            f.types.len(),
            f.client_requests.len(),
            f.server_requests.len(),
            f.client_notifications.len(),
            f.server_notifications.len()
        );
        if v.previous().is_none() {
            let _ = writeln!(out, "  first released revision");
            continue;
        }
        let c = changes(v);
        let list = |out: &mut String, label: &str, items: &[String]| {
            if !items.is_empty() {
                let _ = writeln!(out, "  {label}: {}", items.join(", "));
            }
        };
        list(&mut out, "+ methods", &c.added_methods);
        list(&mut out, "- methods", &c.removed_methods);
        list(&mut out, "+ definitions", &c.added_types);
        list(&mut out, "- definitions", &c.removed_types);
        for (ty, delta) in &c.changed_fields {
            let _ = writeln!(out, "  ~ {ty}: {}", delta.join(" "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn elicitation_arrives_in_2025_06_18() {
        let c = changes(V2025_06_18);
        assert!(
            c.added_methods
                .contains(&"server request elicitation/create".to_owned())
        );
        assert!(c.added_types.contains(&"ElicitRequest".to_owned()));
        assert!(c.removed_methods.is_empty());
    }

    #[test]
    fn the_stateless_revision_drops_the_handshake() {
        let c = changes(V2026_07_28);
        for m in [
            "client request initialize",
            "client request ping",
            "client notification notifications/initialized",
            "server request sampling/createMessage",
        ] {
            assert!(c.removed_methods.contains(&m.to_owned()), "{m}");
        }
        assert!(
            c.added_methods
                .contains(&"client request server/discover".to_owned())
        );
    }

    #[test]
    fn the_same_method_sets_in_2024_11_05_and_2025_03_26() {
        let c = changes(V2025_03_26);
        assert_eq!(c.added_methods, Vec::<String>::new());
        assert_eq!(c.removed_methods, Vec::<String>::new());
        assert!(c.added_types.contains(&"AudioContent".to_owned()));
    }
}
