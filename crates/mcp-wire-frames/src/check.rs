//! Checks of a placed frame against one revision: its method tables (from the generated facts)
//! and, optionally, the revision's pinned JSON Schema.

use mcp_wire::ProtocolVersion;
use mcp_wire::facts::{self, MethodFact};
use mcp_wire::jsonrpc::codes;
use mcp_wire::session::{Envelope, FrameContext};
use mcp_wire::wire::{ResultFor, ResultTyping};
use mcp_wire_schemas::{SchemaError, SchemaOracle};
use serde_json::Value;

use crate::boundary::BodyKind;
use crate::record::Direction;
use crate::stream::Placed;

/// One problem with a frame: a JSON Pointer into the frame and a message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FrameError {
    /// JSON Pointer into the frame (`""` for the frame itself).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl FrameError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FrameError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The method-table row of a request (or, without `request`, a notification) sent in
/// `direction` at `version`.
pub fn method_fact(
    version: ProtocolVersion,
    direction: Direction,
    method: &str,
    request: bool,
) -> Option<&'static MethodFact> {
    let f = facts::revision(version);
    let table = match (request, direction) {
        (true, Direction::ClientToServer) => f.client_requests,
        (true, Direction::ServerToClient) => f.server_requests,
        (false, Direction::ClientToServer) => f.client_notifications,
        (false, Direction::ServerToClient) => f.server_notifications,
    };
    table.iter().find(|m| m.method == method)
}

fn sender(d: Direction) -> &'static str {
    match d {
        Direction::ClientToServer => "client",
        Direction::ServerToClient => "server",
    }
}

/// Why `method` (a request if `request`) has no row at `version` for `direction`, if it has none.
pub fn method_problem(
    version: ProtocolVersion,
    direction: Direction,
    method: &str,
    request: bool,
) -> Option<String> {
    if method_fact(version, direction, method, request).is_some() {
        return None;
    }
    let kind = if request { "request" } else { "notification" };
    let (us, them) = (sender(direction), sender(direction.reverse()));
    Some(
        match method_fact(version, direction.reverse(), method, request) {
            Some(_) => format!("{method} is a {them} {kind} at {version}, not a {us} one"),
            None => format!("{method} is not a {us} {kind} at {version}"),
        },
    )
}

/// Why a task-augmented `method` request (its params carry `task`) read at `from` has no form
/// at `to`: the source answers it with a created task, which the target cannot express (the
/// bridge refuses such requests rather than run them as plain calls).
pub fn augmentation_problem(
    from: ProtocolVersion,
    to: ProtocolVersion,
    method: &str,
) -> Option<String> {
    let augmented = ResultFor::method(method).task_augmented(true);
    let creates_task = |v| matches!(augmented.typing(v), ResultTyping::CreatedTask(_));
    if !creates_task(from) || creates_task(to) {
        return None;
    }
    let at: Vec<&str> = ProtocolVersion::ALL
        .into_iter()
        .filter(|v| creates_task(*v))
        .map(ProtocolVersion::as_str)
        .collect();
    Some(format!(
        "{method} is task-augmented (params.task), which exists only at {}",
        at.join(", ")
    ))
}

/// The 2026-07-28 interim result and its `resultType` discriminator value.
const INPUT_REQUIRED: (&str, &str) = ("InputRequiredResult", "input_required");

/// The definition that answers a task-augmented request.
const CREATED_TASK: &str = "CreateTaskResult";

/// The schema definition that types the result of `placed` (a response), at `version`, as the
/// boundary types it ([`ResultFor::typing`]): the originating request's result (for a
/// `tasks/result`, the result of the request that created the task), the `CreateTaskResult` of
/// a task-augmented request, or — where the revision has it and the result says
/// `"resultType":"input_required"` — the interim `InputRequiredResult`.
pub fn result_type(placed: &Placed, version: ProtocolVersion) -> Option<&'static str> {
    let origin = placed.context.origin.as_ref()?;
    let sender = placed.context.direction.reverse();
    let declared = match origin.result_for().typing(version) {
        ResultTyping::CreatedTask(_) => CREATED_TASK,
        ResultTyping::Method(method) => method_fact(version, sender, method, true)?.result?,
    };
    let (interim, tag) = INPUT_REQUIRED;
    let result_type = placed
        .record
        .frame
        .get("result")
        .and_then(|r| r.get("resultType"));
    if result_type.and_then(Value::as_str) == Some(tag)
        && facts::revision(version).has_type(interim)
    {
        return Some(interim);
    }
    Some(declared)
}

/// Why a frame placed with `context` has no row in the method tables of `version`, with the
/// JSON-RPC code that answers it: a request or notification its sender cannot send there, or a
/// response to no request the revision defines. `None` when it has its row (and for an error
/// response, which has none to have). `translate` asks it at the source, `validate` at its
/// revision.
pub fn table_problem(
    envelope: &Envelope,
    context: &FrameContext,
    version: ProtocolVersion,
) -> Option<(String, i64)> {
    let d = context.direction;
    if let Some((method, request)) = method_of(envelope) {
        let problem = method_problem(version, d, method, request)?;
        return Some((problem, codes::METHOD_NOT_FOUND));
    }
    let problem = match (envelope, &context.origin) {
        (Envelope::Response { .. }, None) => "answers no known request".to_owned(),
        (Envelope::Response { .. }, Some(o))
            if method_fact(version, d.reverse(), &o.method, true).is_none() =>
        {
            format!(
                "answers {} (line {}), which is not a {} request at {version}",
                o.method,
                o.position,
                sender(d.reverse())
            )
        }
        _ => return None,
    };
    Some((problem, codes::INVALID_REQUEST))
}

/// A request's or notification's method, and whether it is a request.
pub fn method_of(envelope: &Envelope) -> Option<(&str, bool)> {
    match envelope {
        Envelope::Request { method, .. } => Some((method, true)),
        Envelope::Notification { method } => Some((method, false)),
        Envelope::Response { .. } | Envelope::Error { .. } => None,
    }
}

/// The definition names that type a frame's envelope at `version` (renamed in 2025-11-25).
fn envelope_definition(oracle: &SchemaOracle, envelope: &Envelope) -> &'static str {
    let pick = |new: &'static str, old: &'static str| {
        if oracle.has_definition(new) { new } else { old }
    };
    match envelope {
        Envelope::Request { .. } => "JSONRPCRequest",
        Envelope::Notification { .. } => "JSONRPCNotification",
        Envelope::Response { .. } => pick("JSONRPCResultResponse", "JSONRPCResponse"),
        Envelope::Error { .. } => pick("JSONRPCErrorResponse", "JSONRPCError"),
    }
}

/// The definition that types `placed` at `version`, the value it types and that value's
/// pointer in the frame: a request's or notification's whole frame, a response's `result`
/// ([`result_type`]). `None` for frames the tables do not place, and for error responses.
fn typed_part(placed: &Placed, version: ProtocolVersion) -> Option<(&'static str, &Value, &str)> {
    let (frame, d) = (&placed.record.frame, placed.context.direction);
    if let Some((name, request)) = method_of(&placed.envelope) {
        return Some((method_fact(version, d, name, request)?.type_name, frame, ""));
    }
    let Envelope::Response { .. } = placed.envelope else {
        return None;
    };
    let result = frame.get("result")?;
    Some((result_type(placed, version)?, result, "/result"))
}

/// Validates `placed` against the pinned schema of the oracle's revision: the envelope
/// definition, then the definition that types it ([`typed_part`]).
pub fn schema_errors(
    oracle: &SchemaOracle,
    placed: &Placed,
) -> Result<Vec<FrameError>, SchemaError> {
    let frame = &placed.record.frame;
    let mut out = Vec::new();
    let mut check = |def: &str, value: &Value, prefix: &str| -> Result<(), SchemaError> {
        for viol in oracle.violations(def, value)? {
            out.push(FrameError::new(
                format!("{prefix}{}", viol.path),
                format!("{def}: {}", viol.message),
            ));
        }
        Ok(())
    };
    check(envelope_definition(oracle, &placed.envelope), frame, "")?;
    if let Some((def, value, prefix)) = typed_part(placed, oracle.version()) {
        check(def, value, prefix)?;
    }
    Ok(out)
}

/// Checks `placed` against the generated types of `version` ([`typed_part`]).
pub fn typed_error(placed: &Placed, version: ProtocolVersion) -> Option<FrameError> {
    let (name, value, under) = typed_part(placed, version)?;
    let e = facts::check_generated(version, name, value)?.err()?;
    let path = format!("{under}{}", e.path.pointer());
    Some(FrameError::new(path, e.kind.to_string()))
}

/// Reads `placed` with the boundary at `version` (superset parse plus the revision's mandates).
pub fn mandate_errors(placed: &Placed, version: ProtocolVersion) -> Vec<FrameError> {
    let Some(kind) = BodyKind::of(&placed.envelope, &placed.context) else {
        return Vec::new();
    };
    let body = crate::convert::body(&placed.record.frame, kind);
    let Err(e) = crate::boundary::parse(kind, body, version) else {
        return Vec::new();
    };
    e.all()
        .map(|e| {
            let path = format!("{}{}", kind.at(), e.path.pointer());
            FrameError::new(path, format!("{} (boundary): {}", e.type_name, e.message))
        })
        .collect()
}
