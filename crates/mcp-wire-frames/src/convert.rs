//! One frame through the boundary: the body is cut out of the envelope, parsed at the source
//! revision into the superset model, emitted for the target with an emission report, and put
//! back into the same envelope (same id, same key order). The report's JSON Pointers are made
//! frame-relative for `explain`.
//!
//! The session layer adds one thing the boundary never invents: at 2026-07-28 a client request
//! must state the client's identity in `_meta`; a handshake-era request does not carry it, but
//! the session's `initialize` did, so it is copied from there (and listed as injected).

use mcp_wire::model::meta::keys;
use mcp_wire::session::Envelope;
use mcp_wire::wire::EmitOptions;
use mcp_wire::wire::ResultFor;
use mcp_wire::{Era, JsonPath, ProtocolVersion};
use serde_json::{Map, Value};

use crate::boundary::{BodyKind, Failure};
use crate::pointer;
use crate::record::Direction;
use crate::session::ClientIdentity;
use crate::stream::Placed;

/// A frame as written for the target, and what changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The frame for the target revision.
    pub frame: Value,
    /// JSON Pointers (into the input frame) of members left out.
    pub stripped: Vec<String>,
    /// JSON Pointers (into the output frame) of members added.
    pub injected: Vec<String>,
    /// JSON Pointers (into the output frame) of members written although the target revision
    /// does not declare them (a strict emission strips them instead).
    pub passed: Vec<String>,
    /// JSON Pointers (into the output frame) of members whose value in the output replaces the
    /// input's: union members written in an older form the target carries, and the revision
    /// an `initialize` or its answer names (restated as the target).
    pub rewritten: Vec<String>,
}

impl Converted {
    /// A frame passed through untouched (error responses: the same at every revision).
    pub fn unchanged(frame: Value) -> Self {
        Converted {
            frame,
            stripped: Vec::new(),
            injected: Vec::new(),
            passed: Vec::new(),
            rewritten: Vec::new(),
        }
    }
}

/// Moves the body the boundary works on out of `frame`: `{"method","params"?}` for requests
/// and notifications, the `result` object for responses. The envelope keeps its key order (the
/// moved member's slot holds `null` until [`put_back`] fills it).
pub fn take_body(frame: &mut Value, envelope: &Envelope) -> Value {
    let Value::Object(m) = frame else {
        return Value::Null;
    };
    match envelope {
        Envelope::Response { .. } => m.get_mut("result").map(std::mem::take).unwrap_or_default(),
        _ => {
            let mut body = Map::new();
            if let Some(method) = m.get("method") {
                body.insert("method".into(), method.clone());
            }
            if let Some(params) = m.get_mut("params") {
                body.insert("params".into(), std::mem::take(params));
            }
            Value::Object(body)
        }
    }
}

/// A copy of the body of `frame` (see [`take_body`]), for read-only checks.
pub fn body_of(frame: &Value, envelope: &Envelope) -> Value {
    let mut copy = frame.clone();
    take_body(&mut copy, envelope)
}

/// Puts an emitted body back into the envelope `take_body` left: the same slots, the same key
/// order; a member the body gained (e.g. a materialized `params`) is appended, one it lost is
/// removed.
pub fn put_back(frame: &mut Value, envelope: &Envelope, body: Value) {
    let Value::Object(m) = frame else {
        return;
    };
    match (envelope, body) {
        (Envelope::Response { .. }, body) => {
            m.insert("result".into(), body);
        }
        (_, Value::Object(mut body)) => {
            for key in ["method", "params"] {
                match body.shift_remove(key) {
                    Some(v) => {
                        m.insert(key.into(), v);
                    }
                    None => {
                        m.shift_remove(key);
                    }
                }
            }
            m.extend(body);
        }
        (_, other) => *frame = other,
    }
}

/// Adds the client identity a 2026-07-28 client request must carry, from the session's
/// `initialize`, where the request lacks it. Returns the pointers added.
pub fn add_identity(body: &mut Value, identity: &ClientIdentity) -> Vec<String> {
    // A parent the body lacks is materialized, and then it is the injected member.
    let materialized = ["/params", "/params/_meta"]
        .into_iter()
        .find(|p| body.pointer(p).is_none());
    let mut added = Vec::new();
    let entries = [
        (keys::CLIENT_INFO, identity.client_info.as_ref()),
        (keys::CLIENT_CAPABILITIES, identity.capabilities.as_ref()),
    ];
    for (key, value) in entries {
        let Some(value) = value else { continue };
        let at = JsonPath::root()
            .key("params")
            .key("_meta")
            .key(key)
            .pointer();
        if body.pointer(&at).is_none() && pointer::insert(body, &at, value.clone()) {
            added.push(at);
        }
    }
    match materialized {
        Some(parent) if !added.is_empty() => vec![parent.to_owned()],
        _ => added,
    }
}

/// Frame-relative pointers for a body-relative report.
fn rebase(kind: BodyKind<'_>, pointers: Vec<String>) -> Vec<String> {
    match kind {
        BodyKind::Result(..) => pointers
            .into_iter()
            .map(|p| format!("/result{p}"))
            .collect(),
        _ => pointers,
    }
}

/// Drops pointers at or under any of `roots` (changes inside something we injected whole).
fn outside(pointers: Vec<String>, roots: &[String]) -> Vec<String> {
    pointers
        .into_iter()
        .filter(|p| {
            !roots
                .iter()
                .any(|r| p == r || p.starts_with(&format!("{r}/")))
        })
        .collect()
}

/// Converts one placed frame from `from` to `to` with `options`. The frame is moved out of
/// `placed`. Without `report`, the pointer lists stay empty (`translate` does not need them;
/// `explain` does).
pub fn convert(
    placed: &mut Placed,
    from: ProtocolVersion,
    to: ProtocolVersion,
    identity: Option<&ClientIdentity>,
    report: bool,
    options: EmitOptions,
) -> Result<Converted, Failure> {
    let frame = &mut placed.record.frame;
    let d = placed.context.direction;
    let kind = match &placed.envelope {
        Envelope::Request { .. } => BodyKind::Request(d),
        Envelope::Notification { .. } => BodyKind::Notification(d),
        Envelope::Response { .. } => {
            let answering = placed
                .context
                .origin
                .as_ref()
                .map_or(ResultFor::method(""), |o| o.result_for());
            BodyKind::Result(d, answering)
        }
        Envelope::Error { .. } => return Ok(Converted::unchanged(std::mem::take(frame))),
    };
    let mut body = take_body(frame, &placed.envelope);
    let mut ours = Vec::new();
    if to.era() == Era::Stateless
        && kind == BodyKind::Request(Direction::ClientToServer)
        && let Some(identity) = identity
    {
        ours = add_identity(&mut body, identity);
    }
    let emitted = crate::boundary::emit(kind, body, from, to, report, options)?;
    let stripped = outside(rebase(kind, emitted.stripped), &ours);
    let mut injected_all = ours.clone();
    injected_all.extend(outside(rebase(kind, emitted.injected), &ours));
    let passed = outside(rebase(kind, emitted.passed), &ours);
    let rewritten = outside(rebase(kind, emitted.rewritten), &ours);
    put_back(frame, &placed.envelope, emitted.value);
    Ok(Converted {
        frame: std::mem::take(frame),
        stripped,
        injected: injected_all,
        passed,
        rewritten,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::jsonrpc::RequestId;
    use mcp_wire::session::Envelope;
    use serde_json::json;

    #[test]
    fn bodies_are_moved_out_and_back_in_input_order() {
        let mut f = json!({"method":"tools/list","params":{"cursor":"c"},"jsonrpc":"2.0","id":1});
        let env = Envelope::of(&f).unwrap();
        let body = take_body(&mut f, &env);
        assert_eq!(body, json!({"method":"tools/list","params":{"cursor":"c"}}));
        put_back(
            &mut f,
            &env,
            json!({"method":"tools/list","params":{"cursor":"d"}}),
        );
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            r#"{"method":"tools/list","params":{"cursor":"d"},"jsonrpc":"2.0","id":1}"#
        );
        let mut r = json!({"jsonrpc":"2.0","id":"x","result":{"a":1}});
        let env = Envelope::Response {
            id: RequestId::String("x".into()),
        };
        assert_eq!(take_body(&mut r, &env), json!({"a":1}));
        put_back(&mut r, &env, json!({"a":1,"resultType":"complete"}));
        assert_eq!(
            r,
            json!({"jsonrpc":"2.0","id":"x","result":{"a":1,"resultType":"complete"}})
        );
    }

    #[test]
    fn a_materialized_params_is_appended() {
        let mut f = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        let env = Envelope::of(&f).unwrap();
        let _ = take_body(&mut f, &env);
        put_back(
            &mut f,
            &env,
            json!({"method":"tools/list","params":{"_meta":{}}}),
        );
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}"#
        );
    }

    #[test]
    fn identity_is_added_where_missing() {
        let id = ClientIdentity {
            client_info: Some(json!({"name":"c","version":"1"})),
            capabilities: Some(json!({})),
        };
        let mut body = json!({"method":"tools/list"});
        assert_eq!(add_identity(&mut body, &id), vec!["/params".to_string()]);
        assert_eq!(
            body,
            json!({"method":"tools/list","params":{"_meta":{
                "io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},
                "io.modelcontextprotocol/clientCapabilities":{}}}})
        );
        let mut body = json!({"method":"tools/call","params":{"name":"x","_meta":{
            "io.modelcontextprotocol/clientInfo":{"name":"other","version":"2"}}}});
        assert_eq!(
            add_identity(&mut body, &id),
            vec!["/params/_meta/io.modelcontextprotocol~1clientCapabilities".to_string()]
        );
        assert_eq!(
            body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "other"
        );
    }

    #[test]
    fn changes_inside_injected_members_are_not_listed_twice() {
        let roots = vec!["/params".to_string()];
        assert_eq!(
            outside(
                vec![
                    "/params/_meta/x".into(),
                    "/paramsX".into(),
                    "/result/a".into()
                ],
                &roots
            ),
            vec!["/paramsX".to_string(), "/result/a".to_string()]
        );
    }
}
