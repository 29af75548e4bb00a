//! Input-required rounds toward a 2026-07-28 client in front of a legacy server: which legacy
//! server→client requests become input requests of the current call (and which are refused,
//! why), how an input response goes back as the legacy client result, and how a legacy
//! server's error reads at 2026-07-28. Shared by plain calls (`stateless_to_handshake`) and
//! tasks (`tasks`).

use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire::model::{
    ClientCapabilities, ClientResult, InputRequest, InputResponse, ServerRequest,
};
use mcp_wire_transport::server::{INPUT_KEY_META, capability_for, declares};
use serde_json::{Value, json};

/// The longest input key taken from a legacy request's `_meta`.
const MAX_KEY_LEN: usize = 128;

/// A legacy request the client cannot be asked: the error for the server, and the capability
/// the client lacked (when that was why).
pub(crate) type Refusal = (ErrorData, Option<Value>);

/// A legacy server→client request as an input request of the current call, checked against
/// the client's capabilities; else the error for the server and, when a capability was
/// missing, what the client would have needed.
pub(crate) fn admit(
    client: &ClientCapabilities,
    request: ServerRequest,
    mrtr: bool,
) -> Result<(InputRequest, Option<String>), Box<Refusal>> {
    let input = match request {
        ServerRequest::CreateMessage(r) => InputRequest::CreateMessage(r),
        ServerRequest::ListRoots(r) => InputRequest::ListRoots(r),
        ServerRequest::Elicit(r) => InputRequest::Elicit(r),
        other => {
            return Err(Box::new((
                ErrorData::new(
                    codes::METHOD_NOT_FOUND,
                    format!("the bridge does not carry {}", other.method()),
                ),
                None,
            )));
        }
    };
    if !mrtr {
        // B10: never attached to a request that cannot answer input-required.
        return Err(Box::new((
            ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "{}: the client's request cannot carry input requests",
                    input.tag()
                ),
            ),
            None,
        )));
    }
    let mut value = serde_json::to_value(&input).unwrap_or(Value::Null);
    let needed = capability_for(&input);
    let caps = serde_json::to_value(client).unwrap_or(Value::Null);
    // Sub-capabilities: URL elicitation and sampling with tools.
    let sub = match needed {
        "elicitation" if value.pointer("/params/mode") == Some(&json!("url")) => Some("url"),
        "sampling" if value.pointer("/params/tools").is_some() => Some("tools"),
        _ => None,
    };
    let missing = if !declares(client, needed) {
        Some(match sub {
            Some(s) => json!({ needed: { s: {} } }),
            None => json!({ needed: {} }),
        })
    } else {
        sub.filter(|s| caps.pointer(&format!("/{needed}/{s}")).is_none())
            .map(|s| json!({ needed: { s: {} } }))
    };
    if let Some(missing) = missing {
        return Err(Box::new((
            ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("the client did not declare the capability {missing}"),
            ),
            Some(missing),
        )));
    }
    // The handler's own key, when the server is this project's runtime (`INPUT_KEY_META`).
    let key = value
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(INPUT_KEY_META))
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty() && k.len() <= MAX_KEY_LEN)
        .map(str::to_owned);
    // `_meta` and `task` are the legacy request's own (B9).
    if let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) {
        params.shift_remove("_meta");
        params.shift_remove("task");
    }
    serde_json::from_value(value)
        .map(|input| (input, key))
        .map_err(|e| Box::new((ErrorData::new(codes::INTERNAL_ERROR, e.to_string()), None)))
}

/// An input response as the legacy client result it carries to the server.
pub(crate) fn client_result(answer: InputResponse) -> Result<ClientResult, ErrorData> {
    match answer {
        InputResponse::CreateMessage(r) => Ok(ClientResult::CreateMessage(r)),
        InputResponse::ListRoots(r) => Ok(ClientResult::ListRoots(r)),
        InputResponse::Elicit(r) => Ok(ClientResult::Elicit(r)),
        #[allow(unreachable_patterns)]
        _ => Err(ErrorData::new(
            codes::INTERNAL_ERROR,
            "an answer the bridge does not carry",
        )),
    }
}

/// A legacy server's error as a 2026-07-28 client gets it (B17): -32002 becomes
/// -32602 with `data.uri`; a call that failed after the bridge refused it a capability is
/// -32021 naming it (Q20); -32021 with `requiredCapabilities` passes (a legacy server that
/// checked the client's capabilities itself); any other code of -32020..-32099, which
/// 2026-07-28 reserves, becomes -32603 with `data.originalCode`.
pub(crate) fn error_for_stateless_client(
    e: ErrorData,
    refused: Option<Value>,
    uri: Option<&str>,
) -> ErrorData {
    if let Some(required) = refused {
        return ErrorData::new(
            codes::MISSING_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({
            "requiredCapabilities": required,
            "upstreamError": {"code": e.code, "message": e.message},
        }));
    }
    match e.code {
        codes::RESOURCE_NOT_FOUND => {
            let mut data = match e.data {
                Some(Value::Object(m)) => m,
                _ => serde_json::Map::new(),
            };
            if !data.contains_key("uri")
                && let Some(uri) = uri
            {
                data.insert("uri".into(), Value::String(uri.to_owned()));
            }
            ErrorData::new(codes::INVALID_PARAMS, e.message).with_data(Value::Object(data))
        }
        codes::MISSING_CLIENT_CAPABILITY
            if e.data
                .as_ref()
                .and_then(|d| d.get("requiredCapabilities"))
                .is_some_and(Value::is_object) =>
        {
            e
        }
        code if codes::RESERVED_2026.contains(&code) => {
            let mut data = match e.data {
                Some(Value::Object(m)) => m,
                Some(other) => {
                    let mut m = serde_json::Map::new();
                    m.insert("originalData".into(), other);
                    m
                }
                None => serde_json::Map::new(),
            };
            data.insert("originalCode".into(), json!(code));
            ErrorData::new(codes::INTERNAL_ERROR, e.message).with_data(Value::Object(data))
        }
        _ => e,
    }
}
