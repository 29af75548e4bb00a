//! What the real-peer tests share: running a real client to its end, bounded.

use std::time::Duration;

use serde_json::Value;

/// The bound on one real client's run.
pub const RUN: Duration = Duration::from_secs(90);

/// Runs a client to its end within [`RUN`] (killed on drop) and reads the JSON object it
/// prints; panics with its stderr when it fails or prints none.
pub async fn observe(command: std::process::Command) -> Value {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(RUN, command.output())
        .await
        .unwrap_or_else(|_| panic!("{command:?} did not finish within {RUN:?}"))
        .expect("the client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client failed ({}):\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("the client printed no JSON ({e}):\n{stderr}"))
}
