//! Server-wide changes (list changes, resource updates) broadcast to every listening client:
//! handshake-era sessions' GET streams and 2026-07-28 `subscriptions/listen` streams.

use tokio::sync::broadcast;

/// One change a server announces.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// A resource changed (delivered to clients subscribed to its URI).
    ResourceUpdated(String),
    /// The inner change, for 2026-07-28 `subscriptions/listen` streams only (handshake-era
    /// sessions do not receive it): how a front server that tells its sessions about an inner
    /// server's changes itself (tagged, per session) reaches its plain 2026-07-28 clients.
    StatelessOnly(Box<Change>),
}

/// Announces [`Change`]s; cloneable. Slow listeners miss changes rather than grow a queue.
#[derive(Debug, Clone)]
pub struct Notifier {
    tx: broadcast::Sender<Change>,
}

impl Notifier {
    /// A notifier whose listeners lag behind by at most `capacity` changes.
    pub fn new(capacity: usize) -> Self {
        Self {
            tx: broadcast::channel(capacity.max(1)).0,
        }
    }

    /// Announces `change` to every current listener.
    pub fn announce(&self, change: Change) {
        // No listener is fine.
        let _ = self.tx.send(change);
    }

    /// A new listener.
    pub(crate) fn listen(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// A new listener outside the runtime (e.g. a front server relaying an inner server's
    /// changes); it sees the changes announced from now on and may lag behind (then it misses
    /// the oldest).
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.listen()
    }
}
