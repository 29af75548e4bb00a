//! A variant-aware MCP server over stdio (newline-delimited JSON-RPC).
//!
//! `cargo run -p mcp-wire-variants --example variants_stdio`, then type frames, one per line:
//!
//! ```text
//! {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/server-variants":{"variantHints":{"hints":{"contextSize":"verbose"}}}}},"clientInfo":{"name":"me","version":"0"}}}
//! {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/server-variant":"preview"}}}
//! ```
//!
//! Four variants: `compact` (stable; `search`), `full` (stable; `search`, `fetch`, `summarize`),
//! `preview` (experimental; `full` plus `translate`) and `legacy` (deprecated in favour of `full`;
//! `search_v1`). `tools/list` pages two tools at a time. Protocol revisions 2024-11-05 …
//! 2025-11-25 are negotiated with `initialize`; anything newer is answered with 2025-11-25.
//!
//! Set `MCP_VARIANTS_CURSOR_KEY` to choose the cursor-signing secret; by default a per-process
//! key is derived from the process id and start time (fine for a demo, not for production).

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{
    ErrorData, JsonObject, JsonRpcError, JsonRpcMessage, JsonRpcResponse, RawRequest, RequestId,
};
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, ServerCapabilities, Tool, ToolsCapability, codes,
    from_value,
};
use mcp_wire::wire::{WireBody, serialize_for};
use mcp_wire_variants::wire::hint_keys;
use mcp_wire_variants::{
    DeprecationInfo, Dispatch, InitializeInput, ListKind, PrincipalKey, RequestView, RouteDecision,
    ScopedMethod, ServerVariant, VariantCatalog, VariantRouter, VariantSession, VariantStatus,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Tools per `tools/list` page.
const PAGE_SIZE: usize = 2;

/// One tool of a backend: name, description, and the single string argument it takes.
struct ToolSpec {
    name: &'static str,
    description: &'static str,
    argument: &'static str,
}

/// A variant's backend: its tools. The router hands out `&'static Backend` handles.
struct Backend {
    tools: &'static [ToolSpec],
}

const SEARCH: ToolSpec = ToolSpec {
    name: "search",
    description: "Search the index.",
    argument: "query",
};
const FETCH: ToolSpec = ToolSpec {
    name: "fetch",
    description: "Fetch a document by URL and return its text.",
    argument: "url",
};
const SUMMARIZE: ToolSpec = ToolSpec {
    name: "summarize",
    description: "Summarize a text in a few sentences.",
    argument: "text",
};
const TRANSLATE: ToolSpec = ToolSpec {
    name: "translate",
    description: "Translate a text to English (experimental).",
    argument: "text",
};
const SEARCH_V1: ToolSpec = ToolSpec {
    name: "search_v1",
    description: "First-generation search, kept for migration.",
    argument: "q",
};

static COMPACT: Backend = Backend { tools: &[SEARCH] };
static FULL: Backend = Backend {
    tools: &[SEARCH, FETCH, SUMMARIZE],
};
static PREVIEW: Backend = Backend {
    tools: &[SEARCH, FETCH, SUMMARIZE, TRANSLATE],
};
static LEGACY: Backend = Backend {
    tools: &[SEARCH_V1],
};

type Handle = &'static Backend;

fn catalog(key: &[u8]) -> Result<Arc<VariantCatalog<Handle>>, mcp_wire_variants::CatalogError> {
    VariantCatalog::builder()
        .variant(
            ServerVariant::new(
                "compact",
                "One search tool with terse output; small context budgets.",
            )
            .with_hint(hint_keys::CONTEXT_SIZE, "compact"),
            0,
            &COMPACT,
        )
        .variant(
            ServerVariant::new(
                "full",
                "Search, fetch and summarize; the general-purpose set.",
            )
            .with_hint(hint_keys::CONTEXT_SIZE, "verbose"),
            1,
            &FULL,
        )
        .variant(
            ServerVariant::new("preview", "Everything in full plus translate; may change.")
                .with_hint(hint_keys::CONTEXT_SIZE, "verbose")
                .with_status(VariantStatus::Experimental),
            2,
            &PREVIEW,
        )
        .variant(
            ServerVariant::new("legacy", "The first-generation search tool.").deprecated(
                DeprecationInfo::new("search_v1 is superseded by search in the full variant.")
                    .with_replacement("full")
                    .with_removal_date("2027-06-30"),
            ),
            3,
            &LEGACY,
        )
        .cursor_key(key)
        .build()
}

fn cursor_key() -> Vec<u8> {
    if let Ok(key) = std::env::var("MCP_VARIANTS_CURSOR_KEY") {
        return key.into_bytes();
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("variants-stdio-demo-{}-{nanos}", std::process::id()).into_bytes()
}

/// The negotiated revision: the client's when it is a handshake revision we speak, else ours.
fn negotiate(requested: &str) -> ProtocolVersion {
    match requested.parse::<ProtocolVersion>() {
        Ok(v) if v <= ProtocolVersion::LATEST_HANDSHAKE => v,
        _ => ProtocolVersion::LATEST_HANDSHAKE,
    }
}

struct Server {
    router: VariantRouter<Handle>,
    session: Option<VariantSession<Handle>>,
    /// The negotiated revision (the newest handshake revision until `initialize`).
    version: ProtocolVersion,
    principal: PrincipalKey,
}

/// One untyped JSON-RPC message, as the superset envelope reads it.
type Message = JsonRpcMessage<RawRequest, RawRequest, JsonObject>;

impl Server {
    /// Answers one incoming line; `None` for notifications and responses.
    fn handle_line(&mut self, line: &str) -> Option<Value> {
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let error = ErrorData::new(codes::PARSE_ERROR, format!("Parse error: {e}"));
                return Some(to_json(&JsonRpcError::new(None, error)));
            }
        };
        // Keep the id, if it is a valid one, to answer a broken envelope with it.
        let id = value
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        match Message::from_value(value) {
            Err(e) => Some(to_json(&JsonRpcError::new(id, ErrorData::from(&e)))),
            // Notifications (initialized, cancelled, …) and stray responses need no answer.
            Ok(JsonRpcMessage::Request(request)) => {
                let RawRequest { method, params, .. } = request.request;
                let params = params.map(Value::Object);
                Some(match self.handle_request(&method, params.as_ref()) {
                    Ok(result) => to_json(&JsonRpcResponse::new(request.id, result)),
                    Err(error) => to_json(&JsonRpcError::new(Some(request.id), error)),
                })
            }
            Ok(_) => None,
        }
    }

    fn handle_request(&mut self, method: &str, params: Option<&Value>) -> Result<Value, ErrorData> {
        if method == "initialize" {
            return self.initialize(params);
        }
        let Some(session) = &self.session else {
            // No session: variants do not exist here (this is also what a 2026-07-28 client sees).
            self.router
                .check_sessionless(params, None)
                .map_err(|e| e.to_error_data())?;
            return match method {
                "ping" => Ok(json!({})),
                m if ScopedMethod::from_method(m).is_some() => Err(ErrorData::new(
                    codes::INVALID_REQUEST,
                    "Server not initialized: send initialize first",
                )),
                m => Err(method_not_found(m)),
            };
        };
        match session.route(&RequestView::new(method, params, &self.principal)) {
            RouteDecision::Reject(e) => Err(e.to_error_data()),
            RouteDecision::Passthrough => match method {
                "ping" => Ok(json!({})),
                m => Err(method_not_found(m)),
            },
            RouteDecision::Dispatch(d) => {
                let forwarded = d.rewrite_params(params);
                serve(session, &d, forwarded, self.version).map_err(|e| d.enrich_error(e))
            }
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorData> {
        if self.session.is_some() {
            return Err(ErrorData::new(
                codes::INVALID_REQUEST,
                "Already initialized",
            ));
        }
        let params: InitializeRequestParams = parse_params(params)
            .map_err(|e| ErrorData::from(&e.under(&mcp_wire::JsonPath::root().key("params"))))?;
        let version = negotiate(&params.protocol_version);
        let negotiated = self
            .router
            .initialize(
                InitializeInput::from_capabilities(version, &params.capabilities)
                    .with_principal(self.principal.clone())
                    .with_session_tag(format!("stdio-{}", std::process::id())),
            )
            .map_err(|e| e.to_error_data())?;
        let mut capabilities =
            ServerCapabilities::new().with_tools(ToolsCapability::new().with_list_changed(false));
        if let Some(ad) = &negotiated.advertisement {
            ad.apply_to_capabilities(&mut capabilities);
        }
        self.session = Some(negotiated.session);
        let result = InitializeResult::new(
            version.as_str(),
            capabilities,
            Implementation::new("variants-stdio", env!("CARGO_PKG_VERSION")),
        )
        .with_instructions(
            "Pick a variant per request with _meta[\"io.modelcontextprotocol/server-variant\"].",
        );
        self.version = version;
        emit(&result, version)
    }
}

/// What a variant's backend does with a routed request (`params` already rewritten).
fn serve(
    session: &VariantSession<Handle>,
    d: &Dispatch<Handle>,
    params: Value,
    version: ProtocolVersion,
) -> Result<Value, ErrorData> {
    match d.method {
        ScopedMethod::List(ListKind::Tools) => {
            let start = match &d.inner_cursor {
                None => 0,
                Some(c) => c.parse::<usize>().map_err(|_| {
                    ErrorData::new(
                        codes::INVALID_PARAMS,
                        format!("params.cursor: bad page '{c}'"),
                    )
                })?,
            };
            let tools = d.backend.tools;
            let page = tools
                .iter()
                .skip(start)
                .take(PAGE_SIZE)
                .map(tool_definition)
                .collect();
            let mut result = ListToolsResult::new(page);
            let next = (start + PAGE_SIZE < tools.len()).then(|| (start + PAGE_SIZE).to_string());
            // The backend's page number leaves the server only wrapped in a signed cursor.
            if let Some(cursor) = session.finish_list(d, next.as_deref()) {
                result = result.with_next_cursor(cursor);
            }
            emit(&result, version)
        }
        ScopedMethod::CallTool => {
            let call: CallToolRequestParams = from_value(params).map_err(|e| {
                ErrorData::from(&e.under(&mcp_wire::JsonPath::root().key("params")))
            })?;
            let tool = d
                .backend
                .tools
                .iter()
                .find(|t| t.name == call.name)
                .ok_or_else(|| {
                    ErrorData::new(
                        codes::INVALID_PARAMS,
                        format!("Unknown tool: {}", call.name),
                    )
                })?;
            let argument = call
                .arguments
                .as_ref()
                .and_then(|a| a.get(tool.argument))
                .and_then(Value::as_str)
                .unwrap_or("");
            let text = format!(
                "{} ({}) served by variant {}: {}",
                tool.name, tool.argument, d.variant, argument
            );
            emit(&CallToolResult::text(text).with_is_error(false), version)
        }
        // The server advertises tools only; other scoped methods do not exist in any variant.
        other => Err(method_not_found(other.method())),
    }
}

fn tool_definition(tool: &ToolSpec) -> Tool {
    let mut schema = Tool::empty_input_schema();
    let mut properties = Map::new();
    properties.insert(tool.argument.into(), json!({"type": "string"}));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), json!([tool.argument]));
    Tool::new(tool.name, schema).with_description(tool.description)
}

fn parse_params<T: serde::de::DeserializeOwned>(
    params: Option<&Value>,
) -> Result<T, mcp_wire::model::ModelError> {
    from_value(params.cloned().unwrap_or_else(|| json!({})))
}

fn method_not_found(method: &str) -> ErrorData {
    ErrorData::new(
        codes::METHOD_NOT_FOUND,
        format!("Method not found: {method}"),
    )
}

/// A result as the negotiated revision carries it: through the version boundary, like any
/// server's output (the advertisement in `capabilities.extensions` passes at every handshake
/// revision).
fn emit<B: WireBody>(result: &B, version: ProtocolVersion) -> Result<Value, ErrorData> {
    serialize_for(result, version)
        .map_err(|e| ErrorData::new(codes::INTERNAL_ERROR, format!("Internal error: {e}")))
}

fn to_json<T: Serialize>(value: &T) -> Value {
    // Every value here is built from JSON-compatible types, so this cannot fail.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = Server {
        router: VariantRouter::new(catalog(&cursor_key())?),
        session: None,
        version: ProtocolVersion::LATEST_HANDSHAKE,
        principal: PrincipalKey::anonymous(),
    };
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(reply) = server.handle_line(&line) {
            serde_json::to_writer(&mut stdout, &reply)?;
            stdout.write_all(b"\n")?;
            stdout.flush()?;
        }
    }
    Ok(())
}
