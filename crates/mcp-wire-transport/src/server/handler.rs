//! The handler trait a server implements, the per-request context it receives, and the one
//! API through which a handler asks the client for input on either era.

use std::future::Future;
use std::pin::Pin;

use indexmap::IndexMap;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientRequest,
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult, Implementation,
    InitializeResult, InputRequest, InputResponse, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, ServerCapabilities, ServerResult, SubscriptionFilter, Tool,
};
use serde_json::{Value, json};

use super::auth::Principal;
use super::context::{InputMode, RequestContext};
use super::error::{HandlerError, HandlerResult};
use super::session::SessionHandle;

/// What [`Handler::intercept`] decided about a request.
// Both variants are moved once per request, as the runtime's answers are (boxing either costs
// an allocation per request).
#[allow(clippy::large_enum_variant)]
pub enum Intercepted {
    /// The handler answered the request itself.
    Answered(HandlerResult<ServerResult>),
    /// The runtime dispatches the request (perhaps rewritten) to the per-method methods.
    Continue(RequestContext, ClientRequest),
}

/// What a handler keeps for one listen stream ([`Handler::listen`]); dropped when it ends.
pub type ListenGuard = Box<dyn std::any::Any + Send + Sync>;

/// A server's behaviour: its identity, capabilities and the answers to each client request.
///
/// Every method has a default (no tools, no resources, …), so a handler implements only what
/// it offers. One handler serves every revision: the runtime does the revision's framing, and
/// [`RequestContext::input`] asks the client for input in the way the revision allows.
pub trait Handler: Send + Sync + 'static {
    /// `serverInfo`.
    fn server_info(&self) -> Implementation;

    /// The capabilities to advertise (`initialize`, `server/discover`).
    fn capabilities(&self) -> ServerCapabilities;

    /// Instructions for the model, if any.
    fn instructions(&self) -> Option<String> {
        None
    }

    /// `tools/list`.
    fn list_tools(
        &self,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Vec<Tool>>> + Send {
        let _ = ctx;
        async { Ok(Vec::new()) }
    }

    /// One tool's declaration, as [`list_tools`](Self::list_tools) gives it, or `None` if there
    /// is no such tool. The runtime reads it before running a `tools/call` at 2025-11-25 and
    /// 2026-07-28 (the tool's task support, its `x-mcp-header` arguments). The default lists
    /// the tools and picks one; a handler whose list is long or costly to build answers
    /// directly, so that a call does not pay for a whole listing.
    fn tool(
        &self,
        ctx: &RequestContext,
        name: &str,
    ) -> impl Future<Output = HandlerResult<Option<Tool>>> + Send {
        async move {
            let tools = self.list_tools(ctx).await?;
            Ok(tools.into_iter().find(|t| t.name == name))
        }
    }

    /// `tools/call`.
    fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> impl Future<Output = HandlerResult<CallToolResult>> + Send {
        let _ = ctx;
        async move {
            Err(HandlerError::invalid_params(format!(
                "unknown tool: {}",
                params.name
            )))
        }
    }

    /// `resources/list`.
    fn list_resources(
        &self,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Vec<Resource>>> + Send {
        let _ = ctx;
        async { Ok(Vec::new()) }
    }

    /// `resources/templates/list`.
    fn list_resource_templates(
        &self,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Vec<ResourceTemplate>>> + Send {
        let _ = ctx;
        async { Ok(Vec::new()) }
    }

    /// `resources/read`.
    fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> impl Future<Output = HandlerResult<ReadResourceResult>> + Send {
        async move { Err(HandlerError::resource_not_found(ctx.revision(), &uri)) }
    }

    /// `resources/subscribe` (handshake era; at 2026-07-28 subscriptions ride on
    /// `subscriptions/listen`, which the runtime serves). The runtime records the subscription.
    fn subscribe(&self, ctx: &RequestContext, uri: &str) -> HandlerResult<()> {
        let _ = (ctx, uri);
        Ok(())
    }

    /// `prompts/list`.
    fn list_prompts(
        &self,
        ctx: &RequestContext,
    ) -> impl Future<Output = HandlerResult<Vec<Prompt>>> + Send {
        let _ = ctx;
        async { Ok(Vec::new()) }
    }

    /// `prompts/get`.
    fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptRequestParams,
    ) -> impl Future<Output = HandlerResult<GetPromptResult>> + Send {
        let _ = ctx;
        async move {
            Err(HandlerError::invalid_params(format!(
                "unknown prompt: {}",
                params.name
            )))
        }
    }

    /// `completion/complete`.
    fn complete(
        &self,
        ctx: &RequestContext,
        params: CompleteRequestParams,
    ) -> impl Future<Output = HandlerResult<CompleteResult>> + Send {
        let _ = (ctx, params);
        async {
            Ok(CompleteResult::new(mcp_wire::model::Completion::new(
                Vec::new(),
            )))
        }
    }

    /// Authorizes a request's principal for a method (default: everyone may call everything).
    fn authorize(&self, principal: &Principal, method: &str) -> HandlerResult<()> {
        let _ = (principal, method);
        Ok(())
    }

    /// Sees every typed request (after [`Handler::authorize`]) before the runtime dispatches
    /// it to the per-method methods above, and may answer it instead: the hook of a front
    /// server that routes requests to inner servers. Default: [`Intercepted::Continue`].
    fn intercept(
        &self,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> impl Future<Output = Intercepted> + Send {
        async move { Intercepted::Continue(ctx, request) }
    }

    /// A 2026-07-28 `subscriptions/listen` stream opens with `filter`: the handler may narrow
    /// the filter (the acknowledgement and the delivery use what it returns), refuse the
    /// stream, and keep a guard that is dropped when the stream ends (a front server holding
    /// upstream subscriptions for it). Default: as asked, no guard.
    fn listen(
        &self,
        ctx: &RequestContext,
        filter: SubscriptionFilter,
    ) -> impl Future<Output = Result<(SubscriptionFilter, Option<ListenGuard>), ErrorData>> + Send
    {
        let _ = ctx;
        async move { Ok((filter, None)) }
    }

    /// A handshake-era session was negotiated (`initialize`, on any transport): the handler
    /// may keep `session` (to notify it later) and amend the `InitializeResult` it answers
    /// with (per-session capabilities). An error refuses the `initialize`: it is answered
    /// with the error and no session is kept. Default: nothing.
    fn session_started(
        &self,
        session: &SessionHandle,
        result: &mut InitializeResult,
    ) -> Result<(), ErrorData> {
        let _ = (session, result);
        Ok(())
    }

    /// A session started by [`Handler::session_started`] ended: DELETE, idle expiry, or (stdio)
    /// the connection closed. Called once per session. Default: nothing.
    fn session_ended(&self, session_id: &str) {
        let _ = session_id;
    }
}

/// A future a [`DynHandler`] method returns.
pub(crate) type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Handler`] as the runtime calls it: object-safe, each async method's future boxed. The
/// runtime is written once against `dyn DynHandler` (one copy, compiled in this crate) rather
/// than monomorphised into every server's crate for its handler type; a handler call costs one
/// allocation, next to a request's parse, dispatch and framing.
pub(crate) trait DynHandler: Send + Sync + 'static {
    fn server_info(&self) -> Implementation;
    fn capabilities(&self) -> ServerCapabilities;
    fn instructions(&self) -> Option<String>;
    fn list_tools<'a>(&'a self, ctx: &'a RequestContext) -> Boxed<'a, HandlerResult<Vec<Tool>>>;
    fn tool<'a>(
        &'a self,
        ctx: &'a RequestContext,
        name: &'a str,
    ) -> Boxed<'a, HandlerResult<Option<Tool>>>;
    fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> Boxed<'_, HandlerResult<CallToolResult>>;
    fn list_resources<'a>(
        &'a self,
        ctx: &'a RequestContext,
    ) -> Boxed<'a, HandlerResult<Vec<Resource>>>;
    fn list_resource_templates<'a>(
        &'a self,
        ctx: &'a RequestContext,
    ) -> Boxed<'a, HandlerResult<Vec<ResourceTemplate>>>;
    fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> Boxed<'_, HandlerResult<ReadResourceResult>>;
    fn subscribe(&self, ctx: &RequestContext, uri: &str) -> HandlerResult<()>;
    fn list_prompts<'a>(&'a self, ctx: &'a RequestContext)
    -> Boxed<'a, HandlerResult<Vec<Prompt>>>;
    fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptRequestParams,
    ) -> Boxed<'_, HandlerResult<GetPromptResult>>;
    fn complete<'a>(
        &'a self,
        ctx: &'a RequestContext,
        params: CompleteRequestParams,
    ) -> Boxed<'a, HandlerResult<CompleteResult>>;
    fn authorize(&self, principal: &Principal, method: &str) -> HandlerResult<()>;
    fn intercept(&self, ctx: RequestContext, request: ClientRequest) -> Boxed<'_, Intercepted>;
    fn listen<'a>(
        &'a self,
        ctx: &'a RequestContext,
        filter: SubscriptionFilter,
    ) -> Boxed<'a, Result<(SubscriptionFilter, Option<ListenGuard>), ErrorData>>;
    fn session_started(
        &self,
        session: &SessionHandle,
        result: &mut InitializeResult,
    ) -> Result<(), ErrorData>;
    fn session_ended(&self, session_id: &str);
}

impl<H: Handler> DynHandler for H {
    fn server_info(&self) -> Implementation {
        Handler::server_info(self)
    }
    fn capabilities(&self) -> ServerCapabilities {
        Handler::capabilities(self)
    }
    fn instructions(&self) -> Option<String> {
        Handler::instructions(self)
    }
    fn list_tools<'a>(&'a self, ctx: &'a RequestContext) -> Boxed<'a, HandlerResult<Vec<Tool>>> {
        Box::pin(Handler::list_tools(self, ctx))
    }
    fn tool<'a>(
        &'a self,
        ctx: &'a RequestContext,
        name: &'a str,
    ) -> Boxed<'a, HandlerResult<Option<Tool>>> {
        Box::pin(Handler::tool(self, ctx, name))
    }
    fn call_tool(
        &self,
        ctx: RequestContext,
        params: CallToolRequestParams,
    ) -> Boxed<'_, HandlerResult<CallToolResult>> {
        Box::pin(Handler::call_tool(self, ctx, params))
    }
    fn list_resources<'a>(
        &'a self,
        ctx: &'a RequestContext,
    ) -> Boxed<'a, HandlerResult<Vec<Resource>>> {
        Box::pin(Handler::list_resources(self, ctx))
    }
    fn list_resource_templates<'a>(
        &'a self,
        ctx: &'a RequestContext,
    ) -> Boxed<'a, HandlerResult<Vec<ResourceTemplate>>> {
        Box::pin(Handler::list_resource_templates(self, ctx))
    }
    fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> Boxed<'_, HandlerResult<ReadResourceResult>> {
        Box::pin(Handler::read_resource(self, ctx, uri))
    }
    fn subscribe(&self, ctx: &RequestContext, uri: &str) -> HandlerResult<()> {
        Handler::subscribe(self, ctx, uri)
    }
    fn list_prompts<'a>(
        &'a self,
        ctx: &'a RequestContext,
    ) -> Boxed<'a, HandlerResult<Vec<Prompt>>> {
        Box::pin(Handler::list_prompts(self, ctx))
    }
    fn get_prompt(
        &self,
        ctx: RequestContext,
        params: GetPromptRequestParams,
    ) -> Boxed<'_, HandlerResult<GetPromptResult>> {
        Box::pin(Handler::get_prompt(self, ctx, params))
    }
    fn complete<'a>(
        &'a self,
        ctx: &'a RequestContext,
        params: CompleteRequestParams,
    ) -> Boxed<'a, HandlerResult<CompleteResult>> {
        Box::pin(Handler::complete(self, ctx, params))
    }
    fn authorize(&self, principal: &Principal, method: &str) -> HandlerResult<()> {
        Handler::authorize(self, principal, method)
    }
    fn intercept(&self, ctx: RequestContext, request: ClientRequest) -> Boxed<'_, Intercepted> {
        Box::pin(Handler::intercept(self, ctx, request))
    }
    fn listen<'a>(
        &'a self,
        ctx: &'a RequestContext,
        filter: SubscriptionFilter,
    ) -> Boxed<'a, Result<(SubscriptionFilter, Option<ListenGuard>), ErrorData>> {
        Box::pin(Handler::listen(self, ctx, filter))
    }
    fn session_started(
        &self,
        session: &SessionHandle,
        result: &mut InitializeResult,
    ) -> Result<(), ErrorData> {
        Handler::session_started(self, session, result)
    }
    fn session_ended(&self, session_id: &str) {
        Handler::session_ended(self, session_id)
    }
}

/// The capability a client must have declared for each input request method.
const INPUT_CAPABILITIES: [(&str, &str); 3] = [
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
    ("elicitation/create", "elicitation"),
];

/// The client capability (`ClientCapabilities` member name) an input request needs.
pub fn capability_for(request: &InputRequest) -> &'static str {
    let method = request.tag();
    INPUT_CAPABILITIES
        .iter()
        .find(|(m, _)| *m == method)
        .map_or("experimental", |(_, c)| *c)
}

/// Whether `caps` declares the member `name`.
pub fn declares(caps: &ClientCapabilities, name: &str) -> bool {
    match name {
        "sampling" => caps.sampling.is_some(),
        "roots" => caps.roots.is_some(),
        "elicitation" => caps.elicitation.is_some(),
        "tasks" => caps.tasks.is_some(),
        other => caps.extra.contains_key(other),
    }
}

impl RequestContext {
    /// Asks the client for one input: at the handshake revisions a server→client request on
    /// this request's stream (awaited here); at 2026-07-28 the answer from the client's retry
    /// (`inputResponses`, or the signed `requestState` of an earlier round), else the handler
    /// stops here and the runtime answers `InputRequiredResult`.
    pub async fn input(&self, key: &str, request: InputRequest) -> HandlerResult<InputResponse> {
        let mut all = self.inputs([(key.to_owned(), request)]).await?;
        all.shift_remove(key)
            .ok_or_else(|| HandlerError::internal("input answer missing"))
    }

    /// Asks the client for several inputs at once (one round at 2026-07-28).
    pub async fn inputs(
        &self,
        requests: impl IntoIterator<Item = (String, InputRequest)>,
    ) -> HandlerResult<IndexMap<String, InputResponse>> {
        let requests: Vec<(String, InputRequest)> = requests.into_iter().collect();
        for (_, request) in &requests {
            let needed = capability_for(request);
            if !declares(self.client_capabilities(), needed) {
                return Err(HandlerError::missing_capability(json!({ needed: {} })));
            }
        }
        match self.input_mode() {
            InputMode::Stateless(state) => state.take(requests),
            InputMode::Task(link) => link.ask(requests).await,
            InputMode::Session(link) => {
                // All asked at once (one round, as at 2026-07-28), answers kept in the order
                // asked; the first error wins.
                let (keys, asks): (Vec<String>, Vec<_>) = requests
                    .into_iter()
                    .map(|(key, request)| {
                        let request = with_input_key(request, &key);
                        (key, link.ask(self, request))
                    })
                    .unzip();
                let answers = futures_util::future::join_all(asks).await;
                let mut out = IndexMap::new();
                for (key, answer) in keys.into_iter().zip(answers) {
                    out.insert(key, answer?);
                }
                Ok(out)
            }
        }
    }
}

/// The `_meta` key naming the handler's key of a server→client input request at the handshake
/// revisions (vendor-prefixed, so peers ignore it): a proxy in front of this server for a
/// 2026-07-28 client (the bridge's direction B) uses it as the `inputRequests` key, so a
/// handler's keys look the same to a client of either era.
pub const INPUT_KEY_META: &str = "dev.mcp-wire/inputKey";

/// `request` with [`INPUT_KEY_META`] = `key` in its params' `_meta` (a request without params
/// is left as it is).
fn with_input_key(mut request: InputRequest, key: &str) -> InputRequest {
    if let Some(meta) = input_params_meta(&mut request) {
        meta.insert(INPUT_KEY_META.to_owned(), Value::String(key.to_owned()));
    }
    request
}

/// The `_meta` of an input request's params, created where absent; `None` when the request has
/// no params.
pub(crate) fn input_params_meta(request: &mut InputRequest) -> Option<&mut mcp_wire::model::Meta> {
    use mcp_wire::model::{ParamsMeta, RequestMeta};
    match request {
        InputRequest::CreateMessage(r) => Some(r.meta_mut()),
        InputRequest::Elicit(r) => Some(r.meta_mut()),
        InputRequest::ListRoots(r) => r
            .params
            .as_mut()
            .map(|p| p.meta_slot().get_or_insert_with(Default::default)),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The reserved `_meta` keys the runtime reads and writes (the model's one table of them).
pub use mcp_wire::model::meta::keys;
