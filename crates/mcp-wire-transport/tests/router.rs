//! `Router` served on a frame connection: what it declares (capabilities, schemas, prompt
//! arguments) and how it answers what does not fit (arguments, outputs, unknown names).

use std::time::Duration;

use mcp_wire::model::CallToolResult;
use mcp_wire::tool::ToolSchemaErrorKind;
use mcp_wire_transport::server::{
    HandlerError, Principal, Router, Server, ServerConfig, Structured,
};
use mcp_wire_transport::{Connection, ConnectionDriver, Frame};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct Query {
    city: String,
    /// How many days ahead.
    days: Option<String>,
}

/// An output whose serialization does not satisfy its own schema: `degrees` is declared a
/// string but written as a number.
#[derive(Serialize, JsonSchema)]
struct Lying {
    #[schemars(with = "String")]
    degrees: i64,
}

#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
}

fn router() -> Router {
    Router::new("weather", "0.1.0")
        .instructions("Ask about the weather.")
        .tool("forecast", "A forecast", |q: Query, _| async move {
            Ok(Structured(Forecast { city: q.city }))
        })
        .unwrap()
        .tool(
            "lying",
            "Answers against its own schema",
            |_: Query, _| async { Ok(Structured(Lying { degrees: 20 })) },
        )
        .unwrap()
        .tool(
            "failing",
            "A tool error, no structured content",
            |_: Query, _| async {
                let result = CallToolResult::error("no forecast today");
                Ok::<_, HandlerError>(result)
            },
        )
        .unwrap()
        .prompt("ask", "Ask about a city", |q: Query, _| async move {
            Ok(format!("{} in {} days", q.city, q.days.unwrap_or_default()))
        })
        .unwrap()
}

/// A router served on a fresh frame connection after the 2025-11-25 handshake; the client's
/// side and the `initialize` result.
async fn served(router: Router) -> (ConnectionDriver, Value) {
    let server = Server::new(router, ServerConfig::default());
    let (connection, mut driver) = Connection::pair(16);
    tokio::spawn(async move {
        server
            .serve_connection(connection, Principal::anonymous())
            .await
    });
    let init = ask(
        &mut driver,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "router-test", "version": "1"}}}),
    )
    .await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send(&driver, initialized).await;
    (driver, init["result"].clone())
}

async fn send(driver: &ConnectionDriver, frame: Value) {
    let frame = Frame::parse(frame.to_string()).unwrap();
    driver.incoming.send(frame).await.unwrap();
}

/// Sends a request and returns the frame answering it.
async fn ask(driver: &mut ConnectionDriver, request: Value) -> Value {
    send(driver, request.clone()).await;
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), driver.outgoing.recv())
            .await
            .expect("an answer in time")
            .expect("the connection is open");
        let frame = frame.to_value().unwrap();
        if frame["id"] == request["id"] {
            return frame;
        }
    }
}

async fn call(driver: &mut ConnectionDriver, id: i64, name: &str, arguments: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    ask(driver, request).await
}

#[tokio::test]
async fn a_router_declares_what_was_registered() {
    let (mut driver, init) = served(router()).await;
    assert_eq!(
        init["serverInfo"],
        json!({"name": "weather", "version": "0.1.0"})
    );
    assert_eq!(init["instructions"], "Ask about the weather.");
    // Tools and prompts, no resources.
    assert_eq!(init["capabilities"], json!({"tools": {}, "prompts": {}}));
    let tools = ask(
        &mut driver,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    let tools = &tools["result"]["tools"];
    assert_eq!(tools[0]["name"], "forecast");
    assert_eq!(tools[0]["description"], "A forecast");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["city"]));
    assert_eq!(tools[0]["inputSchema"].get("title"), None);
    assert_eq!(tools[0]["outputSchema"]["required"], json!(["city"]));
    assert_eq!(tools[2].get("outputSchema"), None, "{tools}");
    let prompts = ask(
        &mut driver,
        json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}),
    )
    .await;
    assert_eq!(
        prompts["result"]["prompts"][0]["arguments"],
        json!([{"name": "city", "required": true},
            {"name": "days", "description": "How many days ahead.", "required": false}])
    );
}

#[tokio::test]
async fn what_does_not_fit_is_answered_with_its_code_and_pointer() {
    let (mut driver, _) = served(router()).await;
    // Arguments of the wrong type: -32602 at the argument.
    let bad = call(&mut driver, 1, "forecast", json!({"city": 7})).await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert_eq!(bad["error"]["data"]["pointer"], "/arguments/city", "{bad}");
    // An output that does not satisfy the tool's outputSchema is the server's failure when
    // results are checked (feature `output-check`); otherwise it leaves as serialized.
    let lying = call(&mut driver, 2, "lying", json!({"city": "Oslo"})).await;
    if cfg!(feature = "output-check") {
        assert_eq!(lying["error"]["code"], -32603, "{lying}");
        assert_eq!(lying["error"]["data"]["pointer"], "/degrees", "{lying}");
    } else {
        assert_eq!(
            lying["result"]["structuredContent"],
            json!({"degrees": 20}),
            "{lying}"
        );
    }
    // A tool error needs no structured content.
    let failing = call(&mut driver, 3, "failing", json!({"city": "Oslo"})).await;
    assert_eq!(failing["result"]["isError"], true, "{failing}");
    // Unknown names.
    let unknown = call(&mut driver, 4, "nowcast", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let read = ask(
        &mut driver,
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
            "params": {"uri": "note://none"}}),
    )
    .await;
    assert_eq!(read["error"]["code"], -32002, "{read}");
    assert_eq!(read["error"]["data"]["uri"], "note://none", "{read}");
    // Prompt arguments are read as the argument type; an optional one may be absent.
    let prompt = ask(
        &mut driver,
        json!({"jsonrpc": "2.0", "id": 6, "method": "prompts/get",
            "params": {"name": "ask", "arguments": {"city": "Oslo"}}}),
    )
    .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "Oslo in  days"
    );
}

#[test]
fn a_schema_that_is_not_an_object_is_refused_at_registration() {
    let refused = Router::new("x", "1").tool("t", "d", |_: Option<String>, _| async {
        Ok::<_, HandlerError>("never")
    });
    let Err(e) = refused else {
        panic!("an Option<String> schema is not an object")
    };
    assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
    let refused = Router::new("x", "1").tool("t", "d", |_: Query, _| async {
        Ok(Structured(vec![1, 2, 3]))
    });
    assert_eq!(
        refused.err().map(|e| e.kind),
        Some(ToolSchemaErrorKind::NotAnObject)
    );
}
