//! Helpers for the tests that run the `mcp-frames` binary.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run printed, and how it ended.
#[derive(Debug)]
pub struct Run {
    /// Exit status code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Non-empty stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().filter(|l| !l.is_empty()).collect()
    }

    /// Stdout lines parsed as JSON.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.lines()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
            .collect()
    }

    /// The last stderr line (the summary).
    pub fn summary(&self) -> &str {
        self.stderr.lines().last().unwrap_or("")
    }
}

/// Runs the binary with `args`, feeding `stdin` bytes.
pub fn run(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-frames"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mcp-frames binary runs");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may stop reading early (usage errors); a broken pipe is fine then.
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

pub use mcp_wire_tests::corpus_files;

/// The shipped example session.
pub fn example_session() -> PathBuf {
    mcp_wire_schemas::workspace_root().join("examples/session-2025-06-18.jsonl")
}

/// A scratch directory for this test process, removed by the caller.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-frames-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `path` as the `&str` the binary takes.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}
