//! The emission report: what `serialize_for` stripped, injected and passed, and why.

use std::fmt;

use super::error::JsonPath;
use super::ledger::Cause;
use crate::ProtocolVersion;

/// One change the emitter made (or one field it let through untouched although the revision does
/// not define it).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Where, in the emitted body.
    pub path: JsonPath,
    /// The table row behind it.
    pub cause: Cause,
    /// For injections: the injected value.
    pub value: Option<serde_json::Value>,
}

impl Change {
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
    pub stripped: Vec<Change>,
    /// Keys added (2026-07-28 shaping), appended at the end of their object.
    pub injected: Vec<Change>,
    /// Keys the revision does not define, written verbatim (a `pass` ledger row).
    pub passed: Vec<Change>,
}

impl EmissionReport {
    pub(crate) fn new(version: ProtocolVersion) -> Self {
        EmissionReport {
            version,
            stripped: Vec::new(),
            injected: Vec::new(),
            passed: Vec::new(),
        }
    }

    /// JSON Pointers of the stripped keys, in emission order.
    pub fn stripped_pointers(&self) -> Vec<String> {
        self.stripped.iter().map(Change::pointer).collect()
    }

    /// JSON Pointers of the injected keys, in emission order.
    pub fn injected_pointers(&self) -> Vec<String> {
        self.injected.iter().map(Change::pointer).collect()
    }

    /// JSON Pointers of the passed keys, in emission order.
    pub fn passed_pointers(&self) -> Vec<String> {
        self.passed.iter().map(Change::pointer).collect()
    }

    /// Whether the emission equals the plain serialization (nothing stripped or injected).
    pub fn is_identity(&self) -> bool {
        self.stripped.is_empty() && self.injected.is_empty()
    }
}

impl fmt::Display for EmissionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "emitted at {}", self.version)?;
        for (label, list) in [
            ("stripped", &self.stripped),
            ("injected", &self.injected),
            ("passed", &self.passed),
        ] {
            for c in list {
                writeln!(f, "  {label} {} <- {}", c.path, c.cause)?;
            }
        }
        Ok(())
    }
}
