//! Multi round-trip requests (2026-07-28): `InputRequiredResult`, embedded input requests and their responses, `resultType` and cache hints.

use crate::model::describe::Describe;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{
    CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, ListRootsRequest,
    ListRootsResult, Meta,
};

open_enum! {
    /// `resultType` (2026-07-28): whether a result is final or asks for input first. Open: any
    /// other string is kept (the boundary decides whether a revision accepts it).
    pub enum ResultType {
        /// `complete`: the final result.
        Complete = "complete",
        /// `input_required`: an `InputRequiredResult`.
        InputRequired = "input_required",
        /// `task`: a `CreateTaskResult` of the tasks extension (SEP-2663).
        Task = "task",
    }
}

/// Who may reuse a cacheable result (2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum CacheScope {
    /// Any client.
    Public,
    /// Only the requesting client.
    Private,
}

tagged_union! {
    /// A server-to-client request embedded in an `InputRequiredResult`, tagged on `method`.
    pub enum InputRequest on "method" {
        /// `sampling/createMessage`
        CreateMessage(CreateMessageRequest) = "sampling/createMessage",
        /// `roots/list`
        ListRoots(ListRootsRequest) = "roots/list",
        /// `elicitation/create`
        Elicit(ElicitRequest) = "elicitation/create",
    }
}

/// The client's answer to one [`InputRequest`]. It carries no tag, so the member is chosen by
/// its keys: `roots` → roots, `action` → elicitation, otherwise a sampling result.
#[derive(Debug, Clone, PartialEq, Describe)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
}

impl InputResponse {
    /// Whether this is the kind of answer `request` asks for (an answer carries no method: its
    /// member says which request it can answer).
    pub fn answers(&self, request: &InputRequest) -> bool {
        matches!(
            (request, self),
            (InputRequest::CreateMessage(_), Self::CreateMessage(_))
                | (InputRequest::ListRoots(_), Self::ListRoots(_))
                | (InputRequest::Elicit(_), Self::Elicit(_))
        )
    }
}

impl Serialize for InputResponse {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::CreateMessage(v) => v.serialize(s),
            Self::ListRoots(v) => v.serialize(s),
            Self::Elicit(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::de::deserialize_by_keys(
            d,
            |entries| {
                if entries.has("roots") {
                    entries.parse().map(Self::ListRoots)
                } else if entries.has("action") {
                    entries.parse().map(Self::Elicit)
                } else {
                    entries.parse().map(Self::CreateMessage)
                }
            },
            |value| {
                crate::de::strict::from_value::<CreateMessageResult>(&value)
                    .map(Self::CreateMessage)
                    .map_err(|e| e.to_string())
            },
        )
    }
}

impl From<CreateMessageResult> for InputResponse {
    fn from(v: CreateMessageResult) -> Self {
        Self::CreateMessage(v)
    }
}

impl From<ListRootsResult> for InputResponse {
    fn from(v: ListRootsResult) -> Self {
        Self::ListRoots(v)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(v: ElicitResult) -> Self {
        Self::Elicit(v)
    }
}

/// Input requests by key, in order.
pub type InputRequests = IndexMap<String, InputRequest>;

/// Input responses by the key of the request they answer, in order.
pub type InputResponses = IndexMap<String, InputResponse>;

/// A 2026-07-28 result asking the client for input before the request can finish.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// What the server needs, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `resultType` (2026-07-28): `complete` or `input_required`; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            input_requests: None,
            request_state: None,
            result_type: None,
            meta: None,
        }
    }

    /// Sets `inputRequests`.
    pub fn with_input_requests(mut self, value: InputRequests) -> Self {
        self.input_requests = Some(value);
        self
    }

    /// Sets `requestState`.
    pub fn with_request_state(mut self, value: impl Into<String>) -> Self {
        self.request_state = Some(value.into());
        self
    }

    /// Sets `resultType`.
    pub fn with_result_type(mut self, value: ResultType) -> Self {
        self.result_type = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// The members a 2026-07-28 retry of an input-required request carries, borrowed from the
/// request ([`super::ClientRequest::retry_members_mut`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryMembers<'a> {
    /// `inputResponses`: the answers to the earlier round's input requests.
    pub input_responses: &'a mut Option<InputResponses>,
    /// `requestState`: the opaque state echoed from the earlier round.
    pub request_state: &'a mut Option<String>,
}

impl super::ClientRequest {
    /// The retry members of a request that can be answered with an `InputRequiredResult`
    /// (`tools/call`, `prompts/get`, `resources/read`); `None` for any other request.
    pub fn retry_members_mut(&mut self) -> Option<RetryMembers<'_>> {
        let (input_responses, request_state) = match self {
            Self::CallTool(r) => (&mut r.params.input_responses, &mut r.params.request_state),
            Self::GetPrompt(r) => (&mut r.params.input_responses, &mut r.params.request_state),
            Self::ReadResource(r) => (&mut r.params.input_responses, &mut r.params.request_state),
            _ => return None,
        };
        Some(RetryMembers {
            input_responses,
            request_state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_answers_only_the_request_of_its_kind() {
        let ask_roots: InputRequest =
            serde_json::from_value(serde_json::json!({"method": "roots/list"})).unwrap();
        let ask_elicit: InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}
        }))
        .unwrap();
        let roots: InputResponse =
            serde_json::from_value(serde_json::json!({"roots": []})).unwrap();
        let elicit: InputResponse =
            serde_json::from_value(serde_json::json!({"action": "decline"})).unwrap();
        assert!(roots.answers(&ask_roots));
        assert!(!roots.answers(&ask_elicit));
        assert!(elicit.answers(&ask_elicit));
        assert!(!elicit.answers(&ask_roots));
    }
}
