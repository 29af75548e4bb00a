//! `scan`: the direct path's byte scanner against `serde_json` (differential).
//!
//! Input: byte 0 picks the nesting depth the value starts at (0 to one past the direct path's
//! bound); the rest is the text, which must be UTF-8 (the direct path only scans text).
//!
//! Checked: whenever the scanner vouches for the value at the start of the text, the
//! deserializer (the strict check plus `serde_json`) accepts exactly the vouched text and ends
//! at the same byte, also when reading the whole text
//! (`mcp_wire_frames::direct::scan_oracle::soundness`).

use mcp_wire_frames::direct::scan_oracle::{MAX_DEPTH, soundness};
use serde_json::Value;

use crate::seeds::Sources;

/// One input.
pub fn run(data: &[u8]) {
    let [depth, text @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let depth = usize::from(*depth) % (MAX_DEPTH + 2);
    if let Err(breach) = soundness(text, depth) {
        panic!("the scanner vouched wrongly: {breach}");
    }
}

/// Every corpus line as captured, and every frame's members (compact) at the depth the direct
/// path reads them; every example, compact and pretty-printed.
pub fn seeds(sources: &Sources) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut seed = |depth: u8, text: &str| {
        let mut s = vec![depth];
        s.extend(text.as_bytes());
        out.push(s);
    };
    for session in &sources.sessions {
        for line in &session.lines {
            seed(1, line);
        }
        for (_, frame) in &session.frames {
            if let Value::Object(members) = frame {
                for member in members.values() {
                    seed(3, &member.to_string());
                }
            }
        }
    }
    for example in &sources.examples {
        seed(1, &example.value.to_string());
        seed(
            2,
            &serde_json::to_string_pretty(&example.value).expect("JSON"),
        );
    }
    out
}
