//! `cargo xtask schemas`: put verified copies of the pinned schemas under `schemas/`.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use mcp_wire::ProtocolVersion;
use mcp_wire_schemas::{PinManifest, examples_tree_sha256, verify_bytes};

/// Where the copies come from.
#[derive(clap::Args)]
pub struct Args {
    /// A directory laid out as `<version>/schema.json` (default: `../shared/schemas`).
    #[arg(long, conflicts_with = "download")]
    from: Option<PathBuf>,
    /// Download the pinned commit's files from GitHub with `curl` (needs internet).
    #[arg(long)]
    download: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dest = root.join("schemas");
    let manifest = PinManifest::get();
    if args.download {
        return download(manifest, &dest);
    }
    let from = args.from.unwrap_or_else(|| root.join("../shared/schemas"));
    if !from.is_dir() {
        bail!(
            "schema source {} does not exist; pass --from DIR or --download",
            from.display()
        );
    }
    for v in ProtocolVersion::ALL {
        let src = from.join(v.as_str()).join("schema.json");
        let bytes = std::fs::read(&src)
            .with_context(|| format!("reading {} (missing from the source?)", src.display()))?;
        verify_bytes(&src, &bytes, &manifest.file(v).sha256)?;
        write(&dest.join(v.as_str()).join("schema.json"), &bytes)?;
        println!("schemas/{v}/schema.json  sha256 ok");
    }
    let examples_src = from.join(&manifest.examples.version).join("examples");
    let (digest, files) = examples_tree_sha256(&examples_src)
        .with_context(|| format!("reading examples at {}", examples_src.display()))?;
    if digest != manifest.examples.tree_sha256 {
        bail!(
            "{}: examples tree sha256 {digest} does not match the pinned {}",
            examples_src.display(),
            manifest.examples.tree_sha256
        );
    }
    let examples_dest = dest.join(&manifest.examples.version).join("examples");
    copy_tree(&examples_src, &examples_dest)?;
    println!(
        "schemas/{}/examples  {files} files, tree sha256 ok",
        manifest.examples.version
    );
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn copy_tree(src: &Path, dest: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(src)? {
        let path = entry?.path();
        let target = dest.join(path.file_name().expect("directory entries have names"));
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            write(&target, &std::fs::read(&path)?)?;
        }
    }
    Ok(())
}

fn curl(url: &str) -> anyhow::Result<Vec<u8>> {
    let out = std::process::Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--location", url])
        .output()
        .context("running curl (is it installed?)")?;
    if !out.status.success() {
        bail!(
            "downloading {url}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// Downloads each pinned schema (the examples are listed through the GitHub contents API).
fn download(manifest: &PinManifest, dest: &Path) -> anyhow::Result<()> {
    for v in ProtocolVersion::ALL {
        let file = manifest.file(v);
        let url = manifest.url(&file.path);
        let bytes = curl(&url)?;
        verify_bytes(Path::new(&url), &bytes, &file.sha256)?;
        write(&dest.join(v.as_str()).join("schema.json"), &bytes)?;
        println!("schemas/{v}/schema.json  downloaded, sha256 ok");
    }
    let api = format!(
        "https://api.github.com/repos/{}/contents/{}?ref={}",
        manifest.repository, manifest.examples.path, manifest.commit
    );
    let listing: serde_json::Value = serde_json::from_slice(&curl(&api)?)?;
    let examples_dest = dest.join(&manifest.examples.version).join("examples");
    for dir in listing.as_array().into_iter().flatten() {
        let name = dir["name"].as_str().unwrap_or_default();
        let files: serde_json::Value = serde_json::from_slice(&curl(&format!(
            "https://api.github.com/repos/{}/contents/{}/{name}?ref={}",
            manifest.repository, manifest.examples.path, manifest.commit
        ))?)?;
        for f in files.as_array().into_iter().flatten() {
            let fname = f["name"].as_str().unwrap_or_default();
            let bytes = curl(&manifest.url(&format!("{}/{name}/{fname}", manifest.examples.path)))?;
            write(&examples_dest.join(name).join(fname), &bytes)?;
        }
    }
    let (digest, files) = examples_tree_sha256(&examples_dest)?;
    if digest != manifest.examples.tree_sha256 {
        bail!("downloaded examples: tree sha256 {digest} does not match the pinned one");
    }
    println!(
        "schemas/{}/examples  {files} files downloaded, tree sha256 ok",
        manifest.examples.version
    );
    Ok(())
}
