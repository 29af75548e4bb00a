//! The per-revision type generator: pre-passes → typify 0.8 → syn post-passes.

use anyhow::Context;
use mcp_wire::ProtocolVersion;
use proc_macro2::TokenStream;
use serde_json::json;
use typify::{TypeSpace, TypeSpaceSettings};

use super::passes;
use super::postpass;
use super::schema::Defs;

/// The Rust module for one revision, as tokens (without the header line).
pub fn module_tokens(version: ProtocolVersion, defs: &Defs) -> anyhow::Result<TokenStream> {
    let mut defs = defs.clone();
    passes::run_all(version, &mut defs)?;
    let spec_names: Vec<String> = defs.keys().cloned().collect();
    let root = json!({ "definitions": defs });
    let root: schemars08::schema::RootSchema = serde_json::from_value(root)
        .context("pre-processed schema is not a schemars RootSchema")?;

    let mut settings = TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_owned())
        .with_map_type("::std::collections::BTreeMap");
    let mut space = TypeSpace::new(&settings);
    space
        .add_root_schema(root)
        .map_err(|e| anyhow::anyhow!("typify rejected {version}: {e}"))?;
    let raw = space.to_stream();
    if let Ok(dir) = std::env::var("MCP_CODEGEN_DUMP_RAW") {
        let file: syn::File = syn::parse2(raw.clone())?;
        std::fs::write(
            format!("{dir}/raw_{}.rs", version.module_name()),
            prettyplease::unparse(&file),
        )?;
    }
    postpass::run_all(version, raw, &spec_names)
}
