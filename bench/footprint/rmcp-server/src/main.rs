//! The small server of issue 38 on rmcp 3.11: the tools `add` (two integers; text and structured
//! output, with an output schema) and `echo`, the static resource `note://hello` and the prompt
//! `greet`, over Streamable HTTP or stdio. The same behaviour and texts as mcp-wire's
//! `crates/mcp-wire-transport/examples/server.rs`, written as rmcp's own examples write servers.
//!
//! ```sh
//! cargo run --manifest-path bench/footprint/rmcp-server/Cargo.toml -- --http 127.0.0.1:3000
//! cargo run --manifest-path bench/footprint/rmcp-server/Cargo.toml -- --stdio
//! ```

use std::sync::Arc;

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::transport::stdio;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use rmcp::{prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router};
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

#[derive(Clone)]
struct Demo;

#[tool_router]
impl Demo {
    #[tool(description = "Add two integers")]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum {
            sum: args.a + args.b,
        })
    }

    #[tool(description = "Echo the text back")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }
}

#[prompt_router]
impl Demo {
    #[prompt(description = "Greet someone by name")]
    async fn greet(&self, Parameters(args): Parameters<GreetArgs>) -> Vec<PromptMessage> {
        let text = format!("Please greet {} warmly.", args.name);
        vec![PromptMessage::new_text(Role::User, text)]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("demo-server", "1.0.0"))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let hello = Resource::new("note://hello", "hello");
        Ok(ListResourcesResult::with_all_items(vec![hello]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "note://hello" {
            return Err(ErrorData::resource_not_found("Resource not found", None));
        }
        let text = ResourceContents::text("Hello from mcp-wire!", request.uri)
            .with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![text]).into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => {
            Demo.serve(stdio()).await?.waiting().await?;
        }
        ["--http", addr] => {
            let service = StreamableHttpService::new(
                || Ok(Demo),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            axum::serve(listener, router).await?;
        }
        _ => return Err("usage: rmcp-footprint-server --stdio | --http HOST:PORT".into()),
    }
    Ok(())
}
