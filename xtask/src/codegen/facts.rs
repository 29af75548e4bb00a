//! The facts generator: reads one revision's schema and writes its method and type tables as
//! static data for `mcp_wire::facts` (`crates/mcp-wire/src/generated/facts_<module>.rs`).

use anyhow::{Context, bail};
use mcp_wire::ProtocolVersion;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use super::schema::{Defs, flatten_object, ref_name};

/// Request definitions whose result is not named `<Stem>Result`. Everything else follows the
/// naming rule `FooRequest` → `FooResult`. Each entry is checked: the rule's own name must not
/// exist for it (else the entry is stale) and the renamed target must exist.
pub const RESULT_RENAMES: &[(&str, &str)] = &[
    ("PingRequest", "EmptyResult"),
    ("SetLevelRequest", "EmptyResult"),
    ("SubscribeRequest", "EmptyResult"),
    ("UnsubscribeRequest", "EmptyResult"),
];

/// The four method unions, in the field order of `RevisionFacts`.
const METHOD_UNIONS: [(&str, bool); 4] = [
    ("ClientRequest", true),
    ("ServerRequest", true),
    ("ClientNotification", false),
    ("ServerNotification", false),
];

/// One row of a method table, before it becomes tokens.
struct Method {
    method: String,
    type_name: String,
    params: Option<String>,
    result: Option<String>,
}

/// The `facts_<module>.rs` body for one revision. `renames_used` collects the entries of
/// [`RESULT_RENAMES`] that applied, so the caller can flag stale ones across all revisions.
pub fn facts_tokens(
    version: ProtocolVersion,
    defs: &Defs,
    renames_used: &mut Vec<&'static str>,
) -> anyhow::Result<TokenStream> {
    let mut tables = Vec::new();
    for (union, is_request) in METHOD_UNIONS {
        let methods = method_table(defs, union, is_request, renames_used)
            .with_context(|| format!("{version}: method table {union}"))?;
        let rows = methods.iter().map(|m| {
            let (method, type_name) = (&m.method, &m.type_name);
            let params = opt_str(m.params.as_deref());
            let result = opt_str(m.result.as_deref());
            quote! {
                MethodFact { method: #method, type_name: #type_name, params: #params, result: #result }
            }
        });
        tables.push(quote! { &[#(#rows),*] });
    }
    let [
        client_requests,
        server_requests,
        client_notifications,
        server_notifications,
    ] = <[TokenStream; 4]>::try_from(tables).expect("four method tables");

    let mut names: Vec<&String> = defs.keys().collect();
    names.sort();
    let mut types = Vec::new();
    for name in names {
        types.push(type_fact(defs, name).with_context(|| format!("{version}: definition {name}"))?);
    }
    let variant = version_variant(version);
    Ok(quote! {
        use crate::ProtocolVersion;
        use crate::facts::{FieldFact, MethodFact, RevisionFacts, TypeFact, TypeKind, TypeRef};

        /// The facts of this revision.
        pub(crate) static FACTS: RevisionFacts = RevisionFacts {
            version: ProtocolVersion::#variant,
            client_requests: #client_requests,
            server_requests: #server_requests,
            client_notifications: #client_notifications,
            server_notifications: #server_notifications,
            types: &[#(#types),*],
        };
    })
}

/// The generated module's `check_method_type`: one arm per method-level definition of the
/// four method tables (each request's and notification's type, each request's result) and
/// `InputRequiredResult` where the revision defines it, so a frame can be checked as the
/// generated type of its method without a hand list of names.
pub fn method_type_check_tokens(
    version: ProtocolVersion,
    defs: &Defs,
    renames_used: &mut Vec<&'static str>,
) -> anyhow::Result<TokenStream> {
    let mut names = std::collections::BTreeSet::new();
    for (union, is_request) in METHOD_UNIONS {
        let methods = method_table(defs, union, is_request, renames_used)
            .with_context(|| format!("{version}: method table {union}"))?;
        for m in methods {
            names.extend(m.result);
            names.insert(m.type_name);
        }
    }
    if defs.contains_key("InputRequiredResult") {
        names.insert("InputRequiredResult".to_owned());
    }
    let arms = names.iter().map(|name| {
        let ty = quote::format_ident!("{name}");
        quote! { #name => crate::de::check_as::<#ty>(value), }
    });
    Ok(quote! {
        /// Deserializes `value` as this revision's method-level definition `name` (a request's
        /// or notification's type, or a result type, of the schema's method tables); `None`
        /// when `name` is not one of them. The error locates the failing member.
        pub fn check_method_type(
            name: &str,
            value: &::serde_json::Value,
        ) -> ::std::option::Option<
            ::std::result::Result<(), ::serde_path_to_error::Error<::serde_json::Error>>,
        > {
            ::std::option::Option::Some(match name {
                #(#arms)*
                _ => return ::std::option::Option::None,
            })
        }
    })
}

/// `ProtocolVersion::V2025_06_18` as an identifier.
pub fn version_variant(version: ProtocolVersion) -> proc_macro2::Ident {
    quote::format_ident!("V{}", version.as_str().replace('-', "_"))
}

fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    }
}

/// The members of one method union, sorted by method. A union with a single member is emitted by
/// the upstream generator as a copy of that member (2026-07-28 `ClientNotification` is the
/// `CancelledNotification` object); that copy is resolved to the named definition it duplicates.
fn method_table(
    defs: &Defs,
    union: &str,
    is_request: bool,
    renames_used: &mut Vec<&'static str>,
) -> anyhow::Result<Vec<Method>> {
    let Some(def) = defs.get(union) else {
        return Ok(Vec::new());
    };
    let members: Vec<String> = match def.get("anyOf") {
        Some(any) => any
            .as_array()
            .context("anyOf is not an array")?
            .iter()
            .map(|m| {
                ref_name(m)
                    .map(str::to_owned)
                    .context("union member is not a $ref")
            })
            .collect::<anyhow::Result<_>>()?,
        None => vec![single_member_name(defs, union, def)?],
    };
    let mut out = Vec::new();
    for name in members {
        let member = defs
            .get(&name)
            .with_context(|| format!("member {name} is not defined"))?;
        let props = member.get("properties").and_then(Value::as_object);
        let method = props
            .and_then(|p| p.get("method"))
            .and_then(|m| m.get("const"))
            .and_then(Value::as_str)
            .with_context(|| format!("{name} has no const `method`"))?;
        let params = props
            .and_then(|p| p.get("params"))
            .and_then(ref_name)
            .map(str::to_owned);
        let result = if is_request {
            Some(result_name(defs, &name, renames_used)?)
        } else {
            None
        };
        out.push(Method {
            method: method.to_owned(),
            type_name: name,
            params,
            result,
        });
    }
    out.sort_by(|a, b| a.method.cmp(&b.method));
    Ok(out)
}

/// The named definition that a single-member "union" duplicates (same shape ignoring
/// descriptions); the union's own name when none matches.
fn single_member_name(defs: &Defs, union: &str, def: &Value) -> anyhow::Result<String> {
    let shape = strip_descriptions(def);
    let twins: Vec<&String> = defs
        .iter()
        .filter(|(n, d)| n.as_str() != union && strip_descriptions(d) == shape)
        .map(|(n, _)| n)
        .collect();
    match twins.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Ok(union.to_owned()),
        many => bail!("{union} duplicates several definitions: {many:?}"),
    }
}

fn strip_descriptions(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), strip_descriptions(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_descriptions).collect()),
        other => other.clone(),
    }
}

/// The result definition of request definition `request`: `FooRequest` → `FooResult`, or the
/// entry of [`RESULT_RENAMES`].
fn result_name(
    defs: &Defs,
    request: &str,
    renames_used: &mut Vec<&'static str>,
) -> anyhow::Result<String> {
    let stem = request
        .strip_suffix("Request")
        .with_context(|| format!("request definition {request} does not end in `Request`"))?;
    let by_rule = format!("{stem}Result");
    if let Some((from, to)) = RESULT_RENAMES.iter().find(|(from, _)| *from == request) {
        if defs.contains_key(&by_rule) {
            bail!("stale RESULT_RENAMES entry {from} → {to}: the schema now defines {by_rule}");
        }
        if !defs.contains_key(*to) {
            bail!("RESULT_RENAMES entry {from} → {to}: {to} is not defined");
        }
        renames_used.push(from);
        return Ok((*to).to_owned());
    }
    if !defs.contains_key(&by_rule) {
        bail!("no result definition {by_rule} for {request}; add a RESULT_RENAMES entry");
    }
    Ok(by_rule)
}

/// One `TypeFact { .. }` literal.
fn type_fact(defs: &Defs, name: &str) -> anyhow::Result<TokenStream> {
    let def = &defs[name];
    let obj = def
        .as_object()
        .context("definition is not an object schema")?;
    let empty = quote!(&[]);
    let (kind, fields, open, members, values, target) = if let Some(any) = obj.get("anyOf") {
        let members = any
            .as_array()
            .context("anyOf is not an array")?
            .iter()
            .map(|m| type_ref(defs, m))
            .collect::<anyhow::Result<Vec<_>>>()?;
        (
            quote!(Union),
            empty.clone(),
            false,
            quote!(&[#(#members),*]),
            empty,
            quote!(None),
        )
    } else if obj.contains_key("enum") || obj.contains_key("const") {
        let values = enum_values(obj)?;
        (
            quote!(Enum),
            empty.clone(),
            false,
            empty,
            quote!(&[#(#values),*]),
            quote!(None),
        )
    } else if obj.contains_key("properties") || obj.contains_key("allOf") {
        let (fields, open) = fields_tokens(defs, def)?;
        (
            quote!(Object),
            fields,
            open,
            empty.clone(),
            empty,
            quote!(None),
        )
    } else {
        let target = type_ref(defs, def)?;
        (
            quote!(Other),
            empty.clone(),
            false,
            empty.clone(),
            empty,
            quote!(Some(#target)),
        )
    };
    Ok(quote! {
        TypeFact {
            name: #name,
            kind: TypeKind::#kind,
            fields: #fields,
            open: #open,
            members: #members,
            values: #values,
            target: #target,
        }
    })
}

fn enum_values(obj: &Map<String, Value>) -> anyhow::Result<Vec<String>> {
    if let Some(c) = obj.get("const") {
        return Ok(vec![const_text(c)?]);
    }
    obj["enum"]
        .as_array()
        .context("enum is not an array")?
        .iter()
        .map(const_text)
        .collect()
}

/// A `const`/`enum` value as text: strings as they are, integers in decimal.
fn const_text(v: &Value) -> anyhow::Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        other => bail!("unsupported const/enum value {other}"),
    }
}

/// `&[FieldFact { .. }, ..]` for an object schema (with `allOf` flattened), and its openness.
fn fields_tokens(defs: &Defs, schema: &Value) -> anyhow::Result<(TokenStream, bool)> {
    let flat = flatten_object(defs, schema)?;
    let mut fields = Vec::new();
    for (name, prop) in &flat.properties {
        let required = flat.required.iter().any(|r| r == name);
        let ty = type_ref(defs, prop).with_context(|| format!("property {name}"))?;
        let constant = match prop.get("const") {
            Some(c) => {
                let c = const_text(c)?;
                quote!(Some(#c))
            }
            None => quote!(None),
        };
        fields.push(quote! {
            FieldFact { name: #name, required: #required, ty: #ty, constant: #constant }
        });
    }
    Ok((quote!(&[#(#fields),*]), flat.open))
}

/// A `TypeRef` expression for a property, member or alias schema.
fn type_ref(defs: &Defs, schema: &Value) -> anyhow::Result<TokenStream> {
    let obj = match schema {
        Value::Bool(true) => return Ok(quote!(TypeRef::Any)),
        Value::Object(o) => o,
        other => bail!("unsupported schema {other}"),
    };
    if let Some(name) = ref_name(schema) {
        if !defs.contains_key(name) {
            bail!("$ref to undefined {name}");
        }
        return Ok(quote!(TypeRef::Named(#name)));
    }
    if let Some(any) = obj.get("anyOf") {
        let members = any
            .as_array()
            .context("anyOf is not an array")?
            .iter()
            .map(|m| type_ref(defs, m))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return Ok(quote!(TypeRef::Union(&[#(#members),*])));
    }
    if obj.contains_key("properties") || obj.contains_key("allOf") {
        let (fields, open) = fields_tokens(defs, schema)?;
        return Ok(quote!(TypeRef::Object { fields: #fields, open: #open }));
    }
    if let Some(c) = obj.get("const") {
        let scalar = match c {
            Value::String(_) => "string",
            Value::Number(_) => "integer",
            other => bail!("unsupported const {other}"),
        };
        return Ok(quote!(TypeRef::Scalar(#scalar)));
    }
    if obj.contains_key("enum") {
        let values = enum_values(obj)?;
        return Ok(quote!(TypeRef::Enum(&[#(#values),*])));
    }
    match obj.get("type") {
        None => {
            let known = obj.keys().all(|k| k == "description");
            if !known {
                bail!("schema without type, $ref or anyOf: {schema}");
            }
            Ok(quote!(TypeRef::Any))
        }
        Some(Value::Array(types)) => {
            let members = types
                .iter()
                .map(|t| {
                    let t = t.as_str().context("type array entry is not a string")?;
                    Ok(quote!(TypeRef::Scalar(#t)))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            Ok(quote!(TypeRef::Union(&[#(#members),*])))
        }
        Some(Value::String(t)) => match t.as_str() {
            "array" => {
                let items = match obj.get("items") {
                    Some(items) => type_ref(defs, items)?,
                    None => quote!(TypeRef::Any),
                };
                Ok(quote!(TypeRef::Array(&#items)))
            }
            "object" => {
                let values = match obj.get("additionalProperties") {
                    None | Some(Value::Bool(true)) => quote!(TypeRef::Any),
                    Some(Value::Object(o)) if o.keys().all(|k| k == "description") => {
                        quote!(TypeRef::Any)
                    }
                    Some(ap) => type_ref(defs, ap)?,
                };
                Ok(quote!(TypeRef::Map(&#values)))
            }
            "string" | "integer" | "number" | "boolean" | "null" => Ok(quote!(TypeRef::Scalar(#t))),
            other => bail!("unsupported type {other}"),
        },
        Some(other) => bail!("unsupported type {other}"),
    }
}
