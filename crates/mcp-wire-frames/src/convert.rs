//! One frame through the boundary: the body is parsed at the source revision into the superset
//! model, emitted for the target with an emission report, and put back into the same envelope
//! (same id, same key order). The report's JSON Pointers are made frame-relative for `explain`.
//!
//! The session layer adds one thing the boundary never invents: at 2026-07-28 a client request
//! must state the client's identity in `_meta`; a handshake-era request does not carry it, but
//! the session's `initialize` did, so it is copied from there (and listed as injected).

use mcp_wire::model::meta::keys;
use mcp_wire::wire::EmitOptions;
use mcp_wire::{Era, JsonPath, ProtocolVersion};
use serde_json::Value;

use crate::boundary::{BodyKind, Changes, Failure};
use crate::pointer;
use crate::record::Direction;
use crate::session::ClientIdentity;

/// The body the boundary reads in `frame`: a response's `result`; for a request or
/// notification the frame itself (a request or notification type reads `method` and `params`
/// and ignores the envelope's members, as it does in the direct path's frame text).
pub fn body<'f>(frame: &'f Value, kind: BodyKind<'_>) -> &'f Value {
    match kind {
        BodyKind::Result(..) => frame.get("result").unwrap_or(&Value::Null),
        _ => frame,
    }
}

/// Puts an emitted body back into the frame it was read from: the same slots, the same key
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
        (_, Value::Object(body)) => {
            // Inserting keeps a member's slot; a new one is appended.
            if !body.contains_key("params") {
                m.shift_remove("params");
            }
            m.extend(body);
        }
        (_, other) => *frame = other,
    }
}

/// Adds the client identity a 2026-07-28 client request (`body`, its frame) must carry, from the
/// session's `initialize`, where the request lacks it. Returns the pointers added.
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
    let mut ours = Vec::new();
    if to.era() == Era::Stateless
        && kind == BodyKind::Request(Direction::ClientToServer)
        && let Some(identity) = identity
    {
        ours = add_identity(frame, identity);
    }
    let body = body(frame, kind);
    let (value, emitted) = crate::boundary::emit(kind, body, from, to, report, options)?;
    // The report's pointers, frame-relative.
    let framed = |pointers: Vec<String>| {
        let framed = pointers.into_iter().map(|p| format!("{}{p}", kind.at()));
        outside(framed.collect(), &ours)
    };
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
    fn bodies_are_read_in_place_and_put_back_in_input_order() {
        let result = BodyKind::Result(Direction::ServerToClient, ResultFor::method("m"));
        for (kind, mut frame, body, emitted, written) in [
            (
                REQUEST,
                json!({"method":"tools/list","params":{"cursor":"c"},"jsonrpc":"2.0","id":1}),
                json!({"method":"tools/list","params":{"cursor":"c"},"jsonrpc":"2.0","id":1}),
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
                json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
                json!({"method":"tools/list","params":{"_meta":{}}}),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}"#,
            ),
        ] {
            assert_eq!(super::body(&frame, kind), &body, "{written}");
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
