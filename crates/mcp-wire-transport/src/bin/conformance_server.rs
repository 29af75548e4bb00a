//! `conformance_server`: the fixture server the official MCP conformance suite scores.
//!
//! ```sh
//! cargo run -p mcp-wire-transport --features cli,conformance-fixtures --bin conformance_server -- \
//!     --listen 127.0.0.1:3001 [--revisions 2024-11-05,2025-03-26,2025-06-18,2025-11-25,2026-07-28] \
//!     [--log-format text|json] [--metrics 127.0.0.1:9464] \
//!     [--auth-issuer URL [--auth-scopes A,B] [--resource URL] [--auth-introspection URL …]] \
//!     [--store redis://HOST:PORT[/DB] --secret-file PATH]
//! ```
//!
//! (`--listen 127.0.0.1:0` picks a free port.) The first line on stdout is the endpoint URL.
//! `conformance_server --stdio [--revisions …]` serves the same fixtures on stdin/stdout.
//! It serves `/mcp` with the tools, resources and prompts the suite's scenarios name, each
//! written once on the runtime's `Handler` and served at every offered revision. Logs go to
//! stderr at the levels `RUST_LOG` selects (`info` by default); `--metrics ADDR` serves the
//! runtime's metrics at `http://ADDR/metrics` (off by default). `--auth-issuer` makes `/mcp` an
//! OAuth resource server (`server::oauth::AuthOptions`; `--help` lists the options).
//! `--store` (feature `redis`) makes the process one replica of a server whose replicas share
//! their sessions, stream logs and tasks in that Redis; `--secret-file` gives every replica the
//! same keys (at least 32 bytes of secret; the store never holds them).

use mcp_wire::ProtocolVersion;
use mcp_wire_transport::fixtures::ConformanceFixtures;
use std::sync::Arc;

use mcp_wire_transport::server::oauth::{AUTH_OPTIONS_HELP, AuthOptions};
use mcp_wire_transport::server::{REPLICA_OPTIONS_HELP, ReplicaOptions};
use mcp_wire_transport::server::{Server, ServerConfig};
use mcp_wire_transport::telemetry::{self, LogFormat, MetricsEndpoint};

const USAGE: &str = "usage: conformance_server (--listen HOST:PORT | --stdio) [--revisions V1,V2,...] \
[--log-format text|json] [--metrics HOST:PORT] [replica options] [authorization options]";

fn usage(problem: &str) -> ! {
    eprintln!("conformance_server: {problem}\n{USAGE}");
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut listen = None;
    let mut stdio = false;
    let mut revisions = ProtocolVersion::ALL.to_vec();
    let mut log_format = LogFormat::Text;
    let mut metrics = None;
    let mut replica = ReplicaOptions::default();
    let mut auth = AuthOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match auth.take(&a, || args.next()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(problem) => usage(&problem),
        }
        match replica.take(&a, || args.next()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(problem) => usage(&problem),
        }
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--listen" => listen = Some(value()),
            "--stdio" => stdio = true,
            "--revisions" => {
                revisions = value()
                    .split(',')
                    .map(|v| {
                        v.trim()
                            .parse::<ProtocolVersion>()
                            .unwrap_or_else(|_| usage(&format!("unknown revision {v:?}")))
                    })
                    .collect();
            }
            "--log-format" => log_format = value().parse().unwrap_or_else(|e: String| usage(&e)),
            "--metrics" => metrics = Some(value()),
            "--help" | "-h" => {
                println!("{USAGE}\n\n{REPLICA_OPTIONS_HELP}\n\n{AUTH_OPTIONS_HELP}");
                return Ok(());
            }
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    telemetry::install_log_subscriber(log_format).unwrap_or_else(|e| usage(&e));
    // Held until the process ends.
    let _metrics = match metrics {
        Some(addr) => Some(MetricsEndpoint::bind(addr).await?),
        None => None,
    };
    let mut config = replica
        .configure(ServerConfig {
            revisions,
            ..ServerConfig::default()
        })
        .unwrap_or_else(|e| usage(&e));
    let store = config.store.as_ref().map(|s| s.store().clone());
    let fixtures = || match &store {
        Some(store) => ConformanceFixtures::new().with_store(store.clone()),
        None => ConformanceFixtures::new(),
    };
    if stdio {
        if !auth.issuers.is_empty() {
            usage("authorization protects HTTP endpoints: use --listen");
        }
        Server::new(fixtures(), config).serve_stdio().await;
        return Ok(());
    }
    let listen = listen.unwrap_or_else(|| usage("name --listen HOST:PORT or --stdio"));
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let addr = listener.local_addr()?;
    if let Some(resource_server) = auth.resource_server(addr).unwrap_or_else(|e| usage(&e)) {
        tracing::info!(resource = %resource_server.metadata().resource, "authorization on");
        config.authenticator = Arc::new(resource_server);
    }
    let server = Server::new(fixtures(), config);
    println!("http://{addr}/mcp");
    tracing::info!(%addr, "serving /mcp");
    server.serve(listener).await
}
