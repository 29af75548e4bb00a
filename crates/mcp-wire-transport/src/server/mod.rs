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
mod config;
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
mod shared;
mod state;
pub mod store;
mod tasks;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use auth::{
    AuthFuture, AuthRejection, Authenticator, BearerTokens, NoAuth, Principal,
    RESOURCE_METADATA_PREFIX, ResourceMetadata,
};
pub use context::RequestContext;
pub use error::{HandlerError, HandlerResult, InputPending, codes};
pub use handler::{Handler, INPUT_KEY_META, Intercepted, ListenGuard, capability_for, declares};
pub use limits::Limits;
pub use notify::{Change, Notifier};
#[cfg(feature = "schemars")]
pub use router::{IntoPromptResult, IntoResourceResult, IntoToolResult, Router, Structured};
pub use runtime::check_param_headers;
pub use session::SessionHandle;
pub use tasks::table::{TableFull, TaskEntry, TaskRecord, TaskRecords, TaskTable, owned};
pub use tasks::{iso8601, new_task_id, tasks_required};

pub use config::{
    MIN_SECRET_BYTES, REPLICA_OPTIONS_HELP, ReplicaOptions, SecretTooShort, ServerConfig,
    SharedStore,
};
use session::Sessions;
pub use shared::Server;
use shared::{Runtime, ServerShared};
use state::StateSigner;

impl<H: Handler> Server<H> {
    /// A server for `handler` set up by `config`.
    pub fn new(handler: H, config: ServerConfig) -> Arc<Self> {
        let mut revisions = config.revisions;
        revisions.sort();
        revisions.dedup();
        let replica = config.store.map(|s| s.replica());
        let mut notifier = Notifier::new(config.limits.change_backlog);
        let mut task_store = tasks::TaskStore::new(config.limits);
        let mut changes = None;
        if let Some(replica) = &replica {
            let (tx, rx) = tokio::sync::mpsc::channel(config.limits.change_backlog.max(1));
            notifier = notifier.with_outward(tx);
            changes = Some(rx);
            task_store = task_store.with_id_prefix(format!("{:08x}.", replica.id()));
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
                tasks: Arc::new(task_store),
                replica,
            },
        });
        if let (Some(replica), Some(changes)) = (&server.shared.replica, changes) {
            replica.clone().start(&server.runtime(), changes);
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
            crate::spawn::spawn(async move {
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
