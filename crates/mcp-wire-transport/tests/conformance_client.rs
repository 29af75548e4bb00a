//! The judge of the client side: the official MCP conformance suite (pinned in `tests/peers/`)
//! in client mode, starting `conformance_client` once per scenario, at `--requirements
//! 2025-11-25`, `--requirements 2026-07-28` and `--suite all` (extensions included). A run passes
//! when the suite exits 0 — no failed check outside the committed baseline
//! (`tests/conformance/client-expected-failures.yaml`, empty), no baseline entry that now passes
//! — and its total counts at least one passed check and no failed one.
//!
//! The totals of each run are printed and written to `<target>/conformance/client-totals.txt`.

use std::path::{Path, PathBuf};

fn baseline() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/client-expected-failures.yaml")
}

/// The `N` of a summary's `Total: N passed`.
fn passed_count(summary: &str) -> u64 {
    summary
        .split("Total:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no passed count in {summary:?}"))
}

#[test]
fn conformance_suite_client_mode() {
    let client = Path::new(env!("CARGO_BIN_EXE_conformance_client"));
    let baseline = baseline();
    let baseline = baseline.to_str().expect("a UTF-8 path");
    let mut totals = Vec::new();
    for selection in [
        &["--requirements", "2025-11-25"][..],
        &["--requirements", "2026-07-28"][..],
        &["--suite", "all"][..],
    ] {
        let mut args = selection.to_vec();
        args.extend(["--expected-failures", baseline]);
        let run =
            mcp_wire_tests::peers::peers().run_client_suite(&selection.join(" "), client, &args);
        assert!(
            run.exited_ok,
            "conformance client {} failed:\n{}\n{}",
            selection.join(" "),
            run.stdout,
            run.stderr
        );
        assert!(
            passed_count(&run.summary) > 0 && run.passed,
            "a check failed or none passed: {}",
            run.summary
        );
        totals.push(run.summary);
    }
    mcp_wire_tests::peers::write_totals("client-totals.txt", &totals);
}
