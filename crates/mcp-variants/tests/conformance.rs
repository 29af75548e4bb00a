//! The backward-compatibility judge: a variants server whose default variant is the
//! conformance fixtures (`mcp_transport::fixtures::ConformanceFixtures`, the handler
//! `conformance_server` serves) and which has two more variants, configured without
//! authentication (the suite sends no token), scored by the official MCP conformance suite
//! (pinned in `tests/peers/`) at `--requirements 2025-11-25`. A client that knows nothing of
//! variants must see a conformant server: 0 failed checks, and no baseline of expected
//! failures.
//!
//! The totals are printed and written to `<target>/conformance/variants-totals.txt`.

use std::process::Stdio;
use std::time::Instant;

use mcp_transport::fixtures::ConformanceFixtures;
use mcp_transport::server::{Handler, HandlerResult, RequestContext, ServerConfig};
use mcp_types::model::{Implementation, ServerCapabilities, Tool};
use mcp_variants::live::VariantServer;
use mcp_variants::{AdvertisePolicy, ServerVariant, VariantStatus};

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

/// One suite run: its `Total:` line; fails unless the suite passes with 0 failed checks.
fn run_suite(url: &str, label: &str) -> String {
    let peers = mcp_wire_tests::peers::peers();
    let started = Instant::now();
    let output = peers
        .conformance()
        .args(["server", "--url", url, "--requirements", "2025-11-25"])
        .stdin(Stdio::null())
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let total = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Total:"))
        .map(|l| l.trim().to_owned())
        .unwrap_or_else(|| panic!("no Total line in the suite's output:\n{stdout}"));
    let summary = format!(
        "variants server ({label}) --requirements 2025-11-25: {total} ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    println!("{summary}");
    assert!(
        output.status.success() && total.contains(" 0 failed"),
        "conformance failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    summary
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
    let dir = mcp_wire_tests::peers::target_dir().join("conformance");
    std::fs::create_dir_all(&dir).expect("target/conformance");
    std::fs::write(dir.join("variants-totals.txt"), totals.join("\n") + "\n")
        .expect("totals written");
}
