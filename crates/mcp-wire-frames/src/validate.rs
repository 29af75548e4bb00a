//! `mcp-frames validate`: one verdict line per input line, against one revision.

use std::io;

use mcp_wire::ProtocolVersion;
use mcp_wire_schemas::SchemaOracle;
use serde_json::json;

use crate::check::{self, FrameError};
use crate::session::Session;
use crate::stream::{Fault, LineHandler, Output, Placed};

/// The `validate` command's state: the revision, the optional schema oracle, the counts.
pub struct Validate {
    version: ProtocolVersion,
    oracle: Option<SchemaOracle>,
    valid: usize,
    invalid: usize,
}

impl Validate {
    /// Validates at `version`; with an oracle, also against the pinned schema.
    pub fn new(version: ProtocolVersion, oracle: Option<SchemaOracle>) -> Self {
        Validate {
            version,
            oracle,
            valid: 0,
            invalid: 0,
        }
    }

    fn verdict(&mut self, out: &mut Output, line: usize, errors: &[FrameError]) -> io::Result<()> {
        let v = if errors.is_empty() {
            self.valid += 1;
            json!({"line": line, "ok": true})
        } else {
            self.invalid += 1;
            json!({"line": line, "ok": false, "errors": errors})
        };
        out.json_line(&v)
    }
}

impl LineHandler for Validate {
    fn frame(&mut self, placed: Placed, _: &mut Session, out: &mut Output) -> io::Result<()> {
        let (envelope, context) = (&placed.envelope, &placed.context);
        let mut errors = match check::table_problem(envelope, context, self.version) {
            Some((problem, _)) => vec![FrameError::new("", problem)],
            // Only for methods the revision has: the boundary reads any known method.
            None => check::typed_error(&placed, self.version)
                .into_iter()
                .chain(check::mandate_errors(&placed, self.version))
                .collect(),
        };
        if let Some(oracle) = &self.oracle {
            match check::schema_errors(oracle, &placed) {
                Ok(e) => errors.extend(e),
                Err(e) => errors.push(FrameError::new("", format!("schema: {e}"))),
            }
        }
        self.verdict(out, placed.line, &errors)
    }

    fn fault(&mut self, fault: Fault, out: &mut Output) -> io::Result<()> {
        self.verdict(out, fault.line, &[FrameError::new("", fault.reason)])
    }

    fn summary(&self) -> String {
        format!("valid {}, invalid {}", self.valid, self.invalid)
    }

    fn all_fine(&self) -> bool {
        self.invalid == 0
    }
}
