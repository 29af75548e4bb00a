//! The two line formats: a bare JSON-RPC frame, or a capture record
//! `{"dir":"c2s"|"s2c","frame":{…}}` as in the shared corpus. Output keeps each line's format
//! (and a capture record's other keys, in order); only the frame is replaced.

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

impl Record {
    /// Splits a parsed line into format and frame. A top-level object with a `frame` key and no
    /// `jsonrpc` key is a capture record; anything else is treated as a bare frame (and judged by
    /// the envelope check). A capture record without a well-formed `dir` is an error, which says
    /// so.
    pub fn from_value(value: Value) -> Result<Record, String> {
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
                return Err(format!(
                    "capture record: \"dir\" must be \"c2s\" or \"s2c\", found {other}"
                ));
            }
            None => return Err("capture record without \"dir\"".into()),
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
    fn records_split_and_render_in_their_format() {
        let capture = Format::Capture(Direction::ServerToClient);
        let frame = json!({"jsonrpc":"2.0","id":1,"result":{}});
        let bare = json!({"jsonrpc":"2.0","method":"ping","id":"a"});
        for (line, split) in [
            // A capture record keeps its other keys, in order; a bare frame stays bare.
            (
                json!({"dir":"s2c","frame":frame,"t":5}),
                Ok((capture, &frame, r#"{"dir":"s2c","frame":{"x":1},"t":5}"#)),
            ),
            (bare.clone(), Ok((Format::Bare, &bare, r#"{"x":1}"#))),
            (
                json!({"dir":"up","frame":{}}),
                Err(r#"capture record: "dir" must be "c2s" or "s2c", found "up""#),
            ),
            (json!({"frame":{}}), Err(r#"capture record without "dir""#)),
        ] {
            match (Record::from_value(line), split) {
                (Ok(mut r), Ok((format, frame, rendered))) => {
                    assert_eq!((r.format, &r.frame), (format, frame));
                    let out = r.render(json!({"x":1}));
                    assert_eq!(serde_json::to_string(&out).unwrap(), rendered);
                }
                (got, want) => assert_eq!(got.map(drop), want.map(drop).map_err(str::to_owned)),
            }
        }
    }
}
