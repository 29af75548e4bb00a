//! Post-passes over typify's output (a `syn::File`). Like the pre-passes, each one counts what
//! it changed and the driver fails when a pass declared for a revision changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, bail};
use mcp_wire::ProtocolVersion;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{Attribute, Fields, Ident, Item, Type};

use ProtocolVersion as V;

/// Names typify invents for members of inline unions, replaced by descriptive ones. Read a row as
/// "in revisions R, identifier `from` becomes `to`". Spec definitions keep their spec names (see
/// [`spec_names`]); these rows cover only helper types and variants typify made up.
pub const RENAMES: &[(&[ProtocolVersion], &str, &str)] = &[
    // `ElicitResult.content` values: `string[] | string | number | boolean`.
    (
        &[V::V2025_11_25, V::V2026_07_28],
        "ElicitResultContentValueVariant1",
        "ElicitResultContentScalar",
    ),
    (&[V::V2025_11_25, V::V2026_07_28], "Variant0", "StringArray"),
    (&[V::V2025_11_25, V::V2026_07_28], "Variant1", "Scalar"),
];

/// Runs every post-pass and returns the final tokens.
pub fn run_all(
    version: ProtocolVersion,
    raw: TokenStream,
    spec_defs: &[String],
) -> anyhow::Result<TokenStream> {
    let mut file: syn::File = syn::parse2(raw).context("typify output does not parse")?;
    let n = drop_string_conversion_impls(&mut file);
    expect(version, "drop_string_conversion_impls", n)?;
    let n = optional_collections_to_option(&mut file);
    if version != V::V2026_07_28 {
        // 2026-07-28 has no optional plain array/map property left once `_meta` is a $ref; the
        // pass still runs there.
        expect(version, "optional_collections_to_option", n)?;
    }
    let n = number_to_serde_json_number(&mut file);
    expect(version, "number_to_serde_json_number", n)?;
    rename_artefacts(version, &mut file)?;
    let n = variants_named_after_members(&mut file);
    if matches!(version, V::V2025_11_25 | V::V2026_07_28) {
        expect(version, "variants_named_after_members", n)?;
    }
    let renamed = spec_names(&mut file, spec_defs)?;
    expect(version, "spec_names", renamed)?;
    reject_artefacts(&file)?;
    let spec: BTreeSet<&str> = spec_defs.iter().map(String::as_str).collect();
    document(version, &mut file, &spec);
    let n = untagged_unions_name_the_closest_member(&mut file);
    expect(version, "untagged_unions_name_the_closest_member", n)?;
    let n = discriminators_to_zero_sized(&mut file)?;
    expect(version, "discriminators_to_zero_sized", n)?;
    Ok(quote!(#file))
}

fn expect(version: ProtocolVersion, pass: &str, changed: usize) -> anyhow::Result<()> {
    if changed == 0 {
        bail!("{version}: post-pass {pass} changed nothing; remove it or fix its trigger");
    }
    Ok(())
}

/// typify gives every string enum `Display`, `FromStr` and three `TryFrom` string impls (about
/// 250 impls in 2026-07-28). Serde already reads and writes the wire form; we drop them to keep
/// the crate's compile time down.
fn drop_string_conversion_impls(file: &mut syn::File) -> usize {
    let enums: BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    let before = file.items.len();
    file.items.retain(|item| {
        let Item::Impl(imp) = item else { return true };
        let Some((_, trait_path, _)) = &imp.trait_ else {
            return true;
        };
        let Type::Path(self_ty) = &*imp.self_ty else {
            return true;
        };
        let self_name = self_ty.path.segments.last().map(|s| s.ident.to_string());
        if !self_name.is_some_and(|n| enums.contains(&n)) {
            return true;
        }
        let t = quote!(#trait_path).to_string().replace(' ', "");
        let drop = t.ends_with("fmt::Display")
            || t.ends_with("str::FromStr")
            || t.ends_with("TryFrom<&str>")
            || t.ends_with("TryFrom<&::std::string::String>")
            || t.ends_with("TryFrom<::std::string::String>");
        !drop
    });
    before - file.items.len()
}

/// typify writes an optional array or map as `#[serde(default, skip_serializing_if =
/// "…is_empty")] Vec<T>`, so an explicitly sent `[]`/`{}` vanishes on re-serialization (a client
/// declaring `"roots": {}` would lose the capability). These become `Option<T>`.
fn optional_collections_to_option(file: &mut syn::File) -> usize {
    struct Pass(usize);
    impl VisitMut for Pass {
        fn visit_field_mut(&mut self, field: &mut syn::Field) {
            let mut is_optional_collection = false;
            for attr in &mut field.attrs {
                if !attr.path().is_ident("serde") {
                    continue;
                }
                let text = attr.meta.to_token_stream_string();
                if text.contains("is_empty") && text.contains("default") {
                    is_optional_collection = true;
                    let rename = serde_rename(attr);
                    *attr = match rename {
                        Some(r) => {
                            syn::parse_quote!(#[serde(rename = #r, default, skip_serializing_if = "::std::option::Option::is_none")])
                        }
                        None => {
                            syn::parse_quote!(#[serde(default, skip_serializing_if = "::std::option::Option::is_none")])
                        }
                    };
                }
            }
            if is_optional_collection {
                let ty = &field.ty;
                field.ty = syn::parse_quote!(::std::option::Option<#ty>);
                self.0 += 1;
            }
        }
    }
    let mut p = Pass(0);
    p.visit_file_mut(file);
    p.0
}

/// JSON Schema `number` comes out as `f64`, so `50` would re-serialize as `50.0`. typify's
/// `with_conversion` only matches a schema exactly (description and bounds included), so the
/// swap is done here: every `f64` becomes `serde_json::Number`, which keeps the wire text.
fn number_to_serde_json_number(file: &mut syn::File) -> usize {
    struct Pass(usize);
    impl VisitMut for Pass {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::Path(p) = ty
                && p.qself.is_none()
                && p.path.is_ident("f64")
            {
                *ty = syn::parse_quote!(::serde_json::Number);
                self.0 += 1;
                return;
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut p = Pass(0);
    p.visit_file_mut(file);
    p.0
}

trait MetaString {
    fn to_token_stream_string(&self) -> String;
}
impl MetaString for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        quote!(#self).to_string()
    }
}

/// The `rename = "…"` value of a `#[serde(…)]` attribute.
fn serde_rename(attr: &Attribute) -> Option<String> {
    let mut out = None;
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("rename") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            out = Some(lit.value());
        } else if meta.input.peek(syn::Token![=]) {
            let _: syn::Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    out
}

/// typify shortens the variants of an untagged union by their common prefix
/// (`ElicitRequestParams::FormParams` for member `ElicitRequestFormParams`). A variant that wraps
/// one named type is renamed after that type, so every union's variants carry the member's spec
/// name; `Self::Old` paths in the enum's own impls follow.
fn variants_named_after_members(file: &mut syn::File) -> usize {
    let declared: BTreeSet<String> = declared_types(file).into_iter().collect();
    let mut per_enum: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for item in &mut file.items {
        let Item::Enum(e) = item else { continue };
        let mut map = BTreeMap::new();
        for v in e.variants.iter_mut() {
            let Fields::Unnamed(f) = &v.fields else {
                continue;
            };
            let [field] = f.unnamed.iter().collect::<Vec<_>>()[..] else {
                continue;
            };
            let Type::Path(p) = &field.ty else { continue };
            let Some(last) = p.path.segments.last() else {
                continue;
            };
            let target = last.ident.to_string();
            if !declared.contains(&target) || v.ident == target {
                continue;
            }
            map.insert(v.ident.to_string(), target.clone());
            v.ident = Ident::new(&target, v.ident.span());
        }
        if !map.is_empty() {
            per_enum.insert(e.ident.to_string(), map);
        }
    }
    let mut n = 0;
    for item in &mut file.items {
        let Item::Impl(imp) = item else { continue };
        let Type::Path(p) = &*imp.self_ty else {
            continue;
        };
        let Some(name) = p.path.segments.last().map(|s| s.ident.to_string()) else {
            continue;
        };
        if let Some(map) = per_enum.get(&name) {
            struct SelfPaths<'a>(&'a BTreeMap<String, String>);
            impl VisitMut for SelfPaths<'_> {
                fn visit_path_mut(&mut self, path: &mut syn::Path) {
                    let segs: Vec<_> = path.segments.iter().map(|s| s.ident.to_string()).collect();
                    if let [first, second] = segs.as_slice()
                        && first == "Self"
                        && let Some(to) = self.0.get(second)
                    {
                        path.segments[1].ident = Ident::new(to, Span::call_site());
                    }
                    syn::visit_mut::visit_path_mut(self, path);
                }
            }
            SelfPaths(map).visit_item_impl_mut(imp);
        }
    }
    for map in per_enum.values() {
        n += map.len();
    }
    n
}

/// Renames every identifier according to `map`; returns how many occurrences changed.
fn rename_idents(file: &mut syn::File, map: &BTreeMap<String, String>) -> usize {
    struct Pass<'a>(&'a BTreeMap<String, String>, usize);
    impl VisitMut for Pass<'_> {
        fn visit_ident_mut(&mut self, ident: &mut Ident) {
            if let Some(to) = self.0.get(&ident.to_string()) {
                *ident = Ident::new(to, ident.span());
                self.1 += 1;
            }
        }
    }
    let mut p = Pass(map, 0);
    p.visit_file_mut(file);
    p.1
}

/// Applies the [`RENAMES`] rows of `version`; a row that matches nothing fails.
fn rename_artefacts(version: ProtocolVersion, file: &mut syn::File) -> anyhow::Result<()> {
    for (revisions, from, to) in RENAMES {
        if !revisions.contains(&version) {
            continue;
        }
        let owners = count_owning_items(file, from);
        if owners > 1 {
            bail!("{version}: RENAMES row {from} → {to} is ambiguous ({owners} items use {from})");
        }
        let map = BTreeMap::from([((*from).to_owned(), (*to).to_owned())]);
        if rename_idents(file, &map) == 0 {
            bail!("{version}: stale RENAMES row {from} → {to}: typify no longer emits {from}");
        }
    }
    Ok(())
}

/// How many top-level type items declare `name` as their own name or as one of their variants.
fn count_owning_items(file: &syn::File, name: &str) -> usize {
    file.items
        .iter()
        .filter(|item| match item {
            Item::Struct(s) => s.ident == name,
            Item::Enum(e) => e.ident == name || e.variants.iter().any(|v| v.ident == name),
            _ => false,
        })
        .count()
}

/// typify turns `JSONRPCRequest` into `JsonrpcRequest` and `URLElicitationRequiredError` into
/// `UrlElicitationRequiredError`. We keep the spec's names 1:1: each definition's type gets its
/// spec name back, and helper types whose name starts with a renamed definition get the same
/// prefix (`JsonrpcRequestParams` → `JSONRPCRequestParams`). Every spec definition must end up
/// with exactly one type.
fn spec_names(file: &mut syn::File, spec_defs: &[String]) -> anyhow::Result<usize> {
    let declared: Vec<String> = declared_types(file);
    let squash = |s: &str| {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_lowercase()
    };
    let mut map = BTreeMap::new();
    for def in spec_defs {
        let matches: Vec<&String> = declared
            .iter()
            .filter(|d| squash(d) == squash(def))
            .collect();
        match matches.as_slice() {
            [one] if *one == def => {}
            [one] => {
                map.insert((*one).clone(), def.clone());
            }
            [] => bail!("no generated type for definition {def}"),
            many => bail!("definition {def} matches several generated types: {many:?}"),
        }
    }
    // Helper types named after a renamed definition follow it (longest prefix wins).
    for d in &declared {
        if map.contains_key(d) {
            continue;
        }
        let best = map
            .iter()
            .filter(|(from, _)| d.starts_with(from.as_str()) && d.len() > from.len())
            .max_by_key(|(from, _)| from.len());
        if let Some((from, to)) = best {
            map.insert(d.clone(), format!("{to}{}", &d[from.len()..]));
        }
    }
    Ok(rename_idents(file, &map))
}

fn declared_types(file: &syn::File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Struct(s) => Some(s.ident.to_string()),
            Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// Fails if any identifier still looks like a generator artefact (`Variant3`, `subtype_0`).
fn reject_artefacts(file: &syn::File) -> anyhow::Result<()> {
    struct Find(Vec<String>);
    impl VisitMut for Find {
        fn visit_ident_mut(&mut self, i: &mut Ident) {
            let s = i.to_string();
            let artefact = ["Variant", "Subtype", "subtype_"].iter().any(|p| {
                s.strip_prefix(p)
                    .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_digit()))
            }) || s.contains("Variant0")
                || s.contains("Subtype0");
            if artefact {
                self.0.push(s);
            }
        }
    }
    let mut f = Find(Vec::new());
    f.visit_file_mut(&mut file.clone());
    f.0.sort();
    f.0.dedup();
    if !f.0.is_empty() {
        bail!(
            "generator artefacts left in the output: {:?}; add a pre-pass or a RENAMES row",
            f.0
        );
    }
    Ok(())
}

/// Replaces typify's doc comments (schema prose and JSON dumps) with ours: wire name, revision
/// and spec link on each type; the wire name on each field and variant.
fn document(version: ProtocolVersion, file: &mut syn::File, spec: &BTreeSet<&str>) {
    let url = format!("{}/schema", version.spec_url());
    let type_doc = |name: &str| -> String {
        if spec.contains(name) {
            format!(" `{name}` (MCP {version}): <{url}#{}>", name.to_lowercase())
        } else {
            let parent = spec
                .iter()
                .filter(|s| name.starts_with(**s))
                .max_by_key(|s| s.len());
            match parent {
                Some(p) => format!(
                    " Part of `{p}` (MCP {version}): <{url}#{}>",
                    p.to_lowercase()
                ),
                None => format!(" Helper type of the MCP {version} schema."),
            }
        }
    };
    for item in &mut file.items {
        match item {
            Item::Struct(s) => {
                let doc = type_doc(&s.ident.to_string());
                set_doc(&mut s.attrs, &doc);
                let named = matches!(s.fields, Fields::Named(_));
                for f in s.fields.iter_mut() {
                    let wire = serde_wire_name(&f.attrs)
                        .or_else(|| f.ident.as_ref().map(Ident::to_string));
                    match wire {
                        Some(w) if named => {
                            let flatten = has_serde_flag(&f.attrs, "flatten");
                            let doc = if flatten {
                                " Keys not declared by the schema, kept as they came.".to_owned()
                            } else {
                                format!(" `{w}`")
                            };
                            set_doc(&mut f.attrs, &doc);
                        }
                        _ => strip_docs(&mut f.attrs),
                    }
                }
            }
            Item::Enum(e) => {
                let doc = type_doc(&e.ident.to_string());
                set_doc(&mut e.attrs, &doc);
                for v in e.variants.iter_mut() {
                    let wire = serde_wire_name(&v.attrs)
                        .map_or_else(|| format!(" `{}`", v.ident), |w| format!(" `\"{w}\"`"));
                    set_doc(&mut v.attrs, &wire);
                }
            }
            Item::Mod(m) => {
                set_doc(
                    &mut m.attrs,
                    " Errors of the validated newtypes' `TryFrom` impls.",
                );
                if let Some((_, items)) = &mut m.content {
                    for i in items {
                        if let Item::Struct(s) = i {
                            set_doc(&mut s.attrs, " A value outside the schema's allowed set.");
                        }
                    }
                }
            }
            Item::Impl(i) => strip_docs(&mut i.attrs),
            _ => {}
        }
    }
}

fn strip_docs(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !a.path().is_ident("doc"));
}

fn set_doc(attrs: &mut Vec<Attribute>, doc: &str) {
    strip_docs(attrs);
    let lit = syn::LitStr::new(doc, Span::call_site());
    attrs.insert(0, syn::parse_quote!(#[doc = #lit]));
}

fn serde_wire_name(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .find_map(serde_rename)
}

fn has_serde_flag(attrs: &[Attribute], flag: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                if meta.path.is_ident(flag) {
                    found = true;
                } else if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            });
            found
        })
}

/// A one-value `enum` (from `const_to_enum`) or typify's validated `i64` newtype for an integer
/// `const` (error codes) becomes a zero-sized type declared by `mcp_wire`'
/// `wire_const_str!`/`wire_const_int!`: it reads only its value, always writes it, and costs far
/// less to compile than a derived enum with ten derives. All impls typify wrote for the type go.
fn discriminators_to_zero_sized(file: &mut syn::File) -> anyhow::Result<usize> {
    let mut consts: BTreeMap<String, TokenStream> = BTreeMap::new();
    // One-variant unit enums with a serde rename: string discriminators.
    for item in &file.items {
        if let Item::Enum(e) = item
            && let [v] = e.variants.iter().collect::<Vec<_>>()[..]
            && matches!(v.fields, Fields::Unit)
        {
            let lit = serde_wire_name(&v.attrs).unwrap_or_else(|| v.ident.to_string());
            let docs = e.attrs.iter().filter(|a| a.path().is_ident("doc"));
            let name = &e.ident;
            consts.insert(
                name.to_string(),
                quote!(crate::wire_const::wire_const_str! { #(#docs)* #name = #lit }),
            );
        }
    }
    // `struct X(i64)` with `TryFrom<i64>` checking one value: integer discriminators.
    for item in &file.items {
        let Item::Impl(imp) = item else { continue };
        let Some((_, trait_path, _)) = &imp.trait_ else {
            continue;
        };
        if !quote!(#trait_path)
            .to_string()
            .replace(' ', "")
            .ends_with("TryFrom<i64>")
        {
            continue;
        }
        let Type::Path(p) = &*imp.self_ty else {
            continue;
        };
        let name = p.path.segments.last().expect("path").ident.clone();
        let lits: Vec<i64> = int_literals(&quote!(#imp));
        let [value] = lits[..] else {
            bail!("TryFrom<i64> for {name} does not check exactly one value: {lits:?}");
        };
        let docs: Vec<Attribute> = file
            .items
            .iter()
            .find_map(|i| match i {
                Item::Struct(s) if s.ident == name => Some(s.attrs.clone()),
                _ => None,
            })
            .unwrap_or_default()
            .into_iter()
            .filter(|a| a.path().is_ident("doc"))
            .collect();
        let lit = proc_macro2::Literal::i64_unsuffixed(value);
        consts.insert(
            name.to_string(),
            quote!(crate::wire_const::wire_const_int! { #(#docs)* #name = #lit }),
        );
    }
    let mut out = Vec::with_capacity(file.items.len());
    for item in std::mem::take(&mut file.items) {
        let owner = match &item {
            Item::Enum(e) => Some(e.ident.to_string()),
            Item::Struct(s) => Some(s.ident.to_string()),
            Item::Impl(i) => {
                // `impl From<X> for i64` belongs to X as much as `impl … for X` does.
                let from_arg = i.trait_.as_ref().and_then(|(_, path, _)| {
                    let text = quote!(#path).to_string().replace(' ', "");
                    let inner = text.strip_suffix('>')?.rsplit('<').next()?.to_owned();
                    consts.contains_key(&inner).then_some(inner)
                });
                from_arg.or_else(|| match &*i.self_ty {
                    Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                })
            }
            _ => None,
        };
        match owner.as_deref().and_then(|o| consts.get(o).map(|t| (o, t))) {
            Some((_, tokens)) if !matches!(item, Item::Impl(_)) => {
                out.push(syn::parse2(tokens.clone()).context("wire_const invocation")?);
            }
            Some(_) => {} // an impl of a replaced type
            None => out.push(item),
        }
    }
    file.items = out;
    // Nothing may still name a variant of a replaced enum.
    let text = quote!(#file).to_string();
    for name in consts.keys() {
        if text.contains(&format!("{name} ::")) {
            bail!("generated code still refers to a variant of {name}");
        }
    }
    Ok(consts.len())
}

/// The `i64`-suffixed integer literals (with a preceding `-`) in a token stream.
fn int_literals(tokens: &TokenStream) -> Vec<i64> {
    let mut out = Vec::new();
    let mut negative = false;
    for tt in tokens.clone() {
        match tt {
            proc_macro2::TokenTree::Group(g) => out.extend(int_literals(&g.stream())),
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '-' => {
                negative = true;
                continue;
            }
            proc_macro2::TokenTree::Literal(l) => {
                let s = l.to_string();
                if let Some(digits) = s.strip_suffix("_i64")
                    && let Ok(v) = digits.parse::<i64>()
                {
                    out.push(if negative { -v } else { v });
                }
            }
            _ => {}
        }
        negative = false;
    }
    out
}

/// The wire name of a struct field: its serde rename, else its identifier.
fn field_wire_name(f: &syn::Field) -> Option<String> {
    serde_wire_name(&f.attrs).or_else(|| {
        f.ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_owned())
    })
}

/// An untagged union's derived `Deserialize` says only "data did not match any variant of
/// untagged enum X". Each one (every variant a newtype) gets a `Deserialize` through
/// `crate::de::untagged` instead: the first member that parses, else the error of the
/// closest member, named, at its JSON path. A member's discriminators (required fields whose
/// type is a one-value enum, i.e. a `const`) and its wire keys are passed along to rank
/// closeness. Runs before [`discriminators_to_zero_sized`], while the constants are enums.
fn untagged_unions_name_the_closest_member(file: &mut syn::File) -> usize {
    // One-value unit enums: const type → its string.
    let mut consts: BTreeMap<String, String> = BTreeMap::new();
    for item in &file.items {
        if let Item::Enum(e) = item
            && let [v] = e.variants.iter().collect::<Vec<_>>()[..]
            && matches!(v.fields, Fields::Unit)
        {
            let lit = serde_wire_name(&v.attrs).unwrap_or_else(|| v.ident.to_string());
            consts.insert(e.ident.to_string(), lit);
        }
    }
    // Structs: name → (their required string constants, their wire keys).
    type Shape = (Vec<(String, String)>, Vec<String>);
    let mut structs: BTreeMap<String, Shape> = BTreeMap::new();
    for item in &file.items {
        let Item::Struct(st) = item else { continue };
        let Fields::Named(fields) = &st.fields else {
            continue;
        };
        let (mut tags, mut keys) = (Vec::new(), Vec::new());
        for f in &fields.named {
            let Some(wire) = field_wire_name(f) else {
                continue;
            };
            if let Type::Path(p) = &f.ty
                && let Some(last) = p.path.segments.last()
                && let Some(c) = consts.get(&last.ident.to_string())
            {
                tags.push((wire.clone(), c.clone()));
            }
            keys.push(wire);
        }
        structs.insert(st.ident.to_string(), (tags, keys));
    }
    let mut impls: Vec<Item> = Vec::new();
    for item in &mut file.items {
        let Item::Enum(e) = item else { continue };
        if !has_serde_flag(&e.attrs, "untagged") {
            continue;
        }
        let mut members = Vec::new();
        for v in &e.variants {
            let Fields::Unnamed(f) = &v.fields else {
                break;
            };
            let [field] = f.unnamed.iter().collect::<Vec<_>>()[..] else {
                break;
            };
            let ty_name = match &field.ty {
                Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let shape = ty_name.as_ref().and_then(|n| structs.get(n));
            let name = match (&ty_name, shape) {
                (Some(n), Some(_)) => n.clone(),
                _ => v.ident.to_string(),
            };
            let (tags, keys) = shape.cloned().unwrap_or_default();
            let (tag_keys, tag_values): (Vec<_>, Vec<_>) = tags.into_iter().unzip();
            let variant = &v.ident;
            members.push(quote! {
                crate::de::Member {
                    name: #name,
                    tags: &[#((#tag_keys, #tag_values)),*],
                    keys: &[#(#keys),*],
                    parse: |v| crate::de::member(v).map(Self::#variant),
                }
            });
        }
        if members.len() != e.variants.len() {
            continue;
        }
        // Drop `Deserialize` from the derives.
        let mut dropped = false;
        for attr in e.attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
            let Ok(paths) = attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            ) else {
                continue;
            };
            let kept: Vec<&syn::Path> = paths
                .iter()
                .filter(|p| p.segments.last().is_none_or(|s| s.ident != "Deserialize"))
                .collect();
            if kept.len() != paths.len() {
                dropped = true;
                *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
            }
        }
        if !dropped {
            continue;
        }
        let name = &e.ident;
        let union = name.to_string();
        impls.push(syn::parse_quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(
                    d: D,
                ) -> ::std::result::Result<Self, D::Error> {
                    crate::de::untagged(d, #union, &[#(#members),*])
                }
            }
        });
    }
    let n = impls.len();
    file.items.extend(impls);
    n
}
