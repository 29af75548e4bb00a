//! The ledger: every decision the boundary takes about a field or a type at a revision, as data.
//!
//! - [`LEDGER`]: one row per `(owner type, field)` that some revision does not define (or defines
//!   with a different requirement). A row's `revisions` are where its `action` applies; at every
//!   other revision the field is the revision's own and is emitted as is.
//! - [`TYPES`]: where a type exists, as a message body and as a member of a union inside a body.
//! - [`MEMBERS`]: union members some revision of their union lacks, where the type row alone
//!   does not decide (members serde writes as maps, members a revision spells differently or
//!   can carry in an older form).
//! - [`RESULTS_2026`], [`RESERVED_META`], [`SHAPING_2026`]: the 2026-07-28 shaping rules.
//! - [`EXTENSION_TYPES`], [`EXTENSION_METHODS`]: what an extension outside the pinned schemas
//!   adds to a revision (the `io.modelcontextprotocol/tasks` extension, SEP-2663, at
//!   2026-07-28: `tasks/get`, `tasks/update`, `tasks/cancel`, `notifications/tasks`, the flat
//!   `CreateTaskResult` with `resultType: "task"`). Their [`TYPES`] rows carry the extension's
//!   revisions so the emitter writes them; the parser admits their methods there; the
//!   schema-derived table checks leave them out. The 2025-11-25 core tasks keep their rows.
//!
//! Owners are spec definition names (`CallToolRequestParams`, `ClientCapabilities`); a row never
//! applies to a key of the same name under another owner.

use foldhash::HashMap;
use std::fmt;
use std::sync::OnceLock;

use super::revs::Revisions;
use crate::ProtocolVersion::{self, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25};
use crate::model::meta::keys;

/// What the emitter does with a field at the revisions of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Protocol machinery the peer must not see: the key and its subtree are left out, and the
    /// emission report lists the path.
    Strip,
    /// The revision cannot carry the meaning: emission fails (when the condition holds).
    Refuse(RefuseWhen),
    /// Descriptive: the revision does not define the field, peers ignore unknown keys, so the value
    /// is written verbatim (the subtree is not shaped further) and the report lists it as passed.
    Pass,
}

/// When a [`Action::Refuse`] row fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefuseWhen {
    /// The field is present.
    Present,
    /// The field is absent (the revision requires it).
    Absent,
    /// The field's value is an array.
    Array,
    /// The field is an object (elicitation answers) with a value other than a string, a number
    /// or a boolean; `null` values are stripped (an absent answer means the same). Any number:
    /// `schema.ts` types the answers `number` (the pinned `schema.json` renders `integer`, a
    /// mistake `mcp_wire_schemas::UPSTREAM_FIXES` corrects).
    NotPrimitiveValue,
    /// As [`RefuseWhen::NotPrimitiveValue`], but arrays of strings are allowed too.
    NotPrimitiveOrStringsValue,
    /// The field's value is not a JSON object.
    NotObject,
    /// The field's value is not a JSON Schema object whose root `type` is `"object"`.
    NotObjectSchema,
}

/// What a [`RefuseWhen::NotPrimitiveValue`] / [`RefuseWhen::NotPrimitiveOrStringsValue`] row
/// makes of one elicitation answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerVerdict {
    /// Written as it is.
    Keep,
    /// Left out (`null`: an absent answer means the same).
    Strip,
    /// Refused.
    Refuse,
}

impl RefuseWhen {
    /// The verdict of an answers row (`self`) on one answer `value` (any other row keeps it).
    pub fn answer(self, value: &serde_json::Value) -> AnswerVerdict {
        use serde_json::Value;
        let strings_ok = match self {
            RefuseWhen::NotPrimitiveValue => false,
            RefuseWhen::NotPrimitiveOrStringsValue => true,
            _ => return AnswerVerdict::Keep,
        };
        match value {
            Value::Null => AnswerVerdict::Strip,
            Value::String(_) | Value::Bool(_) | Value::Number(_) => AnswerVerdict::Keep,
            Value::Array(items) if strings_ok && items.iter().all(Value::is_string) => {
                AnswerVerdict::Keep
            }
            Value::Array(_) | Value::Object(_) => AnswerVerdict::Refuse,
        }
    }
}

/// One ledger row: what happens to `owner.field` at `revisions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedgerRow {
    /// The spec definition that owns the field, e.g. `"CallToolRequestParams"`.
    pub owner: &'static str,
    /// The wire name of the field, e.g. `"task"`.
    pub field: &'static str,
    /// The revisions where `action` applies.
    pub revisions: Revisions,
    /// What happens there.
    pub action: Action,
    /// Why, in a few words.
    pub reason: &'static str,
}

impl fmt::Display for LedgerRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            Action::Strip => "strip",
            Action::Pass => "pass",
            Action::Refuse(RefuseWhen::Present) => "refuse if present",
            Action::Refuse(RefuseWhen::Absent) => "refuse if absent",
            Action::Refuse(RefuseWhen::Array) => "refuse if an array",
            Action::Refuse(RefuseWhen::NotPrimitiveValue) => {
                "refuse unless values are strings, numbers or booleans"
            }
            Action::Refuse(RefuseWhen::NotPrimitiveOrStringsValue) => {
                "refuse unless values are strings, numbers, booleans or string arrays"
            }
            Action::Refuse(RefuseWhen::NotObject) => "refuse unless an object",
            Action::Refuse(RefuseWhen::NotObjectSchema) => {
                "refuse unless a schema of type \"object\""
            }
        };
        write!(
            f,
            "{}.{} at {}: {} ({})",
            self.owner, self.field, self.revisions, action, self.reason
        )
    }
}

/// Where a type exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeRow {
    /// The spec definition name (or the superset name where it has none, see `note`).
    pub name: &'static str,
    /// Revisions where it may be emitted as a whole message body.
    pub body: Revisions,
    /// Revisions where it may appear inside a body (as a union member or embedded payload).
    pub nested: Revisions,
    /// Why it is limited, in a few words.
    pub reason: &'static str,
}

impl fmt::Display for TypeRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: body at {}, nested at {} ({})",
            self.name, self.body, self.nested, self.reason
        )
    }
}

/// A 2026-07-28 shaping rule (injections and checks that are not about one field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShapingRule {
    /// Short identifier, e.g. `"S1"`.
    pub id: &'static str,
    /// What the rule does.
    pub text: &'static str,
}

impl fmt::Display for ShapingRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.id, self.text)
    }
}

/// The table row behind a strip, an injection or a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// A field row of [`LEDGER`].
    Ledger(&'static LedgerRow),
    /// A type row of [`TYPES`].
    Type(&'static TypeRow),
    /// A 2026-07-28 shaping rule of [`SHAPING_2026`].
    Shaping(&'static ShapingRule),
    /// A union member row of [`MEMBERS`].
    Member(&'static MemberRow),
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Ledger(r) => write!(f, "ledger row {r}"),
            Cause::Type(r) => write!(f, "type row {r}"),
            Cause::Shaping(r) => write!(f, "shaping rule {r}"),
            Cause::Member(r) => write!(f, "member row {r}"),
        }
    }
}

// The sets of revisions the rows name. Each name reads as its set: `ONLY_x`, `UP_TO_x` (from the
// oldest revision to x), `SINCE_x` (x and newer), `FROM_x_TO_y`, `ALL_BUT_x`, the two eras
// (`HANDSHAKE_ERA`, `STATELESS_ERA`, see `Era`), unions joined by `_AND_`.
const ONLY_2024_11_05: Revisions = Revisions::only(V2024_11_05);
const UP_TO_2025_03_26: Revisions = Revisions::range(V2024_11_05, V2025_03_26);
const UP_TO_2025_06_18: Revisions = Revisions::range(V2024_11_05, V2025_06_18);
const HANDSHAKE_ERA: Revisions = Revisions::HANDSHAKE;
const ALL_BUT_2025_11_25: Revisions = Revisions::except(V2025_11_25);
const ONLY_2025_06_18: Revisions = Revisions::only(V2025_06_18);
const FROM_2025_06_18_TO_2025_11_25: Revisions = Revisions::range(V2025_06_18, V2025_11_25);
const STATELESS_ERA: Revisions = Revisions::STATELESS;
const EVERY_REVISION: Revisions = Revisions::ALL;
const UP_TO_2025_06_18_AND_STATELESS: Revisions = UP_TO_2025_06_18.or(STATELESS_ERA);

#[rustfmt::skip]
const fn row(owner: &'static str, field: &'static str, revisions: Revisions, action: Action, reason: &'static str) -> LedgerRow {
    LedgerRow { owner, field, revisions, action, reason }
}

use Action::{Pass, Refuse, Strip};

const RT: &str = "resultType is 2026-07-28 result machinery";
const RT_NOT_RESULT: &str =
    "not a Result at any revision that has it standalone; resultType never applies";
const CACHE: &str = "cache hints exist only at 2026-07-28";
const EXT: &str = "extension entries at handshake revisions pass there: the schemas leave \
                   capabilities open, and some extensions (server variants) exist only there";
const TASKS: &str = "tasks exist only at 2025-11-25";
const MRTR: &str = "multi round-trip retry fields exist only at 2026-07-28";
const META: &str = "_meta is descriptive metadata; peers ignore it";
const META_PARAMS: &str =
    "params _meta (progress token, metadata) is descriptive; the base Request declares it";
const TITLE: &str = "display title; descriptive";
const ICONS: &str = "icons; descriptive";

/// The field ledger. Sorted by owner, then field (a test checks it).
#[rustfmt::skip]
pub static LEDGER: &[LedgerRow] = &[
    row("Annotations", "lastModified", UP_TO_2025_03_26, Pass, "descriptive timestamp"),
    row("AudioContent", "_meta", UP_TO_2025_03_26, Pass, META),
    row("BlobResourceContents", "_meta", UP_TO_2025_03_26, Pass, META),
    row("CallToolRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("CallToolRequestParams", "inputResponses", HANDSHAKE_ERA, Strip, MRTR),
    row("CallToolRequestParams", "requestState", HANDSHAKE_ERA, Strip, MRTR),
    row("CallToolRequestParams", "task", ALL_BUT_2025_11_25, Strip, TASKS),
    row("CallToolResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("CallToolResult", "structuredContent", UP_TO_2025_03_26, Pass, "structured output; the text content carries the meaning"),
    row("CallToolResult", "structuredContent", FROM_2025_06_18_TO_2025_11_25, Refuse(RefuseWhen::NotObject), "structured output must be an object before 2026-07-28"),
    row("CancelTaskResult", "resultType", EVERY_REVISION, Strip, RT),
    row("CancelledNotificationParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("CancelledNotificationParams", "requestId", UP_TO_2025_06_18_AND_STATELESS, Refuse(RefuseWhen::Absent), "requestId is required at this revision"),
    row("ClientCapabilities", "elicitation", UP_TO_2025_03_26, Pass, "advertises a feature the peer does not know; ignored"),
    row("ClientCapabilities", "extensions", HANDSHAKE_ERA, Pass, EXT),
    row("ClientCapabilities", "tasks", ALL_BUT_2025_11_25, Strip, TASKS),
    row("CompleteRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("CompleteRequestParams", "context", UP_TO_2025_03_26, Pass, "completion context; a hint the peer may ignore"),
    row("CompleteResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("CreateMessageRequestParams", "_meta", UP_TO_2025_06_18_AND_STATELESS, Pass, META_PARAMS),
    row("CreateMessageRequestParams", "task", ALL_BUT_2025_11_25, Strip, TASKS),
    row("CreateMessageRequestParams", "toolChoice", UP_TO_2025_06_18, Pass, "tool choice without tools support is ignored"),
    row("CreateMessageRequestParams", "tools", UP_TO_2025_06_18, Pass, "tool offer; an older client samples without tools"),
    row("CreateMessageResult", "content", UP_TO_2025_06_18, Refuse(RefuseWhen::Array), "multi-block sampling content needs 2025-11-25"),
    row("CreateMessageResult", "resultType", EVERY_REVISION, Strip, RT_NOT_RESULT),
    row("CreateTaskResult", "resultType", EVERY_REVISION, Strip, RT),
    row("ElicitRequestFormParams", "_meta", STATELESS_ERA, Pass, META),
    row("ElicitRequestFormParams", "mode", ONLY_2025_06_18, Pass, "mode \"form\" is the only mode there"),
    row("ElicitRequestFormParams", "task", ALL_BUT_2025_11_25, Strip, TASKS),
    row("ElicitRequestURLParams", "_meta", STATELESS_ERA, Pass, META),
    row("ElicitRequestURLParams", "elicitationId", STATELESS_ERA, Strip, "the completion notification it correlates is gone at 2026-07-28"),
    row("ElicitRequestURLParams", "task", ALL_BUT_2025_11_25, Strip, TASKS),
    row("ElicitResult", "_meta", STATELESS_ERA, Pass, META),
    row("ElicitResult", "content", ONLY_2025_06_18, Refuse(RefuseWhen::NotPrimitiveValue), "answers are strings, numbers or booleans (multi-select needs 2025-11-25)"),
    row("ElicitResult", "content", SINCE_2025_11_25, Refuse(RefuseWhen::NotPrimitiveOrStringsValue), "answers are strings, numbers, booleans or string arrays"),
    row("ElicitResult", "resultType", EVERY_REVISION, Strip, RT_NOT_RESULT),
    row("EmbeddedResource", "_meta", UP_TO_2025_03_26, Pass, META),
    row("EmptyResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("GetPromptRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("GetPromptRequestParams", "inputResponses", HANDSHAKE_ERA, Strip, MRTR),
    row("GetPromptRequestParams", "requestState", HANDSHAKE_ERA, Strip, MRTR),
    row("GetPromptResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("GetTaskPayloadResult", "resultType", EVERY_REVISION, Strip, RT),
    row("GetTaskResult", "resultType", EVERY_REVISION, Strip, RT),
    row("ImageContent", "_meta", UP_TO_2025_03_26, Pass, META),
    row("Implementation", "description", UP_TO_2025_06_18, Pass, "descriptive"),
    row("Implementation", "icons", UP_TO_2025_06_18, Pass, ICONS),
    row("Implementation", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("Implementation", "websiteUrl", UP_TO_2025_06_18, Pass, "descriptive"),
    row("InitializeRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("InitializeResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("LegacyTitledEnumSchema", "default", ONLY_2025_06_18, Pass, "a form default; descriptive (2025-06-18 writes this member as its EnumSchema)"),
    row("ListPromptsResult", "cacheScope", HANDSHAKE_ERA, Strip, CACHE),
    row("ListPromptsResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ListPromptsResult", "ttlMs", HANDSHAKE_ERA, Strip, CACHE),
    row("ListResourceTemplatesResult", "cacheScope", HANDSHAKE_ERA, Strip, CACHE),
    row("ListResourceTemplatesResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ListResourceTemplatesResult", "ttlMs", HANDSHAKE_ERA, Strip, CACHE),
    row("ListResourcesResult", "cacheScope", HANDSHAKE_ERA, Strip, CACHE),
    row("ListResourcesResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ListResourcesResult", "ttlMs", HANDSHAKE_ERA, Strip, CACHE),
    row("ListRootsResult", "_meta", STATELESS_ERA, Pass, META),
    row("ListRootsResult", "resultType", EVERY_REVISION, Strip, RT_NOT_RESULT),
    row("ListTasksResult", "resultType", EVERY_REVISION, Strip, RT),
    row("ListToolsResult", "cacheScope", HANDSHAKE_ERA, Strip, CACHE),
    row("ListToolsResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ListToolsResult", "ttlMs", HANDSHAKE_ERA, Strip, CACHE),
    row("LoggingMessageNotificationParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("NumberSchema", "default", ONLY_2025_06_18, Pass, "a form default; descriptive"),
    row("PaginatedRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("PaginatedResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ProgressNotificationParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("ProgressNotificationParams", "message", ONLY_2024_11_05, Pass, "progress text; descriptive"),
    row("Prompt", "_meta", UP_TO_2025_03_26, Pass, META),
    row("Prompt", "icons", UP_TO_2025_06_18, Pass, ICONS),
    row("Prompt", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("PromptArgument", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("PromptReference", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("ReadResourceRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("ReadResourceRequestParams", "inputResponses", HANDSHAKE_ERA, Strip, MRTR),
    row("ReadResourceRequestParams", "requestState", HANDSHAKE_ERA, Strip, MRTR),
    row("ReadResourceResult", "cacheScope", HANDSHAKE_ERA, Strip, CACHE),
    row("ReadResourceResult", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("ReadResourceResult", "ttlMs", HANDSHAKE_ERA, Strip, CACHE),
    row("Resource", "_meta", UP_TO_2025_03_26, Pass, META),
    row("Resource", "icons", UP_TO_2025_06_18, Pass, ICONS),
    row("Resource", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("ResourceContents", "_meta", UP_TO_2025_03_26, Pass, META),
    row("ResourceLink", "icons", ONLY_2025_06_18, Pass, ICONS),
    row("ResourceTemplate", "_meta", UP_TO_2025_03_26, Pass, META),
    row("ResourceTemplate", "icons", UP_TO_2025_06_18, Pass, ICONS),
    row("ResourceTemplate", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("ResourceUpdatedNotificationParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("Result", "resultType", HANDSHAKE_ERA, Strip, RT),
    row("Root", "_meta", UP_TO_2025_03_26, Pass, META),
    row("RootsCapability", "listChanged", STATELESS_ERA, Strip, "roots list_changed notifications are gone at 2026-07-28"),
    row("SamplingMessage", "_meta", UP_TO_2025_06_18, Pass, META),
    row("SamplingMessage", "content", UP_TO_2025_06_18, Refuse(RefuseWhen::Array), "multi-block sampling content needs 2025-11-25"),
    row("ServerCapabilities", "completions", ONLY_2024_11_05, Pass, "advertises completions; the method exists without it"),
    row("ServerCapabilities", "extensions", HANDSHAKE_ERA, Pass, EXT),
    row("ServerCapabilities", "tasks", ALL_BUT_2025_11_25, Strip, TASKS),
    row("SetLevelRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("StringSchema", "default", ONLY_2025_06_18, Pass, "a form default; descriptive"),
    row("SubscribeRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("TextContent", "_meta", UP_TO_2025_03_26, Pass, META),
    row("TextResourceContents", "_meta", UP_TO_2025_03_26, Pass, META),
    row("Tool", "_meta", UP_TO_2025_03_26, Pass, META),
    row("Tool", "annotations", ONLY_2024_11_05, Pass, "behaviour hints; descriptive"),
    row("Tool", "execution", ALL_BUT_2025_11_25, Strip, "task support hints; tasks exist only at 2025-11-25"),
    row("Tool", "icons", UP_TO_2025_06_18, Pass, ICONS),
    row("Tool", "inputSchema", EVERY_REVISION, Refuse(RefuseWhen::NotObjectSchema), "a tool's input schema has root type \"object\" at every revision"),
    row("Tool", "outputSchema", UP_TO_2025_03_26, Pass, "describes structuredContent; descriptive"),
    row("Tool", "outputSchema", FROM_2025_06_18_TO_2025_11_25, Refuse(RefuseWhen::NotObjectSchema), "an output schema has root type \"object\" before 2026-07-28"),
    row("Tool", "title", UP_TO_2025_03_26, Pass, TITLE),
    row("ToolResultContent", "structuredContent", ONLY_2025_11_25, Refuse(RefuseWhen::NotObject), "structured output must be an object at 2025-11-25"),
    row("UnsubscribeRequestParams", "_meta", UP_TO_2025_06_18, Pass, META_PARAMS),
    row("UntitledSingleSelectEnumSchema", "default", ONLY_2025_06_18, Pass, "a form default; descriptive (2025-06-18 writes this member as its EnumSchema)"),
];

#[rustfmt::skip]
const fn ty(name: &'static str, body: Revisions, nested: Revisions, reason: &'static str) -> TypeRow {
    TypeRow { name, body, nested, reason }
}

const NO_REVISION: Revisions = Revisions::NONE;
const SINCE_2025_03_26: Revisions = Revisions::since(V2025_03_26);
const SINCE_2025_06_18: Revisions = Revisions::since(V2025_06_18);
const SINCE_2025_11_25: Revisions = Revisions::since(V2025_11_25);
const ONLY_2025_11_25: Revisions = Revisions::only(V2025_11_25);

const HANDSHAKE_ONLY: &str = "handshake-era message; 2026-07-28 is stateless";
const EMBEDDED: &str =
    "server-to-client request; at 2026-07-28 only embedded in InputRequiredResult";
const EMBEDDED_RESULT: &str = "client result; at 2026-07-28 only embedded in inputResponses";
const TASK_TYPE: &str = "tasks exist only at 2025-11-25";
const TASK_TYPE_EXT: &str =
    "2025-11-25 core tasks; at 2026-07-28 the tasks extension (SEP-2663) with the same params";
const TASKS_EXT: &str =
    "the io.modelcontextprotocol/tasks extension (SEP-2663), not in the pinned schema";
/// 2025-11-25 (core tasks) and 2026-07-28 (the tasks extension).
const ONLY_2025_11_25_AND_STATELESS: Revisions = ONLY_2025_11_25.or(STATELESS_ERA);
const STATELESS: &str = "2026-07-28 message";
const CORE: &str = "defined at every revision";

/// Where each message body and union member exists. Sorted by name (a test checks it).
#[rustfmt::skip]
pub static TYPES: &[TypeRow] = &[
    ty("AudioContent", NO_REVISION, SINCE_2025_03_26, "audio content arrived in 2025-03-26"),
    ty("CallToolRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("CallToolResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("CancelTaskRequest", ONLY_2025_11_25_AND_STATELESS, ONLY_2025_11_25_AND_STATELESS, TASK_TYPE_EXT),
    ty("CancelTaskResult", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("CancelledNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("CompleteRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("CompleteResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("CreateMessageRequest", HANDSHAKE_ERA, EVERY_REVISION, EMBEDDED),
    ty("CreateMessageResult", HANDSHAKE_ERA, EVERY_REVISION, EMBEDDED_RESULT),
    ty("CreateTaskResult", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("DiscoverRequest", STATELESS_ERA, STATELESS_ERA, STATELESS),
    ty("DiscoverResult", STATELESS_ERA, STATELESS_ERA, STATELESS),
    ty("ElicitRequest", FROM_2025_06_18_TO_2025_11_25, SINCE_2025_06_18, "elicitation arrived in 2025-06-18; embedded-only at 2026-07-28"),
    ty("ElicitRequestURLParams", NO_REVISION, SINCE_2025_11_25, "URL elicitation arrived in 2025-11-25"),
    ty("ElicitResult", FROM_2025_06_18_TO_2025_11_25, SINCE_2025_06_18, "elicitation arrived in 2025-06-18; embedded-only at 2026-07-28"),
    ty("ElicitationCompleteNotification", ONLY_2025_11_25, ONLY_2025_11_25, "URL elicitation completion exists only at 2025-11-25"),
    ty("EmptyResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("GetDetailedTaskResult", STATELESS_ERA, STATELESS_ERA, TASKS_EXT),
    ty("GetPromptRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("GetPromptResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("GetTaskPayloadRequest", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("GetTaskPayloadResult", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("GetTaskRequest", ONLY_2025_11_25_AND_STATELESS, ONLY_2025_11_25_AND_STATELESS, TASK_TYPE_EXT),
    ty("GetTaskResult", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("InitializeRequest", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("InitializeResult", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("InitializedNotification", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("InputRequiredResult", STATELESS_ERA, STATELESS_ERA, "multi round-trip results exist only at 2026-07-28"),
    ty("LegacyTitledEnumSchema", NO_REVISION, SINCE_2025_11_25, "elicitation schema shape of 2025-11-25"),
    ty("ListPromptsRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListPromptsResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListResourceTemplatesRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListResourceTemplatesResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListResourcesRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListResourcesResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListRootsRequest", HANDSHAKE_ERA, EVERY_REVISION, EMBEDDED),
    ty("ListRootsResult", HANDSHAKE_ERA, EVERY_REVISION, EMBEDDED_RESULT),
    ty("ListTasksRequest", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("ListTasksResult", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("ListToolsRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ListToolsResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("LoggingMessageNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("PingRequest", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("ProgressNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("PromptListChangedNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ReadResourceRequest", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ReadResourceResult", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ResourceLink", NO_REVISION, SINCE_2025_06_18, "resource links arrived in 2025-06-18"),
    ty("ResourceListChangedNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ResourceUpdatedNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("RootsListChangedNotification", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("SetLevelRequest", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("SubscribeRequest", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("SubscriptionsAcknowledgedNotification", STATELESS_ERA, STATELESS_ERA, STATELESS),
    ty("SubscriptionsListenRequest", STATELESS_ERA, STATELESS_ERA, STATELESS),
    ty("SubscriptionsListenResult", STATELESS_ERA, STATELESS_ERA, STATELESS),
    ty("TaskCreatedResult", STATELESS_ERA, STATELESS_ERA, TASKS_EXT),
    ty("TaskStatusNotification", ONLY_2025_11_25, ONLY_2025_11_25, TASK_TYPE),
    ty("TasksNotification", STATELESS_ERA, STATELESS_ERA, TASKS_EXT),
    ty("TitledMultiSelectEnumSchema", NO_REVISION, SINCE_2025_11_25, "elicitation schema shape of 2025-11-25"),
    ty("TitledSingleSelectEnumSchema", NO_REVISION, SINCE_2025_11_25, "elicitation schema shape of 2025-11-25"),
    ty("ToolListChangedNotification", EVERY_REVISION, EVERY_REVISION, CORE),
    ty("ToolResultContent", NO_REVISION, SINCE_2025_11_25, "tool results in sampling arrived in 2025-11-25"),
    ty("ToolUseContent", NO_REVISION, SINCE_2025_11_25, "tool use in sampling arrived in 2025-11-25"),
    ty("UnsubscribeRequest", HANDSHAKE_ERA, HANDSHAKE_ERA, HANDSHAKE_ONLY),
    ty("UntitledMultiSelectEnumSchema", NO_REVISION, SINCE_2025_11_25, "elicitation schema shape of 2025-11-25"),
    ty("UntitledSingleSelectEnumSchema", NO_REVISION, SINCE_2025_11_25, "elicitation schema shape of 2025-11-25"),
    ty("UpdateTaskRequest", STATELESS_ERA, STATELESS_ERA, TASKS_EXT),
];

/// A type a protocol extension defines outside the pinned schemas, at the revisions where the
/// extension lives. Its [`TYPES`] row includes these revisions (so the emitter writes it); the
/// schema-derived checks of the tables leave these (type, revision) pairs out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionType {
    /// The type name (a row of [`TYPES`]).
    pub name: &'static str,
    /// The revisions where the extension defines it.
    pub revisions: Revisions,
    /// The extension's identifier (a `capabilities.extensions` key).
    pub extension: &'static str,
}

#[rustfmt::skip]
const fn ext(name: &'static str, revisions: Revisions) -> ExtensionType {
    ExtensionType { name, revisions, extension: crate::model::TASKS_EXTENSION_ID }
}

/// The extension types (today: the tasks extension, SEP-2663, at 2026-07-28). Sorted by name.
#[rustfmt::skip]
pub static EXTENSION_TYPES: &[ExtensionType] = &[
    ext("CancelTaskRequest", STATELESS_ERA),
    ext("GetDetailedTaskResult", STATELESS_ERA),
    ext("GetTaskRequest", STATELESS_ERA),
    ext("TaskCreatedResult", STATELESS_ERA),
    ext("TasksNotification", STATELESS_ERA),
    ext("UpdateTaskRequest", STATELESS_ERA),
];

/// Whether `name` exists at `version` only through an extension ([`EXTENSION_TYPES`]).
pub fn extension_only(name: &str, version: crate::ProtocolVersion) -> bool {
    EXTENSION_TYPES
        .iter()
        .any(|t| t.name == name && t.revisions.contains(version))
}

/// The extension methods: `(method, revisions)` — requests and notifications an extension adds
/// to a revision's method tables (the parser admits them there).
#[rustfmt::skip]
pub static EXTENSION_METHODS: &[(&str, Revisions)] = &[
    ("notifications/tasks", STATELESS_ERA),
    ("tasks/cancel", STATELESS_ERA),
    ("tasks/get", STATELESS_ERA),
    ("tasks/update", STATELESS_ERA),
];

/// Whether an extension adds `method` at `version`.
pub fn extension_method(method: &str, version: crate::ProtocolVersion) -> bool {
    EXTENSION_METHODS
        .iter()
        .any(|(m, r)| *m == method && r.contains(version))
}

/// What the emitter does with a union member at the revisions of a [`MemberRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemberAction {
    /// The revision has no form for the member: emission fails, naming the member and the
    /// revision it arrived in.
    Refuse,
    /// The revision knows the member under another definition name (the `&str`): it is written
    /// as it is.
    Same(&'static str),
    /// The revision carries the member's meaning in an older form: the member is rewritten to
    /// it and the emission report lists it as rewritten.
    Older(OlderForm),
}

/// An older spelling of a union member that a revision carries with the same meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OlderForm {
    /// A titled single-select (`oneOf` of `const` + `title`) as the legacy `enum` + parallel
    /// `enumNames` of the 2025-06-18 `EnumSchema`.
    EnumNames,
}

impl OlderForm {
    /// The spec definition the older form is an instance of, at the revisions of its row.
    pub const fn definition(self) -> &'static str {
        match self {
            OlderForm::EnumNames => "EnumSchema",
        }
    }

    /// The superset type whose rows apply to the rewritten value.
    pub(crate) const fn superset_type(self) -> &'static str {
        match self {
            OlderForm::EnumNames => "LegacyTitledEnumSchema",
        }
    }

    /// `value` (a member's JSON) in this older form, or why it has none.
    pub fn rewrite(self, value: serde_json::Value) -> Result<serde_json::Value, String> {
        use serde_json::Value;
        match self {
            OlderForm::EnumNames => {
                let Value::Object(mut map) = value else {
                    return Err("it is not an object".to_owned());
                };
                if map.contains_key("enum") || map.contains_key("enumNames") {
                    return Err("it already has enum or enumNames keys".to_owned());
                }
                let Some(at) = map.keys().position(|k| k == "oneOf") else {
                    return Err("it has no oneOf choices".to_owned());
                };
                let Some(Value::Array(options)) = map.shift_remove("oneOf") else {
                    return Err("oneOf is not an array".to_owned());
                };
                // Each choice's const and title, in place of the oneOf.
                let choice = |o: Value| match (o.get("const"), o.get("title"), o.as_object()) {
                    (Some(c @ Value::String(_)), Some(t @ Value::String(_)), Some(m))
                        if m.len() == 2 =>
                    {
                        Ok((c.clone(), t.clone()))
                    }
                    _ => Err(format!("choice {o} is not a const with a title")),
                };
                let pairs = options.into_iter().map(choice);
                let (values, titles): (Vec<_>, Vec<_>) = pairs.collect::<Result<_, _>>()?;
                map.shift_insert(at, "enum".to_owned(), Value::Array(values));
                map.shift_insert(at + 1, "enumNames".to_owned(), Value::Array(titles));
                Ok(Value::Object(map))
            }
        }
    }
}

/// One member row: what happens to `member`, written as a member of `union`, at `revisions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberRow {
    /// The spec union, e.g. `"PrimitiveSchemaDefinition"`.
    pub union: &'static str,
    /// The member's superset type (the spec name of the revision that has it).
    pub member: &'static str,
    /// Where `action` applies.
    pub revisions: Revisions,
    /// What happens there.
    pub action: MemberAction,
    /// Why, in a few words.
    pub reason: &'static str,
}

impl MemberRow {
    /// The oldest revision whose `union` lists `member`, read from the generated facts.
    pub fn arrived(&self) -> Option<crate::ProtocolVersion> {
        crate::ProtocolVersion::ALL.into_iter().find(|v| {
            crate::facts::revision(*v)
                .type_fact(self.union)
                .is_some_and(|u| {
                    u.members
                        .contains(&crate::facts::TypeRef::Named(self.member))
                })
        })
    }
}

impl fmt::Display for MemberRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {} at {}: ",
            self.member, self.union, self.revisions
        )?;
        match self.action {
            MemberAction::Refuse => f.write_str("refuse")?,
            MemberAction::Same(name) => write!(f, "written as its {name}")?,
            MemberAction::Older(form) => write!(f, "rewritten as {}", form.definition())?,
        }
        write!(f, " ({})", self.reason)
    }
}

#[rustfmt::skip]
const fn member(union: &'static str, member: &'static str, revisions: Revisions, action: MemberAction, reason: &'static str) -> MemberRow {
    MemberRow { union, member, revisions, action, reason }
}

const MULTI: &str = "multi-select answers are string arrays, which 2025-06-18 cannot carry";

/// The member ledger. Sorted by union, then member (a test checks it). Every union whose member
/// set differs between revisions is either here or decided by the members' [`TYPES`] rows (a
/// test derives the unions from the generated facts: named unions, and fields typed as one,
/// named `Owner.field`).
#[rustfmt::skip]
pub static MEMBERS: &[MemberRow] = &[
    member("CompleteRequestParams.ref", "ResourceTemplateReference", UP_TO_2025_03_26, MemberAction::Same("ResourceReference"), "the same ref/resource shape under its older name"),
    member("JSONRPCMessage", "JSONRPCError", SINCE_2025_11_25, MemberAction::Same("JSONRPCErrorResponse"), "the same error envelope under its newer name"),
    member("JSONRPCMessage", "JSONRPCResponse", SINCE_2025_11_25, MemberAction::Same("JSONRPCResultResponse"), "the same result envelope under its newer name"),
    member("PrimitiveSchemaDefinition", "LegacyTitledEnumSchema", ONLY_2025_06_18, MemberAction::Same("EnumSchema"), "2025-06-18's EnumSchema is this shape (enum with optional enumNames)"),
    member("PrimitiveSchemaDefinition", "TitledMultiSelectEnumSchema", ONLY_2025_06_18, MemberAction::Refuse, MULTI),
    member("PrimitiveSchemaDefinition", "TitledSingleSelectEnumSchema", ONLY_2025_06_18, MemberAction::Older(OlderForm::EnumNames), "the oneOf choices' consts and titles become enum and enumNames"),
    member("PrimitiveSchemaDefinition", "UntitledMultiSelectEnumSchema", ONLY_2025_06_18, MemberAction::Refuse, MULTI),
    member("PrimitiveSchemaDefinition", "UntitledSingleSelectEnumSchema", ONLY_2025_06_18, MemberAction::Same("EnumSchema"), "2025-06-18's EnumSchema without enumNames is this shape"),
];

/// The revisions at which `member` of `union` has a member row that refuses or rewrites it (the
/// emitter walks those members through their row).
pub fn member_rows_at(union: &str, member: &str) -> Revisions {
    MEMBERS
        .iter()
        .filter(|r| r.union == union && r.member == member)
        .filter(|r| !matches!(r.action, MemberAction::Same(_)))
        .fold(Revisions::NONE, |out, r| out.or(r.revisions))
}

/// The member row for `member` at `version`, if there is one (a superset member belongs to one
/// union, so the member names the row).
pub fn member_row_at(member: &str, version: crate::ProtocolVersion) -> Option<&'static MemberRow> {
    MEMBERS
        .iter()
        .find(|r| r.member == member && r.revisions.contains(version))
}

/// The 2026-07-28 shaping rules, referenced by reports and errors.
#[rustfmt::skip]
pub static SHAPING_2026: &[ShapingRule] = &[
    ShapingRule { id: "S1", text: "a result carries resultType: injected when absent (\"complete\", or \"input_required\" for InputRequiredResult); a contradicting or unknown caller value is refused" },
    ShapingRule { id: "S2", text: "a complete cacheable result carries ttlMs (default 0) and cacheScope (default \"private\"), each injected when absent; ttlMs must be >= 0, cacheScope public|private" },
    ShapingRule { id: "S3", text: "a client request carries params._meta io.modelcontextprotocol/protocolVersion (injected when absent; a caller value wins)" },
    ShapingRule { id: "S4", text: "a client request carries params._meta io.modelcontextprotocol/clientCapabilities (never synthesized: refused when absent)" },
    ShapingRule { id: "S5", text: "an InputRequiredResult carries a non-empty inputRequests or a requestState" },
    ShapingRule { id: "S6", text: "reserved _meta values have their published types (clientInfo an Implementation, logLevel a LoggingLevel, protocolVersion a string)" },
];

/// Index into [`SHAPING_2026`] by id.
pub(crate) fn shaping(id: &str) -> &'static ShapingRule {
    SHAPING_2026
        .iter()
        .find(|r| r.id == id)
        .unwrap_or(&SHAPING_2026[0])
}

/// How a result body is shaped at 2026-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultShape {
    /// The result type name.
    pub name: &'static str,
    /// The `resultType` it carries.
    pub result_type: &'static str,
    /// Whether it is one of the cacheable results (`ttlMs`/`cacheScope`).
    pub cacheable: bool,
}

#[rustfmt::skip]
const fn result(name: &'static str, result_type: &'static str, cacheable: bool) -> ResultShape {
    ResultShape { name, result_type, cacheable }
}

/// The results of 2026-07-28 (the `Result` subtypes; sampling, roots and elicitation results are
/// not among them there).
#[rustfmt::skip]
pub static RESULTS_2026: &[ResultShape] = &[
    result("CallToolResult", "complete", false),
    result("CompleteResult", "complete", false),
    result("DiscoverResult", "complete", true),
    result("EmptyResult", "complete", false),
    result("GetDetailedTaskResult", "complete", false),
    result("GetPromptResult", "complete", false),
    result("InputRequiredResult", "input_required", false),
    result("ListPromptsResult", "complete", true),
    result("ListResourceTemplatesResult", "complete", true),
    result("ListResourcesResult", "complete", true),
    result("ListToolsResult", "complete", true),
    result("ReadResourceResult", "complete", true),
    result("Result", "complete", false),
    result("SubscriptionsListenResult", "complete", false),
    result("TaskCreatedResult", "task", false),
];

/// The `resultType` values 2026-07-28 defines.
pub const RESULT_TYPES_2026: [&str; 2] = ["complete", "input_required"];

/// The client requests of 2026-07-28 (they carry the reserved `_meta` identity).
#[rustfmt::skip]
pub const CLIENT_REQUESTS_2026: [&str; 10] = [
    "completion/complete", "prompts/get", "prompts/list", "resources/list", "resources/read",
    "resources/templates/list", "server/discover", "subscriptions/listen", "tools/call", "tools/list",
];

/// A reserved `_meta` key of 2026-07-28 client requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservedMeta {
    /// The full key, e.g. `"io.modelcontextprotocol/protocolVersion"`.
    pub key: &'static str,
    /// Whether the published schema requires it.
    pub required: bool,
    /// Whether the emitter injects it when absent.
    pub injected: bool,
}

/// The reserved `_meta` keys of a 2026-07-28 client request. `clientInfo` is optional in the
/// published schema (the PR's draft required it).
#[rustfmt::skip]
pub static RESERVED_META: &[ReservedMeta] = &[
    ReservedMeta { key: keys::PROTOCOL_VERSION, required: true, injected: true },
    ReservedMeta { key: keys::CLIENT_INFO, required: false, injected: false },
    ReservedMeta { key: keys::CLIENT_CAPABILITIES, required: true, injected: false },
    ReservedMeta { key: keys::LOG_LEVEL, required: false, injected: false },
];

/// The eight logging levels.
#[rustfmt::skip]
pub const LOGGING_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// A typed edge into an open map: the value under `key` of `owner` is a `child`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The owner (a type name, or `RequestMetaObject` for a 2026-07-28 client request `_meta`).
    pub owner: &'static str,
    /// The key.
    pub key: &'static str,
    /// The type of the value.
    pub child: &'static str,
}

/// Typed edges the emitter follows where the superset holds plain JSON.
#[rustfmt::skip]
pub static EDGES: &[Edge] = &[
    Edge { owner: "ClientCapabilities", key: "roots", child: "RootsCapability" },
    Edge { owner: "RequestMetaObject", key: keys::CLIENT_CAPABILITIES, child: "ClientCapabilities" },
    Edge { owner: "RequestMetaObject", key: keys::CLIENT_INFO, child: "Implementation" },
];

/// Fields whose values are free-form JSON: never shaped, written as they are.
#[rustfmt::skip]
pub static OPAQUE: &[(&str, &str)] = &[
    ("CallToolRequestParams", "arguments"), ("CallToolResult", "structuredContent"),
    ("LoggingMessageNotificationParams", "data"), ("Tool", "inputSchema"),
    ("Tool", "outputSchema"), ("ToolUseContent", "input"),
];

/// Values by name, with a bit per `len % 64` of the names: most names asked for have no value
/// and are turned away by one test instead of a scan.
#[derive(Debug, Default)]
pub(crate) struct ByName<T> {
    entries: Vec<(&'static str, T)>,
    lengths: u64,
}

impl<T> ByName<T> {
    /// Adds `value` as the value of `name`.
    pub fn push(&mut self, name: &'static str, value: T) {
        self.lengths |= 1 << (name.len() % 64);
        self.entries.push((name, value));
    }

    /// The value of `name`, if it has one.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&T> {
        if self.lengths & (1 << (name.len() % 64)) == 0 {
            return None;
        }
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

/// Everything the emitter knows about one owner, gathered from the tables once.
#[derive(Debug, Default)]
pub(crate) struct OwnerInfo {
    pub rows: Vec<&'static LedgerRow>,
    pub ty: Option<&'static TypeRow>,
    pub result: Option<&'static ResultShape>,
    /// Typed edges by key: [`EDGES`]' first, then those read from the generated facts (a
    /// field typed as a named object definition).
    pub edges: Vec<(&'static str, &'static str)>,
    pub opaque: Vec<&'static str>,
    /// Per field with any decision: everything the emitter needs, resolved per revision.
    pub plans: ByName<FieldPlan>,
    /// Per revision (by index): a bit per row of `rows` that refuses the field's absence there.
    pub absent: [u64; ProtocolVersion::COUNT],
}

/// What the emitter does with one field of one owner, per revision (precomputed).
#[derive(Debug, Default)]
pub(crate) struct FieldPlan {
    /// The row that applies at each revision (by index), with its index in `OwnerInfo::rows`.
    pub rows: [Option<(usize, &'static LedgerRow)>; ProtocolVersion::COUNT],
    pub opaque: bool,
    pub edge: Option<&'static str>,
}

impl OwnerInfo {
    fn build_plans(&mut self) {
        let mut names: Vec<&'static str> = Vec::new();
        let all = self
            .rows
            .iter()
            .map(|r| r.field)
            .chain(self.opaque.iter().copied())
            .chain(self.edges.iter().map(|(k, _)| *k));
        for n in all {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        for name in names {
            let rows = ProtocolVersion::ALL.map(|v| {
                let mut rows = self.rows.iter().enumerate();
                let row = rows.find(|(_, r)| r.field == name && r.revisions.contains(v));
                row.map(|(i, r)| (i, *r))
            });
            let (opaque, edge) = (self.is_opaque(name), self.edge(name));
            self.plans.push(name, FieldPlan { rows, opaque, edge });
        }
        assert!(self.rows.len() <= 64, "an owner has at most 64 ledger rows");
        self.absent = ProtocolVersion::ALL.map(|v| {
            let absent = Action::Refuse(RefuseWhen::Absent);
            let rows = self.rows.iter().enumerate();
            let rows = rows.filter(|(_, r)| r.action == absent && r.revisions.contains(v));
            rows.fold(0, |mask, (i, _)| mask | 1 << i)
        });
    }

    pub fn edge(&self, key: &str) -> Option<&'static str> {
        self.edges.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
    }
    pub fn is_opaque(&self, field: &str) -> bool {
        self.opaque.contains(&field)
    }
}

/// Everything the emitter knows about the owner type `name`, if anything.
pub(crate) fn owner(name: &str) -> Option<&'static OwnerInfo> {
    static INDEX: OnceLock<HashMap<&'static str, OwnerInfo>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut m: HashMap<&'static str, OwnerInfo> = HashMap::default();
            for r in LEDGER {
                m.entry(r.owner).or_default().rows.push(r);
            }
            for t in TYPES {
                m.entry(t.name).or_default().ty = Some(t);
            }
            for r in RESULTS_2026 {
                m.entry(r.name).or_default().result = Some(r);
            }
            for e in EDGES {
                m.entry(e.owner).or_default().edges.push((e.key, e.child));
            }
            for (o, f) in OPAQUE {
                m.entry(o).or_default().opaque.push(f);
            }
            // Edges the schemas name: a field typed as an object definition. Maps (open objects,
            // `flatten`ed structs) get their owner from these when serde gives no struct name.
            for v in crate::ProtocolVersion::ALL.into_iter().rev() {
                let rev = crate::facts::revision(v);
                for t in rev.types {
                    for f in t.fields {
                        let crate::facts::TypeRef::Named(child) = f.ty else {
                            continue;
                        };
                        let is_object = rev
                            .type_fact(child)
                            .is_some_and(|c| c.kind == crate::facts::TypeKind::Object);
                        if !is_object {
                            continue;
                        }
                        let info = m.entry(t.name).or_default();
                        if info.edge(f.name).is_none() {
                            info.edges.push((f.name, child));
                        }
                    }
                }
            }
            for info in m.values_mut() {
                info.build_plans();
            }
            m
        })
        .get(name)
}

/// The first ledger row for `owner.field`, if there is one.
pub fn ledger_row(owner: &str, field: &str) -> Option<&'static LedgerRow> {
    LEDGER.iter().find(|r| r.owner == owner && r.field == field)
}

/// The type row for `name`, if there is one.
pub fn type_row(name: &str) -> Option<&'static TypeRow> {
    TYPES.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;

    /// Each pair of neighbouring rows of `rows` in order by `key`; `unique`: no two alike.
    fn sorted<T: fmt::Display, K: Ord>(rows: &[T], key: impl Fn(&T) -> K, unique: bool) {
        for w in rows.windows(2) {
            let (a, b) = (key(&w[0]), key(&w[1]));
            assert!(
                a < b || (a == b && !unique),
                "out of order at {} / {}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn tables_are_sorted_and_unique() {
        sorted(LEDGER, |r| (r.owner, r.field), false);
        sorted(TYPES, |t| t.name, true);
        sorted(MEMBERS, |r| (r.union, r.member), true);
        // Rows of one field cover disjoint revisions: one row answers each revision.
        for w in LEDGER.windows(2) {
            let (a, b) = (w[0], w[1]);
            let same = (a.owner, a.field) == (b.owner, b.field);
            assert!(
                !same || !a.revisions.contains_any(b.revisions),
                "{a} and {b} overlap"
            );
        }
        for t in TYPES {
            assert!(t.nested.contains_all(t.body), "{t}: a body is also nested");
        }
        // A member row is found by its member alone (the emitter sees member names).
        for r in MEMBERS {
            assert_eq!(
                MEMBERS.iter().filter(|o| o.member == r.member).count(),
                1,
                "{r}: one union per member"
            );
        }
    }

    #[test]
    fn one_row_answers_field_at_revision() {
        let r = ledger_row("CallToolRequestParams", "task").unwrap();
        assert_eq!(r.action, Action::Strip);
        assert!(r.revisions.contains(ProtocolVersion::V2025_06_18));
        assert!(!r.revisions.contains(ProtocolVersion::V2025_11_25));
        assert!(r.revisions.contains(ProtocolVersion::V2026_07_28));
        assert_eq!(
            r.to_string(),
            "CallToolRequestParams.task at 2024-11-05, 2025-03-26, 2025-06-18, 2026-07-28: strip (tasks exist only at 2025-11-25)"
        );
        assert!(ledger_row("ToolAnnotations", "task").is_none());
    }

    #[test]
    fn owner_index_gathers_everything() {
        let o = owner("CallToolResult").unwrap();
        assert!(o.rows.iter().any(|r| r.field == "resultType"));
        assert!(o.is_opaque("structuredContent"));
        assert_eq!(o.result.unwrap().result_type, "complete");
        assert_eq!(o.ty.unwrap().body, Revisions::ALL);
        assert_eq!(
            owner("RequestMetaObject").unwrap().edge(keys::CLIENT_INFO),
            Some("Implementation")
        );
        assert!(owner("NoSuchType").is_none());
        // Derived from the facts: InitializeResult.capabilities is a ServerCapabilities.
        assert_eq!(
            owner("InitializeResult").unwrap().edge("capabilities"),
            Some("ServerCapabilities")
        );
    }
}
