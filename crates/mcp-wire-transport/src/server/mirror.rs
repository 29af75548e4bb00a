//! How a session's SSE stream logs reach the shared store: each event (and the end of the
//! stream) queued, in order, for the replica's writer (`server::replica`), which appends it to
//! the stream's log. Below both the sessions and the replica, which use it.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;

/// How many event-log writes may queue before new ones are dropped (counted as a limit hit).
pub(crate) const WRITE_QUEUE: usize = 4096;

/// The entry that closes a stream's log.
pub(crate) const DONE: &[u8] = b"done";

/// The key of a session stream's event log.
pub(crate) fn events_key(session: &str, stream: u64) -> Arc<str> {
    Arc::from(format!("mcp-wire:events:{session}:{stream}"))
}

/// One append to a stream's event log.
pub(crate) struct EventWrite {
    pub key: Arc<str>,
    pub entry: Vec<u8>,
}

/// How a session's stream logs reach the store.
#[derive(Clone)]
pub(crate) struct LogMirror {
    /// This replica (the high half of the session's stream ids).
    pub replica: u32,
    pub writes: mpsc::Sender<EventWrite>,
}

impl LogMirror {
    /// Queues an event (`seq`, its rendered bytes) for the log at `key`.
    pub(crate) fn event(&self, key: &Arc<str>, seq: u64, event: &Bytes) {
        let mut entry = format!("{seq}\n").into_bytes();
        entry.extend_from_slice(event);
        self.queue(key, entry);
    }

    /// Queues the entry that says the stream has ended.
    pub(crate) fn done(&self, key: &Arc<str>) {
        self.queue(key, DONE.to_vec());
    }

    fn queue(&self, key: &Arc<str>, entry: Vec<u8>) {
        let write = EventWrite {
            key: key.clone(),
            entry,
        };
        if self.writes.try_send(write).is_err() {
            crate::telemetry::limit_hit("replica_write_queue");
        }
    }
}
