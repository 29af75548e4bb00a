//! Seed inputs, derived at run time from the shared corpus (`../shared/corpus/*.jsonl`, real
//! sessions captured from SDK peers) and the 2026-07-28 examples (one directory per spec type).
//! Nothing from them is committed: `cargo xtask fuzz` names the sources and an empty seed
//! directory in the environment, and each target writes its seeds there at start-up, before
//! libFuzzer reads its corpus directories.

use std::path::{Path, PathBuf};

use mcp_wire::ProtocolVersion;
use serde_json::Value;

/// Environment: the directory the target writes its seeds to (set by `cargo xtask fuzz`).
pub const SEEDS_ENV: &str = "MCP_WIRE_FUZZ_SEEDS";
/// Environment: the corpus directory (the variable the cross-crate tests read too).
pub const CORPUS_ENV: &str = "MCP_WIRE_CORPUS";
/// Environment: the 2026-07-28 examples directory.
pub const EXAMPLES_ENV: &str = "MCP_WIRE_EXAMPLES";

/// One captured session.
#[derive(Debug, Clone)]
pub struct Session {
    /// The revision its file name ends in.
    pub version: ProtocolVersion,
    /// Its lines, as captured.
    pub lines: Vec<String>,
    /// Its frames, parsed: `(dir, frame)` (`dir` is `"c2s"`, `"s2c"`, or empty for a bare frame).
    pub frames: Vec<(String, Value)>,
}

/// One example: the spec type it illustrates and its JSON.
#[derive(Debug, Clone)]
pub struct Example {
    /// The directory name, a spec type name such as `CallToolResult`.
    pub type_name: String,
    /// The example's JSON.
    pub value: Value,
}

/// Everything seeds are made from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The captured sessions, sorted by file name.
    pub sessions: Vec<Session>,
    /// The examples, sorted by type and file name.
    pub examples: Vec<Example>,
}

impl Sources {
    /// Reads the sessions of `corpus` and the examples of `examples`.
    pub fn load(corpus: &Path, examples: &Path) -> Result<Sources, String> {
        let mut sources = Sources::default();
        for path in sorted_files(corpus, "jsonl")? {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let Some(version) = ProtocolVersion::ALL
                .into_iter()
                .find(|v| stem.ends_with(v.as_str()))
            else {
                return Err(format!("{}: names no revision", path.display()));
            };
            let text = read(&path)?;
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let frames = lines
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .map(|record| match record.get("frame") {
                    Some(frame) => (
                        record["dir"].as_str().unwrap_or_default().to_owned(),
                        frame.clone(),
                    ),
                    None => (String::new(), record),
                })
                .collect();
            sources.sessions.push(Session {
                version,
                lines,
                frames,
            });
        }
        for dir in sorted_dirs(examples)? {
            let type_name = dir.file_name().unwrap_or_default().to_string_lossy();
            for path in sorted_files(&dir, "json")? {
                let value = serde_json::from_str(&read(&path)?)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                sources.examples.push(Example {
                    type_name: type_name.clone().into_owned(),
                    value,
                });
            }
        }
        if sources.sessions.is_empty() || sources.examples.is_empty() {
            return Err(format!(
                "no sessions in {} or no examples in {}",
                corpus.display(),
                examples.display()
            ));
        }
        Ok(sources)
    }

    /// Every body of the sessions: requests' and notifications' `{method, params}`, responses'
    /// `result` with the method of the request it answers (matched by id, per direction).
    pub fn bodies(&self) -> Vec<Body<'_>> {
        let mut out = Vec::new();
        for s in &self.sessions {
            let mut pending: Vec<(&str, &Value, &str)> = Vec::new();
            for (dir, frame) in &s.frames {
                let method = frame.get("method").and_then(Value::as_str);
                match (method, frame.get("id"), frame.get("result")) {
                    (Some(m), id, _) => {
                        if let Some(id) = id {
                            pending.push((dir, id, m));
                        }
                        out.push(Body {
                            version: s.version,
                            dir,
                            method: m,
                            kind: if id.is_some() {
                                BodyKind::Request
                            } else {
                                BodyKind::Notification
                            },
                            value: frame,
                        });
                    }
                    (None, Some(id), Some(result)) => {
                        if let Some(i) = pending.iter().position(|(d, p, _)| *p == id && d != dir) {
                            let (_, _, m) = pending.remove(i);
                            out.push(Body {
                                version: s.version,
                                dir,
                                method: m,
                                kind: BodyKind::Result,
                                value: result,
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// What a session body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// A request (`value` is the whole frame).
    Request,
    /// A notification (`value` is the whole frame).
    Notification,
    /// A result (`value` is the `result` member).
    Result,
}

/// One body of a captured session.
#[derive(Debug, Clone, Copy)]
pub struct Body<'a> {
    /// The session's revision.
    pub version: ProtocolVersion,
    /// Its sender (`"c2s"`, `"s2c"` or empty).
    pub dir: &'a str,
    /// The method of the request or notification (for results: of the request answered).
    pub method: &'a str,
    /// Request, notification or result.
    pub kind: BodyKind,
    /// The JSON.
    pub value: &'a Value,
}

/// When [`SEEDS_ENV`] names a directory, loads the sources from [`CORPUS_ENV`] and
/// [`EXAMPLES_ENV`] and writes `seeds(&sources)` there, one file per seed. Called by every
/// target at start-up; panics (ending the run before any fuzzing) when the sources are missing,
/// so a run never silently starts from an empty corpus.
pub fn write_if_asked(seeds: fn(&Sources) -> Vec<Vec<u8>>) {
    let Some(out) = std::env::var_os(SEEDS_ENV).map(PathBuf::from) else {
        return;
    };
    let dir = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("{SEEDS_ENV} is set but {var} is not"))
    };
    let sources = Sources::load(&dir(CORPUS_ENV), &dir(EXAMPLES_ENV))
        .unwrap_or_else(|e| panic!("cannot read the seed sources: {e}"));
    std::fs::create_dir_all(&out).expect("seed directory");
    let seeds = seeds(&sources);
    assert!(!seeds.is_empty(), "the target made no seeds");
    for (i, seed) in seeds.iter().enumerate() {
        std::fs::write(out.join(format!("seed-{i:05}")), seed).expect("writing a seed");
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    Ok(paths)
}

fn sorted_files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect())
}

fn sorted_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    Ok(entries(dir)?.into_iter().filter(|p| p.is_dir()).collect())
}
