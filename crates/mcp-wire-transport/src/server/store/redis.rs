//! [`RedisStore`]: the shared store on a Redis server (`redis://HOST:PORT[/DB]`).
//!
//! Values are Redis strings with a millisecond expiry (`SET … PX`, `GETEX … PX`), logs are
//! lists trimmed to their bound in the same transaction that appends (`RPUSH`, `LTRIM`,
//! `PEXPIRE`), the bus is Redis publish/subscribe. Commands go through the client's connection
//! manager (one multiplexed connection, re-established in the background after a failure);
//! each is bounded by the store's timeout, so a Redis that is down or unreachable answers
//! [`StoreError::Unavailable`] instead of a wait, and the next command after it returns
//! succeeds. The subscription has a connection of its own, re-opened (and resubscribed) after
//! it drops.

use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::mpsc;

use super::{BUS_BACKLOG, BusMessage, Store, StoreError, StoreFuture};

/// A [`Store`] on Redis.
#[derive(Clone)]
pub struct RedisStore {
    client: redis::Client,
    connection: ConnectionManager,
    timeout: Duration,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://HOST:PORT[/DB]`), each command bounded by
    /// `timeout`. It connects on first use: a Redis that is not up yet is not an error here.
    pub fn open(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(unavailable)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let connection = client
            .get_connection_manager_lazy(config)
            .map_err(unavailable)?;
        Ok(Self {
            client,
            connection,
            timeout,
        })
    }

    /// Runs `command`, bounded by the timeout.
    async fn run<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        match tokio::time::timeout(self.timeout, command.query_async(&mut connection)).await {
            Ok(result) => result.map_err(unavailable),
            Err(_) => Err(StoreError::Unavailable(format!(
                "no answer within {} ms",
                self.timeout.as_millis()
            ))),
        }
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl Store for RedisStore {
    fn put(&self, key: &str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()> {
        let mut command = redis::cmd("SET");
        command.arg(key).arg(value).arg("PX").arg(millis(ttl));
        Box::pin(self.run(command))
    }

    fn get(&self, key: &str, refresh: Option<Duration>) -> StoreFuture<'_, Option<Vec<u8>>> {
        let command = match refresh {
            Some(ttl) => {
                let mut c = redis::cmd("GETEX");
                c.arg(key).arg("PX").arg(millis(ttl));
                c
            }
            None => {
                let mut c = redis::cmd("GET");
                c.arg(key);
                c
            }
        };
        Box::pin(self.run(command))
    }

    fn delete(&self, key: &str) -> StoreFuture<'_, bool> {
        let mut command = redis::cmd("DEL");
        command.arg(key);
        Box::pin(async move { Ok(self.run::<u64>(command).await? > 0) })
    }

    fn append(&self, key: &str, entry: Vec<u8>, keep: usize, ttl: Duration) -> StoreFuture<'_, ()> {
        let keep = i64::try_from(keep.max(1)).unwrap_or(i64::MAX);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("RPUSH")
            .arg(key)
            .arg(entry)
            .ignore()
            .cmd("LTRIM")
            .arg(key)
            .arg(-keep)
            .arg(-1)
            .ignore()
            .cmd("PEXPIRE")
            .arg(key)
            .arg(millis(ttl))
            .ignore();
        Box::pin(async move {
            let mut connection = self.connection.clone();
            match tokio::time::timeout(self.timeout, pipe.query_async::<()>(&mut connection)).await
            {
                Ok(result) => result.map_err(unavailable),
                Err(_) => Err(StoreError::Unavailable("no answer in time".to_owned())),
            }
        })
    }

    fn entries(&self, key: &str) -> StoreFuture<'_, Vec<Vec<u8>>> {
        let mut command = redis::cmd("LRANGE");
        command.arg(key).arg(0).arg(-1);
        Box::pin(self.run(command))
    }

    fn publish(&self, channel: &str, payload: Vec<u8>) -> StoreFuture<'_, ()> {
        let mut command = redis::cmd("PUBLISH");
        command.arg(channel).arg(payload);
        Box::pin(async move { self.run::<u64>(command).await.map(|_| ()) })
    }

    fn subscribe(&self, channels: Vec<String>) -> mpsc::Receiver<BusMessage> {
        let (tx, rx) = mpsc::channel(BUS_BACKLOG);
        let client = self.client.clone();
        let timeout = self.timeout;
        crate::spawn::spawn(async move {
            while !tx.is_closed() {
                let opened = tokio::time::timeout(timeout, async {
                    let mut pubsub = client.get_async_pubsub().await?;
                    for channel in &channels {
                        pubsub.subscribe(channel).await?;
                    }
                    Ok::<_, redis::RedisError>(pubsub)
                })
                .await;
                match opened {
                    Ok(Ok(pubsub)) => {
                        let mut messages = pubsub.into_on_message();
                        loop {
                            tokio::select! {
                                message = messages.next() => match message {
                                    Some(m) => {
                                        let message = BusMessage {
                                            channel: m.get_channel_name().to_owned(),
                                            payload: m.get_payload_bytes().to_vec(),
                                        };
                                        if tx.send(message).await.is_err() {
                                            return;
                                        }
                                    }
                                    None => break,
                                },
                                () = tx.closed() => return,
                            }
                        }
                        tracing::warn!("the shared store's subscription dropped: reconnecting");
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, "the shared store's subscription failed")
                    }
                    Err(_) => tracing::warn!("the shared store's subscription timed out"),
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
        rx
    }
}
