//! Facts about each revision, read from its pinned schema by `cargo xtask codegen`: the method
//! tables and the type/field tables. The types here are hand-written; the data lives in
//! `src/generated/facts_*.rs` and is compiled whatever features are enabled, because the boundary
//! needs every revision's facts.

use crate::ProtocolVersion;

/// Everything the generator records about one revision.
#[derive(Debug)]
pub struct RevisionFacts {
    /// The revision.
    pub version: ProtocolVersion,
    /// Members of the schema's `ClientRequest` union, sorted by method.
    pub client_requests: &'static [MethodFact],
    /// Members of the schema's `ServerRequest` union, sorted by method.
    pub server_requests: &'static [MethodFact],
    /// Members of the schema's `ClientNotification` union, sorted by method.
    pub client_notifications: &'static [MethodFact],
    /// Members of the schema's `ServerNotification` union, sorted by method.
    pub server_notifications: &'static [MethodFact],
    /// Every definition of the schema, sorted by name.
    pub types: &'static [TypeFact],
}

/// One request or notification of a method table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodFact {
    /// The `method` literal, e.g. `"tools/call"`.
    pub method: &'static str,
    /// The schema definition of the whole request or notification, e.g. `"CallToolRequest"`.
    pub type_name: &'static str,
    /// The definition of its `params`, when the schema names one.
    pub params: Option<&'static str>,
    /// For requests: the definition of the result, e.g. `"CallToolResult"`.
    pub result: Option<&'static str>,
}

/// What kind of definition a [`TypeFact`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    /// An object with properties.
    Object,
    /// A union (`anyOf`/`oneOf`) of other definitions or shapes; see [`TypeFact::members`].
    Union,
    /// A string enumeration or a single constant.
    Enum,
    /// Anything else (a scalar, an array, a map, an alias of another definition).
    Other,
}

/// One definition of a revision's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeFact {
    /// The definition's name, e.g. `"CallToolResult"`.
    pub name: &'static str,
    /// The kind of definition.
    pub kind: TypeKind,
    /// For objects: every property (after flattening `allOf`), in schema order.
    pub fields: &'static [FieldFact],
    /// For objects: whether keys beyond `fields` are allowed (`additionalProperties` not false).
    pub open: bool,
    /// For unions: the member shapes, in schema order.
    pub members: &'static [TypeRef],
    /// For enums: the allowed string values.
    pub values: &'static [&'static str],
}

/// One property of an object definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldFact {
    /// The wire name, e.g. `"structuredContent"`.
    pub name: &'static str,
    /// Whether the schema lists it in `required`.
    pub required: bool,
    /// Its type.
    pub ty: TypeRef,
    /// A `const` string value the property must have (discriminators such as `type`, `method`).
    pub constant: Option<&'static str>,
}

/// The type of a property or union member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeRef {
    /// A reference to another definition of the same revision.
    Named(&'static str),
    /// An array of items.
    Array(&'static TypeRef),
    /// An object with arbitrary keys whose values have one type.
    Map(&'static TypeRef),
    /// A JSON scalar: `"string"`, `"integer"`, `"number"`, `"boolean"` or `"null"`.
    Scalar(&'static str),
    /// An inline union of shapes.
    Union(&'static [TypeRef]),
    /// Any JSON value, or an object whose interior the schema leaves open.
    Any,
}

impl RevisionFacts {
    /// The definition named `name`, if this revision has it.
    pub fn type_fact(&self, name: &str) -> Option<&'static TypeFact> {
        self.types
            .binary_search_by(|t| t.name.cmp(name))
            .ok()
            .map(|i| &self.types[i])
    }

    /// Whether this revision defines `name`.
    pub fn has_type(&self, name: &str) -> bool {
        self.type_fact(name).is_some()
    }

    /// The request (either direction) whose method is `method`.
    pub fn request(&self, method: &str) -> Option<&'static MethodFact> {
        self.client_requests
            .iter()
            .chain(self.server_requests)
            .find(|m| m.method == method)
    }

    /// The notification (either direction) whose method is `method`.
    pub fn notification(&self, method: &str) -> Option<&'static MethodFact> {
        self.client_notifications
            .iter()
            .chain(self.server_notifications)
            .find(|m| m.method == method)
    }
}

impl TypeFact {
    /// The field named `name` (wire name).
    pub fn field(&self, name: &str) -> Option<&'static FieldFact> {
        self.fields.iter().find(|f| f.name == name)
    }
}
