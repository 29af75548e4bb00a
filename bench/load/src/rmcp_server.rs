//! The peer: the same fixtures the bench uses (`test_simple_text`, `test://static-text`, with the
//! same texts as conformance_server) on rmcp 3.x's Streamable HTTP server, default configuration
//! (SSE answers, local sessions) on a TCP_NODELAY listener.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};

#[derive(Clone)]
struct Fixtures;

impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = serde_json::json!({"type": "object", "properties": {}});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!("an object literal")
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "test_simple_text",
            "Returns simple text",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "test_simple_text" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "This is a simple text response for testing.",
        )])
        .into())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "test://static-text" {
            return Err(ErrorData::invalid_params("unknown resource", None));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            "This is the content of the static text resource.",
            request.uri,
        )])
        .into())
    }
}

/// Serves the fixtures on a free loopback port and prints the endpoint URL.
pub async fn serve() {
    let service = StreamableHttpService::new(
        || Ok(Fixtures),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    println!("http://{}/mcp", listener.local_addr().expect("bound"));
    // TCP_NODELAY: rmcp answers over SSE in several writes, which Nagle's algorithm and delayed
    // ACKs would otherwise hold ~40 ms each; the peer gets its best configuration.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await.expect("serving");
}
