//! An incremental parser of `text/event-stream` bodies (the WHATWG server-sent events format).

use crate::TransportError;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event` field; empty means `message`.
    pub event: String,
    /// The `data` lines joined with `\n`.
    pub data: String,
    /// The `id` field of this event, if it set one.
    pub id: Option<String>,
    /// A `retry` field: the reconnection delay in milliseconds.
    pub retry: Option<u64>,
}

/// Feeds body chunks in, takes complete events out; holds at most `max` bytes of one event.
#[derive(Debug)]
pub(crate) struct SseParser {
    max: usize,
    /// Bytes of the current, incomplete line.
    line: Vec<u8>,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
    retry: Option<u64>,
    /// The previous chunk ended on `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
}

impl SseParser {
    /// A parser refusing events whose fields exceed `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            event: String::new(),
            data: String::new(),
            has_data: false,
            id: None,
            retry: None,
            after_cr: false,
        }
    }

    /// Parses `chunk`, appending the events it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), TransportError> {
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(tail) = rest.strip_prefix(b"\n") {
                rest = tail;
            }
        }
        while let Some(i) = memchr::memchr2(b'\n', b'\r', rest) {
            self.push_line_bytes(&rest[..i])?;
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, out)?;
            if rest[i] == b'\r' {
                match rest.get(i + 1) {
                    Some(b'\n') => rest = &rest[i + 2..],
                    Some(_) => rest = &rest[i + 1..],
                    None => {
                        self.after_cr = true;
                        rest = &[];
                    }
                }
            } else {
                rest = &rest[i + 1..];
            }
        }
        self.push_line_bytes(rest)
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        if self.line.len() + bytes.len() + self.data.len() > self.max {
            return Err(TransportError::FrameTooLarge {
                size: self.line.len() + bytes.len() + self.data.len(),
                limit: self.max,
            });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), TransportError> {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                    id: self.id.take(),
                    retry: self.retry.take(),
                });
            } else {
                // An event without data still carries its id and retry.
                if self.id.is_some() || self.retry.is_some() {
                    out.push(SseEvent {
                        event: String::new(),
                        data: String::new(),
                        id: self.id.take(),
                        retry: self.retry.take(),
                    });
                }
                self.event.clear();
            }
            self.has_data = false;
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // a comment (keep-alive)
        }
        let line = std::str::from_utf8(line)
            .map_err(|e| TransportError::BadFrame(format!("SSE line is not UTF-8: {e}")))?;
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" => self.retry = value.parse().ok().or(self.retry),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn events_split_anywhere_are_reassembled() {
        let whole: &[u8] =
            b": keep-alive\r\nid: 7\r\nretry: 500\r\n\r\nevent: message\nid: 8\ndata: {\"a\":\ndata: 1}\n\nevent:endpoint\ndata:/messages?s=1\n\n";
        let expected = vec![
            SseEvent {
                event: String::new(),
                data: String::new(),
                id: Some("7".into()),
                retry: Some(500),
            },
            SseEvent {
                event: "message".into(),
                data: "{\"a\":\n1}".into(),
                id: Some("8".into()),
                retry: None,
            },
            SseEvent {
                event: "endpoint".into(),
                data: "/messages?s=1".into(),
                id: None,
                retry: None,
            },
        ];
        assert_eq!(parse(&[whole]), expected);
        for split in 1..whole.len() {
            assert_eq!(
                parse(&[&whole[..split], &whole[split..]]),
                expected,
                "split at {split}"
            );
        }
    }

    #[test]
    fn an_event_over_the_limit_is_an_error() {
        let mut parser = SseParser::new(8);
        let mut out = Vec::new();
        assert!(matches!(
            parser.feed(b"data: 0123456789\n\n", &mut out),
            Err(TransportError::FrameTooLarge { limit: 8, .. })
        ));
    }
}
