//! Shared helpers of the boundary tests: a typed body of any kind, translation to a revision,
//! and the schema verdict on the result.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::OnceLock;

use mcp_wire::ProtocolVersion;
use mcp_wire::model::*;
use mcp_wire::wire::*;
use mcp_wire_schemas::{SchemaOracle, SchemaStore};
use serde_json::{Value, json};

/// A typed message body of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    ClientRequest(ClientRequest),
    ServerRequest(ServerRequest),
    ClientNotification(ClientNotification),
    ServerNotification(ServerNotification),
    Result(MethodResult),
}

/// How a body is read: by kind, and for results by the method they answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind<'a> {
    ClientRequest,
    ServerRequest,
    ClientNotification,
    ServerNotification,
    Result(&'a str),
}

/// `$e` with `$b` bound to the typed body inside `$body`, whichever member it is.
macro_rules! on_body {
    ($body:expr, $b:ident => $e:expr) => {
        match $body {
            Body::ClientRequest($b) => $e,
            Body::ServerRequest($b) => $e,
            Body::ClientNotification($b) => $e,
            Body::ServerNotification($b) => $e,
            Body::Result(MethodResult::Server($b)) => $e,
            Body::Result(MethodResult::Client($b)) => $e,
            Body::Result(_) => unreachable!("MethodResult has two members"),
        }
    };
}

impl Body {
    /// Parses `json` as `kind` at `version`.
    pub fn parse(
        kind: Kind<'_>,
        json: &Value,
        version: ProtocolVersion,
    ) -> Result<Body, ParseError> {
        Ok(match kind {
            Kind::ClientRequest => Body::ClientRequest(parse_as(json, version)?),
            Kind::ServerRequest => Body::ServerRequest(parse_as(json, version)?),
            Kind::ClientNotification => Body::ClientNotification(parse_as(json, version)?),
            Kind::ServerNotification => Body::ServerNotification(parse_as(json, version)?),
            Kind::Result(method) => Body::Result(parse_result_for(method, json, version)?),
        })
    }

    pub fn kind(&self) -> Kind<'static> {
        match self {
            Body::ClientRequest(_) => Kind::ClientRequest,
            Body::ServerRequest(_) => Kind::ServerRequest,
            Body::ClientNotification(_) => Kind::ClientNotification,
            Body::ServerNotification(_) => Kind::ServerNotification,
            Body::Result(_) => Kind::Result(""),
        }
    }

    fn info(&self) -> BodyInfo {
        on_body!(self, b => b.body_info())
    }

    /// The spec definition of the body.
    pub fn type_name(&self) -> &'static str {
        self.info().type_name
    }

    /// The compact text output (`serialize_for_vec`).
    pub fn emit_text(&self, v: ProtocolVersion) -> Result<String, EmitError> {
        let mut out = Vec::new();
        on_body!(self, b => serialize_for_vec(b, v, &mut out))?;
        Ok(String::from_utf8(out).expect("UTF-8"))
    }

    /// The value output (`serialize_for`).
    pub fn emit_value(&self, v: ProtocolVersion) -> Result<Value, EmitError> {
        on_body!(self, b => serialize_for(b, v))
    }

    pub fn emit(&self, v: ProtocolVersion) -> Result<(Value, EmissionReport), EmitError> {
        on_body!(self, b => serialize_for_report(b, v))
    }

    /// A strict emission: its value with the report, and its compact text.
    pub fn emit_strict(
        &self,
        v: ProtocolVersion,
    ) -> (
        Result<(Value, EmissionReport), EmitError>,
        Result<String, EmitError>,
    ) {
        let strict = EmitOptions::new().strict(true);
        on_body!(self, b => {
            let mut bytes = Vec::new();
            let text = serialize_for_vec(b, (v, strict), &mut bytes)
                .map(|()| String::from_utf8(bytes).expect("UTF-8"));
            (serialize_for_report(b, (v, strict)), text)
        })
    }

    /// Plain `serde_json` of the superset value.
    pub fn plain(&self) -> Value {
        on_body!(self, b => serde_json::to_value(b)).expect("superset values serialize")
    }

    /// The method whose result this is, for re-parsing a result.
    pub fn result_method(&self, fallback: &'static str) -> &'static str {
        match self.info().type_name {
            "InputRequiredResult" => "tools/call",
            _ => fallback,
        }
    }
}

/// The pinned schema oracle of a revision (loaded once).
pub fn oracle(v: ProtocolVersion) -> &'static SchemaOracle {
    static ORACLES: OnceLock<HashMap<ProtocolVersion, SchemaOracle>> = OnceLock::new();
    &ORACLES.get_or_init(|| {
        let store = SchemaStore::discover();
        ProtocolVersion::ALL
            .into_iter()
            .map(|v| {
                let o = SchemaOracle::load(&store, v).unwrap_or_else(|e| {
                    panic!("pinned schema of {v} missing: {e} (run `cargo xtask schemas`)")
                });
                (v, o)
            })
            .collect()
    })[&v]
}

/// What the target revision's schema says of the emitted body.
pub fn schema_violations(body: &Body, emitted: &Value, v: ProtocolVersion) -> Vec<String> {
    let name = body.type_name();
    let instance = match body {
        Body::Result(_) => emitted.clone(),
        Body::ClientRequest(_) | Body::ServerRequest(_) => {
            let mut m = serde_json::Map::new();
            m.insert("jsonrpc".into(), json!("2.0"));
            m.insert("id".into(), json!(1));
            m.extend(emitted.as_object().cloned().unwrap_or_default());
            Value::Object(m)
        }
        _ => {
            let mut m = serde_json::Map::new();
            m.insert("jsonrpc".into(), json!("2.0"));
            m.extend(emitted.as_object().cloned().unwrap_or_default());
            Value::Object(m)
        }
    };
    match oracle(v).violations(name, &instance) {
        Ok(list) => list
            .into_iter()
            .map(|x| format!("{}: {}", x.path, x.message))
            .collect(),
        Err(e) => vec![format!("no verdict: {e}")],
    }
}

/// The outcome of translating one body to one revision.
#[derive(Debug)]
pub enum Outcome {
    /// Emitted and valid against the target's pinned definition.
    Valid(Value, EmissionReport),
    /// Refused, with a reason.
    Refused(EmitError),
}

/// Emits `body` at `v` and checks the verdict: refused with a reason, or schema-valid.
/// Panics (with `label`) when the emitted body violates the target's schema.
pub fn translate(body: &Body, v: ProtocolVersion, label: &str) -> Outcome {
    let emitted = body.emit(v);
    // The byte outputs write exactly the value output's text, and
    // refuse exactly what it refuses.
    match (&emitted, body.emit_text(v)) {
        (Ok((value, _)), Ok(text)) => {
            assert_eq!(
                text,
                value.to_string(),
                "{label} at {v}: the text output differs from the report's value"
            );
            assert_eq!(
                body.emit_value(v).as_ref().ok(),
                Some(value),
                "{label} at {v}: the value output differs from the report's value"
            );
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                (a.kind, &a.message),
                (b.kind, &b.message),
                "{label} at {v}: the text output and the report refuse differently"
            );
            let c = body
                .emit_value(v)
                .expect_err("the value output refuses too");
            assert_eq!(
                (a.kind, &a.message),
                (c.kind, &c.message),
                "{label} at {v}: the value output and the report refuse differently"
            );
        }
        (a, b) => panic!("{label} at {v}: value output {a:?}, text output {b:?}"),
    }
    match emitted {
        Err(e) => {
            assert!(
                !e.message.is_empty() && e.cause.is_some(),
                "{label} at {v}: a refusal must name its reason and table row: {e:?}"
            );
            Outcome::Refused(e)
        }
        Ok((value, report)) => {
            let bad = schema_violations(body, &value, v);
            assert!(
                bad.is_empty(),
                "{label}: emitted at {v} but the pinned {} rejects it:\n  {}\nemitted: {value}",
                body.type_name(),
                bad.join("\n  ")
            );
            check_strict(body, &value, &report, v, label);
            Outcome::Valid(value, report)
        }
    }
}

/// The strict emission of a body the default emission writes: the same minus exactly the passed
/// members (now reported as stripped), nothing passed, its text equal to its value, and valid
/// against the target's pinned schema.
pub fn check_strict(
    body: &Body,
    value: &Value,
    report: &EmissionReport,
    v: ProtocolVersion,
    label: &str,
) {
    let (strict, text) = body.emit_strict(v);
    let (strict, strict_report) = strict
        .unwrap_or_else(|e| panic!("{label} at {v}: strict refuses what default writes: {e}"));
    assert_eq!(
        text.as_deref().ok(),
        Some(strict.to_string().as_str()),
        "{label} at {v}: strict text and value differ"
    );
    assert!(
        strict_report.writes_only_declared(),
        "{label} at {v}: strict passed {:?}",
        strict_report.passed_pointers()
    );
    let mut expected = value.clone();
    for c in &report.passed {
        remove_pointer(&mut expected, &c.pointer());
    }
    assert_eq!(
        strict, expected,
        "{label} at {v}: strict = default minus passed"
    );
    let mut stripped = report.stripped_pointers();
    stripped.extend(report.passed_pointers());
    stripped.sort();
    let mut strict_stripped = strict_report.stripped_pointers();
    strict_stripped.sort();
    assert_eq!(strict_stripped, stripped, "{label} at {v}: strict strips");
    let bad = schema_violations(body, &strict, v);
    assert!(
        bad.is_empty(),
        "{label}: strict at {v} but the pinned {} rejects it:\n  {}\nemitted: {strict}",
        body.type_name(),
        bad.join("\n  ")
    );
}

/// Removes the value at a JSON Pointer.
pub fn remove_pointer(v: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(m)) = v.pointer_mut(parent) {
        m.shift_remove(&last);
    }
}

/// Sets the value at a JSON Pointer (the parent must exist).
pub fn set_pointer(v: &mut Value, pointer: &str, value: Value) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(m)) = v.pointer_mut(parent) {
        m.insert(last, value);
    }
}

/// Round trip: parsing the emitted body at `v` gives the original minus exactly the reported
/// strips (plus the reported injections).
pub fn check_round_trip(
    body: &Body,
    emitted: &Value,
    report: &EmissionReport,
    v: ProtocolVersion,
    method: &'static str,
    label: &str,
) {
    let kind = match body.kind() {
        Kind::Result(_) => Kind::Result(body.result_method(method)),
        k => k,
    };
    let back = Body::parse(kind, emitted, v)
        .unwrap_or_else(|e| panic!("{label}: emitted at {v} does not parse back: {e}\n{emitted}"));
    let mut expected = body.plain();
    // Rewritten members first: strips and injections below them are paths of what was written.
    for c in &report.rewritten {
        set_pointer(
            &mut expected,
            &c.pointer(),
            c.value.clone().unwrap_or(Value::Null),
        );
    }
    for c in &report.stripped {
        remove_pointer(&mut expected, &c.pointer());
    }
    for c in &report.injected {
        set_pointer(
            &mut expected,
            &c.pointer(),
            c.value.clone().unwrap_or(Value::Null),
        );
    }
    assert_eq!(back.plain(), expected, "{label}: round trip at {v}");
}
