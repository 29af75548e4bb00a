//! The judge: the official MCP conformance suite (pinned in `tests/peers/`) in server mode
//! against `conformance_server`, at `--requirements 2025-11-25`, `--requirements 2026-07-28`
//! and `--suite all`. A run passes when the suite exits 0: no failed check outside the
//! committed baseline (`tests/conformance/expected-failures.yaml`, extension scenarios only,
//! each with its reason), and no baseline entry that now passes.
//!
//! The totals of each run are printed and written to `<target>/conformance/totals.txt`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server process, killed (by its own handle) when the test ends.
struct ServerProcess(Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `conformance_server` on a free loopback port and returns it with its endpoint URL.
fn start_server() -> (ServerProcess, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("conformance_server starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let process = ServerProcess(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("conformance_server prints its URL");
    let url = line.trim().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "unexpected first line {url:?}"
    );
    (process, url)
}

fn baseline() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/expected-failures.yaml")
}

/// One suite run with the committed baseline: its summary; fails unless the suite passes.
fn run_suite(url: &str, selection: &[&str]) -> String {
    let baseline = baseline();
    let mut args = selection.to_vec();
    args.extend([
        "--expected-failures",
        baseline.to_str().expect("a UTF-8 path"),
    ]);
    let run = mcp_wire_tests::peers::peers().run_server_suite(&selection.join(" "), url, &args);
    assert!(
        run.exited_ok,
        "conformance {} failed:\n{}\n{}",
        selection.join(" "),
        run.stdout,
        run.stderr
    );
    run.summary
}

#[test]
fn conformance_suite_server_mode() {
    let (_server, url) = start_server();
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut totals = Vec::new();
    for selection in [
        &["--requirements", "2025-11-25"][..],
        &["--requirements", "2026-07-28"][..],
        &["--suite", "all"][..],
    ] {
        totals.push(run_suite(&url, selection));
        assert!(Instant::now() < deadline, "the suite runs took too long");
    }
    mcp_wire_tests::peers::write_totals("totals.txt", &totals);
}
