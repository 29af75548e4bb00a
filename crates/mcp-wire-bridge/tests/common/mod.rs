//! What the real-peer tests share: running a real client to its end, bounded.

use std::time::Duration;

use serde_json::Value;

/// The bound on one real client's run.
pub const RUN: Duration = Duration::from_secs(90);

/// Runs a client to its end within [`RUN`] (killed on drop) and reads the JSON object it
/// prints; panics with its stderr when it fails or prints none.
pub async fn observe(command: std::process::Command) -> Value {
    mcp_wire_tests::peers::run_to_json(command, RUN).await
}
