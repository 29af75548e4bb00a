//! The superset model: every MCP construct once, with the fields of every revision.
//!
//! # Design
//!
//! - **One type per construct, spec names 1:1.** `CallToolResult`, `ContentBlock`,
//!   `ElicitRequestURLParams`… Each struct carries the union of the fields of every revision
//!   (2024-11-05 … 2026-07-28). Whether a field exists at a given revision is the wire boundary's
//!   business (`crate::wire`), not this layer's.
//! - **Option policy.** A field is `Option<T>` (absent when `None`, never `null`) when any revision
//!   that defines the type lacks it or does not require it; it is required only when every
//!   revision that defines the type requires it. Boundary-injected 2026-07-28 fields (`resultType`,
//!   `ttlMs`, `cacheScope`, `_meta`) are always optional here. A parsed value re-serializes to the
//!   same JSON (compared as `serde_json::Value`), except that an explicit `null` for an optional
//!   typed field reads as absent (optional any-JSON fields such as `structuredContent` and
//!   `error.data` keep a present `null`).
//! - **Tags.** Discriminators are never stored strings. Requests and notifications are enums tagged
//!   on `method` ([`ClientRequest`], [`ServerRequest`], [`ClientNotification`],
//!   [`ServerNotification`]); content blocks and references on `type`; elicitation params on
//!   `mode` (absent = form). Each member struct holds its tag as a zero-sized constant (e.g.
//!   [`TextType`]), written on emit and checked on read, so a member also round-trips on its own.
//!   An unknown tag is [`ModelErrorKind::UnknownTag`], naming the tag and its JSON path.
//!   Unions without a tag are chosen by their keys: [`ResourceContents`] (`blob`),
//!   [`SamplingContent`] (array or not), [`InputResponse`], [`PrimitiveSchemaDefinition`].
//! - **Open vs closed.** Open objects keep unknown keys: `_meta` ([`Meta`]), capabilities (every
//!   capability object has an `extra` map, plus `experimental`/`extensions`), tool
//!   `inputSchema`/`outputSchema`, the elicitation form schemas ([`ElicitRequestedSchema`] and
//!   the primitive schemas: JSON Schema objects, and real peers add keywords such as `title`),
//!   [`SubscriptionFilter`], [`GetTaskPayloadResult`], and
//!   free-form values (`arguments`, `structuredContent`, `metadata`, `data`). Every other object
//!   is closed: unknown keys are ignored on read (and so not re-emitted).
//! - **Numbers.** Schema `number` fields (`priority`, `progress`, `temperature`, …) are
//!   `serde_json::Number`, so `1` stays `1` and `0.5` stays `0.5`; schema `integer` fields are
//!   `i64`/`u64`.
//! - **Results by method.** Results carry no tag. In a session the originating request's method
//!   is known: [`ServerResult::from_method`]`("tools/call", value)` parses exactly a
//!   `CallToolResult` (or an `InputRequiredResult` when `resultType` is `input_required`).
//!   The plain `Deserialize` of [`ServerResult`]/[`ClientResult`] guesses by keys, leniently.
//! - **Method map.** [`Request`]/[`Notification`] tie each body type to its method, params and
//!   result ([`METHODS`] is the same as data).
//! - **Building values.** Structs are `#[non_exhaustive]`; use `T::new(required…)` and the
//!   `with_*` setters: `Tool::new("add", Tool::empty_input_schema()).with_title("Add")`,
//!   `CallToolResult::text("5")`, `ContentBlock::from("hi")`.
//! - **Errors.** [`from_value`] parses any model type and reports a [`ModelError`] with the
//!   JSON Pointer of the fault (`/params/messages/0/content`, the crate's one path type
//!   [`JsonPath`](crate::JsonPath)) and the JSON-RPC code it maps to.
//!
//! ```
//! use mcp_wire::jsonrpc::{JsonRpcMessage, RawMessage};
//! use mcp_wire::model::{CallToolResult, ClientRequest, ContentBlock, ModelErrorKind, ServerResult, Tool};
//!
//! let frame = RawMessage::from_json(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
//! )?;
//! let JsonRpcMessage::Request(raw) = frame else { unreachable!() };
//! let typed = raw.parse_as::<ClientRequest>()?;
//! assert!(matches!(typed.request, ClientRequest::CallTool(_)));
//!
//! // The response is typed by the method of the request it answers.
//! let result = ServerResult::from_method(typed.request.method(), serde_json::json!({"content": []}))?;
//! assert!(matches!(result, ServerResult::CallTool(_)));
//!
//! // Building values.
//! let built = CallToolResult::new(vec![ContentBlock::from("5")]).with_is_error(false);
//! assert_eq!(serde_json::to_value(&built)?["content"][0]["text"], "5");
//! let tool = Tool::new("add", Tool::empty_input_schema()).with_title("Add two numbers");
//! assert_eq!(tool.title.as_deref(), Some("Add two numbers"));
//!
//! // Unknown tags are typed errors with a path.
//! let err = mcp_wire::model::from_value::<CallToolResult>(
//!     serde_json::json!({"content": [{"type": "hologram"}]}),
//! ).unwrap_err();
//! assert_eq!(err.path.pointer(), "/content/0");
//! assert!(matches!(err.kind, ModelErrorKind::UnknownTag { .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[macro_use]
mod macros;

pub mod describe;

mod capabilities;
mod common;
mod completion;
mod content;
mod elicitation;
mod input;
mod lifecycle;
mod logging;
mod messages;
pub mod meta;
pub mod methods;
pub mod naming;
mod prompts;
mod resources;
mod results;
mod roots;
mod sampling;
mod subscriptions;
mod tasks;
mod tasks_ext;
mod tools;

pub use crate::de::error::{ModelError, ModelErrorKind, codes};
pub use crate::de::{from_value, from_value_ref};
pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use input::*;
pub use lifecycle::*;
pub use logging::*;
pub use messages::*;
pub use meta::{Meta, ParamsMeta, RequestMeta};
pub use methods::{
    METHODS, MethodInfo, MethodKind, Notification, Request, Sender, is_defined_at, method_info,
    revisions_defining,
};
pub use prompts::*;
pub use resources::*;
pub use results::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tasks_ext::*;
pub use tools::*;

#[cfg(test)]
mod tests;
