//! Shared helpers for the cross-crate tests: locating the shared corpus and examples,
//! installing the pinned real MCP peers ([`peers`]) and the plans their clients run
//! ([`plans`]), the mock OAuth authorization server ([`oauth`]), the system services some live
//! tests start (Redis, HAProxy: [`services`]).

use std::path::PathBuf;

pub mod oauth;
pub mod peers;
pub mod plans;
pub mod services;

use mcp_wire::ProtocolVersion;

/// One frame of a captured session: its direction and the JSON-RPC frame.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct CapturedFrame {
    /// `"c2s"` (client to server) or `"s2c"` (server to client).
    pub dir: String,
    /// The JSON-RPC frame as captured.
    pub frame: serde_json::Value,
}

/// One captured session file of `../shared/corpus`.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// File name, e.g. `pysdk-2025-06-18.jsonl`.
    pub name: String,
    /// The revision the session negotiated (from the file name).
    pub version: ProtocolVersion,
    /// The frames in order, with their 1-based line numbers.
    pub frames: Vec<(usize, CapturedFrame)>,
}

/// The corpus directory: `$MCP_WIRE_CORPUS` or `../shared/corpus` next to the workspace.
///
/// Panics with a clear message when it does not exist: corpus tests never skip silently.
pub fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("MCP_WIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| mcp_wire_schemas::workspace_root().join("../shared/corpus"));
    assert!(
        dir.is_dir(),
        "the real-peer corpus is missing: expected {} (or set MCP_WIRE_CORPUS)",
        dir.display()
    );
    dir
}

/// Every corpus file, sorted by name, with the revision its name ends in (e.g.
/// `pysdk-2025-06-18.jsonl`).
///
/// Panics when the directory is missing, holds no session, or a name names no revision.
pub fn corpus_files() -> Vec<(PathBuf, ProtocolVersion)> {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory readable")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .jsonl files in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let version = ProtocolVersion::ALL
                .into_iter()
                .find(|v| stem.ends_with(v.as_str()))
                .unwrap_or_else(|| panic!("{}: file name names no known revision", path.display()));
            (path, version)
        })
        .collect()
}

/// Every corpus file, sorted by name, parsed.
pub fn corpus() -> Vec<CorpusFile> {
    corpus_files()
        .into_iter()
        .map(|(path, version)| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&path).expect("corpus file readable");
            let frames = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| {
                    let f: CapturedFrame =
                        serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
                    (i + 1, f)
                })
                .collect();
            CorpusFile {
                name,
                version,
                frames,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn corpus_covers_every_revision() {
        let files = super::corpus();
        for v in mcp_wire::ProtocolVersion::ALL {
            assert!(
                files.iter().any(|f| f.version == v),
                "no corpus file for {v}"
            );
        }
        assert!(files.iter().all(|f| !f.frames.is_empty()));
    }
}

/// The README's Rust blocks, compiled and run as doctests of this crate
/// (`cargo test -p mcp-wire-tests --doc`), so the tour cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

// Every page of `docs/` the same way: its Rust blocks compile and run.

/// `docs/adding-a-revision.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/adding-a-revision.md")]
pub struct AddingARevisionDoctests;

/// `docs/benchmarks.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/benchmarks.md")]
pub struct BenchmarksDoctests;

/// `docs/boundary.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/boundary.md")]
pub struct BoundaryDoctests;

/// `docs/bridge.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/bridge.md")]
pub struct BridgeDoctests;

/// `docs/cli.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/cli.md")]
pub struct CliDoctests;

/// `docs/server.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/server.md")]
pub struct ServerDoctests;

/// `docs/testing.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/testing.md")]
pub struct TestingDoctests;

/// `docs/variants.md` as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/variants.md")]
pub struct VariantsDoctests;
