//! `--report FILE`: one JSON line per frame the bridge changed, refused or synthesized, written
//! live, in `mcp-frames explain`'s shape (`status`, `reason`, `stripped`, `injected`, `passed`,
//! `rewritten`) with the bridge's context in front (`seq`, `dir`, `method`, `from`, `to`):
//!
//! ```json
//! {"seq":3,"dir":"s2c","method":"tools/list","from":"2026-07-28","to":"2025-06-18","status":"written","stripped":["/result/resultType"],"injected":[]}
//! {"seq":4,"dir":"c2s","method":"tasks/list","from":"2025-11-25","to":"2025-06-18","status":"refused","reason":"…","stripped":[],"injected":[]}
//! {"seq":5,"dir":"s2c","method":"initialize","to":"2025-11-25","status":"synthesized","reason":"answered from the upstream's server/discover","stripped":[],"injected":[]}
//! ```
//!
//! `dir` is the direction of the frame (`c2s`: toward the server, `s2c`: toward the client);
//! `from` is the revision it was read at (absent for a frame the bridge made), `to` the revision
//! it was written at. Pointers are into the emitted frame, as `explain`'s are. A frame that
//! passes unchanged is not recorded.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_wire::ProtocolVersion;
use mcp_wire::wire::EmissionReport;
use serde::Serialize;

/// What happened to a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Written to the other side, changed as the pointers say.
    Written,
    /// Not written: no form at the other side's revision; the sender got an error.
    Refused,
    /// Made by the bridge itself (an answer given locally, a request it originated).
    Synthesized,
}

/// One report line.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The record's sequence number (1-based, in writing order).
    pub seq: u64,
    /// `c2s` or `s2c`.
    pub dir: &'static str,
    /// The frame's method (for a response: the method of the request it answers).
    pub method: String,
    /// The revision the frame was read at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'static str>,
    /// The revision the frame was written at.
    pub to: &'static str,
    /// What happened.
    pub status: Status,
    /// Why (refusals and synthesized frames).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Members left out.
    pub stripped: Vec<String>,
    /// Members added.
    pub injected: Vec<String>,
    /// Members written although the target does not declare them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// Union members written in an older form.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rewritten: Vec<String>,
}

/// Which way a frame travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Toward the server.
    ToServer,
    /// Toward the client.
    ToClient,
}

impl Dir {
    /// `c2s` or `s2c`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::ToServer => "c2s",
            Dir::ToClient => "s2c",
        }
    }
}

/// The live report (a no-op when no file was asked for). Lines are flushed one by one, so the
/// file can be followed while the bridge runs.
#[derive(Debug, Default)]
pub struct Report {
    out: Option<Mutex<BufWriter<File>>>,
    seq: AtomicU64,
}

impl Report {
    /// A report written to `path` (created or truncated).
    pub fn to_file(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            out: Some(Mutex::new(BufWriter::new(File::create(path)?))),
            seq: AtomicU64::new(0),
        })
    }

    /// No report.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether lines are written (callers skip the report pass of the boundary otherwise).
    pub fn enabled(&self) -> bool {
        self.out.is_some()
    }

    /// Records an emission if it changed anything.
    pub fn emitted(
        &self,
        dir: Dir,
        method: &str,
        from: Option<ProtocolVersion>,
        report: &EmissionReport,
    ) {
        if report.is_plain() && report.passed.is_empty() {
            return;
        }
        self.write(Entry {
            seq: 0,
            dir: dir.as_str(),
            method: method.to_owned(),
            from: from.map(ProtocolVersion::as_str),
            to: report.version.as_str(),
            status: Status::Written,
            reason: None,
            stripped: report.stripped_pointers(),
            injected: report.injected_pointers(),
            passed: report.passed_pointers(),
            rewritten: report.rewritten_pointers(),
        });
    }

    /// Records a frame the bridge added members to itself (the identity stamped on a
    /// 2026-07-28 request): `injected` are the pointers of the added members.
    pub fn stamped(
        &self,
        method: &str,
        from: ProtocolVersion,
        to: ProtocolVersion,
        injected: Vec<String>,
    ) {
        if !self.enabled() || injected.is_empty() {
            return;
        }
        self.write(Entry {
            seq: 0,
            dir: Dir::ToServer.as_str(),
            method: method.to_owned(),
            from: Some(from.as_str()),
            to: to.as_str(),
            status: Status::Written,
            reason: None,
            stripped: Vec::new(),
            injected,
            passed: Vec::new(),
            rewritten: Vec::new(),
        });
    }

    /// Records a refused or synthesized frame.
    pub fn event(
        &self,
        dir: Dir,
        method: &str,
        from: Option<ProtocolVersion>,
        to: ProtocolVersion,
        status: Status,
        reason: impl Into<String>,
    ) {
        if !self.enabled() {
            return;
        }
        self.write(Entry {
            seq: 0,
            dir: dir.as_str(),
            method: method.to_owned(),
            from: from.map(ProtocolVersion::as_str),
            to: to.as_str(),
            status,
            reason: Some(reason.into()),
            stripped: Vec::new(),
            injected: Vec::new(),
            passed: Vec::new(),
            rewritten: Vec::new(),
        });
    }

    fn write(&self, mut entry: Entry) {
        let Some(out) = &self.out else { return };
        let Ok(mut out) = out.lock() else { return };
        entry.seq = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        if let Ok(line) = serde_json::to_string(&entry) {
            // A report that cannot be written must not stop the traffic it describes.
            let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_have_explains_shape_with_the_bridges_context() {
        let dir =
            std::env::temp_dir().join(format!("mcp-wire-bridge-report-{}", std::process::id()));
        let report = Report::to_file(&dir).unwrap();
        report.event(
            Dir::ToClient,
            "initialize",
            None,
            ProtocolVersion::V2025_11_25,
            Status::Synthesized,
            "answered from server/discover",
        );
        drop(report);
        let text = std::fs::read_to_string(&dir).unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(
            text,
            "{\"seq\":1,\"dir\":\"s2c\",\"method\":\"initialize\",\"to\":\"2025-11-25\",\"status\":\"synthesized\",\"reason\":\"answered from server/discover\",\"stripped\":[],\"injected\":[]}\n"
        );
        assert!(!Report::none().enabled());
    }
}
