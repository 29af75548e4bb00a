//! Structure-aware JSON for the superset, driven by [`arbitrary::Unstructured`]: values shaped
//! by the generated facts of the revisions (`mcp_wire::facts`), so the fuzzer explores bodies
//! the superset parses rather than random text. The model holds no fuzzing code: everything the
//! generator knows comes from the facts tables.
//!
//! An object of type `T` at revision `r` gets `T`'s required members at `r` and, when the input
//! says so, any member `T` has at *any* revision (typed by that revision) plus an unknown key —
//! the superset values that hold several revisions' fields at once, which `serialize_for` must
//! strip, pass, refuse or shape for each target. Size is bounded (depth and node count).

use std::collections::HashSet;

use arbitrary::{Result, Unstructured};
use mcp_wire::ProtocolVersion;
use mcp_wire::facts::{self, FieldFact, TypeKind, TypeRef};
use serde_json::{Map, Number, Value};

/// Nesting beyond which only required members and empty containers are generated.
const MAX_DEPTH: usize = 6;
/// Nodes beyond which only required members and empty containers are generated.
const MAX_NODES: usize = 300;

/// Strings that mean something somewhere in the protocol, so that formats, enumerations and
/// reserved keys are hit more often than by chance.
const WORDS: &[&str] = &[
    "",
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "user",
    "assistant",
    "complete",
    "input_required",
    "public",
    "private",
    "2024-11-05",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "https://example.com/a?b=c",
    "file:///tmp/x.txt",
    "image/png",
    "aGVsbG8=",
    "tools/call",
    "sampling/createMessage",
    "elicitation/create",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/server-variant",
    "working",
    "completed",
    "accept",
    "Ålesund \u{1F600} \"quoted\" \\ \n",
];

/// A generator of JSON values for one revision's types.
pub struct Generator<'a, 'u> {
    u: &'a mut Unstructured<'u>,
    nodes: usize,
}

impl<'a, 'u> Generator<'a, 'u> {
    /// A generator reading its choices from `u`.
    pub fn new(u: &'a mut Unstructured<'u>) -> Self {
        Generator { u, nodes: 0 }
    }

    /// A value of the definition `name` of revision `version`.
    pub fn named(&mut self, version: ProtocolVersion, name: &str, depth: usize) -> Result<Value> {
        self.nodes += 1;
        let Some(fact) = facts::revision(version).type_fact(name) else {
            return self.any(depth);
        };
        match fact.kind {
            TypeKind::Object => self.object(version, Some(name), fact.fields, fact.open, depth),
            TypeKind::Union => match self.pick(fact.members)? {
                Some(member) => self.of(version, member, depth),
                None => self.any(depth),
            },
            TypeKind::Enum => self.enumerated(fact.values),
            TypeKind::Other => match &fact.target {
                Some(target) => self.of(version, target, depth),
                None => self.any(depth),
            },
        }
    }

    /// A value of the shape `r` (names resolved at `version`).
    pub fn of(&mut self, version: ProtocolVersion, r: &TypeRef, depth: usize) -> Result<Value> {
        self.nodes += 1;
        Ok(match r {
            TypeRef::Named(name) => return self.named(version, name, depth + 1),
            TypeRef::Array(item) => {
                let mut items = Vec::new();
                for _ in 0..self.count(depth)? {
                    items.push(self.of(version, item, depth + 1)?);
                }
                Value::Array(items)
            }
            TypeRef::Map(item) => {
                let mut map = Map::new();
                for _ in 0..self.count(depth)? {
                    let key = self.string()?;
                    map.insert(key, self.of(version, item, depth + 1)?);
                }
                Value::Object(map)
            }
            TypeRef::Scalar(scalar) => self.scalar(scalar)?,
            TypeRef::Union(members) => match self.pick(members)? {
                Some(member) => return self.of(version, member, depth),
                None => return self.any(depth),
            },
            TypeRef::Object { fields, open } => {
                return self.object(version, None, fields, *open, depth + 1);
            }
            TypeRef::Enum(values) => self.enumerated(values)?,
            TypeRef::Any => return self.any(depth),
        })
    }

    /// An object: the required `fields` of `version`, and optional members of this definition at
    /// any revision (a named definition) when the input chooses them.
    fn object(
        &mut self,
        version: ProtocolVersion,
        name: Option<&str>,
        fields: &'static [FieldFact],
        open: bool,
        depth: usize,
    ) -> Result<Value> {
        let mut candidates: Vec<(ProtocolVersion, &'static FieldFact)> =
            fields.iter().map(|f| (version, f)).collect();
        if let Some(name) = name {
            for other in ProtocolVersion::ALL {
                if let Some(t) = facts::revision(other).type_fact(name) {
                    candidates.extend(t.fields.iter().map(|f| (other, f)));
                }
            }
        }
        let mut seen = HashSet::new();
        let mut map = Map::new();
        for (at, field) in candidates {
            if !seen.insert(field.name) {
                continue;
            }
            let required = at == version && field.required;
            let room = depth < MAX_DEPTH && !self.small();
            if !required && (!room || !self.u.arbitrary::<bool>()?) {
                continue;
            }
            let value = match field.constant {
                Some(c) => constant(c, &field.ty),
                None => self.of(at, &field.ty, depth)?,
            };
            map.insert(field.name.to_owned(), value);
        }
        if (open || name.is_some()) && depth < MAX_DEPTH && !self.small() && self.u.ratio(1, 8)? {
            let key = self.string()?;
            let value = self.any(depth + 1)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }

    /// Any JSON value (small).
    fn any(&mut self, depth: usize) -> Result<Value> {
        self.nodes += 1;
        let deep = depth >= MAX_DEPTH || self.small();
        Ok(match self.u.int_in_range(0..=if deep { 3 } else { 5 })? {
            0 => Value::Null,
            1 => Value::Bool(self.u.arbitrary()?),
            2 => self.scalar("number")?,
            3 => Value::String(self.string()?),
            4 => {
                let mut items = Vec::new();
                for _ in 0..self.count(depth)? {
                    items.push(self.any(depth + 1)?);
                }
                Value::Array(items)
            }
            _ => {
                let mut map = Map::new();
                for _ in 0..self.count(depth)? {
                    let key = self.string()?;
                    map.insert(key, self.any(depth + 1)?);
                }
                Value::Object(map)
            }
        })
    }

    fn scalar(&mut self, scalar: &str) -> Result<Value> {
        Ok(match scalar {
            "string" => Value::String(self.string()?),
            "integer" => match self.u.int_in_range(0..=3)? {
                0 => Value::from(self.u.int_in_range(0..=10)?),
                1 => Value::from(self.u.arbitrary::<i64>()?),
                2 => Value::from(self.u.arbitrary::<u64>()?),
                _ => Value::from(-32000 - i64::from(self.u.int_in_range(0..=700)?)),
            },
            "number" => match self.u.int_in_range(0..=2)? {
                0 => Value::from(self.u.int_in_range(0..=100)?),
                1 => Value::from(f64::from(self.u.arbitrary::<i32>()?) / 8.0),
                _ => Number::from_f64(self.u.arbitrary::<f64>()?)
                    .map(Value::Number)
                    .unwrap_or(Value::from(0.5)),
            },
            "boolean" => Value::Bool(self.u.arbitrary()?),
            _ => Value::Null,
        })
    }

    fn string(&mut self) -> Result<String> {
        if self.u.ratio(3, 4)? {
            Ok((*self.u.choose(WORDS)?).to_owned())
        } else {
            let s: &str = self.u.arbitrary()?;
            Ok(s.chars().take(24).collect())
        }
    }

    fn enumerated(&mut self, values: &[&str]) -> Result<Value> {
        if values.is_empty() {
            return Ok(Value::String(self.string()?));
        }
        let v = *self.u.choose(values)?;
        Ok(match v.parse::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => Value::String(v.to_owned()),
        })
    }

    fn pick<'r>(&mut self, members: &'r [TypeRef]) -> Result<Option<&'r TypeRef>> {
        if members.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.u.choose(members)?))
    }

    /// How many items a container gets: none once the value is large.
    fn count(&mut self, depth: usize) -> Result<usize> {
        if depth >= MAX_DEPTH || self.small() {
            return Ok(0);
        }
        self.u.int_in_range(0..=3)
    }

    /// Whether the value is large enough that only what is required is added.
    fn small(&self) -> bool {
        self.nodes >= MAX_NODES
    }
}

/// A `const` member's value: integers as numbers, everything else as its string.
fn constant(c: &str, ty: &TypeRef) -> Value {
    match (ty, c.parse::<i64>()) {
        (TypeRef::Scalar("integer" | "number"), Ok(n)) => Value::from(n),
        _ => Value::String(c.to_owned()),
    }
}
