//! `#[derive(Describe)]`: how a model type of mcp-wire describes itself to a walker.
//!
//! Internal to `mcp-wire` (the generated code names `crate::model::describe`). It reads the same
//! `#[serde(...)]` attributes `serde_derive` reads, so the description names the same members in
//! the same order as the type's `Serialize`; an attribute it does not know is a compile error,
//! never a silent difference. It describes; it decides nothing (see `mcp_wire::model::describe`).
//!
//! - A struct with named fields lists its members (wire name, shape) and hands each member
//!   serde would write to the walker, in order.
//! - An enum of unit variants is a scalar: written as its `Serialize` writes it.
//! - An enum of newtype variants is a union: it names itself and the member it holds.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitByteStr, LitStr, parse_macro_input};

/// Derives `crate::model::describe::Describe` from the type's serde attributes.
#[proc_macro_derive(Describe, attributes(serde))]
pub fn derive_describe(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Describe)] takes no generic types",
        ));
    }
    let container = Container::read(&input.attrs)?;
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => expand_struct(input, &container, fields),
            _ => Err(syn::Error::new_spanned(
                &input.ident,
                "#[derive(Describe)] needs named fields",
            )),
        },
        Data::Enum(data) => expand_enum(input, data),
        Data::Union(_) => Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(Describe)] does not take unions",
        )),
    }
}

/// The serde container attributes that change what is written.
struct Container {
    rename: Option<String>,
    rename_all: Option<String>,
}

impl Container {
    fn read(attrs: &[syn::Attribute]) -> syn::Result<Self> {
        let mut out = Container {
            rename: None,
            rename_all: None,
        };
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident("rename_all") {
                    out.rename_all = Some(meta.value()?.parse::<LitStr>()?.value());
                } else {
                    return Err(
                        meta.error("#[derive(Describe)] does not know this serde attribute")
                    );
                }
                Ok(())
            })?;
        }
        Ok(out)
    }
}

/// The serde field attributes that change what is written.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    skip_if: Option<syn::ExprPath>,
    flatten: bool,
}

impl FieldAttrs {
    fn read(attrs: &[syn::Attribute]) -> syn::Result<Self> {
        let mut out = FieldAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    out.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident("skip_serializing_if") {
                    out.skip_if = Some(meta.value()?.parse::<LitStr>()?.parse()?);
                } else if meta.path.is_ident("flatten") {
                    out.flatten = true;
                } else if ["default", "deserialize_with", "alias"]
                    .iter()
                    .any(|a| meta.path.is_ident(a))
                {
                    // Reading only.
                    if meta.input.peek(syn::Token![=]) {
                        meta.value()?.parse::<LitStr>()?;
                    }
                } else {
                    return Err(
                        meta.error("#[derive(Describe)] does not know this serde attribute")
                    );
                }
                Ok(())
            })?;
        }
        Ok(out)
    }
}

/// A field's wire name under `rename_all` (the cases the model uses).
fn wire_name(field: &str, rename_all: Option<&str>, span: Span) -> syn::Result<String> {
    match rename_all {
        None | Some("snake_case") => Ok(field.to_owned()),
        Some("camelCase") => {
            let mut out = String::with_capacity(field.len());
            let mut upper = false;
            for c in field.chars() {
                if c == '_' {
                    upper = true;
                } else if upper {
                    out.push(c.to_ascii_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        }
        Some(other) => Err(syn::Error::new(
            span,
            format!("#[derive(Describe)] does not know rename_all = {other:?}"),
        )),
    }
}

fn expand_struct(
    input: &DeriveInput,
    container: &Container,
    fields: &syn::FieldsNamed,
) -> syn::Result<Tokens> {
    let ident = &input.ident;
    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| ident.to_string());
    let mut infos = Vec::new();
    let mut calls = Vec::new();
    let mut flat = false;
    let mut flattens_struct = false;
    for field in &fields.named {
        let attrs = FieldAttrs::read(&field.attrs)?;
        let member = field.ident.as_ref().expect("named field");
        let ty = &field.ty;
        if attrs.flatten {
            flat = true;
            calls.push(if is_json_map(ty) {
                quote! { m.extra(&self.#member)?; }
            } else {
                flattens_struct = true;
                quote! { m.flatten(&self.#member)?; }
            });
            continue;
        }
        let raw = member.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw);
        let key = match attrs.rename {
            Some(k) => k,
            None => wire_name(raw, container.rename_all.as_deref(), member.span())?,
        };
        if key.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
            return Err(syn::Error::new_spanned(
                member,
                "#[derive(Describe)] gives keys without escaping; this one would need it",
            ));
        }
        let index = infos.len();
        let quoted = LitByteStr::new(format!("\"{key}\":").as_bytes(), member.span());
        infos.push(quote! {
            crate::model::describe::Field {
                key: #key,
                shape: <#ty as crate::model::describe::Describe>::SHAPE,
            }
        });
        let call = quote! { m.field(#index, #key, #quoted, &self.#member)?; };
        calls.push(match attrs.skip_if {
            Some(path) => quote! { if !#path(&self.#member) { #call } },
            None => call,
        });
    }
    Ok(quote! {
        impl crate::model::describe::Describe for #ident {
            const SHAPE: crate::model::describe::Shape =
                crate::model::describe::Shape::Struct { name: #name, flat: #flat };

            fn describe<W: crate::model::describe::Walker>(
                &self,
                w: &mut W,
            ) -> ::core::result::Result<(), W::Error> {
                w.structure(self)
            }
        }

        impl crate::model::describe::Struct for #ident {
            const NAME: &'static str = #name;
            const FLAT: bool = #flat;
            const FIELDS: &'static [crate::model::describe::Field] = &[#(#infos),*];
            const FLATTENS_STRUCT: bool = #flattens_struct;

            fn memo() -> &'static crate::model::describe::Memo {
                static MEMO: crate::model::describe::Memo = crate::model::describe::Memo::new();
                &MEMO
            }

            fn members<M: crate::model::describe::Members>(
                &self,
                m: &mut M,
            ) -> ::core::result::Result<(), M::Error> {
                #(#calls)*
                ::core::result::Result::Ok(())
            }
        }
    })
}

/// The name of a member's type (the last path segment, through the groups `macro_rules!`
/// wraps types in), if it is a path.
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether `ty` is written as a JSON object map (`Map<String, Value>`).
fn is_json_map(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Map"))
}

fn expand_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<Tokens> {
    let ident = &input.ident;
    let units = data
        .variants
        .iter()
        .all(|v| matches!(v.fields, Fields::Unit));
    if units {
        return Ok(quote! {
            impl crate::model::describe::Describe for #ident {
                const SHAPE: crate::model::describe::Shape = crate::model::describe::Shape::Scalar;

                fn describe<W: crate::model::describe::Walker>(
                    &self,
                    w: &mut W,
                ) -> ::core::result::Result<(), W::Error> {
                    w.scalar(self)
                }
            }
        });
    }
    let mut arms = Vec::new();
    let mut seq_arms = Vec::new();
    let mut members = Vec::new();
    for (index, v) in data.variants.iter().enumerate() {
        let Fields::Unnamed(f) = &v.fields else {
            return Err(syn::Error::new_spanned(
                v,
                "#[derive(Describe)] takes enums of unit variants or of newtype variants",
            ));
        };
        if f.unnamed.len() != 1 {
            return Err(syn::Error::new_spanned(v, "a union member holds one value"));
        }
        let variant = &v.ident;
        members.push(match type_name(&f.unnamed[0].ty) {
            Some(member_name) => quote! { ::core::option::Option::Some(#member_name) },
            None => quote! { ::core::option::Option::None },
        });
        arms.push(quote! {
            Self::#variant(member) => w.union_member(&UNION, #index, member),
        });
        seq_arms.push(quote! {
            Self::#variant(member) => crate::model::describe::Describe::is_seq(member),
        });
    }
    let union_name = ident.to_string();
    Ok(quote! {
        impl crate::model::describe::Describe for #ident {
            const SHAPE: crate::model::describe::Shape = crate::model::describe::Shape::Union;

            fn describe<W: crate::model::describe::Walker>(
                &self,
                w: &mut W,
            ) -> ::core::result::Result<(), W::Error> {
                static UNION: crate::model::describe::Union = crate::model::describe::Union {
                    name: #union_name,
                    members: &[#(#members),*],
                    memo: crate::model::describe::Memo::new(),
                };
                match self {
                    #(#arms)*
                }
            }

            fn is_seq(&self) -> bool {
                match self {
                    #(#seq_arms)*
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_follow_serde_rename_all() {
        let span = Span::call_site();
        let camel = |f: &str| wire_name(f, Some("camelCase"), span).unwrap();
        assert_eq!(camel("input_schema"), "inputSchema");
        assert_eq!(camel("ttl_ms"), "ttlMs");
        assert_eq!(camel("uri"), "uri");
        assert_eq!(camel("is_error"), "isError");
        assert_eq!(
            wire_name("list_changed", None, span).unwrap(),
            "list_changed"
        );
        assert_eq!(
            wire_name("list_changed", Some("snake_case"), span).unwrap(),
            "list_changed"
        );
        assert!(wire_name("x", Some("SCREAMING-KEBAB-CASE"), span).is_err());
    }

    #[test]
    fn unknown_serde_attributes_are_refused() {
        let input: DeriveInput = syn::parse_quote! {
            struct S {
                #[serde(skip_serializing)]
                a: String,
            }
        };
        let err = expand(&input).unwrap_err();
        assert!(err.to_string().contains("does not know"), "{err}");
        let input: DeriveInput = syn::parse_quote! {
            #[serde(deny_unknown_fields)]
            struct T {
                a: String,
            }
        };
        assert!(expand(&input).is_err());
    }

    #[test]
    fn a_flattened_struct_is_described_as_flattened() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(rename_all = "camelCase")]
            struct R {
                #[serde(flatten)]
                task: Task,
            }
        };
        let code = expand(&input).unwrap().to_string();
        assert!(code.contains("m . flatten (& self . task)"), "{code}");
        assert!(code.contains("flat : true"), "{code}");
        assert!(
            !code.contains("wire"),
            "the description names no boundary: {code}"
        );
    }
}
