//! Shared helpers for the cross-crate tests: locating the shared corpus and examples.

use std::path::PathBuf;

use mcp_types::ProtocolVersion;

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
        .unwrap_or_else(|| mcp_schemas::workspace_root().join("../shared/corpus"));
    assert!(
        dir.is_dir(),
        "the real-peer corpus is missing: expected {} (or set MCP_WIRE_CORPUS)",
        dir.display()
    );
    dir
}

/// Every corpus file, sorted by name, parsed.
pub fn corpus() -> Vec<CorpusFile> {
    let dir = corpus_dir();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no .jsonl files in {}", dir.display());
    names
        .into_iter()
        .map(|name| {
            let stem = name.trim_end_matches(".jsonl");
            let version = ProtocolVersion::ALL
                .into_iter()
                .find(|v| stem.ends_with(v.as_str()))
                .unwrap_or_else(|| panic!("{name}: file name names no known revision"));
            let text = std::fs::read_to_string(dir.join(&name)).expect("corpus file readable");
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
        for v in mcp_types::ProtocolVersion::ALL {
            assert!(
                files.iter().any(|f| f.version == v),
                "no corpus file for {v}"
            );
        }
        assert!(files.iter().all(|f| !f.frames.is_empty()));
    }
}
