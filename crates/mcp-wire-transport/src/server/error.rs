//! Why a handler did not produce a result: [`HandlerError`], and the conversions that let `?`
//! hand every library error to the client as the JSON-RPC error it means.

use indexmap::IndexMap;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{InputRequest, TaskInfo};
use mcp_wire::{Era, ProtocolVersion};
use serde_json::{Value, json};

/// JSON-RPC error codes the runtime uses, by meaning: the crate-wide table of mcp-wire.
pub use mcp_wire::jsonrpc::codes;

/// Why a handler did not produce a result.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum HandlerError {
    /// Answer with this JSON-RPC error.
    Rpc(ErrorData),
    /// The handler needs client input it does not have yet (2026-07-28 only; raised by
    /// [`RequestContext::input`](super::RequestContext::input)): the runtime answers with an `InputRequiredResult`.
    InputRequired(Box<InputPending>),
    /// The handler started a task ([`RequestContext::run_as_task`](super::RequestContext::run_as_task), tasks extension at
    /// 2026-07-28): the runtime answers with its `CreateTaskResult`.
    TaskCreated(Box<TaskInfo>),
}

impl HandlerError {
    /// A JSON-RPC error.
    pub fn rpc(code: i64, message: impl Into<String>) -> Self {
        Self::Rpc(ErrorData::new(code, message))
    }

    /// `-32602` invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::rpc(codes::INVALID_PARAMS, message)
    }

    /// `-32603` internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::rpc(codes::INTERNAL_ERROR, message)
    }

    /// `-32601` method not found.
    pub fn method_not_found(method: &str) -> Self {
        Self::rpc(
            codes::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// An unknown resource: `-32602` with `data.uri` in the stateless era (2026-07-28), `-32002`
    /// in the handshake era.
    pub fn resource_not_found(revision: ProtocolVersion, uri: &str) -> Self {
        let code = if revision.era() == Era::Stateless {
            codes::INVALID_PARAMS
        } else {
            codes::RESOURCE_NOT_FOUND
        };
        Self::Rpc(ErrorData::new(code, "Resource not found").with_data(json!({ "uri": uri })))
    }

    /// `-32021`: the client did not declare a capability the request needs
    /// (`data.requiredCapabilities` is a `ClientCapabilities` object).
    pub fn missing_capability(required: Value) -> Self {
        Self::Rpc(
            ErrorData::new(
                codes::MISSING_CLIENT_CAPABILITY,
                "Missing required client capability",
            )
            .with_data(json!({ "requiredCapabilities": required })),
        )
    }
}

impl From<ErrorData> for HandlerError {
    fn from(e: ErrorData) -> Self {
        Self::Rpc(e)
    }
}

/// Each error of the library a handler may meet becomes the JSON-RPC error it maps to, so `?`
/// hands it to the client as such: the error's own code (bad arguments read with
/// [`CallToolRequestParams::arguments_as`] are `-32602`; a schema or output that does not fit
/// is `-32603`), its message, and `data.pointer`, the JSON Pointer of the fault, where the
/// error has one.
macro_rules! answered_as_error_data {
    ($($(#[$attr:meta])* $error:ty),* $(,)?) => {$(
        $(#[$attr])*
        impl From<$error> for HandlerError {
            fn from(e: $error) -> Self {
                Self::Rpc(ErrorData::from(e))
            }
        }
    )*};
}

answered_as_error_data!(
    mcp_wire::model::ModelError,
    mcp_wire::wire::ParseError,
    mcp_wire::wire::EmitError,
    mcp_wire::wire::FrameError,
    mcp_wire::session::SessionError,
    mcp_wire::convert::ConvertError,
    #[cfg(feature = "schemars")]
    mcp_wire::tool::ToolSchemaError,
);

/// A transport failure (a handler that forwards to another server): its JSON-RPC code where
/// it has one, else `-32603`.
impl From<crate::TransportError> for HandlerError {
    fn from(e: crate::TransportError) -> Self {
        let code = e.jsonrpc_code().unwrap_or(codes::INTERNAL_ERROR);
        Self::rpc(code, e.to_string())
    }
}

/// The input requests a handler is waiting for (keys as the handler named them), and the
/// answers gathered in earlier rounds, which go into the signed `requestState`.
#[derive(Debug, Clone, Default)]
pub struct InputPending {
    /// The requests still unanswered.
    pub requests: IndexMap<String, InputRequest>,
    /// The answers gathered so far.
    pub(crate) gathered: IndexMap<String, Value>,
}

/// What a handler's result is for a method that may need client input.
pub type HandlerResult<T> = Result<T, HandlerError>;

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "schemars")]
    use mcp_wire::model::Tool;
    use mcp_wire::model::{
        CallToolRequestParams, ClientNotification, ClientRequest, InputRequiredResult,
    };
    use mcp_wire::wire::{parse_as, parse_frame, serialize_for};

    /// The error `?` makes of `result`'s error in a handler.
    fn answered<T, E>(result: Result<T, E>) -> ErrorData
    where
        HandlerError: From<E>,
    {
        let handler = || -> HandlerResult<T> { Ok(result?) };
        match handler() {
            Err(HandlerError::Rpc(e)) => e,
            Err(other) => panic!("not an error answer: {other:?}"),
            Ok(_) => panic!("no error"),
        }
    }

    fn pointer(e: &ErrorData) -> &str {
        e.data
            .as_ref()
            .and_then(|d| d["pointer"].as_str())
            .unwrap_or_else(|| panic!("no data.pointer: {e:?}"))
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct AddArgs {
        a: i64,
        b: i64,
    }

    #[test]
    fn bad_tool_arguments_are_invalid_params_at_their_pointer() {
        let params: CallToolRequestParams =
            serde_json::from_value(json!({"name": "add", "arguments": {"a": 1, "b": "two"}}))
                .unwrap();
        let e = answered(params.arguments_as::<AddArgs>());
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert_eq!(pointer(&e), "/arguments/b");
        assert!(e.message.contains("expected i64"), "{}", e.message);
    }

    #[test]
    fn boundary_errors_keep_their_codes_and_pointers() {
        // A request whose params do not fit the revision's type.
        let parse = parse_as::<ClientRequest>(
            r#"{"method": "tools/call", "params": {"name": 7}}"#,
            ProtocolVersion::V2025_06_18,
        );
        let e = answered(parse);
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert_eq!(pointer(&e), "/params/name");
        // A result the revision cannot carry is our own failure.
        let emit = serialize_for(&InputRequiredResult::new(), ProtocolVersion::V2025_11_25);
        let e = answered(emit);
        assert_eq!(e.code, codes::INTERNAL_ERROR);
        assert_eq!(pointer(&e), "");
        // A frame that is not JSON.
        let frame = parse_frame::<ClientRequest, ClientNotification>(
            "{not json",
            ProtocolVersion::V2025_06_18,
        );
        assert_eq!(answered(frame).code, codes::PARSE_ERROR);
        // An unknown revision named by the peer.
        let session: Result<(), _> = Err(mcp_wire::session::SessionError::UnknownRevision {
            found: "1999-01-01".to_owned(),
        });
        assert_eq!(answered(session).code, codes::UNSUPPORTED_PROTOCOL_VERSION);
    }

    #[test]
    fn transport_errors_keep_their_code_or_are_internal() {
        let timeout: Result<(), _> = Err(crate::TransportError::Timeout(
            std::time::Duration::from_secs(1),
        ));
        assert_eq!(answered(timeout).code, codes::INTERNAL_ERROR);
        let protocol: Result<(), _> = Err(crate::TransportError::protocol(
            codes::METHOD_NOT_FOUND,
            "no such method",
        ));
        let e = answered(protocol);
        assert_eq!(e.code, codes::METHOD_NOT_FOUND);
        assert!(e.message.contains("no such method"), "{}", e.message);
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schema_errors_are_internal_errors_at_their_pointer() {
        use mcp_wire::tool::{OutputCheck, object_schema};
        let e = answered(object_schema::<i64>());
        assert_eq!(e.code, codes::INTERNAL_ERROR);
        assert_eq!(pointer(&e), "/type");
        // An output that does not satisfy the tool's outputSchema.
        let tool = Tool::new("add", Tool::empty_input_schema()).with_output_schema(
            json!({"type": "object", "properties": {"sum": {"type": "integer"}}})
                .as_object()
                .unwrap()
                .clone(),
        );
        let check = OutputCheck::for_tool(&tool).unwrap();
        let e = answered(check.result(&json!({"sum": "five"})));
        assert_eq!(e.code, codes::INTERNAL_ERROR);
        assert_eq!(pointer(&e), "/sum");
    }
}
