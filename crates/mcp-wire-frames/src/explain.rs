//! The `explain` record: one JSON line per input line, saying in one field whether `translate`
//! writes the frame and, when it does, what it changes.
//!
//! ```json
//! {"line":6,"status":"written","stripped":[],"injected":["/params"]}
//! {"line":1,"status":"refused","reason":"no form at 2026-07-28: …","stripped":[],"injected":[]}
//! {"line":9,"status":"invalid","reason":"response id 99 answers no pending client request","stripped":[],"injected":[]}
//! {"line":4,"status":"written","stripped":[],"injected":[],"passed":["/result/structuredContent"]}
//! ```
//!
//! `status` is the one field to read: `written` (the frame is in `translate`'s output, equal to
//! the input minus `stripped` plus `injected`, with each `rewritten` member's value replaced: a
//! union member's older form, or the target revision an `initialize` or its answer names), or
//! why it is not: `refused` (valid at its source revision, no form at the target) or `invalid`
//! (not valid at its source revision, or not a frame at all). `reason` is present exactly when the frame is not written. `passed` (members
//! written although the target does not declare them; `--strict` strips them, and lists them as
//! stripped) and `rewritten` appear when not empty. This is the only type that writes the
//! record, so members are added here.

use serde::{Deserialize, Serialize};

use crate::boundary::Changes;

/// Whether `translate` writes a frame, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Written to the output.
    Written,
    /// Not written: valid at its source revision, but without a form at the target.
    Refused,
    /// Not written: not valid at its source revision (or not a placeable frame).
    Invalid,
}

/// One `explain` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The 1-based input line.
    pub line: usize,
    /// Whether the frame is written, and if not, why.
    pub status: Status,
    /// Why the frame is not written (present exactly when `status` is not `written`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What `translate` changes in a written frame: pointers into the input frame for
    /// `stripped`, into the output frame for the others (`passed` and `rewritten` present when
    /// not empty).
    #[serde(flatten)]
    pub changes: Changes,
}

impl Explanation {
    /// A frame written with these changes.
    pub fn written(line: usize, changes: Changes) -> Self {
        Explanation {
            line,
            status: Status::Written,
            reason: None,
            changes,
        }
    }

    /// A frame not written (`status` refused or invalid), and why.
    pub fn not_written(line: usize, status: Status, reason: impl Into<String>) -> Self {
        Explanation {
            line,
            status,
            reason: Some(reason.into()),
            changes: Changes::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_say_in_one_field_whether_the_frame_is_written() {
        let changes = |injected: &[&str], passed: &[&str]| Changes {
            injected: injected.iter().map(|p| p.to_string()).collect(),
            passed: passed.iter().map(|p| p.to_string()).collect(),
            ..Changes::default()
        };
        for (record, text) in [
            (
                Explanation::written(6, changes(&["/params"], &[])),
                r#"{"line":6,"status":"written","stripped":[],"injected":["/params"]}"#,
            ),
            (
                Explanation::not_written(1, Status::Refused, "no form"),
                r#"{"line":1,"status":"refused","reason":"no form","stripped":[],"injected":[]}"#,
            ),
            (
                Explanation::not_written(9, Status::Invalid, "bad"),
                r#"{"line":9,"status":"invalid","reason":"bad","stripped":[],"injected":[]}"#,
            ),
            (
                Explanation::written(4, changes(&[], &["/result/title"])),
                r#"{"line":4,"status":"written","stripped":[],"injected":[],"passed":["/result/title"]}"#,
            ),
        ] {
            assert_eq!(serde_json::to_string(&record).unwrap(), text);
            assert_eq!(serde_json::from_str::<Explanation>(text).unwrap(), record);
        }
    }
}
