//! What the HTTP clients read from a frame without typing it: ids, method, the header values.
//!
//! A borrowed, field-skipping parse: a 20 MB `tools/call` costs a scan, not a `Value` tree.

use std::borrow::Cow;

use mcp_wire::jsonrpc::RequestId;
use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::Frame;

/// The routing facts of one JSON-RPC message.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Peek<'a> {
    #[serde(default)]
    pub id: Option<RequestId>,
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub params: Option<Params<'a>>,
    #[serde(default, borrow)]
    pub result: Option<ResultPeek<'a>>,
    #[serde(default)]
    pub error: Option<IgnoredAny>,
}

/// The `params` members the transports use.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Params<'a> {
    #[serde(default, borrow)]
    pub name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub uri: Option<Cow<'a, str>>,
    /// The tasks extension's `taskId` (`tasks/get`, `tasks/update`, `tasks/cancel`).
    #[serde(default, rename = "taskId", borrow)]
    pub task_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "requestId")]
    pub request_id: Option<RequestId>,
    #[serde(default, rename = "_meta", borrow)]
    pub meta: Option<MetaPeek<'a>>,
}

/// The reserved `_meta` key naming a 2026-07-28 request's revision.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MetaPeek<'a> {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    pub protocol_version: Option<Cow<'a, str>>,
}

/// The `result` member of an `initialize` answer.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ResultPeek<'a> {
    #[serde(default, rename = "protocolVersion", borrow)]
    pub protocol_version: Option<Cow<'a, str>>,
}

impl Peek<'_> {
    /// The id of a request (a message with both `id` and `method`).
    pub fn request_id(&self) -> Option<&RequestId> {
        self.method.as_ref().and(self.id.as_ref())
    }

    /// The id a response answers (a message with `id` and `result` or `error`, no `method`).
    pub fn response_id(&self) -> Option<&RequestId> {
        if self.method.is_none() && (self.result.is_some() || self.error.is_some()) {
            self.id.as_ref()
        } else {
            None
        }
    }
}

/// The messages of a frame: one, or the members of a batch. A frame that does not read as
/// JSON-RPC messages gives none (it is still carried; only routing facts are missing).
pub(crate) fn messages(frame: &Frame) -> Vec<Peek<'_>> {
    let text = frame.as_str();
    if text.starts_with('[') {
        serde_json::from_str::<Vec<Peek<'_>>>(text).unwrap_or_default()
    } else {
        serde_json::from_str::<Peek<'_>>(text)
            .map(|p| vec![p])
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_responses_and_batches_are_told_apart() {
        let frame = Frame::parse(
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"x":[1,{"y":2}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        )
        .unwrap();
        let peek = &messages(&frame)[0];
        assert_eq!(peek.request_id(), Some(&RequestId::String("a".into())));
        assert_eq!(peek.response_id(), None);
        let params = peek.params.as_ref().unwrap();
        assert_eq!(params.name.as_deref(), Some("echo"));
        assert_eq!(
            params.meta.as_ref().unwrap().protocol_version.as_deref(),
            Some("2026-07-28")
        );

        let batch = Frame::parse(
            r#"[{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}},{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]"#,
        )
        .unwrap();
        let peeks = messages(&batch);
        assert_eq!(peeks[0].response_id(), Some(&RequestId::Integer(1)));
        assert_eq!(
            peeks[0]
                .result
                .as_ref()
                .unwrap()
                .protocol_version
                .as_deref(),
            Some("2025-03-26")
        );
        assert_eq!(peeks[1].response_id(), Some(&RequestId::Integer(2)));
        assert_eq!(peeks[2].request_id(), None);
        assert_eq!(
            peeks[2].params.as_ref().unwrap().request_id,
            Some(RequestId::Integer(3))
        );
        assert!(messages(&Frame::parse("42").unwrap()).is_empty());
    }
}
