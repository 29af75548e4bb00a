//! The judges of issue 19: the official MCP conformance suite (pinned in `tests/peers/`) in
//! server mode, through the bridge. Direction A: the project's conformance fixtures served at
//! 2026-07-28 only, behind the bridge, scored at `--requirements 2025-11-25` — every frame
//! the suite sees was translated by the bridge (the upstream cannot speak 2025-11-25).
//! Direction B: the same fixtures served at 2025-11-25 only, behind the bridge, scored at
//! `--requirements 2026-07-28` with 0 failed checks (the tasks-extension scenarios through the
//! bridge's mapping onto the fixtures' 2025-11-25 core tasks; the baseline
//! `tests/conformance/expected-failures-b.yaml` is empty).
//! The totals are printed and written to `<target>/conformance/bridge-totals.txt` (A) and
//! `bridge-b-totals.txt` (B).

use std::path::PathBuf;
use std::sync::Arc;

use mcp_wire::{Era, ProtocolVersion};
use mcp_wire_bridge::{Bridge, BridgeOptions, UpstreamTarget};
use mcp_wire_transport::fixtures::ConformanceFixtures;
use mcp_wire_transport::server::{Server, ServerConfig};

/// One judge's setup: the fixtures served at `revision` only on loopback, the bridge in front
/// of them (its detected upstream era checked), the bridge's own endpoint; both tasks end when
/// this is dropped.
struct Judge {
    bridge: Arc<Bridge>,
    url: String,
    tasks: [tokio::task::JoinHandle<()>; 2],
}

impl Drop for Judge {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

async fn judge(revision: ProtocolVersion, era: Era) -> Judge {
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", upstream.local_addr().unwrap());
    let server = Server::new(
        ConformanceFixtures::new(),
        ServerConfig {
            revisions: vec![revision],
            ..ServerConfig::default()
        },
    );
    let upstream_task = tokio::spawn(async move {
        let _ = server.serve(upstream).await;
    });
    let bridge = Arc::new(
        Bridge::connect(&UpstreamTarget::Url(upstream_url), BridgeOptions::default())
            .await
            .expect("the bridge connects"),
    );
    assert_eq!(bridge.snapshot().era(), era);
    let front = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", front.local_addr().unwrap());
    let serving = {
        let bridge = bridge.clone();
        tokio::spawn(async move {
            let _ = bridge.serve_http(front, "/mcp").await;
        })
    };
    Judge {
        bridge,
        url,
        tasks: [upstream_task, serving],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direction_a_a_2026_07_28_server_passes_the_2025_11_25_suite_through_the_bridge() {
    let judge = judge(ProtocolVersion::V2026_07_28, Era::Stateless).await;
    let url = judge.url.clone();
    let run = tokio::task::spawn_blocking(move || {
        mcp_wire_tests::peers::peers().run_server_suite(
            "bridge --requirements 2025-11-25",
            &url,
            &["--requirements", "2025-11-25"],
        )
    })
    .await
    .unwrap();
    mcp_wire_tests::peers::write_totals("bridge-totals.txt", std::slice::from_ref(&run.summary));
    drop(judge);
    assert!(run.passed, "{}\n{}", run.summary, run.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direction_b_a_2025_11_25_server_passes_the_2026_07_28_suite_through_the_bridge() {
    let judge = judge(ProtocolVersion::V2025_11_25, Era::Handshake).await;
    assert!(
        judge
            .bridge
            .client_revisions()
            .contains(&ProtocolVersion::V2026_07_28)
    );
    let url = judge.url.clone();
    let baseline = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/expected-failures-b.yaml");
    let baseline = baseline.to_str().expect("a UTF-8 path").to_owned();
    // Each scenario's checks.json, for reading a failure.
    let out = format!("{}/bridge-b-results", env!("CARGO_TARGET_TMPDIR"));
    let run = tokio::task::spawn_blocking(move || {
        mcp_wire_tests::peers::peers().run_server_suite(
            "bridge (B) --requirements 2026-07-28",
            &url,
            &[
                "--requirements",
                "2026-07-28",
                "--expected-failures",
                &baseline,
                "-o",
                &out,
            ],
        )
    })
    .await
    .unwrap();
    mcp_wire_tests::peers::write_totals("bridge-b-totals.txt", std::slice::from_ref(&run.summary));
    // Every legacy session is one client identity the suite used; all are bounded.
    let sessions = judge.bridge.handler().handshake_sessions().await;
    drop(judge);
    assert!(
        run.passed,
        "{}\n{}\n{}",
        run.summary, run.stdout, run.stderr
    );
    assert!(
        (1..=16).contains(&sessions),
        "{sessions} legacy sessions for the suite's identities"
    );
}
