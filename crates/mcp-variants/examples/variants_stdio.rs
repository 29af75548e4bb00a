//! A variant-aware MCP server over stdio (newline-delimited JSON-RPC).
//!
//! `cargo run -p mcp-variants --example variants_stdio`, then type frames, one per line:
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

use mcp_types::ProtocolVersion;
use mcp_variants::error::{INVALID_PARAMS, METHOD_NOT_FOUND, RpcError};
use mcp_variants::wire::hint_keys;
use mcp_variants::{
    DeprecationInfo, Dispatch, InitializeInput, Principal, RequestView, RouteDecision,
    ScopedMethod, ServerVariant, VariantCatalog, VariantRouter, VariantSession, VariantStatus,
};
use serde_json::{Map, Value, json};

/// JSON-RPC "Parse error".
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request".
const INVALID_REQUEST: i64 = -32600;
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

fn catalog(key: &[u8]) -> Result<Arc<VariantCatalog<Handle>>, mcp_variants::CatalogError> {
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
    principal: Principal,
}

impl Server {
    /// Answers one incoming frame; `None` for notifications and responses.
    fn handle_line(&mut self, line: &str) -> Option<Value> {
        let frame: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return Some(error_frame(
                    Value::Null,
                    RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
                ));
            }
        };
        let id = frame.get("id").cloned();
        let method = frame.get("method").and_then(Value::as_str);
        let valid_id = matches!(id, Some(Value::String(_) | Value::Number(_)));
        match (method, id) {
            // A notification (initialized, cancelled, …): nothing to answer.
            (Some(_), None) if frame.get("jsonrpc") == Some(&json!("2.0")) => None,
            // A response to a request we never sent: ignore.
            (None, Some(_)) if frame.get("result").is_some() || frame.get("error").is_some() => {
                None
            }
            (Some(method), Some(id)) if valid_id && frame.get("jsonrpc") == Some(&json!("2.0")) => {
                let params = frame.get("params");
                Some(match self.handle_request(method, params) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(e) => error_frame(id, e),
                })
            }
            (_, id) => Some(error_frame(
                id.filter(|_| valid_id).unwrap_or(Value::Null),
                RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: expected {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…}",
                ),
            )),
        }
    }

    fn handle_request(&mut self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        if params.is_some_and(|p| !p.is_object()) {
            return Err(RpcError::new(INVALID_PARAMS, "params must be an object"));
        }
        if method == "initialize" {
            return self.initialize(params);
        }
        let Some(session) = &self.session else {
            // No session: variants do not exist here (this is also what a 2026-07-28 client sees).
            self.router
                .check_sessionless(params, None)
                .map_err(|e| e.to_rpc_error())?;
            return match method {
                "ping" => Ok(json!({})),
                m if ScopedMethod::from_method(m).is_some() => Err(RpcError::new(
                    INVALID_REQUEST,
                    "Server not initialized: send initialize first",
                )),
                m => Err(method_not_found(m)),
            };
        };
        match session.route(&RequestView::new(method, params, &self.principal)) {
            RouteDecision::Reject(e) => Err(e.to_rpc_error()),
            RouteDecision::Passthrough => match method {
                "ping" => Ok(json!({})),
                m => Err(method_not_found(m)),
            },
            RouteDecision::Dispatch(d) => {
                let forwarded = d.rewrite_params(params);
                let mut result = serve(&d, &forwarded).map_err(|e| d.enrich_error(e))?;
                if let ScopedMethod::List(_) = d.method {
                    session.finish_list_result(&d, &mut result);
                }
                Ok(result)
            }
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, RpcError> {
        if self.session.is_some() {
            return Err(RpcError::new(INVALID_REQUEST, "Already initialized"));
        }
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::new(
                    INVALID_PARAMS,
                    "params.protocolVersion: expected a string, found nothing",
                )
            })?;
        let version = negotiate(requested);
        let negotiated = self
            .router
            .initialize(
                InitializeInput::new(version, params.and_then(|p| p.get("capabilities")))
                    .with_principal(self.principal.clone())
                    .with_session_tag(format!("stdio-{}", std::process::id())),
            )
            .map_err(|e| e.to_rpc_error())?;
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if let Some(ad) = &negotiated.advertisement {
            ad.apply_to(&mut capabilities);
        }
        self.session = Some(negotiated.session);
        Ok(json!({
            "protocolVersion": version.as_str(),
            "capabilities": capabilities,
            "serverInfo": {"name": "variants-stdio", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Pick a variant per request with _meta[\"io.modelcontextprotocol/server-variant\"]."
        }))
    }
}

/// What a variant's backend does with a routed request.
fn serve(d: &Dispatch<Handle>, params: &Value) -> Result<Value, RpcError> {
    match d.method {
        ScopedMethod::List(mcp_variants::ListKind::Tools) => {
            let start = match &d.inner_cursor {
                None => 0,
                Some(c) => c.parse::<usize>().map_err(|_| {
                    RpcError::new(INVALID_PARAMS, format!("params.cursor: bad page '{c}'"))
                })?,
            };
            let tools = d.backend.tools;
            let page: Vec<Value> = tools
                .iter()
                .skip(start)
                .take(PAGE_SIZE)
                .map(tool_definition)
                .collect();
            let mut result = json!({"tools": page});
            if start + PAGE_SIZE < tools.len() {
                result["nextCursor"] = json!((start + PAGE_SIZE).to_string());
            }
            Ok(result)
        }
        ScopedMethod::CallTool => {
            let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
                RpcError::new(
                    INVALID_PARAMS,
                    "params.name: expected a string, found nothing",
                )
            })?;
            let tool = d
                .backend
                .tools
                .iter()
                .find(|t| t.name == name)
                .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("Unknown tool: {name}")))?;
            let argument = params
                .get("arguments")
                .and_then(|a| a.get(tool.argument))
                .and_then(Value::as_str)
                .unwrap_or("");
            let text = format!(
                "{} ({}) served by variant {}: {}",
                tool.name, tool.argument, d.variant, argument
            );
            Ok(json!({"content": [{"type": "text", "text": text}], "isError": false}))
        }
        // The server advertises tools only; other scoped methods do not exist in any variant.
        other => Err(method_not_found(other.method())),
    }
}

fn tool_definition(tool: &ToolSpec) -> Value {
    let mut properties = Map::new();
    properties.insert(tool.argument.into(), json!({"type": "string"}));
    json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": {"type": "object", "properties": properties, "required": [tool.argument]}
    })
}

fn method_not_found(method: &str) -> RpcError {
    RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
}

fn error_frame(id: Value, error: RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = Server {
        router: VariantRouter::new(catalog(&cursor_key())?),
        session: None,
        principal: Principal::anonymous(),
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
