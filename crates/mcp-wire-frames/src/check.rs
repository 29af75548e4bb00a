//! Checks of a placed frame against one revision: its method tables (from the generated facts)
//! and, optionally, the revision's pinned JSON Schema.

use mcp_wire::ProtocolVersion;
use mcp_wire::facts::{self, MethodFact};
use mcp_wire::session::Envelope;
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

/// The method-table row of a request or notification frame sent in `direction` at `version`.
fn envelope_fact(
    version: ProtocolVersion,
    direction: Direction,
    envelope: &Envelope,
) -> Option<&'static MethodFact> {
    match envelope {
        Envelope::Request { method, .. } => method_fact(version, direction, method, true),
        Envelope::Notification { method } => method_fact(version, direction, method, false),
        Envelope::Response { .. } | Envelope::Error { .. } => None,
    }
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
    let kind = if request { "request" } else { "notification" };
    if method_fact(version, direction, method, request).is_some() {
        return None;
    }
    let other = method_fact(version, direction.reverse(), method, request).is_some();
    Some(if other {
        format!(
            "{method} is a {} {kind} at {version}, not a {} one",
            sender(direction.reverse()),
            sender(direction)
        )
    } else {
        format!(
            "{method} is not a {} {kind} at {version}",
            sender(direction)
        )
    })
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

/// Checks of `placed` at `version` that need only the facts: the method exists for the
/// direction, a response answers a request the revision defines.
pub fn table_errors(placed: &Placed, version: ProtocolVersion) -> Vec<FrameError> {
    let d = placed.context.direction;
    let problem = match &placed.envelope {
        Envelope::Request { method, .. } => method_problem(version, d, method, true),
        Envelope::Notification { method } => method_problem(version, d, method, false),
        Envelope::Response { .. } => {
            let origin = placed.context.origin.as_ref().map(|o| o.method.as_str());
            match (origin, result_type(placed, version)) {
                (_, Some(_)) => None,
                (Some(m), None) => Some(format!(
                    "answers {m} (line {}), which is not a {} request at {version}",
                    placed.context.origin.as_ref().map_or(0, |o| o.position),
                    sender(d.reverse())
                )),
                (None, None) => Some("answers no known request".into()),
            }
        }
        Envelope::Error { .. } => None,
    };
    problem
        .map(|p| vec![FrameError::new("", p)])
        .unwrap_or_default()
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

/// Validates `placed` against the pinned schema of the oracle's revision: the envelope
/// definition, then the request/notification definition (the whole frame) or the result
/// definition (under `/result`). Frames the tables do not place get only the envelope check.
pub fn schema_errors(
    oracle: &SchemaOracle,
    placed: &Placed,
) -> Result<Vec<FrameError>, SchemaError> {
    let v = oracle.version();
    let frame = &placed.record.frame;
    let d = placed.context.direction;
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
    if let Some(f) = envelope_fact(v, d, &placed.envelope) {
        check(f.type_name, frame, "")?;
    } else if let (Envelope::Response { .. }, Some(def), Some(result)) = (
        &placed.envelope,
        result_type(placed, v),
        frame.get("result"),
    ) {
        check(def, result, "/result")?;
    }
    Ok(out)
}

/// Checks `placed` against the generated types of `version`: the request or notification type
/// for the whole frame, the result type for a response's `result`.
pub fn typed_errors(placed: &Placed, version: ProtocolVersion) -> Vec<FrameError> {
    let frame = &placed.record.frame;
    let d = placed.context.direction;
    let (checked, under) = match &placed.envelope {
        Envelope::Response { .. } => (
            result_type(placed, version).zip(frame.get("result")),
            "/result",
        ),
        envelope => (
            envelope_fact(version, d, envelope).map(|f| (f.type_name, frame)),
            "",
        ),
    };
    let outcome = checked.and_then(|(name, value)| {
        facts::check_generated(version, name, value).map(|checked| {
            checked.map_err(|e| {
                FrameError::new(format!("{under}{}", e.path.pointer()), e.kind.to_string())
            })
        })
    });
    match outcome {
        Some(Err(e)) => vec![e],
        _ => Vec::new(),
    }
}

/// Reads `placed` with the boundary at `version` (superset parse plus the revision's mandates).
pub fn mandate_errors(placed: &Placed, version: ProtocolVersion) -> Vec<FrameError> {
    let Some(kind) = BodyKind::of(&placed.envelope, &placed.context) else {
        return Vec::new();
    };
    let prefix = if matches!(kind, BodyKind::Result(..)) {
        "/result"
    } else {
        ""
    };
    let body = crate::convert::take_body(&mut placed.record.frame.clone(), kind);
    crate::boundary::parse_errors(kind, &body, version)
        .into_iter()
        .map(|(path, message)| FrameError::new(format!("{prefix}{path}"), message))
        .collect()
}
