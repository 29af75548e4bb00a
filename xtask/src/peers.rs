//! `cargo xtask peers`: install the pinned real MCP peers (`tests/peers/`) under `target/peers/`.
//!
//! The same installer the tests call (`mcp_wire_tests::peers`): `npm ci` of the committed lockfile
//! and a Python virtual environment with the pinned `mcp` SDK; a no-op when already installed.
//! Also the Debian packages the scale test starts (`redis-server`, `haproxy`), installed with
//! `apt-get` when missing (`mcp_wire_tests::services`).

use anyhow::Context;

/// Installs the peers (or finds them installed) and prints where they are.
pub fn run() -> anyhow::Result<()> {
    let target = mcp_wire_tests::peers::target_dir();
    let peers = mcp_wire_tests::peers::install(&target).context("cargo xtask peers")?;
    mcp_wire_tests::services::ensure_packages().context("cargo xtask peers")?;
    eprintln!(
        "xtask: peers ready in {} (node {}, python {})",
        peers.root().display(),
        peers.node().display(),
        peers.python().display()
    );
    Ok(())
}
