//! How a server is set up: in code ([`ServerConfig`]) and from a command line
//! ([`ReplicaOptions`]: `--store` and `--secret-file`, the options that make a server process
//! one replica of a server whose replicas share their state, parsed and opened in one place for
//! every binary that serves: `conformance_server`, the variants example,
//! `mcp-frames bridge --listen`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_wire::ProtocolVersion;

use super::auth::{Authenticator, NoAuth};
use super::limits::Limits;
use super::replica::serve::engine;
use super::shared::Replicas;
use super::store::Store;

/// How a server is set up.
pub struct ServerConfig {
    /// The revisions offered (any subset of the five).
    pub revisions: Vec<ProtocolVersion>,
    /// Every bound the server keeps.
    pub limits: Limits,
    /// The authentication hook.
    pub authenticator: Arc<dyn Authenticator>,
    /// Host names accepted in `Host`/`Origin` (DNS-rebinding protection); loopback names by
    /// default.
    pub allowed_hosts: Vec<String>,
    /// The key `requestState` is signed with (random per process by default; replicas share
    /// one: [`ServerConfig::with_shared_secret`]).
    pub state_key: [u8; 32],
    /// Where replicas of this server share their state (sessions, stream logs, the bus between
    /// them); `None` (the default): this process's memory only. A server with a store is made
    /// inside a tokio runtime (it starts its replica's background work there).
    pub store: Option<SharedStore>,
}

/// A [`Store`] that replicas of one server share, as [`ServerConfig::store`] holds it: the
/// store and the replica that works through it on each server made with it. A server built
/// without one carries none of the replica's code.
#[derive(Clone)]
pub struct SharedStore {
    store: Arc<dyn Store>,
    replica: fn(Arc<dyn Store>) -> Arc<dyn Replicas>,
}

impl SharedStore {
    /// Replicas sharing their state through `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            replica: engine,
        }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// A new replica on the store, for one server.
    pub(crate) fn replica(&self) -> Arc<dyn Replicas> {
        (self.replica)(self.store.clone())
    }
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedStore")
    }
}

/// A shared secret too short to derive keys from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the shared secret has {found} bytes; at least {MIN_SECRET_BYTES} are needed")]
pub struct SecretTooShort {
    /// How many bytes it had.
    pub found: usize,
}

/// The fewest bytes a shared secret may have.
pub const MIN_SECRET_BYTES: usize = 32;

impl ServerConfig {
    /// The configuration with its keys (the `requestState` key) derived from `secret`, which
    /// every replica of a server is given (from a file, never from the shared store), so that
    /// what one replica signs another accepts.
    pub fn with_shared_secret(mut self, secret: &[u8]) -> Result<Self, SecretTooShort> {
        use sha2::Digest;
        if secret.len() < MIN_SECRET_BYTES {
            return Err(SecretTooShort {
                found: secret.len(),
            });
        }
        let mut hash = sha2::Sha256::new();
        hash.update(b"mcp-wire requestState key\0");
        hash.update(secret);
        self.state_key = hash.finalize().into();
        Ok(self)
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        let mut state_key = [0u8; 32];
        // Without OS randomness the key stays zero-filled but per-process unique by time.
        if getrandom::fill(&mut state_key).is_err() {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            state_key[..16].copy_from_slice(&t.to_le_bytes());
        }
        Self {
            revisions: ProtocolVersion::ALL.to_vec(),
            limits: Limits::default(),
            authenticator: Arc::new(NoAuth),
            allowed_hosts: ["localhost", "127.0.0.1", "[::1]"]
                .map(str::to_owned)
                .to_vec(),
            state_key,
            store: None,
        }
    }
}

/// The help text of the options [`ReplicaOptions::take`] knows.
pub const REPLICA_OPTIONS_HELP: &str = "\
replicas (several processes behind any load balancer, serving as one):
  --store redis://HOST:PORT[/DB]  share the live state (sessions, stream logs, …) in this
                              Redis (feature `redis`); without it, this process's memory
  --secret-file PATH          the secret every replica derives its keys from (at least 32
                              bytes; the same file for every replica; never stored in Redis);
                              required with --store";

/// How long one command to the shared store may take.
const STORE_TIMEOUT: Duration = Duration::from_secs(2);

/// `--store URL` and `--secret-file PATH`, as a command line gives them.
#[derive(Debug, Clone, Default)]
pub struct ReplicaOptions {
    /// The shared store's URL (`redis://HOST:PORT[/DB]`); `None`: state in this process only.
    pub store: Option<String>,
    /// The file holding the shared secret.
    pub secret_file: Option<PathBuf>,
}

impl ReplicaOptions {
    /// Takes the option `flag` when it is one of these, its value from `value`: `Ok(true)`
    /// when taken, `Ok(false)` when `flag` is another option.
    pub fn take(
        &mut self,
        flag: &str,
        value: impl FnOnce() -> Option<String>,
    ) -> Result<bool, String> {
        let value = || value().ok_or_else(|| format!("{flag} needs a value"));
        match flag {
            "--store" => self.store = Some(value()?),
            "--secret-file" => self.secret_file = Some(PathBuf::from(value()?)),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The secret `--secret-file` holds (`None` without the option): at least
    /// [`MIN_SECRET_BYTES`] bytes, and given whenever `--store` is (replicas that sign with
    /// keys of their own refuse what the others signed).
    pub fn secret(&self) -> Result<Option<Vec<u8>>, String> {
        let Some(path) = &self.secret_file else {
            return match &self.store {
                Some(_) => Err("--store needs --secret-file (every replica the same)".to_owned()),
                None => Ok(None),
            };
        };
        let secret = std::fs::read(path)
            .map_err(|e| format!("cannot read --secret-file {}: {e}", path.display()))?;
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "--secret-file {}: {} bytes; at least {MIN_SECRET_BYTES} are needed",
                path.display(),
                secret.len()
            ));
        }
        Ok(Some(secret))
    }

    /// The store `--store` names (`None` without the option). Connecting is lazy: a Redis
    /// that is not up yet is not an error here.
    pub fn open_store(&self) -> Result<Option<Arc<dyn Store>>, String> {
        self.store.as_deref().map(open).transpose()
    }

    /// `config` with the store and the keys derived from the secret, when the options give
    /// them (what `config` has stays otherwise).
    pub fn configure(&self, config: ServerConfig) -> Result<ServerConfig, String> {
        let secret = self.secret()?;
        let mut config = config;
        if let Some(store) = self.open_store()? {
            config.store = Some(SharedStore::new(store));
        }
        if let Some(secret) = secret {
            config = config.with_shared_secret(&secret).map_err(|e| {
                format!(
                    "--secret-file {}: {e}",
                    self.secret_file
                        .as_deref()
                        .unwrap_or(std::path::Path::new(""))
                        .display()
                )
            })?;
        }
        Ok(config)
    }
}

/// The shared store at `url`.
#[cfg(feature = "redis")]
fn open(url: &str) -> Result<Arc<dyn Store>, String> {
    if !url.starts_with("redis://") {
        return Err(format!("--store takes redis://HOST:PORT[/DB], not {url:?}"));
    }
    let store = super::store::RedisStore::open(url, STORE_TIMEOUT)
        .map_err(|e| format!("--store {url}: {e}"))?;
    Ok(Arc::new(store))
}

/// Without the `redis` feature there is no shared store to open.
#[cfg(not(feature = "redis"))]
fn open(_url: &str) -> Result<Arc<dyn Store>, String> {
    let _ = STORE_TIMEOUT;
    Err("--store needs a build with the feature `redis`".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<ReplicaOptions, String> {
        let mut options = ReplicaOptions::default();
        let mut args = args.iter().map(|s| (*s).to_owned());
        while let Some(flag) = args.next() {
            if !options.take(&flag, || args.next())? {
                return Err(format!("not taken: {flag}"));
            }
        }
        Ok(options)
    }

    #[test]
    fn a_store_needs_a_secret_file_of_32_bytes_or_more() {
        let dir = std::env::temp_dir().join(format!("replica-options-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let short = dir.join("short");
        std::fs::write(&short, [7u8; 31]).unwrap();
        let long = dir.join("long");
        std::fs::write(&long, [7u8; 32]).unwrap();
        let none = parsed(&[]).unwrap();
        assert_eq!(none.secret(), Ok(None));
        assert!(none.open_store().unwrap().is_none());
        let alone = parsed(&["--store", "redis://127.0.0.1:1"]).unwrap();
        assert_eq!(
            alone.secret(),
            Err("--store needs --secret-file (every replica the same)".to_owned())
        );
        let too_short = parsed(&["--secret-file", short.to_str().unwrap()]).unwrap();
        assert!(
            too_short
                .secret()
                .unwrap_err()
                .ends_with("31 bytes; at least 32 are needed")
        );
        let good = parsed(&["--secret-file", long.to_str().unwrap()]).unwrap();
        assert_eq!(good.secret(), Ok(Some(vec![7u8; 32])));
        assert_eq!(
            parsed(&["--store"]).unwrap_err(),
            "--store needs a value".to_owned()
        );
        assert_eq!(
            parsed(&["--listen", "x"]).unwrap_err(),
            "not taken: --listen"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(feature = "redis")]
    #[test]
    fn only_redis_urls_name_a_store() {
        let options = parsed(&["--store", "memcached://127.0.0.1:1"]).unwrap();
        assert_eq!(
            options.open_store().err(),
            Some(
                "--store takes redis://HOST:PORT[/DB], not \"memcached://127.0.0.1:1\"".to_owned()
            )
        );
    }
}
