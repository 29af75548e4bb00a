//! A small MCP client on mcp-wire: connects to a server over Streamable HTTP or stdio, lists its
//! tools, resources and prompts, runs the operations named on the command line, and prints what
//! it saw as one JSON object.
//!
//! ```sh
//! cargo run -p mcp-wire-transport --example client -- http://127.0.0.1:3000/mcp \
//!     call add '{"a": 2, "b": 3}' read note://hello prompt greet '{"name": "Ada"}'
//! cargo run -p mcp-wire-transport --example client -- stdio 'target/debug/examples/server --stdio' \
//!     call echo '{"text": "hi"}'
//! ```
//!
//! It speaks 2025-11-25 (`initialize` first); every request is emitted with
//! `serialize_for_vec` and every answer typed with `parse_result_for` at that revision.

use std::error::Error;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{JsonRpcNotification, JsonRpcRequest};
use mcp_wire::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientNotification, ClientRequest,
    GetPromptRequest, GetPromptRequestParams, Implementation, InitializeRequest,
    InitializeRequestParams, InitializedNotification, ListPromptsRequest, ListResourcesRequest,
    ListToolsRequest, ReadResourceRequest, ReadResourceRequestParams,
};
use mcp_wire::wire::{MethodResult, WireBody, parse_result_for, serialize_for_vec};
use mcp_wire_transport::client::{ClientOptions, Wire, connect_streamable};
use mcp_wire_transport::stdio::{StdioOptions, spawn_child};
use mcp_wire_transport::{Connection, Frame};
use serde_json::{Map, Value, json};

const REVISION: ProtocolVersion = ProtocolVersion::V2025_11_25;

type Result<T, E = Box<dyn Error>> = std::result::Result<T, E>;

/// A connection and the next request id.
struct Client {
    connection: Connection,
    next_id: i64,
}

impl Client {
    async fn send(&self, body: &impl WireBody) -> Result<()> {
        let mut text = Vec::new();
        serialize_for_vec(body, REVISION, &mut text)?;
        Ok(self
            .connection
            .sender
            .send(Frame::from_emitted(text))
            .await?)
    }

    /// Sends `request` and waits for its answer: the typed result, or the JSON-RPC error
    /// object the server answered with.
    async fn request(&mut self, request: impl Into<ClientRequest>) -> Result<Result<Value, Value>> {
        let request: ClientRequest = request.into();
        let method = request.method();
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&JsonRpcRequest::new(self.next_id, request))
            .await?;
        loop {
            let frame = self.connection.receiver.recv().await;
            let answer = frame
                .ok_or("the server closed the connection")?
                .to_value()?;
            if answer["id"] != id {
                continue; // a notification, or a request this client does not serve
            }
            if let Some(error) = answer.get("error") {
                return Ok(Err(error.clone()));
            }
            let MethodResult::Server(result) =
                parse_result_for(method, &answer["result"], REVISION)?
            else {
                return Err(format!("{method} was answered with a client result").into());
            };
            return Ok(Ok(serde_json::to_value(result)?));
        }
    }
}

/// Connects to `target`: an `http://` URL, or `stdio` and a command line to start.
fn connect(target: &str, args: &mut impl Iterator<Item = String>) -> Result<Connection> {
    if target != "stdio" {
        return Ok(connect_streamable(
            target,
            Wire::Stateful,
            ClientOptions::default(),
        )?);
    }
    let line = args.next().ok_or("stdio needs a command line")?;
    let mut words = line.split_whitespace();
    let mut command = tokio::process::Command::new(words.next().ok_or("an empty command")?);
    command.args(words).stderr(std::process::Stdio::inherit());
    Ok(spawn_child(command, StdioOptions::default())?.connection)
}

/// A JSON object argument of an operation.
fn object(text: Option<String>) -> Result<Map<String, Value>> {
    Ok(serde_json::from_str(
        &text.ok_or("an operation lacks its JSON arguments")?,
    )?)
}

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let target = args.next().ok_or(
        "usage: client (URL | stdio COMMAND) [call TOOL JSON | read URI | prompt NAME JSON]...",
    )?;
    let connection = connect(&target, &mut args)?;
    let mut client = Client {
        connection,
        next_id: 0,
    };
    let info = Implementation::new("mcp-wire-example-client", env!("CARGO_PKG_VERSION"));
    let hello = InitializeRequestParams::new(REVISION.as_str(), ClientCapabilities::new(), info);
    let initialized = client.request(InitializeRequest::new(hello)).await?;
    let initialized = initialized.map_err(|e| format!("initialize failed: {e}"))?;
    let notification = ClientNotification::from(InitializedNotification::new());
    client.send(&JsonRpcNotification::new(notification)).await?;

    let mut report = json!({
        "protocolVersion": initialized["protocolVersion"],
        "serverInfo": initialized["serverInfo"],
    });
    let lists: [(&str, ClientRequest); 3] = [
        ("tools", ListToolsRequest::new().into()),
        ("resources", ListResourcesRequest::new().into()),
        ("prompts", ListPromptsRequest::new().into()),
    ];
    for (key, request) in lists {
        let listed = client.request(request).await?;
        report[key] = listed.map_or_else(|e| json!({ "error": e }), |r| r[key].clone());
    }
    let mut answers = Vec::new();
    while let Some(op) = args.next() {
        let request: ClientRequest = match op.as_str() {
            "call" => {
                let name = args.next().ok_or("call needs a tool name")?;
                let params = CallToolRequestParams::new(name).with_arguments(object(args.next())?);
                CallToolRequest::new(params).into()
            }
            "read" => {
                let uri = args.next().ok_or("read needs a URI")?;
                ReadResourceRequest::new(ReadResourceRequestParams::new(uri)).into()
            }
            "prompt" => {
                let name = args.next().ok_or("prompt needs a prompt name")?;
                let arguments = object(args.next())?.into_iter();
                let arguments = arguments.map(|(k, v)| (k, v.as_str().unwrap_or("").to_owned()));
                let params = GetPromptRequestParams::new(name).with_arguments(arguments.collect());
                GetPromptRequest::new(params).into()
            }
            other => return Err(format!("unknown operation {other:?}").into()),
        };
        let answer = client.request(request).await?;
        answers.push(answer.unwrap_or_else(|e| json!({ "error": e })));
    }
    report["answers"] = Value::Array(answers);
    println!("{report}");
    client.connection.close();
    client.connection.ended().await;
    Ok(())
}
