//! The streaming line reader: one JSON value per line, in constant memory.
//!
//! A line that lies whole in the input's own buffer is handed out from there, uncopied; any other
//! is read into one reused buffer. A line longer than the configured limit is never held in
//! memory: the reader skips to its end and reports it as [`LineContent::TooLong`], so a
//! 100 MB line costs a scan, not 100 MB. Line numbers are 1-based and count every line,
//! including the blank ones the reader skips.

use std::io::{self, BufRead, Read};

/// The default line limit (128 MiB): larger lines are reported, not parsed. Real frames carry
/// base64 images and resource blobs of tens of megabytes over stdio; this keeps frames of
/// 64 MiB and more with room to spare, while an over-long line still costs at most this much
/// memory (the reader holds no more than the limit before it knows a line is too long).
pub const DEFAULT_MAX_LINE_BYTES: usize = 128 * 1024 * 1024;

/// One non-blank line of the input.
#[derive(Debug, PartialEq, Eq)]
pub enum LineContent<'a> {
    /// The line's bytes, without the line terminator (`\n` or `\r\n`).
    Bytes(&'a [u8]),
    /// The line exceeded the limit; it was skipped. `bytes` is its length without terminator.
    TooLong {
        /// Length of the skipped line in bytes.
        bytes: u64,
    },
}

/// A line-at-a-time reader over any buffered input.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// The length (terminator included) of the line last handed out from `inner`'s buffer, to
    /// be consumed when the next line is asked for.
    lent: usize,
    line: usize,
    max_line_bytes: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader that reports lines longer than `max_line_bytes` instead of buffering them.
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(64 * 1024),
            lent: 0,
            line: 0,
            max_line_bytes,
        }
    }

    /// The next non-blank line and its 1-based number, or `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<(usize, LineContent<'_>)>> {
        loop {
            self.inner.consume(std::mem::take(&mut self.lent));
            // A line whose terminator is in the input's buffer already is read in place (and
            // `lent`); any other is copied into `buf`.
            let chunk = self.inner.fill_buf()?;
            let judged = if let Some(pos) = memchr::memchr(b'\n', chunk) {
                self.lent = pos + 1;
                judge(&chunk[..=pos], self.max_line_bytes)
            } else {
                self.buf.clear();
                let limit = self.max_line_bytes as u64 + 2; // room for "\r\n"
                let n = (&mut self.inner)
                    .take(limit)
                    .read_until(b'\n', &mut self.buf)?;
                if n == 0 {
                    return Ok(None);
                }
                if self.buf.last() != Some(&b'\n') && n as u64 == limit {
                    // Over the limit: count and discard the rest of the line without storing it.
                    Judged::TooLong(n as u64 + self.skip_rest_of_line()?)
                } else {
                    judge(&self.buf, self.max_line_bytes)
                }
            };
            self.line += 1;
            let content = match judged {
                Judged::Blank => continue,
                Judged::TooLong(bytes) => LineContent::TooLong { bytes },
                // Asked again only to hand the line out: `fill_buf` returns the same buffer
                // while it is not empty.
                Judged::Kept(end) if self.lent > 0 => {
                    LineContent::Bytes(&self.inner.fill_buf()?[..end])
                }
                Judged::Kept(end) => LineContent::Bytes(&self.buf[..end]),
            };
            return Ok(Some((self.line, content)));
        }
    }

    /// Consumes input up to and including the next `\n`. Returns the bytes consumed before the
    /// terminator (`\n` or `\r\n` — a `\r` split from its `\n` across buffer refills counts
    /// as content, which only affects the reported length).
    fn skip_rest_of_line(&mut self) -> io::Result<u64> {
        let mut consumed = 0u64;
        loop {
            let chunk = self.inner.fill_buf()?;
            if let Some(pos) = memchr::memchr(b'\n', chunk) {
                let content = chunk[..pos]
                    .strip_suffix(b"\r")
                    .unwrap_or(&chunk[..pos])
                    .len();
                self.inner.consume(pos + 1);
                return Ok(consumed + content as u64);
            }
            let len = chunk.len();
            if len == 0 {
                return Ok(consumed);
            }
            self.inner.consume(len);
            consumed += len as u64;
        }
    }
}

/// What a line read whole (its terminator, if any, included) is to the reader.
enum Judged {
    /// Empty or whitespace only: skipped.
    Blank,
    /// Longer than the limit without its terminator: reported with that length.
    TooLong(u64),
    /// Handed out: its bytes end here (the terminator, `\n` or `\r\n`, left off).
    Kept(usize),
}

/// Judges `line` (as read, terminator included when it has one) against `max_line_bytes`.
fn judge(line: &[u8], max_line_bytes: usize) -> Judged {
    let end = match line.strip_suffix(b"\n") {
        Some(content) => content.strip_suffix(b"\r").unwrap_or(content).len(),
        None => line.len(),
    };
    if end > max_line_bytes {
        Judged::TooLong(end as u64)
    } else if line[..end].iter().all(u8::is_ascii_whitespace) {
        Judged::Blank
    } else {
        Judged::Kept(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line `input` gives: its number, and its bytes or its length when too long.
    fn lines(input: impl BufRead, max: usize) -> Vec<(usize, Result<Vec<u8>, u64>)> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some((n, c)) = r.next_line().unwrap() {
            out.push((
                n,
                match c {
                    LineContent::Bytes(b) => Ok(b.to_vec()),
                    LineContent::TooLong { bytes } => Err(bytes),
                },
            ));
        }
        out
    }

    #[test]
    fn lines_are_numbered_stripped_and_judged_by_the_limit() {
        let ok = |n: usize, b: &[u8]| (n, Ok(b.to_vec()));
        let mut long = vec![b'x'; 1000];
        long.extend_from_slice(b"\nok\n");
        long.extend(std::iter::repeat_n(b'y', 50));
        long.extend_from_slice(b"\r\nlast");
        for (case, input, max, want) in [
            (
                "numbers count blank lines, terminators are stripped",
                &b"a\r\n\n  \nb\nc"[..],
                100,
                vec![ok(1, b"a"), ok(4, b"b"), ok(5, b"c")],
            ),
            (
                "long lines are skipped and the stream goes on",
                &long,
                10,
                vec![(1, Err(1000)), ok(2, b"ok"), (3, Err(50)), ok(4, b"last")],
            ),
            (
                "a line exactly at the limit is kept",
                b"0123456789\r\n01234567890\n",
                10,
                vec![ok(1, b"0123456789"), (2, Err(11))],
            ),
        ] {
            assert_eq!(lines(input, max), want, "{case}");
        }
    }

    /// `len` bytes of `x`, then `\n` and `tail`, produced as they are read (never held).
    struct Generated {
        left: u64,
        tail: &'static [u8],
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.left > 0 {
                let n = buf.len().min(self.left as usize);
                buf[..n].fill(b'x');
                self.left -= n as u64;
                return Ok(n);
            }
            let n = buf.len().min(self.tail.len());
            buf[..n].copy_from_slice(&self.tail[..n]);
            self.tail = &self.tail[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_over_long_line_costs_the_limit_not_its_length() {
        let limit = 1 << 20;
        let input = io::BufReader::with_capacity(
            64 * 1024,
            Generated {
                left: 64 << 20,
                tail: b"\nok\n",
            },
        );
        let mut r = LineReader::new(input, limit);
        let (n, c) = r.next_line().unwrap().unwrap();
        assert_eq!((n, c), (1, LineContent::TooLong { bytes: 64 << 20 }));
        // The reader held at most the limit (plus the room for a terminator and the growth of
        // its buffer), not the 64 MiB line.
        assert!(r.buf.capacity() <= 2 * (limit + 2), "{}", r.buf.capacity());
        let (n, c) = r.next_line().unwrap().unwrap();
        assert_eq!((n, c), (2, LineContent::Bytes(&b"ok"[..])));
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn the_default_limit_keeps_frames_of_64_mib() {
        const { assert!(DEFAULT_MAX_LINE_BYTES >= (64 << 20) + 4096) };
    }

    #[test]
    fn lines_read_in_place_or_copied_are_the_same() {
        let input: &[u8] =
            b"first\r\n\n  \n{\"a\":1}\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\r\n0123456789\r\nlast";
        let whole = lines(input, 10);
        assert_eq!(whole.len(), 5, "{whole:?}");
        // Buffers smaller and larger than the lines: lines split across refills are copied,
        // the others lent from the buffer; the reader sees the same lines either way.
        for capacity in 1..=40 {
            let got = lines(io::BufReader::with_capacity(capacity, input), 10);
            assert_eq!(got, whole, "buffer of {capacity} bytes");
        }
    }
}
