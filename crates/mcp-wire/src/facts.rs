//! Facts about each revision, read from its pinned schema by `cargo xtask codegen`: the method
//! tables and the type/field tables. The types here are hand-written; the data lives in
//! `src/generated/facts_*.rs` and is compiled whatever features are enabled, because the boundary
//! needs every revision's facts.

use crate::ProtocolVersion;
use crate::de::error::{ModelError, ModelErrorKind};
use crate::path::JsonPath;

#[path = "generated/facts_v2024_11_05.rs"]
mod v2024_11_05;
#[path = "generated/facts_v2025_03_26.rs"]
mod v2025_03_26;
#[path = "generated/facts_v2025_06_18.rs"]
mod v2025_06_18;
#[path = "generated/facts_v2025_11_25.rs"]
mod v2025_11_25;
#[path = "generated/facts_v2026_07_28.rs"]
mod v2026_07_28;

/// The facts of revision `v`, read from its pinned schema at generation time.
pub fn revision(v: ProtocolVersion) -> &'static RevisionFacts {
    match v {
        ProtocolVersion::V2024_11_05 => &v2024_11_05::FACTS,
        ProtocolVersion::V2025_03_26 => &v2025_03_26::FACTS,
        ProtocolVersion::V2025_06_18 => &v2025_06_18::FACTS,
        ProtocolVersion::V2025_11_25 => &v2025_11_25::FACTS,
        ProtocolVersion::V2026_07_28 => &v2026_07_28::FACTS,
    }
}

/// The outcome of one generated revision module's `check_method_type`.
type GeneratedCheck = Option<Result<(), serde_path_to_error::Error<serde_json::Error>>>;

/// Checks `value` as the generated type `name` of revision `v`, one of the definitions of its
/// method tables (`check_method_type` in each generated module, written by the generator from
/// the same tables as these facts). `None` when `name` is not one of them, or when that
/// revision's generated module is not compiled (its Cargo feature is off). A failure is
/// [`ModelErrorKind::Invalid`] at the failing member, its text
/// `"<name> (generated type): <serde's message>"`.
#[cfg_attr(
    not(any_revision),
    allow(unused_variables) // no generated module to check against
)]
pub fn check_generated(
    v: ProtocolVersion,
    name: &str,
    value: &serde_json::Value,
) -> Option<Result<(), ModelError>> {
    #[allow(unreachable_patterns)] // every arm is compiled only with all revision features on
    let outcome: GeneratedCheck = match v {
        #[cfg(feature = "v2024_11_05")]
        ProtocolVersion::V2024_11_05 => crate::v2024_11_05::check_method_type(name, value),
        #[cfg(feature = "v2025_03_26")]
        ProtocolVersion::V2025_03_26 => crate::v2025_03_26::check_method_type(name, value),
        #[cfg(feature = "v2025_06_18")]
        ProtocolVersion::V2025_06_18 => crate::v2025_06_18::check_method_type(name, value),
        #[cfg(feature = "v2025_11_25")]
        ProtocolVersion::V2025_11_25 => crate::v2025_11_25::check_method_type(name, value),
        #[cfg(feature = "v2026_07_28")]
        ProtocolVersion::V2026_07_28 => crate::v2026_07_28::check_method_type(name, value),
        _ => None,
    };
    Some(outcome?.map_err(|e| {
        let mut path = JsonPath::root();
        for segment in e.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => path = path.index(*index),
                serde_path_to_error::Segment::Map { key } => path = path.key(key.as_str()),
                serde_path_to_error::Segment::Enum { .. }
                | serde_path_to_error::Segment::Unknown => {}
            }
        }
        ModelError::new(
            path,
            ModelErrorKind::Invalid(format!("{name} (generated type): {}", e.inner())),
        )
    }))
}

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
    /// For enums: the allowed values (a top-level `const` is a one-value enum; integer values
    /// are written in decimal).
    pub values: &'static [&'static str],
    /// For [`TypeKind::Other`]: the shape (an alias's target, a scalar, an array or a map).
    pub target: Option<TypeRef>,
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
    /// The `const` value the property must have (discriminators such as `type`, `method`,
    /// error `code`), as text: strings as they are, integers in decimal.
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
    /// An inline union of shapes (also a `type` array such as `["string", "integer"]`).
    Union(&'static [TypeRef]),
    /// An inline object with its own properties (after flattening `allOf`).
    Object {
        /// Its properties, in schema order.
        fields: &'static [FieldFact],
        /// Whether keys beyond `fields` are allowed.
        open: bool,
    },
    /// An inline string enumeration.
    Enum(&'static [&'static str]),
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

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion as V;
    use serde_json::json;

    /// Whether revision `v`'s generated module is compiled (its Cargo feature is on).
    fn compiled(v: ProtocolVersion) -> bool {
        match v {
            V::V2024_11_05 => cfg!(feature = "v2024_11_05"),
            V::V2025_03_26 => cfg!(feature = "v2025_03_26"),
            V::V2025_06_18 => cfg!(feature = "v2025_06_18"),
            V::V2025_11_25 => cfg!(feature = "v2025_11_25"),
            V::V2026_07_28 => cfg!(feature = "v2026_07_28"),
        }
    }

    /// Every definition of a revision's method tables (and `InputRequiredResult`) is checkable
    /// as its generated type at that revision, and a name outside them is not; a revision whose
    /// feature is off checks nothing.
    #[test]
    fn generated_checks_cover_exactly_the_method_tables() {
        for v in V::ALL {
            let f = revision(v);
            let mut want: Vec<&str> = Vec::new();
            for m in f
                .client_requests
                .iter()
                .chain(f.server_requests)
                .chain(f.client_notifications)
                .chain(f.server_notifications)
            {
                want.push(m.type_name);
                want.extend(m.result);
            }
            if f.has_type("InputRequiredResult") {
                want.push("InputRequiredResult");
            }
            assert!(want.contains(&"CallToolRequest"), "{v}: {want:?}");
            for name in &want {
                assert_eq!(
                    check_generated(v, name, &json!(null)).is_some(),
                    compiled(v),
                    "{v}: {name} (generated module compiled: {})",
                    compiled(v)
                );
            }
            for t in f.types.iter().filter(|t| !want.contains(&t.name)) {
                assert!(
                    check_generated(v, t.name, &json!(null)).is_none(),
                    "{v}: {} is not method-level",
                    t.name
                );
            }
        }
    }

    #[cfg(feature = "v2025_06_18")]
    #[test]
    fn generated_checks_point_at_the_failing_member() {
        let v = V::V2025_06_18;
        let ok = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}});
        assert_eq!(check_generated(v, "CallToolRequest", &ok), Some(Ok(())));
        let bad = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}});
        let e = check_generated(v, "CallToolRequest", &bad)
            .unwrap()
            .unwrap_err();
        assert_eq!(e.path.pointer(), "/params/name");
        assert!(
            e.kind
                .to_string()
                .starts_with("CallToolRequest (generated type): invalid type"),
            "{e}"
        );
        assert_eq!(check_generated(v, "DiscoverRequest", &ok), None);
    }

    fn methods(t: &[MethodFact]) -> Vec<&str> {
        t.iter().map(|m| m.method).collect()
    }

    #[test]
    fn every_revision_is_keyed_by_itself_and_sorted() {
        for v in V::ALL {
            let f = revision(v);
            assert_eq!(f.version, v);
            assert!(f.types.windows(2).all(|w| w[0].name < w[1].name), "{v}");
            for table in [
                f.client_requests,
                f.server_requests,
                f.client_notifications,
                f.server_notifications,
            ] {
                assert!(table.windows(2).all(|w| w[0].method < w[1].method), "{v}");
                for m in table {
                    assert!(f.has_type(m.type_name), "{v}: {}", m.type_name);
                    if let Some(r) = m.result {
                        assert!(f.has_type(r), "{v}: result {r}");
                    }
                }
            }
        }
    }

    #[test]
    fn handshake_methods_end_at_2026() {
        let init = revision(V::V2025_11_25).request("initialize").unwrap();
        assert_eq!(init.type_name, "InitializeRequest");
        assert_eq!(init.params, Some("InitializeRequestParams"));
        assert_eq!(init.result, Some("InitializeResult"));
        assert!(revision(V::V2026_07_28).request("initialize").is_none());
        assert!(revision(V::V2026_07_28).request("ping").is_none());
        assert!(revision(V::V2026_07_28).server_requests.is_empty());
        assert_eq!(
            revision(V::V2026_07_28)
                .request("server/discover")
                .unwrap()
                .result,
            Some("DiscoverResult")
        );
    }

    #[test]
    fn results_follow_naming_and_the_rename_table() {
        for v in V::ALL {
            let f = revision(v);
            assert_eq!(
                f.request("tools/call").unwrap().result,
                Some("CallToolResult")
            );
            if v < V::V2026_07_28 {
                for m in ["ping", "logging/setLevel", "resources/subscribe"] {
                    assert_eq!(f.request(m).unwrap().result, Some("EmptyResult"), "{v} {m}");
                }
            }
        }
        // 2024-11-05 requests declare their params inline, so no params definition is named.
        assert_eq!(
            revision(V::V2024_11_05)
                .request("tools/call")
                .unwrap()
                .params,
            None
        );
    }

    #[test]
    fn task_methods_are_kept_as_schema_facts() {
        let f = revision(V::V2025_11_25);
        assert_eq!(
            methods(f.server_requests),
            [
                "elicitation/create",
                "ping",
                "roots/list",
                "sampling/createMessage",
                "tasks/cancel",
                "tasks/get",
                "tasks/list",
                "tasks/result"
            ]
        );
        assert_eq!(
            f.request("tasks/result").unwrap().result,
            Some("GetTaskPayloadResult")
        );
        assert!(f.notification("notifications/tasks/status").is_some());
    }

    #[test]
    fn single_member_union_resolves_to_its_named_twin() {
        let f = revision(V::V2026_07_28);
        assert_eq!(f.client_notifications.len(), 1);
        assert_eq!(f.client_notifications[0].method, "notifications/cancelled");
        assert_eq!(f.client_notifications[0].type_name, "CancelledNotification");
        assert_eq!(
            methods(revision(V::V2024_11_05).client_notifications).len(),
            4
        );
    }

    #[test]
    fn call_tool_result_content_is_a_required_content_block_array() {
        for v in [V::V2025_06_18, V::V2025_11_25, V::V2026_07_28] {
            let t = revision(v).type_fact("CallToolResult").unwrap();
            assert_eq!(t.kind, TypeKind::Object);
            let content = t.field("content").unwrap();
            assert!(content.required);
            assert_eq!(content.ty, TypeRef::Array(&TypeRef::Named("ContentBlock")));
            assert!(t.open);
        }
        let rt = revision(V::V2026_07_28)
            .type_fact("CallToolResult")
            .unwrap();
        assert!(rt.field("resultType").unwrap().required);
        assert!(!rt.field("isError").unwrap().required);
    }

    #[test]
    fn batches_exist_only_in_2025_03_26() {
        for v in V::ALL {
            let has = revision(v).has_type("JSONRPCBatchRequest");
            assert_eq!(has, v == V::V2025_03_26, "{v}");
            assert_eq!(revision(v).has_type("JSONRPCBatchResponse"), has, "{v}");
        }
    }

    #[test]
    fn consts_enums_unions_and_aliases_are_recorded() {
        let f = revision(V::V2026_07_28);
        let text = f.type_fact("TextContent").unwrap();
        assert_eq!(text.field("type").unwrap().constant, Some("text"));
        let block = f.type_fact("ContentBlock").unwrap();
        assert_eq!(block.kind, TypeKind::Union);
        assert!(block.members.contains(&TypeRef::Named("TextContent")));
        let level = f.type_fact("LoggingLevel").unwrap();
        assert_eq!(level.kind, TypeKind::Enum);
        assert_eq!(level.values.len(), 8);
        let id = f.type_fact("RequestId").unwrap();
        assert_eq!(
            id.target,
            Some(TypeRef::Union(&[
                TypeRef::Scalar("string"),
                TypeRef::Scalar("integer")
            ]))
        );
        let empty = f.type_fact("EmptyResult").unwrap();
        assert_eq!(empty.target, Some(TypeRef::Named("Result")));
        // allOf flattened: `Error & {code: const}`.
        let hm = f.type_fact("HeaderMismatchError").unwrap();
        let TypeRef::Object { fields, .. } = hm.field("error").unwrap().ty else {
            panic!("HeaderMismatchError.error is not an inline object");
        };
        let code = fields.iter().find(|f| f.name == "code").unwrap();
        assert_eq!(code.constant, Some("-32020"));
        assert!(fields.iter().any(|f| f.name == "message" && f.required));
        // 2025-11-25 `GetTaskResult = Result & Task`: Task's fields appear on the result.
        let task = revision(V::V2025_11_25).type_fact("GetTaskResult").unwrap();
        assert!(task.field("status").unwrap().required);
        assert!(task.field("taskId").unwrap().required);
    }
}
