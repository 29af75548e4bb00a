//! [`Router`]: a [`Handler`] made of registrations. Each tool, resource and prompt is registered
//! once, with the async closure that answers it; the router lists what was registered and
//! dispatches each call to its closure. Arguments are read into a Rust type whose JSON Schema
//! (schemars) is the tool's `inputSchema` or the prompt's argument list; a tool whose closure
//! returns [`Structured`] declares its result type's schema as `outputSchema`; with the feature
//! `output-check`, every result it gives is checked against that schema before it leaves.
//!
//! A handler that needs more (resource templates, completion, list changes, per-session
//! state) implements [`Handler`] itself.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use indexmap::IndexMap;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResult,
    Implementation, Prompt, PromptArgument, PromptMessage, PromptsCapability, ReadResourceResult,
    Resource, ResourcesCapability, Role, ServerCapabilities, TextResourceContents, Tool,
    ToolsCapability,
};
use mcp_wire::schemars::JsonSchema;
#[cfg(feature = "output-check")]
use mcp_wire::tool::OutputCheck;
use mcp_wire::tool::{ToolSchemaError, object_schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::context::RequestContext;
use super::error::{HandlerError, HandlerResult};
use super::handler::Handler;

type Answer<T> = Pin<Box<dyn Future<Output = HandlerResult<T>> + Send>>;
type ToolFn = dyn Fn(RequestContext, CallToolRequestParams) -> Answer<CallToolResult> + Send + Sync;
type ResourceFn = dyn Fn(RequestContext, String) -> Answer<ReadResourceResult> + Send + Sync;
type PromptFn =
    dyn Fn(RequestContext, GetPromptRequestParams) -> Answer<GetPromptResult> + Send + Sync;

/// A [`Handler`] built from registered tools, resources and prompts.
///
/// ```
/// use mcp_wire_transport::server::{Router, Server, ServerConfig, Structured};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: i64 }
///
/// let router = Router::new("calculator", "1.0.0")
///     .tool("add", "Add two integers", |args: AddArgs, _ctx| async move {
///         Ok(Structured(Sum { sum: args.a + args.b }))
///     })?
///     .resource("note://hello", "hello", |_ctx| async { Ok("Hello!") });
/// let tool = &router.tools()[0];
/// assert_eq!(tool.input_schema["required"], serde_json::json!(["a", "b"]));
/// assert_eq!(tool.output_schema.as_ref().unwrap()["properties"]["sum"]["type"], "integer");
///
/// let server = Server::new(router, ServerConfig::default());
/// # let _ = || async move {
/// server.serve_http("127.0.0.1:3000", "/mcp").await // or server.serve_stdio().await
/// # };
/// # Ok::<(), mcp_wire::tool::ToolSchemaError>(())
/// ```
pub struct Router {
    info: Implementation,
    instructions: Option<String>,
    tools: IndexMap<String, (Tool, Box<ToolFn>)>,
    resources: IndexMap<String, (Resource, Box<ResourceFn>)>,
    prompts: IndexMap<String, (Prompt, Box<PromptFn>)>,
}

impl Router {
    /// A router with nothing registered, serving as `name` at `version` (`serverInfo`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            instructions: None,
            tools: IndexMap::new(),
            resources: IndexMap::new(),
            prompts: IndexMap::new(),
        }
    }

    /// Sets the instructions for the model (`initialize`'s `instructions`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Registers the tool `name`: its `inputSchema` is the schema of `A`, into which each call's
    /// arguments are read (arguments that do not fit answer `-32602` with `data.pointer` at the
    /// fault, e.g. `/arguments/b`); `f` answers with anything [`IntoToolResult`], and a
    /// [`Structured`] output type also gives the tool its `outputSchema`. A second tool of the
    /// same name replaces the first.
    ///
    /// Fails when the schema of `A` or of the output type is not an object schema, as every
    /// revision requires of tool schemas.
    pub fn tool<A, O, F, Fut>(
        mut self,
        name: &str,
        description: &str,
        f: F,
    ) -> Result<Self, ToolSchemaError>
    where
        A: DeserializeOwned + JsonSchema,
        O: IntoToolResult,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<O>> + Send + 'static,
    {
        let mut tool = Tool::typed::<A>(name)?.with_description(description);
        if let Some(schema) = O::output_schema()? {
            tool = tool.with_output_schema(schema);
        }
        let check = ResultCheck::for_tool(&tool)?;
        let call = move |ctx: RequestContext, params: CallToolRequestParams| -> Answer<_> {
            let args = params.arguments_as::<A>();
            let check = check.clone();
            let answer = args.map(|args| f(args, ctx));
            Box::pin(async move {
                let result = answer?.await?.into_result()?;
                if let Some(check) = check {
                    check.holds(&params.name, &result)?;
                }
                Ok(result)
            })
        };
        self.tools.insert(name.to_owned(), (tool, Box::new(call)));
        Ok(self)
    }

    /// Registers the resource `uri`, listed as `name`; `f` answers its reads with anything
    /// [`IntoResourceResult`] (text is one text block at `uri`).
    pub fn resource<O, F, Fut>(mut self, uri: &str, name: &str, f: F) -> Self
    where
        O: IntoResourceResult,
        F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<O>> + Send + 'static,
    {
        let read = move |ctx: RequestContext, uri: String| -> Answer<_> {
            let answer = f(ctx);
            Box::pin(async move { Ok(answer.await?.into_resource_result(&uri)) })
        };
        self.resources
            .insert(uri.to_owned(), (Resource::new(uri, name), Box::new(read)));
        self
    }

    /// Registers the prompt `name`: its arguments are the properties of `A`'s schema (with
    /// their descriptions, required unless optional), and each `prompts/get`'s arguments, which
    /// are strings, are read into `A` (arguments that do not fit answer `-32602` with
    /// `data.pointer`); `f` answers with anything [`IntoPromptResult`].
    ///
    /// Fails when the schema of `A` is not an object schema.
    pub fn prompt<A, O, F, Fut>(
        mut self,
        name: &str,
        description: &str,
        f: F,
    ) -> Result<Self, ToolSchemaError>
    where
        A: DeserializeOwned + JsonSchema,
        O: IntoPromptResult,
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<O>> + Send + 'static,
    {
        let prompt = Prompt::new(name)
            .with_description(description)
            .with_arguments(prompt_arguments(&object_schema::<A>()?));
        let get = move |ctx: RequestContext, params: GetPromptRequestParams| -> Answer<_> {
            let arguments = params.arguments.unwrap_or_default().into_iter();
            let arguments = arguments.map(|(k, v)| (k, Value::String(v))).collect();
            let args = mcp_wire::model::from_value::<A>(Value::Object(arguments))
                .map_err(|e| e.under(&mcp_wire::JsonPath::root().key("arguments")));
            let answer = args.map(|args| f(args, ctx));
            Box::pin(async move { Ok(answer?.await?.into_prompt_result()) })
        };
        self.prompts
            .insert(name.to_owned(), (prompt, Box::new(get)));
        Ok(self)
    }

    /// The tools registered, in order.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.values().map(|(t, _)| t.clone()).collect()
    }

    /// The resources registered, in order.
    pub fn resources(&self) -> Vec<Resource> {
        self.resources.values().map(|(r, _)| r.clone()).collect()
    }

    /// The prompts registered, in order.
    pub fn prompts(&self) -> Vec<Prompt> {
        self.prompts.values().map(|(p, _)| p.clone()).collect()
    }
}

/// What the results of a tool that declares an `outputSchema` are held to: they carry
/// `structuredContent`, which with the feature `output-check` must satisfy the schema (a tool
/// error, `isError: true`, need not). Without the feature, the content of a [`Structured`]
/// result is the serialization of the type the schema was derived from.
struct ResultCheck {
    #[cfg(feature = "output-check")]
    schema: OutputCheck,
}

impl ResultCheck {
    /// The check of `tool`'s results (`None` when it declares no `outputSchema`).
    fn for_tool(tool: &Tool) -> Result<Option<Arc<ResultCheck>>, ToolSchemaError> {
        if tool.output_schema.is_none() {
            return Ok(None);
        }
        Ok(Some(Arc::new(ResultCheck {
            #[cfg(feature = "output-check")]
            schema: OutputCheck::for_tool(tool)?,
        })))
    }

    /// Whether `result` of tool `tool` may leave (`-32603` otherwise).
    fn holds(&self, tool: &str, result: &CallToolResult) -> HandlerResult<()> {
        if result.is_error == Some(true) {
            return Ok(());
        }
        match &result.structured_content {
            #[cfg(feature = "output-check")]
            Some(value) => self
                .schema
                .check(value)
                .map(drop)
                .map_err(HandlerError::from),
            #[cfg(not(feature = "output-check"))]
            Some(_) => Ok(()),
            None => Err(HandlerError::internal(format!(
                "tool {tool:?} declares an outputSchema but its result has no structuredContent"
            ))),
        }
    }
}

/// The prompt arguments an object schema describes: one per property, in order, with the
/// property's description, required when the schema requires it.
fn prompt_arguments(schema: &Map<String, Value>) -> Vec<PromptArgument> {
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .map(|(name, property)| {
            let argument = PromptArgument::new(name).with_required(required(name));
            match property.get("description").and_then(Value::as_str) {
                Some(d) => argument.with_description(d),
                None => argument,
            }
        })
        .collect()
}

/// A tool's output as `structuredContent` (and, for clients that read only `content`, its JSON
/// text as one text block); the tool declares `T`'s schema as its `outputSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured<T>(pub T);

/// What a tool closure may answer with.
pub trait IntoToolResult: Send + 'static {
    /// The `outputSchema` a tool answering with this type declares (none by default).
    fn output_schema() -> Result<Option<Map<String, Value>>, ToolSchemaError> {
        Ok(None)
    }

    /// The `tools/call` result.
    fn into_result(self) -> HandlerResult<CallToolResult>;
}

/// As it is.
impl IntoToolResult for CallToolResult {
    fn into_result(self) -> HandlerResult<CallToolResult> {
        Ok(self)
    }
}

/// One text block.
impl IntoToolResult for String {
    fn into_result(self) -> HandlerResult<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

/// One text block.
impl IntoToolResult for &'static str {
    fn into_result(self) -> HandlerResult<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> IntoToolResult for Structured<T> {
    fn output_schema() -> Result<Option<Map<String, Value>>, ToolSchemaError> {
        object_schema::<T>().map(Some)
    }

    fn into_result(self) -> HandlerResult<CallToolResult> {
        let value = serde_json::to_value(&self.0)
            .map_err(|e| HandlerError::internal(format!("the tool's output: {e}")))?;
        Ok(CallToolResult::structured(value))
    }
}

/// What a resource closure may answer with.
pub trait IntoResourceResult: Send + 'static {
    /// The `resources/read` result for `uri`.
    fn into_resource_result(self, uri: &str) -> ReadResourceResult;
}

/// As it is.
impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(self, _uri: &str) -> ReadResourceResult {
        self
    }
}

/// One `text/plain` text block.
impl IntoResourceResult for String {
    fn into_resource_result(self, uri: &str) -> ReadResourceResult {
        let text = TextResourceContents::new(uri, self).with_mime_type("text/plain");
        ReadResourceResult::new(vec![text.into()])
    }
}

/// One `text/plain` text block.
impl IntoResourceResult for &'static str {
    fn into_resource_result(self, uri: &str) -> ReadResourceResult {
        self.to_owned().into_resource_result(uri)
    }
}

/// What a prompt closure may answer with.
pub trait IntoPromptResult: Send + 'static {
    /// The `prompts/get` result.
    fn into_prompt_result(self) -> GetPromptResult;
}

/// As it is.
impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> GetPromptResult {
        self
    }
}

/// These messages.
impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult::new(self)
    }
}

/// One user message with this text.
impl IntoPromptResult for String {
    fn into_prompt_result(self) -> GetPromptResult {
        vec![PromptMessage::new(Role::User, ContentBlock::from(self))].into_prompt_result()
    }
}

/// One user message with this text.
impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> GetPromptResult {
        self.to_owned().into_prompt_result()
    }
}

impl Handler for Router {
    fn server_info(&self) -> Implementation {
        self.info.clone()
    }

    /// Tools, resources and prompts, each when one is registered.
    fn capabilities(&self) -> ServerCapabilities {
        let mut capabilities = ServerCapabilities::new();
        if !self.tools.is_empty() {
            capabilities = capabilities.with_tools(ToolsCapability::new());
        }
        if !self.resources.is_empty() {
            capabilities = capabilities.with_resources(ResourcesCapability::new());
        }
        if !self.prompts.is_empty() {
            capabilities = capabilities.with_prompts(PromptsCapability::new());
        }
        capabilities
    }

    fn instructions(&self) -> Option<String> {
        self.instructions.clone()
    }

    async fn list_tools(&self, _ctx: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(self.tools())
    }

    async fn tool(&self, _ctx: &RequestContext, name: &str) -> HandlerResult<Option<Tool>> {
        Ok(self.tools.get(name).map(|(t, _)| t.clone()))
    }

    async fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        let Some((_, call)) = self.tools.get(&params.name) else {
            let unknown = format!("unknown tool: {}", params.name);
            return Err(HandlerError::invalid_params(unknown));
        };
        call(ctx, params).await
    }

    async fn list_resources(&self, _ctx: &RequestContext) -> HandlerResult<Vec<Resource>> {
        Ok(self.resources())
    }

    async fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> HandlerResult<ReadResourceResult> {
        match self.resources.get(&uri) {
            Some((_, read)) => read(ctx, uri).await,
            None => Err(HandlerError::resource_not_found(ctx.revision(), &uri)),
        }
    }

    async fn list_prompts(&self, _ctx: &RequestContext) -> HandlerResult<Vec<Prompt>> {
        Ok(self.prompts())
    }

    async fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptRequestParams,
    ) -> HandlerResult<GetPromptResult> {
        let Some((_, get)) = self.prompts.get(&params.name) else {
            let unknown = format!("unknown prompt: {}", params.name);
            return Err(HandlerError::invalid_params(unknown));
        };
        get(ctx, params).await
    }
}
