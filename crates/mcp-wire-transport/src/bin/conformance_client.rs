//! `conformance_client`: the client the official MCP conformance suite scores in client mode.
//!
//! ```sh
//! conformance client --command /abs/path/conformance_client --requirements 2025-11-25
//! ```
//!
//! The suite runs it with the mock server's URL as the last argument and the scenario in
//! `MCP_CONFORMANCE_SCENARIO` (`MCP_CONFORMANCE_PROTOCOL_VERSION`: the revision to speak;
//! `MCP_CONFORMANCE_CONTEXT`: what the scenario hands out). [`SCENARIOS`] maps each scenario to
//! the calls it makes through the library's Streamable HTTP client; the revision picks the wire
//! (2026-07-28 and later: stateless). Exit status 0 when the calls went through.

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::codes;
use mcp_wire::jsonrpc::{JsonRpcNotification, JsonRpcRequest};
use mcp_wire::model::meta::keys;
use mcp_wire::model::{ClientNotification, ClientRequest, InitializedNotification};
use mcp_wire::wire::serialize_for_vec;
use mcp_wire_transport::client::oauth::{
    Assertion, FollowRedirect, Grant, OAuthClient, OAuthConfig, PreRegistered, PrivateKey, Secret,
};
use mcp_wire_transport::client::{
    Authorizer, ClientOptions, Wire, connect_streamable, tool_param_headers,
};
use mcp_wire_transport::server::oauth::{HttpSender, OAuthHttp};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Map, Value, json};

type Result<T, E = Box<dyn Error + Send + Sync>> = std::result::Result<T, E>;

/// What a scenario does once connected.
type Play = for<'a> fn(&'a mut Peer) -> futures_util::future::BoxFuture<'a, Result<()>>;

/// Scenario name → the calls it makes. Scenarios that share a shape share a row's function.
const SCENARIOS: &[(&str, Play)] = &[
    ("initialize", |p| Box::pin(list_then_call_first(p))),
    ("tools_call", |p| Box::pin(list_then_call_first(p))),
    // Without the standalone GET stream: the resumption GET is the only GET the server sees.
    ("sse-retry", |p| Box::pin(list_then_call_first(p))),
    ("request-metadata", |p| Box::pin(discover_then_list(p))),
    ("json-schema-ref-no-deref", |p| Box::pin(list_only(p))),
    ("json-schema-2020-12-preservation", |p| {
        Box::pin(echo_observed_schema(p))
    }),
    ("elicitation-sep1034-client-defaults", |p| {
        Box::pin(call_each_tool(p))
    }),
    ("sep-2322-client-request-state", |p| {
        Box::pin(request_state(p))
    }),
    ("http-standard-headers", |p| Box::pin(call_each_tool(p))),
    // Authorization: the same calls; the OAuth client (see `authorizer`) answers the 401s.
    ("auth/*", |p| Box::pin(list_then_call_first(p))),
    ("http-custom-headers", |p| Box::pin(context_tool_calls(p))),
    ("http-invalid-tool-headers", |p| Box::pin(call_each_tool(p))),
];

/// A connection to the scenario's server and what the requests made on it need.
struct Peer {
    connection: Connection,
    revision: ProtocolVersion,
    stateless: bool,
    next_id: i64,
}

/// What a request came back with: its result, or the JSON-RPC error object.
type Answer = std::result::Result<Value, Value>;

impl Peer {
    fn identity(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(
            keys::CLIENT_INFO.into(),
            json!({"name": "mcp-wire-conformance-client", "version": env!("CARGO_PKG_VERSION")}),
        );
        meta.insert(keys::CLIENT_CAPABILITIES.into(), capabilities());
        meta
    }

    async fn send(&self, body: &impl mcp_wire::wire::WireBody) -> Result<()> {
        let mut text = Vec::new();
        serialize_for_vec(body, self.revision, &mut text)?;
        Ok(self
            .connection
            .sender
            .send(Frame::from_emitted(text))
            .await?)
    }

    /// Sends `method` with `params` and waits for its answer. On the stateless wire a refusal
    /// of the revision (-32022) is retried once at the newest revision the server lists that
    /// this library knows.
    async fn request(&mut self, method: &str, params: Value) -> Result<Answer> {
        let answer = self.request_once(method, params.clone()).await?;
        let Err(error) = &answer else {
            return Ok(answer);
        };
        if !self.stateless || error["code"] != codes::UNSUPPORTED_PROTOCOL_VERSION {
            return Ok(answer);
        }
        let supported = error["data"]["supported"].as_array().into_iter().flatten();
        let known = supported.filter_map(|v| v.as_str()?.parse::<ProtocolVersion>().ok());
        match known.max() {
            Some(revision) => {
                self.revision = revision;
                self.request_once(method, params).await
            }
            None => Ok(answer),
        }
    }

    /// One request (the stateless wire's `_meta` identity added), serving the server's
    /// requests that arrive before its answer.
    async fn request_once(&mut self, method: &str, mut params: Value) -> Result<Answer> {
        if self.stateless {
            let identity = self.identity();
            let meta = params
                .as_object_mut()
                .ok_or("params must be an object")?
                .entry("_meta")
                .or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                for (key, value) in identity {
                    meta.entry(key).or_insert(value);
                }
            }
        }
        let request: ClientRequest =
            serde_json::from_value(json!({"method": method, "params": params}))?;
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&JsonRpcRequest::new(self.next_id, request))
            .await?;
        loop {
            let frame = self
                .connection
                .receiver
                .recv()
                .await
                .ok_or("the server closed the connection")?;
            let message = frame.to_value()?;
            if message.get("method").is_some() {
                if let Some(request_id) = message.get("id") {
                    self.serve(request_id.clone(), &message).await?;
                }
                continue;
            }
            if message["id"] != id {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Ok(Err(error.clone()));
            }
            return Ok(Ok(message["result"].clone()));
        }
    }

    /// Like [`Peer::request`], an error answer being the error.
    async fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.request(method, params)
            .await?
            .map_err(|e| format!("{method} failed: {e}").into())
    }

    /// Answers a request from the server: elicitations accepted with the requested schema's
    /// defaults, pings, anything else -32601.
    async fn serve(&self, id: Value, message: &Value) -> Result<()> {
        let answer = match message["method"].as_str() {
            Some("elicitation/create") => {
                json!({"result": accept_with_defaults(&message["params"])})
            }
            Some("ping") => json!({"result": {}}),
            _ => {
                json!({"error": {"code": codes::METHOD_NOT_FOUND, "message": "not served by this client"}})
            }
        };
        let mut body = answer;
        body["jsonrpc"] = json!("2.0");
        body["id"] = id;
        let frame = Frame::parse(serde_json::to_vec(&body)?)?;
        Ok(self.connection.sender.send(frame).await?)
    }

    async fn initialize(&mut self) -> Result<()> {
        let hello = json!({
            "protocolVersion": self.revision.as_str(),
            "capabilities": capabilities(),
            "clientInfo": {"name": "mcp-wire-conformance-client", "version": env!("CARGO_PKG_VERSION")},
        });
        self.call("initialize", hello).await?;
        let note = ClientNotification::from(InitializedNotification::new());
        self.send(&JsonRpcNotification::new(note)).await
    }

    /// The server's tools, without those whose `x-mcp-header` annotations are invalid.
    async fn list_tools(&mut self) -> Result<Vec<Value>> {
        let listed = self.call("tools/list", json!({})).await?;
        let tools = listed["tools"].as_array().into_iter().flatten();
        Ok(tools
            .filter(|tool| match tool_param_headers(tool) {
                Ok(_) => true,
                Err(e) => {
                    eprintln!("conformance_client: tool excluded: {e}");
                    false
                }
            })
            .cloned()
            .collect())
    }
}

/// The capabilities this client declares: elicitation (form, defaults applied) and sampling.
fn capabilities() -> Value {
    json!({"elicitation": {"form": {"applyDefaults": true}}, "sampling": {}, "roots": {}})
}

/// An elicitation accepted with every `default` of the requested schema's properties.
fn accept_with_defaults(params: &Value) -> Value {
    let content: Map<String, Value> = params["requestedSchema"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, schema)| Some((name.clone(), schema.get("default")?.clone())))
        .collect();
    json!({"action": "accept", "content": content})
}

async fn list_then_call_first(peer: &mut Peer) -> Result<()> {
    let tools = peer.list_tools().await?;
    if let Some(name) = tools.first().and_then(|t| t["name"].as_str()) {
        let params = json!({"name": name, "arguments": {"a": 2, "b": 3}});
        peer.call("tools/call", params).await?;
    }
    Ok(())
}

async fn list_only(peer: &mut Peer) -> Result<()> {
    peer.list_tools().await.map(drop)
}

async fn discover_then_list(peer: &mut Peer) -> Result<()> {
    peer.call("server/discover", json!({})).await?;
    peer.list_tools().await.map(drop)
}

/// Calls every (valid) tool, each required argument given a value of its type.
async fn call_each_tool(peer: &mut Peer) -> Result<()> {
    for tool in peer.list_tools().await? {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let params = json!({"name": name, "arguments": sample_arguments(&tool)});
        // A tool's own error is its scenario's business, not a failed run.
        let _tool_error_is_fine = peer.request("tools/call", params).await?;
    }
    Ok(())
}

/// A value of its type for each required property of `tool`'s input schema.
fn sample_arguments(tool: &Value) -> Value {
    let schema = &tool["inputSchema"];
    let required = schema["required"].as_array().into_iter().flatten();
    let arguments: Map<String, Value> = required
        .filter_map(|name| {
            let name = name.as_str()?;
            let value = match schema["properties"][name]["type"].as_str() {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("sample"),
            };
            Some((name.to_owned(), value))
        })
        .collect();
    Value::Object(arguments)
}

/// The tool calls `MCP_CONFORMANCE_CONTEXT` lists (`toolCalls`: name and arguments), after
/// listing the tools (which teaches the transport their `Mcp-Param-*` headers).
async fn context_tool_calls(peer: &mut Peer) -> Result<()> {
    let context: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT")?)?;
    let listed = peer.list_tools().await?;
    for call in context["toolCalls"].as_array().into_iter().flatten() {
        if !listed.iter().any(|t| t["name"] == call["name"]) {
            continue;
        }
        let params = json!({"name": call["name"], "arguments": call["arguments"]});
        peer.call("tools/call", params).await?;
    }
    Ok(())
}

async fn echo_observed_schema(peer: &mut Peer) -> Result<()> {
    let tools = peer.list_tools().await?;
    let focal = tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .ok_or("json_schema_2020_12_tool is not listed")?;
    let params = json!({"name": "json_schema_echo", "arguments": {"schema": focal["inputSchema"]}});
    peer.call("tools/call", params).await.map(drop)
}

/// SEP-2322: an `input_required` result is answered by repeating the call with the inputs and
/// the `requestState` echoed unchanged; a result without `resultType` is complete.
async fn request_state(peer: &mut Peer) -> Result<()> {
    for tool in peer.list_tools().await? {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let mut params = json!({"name": name, "arguments": {}});
        for _ in 0..4 {
            let result = peer.call("tools/call", params.clone()).await?;
            if result["resultType"] != "input_required" {
                break;
            }
            let responses: Map<String, Value> = result["inputRequests"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(key, request)| (key.clone(), answer_input(request)))
                .collect();
            params["inputResponses"] = Value::Object(responses);
            match result.get("requestState") {
                Some(state) => params["requestState"] = state.clone(),
                None => {
                    params.as_object_mut().map(|p| p.remove("requestState"));
                }
            }
        }
    }
    Ok(())
}

/// The answer to one input request of an `input_required` result.
fn answer_input(request: &Value) -> Value {
    match request["method"].as_str() {
        Some("elicitation/create") => accept_with_defaults(&request["params"]),
        Some("roots/list") => json!({"roots": []}),
        _ => json!({}),
    }
}

/// Where the suite's authorization servers redirect (never listened on: the redirect is read).
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document URL the suite's authorization servers accept.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth client of an `auth/*` scenario: the authorization code flow through redirects
/// the mock authorization server makes by itself, client credentials or a JWT bearer grant
/// where the scenario hands them out; a client pre-registered when `MCP_CONFORMANCE_CONTEXT`
/// names one; DPoP-bound tokens where the authorization server offers them.
fn authorizer(url: &str, scenario: &str) -> Result<Arc<dyn Authorizer>> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let http: Arc<dyn OAuthHttp> = Arc::new(HttpSender::default());
    let text = |name: &str| context[name].as_str().map(str::to_owned);
    let grant = match scenario {
        "auth/client-credentials-basic" | "auth/client-credentials-jwt" => Grant::ClientCredentials,
        "auth/wif-jwt-bearer" => Grant::JwtBearer(Assertion::Given(Secret::new(
            text("valid_jwt").ok_or("the context has no valid_jwt")?,
        ))),
        "auth/enterprise-managed-authorization" => Grant::JwtBearer(Assertion::TokenExchange {
            token_endpoint: text("idp_token_endpoint").ok_or("no idp_token_endpoint")?,
            client_id: text("idp_client_id").ok_or("no idp_client_id")?,
            id_token: Secret::new(text("idp_id_token").ok_or("no idp_id_token")?),
        }),
        _ => Grant::AuthorizationCode(Arc::new(FollowRedirect::new(http.clone(), REDIRECT_URI))),
    };
    let mut config = OAuthConfig::new(grant)
        .http(http)
        .client_name("mcp-wire-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL)
        .dpop(true);
    if let Some(client_id) = text("client_id") {
        let mut client = PreRegistered::new(client_id);
        if let Some(secret) = text("client_secret") {
            client = client.secret(Secret::new(secret));
        }
        if let Some(pem) = text("private_key_pem") {
            client = client.private_key(PrivateKey {
                pem: Secret::new(pem),
                algorithm: text("signing_algorithm").unwrap_or_else(|| "ES256".to_owned()),
            });
        }
        config = config.pre_registered(client);
    }
    Ok(Arc::new(OAuthClient::new(url, config)?))
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("conformance_client: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|a| a.starts_with("http"))
        .ok_or("usage: conformance_client URL (scenario in MCP_CONFORMANCE_SCENARIO)")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO")?;
    let revision: ProtocolVersion = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| "2025-11-25".to_owned())
        .parse()
        .map_err(|_| "unknown MCP_CONFORMANCE_PROTOCOL_VERSION")?;
    let play = SCENARIOS
        .iter()
        .find(|(name, _)| match name.strip_suffix('*') {
            Some(prefix) => scenario.starts_with(prefix),
            None => *name == scenario,
        })
        .map(|(_, play)| *play)
        .ok_or_else(|| format!("unknown scenario {scenario:?}"))?;
    let stateless = revision >= ProtocolVersion::V2026_07_28;
    let wire = if stateless {
        Wire::Stateless
    } else {
        Wire::Stateful
    };
    let mut options = ClientOptions::default()
        .request_timeout(Duration::from_secs(20))
        .open_get_stream(scenario != "sse-retry");
    if scenario.starts_with("auth/") {
        options = options.authorizer(authorizer(&url, &scenario)?);
    }
    let connection = connect_streamable(&url, wire, options)?;
    let mut peer = Peer {
        connection,
        revision,
        stateless,
        next_id: 0,
    };
    if !stateless {
        peer.initialize().await?;
        // A server request sent outside any POST (an elicitation from inside a tool) reaches
        // only a standalone stream that is already open.
        peer.connection.server_stream_ready().await;
    }
    let played = play(&mut peer).await;
    peer.connection.close();
    peer.connection.ended().await;
    played
}
