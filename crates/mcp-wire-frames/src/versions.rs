//! `mcp-frames versions`: the known revisions, their era, and what changed in each, computed
//! from the generated revision facts (method tables and type/field tables) — nothing here is
//! written by hand per revision.
//!
//! Each change is judged by what a peer can see. Every message of a revision (a request or
//! notification by method, and each request's result) is walked through its definitions into
//! the set of *wire places* it can carry: `result of tools/list: tools[].icons`, a union
//! member by its discriminator (`content[]<type=audio>`), an enum value (`params.level=notice`).
//! A place that appears or disappears in a message both revisions have is a **wire change**,
//! reported once at its topmost new place, under the definition field that declares it. A
//! definition renamed, split or merged, or a field moved between definitions, with the same
//! places on the wire, is **schema restructuring**. The JSON-RPC envelope (`jsonrpc`, `id` at
//! a message's root) is no message's own place: a request definition that starts to spell out
//! the envelope is restructuring. A place both revisions have whose JSON type changes
//! (`string` → `string|integer`, `object` → `any`) or that becomes required or optional (as a
//! field of its object) is a wire change too: a peer sending the old shape, or omitting the
//! member, is now refused or now accepted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use mcp_wire::facts::{self, FieldFact, MethodFact, RevisionFacts, TypeFact, TypeKind, TypeRef};
use mcp_wire::{Era, ProtocolVersion};

/// What changed from the previous revision to this one.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Methods (with their table, e.g. `client request tools/call`) new in this revision.
    pub added_methods: Vec<String>,
    /// Methods of the previous revision that this one no longer defines.
    pub removed_methods: Vec<String>,
    /// Wire places new in messages both revisions have, by the definition field (or union
    /// member, or enum value) that declares them: `Tool.icons` → its topmost new places.
    pub added_fields: BTreeMap<String, Vec<String>>,
    /// Wire places gone from messages both revisions have, by their declaration in the
    /// previous revision.
    pub removed_fields: BTreeMap<String, Vec<String>>,
    /// Places in both revisions (in messages both have) whose JSON type or requiredness
    /// changed, by their declaration in this revision: `CallToolRequestParams._meta` →
    /// `client request tools/call: params._meta optional -> required`.
    pub changed_fields: BTreeMap<String, Vec<String>>,
    /// New definitions every place of which is new on the wire (a new method's types, a new
    /// field's shape).
    pub added_types: Vec<String>,
    /// Definitions gone together with every place they declared.
    pub removed_types: Vec<String>,
    /// Restructuring: new definitions that regroup places already on the wire (or declare
    /// none, like a union's name); a genuinely new field of one is in `added_fields`.
    pub regrouped_added_types: Vec<String>,
    /// Restructuring: definitions gone while places they declared stay on the wire.
    pub regrouped_removed_types: Vec<String>,
    /// Restructuring: definitions in both whose field list changed (`+name`, `-name`) with no
    /// wire place appearing or disappearing for that field.
    pub regrouped_fields: Vec<(String, Vec<String>)>,
    /// Places this revision no longer describes under an object it keeps open, so a peer may
    /// still send them (`Tool.inputSchema.properties` at 2026-07-28): the protocol stops
    /// defining them, the wire still admits them.
    pub undescribed: Vec<String>,
    /// Definitions no message reaches (envelopes, error shapes, bases): added (`+`), removed
    /// (`-`) or with fields changed (`~`); not judged.
    pub unreached_types: Vec<String>,
}

fn methods(f: &RevisionFacts) -> BTreeSet<String> {
    message_tables(f)
        .iter()
        .flat_map(|(kind, t)| t.iter().map(move |m| format!("{kind} {}", m.method)))
        .collect()
}

fn message_tables(f: &RevisionFacts) -> [(&'static str, &'static [MethodFact]); 4] {
    [
        ("client request", f.client_requests),
        ("server request", f.server_requests),
        ("client notification", f.client_notifications),
        ("server notification", f.server_notifications),
    ]
}

/// One wire place: who declares it and the place it sits in (`""` at a message's root).
struct Place {
    owner: String,
    parent: String,
    /// For an object's field: whether every declaration reaching it requires it.
    required: Option<bool>,
    /// The JSON types the place admits (`string`, `integer`, `object`, `array`, `any`, …),
    /// over every shape reaching it.
    kinds: BTreeSet<&'static str>,
}

/// The wire places of one revision: message → path → its place.
#[derive(Default)]
struct Places {
    by_message: BTreeMap<String, BTreeMap<String, Place>>,
    /// Every definition some message reaches.
    reached: BTreeSet<&'static str>,
    /// Owner → the definition it belongs to (`Tool.icons` → `Tool`).
    owner_type: BTreeMap<String, &'static str>,
    /// Per message, the paths of objects open to keys they do not name.
    open: BTreeMap<String, BTreeSet<String>>,
}

/// Walks one message's definitions; `stack` stops recursive shapes. Every step carries the
/// path so far and `parent`, the last place recorded above it.
struct Walk<'a> {
    facts: &'a RevisionFacts,
    places: &'a mut Places,
    message: String,
    stack: Vec<&'static str>,
}

impl Walk<'_> {
    /// Records the place at `path` under `parent`, declared by `owner` (in the definition
    /// being walked); `required` for an object's field.
    fn record(&mut self, path: &str, parent: &str, owner: String, required: Option<bool>) {
        if let Some(&ty) = self.stack.last() {
            self.places.owner_type.insert(owner.clone(), ty);
        }
        let place = self
            .places
            .by_message
            .entry(self.message.clone())
            .or_default()
            .entry(path.to_owned())
            .or_insert(Place {
                owner,
                parent: parent.to_owned(),
                required,
                kinds: BTreeSet::new(),
            });
        // Merged declarations (an untagged union's members): required only if all require it.
        if let (Some(was), Some(now)) = (place.required, required) {
            place.required = Some(was && now);
        }
    }

    /// Notes that the place at `path` (if one is recorded) admits JSON values of `kind`.
    fn kind(&mut self, path: &str, kind: &'static str) {
        if let Some(place) = self
            .places
            .by_message
            .get_mut(&self.message)
            .and_then(|m| m.get_mut(path))
        {
            place.kinds.insert(kind);
        }
    }

    fn named(&mut self, path: &str, parent: &str, name: &'static str) {
        if self.stack.contains(&name) {
            return;
        }
        let Some(def) = self.facts.type_fact(name) else {
            return;
        };
        self.places.reached.insert(def.name);
        self.stack.push(def.name);
        // A definition walks as the inline shape of its kind would, declared by its name.
        let shape = match def.kind {
            TypeKind::Object => TypeRef::Object {
                fields: def.fields,
                open: def.open,
            },
            TypeKind::Union => TypeRef::Union(def.members),
            TypeKind::Enum => TypeRef::Enum(def.values),
            TypeKind::Other => def.target.unwrap_or(TypeRef::Union(&[])),
        };
        self.shape(path, parent, &shape, def.name);
        self.stack.pop();
    }

    /// The fields of an object; `owner` names the declaration (`Tool`, or `Tool.inputSchema`
    /// for an inline object).
    fn fields(&mut self, path: &str, parent: &str, fields: &'static [FieldFact], owner: &str) {
        for f in fields {
            // The JSON-RPC envelope is every message's, not this one's.
            if path.is_empty() && matches!(f.name, "jsonrpc" | "id") {
                continue;
            }
            let here = match path {
                "" => f.name.to_owned(),
                _ => format!("{path}.{}", f.name),
            };
            let declared = format!("{owner}.{}", f.name);
            self.record(&here, parent, declared.clone(), Some(f.required));
            self.shape(&here, &here, &f.ty, &declared);
        }
    }

    fn shape(&mut self, path: &str, parent: &str, ty: &TypeRef, owner: &str) {
        match ty {
            TypeRef::Named(n) => self.named(path, parent, n),
            // An array is a place of its own: a value that becomes a list is a wire change.
            TypeRef::Array(item) => {
                self.kind(path, "array");
                let items = format!("{path}[]");
                self.record(&items, parent, owner.to_owned(), None);
                self.shape(&items, &items, item, owner)
            }
            TypeRef::Map(value) => {
                self.kind(path, "object");
                self.open(path);
                self.shape(&format!("{path}.*"), parent, value, owner)
            }
            TypeRef::Union(members) => {
                for m in *members {
                    self.member(path, parent, m, owner);
                }
            }
            TypeRef::Object { fields, open } => {
                self.kind(path, "object");
                if *open {
                    self.open(path);
                }
                self.fields(path, parent, fields, owner)
            }
            TypeRef::Enum(values) => {
                self.kind(path, "string");
                for v in *values {
                    self.record(&format!("{path}={v}"), parent, format!("{owner}={v}"), None);
                }
            }
            TypeRef::Any => {
                self.kind(path, "any");
                self.open(path)
            }
            TypeRef::Scalar(s) => self.kind(path, s),
        }
    }

    /// Marks `path` as an object that admits keys beyond those it names.
    fn open(&mut self, path: &str) {
        self.places
            .open
            .entry(self.message.clone())
            .or_default()
            .insert(path.to_owned());
    }

    /// A union member: tagged by its first required constant field (`type`, `mode`, …) when it has
    /// one, so a new member is a place of its own; an untagged member's fields merge.
    fn member(&mut self, path: &str, parent: &str, member: &'static TypeRef, owner: &str) {
        let fields = match member {
            TypeRef::Named(n) => self.facts.type_fact(n).map_or(&[][..], |d| d.fields),
            TypeRef::Object { fields, .. } => fields,
            _ => &[],
        };
        // Only a required constant tags: a member whose constant is optional is also sent
        // without it, so its fields are where the untagged union's are.
        let Some((tag, value)) = fields
            .iter()
            .filter(|f| f.required)
            .find_map(|f| f.constant.map(|c| (f.name, c)))
        else {
            return self.shape(path, parent, member, owner);
        };
        let tagged = format!("{path}<{tag}={value}>");
        let declared = match member {
            TypeRef::Named(n) => (*n).to_owned(),
            _ => format!("{owner}<{tag}={value}>"),
        };
        self.record(&tagged, parent, declared.clone(), None);
        if let TypeRef::Named(n) = member {
            // A named member (it has fields: it is defined) is its own definition.
            self.places.owner_type.insert(declared, n);
        }
        self.shape(&tagged, &tagged, member, owner);
    }
}

fn places(f: &RevisionFacts) -> Places {
    let mut places = Places::default();
    for (kind, table) in message_tables(f) {
        for m in table {
            let mut roots = vec![(format!("{kind} {}", m.method), m.type_name)];
            if let Some(result) = m.result {
                roots.push((format!("result of {}", m.method), result));
            }
            for (message, root) in roots {
                let mut walk = Walk {
                    facts: f,
                    places: &mut places,
                    message,
                    stack: Vec::new(),
                };
                walk.named("", "", root);
            }
        }
    }
    places
}

/// Places by the declaration owning them.
type ByOwner = BTreeMap<String, Vec<String>>;

/// One direction of the comparison: `now`'s places and definitions against `before`'s.
#[derive(Default)]
struct Side {
    /// Places absent from `before` in messages both have, topmost only, by owner.
    fields: ByOwner,
    /// With `split_open`, the new places whose parent is an open object in `before` (which
    /// still admits them, only no longer describes them), apart from `fields`.
    admitted: ByOwner,
    /// Owners of a place `before` lacks (in any message, new messages included).
    owners: BTreeSet<String>,
    /// Definitions `before` lacks: every place they declare is new; they regroup places
    /// already on the wire; no message reaches them (signed, as `unreached_types`).
    wire_types: Vec<String>,
    regrouped_types: Vec<String>,
    unreached_types: Vec<String>,
}

fn side(
    (now, pn): (&RevisionFacts, &Places),
    (before, pb): (&RevisionFacts, &Places),
    sign: char,
    split_open: bool,
) -> Side {
    let mut s = Side::default();
    let mut kept = BTreeSet::new();
    let none = BTreeSet::new();
    for (message, paths) in &pn.by_message {
        let old = pb.by_message.get(message);
        let open = pb.open.get(message).unwrap_or(&none);
        for (path, place) in paths {
            if old.is_some_and(|o| o.contains_key(path)) {
                kept.insert(place.owner.clone());
                continue;
            }
            s.owners.insert(place.owner.clone());
            let Some(old) = old else {
                continue;
            };
            if !place.parent.is_empty() && !old.contains_key(&place.parent) {
                continue;
            }
            let target = if split_open && open.contains(&place.parent) {
                &mut s.admitted
            } else {
                &mut s.fields
            };
            (target.entry(place.owner.clone()).or_default()).push(format!("{message}: {path}"));
        }
    }
    // A new definition is a wire change when every place it declares is new (a new message's
    // types, a new field's shape); one that also declares places already on the wire regroups
    // them (its genuinely new fields are listed as wire changes of their own).
    let types_of = |owners: &BTreeSet<String>| -> BTreeSet<&'static str> {
        (owners.iter())
            .filter_map(|o| pn.owner_type.get(o).copied())
            .collect()
    };
    let (wire, regroups) = (types_of(&s.owners), types_of(&kept));
    for t in now.types.iter().filter(|t| !before.has_type(t.name)) {
        if !pn.reached.contains(t.name) {
            s.unreached_types.push(format!("{sign}{}", t.name));
        } else if wire.contains(t.name) && !regroups.contains(t.name) {
            s.wire_types.push(t.name.to_owned());
        } else {
            s.regrouped_types.push(t.name.to_owned());
        }
    }
    s
}

/// Places in both revisions (in messages both have) whose JSON types or requiredness differ,
/// by their owner in `now`: `message: path required -> optional`, `… type string -> any`.
fn changed_places(now: &Places, before: &Places) -> ByOwner {
    let mut out = ByOwner::new();
    let kinds = |k: &BTreeSet<&str>| k.iter().copied().collect::<Vec<_>>().join("|");
    let requiredness = |r: bool| if r { "required" } else { "optional" };
    for (message, paths) in &now.by_message {
        let Some(old) = before.by_message.get(message) else {
            continue;
        };
        for (path, place) in paths {
            let Some(was) = old.get(path) else {
                continue;
            };
            let mut what = Vec::new();
            if let (Some(a), Some(b)) = (was.required, place.required)
                && a != b
            {
                what.push(format!("{} -> {}", requiredness(a), requiredness(b)));
            }
            // A shape cut short (a recursive definition) admits nothing known: not compared.
            if !was.kinds.is_empty() && !place.kinds.is_empty() && was.kinds != place.kinds {
                what.push(format!(
                    "type {} -> {}",
                    kinds(&was.kinds),
                    kinds(&place.kinds)
                ));
            }
            if !what.is_empty() {
                out.entry(place.owner.clone())
                    .or_default()
                    .push(format!("{message}: {path} {}", what.join(", ")));
            }
        }
    }
    out
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
    let (pn, pp) = (places(now), places(prev));
    // A new place is a wire change even under an object that was open: peers now send it. A
    // place gone from under an object still open is only no longer described.
    let added = side((now, &pn), (prev, &pp), '+', false);
    let removed = side((prev, &pp), (now, &pn), '-', true);
    let (mut regrouped_fields, mut unreached) = (Vec::new(), Vec::new());
    for t in now.types {
        let Some(old) = prev.type_fact(t.name) else {
            continue;
        };
        let mut delta = field_delta(t, old, &added.owners, '+');
        delta.extend(field_delta(old, t, &removed.owners, '-'));
        if delta.is_empty() {
            continue;
        }
        if pn.reached.contains(t.name) || pp.reached.contains(t.name) {
            regrouped_fields.push((t.name.to_owned(), delta));
        } else {
            unreached.push(format!("~{}", t.name));
        }
    }
    Changes {
        added_methods: mn.difference(&mp).cloned().collect(),
        removed_methods: mp.difference(&mn).cloned().collect(),
        added_fields: added.fields,
        removed_fields: removed.fields,
        changed_fields: changed_places(&pn, &pp),
        added_types: added.wire_types,
        removed_types: removed.wire_types,
        regrouped_added_types: added.regrouped_types,
        regrouped_removed_types: removed.regrouped_types,
        regrouped_fields,
        undescribed: removed.admitted.into_keys().collect(),
        unreached_types: [added.unreached_types, removed.unreached_types, unreached].concat(),
    }
}

/// Fields of `a` that `b` lacks and that declare no place new on the wire (so the definition
/// only regroups): `+name` or `-name` by `sign`.
fn field_delta(
    a: &TypeFact,
    b: &TypeFact,
    new_owners: &BTreeSet<String>,
    sign: char,
) -> Vec<String> {
    let regroups = |f: &&FieldFact| !new_owners.contains(&format!("{}.{}", a.name, f.name));
    (a.fields
        .iter()
        .filter(|f| b.field(f.name).is_none())
        .filter(regroups))
    .map(|f| format!("{sign}{}", f.name))
    .collect()
}

fn era_name(e: Era) -> &'static str {
    match e {
        Era::Handshake => "handshake era (initialize negotiates the revision)",
        Era::Stateless => "stateless era (every request names its revision in _meta)",
    }
}

/// At most this many places are named per declaration; the rest are counted.
const PLACES_SHOWN: usize = 2;

fn render_fields(out: &mut String, sign: char, fields: &BTreeMap<String, Vec<String>>) {
    for (owner, places) in fields {
        let mut shown = places[..places.len().min(PLACES_SHOWN)].join("; ");
        if places.len() > PLACES_SHOWN {
            let _ = write!(shown, "; {} more", places.len() - PLACES_SHOWN);
        }
        let _ = writeln!(out, "    {sign} {owner} ({shown})");
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
                let _ = writeln!(out, "    {label}: {}", items.join(", "));
            }
        };
        let _ = writeln!(out, "  wire changes (a peer sees these):");
        list(&mut out, "+ methods", &c.added_methods);
        list(&mut out, "- methods", &c.removed_methods);
        render_fields(&mut out, '+', &c.added_fields);
        render_fields(&mut out, '-', &c.removed_fields);
        render_fields(&mut out, '~', &c.changed_fields);
        list(
            &mut out,
            "- described (an open object still admits them)",
            &c.undescribed,
        );
        list(&mut out, "+ definitions", &c.added_types);
        list(&mut out, "- definitions", &c.removed_types);
        let _ = writeln!(out, "  schema restructuring (same wire shape):");
        list(&mut out, "+ definitions", &c.regrouped_added_types);
        list(&mut out, "- definitions", &c.regrouped_removed_types);
        for (ty, delta) in &c.regrouped_fields {
            let _ = writeln!(out, "    ~ {ty}: {}", delta.join(" "));
        }
        list(
            &mut out,
            "not on a message (envelopes, errors, bases)",
            &c.unreached_types,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    /// Every change as one line: a list's item (`+method client request ping`), a field's
    /// places (`+field Tool.icons: result of tools/list: tools[].icons`, joined by `; `), a
    /// regrouped definition's fields (`~regrouped CallToolRequest: +id +jsonrpc`).
    fn facts(c: &Changes) -> Vec<String> {
        let lists = [
            ("+method", &c.added_methods),
            ("-method", &c.removed_methods),
            ("+type", &c.added_types),
            ("-type", &c.removed_types),
            ("+regrouped", &c.regrouped_added_types),
            ("-regrouped", &c.regrouped_removed_types),
            ("undescribed", &c.undescribed),
            ("unreached", &c.unreached_types),
        ];
        let fields = [
            ("+field", &c.added_fields),
            ("-field", &c.removed_fields),
            ("~field", &c.changed_fields),
        ];
        let mut out: Vec<String> = (lists.iter())
            .flat_map(|(list, items)| items.iter().map(move |i| format!("{list} {i}")))
            .collect();
        out.extend(fields.iter().flat_map(|(list, by_owner)| {
            (by_owner.iter()).map(move |(owner, p)| format!("{list} {owner}: {}", p.join("; ")))
        }));
        let regrouped = c.regrouped_fields.iter();
        out.extend(regrouped.map(|(ty, delta)| format!("~regrouped {ty}: {}", delta.join(" "))));
        out
    }

    /// What each revision changes, as [`facts`]: a row `<revision> <fact>` holds that the
    /// revision's changes have that fact; `!` before the fact, that they do not; a fact ending in
    /// `:` or a space names a prefix (an owner listed, a list not empty).
    #[test]
    fn changes_per_revision() {
        let all: Vec<_> = (ProtocolVersion::ALL.iter())
            .map(|v| (v.as_str(), facts(&changes(*v))))
            .collect();
        for row in [
            // The same method sets in 2024-11-05 and 2025-03-26.
            "2025-03-26 !+method ",
            "2025-03-26 !-method ",
            "2025-03-26 +type AudioContent",
            // Elicitation arrives in 2025-06-18.
            "2025-06-18 +method server request elicitation/create",
            "2025-06-18 +type ElicitRequest",
            "2025-06-18 !-method ",
            // The stateless revision drops the handshake.
            "2026-07-28 -method client request initialize",
            "2026-07-28 -method client request ping",
            "2026-07-28 -method client notification notifications/initialized",
            "2026-07-28 -method server request sampling/createMessage",
            "2026-07-28 +method client request server/discover",
            // Params moved into named definitions regroup, but their new fields are wire:
            // `CallToolRequestParams` regroups `name` and `arguments`, already on the wire,
            // while `task` and `_meta` inside it are new to the peer.
            "2025-11-25 +regrouped CallToolRequestParams",
            "2025-11-25 !+type CallToolRequestParams",
            "2025-11-25 +field CallToolRequestParams.task: client request tools/call: params.task",
            "2025-11-25 +field CallToolRequestParams._meta:",
            // Every request definition now spells out the envelope: no wire change.
            "2025-11-25 ~regrouped CallToolRequest: +id +jsonrpc",
            // Icons: a new shape under a new field.
            "2025-11-25 +type Icon",
            "2025-11-25 +field Tool.icons: result of tools/list: tools[].icons",
            // Elicitation params became a union; the form member's `mode` is optional, so its
            // fields stay where they were and only the URL member (required `mode`) is new.
            "2025-11-25 +field ElicitRequestURLParams: server request elicitation/create: params<mode=url>",
            "2025-11-25 !-field ",
            // Sampling content may now be a list.
            "2025-11-25 +field CreateMessageResult.content: result of sampling/createMessage: content[]",
            // The JSON-RPC error envelope's rename is on no method's message.
            "2025-11-25 unreached -JSONRPCError",
            "2025-11-25 unreached +JSONRPCErrorResponse",
            // The stateless revision adds result hints and stops describing tool schemas.
            "2026-07-28 +field CallToolResult.resultType: result of tools/call: resultType",
            "2026-07-28 +field ListToolsResult.ttlMs: result of tools/list: ttlMs",
            // `_meta` becomes a named object: the definition regroups `progressToken`, its
            // reserved keys are new on the wire.
            "2026-07-28 +regrouped RequestMetaObject",
            "2026-07-28 +field RequestMetaObject.io.modelcontextprotocol/protocolVersion:",
            // `inputSchema` keeps only `type` and `$schema`, but stays open.
            "2026-07-28 undescribed Tool.inputSchema.properties",
            "2026-07-28 !-field Tool.inputSchema.properties:",
            // Sampling and elicitation requests no longer spell out the envelope.
            "2026-07-28 ~regrouped CreateMessageRequest: -id -jsonrpc",
            "2026-07-28 -type InitializeResult",
            // A renamed definition with the same tag is restructuring: `ResourceReference`
            // became `ResourceTemplateReference` (same `ref/resource` tag).
            "2025-06-18 -regrouped ResourceReference",
            "2025-06-18 +regrouped ResourceTemplateReference",
            // The content union got a name (restructuring) and a new member (wire).
            "2025-06-18 +regrouped ContentBlock",
            "2025-06-18 +type ResourceLink",
            "2025-06-18 +field ResourceLink: result of prompts/get: messages[].content<type=resource_link>; result of tools/call: content[]<type=resource_link>",
            "2025-06-18 +field CallToolResult.structuredContent:",
            // Issue 17 item 8: requiredness and JSON type changes of a field are wire changes
            // (a peer that omits a newly required member, or sends the old type, is refused).
            "2026-07-28 ~field CallToolRequestParams._meta: client request tools/call: params._meta optional -> required",
            "2026-07-28 ~field ListPromptsRequest.params: client request prompts/list: params optional -> required",
            "2026-07-28 ~field CallToolResult.structuredContent: result of tools/call: structuredContent type object -> any",
            // A field that stays as it was is not listed (a required string in both).
            "2026-07-28 !~field Tool.name:",
        ] {
            let (v, fact) = row.split_once(' ').unwrap();
            let facts = &all.iter().find(|(name, _)| *name == v).unwrap().1;
            let (want, fact) = fact.strip_prefix('!').map_or((true, fact), |f| (false, f));
            let prefix = fact.ends_with([':', ' ']);
            let found = (facts.iter()).any(|f| f == fact || (prefix && f.starts_with(fact)));
            assert_eq!(found, want, "{row}\n{facts:#?}");
        }
    }

    /// `CancelledNotificationParams.requestId` became optional in 2025-11-25 and required again
    /// in 2026-07-28, at every place it is on the wire; `render` names such changes.
    #[test]
    fn requiredness_changes_are_named_at_every_place() {
        for (v, change) in [
            (V2026_07_28, "params.requestId optional -> required"),
            (V2025_11_25, "params.requestId required -> optional"),
        ] {
            let c = changes(v);
            let places = &c.changed_fields["CancelledNotificationParams.requestId"];
            assert!(places.iter().all(|p| p.ends_with(change)), "{places:?}");
        }
        let text = render();
        assert!(
            text.contains("~ CallToolRequestParams._meta (client request tools/call: params._meta optional -> required)"),
            "{text}"
        );
    }
}
