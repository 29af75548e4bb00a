//! The fixtures the official MCP conformance suite's server scenarios name — tools, resources,
//! prompts and completions, each written once on the runtime's [`Handler`] and served at every
//! offered revision — as a [`Handler`] of their own, [`ConformanceFixtures`]. The
//! `conformance_server` binary serves them, and the workspace's tests and benches start them
//! (the variants server's conformance test makes them its default variant). Test support, behind
//! the `conformance-fixtures` feature: not part of the API a server is built on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::server::store::Store;
use crate::server::{Change, Handler, HandlerError, HandlerResult, RequestContext};
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, Completion,
    GetPromptRequestParams, GetPromptResult, Implementation, InputRequest, InputResponse,
    LoggingLevel, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities,
    TASKS_EXTENSION_ID, TaskSupport, Tool, ToolExecution,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/// A tiny WAV (header plus two samples).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/// Typed model value from fixture JSON (the fixtures are written as the spec shows them).
fn typed<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("fixture JSON matches the model")
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    typed(json!({"content": [{"type": "text", "text": text.into()}]}))
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The tools: (name, description, input schema).
fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let string_arg = |name: &str, description: &str| json!({"type": "object", "properties": {name: {"type": "string", "description": description}}, "required": [name]});
    vec![
        ("test_simple_text", "Returns simple text", no_args()),
        ("test_image_content", "Returns an image", no_args()),
        ("test_audio_content", "Returns audio", no_args()),
        (
            "test_embedded_resource",
            "Returns an embedded resource",
            no_args(),
        ),
        (
            "test_multiple_content_types",
            "Returns text, image and a resource",
            no_args(),
        ),
        ("test_tool_with_logging", "Logs while it runs", no_args()),
        ("test_logging_tool", "Logs once", no_args()),
        ("test_error_handling", "Always fails", no_args()),
        ("test_tool_with_progress", "Reports progress", no_args()),
        (
            "test_sampling",
            "Asks the client to sample",
            string_arg("prompt", "The prompt to send"),
        ),
        (
            "test_elicitation",
            "Asks the user",
            string_arg("message", "The message to show"),
        ),
        (
            "test_elicitation_sep1034_defaults",
            "Elicitation with defaults",
            no_args(),
        ),
        (
            "test_elicitation_sep1330_enums",
            "Elicitation with enums",
            no_args(),
        ),
        (
            "test_streaming_elicitation",
            "Asks the user (input-required at 2026-07-28)",
            no_args(),
        ),
        (
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        ),
        (
            "test_reconnection",
            "Closes its SSE stream mid-call, then answers",
            no_args(),
        ),
        (
            "test_missing_capability",
            "Needs the sampling capability",
            no_args(),
        ),
        (
            "test_trigger_tool_change",
            "Changes the tool list",
            no_args(),
        ),
        (
            "test_trigger_prompt_change",
            "Changes the prompt list",
            no_args(),
        ),
        (
            "test_custom_headers",
            "Takes a header-mirrored argument",
            json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                "required": ["region"]
            }),
        ),
        (
            "test_input_required_result_elicitation",
            "Input-required: elicitation",
            no_args(),
        ),
        (
            "test_input_required_result_sampling",
            "Input-required: sampling",
            no_args(),
        ),
        (
            "test_input_required_result_list_roots",
            "Input-required: roots",
            no_args(),
        ),
        (
            "test_input_required_result_request_state",
            "Input-required with state",
            no_args(),
        ),
        (
            "test_input_required_result_multiple_inputs",
            "Input-required: three inputs",
            no_args(),
        ),
        (
            "test_input_required_result_multi_round",
            "Input-required: two rounds",
            no_args(),
        ),
        (
            "test_input_required_result_tampered_state",
            "Input-required: signed state",
            no_args(),
        ),
        (
            "test_input_required_result_capabilities",
            "Input-required: declared capabilities only",
            no_args(),
        ),
        (
            "greet",
            "Greets by name (never a task)",
            string_arg("name", "Who to greet"),
        ),
        (
            "slow_compute",
            "Sleeps `seconds`, then answers (a task when the client has the tasks extension)",
            json!({"type": "object", "properties": {
                "seconds": {"type": "number"}, "label": {"type": "string"}}}),
        ),
        (
            "failing_job",
            "Runs only as a task; ends with a tool error",
            no_args(),
        ),
        (
            "protocol_error_job",
            "A task that fails with a protocol error",
            no_args(),
        ),
        (
            "confirm_delete",
            "Runs only as a task; asks to confirm once",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
        ),
        (
            "multi_input",
            "Runs only as a task; asks two questions at once",
            no_args(),
        ),
        (
            "test_tool_with_task",
            "Asks for a name (input-required round), then answers as a task",
            no_args(),
        ),
    ]
}

/// How the tasks-extension fixtures may run (`execution.taskSupport`, listed from 2025-11-25:
/// the runtime reads it for the extension at 2026-07-28 and for core tasks at 2025-11-25; the
/// other tools never run as tasks).
const TASK_SUPPORT: [(&str, TaskSupport); 6] = [
    ("slow_compute", TaskSupport::Optional),
    ("failing_job", TaskSupport::Required),
    ("protocol_error_job", TaskSupport::Optional),
    ("confirm_delete", TaskSupport::Required),
    ("multi_input", TaskSupport::Required),
    ("test_tool_with_task", TaskSupport::Required),
];

/// The longest `slow_compute` sleeps.
const MAX_COMPUTE: Duration = Duration::from_secs(120);

/// The tasks-extension fixtures (`None` for every other tool): each runs as a task through
/// [`RequestContext::run_as_task`] when the client has the extension (2026-07-28) or asked for
/// a task (`params.task`, 2025-11-25), inline otherwise.
async fn task_fixture(
    ctx: &RequestContext,
    name: &str,
    args: &serde_json::Map<String, Value>,
) -> Option<HandlerResult<CallToolResult>> {
    let text = |s: &str| args.get(s).and_then(Value::as_str).unwrap_or("").to_owned();
    Some(match name {
        "greet" => Ok(text_result(format!("Hello, {}!", text("name")))),
        "slow_compute" => {
            let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
            let pause = Duration::try_from_secs_f64(seconds)
                .unwrap_or(Duration::ZERO)
                .min(MAX_COMPUTE);
            let label = text("label");
            ctx.run_as_task(move |_| async move {
                tokio::time::sleep(pause).await;
                Ok(text_result(format!(
                    "slow_compute({label}) done after {}s",
                    pause.as_secs_f64()
                )))
            })
            .await
        }
        "failing_job" => {
            ctx.run_as_task(|_| async {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let mut r = text_result("failing_job: the job failed");
                r.is_error = Some(true);
                Ok(r)
            })
            .await
        }
        "protocol_error_job" => {
            ctx.run_as_task(|_| async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Err(HandlerError::internal(
                    "protocol_error_job: an internal failure",
                ))
            })
            .await
        }
        "confirm_delete" => {
            let file = text("filename");
            ctx.run_as_task(move |task| async move {
                let schema = json!({"confirm": {"type": "boolean"}});
                let answer = task
                    .input(
                        "confirm",
                        elicit(&format!("Delete {file}?"), schema, &["confirm"]),
                    )
                    .await?;
                let confirmed = elicited(&answer, "confirm");
                Ok(text_result(format!(
                    "confirm_delete({file}): confirm = {confirmed}"
                )))
            })
            .await
        }
        "multi_input" => {
            ctx.run_as_task(|task| async move {
                let ask = |m: &str| elicit(m, json!({"value": {"type": "string"}}), &["value"]);
                let answers = task
                    .inputs([
                        ("input-a".to_owned(), ask("Value A?")),
                        ("input-b".to_owned(), ask("Value B?")),
                    ])
                    .await?;
                let got: Vec<String> = answers.values().map(|a| elicited(a, "value")).collect();
                Ok(text_result(format!("multi_input: {}", got.join(", "))))
            })
            .await
        }
        "test_tool_with_task" => {
            let schema = json!({"name": {"type": "string"}});
            let answer = match ctx
                .input("user_name", elicit("What is your name?", schema, &["name"]))
                .await
            {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            let user = elicited(&answer, "name");
            ctx.run_as_task(move |_| async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(text_result(format!("Hello, {user}! (async)")))
            })
            .await
        }
        _ => return None,
    })
}

fn elicit(message: &str, properties: Value, required: &[&str]) -> InputRequest {
    typed(json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties, "required": required}
        }
    }))
}

fn sample(text: &str, max_tokens: u64) -> InputRequest {
    typed(json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens
        }
    }))
}

fn roots() -> InputRequest {
    typed(json!({"method": "roots/list", "params": {}}))
}

/// The text of an elicitation or sampling answer, for echoing.
fn describe(answer: &InputResponse) -> String {
    serde_json::to_string(answer).unwrap_or_default()
}

fn elicited(answer: &InputResponse, field: &str) -> String {
    match answer {
        InputResponse::Elicit(r) => {
            let v = serde_json::to_value(r).unwrap_or(Value::Null);
            v.pointer(&format!("/content/{field}"))
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .unwrap_or_else(|| format!("(action {})", v["action"]))
        }
        other => describe(other),
    }
}

/// The suite's fixtures (a fresh set: the list-changing tools start from the initial lists).
#[derive(Debug, Default)]
pub struct ConformanceFixtures {
    extra_tool: AtomicBool,
    extra_prompt: AtomicBool,
    /// With replicas: where the list-changing tools keep their flags, so that every replica
    /// lists what one of them changed.
    shared: Option<SharedFlags>,
    /// [`ConformanceFixtures::fixed_tools`]: before 2025-11-25, and from it on.
    fixed_tools: [OnceLock<Vec<Tool>>; 2],
    /// What [`Handler::capabilities`] answers.
    capabilities: OnceLock<ServerCapabilities>,
}

/// The fixtures' flags in a shared store (what an application's handler does with its own
/// mutable state when it runs as several replicas).
struct SharedFlags(Arc<dyn Store>);

impl std::fmt::Debug for SharedFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedFlags")
    }
}

/// A flag the list-changing tools flip.
#[derive(Debug, Clone, Copy)]
enum Flag {
    ExtraTool,
    ExtraPrompt,
}

/// How long a flipped flag is kept in a shared store.
const FLAG_TTL: Duration = Duration::from_secs(3600);

impl Flag {
    fn key(self) -> &'static str {
        match self {
            Flag::ExtraTool => "mcp-wire:fixtures:extra-tool",
            Flag::ExtraPrompt => "mcp-wire:fixtures:extra-prompt",
        }
    }
}

impl ConformanceFixtures {
    /// A fresh set of fixtures.
    pub fn new() -> Self {
        Self::default()
    }

    /// The fixtures with their mutable state (the added tool, the added prompt) in `store`,
    /// shared with the other replicas on it.
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        self.shared = Some(SharedFlags(store));
        self
    }

    fn local(&self, flag: Flag) -> &AtomicBool {
        match flag {
            Flag::ExtraTool => &self.extra_tool,
            Flag::ExtraPrompt => &self.extra_prompt,
        }
    }

    /// Whether `flag` is set (a store that fails is `-32603` with the reason).
    async fn is_set(&self, flag: Flag) -> HandlerResult<bool> {
        match &self.shared {
            None => Ok(self.local(flag).load(Ordering::Relaxed)),
            Some(SharedFlags(store)) => store
                .get(flag.key(), None)
                .await
                .map(|v| v.is_some_and(|v| v == b"1"))
                .map_err(|e| HandlerError::internal(e.to_string())),
        }
    }

    /// Flips `flag`.
    async fn flip(&self, flag: Flag) -> HandlerResult<()> {
        let Some(SharedFlags(store)) = &self.shared else {
            self.local(flag).fetch_xor(true, Ordering::Relaxed);
            return Ok(());
        };
        let value = if self.is_set(flag).await? { "0" } else { "1" };
        store
            .put(flag.key(), value.as_bytes().to_vec(), FLAG_TTL)
            .await
            .map_err(|e| HandlerError::internal(e.to_string()))
    }

    /// The tools that are always there, as listed at the request's revision (from 2025-11-25
    /// on with their task support); built once per form.
    fn fixed_tools(&self, ctx: &RequestContext) -> &[Tool] {
        let with_tasks = ctx.revision() >= ProtocolVersion::V2025_11_25;
        self.fixed_tools[usize::from(with_tasks)].get_or_init(|| {
            tools()
                .into_iter()
                .map(|(name, description, schema)| {
                    let tool: Tool = typed(
                        json!({"name": name, "description": description, "inputSchema": schema}),
                    );
                    match TASK_SUPPORT.iter().find(|(n, _)| *n == name) {
                        Some((_, support)) if with_tasks => {
                            tool.with_execution(ToolExecution::new().with_task_support(*support))
                        }
                        _ => tool,
                    }
                })
                .collect()
        })
    }
}

/// The tool `test_trigger_tool_change` adds and removes.
fn added_tool() -> Tool {
    typed(
        json!({"name": "test_added_tool", "description": "Added at run time", "inputSchema": no_args()}),
    )
}

impl Handler for ConformanceFixtures {
    fn server_info(&self) -> Implementation {
        Implementation::new("mcp-wire-conformance-server", env!("CARGO_PKG_VERSION"))
    }

    fn capabilities(&self) -> ServerCapabilities {
        // The runtime asks on every request that may concern tasks: made once.
        self.capabilities
            .get_or_init(|| {
                typed(json!({
                    "tools": {"listChanged": true},
                    "resources": {"subscribe": true, "listChanged": true},
                    "prompts": {"listChanged": true},
                    "logging": {},
                    "completions": {},
                    "extensions": {TASKS_EXTENSION_ID: {}}
                }))
            })
            .clone()
    }

    async fn list_tools(&self, ctx: &RequestContext) -> HandlerResult<Vec<Tool>> {
        let mut list = self.fixed_tools(ctx).to_vec();
        if self.is_set(Flag::ExtraTool).await? {
            list.push(added_tool());
        }
        Ok(list)
    }

    async fn tool(&self, ctx: &RequestContext, name: &str) -> HandlerResult<Option<Tool>> {
        if name == "test_added_tool" {
            return Ok(self.is_set(Flag::ExtraTool).await?.then(added_tool));
        }
        Ok(self
            .fixed_tools(ctx)
            .iter()
            .find(|t| t.name == name)
            .cloned())
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        let args = params.arguments.clone().unwrap_or_default();
        if let Some(answer) = task_fixture(&ctx, &params.name, &args).await {
            return answer;
        }
        let arg = |name: &str| {
            args.get(name)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        Ok(match params.name.as_str() {
            "test_simple_text" => text_result("This is a simple text response for testing."),
            "test_image_content" => {
                typed(json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}))
            }
            "test_audio_content" => {
                typed(json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}))
            }
            "test_embedded_resource" => {
                typed(json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."}}]}))
            }
            "test_multiple_content_types" => typed(json!({"content": [
                {"type": "text", "text": "Multiple content types test:"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                    "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}
            ]})),
            "test_tool_with_logging" => {
                for (i, message) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .iter()
                .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.log(LoggingLevel::Info, Some("conformance"), json!(message))
                        .await;
                }
                text_result("Tool with logging executed successfully")
            }
            "test_logging_tool" => {
                ctx.log(
                    LoggingLevel::Info,
                    Some("conformance"),
                    json!("test_logging_tool ran"),
                )
                .await;
                text_result("Logged (if a level was asked for)")
            }
            "test_error_handling" => {
                let mut r = text_result("This tool intentionally returns an error for testing");
                r.is_error = Some(true);
                r
            }
            "test_tool_with_progress" => {
                for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.progress(p, Some(100.0), None).await;
                }
                text_result("Tool with progress executed successfully")
            }
            "test_sampling" => {
                let answer = ctx.input("sampling", sample(&arg("prompt"), 100)).await?;
                let text = match &answer {
                    InputResponse::CreateMessage(r) => serde_json::to_value(r)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/content/text")
                                .and_then(Value::as_str)
                                .map(str::to_owned)
                        })
                        .unwrap_or_else(|| describe(&answer)),
                    other => describe(other),
                };
                text_result(format!("LLM response: {text}"))
            }
            "test_elicitation" => {
                let answer = ctx
                    .input(
                        "elicitation",
                        elicit(
                            &arg("message"),
                            json!({
                                "username": {"type": "string", "description": "User's response"},
                                "email": {"type": "string", "description": "User's email address"}
                            }),
                            &["username", "email"],
                        ),
                    )
                    .await?;
                text_result(format!("User response: {}", describe(&answer)))
            }
            "test_elicitation_sep1034_defaults" => {
                let answer = ctx.input("defaults", elicit("Please review and update the form fields with defaults", json!({
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status", "default": true}
                }), &[])).await?;
                text_result(format!("Elicitation completed: {}", describe(&answer)))
            }
            "test_elicitation_sep1330_enums" => {
                let answer = ctx.input("enums", elicit("Please select options from the enum fields", json!({
                    "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}]},
                    "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "description": "Select multiple options",
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                        "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}]}}
                }), &[])).await?;
                text_result(format!("Elicitation completed: {}", describe(&answer)))
            }
            "test_streaming_elicitation" | "test_input_required_result_elicitation" => {
                let answer = ctx
                    .input(
                        "user_name",
                        elicit(
                            "What is your name?",
                            json!({"name": {"type": "string"}}),
                            &["name"],
                        ),
                    )
                    .await?;
                text_result(format!("Hello, {}!", elicited(&answer, "name")))
            }
            "test_input_required_result_sampling" => {
                let answer = ctx
                    .input(
                        "capital_question",
                        sample("What is the capital of France?", 100),
                    )
                    .await?;
                text_result(format!("Sampling response: {}", describe(&answer)))
            }
            "test_input_required_result_list_roots" => {
                let answer = ctx.input("client_roots", roots()).await?;
                text_result(format!("Client roots: {}", describe(&answer)))
            }
            "test_input_required_result_request_state" => {
                let answer = ctx
                    .input(
                        "confirm",
                        elicit(
                            "Please confirm",
                            json!({"ok": {"type": "boolean"}}),
                            &["ok"],
                        ),
                    )
                    .await?;
                let state = if ctx.request_state_verified() {
                    "state-ok"
                } else {
                    "state-missing"
                };
                text_result(format!("Confirmed ({state}): {}", describe(&answer)))
            }
            "test_input_required_result_multiple_inputs" => {
                let answers = ctx
                    .inputs([
                        (
                            "user_name".to_owned(),
                            elicit(
                                "What is your name?",
                                json!({"name": {"type": "string"}}),
                                &["name"],
                            ),
                        ),
                        ("greeting".to_owned(), sample("Generate a greeting", 50)),
                        ("client_roots".to_owned(), roots()),
                    ])
                    .await?;
                text_result(format!(
                    "All inputs received: {}",
                    answers.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            }
            "test_input_required_result_multi_round" => {
                let name = ctx
                    .input(
                        "step1",
                        elicit(
                            "Step 1: What is your name?",
                            json!({"name": {"type": "string"}}),
                            &["name"],
                        ),
                    )
                    .await?;
                let color = ctx
                    .input(
                        "step2",
                        elicit(
                            "Step 2: What is your favorite color?",
                            json!({"color": {"type": "string"}}),
                            &["color"],
                        ),
                    )
                    .await?;
                text_result(format!(
                    "Hello {}, your favorite color is {}",
                    elicited(&name, "name"),
                    elicited(&color, "color")
                ))
            }
            "test_input_required_result_tampered_state" => {
                let answer = ctx
                    .input(
                        "confirm",
                        elicit(
                            "Please confirm",
                            json!({"ok": {"type": "boolean"}}),
                            &["ok"],
                        ),
                    )
                    .await?;
                text_result(format!("Confirmed: {}", describe(&answer)))
            }
            "test_input_required_result_capabilities" => {
                let caps = ctx.client_capabilities();
                let mut wanted = Vec::new();
                if caps.sampling.is_some() {
                    wanted.push((
                        "capital_question".to_owned(),
                        sample("What is the capital of France?", 100),
                    ));
                }
                if caps.elicitation.is_some() {
                    wanted.push((
                        "user_name".to_owned(),
                        elicit(
                            "What is your name?",
                            json!({"name": {"type": "string"}}),
                            &["name"],
                        ),
                    ));
                }
                if caps.roots.is_some() {
                    wanted.push(("client_roots".to_owned(), roots()));
                }
                if wanted.is_empty() {
                    text_result("The client declared no input capabilities")
                } else {
                    let answers = ctx.inputs(wanted).await?;
                    text_result(format!(
                        "Inputs received: {}",
                        answers.keys().cloned().collect::<Vec<_>>().join(", ")
                    ))
                }
            }
            "test_reconnection" => {
                ctx.close_stream(Duration::from_millis(500)).await;
                tokio::time::sleep(Duration::from_millis(700)).await;
                text_result("Reconnection test completed")
            }
            "test_missing_capability" => {
                if ctx.client_capabilities().sampling.is_none() {
                    return Err(HandlerError::missing_capability(json!({"sampling": {}})));
                }
                text_result("The client declared sampling")
            }
            "test_trigger_tool_change" => {
                self.flip(Flag::ExtraTool).await?;
                ctx.notifier().announce(Change::ToolsListChanged);
                text_result("Tool list changed")
            }
            "test_trigger_prompt_change" => {
                self.flip(Flag::ExtraPrompt).await?;
                ctx.notifier().announce(Change::PromptsListChanged);
                text_result("Prompt list changed")
            }
            "test_custom_headers" => text_result(format!("region={}", arg("region"))),
            "test_added_tool" if self.is_set(Flag::ExtraTool).await? => text_result("added"),
            "json_schema_2020_12_tool" => text_result("Schema tool called"),
            other => {
                return Err(HandlerError::invalid_params(format!(
                    "unknown tool: {other}"
                )));
            }
        })
    }

    async fn list_resources(&self, _: &RequestContext) -> HandlerResult<Vec<Resource>> {
        Ok(vec![
            typed(
                json!({"uri": "test://static-text", "name": "static-text", "description": "A static text resource", "mimeType": "text/plain"}),
            ),
            typed(
                json!({"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource", "mimeType": "image/png"}),
            ),
            typed(
                json!({"uri": "test://watched-resource", "name": "watched-resource", "description": "A resource to subscribe to", "mimeType": "text/plain"}),
            ),
        ])
    }

    async fn list_resource_templates(
        &self,
        _: &RequestContext,
    ) -> HandlerResult<Vec<ResourceTemplate>> {
        Ok(vec![typed(
            json!({"uriTemplate": "test://template/{id}/data", "name": "template-data",
            "description": "Data by id", "mimeType": "application/json"}),
        )])
    }

    async fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> HandlerResult<ReadResourceResult> {
        let contents = match uri.as_str() {
            "test://static-text" => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."})
            }
            "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
            "test://watched-resource" => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "Watched resource content."})
            }
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|r| r.strip_suffix("/data"))
            {
                Some(id) if !id.is_empty() && !id.contains('/') => {
                    json!({"uri": uri, "mimeType": "application/json",
                    "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()})
                }
                _ => return Err(HandlerError::resource_not_found(ctx.revision(), &uri)),
            },
        };
        Ok(typed(json!({"contents": [contents]})))
    }

    async fn list_prompts(&self, _: &RequestContext) -> HandlerResult<Vec<Prompt>> {
        let mut list: Vec<Prompt> = vec![
            typed(json!({"name": "test_simple_prompt", "description": "A simple prompt"})),
            typed(
                json!({"name": "test_prompt_with_arguments", "description": "A prompt with arguments", "arguments": [
                {"name": "arg1", "description": "First test argument", "required": true},
                {"name": "arg2", "description": "Second test argument", "required": true}]}),
            ),
            typed(
                json!({"name": "test_prompt_with_embedded_resource", "description": "A prompt with a resource", "arguments": [
                {"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]}),
            ),
            typed(
                json!({"name": "test_prompt_with_image", "description": "A prompt with an image"}),
            ),
            typed(
                json!({"name": "test_input_required_result_prompt", "description": "A prompt that needs input"}),
            ),
        ];
        if self.is_set(Flag::ExtraPrompt).await? {
            list.push(typed(
                json!({"name": "test_added_prompt", "description": "Added at run time"}),
            ));
        }
        Ok(list)
    }

    async fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptRequestParams,
    ) -> HandlerResult<GetPromptResult> {
        let args = params.arguments.clone().unwrap_or_default();
        let arg = |k: &str| args.get(k).cloned().unwrap_or_default();
        let user_text = |t: String| json!({"role": "user", "content": {"type": "text", "text": t}});
        let messages = match params.name.as_str() {
            "test_simple_prompt" => {
                json!([user_text("This is a simple prompt for testing.".into())])
            }
            "test_prompt_with_arguments" => json!([user_text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1"),
                arg("arg2")
            ))]),
            "test_prompt_with_embedded_resource" => json!([
                {"role": "user", "content": {"type": "resource", "resource": {"uri": arg("resourceUri"),
                    "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
                user_text("Please process the embedded resource above.".into())]),
            "test_prompt_with_image" => json!([
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                user_text("Please analyze the image above.".into())]),
            "test_input_required_result_prompt" => {
                let answer = ctx
                    .input(
                        "user_context",
                        elicit(
                            "What context should the prompt use?",
                            json!({"context": {"type": "string"}}),
                            &["context"],
                        ),
                    )
                    .await?;
                json!([user_text(format!(
                    "Use this context: {}",
                    elicited(&answer, "context")
                ))])
            }
            other => {
                return Err(HandlerError::invalid_params(format!(
                    "unknown prompt: {other}"
                )));
            }
        };
        Ok(typed(json!({"messages": messages})))
    }

    async fn complete(
        &self,
        _: &RequestContext,
        params: CompleteRequestParams,
    ) -> HandlerResult<CompleteResult> {
        let prefix = params.argument.value.clone();
        let values: Vec<String> = ["paris", "park", "party", "hello", "world"]
            .into_iter()
            .filter(|v| v.starts_with(&prefix))
            .map(str::to_owned)
            .collect();
        let mut completion = Completion::new(values.clone());
        completion.total = Some(values.len() as u64);
        completion.has_more = Some(false);
        Ok(CompleteResult::new(completion))
    }
}
