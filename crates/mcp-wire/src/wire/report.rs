//! The emission report: what `serialize_for` stripped, injected, rewrote and passed, and why.

use std::fmt;

use super::error::JsonPath;
use super::ledger::Cause;
use crate::ProtocolVersion;

/// One change the emitter made (or one field it let through untouched although the revision does
/// not define it).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportEntry {
    /// Where, in the emitted value (see the boundary's [paths](crate::wire#paths)).
    pub path: JsonPath,
    /// The table row behind it.
    pub cause: Cause,
    /// For injections: the injected value.
    pub value: Option<serde_json::Value>,
}

impl ReportEntry {
    /// The location as a JSON Pointer.
    pub fn pointer(&self) -> String {
        self.path.pointer()
    }
}

/// What one emission changed relative to the plain serialization of the superset value.
#[derive(Debug, Clone, PartialEq)]
pub struct EmissionReport {
    /// The target revision.
    pub version: ProtocolVersion,
    /// Keys left out (a `strip` ledger row), with their subtrees.
    pub stripped: Vec<ReportEntry>,
    /// Keys added (2026-07-28 shaping), appended at the end of their object.
    pub injected: Vec<ReportEntry>,
    /// Keys the revision does not define, written verbatim (a `pass` ledger row). A strict
    /// emission writes none: it strips them instead (listed in `stripped`).
    pub passed: Vec<ReportEntry>,
    /// Union members written in an older form the revision carries (a member row): the path of
    /// the member, the row, and the value written.
    pub rewritten: Vec<ReportEntry>,
}

/// Which list of the report a change goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// [`EmissionReport::stripped`].
    Stripped,
    /// [`EmissionReport::injected`].
    Injected,
    /// [`EmissionReport::passed`].
    Passed,
    /// [`EmissionReport::rewritten`].
    Rewritten,
}

impl EmissionReport {
    /// Adds `change` to list `list`.
    pub(crate) fn record(&mut self, list: NoteKind, change: ReportEntry) {
        match list {
            NoteKind::Stripped => self.stripped.push(change),
            NoteKind::Injected => self.injected.push(change),
            NoteKind::Passed => self.passed.push(change),
            NoteKind::Rewritten => self.rewritten.push(change),
        }
    }

    pub(crate) fn new(version: ProtocolVersion) -> Self {
        EmissionReport {
            version,
            stripped: Vec::new(),
            injected: Vec::new(),
            passed: Vec::new(),
            rewritten: Vec::new(),
        }
    }

    /// JSON Pointers of the stripped keys, in emission order.
    pub fn stripped_pointers(&self) -> Vec<String> {
        self.stripped.iter().map(ReportEntry::pointer).collect()
    }

    /// JSON Pointers of the injected keys, in emission order.
    pub fn injected_pointers(&self) -> Vec<String> {
        self.injected.iter().map(ReportEntry::pointer).collect()
    }

    /// JSON Pointers of the passed keys, in emission order.
    pub fn passed_pointers(&self) -> Vec<String> {
        self.passed.iter().map(ReportEntry::pointer).collect()
    }

    /// JSON Pointers of the rewritten union members, in emission order.
    pub fn rewritten_pointers(&self) -> Vec<String> {
        self.rewritten.iter().map(ReportEntry::pointer).collect()
    }

    /// Whether the emitted body is the plain serialization of the value: nothing stripped,
    /// injected or rewritten. Keys the revision does not define may still have been written
    /// (see [`EmissionReport::writes_only_declared`]).
    pub fn is_plain(&self) -> bool {
        self.stripped.is_empty() && self.injected.is_empty() && self.rewritten.is_empty()
    }

    /// Whether no key was passed: everything written is a member the target revision declares,
    /// as far as the ledger knows (keys the model does not name, kept from a parse, are written
    /// as they came). Always true of a strict emission.
    pub fn writes_only_declared(&self) -> bool {
        self.passed.is_empty()
    }
}

impl fmt::Display for EmissionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "emitted at {}", self.version)?;
        for (label, list) in [
            ("stripped", &self.stripped),
            ("injected", &self.injected),
            ("passed", &self.passed),
            ("rewritten", &self.rewritten),
        ] {
            for c in list {
                writeln!(f, "  {label} {} <- {}", c.path, c.cause)?;
            }
        }
        Ok(())
    }
}
