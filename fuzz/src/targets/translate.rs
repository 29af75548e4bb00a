//! `translate`: lines of arbitrary bytes through `mcp-frames translate`, with the session state
//! the earlier lines build (revision, pending ids, client identity).
//!
//! Input: byte 0 picks the target revision (bits 0-2), a fixed source revision (`--from`, bit 3,
//! revision in bits 4-6) and `--on-refuse error` (bit 7); byte 1 the line limit
//! (`--max-line-bytes`: the default, 64, 512 or 4096 bytes; bits 0-1) and whether the direct
//! path passes every string of 64 bytes and more through uncopied, in bodies of any size
//! (`Translate::with_pass_through(0, 64)`; bit 2); the rest is the input, lines separated by
//! `\n`.
//!
//! Checked: nothing panics; the direct path changes nothing — `translate` writes byte for byte
//! what it writes with the direct path turned off (every line through the general path), on
//! stdout and stderr; every output line is one JSON value; `explain` and `validate` run over the
//! same input without panicking and write JSON lines.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use mcp_wire::ProtocolVersion;
use mcp_wire_frames::input::DEFAULT_MAX_LINE_BYTES;
use mcp_wire_frames::session::Session;
use mcp_wire_frames::stream::{self, Fault, LineHandler, Output, Placed};
use mcp_wire_frames::translate::{Mode, OnRefuse, Translate};
use mcp_wire_frames::validate::Validate;
use serde_json::Value;

use crate::seeds::Sources;

/// The options byte 0 and 1 select.
#[derive(Debug, Clone, Copy)]
struct Options {
    to: ProtocolVersion,
    from: Option<ProtocolVersion>,
    on_refuse: OnRefuse,
    max_line_bytes: usize,
    pass_through: bool,
}

impl Options {
    fn of(a: u8, b: u8) -> Options {
        Options {
            to: crate::revision(a & 7),
            from: (a & 8 != 0).then(|| crate::revision((a >> 4) & 7)),
            on_refuse: if a & 0x80 != 0 {
                OnRefuse::Error
            } else {
                OnRefuse::Skip
            },
            max_line_bytes: [DEFAULT_MAX_LINE_BYTES, 64, 512, 4096][usize::from(b & 3)],
            pass_through: b & 4 != 0,
        }
    }

    fn session(&self) -> Session {
        self.from.map(Session::fixed).unwrap_or_default()
    }
}

/// A writer whose bytes the caller reads afterwards.
#[derive(Clone, Default)]
struct Captured(Rc<RefCell<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `translate` with the direct path turned off: the trait's default `direct` declines every
/// line, so each one takes the general path.
struct GeneralOnly(Translate);

impl LineHandler for GeneralOnly {
    fn frame(&mut self, placed: Placed, session: &mut Session, out: &mut Output) -> io::Result<()> {
        self.0.frame(placed, session, out)
    }
    fn fault(&mut self, fault: Fault, out: &mut Output) -> io::Result<()> {
        self.0.fault(fault, out)
    }
    fn summary(&self) -> String {
        self.0.summary()
    }
    fn all_fine(&self) -> bool {
        self.0.all_fine()
    }
}

/// What one run wrote: stdout, stderr, and the exit verdict.
#[derive(Debug, PartialEq, Eq)]
struct Written {
    stdout: String,
    stderr: String,
    all_fine: bool,
}

fn drive(
    input: &[u8],
    options: &Options,
    handler: &mut dyn LineHandler,
    mut session: Session,
) -> Written {
    let (stdout, stderr) = (Captured::default(), Captured::default());
    let mut out = Output::new(Box::new(stdout.clone()), Box::new(stderr.clone()));
    stream::run(
        input,
        options.max_line_bytes,
        &mut session,
        handler,
        &mut out,
    )
    .expect("writing to memory does not fail");
    let text = |c: Captured| String::from_utf8(c.0.take()).expect("mcp-frames writes UTF-8");
    Written {
        stdout: text(stdout),
        stderr: text(stderr),
        all_fine: handler.all_fine(),
    }
}

fn assert_json_lines(what: &str, stdout: &str) {
    for line in stdout.lines() {
        if let Err(e) = serde_json::from_str::<Value>(line) {
            panic!("{what} wrote a line that is not JSON ({e}): {line:?}");
        }
    }
}

/// One input.
pub fn run(data: &[u8]) {
    let [a, b, input @ ..] = data else {
        return;
    };
    let options = Options::of(*a, *b);
    let mode = Mode::Translate(options.on_refuse);
    let mut translate = Translate::new(options.to, mode);
    if options.pass_through {
        translate = translate.with_pass_through(0, 64);
    }
    let direct = drive(input, &options, &mut translate, options.session());
    let general = drive(
        input,
        &options,
        &mut GeneralOnly(Translate::new(options.to, mode)),
        options.session(),
    );
    assert_eq!(
        direct, general,
        "translate with the direct path differs from the general path ({options:?})"
    );
    assert_json_lines("translate", &direct.stdout);
    let explain = drive(
        input,
        &options,
        &mut Translate::new(options.to, Mode::Explain),
        options.session(),
    );
    assert_json_lines("explain", &explain.stdout);
    let version = options.from.unwrap_or(options.to);
    let validate = drive(
        input,
        &options,
        &mut Validate::new(version, None),
        Session::fixed(version),
    );
    assert_json_lines("validate", &validate.stdout);
}

/// Each line of every session with the session's first three lines (its handshake) and the
/// line before it, to every target revision in turn; one in seven with `--from` the session's
/// revision. The same again with a copy of the line, placed just before it, whose body repeats
/// a key (text the strict reader refuses, which the session must never learn from: a request's
/// id and claims, an answer's taking out its request). Every example that is a whole frame,
/// alone, to every revision.
pub fn seeds(sources: &Sources) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut n = 0u8;
    let mut seed = |from: Option<ProtocolVersion>, lines: &[&str]| {
        n = n.wrapping_add(1);
        let mut a = n % 5;
        if let Some(v) = from.filter(|_| n % 7 == 0) {
            a |= 8 | (crate::revision_byte(v) << 4);
        }
        // Every other seed passes long strings through.
        let mut s = vec![a, (n % 2) << 2];
        s.extend(lines.join("\n").into_bytes());
        out.push(s);
    };
    for session in &sources.sessions {
        let lines: Vec<&str> = session.lines.iter().map(String::as_str).collect();
        let head = lines.len().min(3);
        seed(Some(session.version), &lines[..head]);
        for i in head..lines.len() {
            let mut window = lines[..head].to_vec();
            window.extend(&lines[(i - 1).max(head)..=i]);
            seed(Some(session.version), &window);
            if let Some(repeated) = with_repeated_key(lines[i]) {
                window.insert(window.len() - 1, &repeated);
                seed(Some(session.version), &window);
            }
        }
    }
    for example in &sources.examples {
        if example.value.get("jsonrpc").is_some() {
            let line = serde_json::to_string(&example.value).expect("JSON");
            seed(None, &[&line]);
        }
    }
    out
}

/// `line` with a key repeated at the start of its body (`params` or `result`), if it has one.
fn with_repeated_key(line: &str) -> Option<String> {
    let at = ["\"params\":{", "\"result\":{"]
        .iter()
        .find_map(|body| line.find(body).map(|i| i + body.len()))?;
    let comma = if line[at..].starts_with('}') { "" } else { "," };
    Some(format!(
        r#"{}"k":0,"k":1{comma}{}"#,
        &line[..at],
        &line[at..]
    ))
}
