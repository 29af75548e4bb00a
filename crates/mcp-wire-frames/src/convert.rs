//! One frame through the boundary: the body is cut out of the envelope, parsed at the source
//! revision into the superset model, emitted for the target with an emission report, and put
//! back into the same envelope (same id, same key order). The report's JSON Pointers are made
//! frame-relative for `explain`.
//!
//! The session layer adds one thing the boundary never invents: at 2026-07-28 a client request
//! must state the client's identity in `_meta`; a handshake-era request does not carry it, but
//! the session's `initialize` did, so it is copied from there (and listed as injected).

use mcp_wire::model::meta::keys;
use mcp_wire::wire::EmitOptions;
use mcp_wire::{Era, JsonPath, ProtocolVersion};
use serde_json::{Map, Value};

use crate::boundary::{BodyKind, Changes, Failure};
use crate::pointer;
use crate::record::Direction;
use crate::session::ClientIdentity;

/// Moves the body the boundary works on out of `frame`: `{"method","params"?}` for requests
/// and notifications, the `result` object for responses. The envelope keeps its key order (the
/// moved member's slot holds `null` until [`put_back`] fills it).
pub fn take_body(frame: &mut Value, kind: BodyKind<'_>) -> Value {
    let Value::Object(m) = frame else {
        return Value::Null;
    };
    match kind {
        BodyKind::Result(..) => m.get_mut("result").map(std::mem::take).unwrap_or_default(),
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

/// Puts an emitted body back into the envelope `take_body` left: the same slots, the same key
/// order; a member the body gained (e.g. a materialized `params`) is appended, one it lost is
/// removed.
pub fn put_back(frame: &mut Value, kind: BodyKind<'_>, body: Value) {
    let Value::Object(m) = frame else {
        return;
    };
    match (kind, body) {
        (BodyKind::Result(..), body) => {
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

/// Converts one frame carrying a `kind` body from `from` to `to` with `options`: the frame
/// for the target, and with `report` what changed in it (`translate` does not need that;
/// `explain` does). The frame is moved out of `frame`.
pub fn convert(
    frame: &mut Value,
    kind: BodyKind<'_>,
    from: ProtocolVersion,
    to: ProtocolVersion,
    identity: Option<&ClientIdentity>,
    report: bool,
    options: EmitOptions,
) -> Result<(Value, Changes), Failure> {
    let mut body = take_body(frame, kind);
    let mut ours = Vec::new();
    if to.era() == Era::Stateless
        && kind == BodyKind::Request(Direction::ClientToServer)
        && let Some(identity) = identity
    {
        ours = add_identity(&mut body, identity);
    }
    let (value, emitted) = crate::boundary::emit(kind, body, from, to, report, options)?;
    let framed = |pointers| outside(rebase(kind, pointers), &ours);
    let mut changes = Changes {
        stripped: framed(emitted.stripped),
        injected: ours.clone(),
        passed: framed(emitted.passed),
        rewritten: framed(emitted.rewritten),
    };
    changes.injected.extend(framed(emitted.injected));
    put_back(frame, kind, value);
    Ok((std::mem::take(frame), changes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::wire::ResultFor;
    use serde_json::json;

    const REQUEST: BodyKind<'static> = BodyKind::Request(Direction::ClientToServer);

    #[test]
    fn bodies_are_moved_out_and_back_in_input_order() {
        let result = BodyKind::Result(Direction::ServerToClient, ResultFor::method("m"));
        for (kind, mut frame, body, emitted, written) in [
            (
                REQUEST,
                json!({"method":"tools/list","params":{"cursor":"c"},"jsonrpc":"2.0","id":1}),
                json!({"method":"tools/list","params":{"cursor":"c"}}),
                json!({"method":"tools/list","params":{"cursor":"d"}}),
                r#"{"method":"tools/list","params":{"cursor":"d"},"jsonrpc":"2.0","id":1}"#,
            ),
            (
                result,
                json!({"jsonrpc":"2.0","id":"x","result":{"a":1}}),
                json!({"a":1}),
                json!({"a":1,"resultType":"complete"}),
                r#"{"jsonrpc":"2.0","id":"x","result":{"a":1,"resultType":"complete"}}"#,
            ),
            // A materialized `params` is appended.
            (
                REQUEST,
                json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
                json!({"method":"tools/list"}),
                json!({"method":"tools/list","params":{"_meta":{}}}),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}"#,
            ),
        ] {
            assert_eq!(take_body(&mut frame, kind), body, "{written}");
            put_back(&mut frame, kind, emitted);
            assert_eq!(serde_json::to_string(&frame).unwrap(), written);
        }
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
