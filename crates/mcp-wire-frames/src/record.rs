//! The two line formats: a bare JSON-RPC frame, or a capture record
//! `{"dir":"c2s"|"s2c","frame":{…}}` as in the shared corpus. Output keeps each line's format
//! (and a capture record's other keys, in order); only the frame is replaced.

use std::fmt;

use serde_json::Value;

pub use mcp_wire::session::Direction;

/// How a line carried its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The line is the frame itself.
    Bare,
    /// The line is a capture record with a known direction.
    Capture(Direction),
}

impl Format {
    /// The direction the line states, if it is a capture record.
    pub fn direction(self) -> Option<Direction> {
        match self {
            Format::Bare => None,
            Format::Capture(d) => Some(d),
        }
    }
}

/// One input line, understood as a record.
#[derive(Debug, Clone)]
pub struct Record {
    /// Bare or capture.
    pub format: Format,
    /// For captures: the whole record with `frame` taken out (set to `null`), to be refilled on
    /// output. For bare frames: `Value::Null`.
    shell: Value,
    /// The JSON-RPC frame.
    pub frame: Value,
}

/// A line that is JSON but neither a frame nor a well-formed capture record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError(pub String);

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Record {
    /// Splits a parsed line into format and frame. A top-level object with a `frame` key and no
    /// `jsonrpc` key is a capture record; anything else is treated as a bare frame (and judged by
    /// the envelope check).
    pub fn from_value(value: Value) -> Result<Record, RecordError> {
        let is_capture = matches!(&value, Value::Object(m) if m.contains_key("frame") && !m.contains_key("jsonrpc"));
        if !is_capture {
            return Ok(Record {
                format: Format::Bare,
                shell: Value::Null,
                frame: value,
            });
        }
        let mut shell = value;
        let map = shell.as_object_mut().expect("checked above");
        let dir = match map.get("dir") {
            Some(Value::String(s)) if s == "c2s" => Direction::ClientToServer,
            Some(Value::String(s)) if s == "s2c" => Direction::ServerToClient,
            Some(other) => {
                return Err(RecordError(format!(
                    "capture record: \"dir\" must be \"c2s\" or \"s2c\", found {other}"
                )));
            }
            None => return Err(RecordError("capture record without \"dir\"".into())),
        };
        let frame = std::mem::take(map.get_mut("frame").expect("checked above"));
        Ok(Record {
            format: Format::Capture(dir),
            shell,
            frame,
        })
    }

    /// A record of the same line carrying `frame` instead (one message of a batch): same
    /// format, same other keys.
    pub fn with_frame(&self, frame: Value) -> Record {
        Record {
            format: self.format,
            shell: self.shell.clone(),
            frame,
        }
    }

    /// The output line for `frame` in this record's format (no trailing newline).
    pub fn render(&mut self, frame: Value) -> Value {
        match self.format {
            Format::Bare => frame,
            Format::Capture(_) => {
                let mut shell = std::mem::take(&mut self.shell);
                if let Some(slot) = shell.as_object_mut().and_then(|m| m.get_mut("frame")) {
                    *slot = frame;
                }
                shell
            }
        }
    }

    /// The output line for a reply to this record's frame, sent in `direction`: a capture
    /// record gets that `dir` (other keys kept), a bare frame stays bare.
    pub fn render_reply(&mut self, frame: Value, direction: Direction) -> Value {
        if let Format::Capture(_) = self.format
            && let Some(m) = self.shell.as_object_mut()
        {
            m.insert("dir".into(), Value::from(direction.as_str()));
        }
        self.render(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capture_records_keep_their_keys_and_order() {
        let v = json!({"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{}},"t":5});
        let mut r = Record::from_value(v).unwrap();
        assert_eq!(r.format, Format::Capture(Direction::ServerToClient));
        assert_eq!(r.frame, json!({"jsonrpc":"2.0","id":1,"result":{}}));
        let out = r.render(json!({"x":1}));
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"dir":"s2c","frame":{"x":1},"t":5}"#
        );
    }

    #[test]
    fn bare_frames_stay_bare() {
        let v = json!({"jsonrpc":"2.0","method":"ping","id":"a"});
        let mut r = Record::from_value(v.clone()).unwrap();
        assert_eq!(r.format, Format::Bare);
        assert_eq!(r.render(v.clone()), v);
    }

    #[test]
    fn bad_directions_are_reported() {
        let e = Record::from_value(json!({"dir":"up","frame":{}})).unwrap_err();
        assert_eq!(
            e.0,
            r#"capture record: "dir" must be "c2s" or "s2c", found "up""#
        );
        let e = Record::from_value(json!({"frame":{}})).unwrap_err();
        assert_eq!(e.0, r#"capture record without "dir""#);
    }
}
