//! The engine under the state that replicas of one server share: keys with a time to live,
//! bounded logs, and a publish/subscribe bus. [`MemoryStore`] keeps them in this process (the
//! replicas are servers in one process, as in tests); `RedisStore` (feature `redis`) keeps them
//! in Redis, for replicas in several processes or machines.
//!
//! The engine knows bytes and key names only; what the runtime keeps there (session records,
//! event logs, the bus's messages) is the runtime's business (`server::replica`). Every key
//! an engine holds has a time to live or a bound, so that what a server stores stays bounded
//! however its clients behave.

#[cfg(feature = "redis")]
mod redis;

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc};

#[cfg(feature = "redis")]
pub use self::redis::RedisStore;

/// What a store operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The engine did not answer (down, unreachable, too slow): what it said, or the timeout.
    #[error("the shared store is unavailable: {0}")]
    Unavailable(String),
    /// The engine holds as many keys as it may.
    #[error("the shared store is full")]
    Full,
}

/// A message received from the bus: its channel and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusMessage {
    /// The channel it was published on.
    pub channel: String,
    /// What was published.
    pub payload: Vec<u8>,
}

/// The shared state's engine. Every operation is bounded in time by the engine (an engine
/// that cannot reach its server answers [`StoreError::Unavailable`], never waits forever).
pub trait Store: Send + Sync + 'static {
    /// Sets `key` to `value`, expiring after `ttl`.
    fn put(&self, key: &str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()>;
    /// The value of `key`, its expiry moved to `ttl` from now when `refresh` names one.
    fn get(&self, key: &str, refresh: Option<Duration>) -> StoreFuture<'_, Option<Vec<u8>>>;
    /// Removes `key` (a value or a log); whether it existed.
    fn delete(&self, key: &str) -> StoreFuture<'_, bool>;
    /// Appends `entry` to the log at `key`, keeping its newest `keep` entries, the log expiring
    /// after `ttl`.
    fn append(&self, key: &str, entry: Vec<u8>, keep: usize, ttl: Duration) -> StoreFuture<'_, ()>;
    /// The entries of the log at `key`, oldest first (none when it does not exist).
    fn entries(&self, key: &str) -> StoreFuture<'_, Vec<Vec<u8>>>;
    /// Publishes `payload` on `channel` to every current subscriber (of every replica).
    fn publish(&self, channel: &str, payload: Vec<u8>) -> StoreFuture<'_, ()>;
    /// The messages published on `channels` from now on. The engine keeps the subscription
    /// alive (resubscribing after its server comes back); messages published meanwhile are
    /// lost. The receiver ends when the store is dropped.
    fn subscribe(&self, channels: Vec<String>) -> mpsc::Receiver<BusMessage>;
}

/// How many messages a subscriber may lag behind before the oldest are dropped.
pub(crate) const BUS_BACKLOG: usize = 1024;

/// A [`Store`] in this process's memory: servers made with the same `MemoryStore` share
/// their state as replicas in separate processes share a Redis. Bounded by a number of keys;
/// expired keys are swept when a write needs room.
pub struct MemoryStore {
    inner: Mutex<MemoryInner>,
    max_keys: usize,
    bus: broadcast::Sender<BusMessage>,
}

struct MemoryInner {
    values: HashMap<String, (Vec<u8>, Instant)>,
    logs: HashMap<String, (VecDeque<Vec<u8>>, Instant)>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("max_keys", &self.max_keys)
            .finish_non_exhaustive()
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new(100_000)
    }
}

impl MemoryStore {
    /// A store holding at most `max_keys` values and logs together.
    pub fn new(max_keys: usize) -> Self {
        Self {
            inner: Mutex::new(MemoryInner {
                values: HashMap::new(),
                logs: HashMap::new(),
            }),
            max_keys,
            bus: broadcast::channel(BUS_BACKLOG).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Room for a new key: expired keys are swept first; `Full` when none was.
    fn make_room(&self, inner: &mut MemoryInner) -> Result<(), StoreError> {
        if inner.values.len() + inner.logs.len() < self.max_keys {
            return Ok(());
        }
        let now = Instant::now();
        inner.values.retain(|_, (_, expiry)| *expiry > now);
        inner.logs.retain(|_, (_, expiry)| *expiry > now);
        if inner.values.len() + inner.logs.len() < self.max_keys {
            Ok(())
        } else {
            Err(StoreError::Full)
        }
    }

    fn put_now(&self, key: &str, value: Vec<u8>, ttl: Duration) -> Result<(), StoreError> {
        let mut inner = self.lock();
        if !inner.values.contains_key(key) {
            self.make_room(&mut inner)?;
        }
        inner
            .values
            .insert(key.to_owned(), (value, Instant::now() + ttl));
        Ok(())
    }

    fn get_now(&self, key: &str, refresh: Option<Duration>) -> Option<Vec<u8>> {
        let mut inner = self.lock();
        let now = Instant::now();
        match inner.values.get_mut(key) {
            Some((value, expiry)) if *expiry > now => {
                if let Some(ttl) = refresh {
                    *expiry = now + ttl;
                }
                Some(value.clone())
            }
            Some(_) => {
                inner.values.remove(key);
                None
            }
            None => None,
        }
    }

    fn append_now(
        &self,
        key: &str,
        entry: Vec<u8>,
        keep: usize,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let mut inner = self.lock();
        let now = Instant::now();
        if inner
            .logs
            .get(key)
            .is_some_and(|(_, expiry)| *expiry <= now)
        {
            inner.logs.remove(key);
        }
        if !inner.logs.contains_key(key) {
            self.make_room(&mut inner)?;
        }
        let (log, expiry) = inner
            .logs
            .entry(key.to_owned())
            .or_insert_with(|| (VecDeque::new(), now));
        log.push_back(entry);
        while log.len() > keep.max(1) {
            log.pop_front();
        }
        *expiry = now + ttl;
        Ok(())
    }

    fn entries_now(&self, key: &str) -> Vec<Vec<u8>> {
        let inner = self.lock();
        match inner.logs.get(key) {
            Some((log, expiry)) if *expiry > Instant::now() => log.iter().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

impl Store for MemoryStore {
    fn put(&self, key: &str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()> {
        let done = self.put_now(key, value, ttl);
        Box::pin(async move { done })
    }

    fn get(&self, key: &str, refresh: Option<Duration>) -> StoreFuture<'_, Option<Vec<u8>>> {
        let value = self.get_now(key, refresh);
        Box::pin(async move { Ok(value) })
    }

    fn delete(&self, key: &str) -> StoreFuture<'_, bool> {
        let mut inner = self.lock();
        let existed = inner.values.remove(key).is_some() | inner.logs.remove(key).is_some();
        Box::pin(async move { Ok(existed) })
    }

    fn append(&self, key: &str, entry: Vec<u8>, keep: usize, ttl: Duration) -> StoreFuture<'_, ()> {
        let done = self.append_now(key, entry, keep, ttl);
        Box::pin(async move { done })
    }

    fn entries(&self, key: &str) -> StoreFuture<'_, Vec<Vec<u8>>> {
        let entries = self.entries_now(key);
        Box::pin(async move { Ok(entries) })
    }

    fn publish(&self, channel: &str, payload: Vec<u8>) -> StoreFuture<'_, ()> {
        // No subscriber is fine.
        let _ = self.bus.send(BusMessage {
            channel: channel.to_owned(),
            payload,
        });
        Box::pin(async { Ok(()) })
    }

    fn subscribe(&self, channels: Vec<String>) -> mpsc::Receiver<BusMessage> {
        let (tx, rx) = mpsc::channel(BUS_BACKLOG);
        let mut bus = self.bus.subscribe();
        crate::spawn::spawn(async move {
            loop {
                match bus.recv().await {
                    Ok(message) if channels.contains(&message.channel) => {
                        if tx.send(message).await.is_err() {
                            break;
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        rx
    }
}

/// A store shared by reference.
impl<S: Store + ?Sized> Store for Arc<S> {
    fn put(&self, key: &str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()> {
        (**self).put(key, value, ttl)
    }
    fn get(&self, key: &str, refresh: Option<Duration>) -> StoreFuture<'_, Option<Vec<u8>>> {
        (**self).get(key, refresh)
    }
    fn delete(&self, key: &str) -> StoreFuture<'_, bool> {
        (**self).delete(key)
    }
    fn append(&self, key: &str, entry: Vec<u8>, keep: usize, ttl: Duration) -> StoreFuture<'_, ()> {
        (**self).append(key, entry, keep, ttl)
    }
    fn entries(&self, key: &str) -> StoreFuture<'_, Vec<Vec<u8>>> {
        (**self).entries(key)
    }
    fn publish(&self, channel: &str, payload: Vec<u8>) -> StoreFuture<'_, ()> {
        (**self).publish(channel, payload)
    }
    fn subscribe(&self, channels: Vec<String>) -> mpsc::Receiver<BusMessage> {
        (**self).subscribe(channels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn values_expire_and_refresh() {
        let store = MemoryStore::new(10);
        store
            .put("a", b"1".to_vec(), Duration::from_millis(40))
            .await
            .unwrap();
        assert_eq!(
            store
                .get("a", Some(Duration::from_millis(200)))
                .await
                .unwrap(),
            Some(b"1".to_vec())
        );
        tokio::time::sleep(Duration::from_millis(60)).await;
        // Refreshed to 200 ms: still there after the first 40 ms.
        assert_eq!(store.get("a", None).await.unwrap(), Some(b"1".to_vec()));
        assert!(store.delete("a").await.unwrap());
        assert_eq!(store.get("a", None).await.unwrap(), None);
    }

    #[tokio::test]
    async fn logs_keep_their_newest_entries_and_keys_are_bounded() {
        let store = MemoryStore::new(2);
        for i in 0..5u8 {
            store
                .append("log", vec![i], 3, Duration::from_secs(5))
                .await
                .unwrap();
        }
        assert_eq!(
            store.entries("log").await.unwrap(),
            vec![vec![2], vec![3], vec![4]]
        );
        store
            .put("v", vec![], Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(
            store.put("w", vec![], Duration::from_secs(5)).await,
            Err(StoreError::Full)
        );
    }

    #[tokio::test]
    async fn subscribers_get_their_channels_only() {
        let store = MemoryStore::default();
        let mut rx = store.subscribe(vec!["b".to_owned()]);
        store.publish("a", b"x".to_vec()).await.unwrap();
        store.publish("b", b"y".to_vec()).await.unwrap();
        let got = rx.recv().await.unwrap();
        assert_eq!(
            got,
            BusMessage {
                channel: "b".to_owned(),
                payload: b"y".to_vec()
            }
        );
    }
}
