//! A small MCP server on mcp-wire: the tools `add` (two integers; text and structured output,
//! with an output schema) and `echo`, the static resource `note://hello` and the prompt `greet`,
//! served at every protocol revision over Streamable HTTP or stdio.
//!
//! ```sh
//! cargo run -p mcp-wire-transport --example server -- --http 127.0.0.1:3000  # at /mcp
//! cargo run -p mcp-wire-transport --example server -- --stdio  # for a client that starts it
//! cargo run -p mcp-wire-transport --example client -- http://127.0.0.1:3000/mcp \
//!     call add '{"a": 2, "b": 3}' read note://hello prompt greet '{"name": "Ada"}'
//! ```

use mcp_wire_transport::server::{Router, Server, ServerConfig, Structured};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let router = Router::new("demo-server", "1.0.0")
        .tool("add", "Add two integers", |args: AddArgs, _| async move {
            Ok(Structured(Sum {
                sum: args.a + args.b,
            }))
        })?
        .tool(
            "echo",
            "Echo the text back",
            |args: EchoArgs, _| async move { Ok(args.text) },
        )?
        .resource("note://hello", "hello", |_| async {
            Ok("Hello from mcp-wire!")
        })
        .prompt(
            "greet",
            "Greet someone by name",
            |args: GreetArgs, _| async move { Ok(format!("Please greet {} warmly.", args.name)) },
        )?;
    let server = Server::new(router, ServerConfig::default());
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => server.serve_stdio().await,
        ["--http", addr] => server.serve_http(addr, "/mcp").await?,
        _ => return Err("usage: server --stdio | --http HOST:PORT".into()),
    }
    Ok(())
}
