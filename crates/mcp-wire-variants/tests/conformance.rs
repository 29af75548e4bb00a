//! The backward-compatibility judge: a variants server whose default variant is the
//! conformance fixtures (`mcp_wire_transport::fixtures::ConformanceFixtures`, the handler
//! `conformance_server` serves) and which has two more variants, configured without
//! authentication (the suite sends no token), scored by the official MCP conformance suite
//! (pinned in `tests/peers/`) at `--requirements 2025-11-25`. A client that knows nothing of
//! variants must see a conformant server: 0 failed checks, and no baseline of expected
//! failures.
//!
//! The totals are printed and written to `<target>/conformance/variants-totals.txt`.

use mcp_wire::model::{Implementation, ServerCapabilities, Tool};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Handler, HandlerResult, RequestContext, ServerConfig};
use mcp_wire_variants::live::VariantServer;
use mcp_wire_variants::{AdvertisePolicy, ServerVariant, VariantStatus};

/// A second variant: one tool, nothing else.
struct Minimal;

impl Handler for Minimal {
    fn server_info(&self) -> Implementation {
        Implementation::new("minimal", "1.0.0")
    }

    fn capabilities(&self) -> ServerCapabilities {
        serde_json::from_value(serde_json::json!({"tools": {}})).unwrap()
    }

    async fn list_tools(&self, _: &RequestContext) -> HandlerResult<Vec<Tool>> {
        Ok(vec![Tool::new("minimal_echo", Tool::empty_input_schema())])
    }
}

fn front(advertise: AdvertisePolicy) -> VariantServer {
    VariantServer::builder(ConformanceFixtures::new().server_info())
        .variant(
            ServerVariant::new("fixtures", "The conformance suite's fixtures."),
            0,
            ConformanceFixtures::new(),
        )
        .variant(ServerVariant::new("minimal", "One tool."), 1, Minimal)
        .variant(
            ServerVariant::new("fixtures-next", "The fixtures again, experimental.")
                .with_status(VariantStatus::Experimental),
            2,
            ConformanceFixtures::new(),
        )
        .catalog(|c| {
            c.cursor_key(b"conformance-judge-cursor-key")
                .advertise(advertise)
        })
        .build()
        .expect("a valid front")
}

/// Serves the front on a free loopback port (in a thread with its own runtime); the URL.
fn serve(advertise: AdvertisePolicy) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let server = front(advertise)
                .into_server(ServerConfig::default())
                .expect("handshake revisions offered");
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a loopback port");
            let addr = listener.local_addr().expect("its address");
            tx.send(format!("http://{addr}/mcp"))
                .expect("the test waits");
            let _ = server.serve(listener).await;
        });
    });
    rx.recv().expect("the server starts")
}

/// One suite run: its summary; fails unless the suite passes with 0 failed checks.
fn run_suite(url: &str, label: &str) -> String {
    let label = format!("variants server ({label}) --requirements 2025-11-25");
    let run = mcp_wire_tests::peers::peers().run_server_suite(
        &label,
        url,
        &["--requirements", "2025-11-25"],
    );
    assert!(
        run.passed,
        "conformance failed:\n{}\n{}",
        run.stdout, run.stderr
    );
    run.summary
}

#[test]
fn a_variants_server_passes_the_conformance_suite() {
    // As a plain server to clients without the payload (the suite), and with the list
    // advertised to every client: both must be conformant.
    let mut totals = Vec::new();
    for (advertise, label) in [
        (AdvertisePolicy::WhenClientOptsIn, "advertise when opted in"),
        (AdvertisePolicy::Always, "advertise always"),
    ] {
        totals.push(run_suite(&serve(advertise), label));
    }
    mcp_wire_tests::peers::write_totals("variants-totals.txt", &totals);
}
