//! `conformance_server`: the fixture server the official MCP conformance suite scores.
//!
//! ```sh
//! cargo run -p mcp-wire-transport --bin conformance_server -- --listen 127.0.0.1:3001 \
//!     [--revisions 2024-11-05,2025-03-26,2025-06-18,2025-11-25,2026-07-28]
//! ```
//!
//! (`--listen 127.0.0.1:0` picks a free port.) The first line on stdout is the endpoint URL.
//! `conformance_server --stdio [--revisions …]` serves the same fixtures on stdin/stdout.
//! It serves `/mcp` with the tools, resources and prompts the suite's scenarios name, each
//! written once on the runtime's `Handler` and served at every offered revision.

use mcp_wire::ProtocolVersion;
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};

fn usage() -> ! {
    eprintln!("usage: conformance_server (--listen HOST:PORT | --stdio) [--revisions V1,V2,...]");
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut listen = None;
    let mut stdio = false;
    let mut revisions = ProtocolVersion::ALL.to_vec();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--listen" => listen = Some(args.next().unwrap_or_else(|| usage())),
            "--stdio" => stdio = true,
            "--revisions" => {
                let list = args.next().unwrap_or_else(|| usage());
                revisions = list
                    .split(',')
                    .map(|v| {
                        v.trim().parse::<ProtocolVersion>().unwrap_or_else(|_| {
                            eprintln!("unknown revision {v:?}");
                            usage()
                        })
                    })
                    .collect();
            }
            _ => usage(),
        }
    }
    let config = ServerConfig {
        revisions,
        ..ServerConfig::default()
    };
    let server = Server::new(ConformanceFixtures::new(), config);
    if stdio {
        server.serve_stdio().await;
        return Ok(());
    }
    let listen = listen.unwrap_or_else(|| usage());
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    server.serve(listener).await
}
