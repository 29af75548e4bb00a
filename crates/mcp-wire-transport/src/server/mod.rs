//! A small typed MCP server runtime and its Streamable HTTP transport (both wires).
//!
//! - [`Handler`]: what a server offers (tools, resources and templates, prompts, completion),
//!   answered with the superset model's types; the runtime frames every answer with
//!   `mcp_wire::wire::serialize_for_vec` at the request's revision and reads every frame with
//!   `parse_as`.
//! - [`RequestContext`]: who asks, at which revision, progress and logs on the request's
//!   stream, and [`RequestContext::input`], the one way a handler asks the client for input:
//!   server→client requests on the request's SSE stream at the handshake revisions, an
//!   `InputRequiredResult` round trip with a signed `requestState` at 2026-07-28.
//! - [`RequestContext::run_as_task`]: a tool runs as a task of the `io.modelcontextprotocol/tasks`
//!   extension (SEP-2663) when the server offers it (`capabilities.extensions`) and the client
//!   declared it; the runtime's bounded store answers `tasks/get`, `tasks/update`, `tasks/cancel`.
//!   At 2025-11-25 the same tools are core tasks (the `tasks` capability, `params.task`,
//!   `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`).
//! - [`Router`] (feature `schemars`, on by default): a [`Handler`] made of registered tools,
//!   resources and prompts, each an async closure whose arguments and results are Rust types
//!   (schemas from schemars; with the feature `output-check`, [`Structured`] output checked
//!   against its `outputSchema`).
//! - [`Server`]: the runtime plus its configuration ([`ServerConfig`]: the revisions offered,
//!   [`Limits`], the authentication hook); [`Server::serve_http`] and [`Server::serve_stdio`]
//!   serve it, [`Server::router`] is the axum router serving the endpoint.

pub(crate) mod auth;
mod connection;
mod context;
mod error;
mod handler;
mod http;
mod limits;
mod mirror;
mod notify;
pub mod oauth;
mod replica;
#[cfg(feature = "schemars")]
mod router;
mod runtime;
mod session;
mod state;
pub mod store;
mod tasks;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_wire::ProtocolVersion;

pub use auth::{
    AuthFuture, AuthRejection, Authenticator, BearerTokens, NoAuth, Principal,
    RESOURCE_METADATA_PREFIX, ResourceMetadata,
};
pub use context::RequestContext;
pub use error::{HandlerError, HandlerResult, InputPending, codes};
use handler::DynHandler;
pub use handler::{Handler, INPUT_KEY_META, Intercepted, ListenGuard, capability_for, declares};
pub use limits::Limits;
pub use notify::{Change, Notifier};
#[cfg(feature = "schemars")]
pub use router::{IntoPromptResult, IntoResourceResult, IntoToolResult, Router, Structured};
pub use runtime::check_param_headers;
pub use session::SessionHandle;
pub use tasks::{iso8601, new_task_id, tasks_required};

use session::Sessions;
use state::StateSigner;

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
    pub store: Option<Arc<dyn store::Store>>,
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

/// The state every request of a server shares.
pub(crate) struct ServerShared {
    pub revisions: Vec<ProtocolVersion>,
    pub limits: Limits,
    pub authenticator: Arc<dyn Authenticator>,
    pub allowed_hosts: Vec<String>,
    pub signer: StateSigner,
    pub sessions: Sessions,
    pub notifier: Notifier,
    pub sse: http::SseConnections,
    pub tasks: Arc<tasks::TaskStore>,
    /// With a shared store: this process's replica.
    pub replica: Option<Arc<replica::Replica>>,
}

/// A server: a [`Handler`] and everything the runtime keeps for it.
pub struct Server<H: ?Sized> {
    pub(crate) shared: ServerShared,
    /// Last, so that an `Arc<Server<H>>` is also an `Arc<Runtime>`.
    pub(crate) handler: H,
}

/// The server as the runtime serves it, whatever its handler type: the runtime is compiled
/// once, here, not for each handler type in the crate that names it.
pub(crate) type Runtime = Server<dyn DynHandler>;

impl<H: Handler> Server<H> {
    /// A server for `handler` set up by `config`.
    pub fn new(handler: H, config: ServerConfig) -> Arc<Self> {
        let mut revisions = config.revisions;
        revisions.sort();
        revisions.dedup();
        let replica = config.store.map(|s| Arc::new(replica::Replica::new(s)));
        let mut notifier = Notifier::new(config.limits.change_backlog);
        let mut task_store = tasks::TaskStore::new(config.limits);
        let mut changes = None;
        if let Some(replica) = &replica {
            let (tx, rx) = tokio::sync::mpsc::channel(config.limits.change_backlog.max(1));
            notifier = notifier.with_outward(tx);
            changes = Some(rx);
            task_store = task_store.with_id_prefix(format!("{:08x}.", replica.id));
        }
        let server = Arc::new(Self {
            handler,
            shared: ServerShared {
                revisions,
                limits: config.limits,
                authenticator: config.authenticator,
                allowed_hosts: config.allowed_hosts,
                signer: StateSigner::new(config.state_key, config.limits.request_state_ttl),
                sessions: Sessions::new(config.limits),
                notifier,
                sse: http::SseConnections::default(),
                tasks: Arc::new(task_store),
                replica,
            },
        });
        if let Some(changes) = changes {
            replica::start(&server.runtime(), changes);
        }
        server
    }

    /// The handler.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The same server, as the runtime serves it.
    pub(crate) fn runtime(self: &Arc<Self>) -> Arc<Runtime> {
        self.clone()
    }

    /// The axum router serving the Streamable HTTP endpoint at `path` (usually `/mcp`), and,
    /// when 2024-11-05 is offered, its HTTP+SSE transport beside it (`GET /sse`,
    /// `POST /messages`).
    pub fn router(self: &Arc<Self>, path: &str) -> axum::Router {
        http::router(self.runtime(), path)
    }

    /// Serves `/mcp` on `listener` (with [`without_nagle`]) until the process ends, expiring idle sessions in the
    /// background.
    pub async fn serve(self: &Arc<Self>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let runtime = self.runtime();
        runtime.serve_at(listener, "/mcp").await
    }

    /// Listens on `addr` and serves the Streamable HTTP endpoint at `path` (every revision the
    /// server offers, and 2024-11-05's HTTP+SSE beside it) as [`Server::serve`] does, until the
    /// process ends. An address that cannot be bound is the error.
    pub async fn serve_http(
        self: &Arc<Self>,
        addr: impl tokio::net::ToSocketAddrs,
        path: &str,
    ) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let runtime = self.runtime();
        runtime.serve_at(listener, path).await
    }
}

impl<H: ?Sized> Server<H> {
    /// Announces changes to every listening client.
    pub fn notifier(&self) -> &Notifier {
        &self.shared.notifier
    }

    /// The revisions offered, oldest first.
    pub fn revisions(&self) -> &[ProtocolVersion] {
        &self.shared.revisions
    }

    /// How many handshake-era sessions are live.
    pub fn session_count(&self) -> usize {
        self.shared.sessions.len()
    }

    /// How many tasks (tasks extension) the server keeps.
    pub fn task_count(&self) -> usize {
        self.shared.tasks.len()
    }

    /// Ends idle sessions now (a background task also does it, see [`Server::serve`]).
    pub fn expire_idle_sessions(&self) {
        self.shared.sessions.expire_idle();
    }
}

impl Runtime {
    /// [`Server::serve`] at `path`, for any handler type; built and boxed here, so that the
    /// generic callers only poll it.
    fn serve_at<'a>(
        self: &'a Arc<Self>,
        listener: tokio::net::TcpListener,
        path: &'a str,
    ) -> handler::Boxed<'a, std::io::Result<()>> {
        Box::pin(self.serve_on(listener, path))
    }

    async fn serve_on(
        self: &Arc<Self>,
        listener: tokio::net::TcpListener,
        path: &str,
    ) -> std::io::Result<()> {
        let sweeper = {
            let server = Arc::downgrade(self);
            let period = (self.shared.limits.session_idle / 4).max(Duration::from_millis(100));
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(period);
                loop {
                    tick.tick().await;
                    match server.upgrade() {
                        Some(s) => s.expire_idle_sessions(),
                        None => break,
                    }
                }
            })
        };
        let result = axum::serve(
            without_nagle(listener),
            http::router(self.clone(), path).into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
        sweeper.abort();
        result
    }
}

/// `listener` with `TCP_NODELAY` set on every connection it accepts: an answer goes out as
/// soon as it is written, instead of waiting behind Nagle's algorithm for the peer's
/// acknowledgement of the previous write (headers, SSE events and chunk trailers are small
/// separate writes). Every HTTP server of the workspace serves through it.
pub fn without_nagle(listener: tokio::net::TcpListener) -> NoDelayListener {
    use axum::serve::ListenerExt;
    listener.tap_io(set_no_delay)
}

/// The listener [`without_nagle`] returns.
pub type NoDelayListener =
    axum::serve::TapIo<tokio::net::TcpListener, fn(&mut tokio::net::TcpStream)>;

fn set_no_delay(tcp: &mut tokio::net::TcpStream) {
    // A socket that refuses the option still serves, only with Nagle's delays.
    let _ = tcp.set_nodelay(true);
}
