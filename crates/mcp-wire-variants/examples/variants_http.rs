//! A variant-aware MCP server over Streamable HTTP: `mcp_wire_variants::live::VariantServer` on the
//! `mcp-wire-transport` runtime. Run `cargo run -p mcp-wire-variants --example variants_http -- --help`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    CallToolRequestParams, CallToolResult, Implementation, ReadResourceResult, Resource,
    ServerCapabilities, TextResourceContents, Tool,
};
use mcp_wire_transport::server::oauth::{AUTH_OPTIONS_HELP, AuthOptions};
use mcp_wire_transport::server::{
    Authenticator, BearerTokens, Handler, HandlerError, HandlerResult, Principal, RequestContext,
    ServerConfig,
};
use mcp_wire_transport::server::{REPLICA_OPTIONS_HELP, ReplicaOptions};
use mcp_wire_transport::telemetry::{LogFormat, MetricsEndpoint, install_log_subscriber};
use mcp_wire_variants::live::{ResourceUpdate, SubscriptionProvider, VariantServer};
use mcp_wire_variants::wire::hint_keys;
use mcp_wire_variants::{
    AdvertisePolicy, DeprecationInfo, ServerVariant, VariantId, VariantStatus,
};
use serde_json::{Map, Value, json};

const HELP: &str = "\
variants_http: a variant-aware MCP server (SEP-2053) over Streamable HTTP at /mcp.

USAGE:
    variants_http [--listen HOST:PORT] [--tick-ms N] [--revisions V1,V2,...]
                  [--log-format text|json] [--metrics HOST:PORT]
                  [--store redis://HOST:PORT[/DB] --secret-file PATH]
                  [--auth-issuer URL [--auth-scopes A,B] [--resource URL] ...]

OPTIONS:
    --listen HOST:PORT   where to listen (default 127.0.0.1:3000; port 0 picks a free one).
                         The first line on stdout is the endpoint URL.
    --tick-ms N          every N ms each subscribed resource reports an update (default 1000)
    --revisions LIST     the protocol revisions offered (default: 2024-11-05 … 2026-07-28)
    --log-format FORMAT  logs on stderr as text lines or JSON objects (default text); the
                         levels come from RUST_LOG (default info)
    --metrics HOST:PORT  serve the metrics at http://HOST:PORT/metrics (default: off)
    --store, --secret-file  run as one replica of several behind a load balancer: the
                         sessions, their variant lists and subscriptions live in that Redis;
                         the cursor key is derived from the secret (see below)
    --help               this text

VARIANTS (same four as the variants_stdio example; tools/list pages two tools at a time):
    compact   stable        search
    full      stable        search, fetch, summarize
    preview   experimental  search, fetch, summarize, translate
    legacy    deprecated    search_v1 (replacement: full)
Every variant has the resource demo://status; full and preview also demo://index.
Subscribe to one and updates arrive on the session's GET stream, tagged with the variant.

AUTHENTICATION (every request needs a known bearer token):
    Authorization: Bearer alice   sees all four variants
    Authorization: Bearer bob     sees compact, full and legacy (not preview)
    no token or an unknown one    HTTP 401 with a WWW-Authenticate challenge
With --auth-issuer the tokens are OAuth access tokens instead (the two above are refused): the
principal is the token's subject as its issuer vouches for it, and the subject alice sees all
four variants, everyone else the three others.

SELECTING A VARIANT:
    params._meta[\"io.modelcontextprotocol/server-variant\"] = \"full\"   (wins over the header)
    MCP-Server-Variant: full                                       (HTTP header)
    neither: the first variant of the list advertised at initialize.
The list is advertised to clients that send capabilities.extensions
[\"io.modelcontextprotocol/server-variants\"] (optionally with variantHints); other clients see
a plain server. At 2026-07-28 the extension does not exist: the first-ranked stable variant
answers and any selector is refused (-32602 \"Server variants not supported\").
";

/// One tool of a backend: name, description, and the single string argument it takes.
struct ToolSpec {
    name: &'static str,
    description: &'static str,
    argument: &'static str,
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

/// A variant's inner server: an ordinary transport handler.
struct Demo {
    variant: &'static str,
    tools: &'static [ToolSpec],
    resources: &'static [&'static str],
}

impl Handler for Demo {
    fn server_info(&self) -> Implementation {
        Implementation::new(format!("variants-http-{}", self.variant), "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(json!({
            "tools": {"listChanged": false},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        }))
        .unwrap_or_default()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(self.tools.iter().map(tool_definition).collect())
    }

    async fn call_tool(
        &self,
        _: RequestContext,
        call: CallToolRequestParams,
    ) -> HandlerResult<CallToolResult> {
        let tool = self
            .tools
            .iter()
            .find(|t| t.name == call.name)
            .ok_or_else(|| HandlerError::invalid_params(format!("Unknown tool: {}", call.name)))?;
        let argument = call
            .arguments
            .as_ref()
            .and_then(|a| a.get(tool.argument))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(CallToolResult::text(format!(
            "{} ({}) served by variant {}: {argument}",
            tool.name, tool.argument, self.variant
        )))
    }

    async fn list_resources(&self, _: &RequestContext) -> HandlerResult<Vec<Resource>> {
        Ok(self
            .resources
            .iter()
            .map(|uri| Resource::new(*uri, uri.trim_start_matches("demo://")))
            .collect())
    }

    async fn read_resource(
        &self,
        ctx: RequestContext,
        uri: String,
    ) -> HandlerResult<ReadResourceResult> {
        if !self.resources.contains(&uri.as_str()) {
            return Err(HandlerError::resource_not_found(ctx.revision(), &uri));
        }
        let text = format!("{uri} in variant {}", self.variant);
        Ok(ReadResourceResult::new(vec![
            TextResourceContents::new(uri, text).into(),
        ]))
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

/// Every subscribed resource reports an update every `tick`.
struct Ticker {
    tick: Duration,
}

impl SubscriptionProvider for Ticker {
    fn open(&self, _: &VariantId, _: &str) -> BoxStream<'static, ResourceUpdate> {
        let mut interval = tokio::time::interval(self.tick);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        futures_util::stream::unfold(interval, |mut interval| async move {
            interval.tick().await;
            Some((ResourceUpdate::Updated, interval))
        })
        .skip(1)
        .boxed()
    }
}

/// The front server; `preview_readers` are the principal keys (`Principal::key`) that see the
/// preview variant.
fn front(
    tick: Duration,
    preview_readers: Vec<String>,
    cursor_key: Vec<u8>,
) -> Result<VariantServer, mcp_wire_variants::live::LiveConfigError> {
    static STATUS: &[&str] = &["demo://status"];
    static INDEXED: &[&str] = &["demo://status", "demo://index"];
    VariantServer::builder(Implementation::new("variants-http", "1.0.0"))
        .variant(
            ServerVariant::new(
                "compact",
                "One search tool with terse output; small context budgets.",
            )
            .with_hint(hint_keys::CONTEXT_SIZE, "compact"),
            0,
            Demo {
                variant: "compact",
                tools: &[SEARCH],
                resources: STATUS,
            },
        )
        .variant(
            ServerVariant::new(
                "full",
                "Search, fetch and summarize; the general-purpose set.",
            )
            .with_hint(hint_keys::CONTEXT_SIZE, "verbose"),
            1,
            Demo {
                variant: "full",
                tools: &[SEARCH, FETCH, SUMMARIZE],
                resources: INDEXED,
            },
        )
        .variant(
            ServerVariant::new("preview", "Everything in full plus translate; may change.")
                .with_hint(hint_keys::CONTEXT_SIZE, "verbose")
                .with_status(VariantStatus::Experimental),
            2,
            Demo {
                variant: "preview",
                tools: &[SEARCH, FETCH, SUMMARIZE, TRANSLATE],
                resources: INDEXED,
            },
        )
        .variant(
            ServerVariant::new("legacy", "The first-generation search tool.").deprecated(
                DeprecationInfo::new("search_v1 is superseded by search in the full variant.")
                    .with_replacement("full")
                    .with_removal_date("2027-06-30"),
            ),
            3,
            Demo {
                variant: "legacy",
                tools: &[SEARCH_V1],
                resources: STATUS,
            },
        )
        .catalog(|c| {
            c.cursor_key(cursor_key)
                .advertise(AdvertisePolicy::WhenClientOptsIn)
                .visibility(move |variant, principal| {
                    variant.id != "preview" || preview_readers.iter().any(|k| k == principal.key())
                })
        })
        .page_size(2)
        .provider(Ticker { tick })
        .instructions(
            "Pick a variant per request with _meta[\"io.modelcontextprotocol/server-variant\"] \
             or the MCP-Server-Variant header.",
        )
        .build()
}

/// The cursor-signing key: derived from the replicas' shared secret (`--secret-file`), else
/// `MCP_VARIANTS_CURSOR_KEY`, else random per process.
fn cursor_key(shared_secret: Option<&[u8]>) -> Vec<u8> {
    if let Some(secret) = shared_secret {
        use sha2::Digest;
        let mut hash = sha2::Sha256::new();
        hash.update(b"mcp-wire-variants cursor key\0");
        hash.update(secret);
        return hash.finalize().to_vec();
    }
    if let Ok(key) = std::env::var("MCP_VARIANTS_CURSOR_KEY") {
        return key.into_bytes();
    }
    let mut key = vec![0u8; 32];
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    for (i, b) in format!("{nanos:032x}{}", std::process::id())
        .bytes()
        .enumerate()
    {
        key[i % 32] ^= b;
    }
    key
}

fn usage(problem: &str) -> ! {
    eprintln!("variants_http: {problem}\n\n{HELP}");
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut listen = "127.0.0.1:3000".to_owned();
    let mut tick = Duration::from_secs(1);
    let mut revisions = ProtocolVersion::ALL.to_vec();
    let mut log_format = LogFormat::Text;
    let mut metrics = None;
    let mut args = std::env::args().skip(1);
    let mut auth = AuthOptions::default();
    let mut replica = ReplicaOptions::default();
    while let Some(arg) = args.next() {
        if auth
            .take(&arg, || args.next())
            .unwrap_or_else(|e| usage(&e))
            || replica
                .take(&arg, || args.next())
                .unwrap_or_else(|e| usage(&e))
        {
            continue;
        }
        match arg.as_str() {
            "--help" | "-h" => {
                print!("{HELP}\n{REPLICA_OPTIONS_HELP}\n\n{AUTH_OPTIONS_HELP}\n");
                return Ok(());
            }
            "--listen" => {
                listen = args
                    .next()
                    .unwrap_or_else(|| usage("--listen needs HOST:PORT"))
            }
            "--tick-ms" => {
                let ms = args
                    .next()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or_else(|| usage("--tick-ms needs a number"));
                tick = Duration::from_millis(ms.max(1));
            }
            "--revisions" => {
                let list = args
                    .next()
                    .unwrap_or_else(|| usage("--revisions needs a list"));
                revisions = list
                    .split(',')
                    .map(|v| {
                        v.trim()
                            .parse()
                            .unwrap_or_else(|_| usage(&format!("unknown revision {v:?}")))
                    })
                    .collect();
            }
            "--log-format" => {
                log_format = args
                    .next()
                    .unwrap_or_else(|| usage("--log-format needs text or json"))
                    .parse()
                    .unwrap_or_else(|e: String| usage(&e));
            }
            "--metrics" => {
                metrics = Some(
                    args.next()
                        .unwrap_or_else(|| usage("--metrics needs HOST:PORT")),
                );
            }
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    install_log_subscriber(log_format)?;
    // Held until the process ends.
    let _metrics = match metrics {
        Some(addr) => Some(MetricsEndpoint::bind(addr).await?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let addr = listener.local_addr()?;
    // The subject alice sees the preview: the demo token's principal, or alice as each
    // accepted authorization server vouches for her.
    let mut preview_readers = vec!["alice".to_owned()];
    let authenticator: Arc<dyn Authenticator> =
        match auth.resource_server(addr).unwrap_or_else(|e| usage(&e)) {
            Some(resource_server) => {
                preview_readers = auth.issuers.iter().map(|i| format!("{i} alice")).collect();
                Arc::new(resource_server)
            }
            None => Arc::new(
                BearerTokens::new()
                    .with_token("alice", Principal::new("alice", vec![]))
                    .with_token("bob", Principal::new("bob", vec![])),
            ),
        };
    let secret = replica.secret().unwrap_or_else(|e| usage(&e));
    let config = replica
        .configure(ServerConfig {
            revisions,
            authenticator,
            ..ServerConfig::default()
        })
        .unwrap_or_else(|e| usage(&e));
    let server =
        front(tick, preview_readers, cursor_key(secret.as_deref()))?.into_server(config)?;
    println!("http://{addr}/mcp");
    server.serve(listener).await?;
    Ok(())
}
