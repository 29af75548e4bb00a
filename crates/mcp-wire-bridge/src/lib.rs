//! `mcp-wire-bridge`: a live MCP proxy between a client of one protocol revision and a server of
//! another, every frame translated with `mcp-wire`' boundary (`serialize_for` / `parse_as`
//! at each side's revision). It is what `mcp-frames bridge` runs (cargo feature `bridge` of
//! `mcp-wire-frames`; [`cli`] has its arguments).
//!
//! # Architecture
//!
//! - **Downstream** (the client side) is the transport crate's server runtime
//!   (`mcp_wire_transport::server`) with [`engine::BridgeHandler`] as its handler. The runtime
//!   serves every revision on every transport — stdio, Streamable
//!   HTTP on both wires (`Mcp-Session-Id` sessions, the 2026-07-28 stateless wire with its
//!   headers), 2024-11-05 HTTP+SSE — negotiates each client's revision on its own, and frames
//!   every answer with `serialize_for` at that revision. The handler intercepts every request
//!   and carries it upstream.
//! - **Upstream** ([`upstream::Upstream`]) is one client connection of the transport crate: a
//!   child process over stdio, or a URL (the 2026-07-28 stateless wire, the stateful wire, or
//!   HTTP+SSE, tried in that order by the probe). Its router task reads every upstream frame
//!   at the upstream's revision (`parse_as`, results with `parse_result_for` typed by the
//!   request they answer) and delivers it to the *leg* it belongs to.
//! - The mapping tables are data: [`engine`]'s `CLIENT_CAPABILITY_MAP` (legacy
//!   `initialize` capabilities → 2026-07-28 `clientCapabilities`), `SERVER_CAPABILITIES_HIDDEN`,
//!   `STATELESS_RESULT_META`, the ledger's `RESERVED_META`; [`limits::BridgeLimits`] (every bound); [`limits::Reason`]
//!   (the refusal catalogue, `data.reason`). Field-level stripping and refusing is the
//!   boundary's ledger, not repeated here.
//! - [`report`]: `--report FILE`, one line per frame changed, refused or synthesized, in
//!   `explain`'s shape.
//!
//! - Direction B (`stateless_to_handshake`, `handshake_sessions`, `park`): a 2026-07-28 client in
//!   front of a legacy server gets a legacy session of its own identity, and its calls whose
//!   server asks it something are parked behind an `InputRequiredResult`.
//!
//! # What is bridged
//!
//! Direction C (legacy ↔ legacy at different revisions), direction A (legacy client →
//! 2026-07-28 server: the handshake answered from the upstream's snapshot, requests stamped
//! with the session's identity, capabilities and log level, `ping` local,
//! `InputRequiredResult` unpacked into server→client requests and retried with fresh ids
//! (bounded rounds), results shaped for the client's revision, list changes and resource
//! subscriptions carried by one upstream `subscriptions/listen` stream (`listen`)), and
//! direction B (2026-07-28 client → legacy server: `server/discover` from the legacy
//! `InitializeResult`, one legacy session per client identity, results decorated at
//! 2026-07-28, legacy errors mapped, server→client requests during a call turned into
//! input-required rounds with signed single-use tokens, progress and logs to the request,
//! list changes and resource subscriptions on listen streams). A 2026-07-28 client in front of a 2026-07-28 server is
//! passed through.
//!
//! Judged by the official conformance suite in `tests/conformance.rs`: direction A (the
//! fixtures at 2026-07-28 only, behind the bridge) at `--requirements 2025-11-25`, and
//! direction B (the fixtures at 2025-11-25 only, their tasks as 2025-11-25 core tasks) at
//! `--requirements 2026-07-28`, the tasks-extension scenarios included, each with no failed
//! check and an empty `tests/conformance/expected-failures-b.yaml`. Also by real SDK clients
//! in `tests/real_clients.rs`, real SDK client and server pairs in both directions in
//! `tests/sdk_pairs.rs`, every fault in `tests/faults.rs`, and by `tests/stateless_to_handshake.rs`.
//!
//! # Decisions
//!
//! Where the protocol leaves a bridge a choice, the decision and its reason are recorded in the
//! repository's `docs/bridge.md` ("Decision log"), which also has the behaviour tables. Their
//! labels (`A12`, `B9`, `Q8`, …) are the ones this crate's comments cite. In short:
//!
//! - A legacy server's request is carried only inside a `tools/call`, `prompts/get` or
//!   `resources/read` in flight (the newest one, or the one waiting on the task it names);
//!   elsewhere it is answered -32601 (Q1, Q2, B10).
//! - Errors the bridge makes are -32603 with `data.reason` ([`Reason`]), never -32000..-32099
//!   (Q4); a legacy server's errors are mapped for 2026-07-28 clients (`stateless_to_handshake`), and
//!   other errors pass (Q5).
//! - A 2026-07-28 client's identity gets a legacy session of its own, never shared across
//!   principals (Q15); a capability it lacks is refused to the server, and becomes -32021 only
//!   if the call then fails (Q20).
//! - Tasks: never offered to legacy clients; offered to 2026-07-28 clients as the tasks
//!   extension exactly when the legacy server has 2025-11-25 core tasks for `tools/call`, or
//!   hosted by the bridge when [`BridgeLimits::host_tasks_after`] is set (Q8).
//! - A changed listen filter opens the new stream before cancelling the old one; identical
//!   changes within `DUPLICATE_WINDOW` (200 ms) are announced once (Q13).

pub mod cli;
pub mod emit;
pub mod engine;
mod handshake_sessions;
mod input_rounds;
pub mod limits;
mod listen;
mod park;
pub mod report;
mod stateless_to_handshake;
mod tasks;
pub mod upstream;

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::Arc;

use mcp_wire::{Era, ProtocolVersion};
use mcp_wire_transport::client::{Authorizer, AuthorizerSlot};
use mcp_wire_transport::server::ReplicaOptions;
use mcp_wire_transport::server::{
    Authenticator, NoAuth, Notifier, Principal, Server, ServerConfig,
};
use mcp_wire_transport::{Connection, Frame};

pub use emit::Emitter;
pub use engine::BridgeHandler;
pub use limits::{BridgeLimits, Reason};
pub use report::Report;
pub use upstream::{Snapshot, UpstreamTarget};

/// Identical upstream changes closer together than this are announced once (direction B's
/// sessions each report a server-wide change; direction A's old and new listen streams both
/// carry what happens while a changed filter overlaps them, Q13).
const DUPLICATE_WINDOW: std::time::Duration = std::time::Duration::from_millis(200);

/// How many distinct recent changes [`Recent`] remembers (a bound, not a window).
const RECENT_CHANGES: usize = 16;

/// The changes announced within the last [`DUPLICATE_WINDOW`], at most [`RECENT_CHANGES`]:
/// a change is fresh unless an identical one is among them, so interleaved duplicates
/// (X, Y from the old stream, X, Y from the new) are dropped as well as consecutive ones.
#[derive(Debug, Default)]
struct Recent {
    seen: std::collections::VecDeque<(mcp_wire_transport::server::Change, tokio::time::Instant)>,
}

impl Recent {
    /// Whether `change` at `now` should be announced; remembers it if so.
    fn fresh(
        &mut self,
        change: &mcp_wire_transport::server::Change,
        now: tokio::time::Instant,
    ) -> bool {
        self.seen
            .retain(|(_, at)| now.saturating_duration_since(*at) < DUPLICATE_WINDOW);
        if self.seen.iter().any(|(c, _)| c == change) {
            return false;
        }
        if self.seen.len() == RECENT_CHANGES {
            self.seen.pop_front();
        }
        self.seen.push_back((change.clone(), now));
        true
    }
}

/// Why the bridge could not start or had to stop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The upstream could not be reached or refused every revision allowed.
    #[error("upstream unavailable: {0}")]
    UpstreamUnavailable(String),
    /// The upstream went away; every pending request was failed.
    #[error("upstream closed: {0}")]
    UpstreamClosed(String),
    /// The configuration cannot be served.
    #[error("{0}")]
    Config(String),
    /// Listening or the report file failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// How a bridge is set up.
#[derive(Clone)]
#[non_exhaustive]
pub struct BridgeOptions {
    /// The revisions offered to clients.
    pub client_revisions: Vec<ProtocolVersion>,
    /// The revisions the bridge may speak upstream.
    pub server_revisions: Vec<ProtocolVersion>,
    /// Every bound.
    pub limits: BridgeLimits,
    /// The live report.
    pub report: Arc<Report>,
    /// How upstream frames are emitted.
    pub emitter: Emitter,
    /// Who the bridge's HTTP clients are (`NoAuth` by default; an OAuth
    /// `mcp_wire_transport::server::oauth::ResourceServer` for a protected endpoint). What a
    /// client presents stays with the bridge: upstream requests carry only the bridge's own
    /// credentials, never a client's token.
    pub authenticator: Arc<dyn Authenticator>,
    /// The bridge's own credentials at an HTTP upstream that requires authorization (an OAuth
    /// client, `mcp_wire_transport::client::oauth::OAuthClient`, or a fixed token); none by
    /// default. Only these reach the upstream: a client's token is never passed on.
    pub upstream_authorizer: Option<AuthorizerSlot>,
    /// `--store` and `--secret-file`: the client side's sessions shared with the other
    /// replicas of this bridge behind a load balancer (none by default: this process only).
    pub replica: ReplicaOptions,
}

impl std::fmt::Debug for BridgeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeOptions")
            .field("client_revisions", &self.client_revisions)
            .field("server_revisions", &self.server_revisions)
            .field("limits", &self.limits)
            .field("report", &self.report)
            .field("emitter", &self.emitter)
            .finish_non_exhaustive()
    }
}

impl Default for BridgeOptions {
    fn default() -> Self {
        Self {
            client_revisions: ProtocolVersion::ALL.to_vec(),
            server_revisions: ProtocolVersion::ALL.to_vec(),
            limits: BridgeLimits::default(),
            report: Arc::new(Report::none()),
            emitter: Emitter::default(),
            authenticator: Arc::new(NoAuth),
            upstream_authorizer: None,
            replica: ReplicaOptions::default(),
        }
    }
}

impl BridgeOptions {
    /// Sets [`BridgeOptions::client_revisions`].
    pub fn client_revisions(mut self, revisions: Vec<ProtocolVersion>) -> Self {
        self.client_revisions = revisions;
        self
    }

    /// Sets [`BridgeOptions::server_revisions`].
    pub fn server_revisions(mut self, revisions: Vec<ProtocolVersion>) -> Self {
        self.server_revisions = revisions;
        self
    }

    /// Sets [`BridgeOptions::limits`].
    pub fn limits(mut self, limits: BridgeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`BridgeOptions::report`].
    pub fn report(mut self, report: Report) -> Self {
        self.report = Arc::new(report);
        self
    }

    /// Sets [`BridgeOptions::upstream_authorizer`].
    pub fn upstream_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.upstream_authorizer = Some(AuthorizerSlot::new(authorizer));
        self
    }

    /// Sets [`BridgeOptions::replica`].
    pub fn replica(mut self, replica: ReplicaOptions) -> Self {
        self.replica = replica;
        self
    }

    /// Sets [`BridgeOptions::authenticator`].
    pub fn authenticator(mut self, authenticator: Arc<dyn Authenticator>) -> Self {
        self.authenticator = authenticator;
        self
    }
}

/// A bridge connected to its upstream, ready to serve clients.
pub struct Bridge {
    server: Arc<Server<BridgeHandler>>,
    upstream: Arc<upstream::Upstream>,
    snapshot: Snapshot,
    limits: BridgeLimits,
}

impl Bridge {
    /// Connects to the upstream (probing its era), and sets up the client side for the
    /// revisions both the options and the upstream's era allow.
    pub async fn connect(
        target: &UpstreamTarget,
        options: BridgeOptions,
    ) -> Result<Bridge, BridgeError> {
        let changes = Notifier::new(256);
        let (upstream, snapshot) = upstream::Upstream::connect(
            target,
            &options.server_revisions,
            options.limits,
            options.upstream_authorizer.as_ref(),
            options.report.clone(),
            options.emitter,
            changes.clone(),
        )
        .await?;
        let mut revisions: Vec<ProtocolVersion> = options.client_revisions.clone();
        revisions.sort();
        revisions.dedup();
        if revisions.is_empty() {
            upstream.shutdown();
            return Err(BridgeError::Config(
                "no client revision to offer".to_owned(),
            ));
        }
        // Direction A: one subscriptions/listen stream upstream carries the clients' list
        // changes and subscriptions; a server that refuses it gets neither advertised.
        let listener = match (
            snapshot.era(),
            listen::Listener::new(upstream.clone(), &snapshot.capabilities),
        ) {
            (Era::Stateless, Some(listener)) => match listener.start().await {
                Ok(()) => Some(listener),
                Err(e) => {
                    options.report.event(
                        report::Dir::ToServer,
                        "subscriptions/listen",
                        None,
                        snapshot.revision,
                        report::Status::Refused,
                        format!("the upstream refused the listen stream, so list changes and subscriptions are not offered: {}", e.message),
                    );
                    None
                }
            },
            _ => None,
        };
        // Direction B: a 2026-07-28 client before a legacy server gets a legacy session of
        // its own identity (`handshake_sessions`).
        let handshake_sessions = (snapshot.era() == Era::Handshake
            && revisions.contains(&ProtocolVersion::V2026_07_28))
        .then(|| {
            handshake_sessions::HandshakeSessions::new(
                target.clone(),
                snapshot.clone(),
                options.limits,
                options.upstream_authorizer.clone(),
                options.report.clone(),
                options.emitter,
                changes.clone(),
            )
        });
        let handler = BridgeHandler::new(
            upstream.clone(),
            listener,
            snapshot.clone(),
            options.limits,
            options.report.clone(),
            options.emitter,
            handshake_sessions,
        );
        let mut config = options
            .replica
            .configure(ServerConfig {
                revisions,
                authenticator: options.authenticator.clone(),
                ..ServerConfig::default()
            })
            .map_err(BridgeError::Config)?;
        // One bound on a client frame, whatever carries it (stdio lines, HTTP bodies: 413).
        config.limits.max_body_bytes = options.limits.max_frame_bytes;
        let server = Server::new(handler, config);
        // The upstream's changes, announced to the clients (relay ends with the server).
        let relay = Arc::downgrade(&server);
        let mut rx = changes.subscribe();
        tokio::spawn(async move {
            // Several upstream sessions (direction B's) report the same change: one copy
            // goes on per `DUPLICATE_WINDOW`.
            let mut recent = Recent::default();
            loop {
                match rx.recv().await {
                    Ok(change) => match relay.upgrade() {
                        Some(server) => {
                            if recent.fresh(&change, tokio::time::Instant::now()) {
                                server.notifier().announce(change);
                            }
                        }
                        None => break,
                    },
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        Ok(Bridge {
            server,
            upstream,
            snapshot,
            limits: options.limits,
        })
    }

    /// What the upstream said about itself.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The client-facing handler (its state: direction B's sessions and parked calls).
    pub fn handler(&self) -> &BridgeHandler {
        self.server.handler()
    }

    /// The revisions offered to clients, oldest first.
    pub fn client_revisions(&self) -> &[ProtocolVersion] {
        self.server.revisions()
    }

    /// Serves one client over a frame connection (stdio, or any pipe) until it closes
    /// (`Ok`) or the upstream goes away (`Err(UpstreamClosed)`, after the failed answers had
    /// [`BridgeLimits::drain_grace`] to reach the client).
    pub async fn serve_connection(&self, connection: Connection) -> Result<(), BridgeError> {
        let serving = self
            .server
            .serve_connection(connection, Principal::anonymous());
        tokio::pin!(serving);
        tokio::select! {
            () = &mut serving => Ok(()),
            why = self.upstream.gone() => {
                // Keep serving a moment: the failed answers are being written.
                let _ = tokio::time::timeout(self.limits.drain_grace, &mut serving).await;
                Err(BridgeError::UpstreamClosed(why))
            }
        }
    }

    /// Serves clients on our own stdin/stdout ([`Bridge::serve_lines`]).
    pub async fn serve_stdio(&self) -> Result<(), BridgeError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves one client over newline-delimited frames (stdio, a socket, a test pipe) as
    /// [`Bridge::serve_connection`] does, and returns once every request read before the input
    /// ended has been answered and its answer written and flushed. A line over [`BridgeLimits::max_frame_bytes`] is skipped
    /// without being buffered and answered with a `limit_exceeded` error, one that is not JSON
    /// with -32700; both with `"id": null`, since the id of a line not read is unknown.
    pub async fn serve_lines<R, W>(&self, reader: R, writer: W) -> Result<(), BridgeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let stdio = mcp_wire_transport::stdio::pipe(
            reader,
            writer,
            mcp_wire_transport::stdio::StdioOptions::default()
                .max_line_bytes(self.limits.max_frame_bytes),
        );
        let mut skipped = stdio.stats.subscribe();
        let answers = stdio.connection.sender.clone();
        let refusing = tokio::spawn(async move {
            loop {
                let error = match skipped.recv().await {
                    Ok(skipped) => limits::skipped_line_error(&skipped),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                let answer = mcp_wire::jsonrpc::JsonRpcError::new(None, error);
                let frame = Frame::from_emitted(serde_json::to_vec(&answer).unwrap_or_default());
                if answers.send(frame).await.is_err() {
                    break;
                }
            }
        });
        let handle = stdio.connection.handle.clone();
        let served = self.serve_connection(stdio.connection).await;
        refusing.abort();
        // The answers still queued are written and flushed before this returns, so a process
        // that exits next loses none (with the upstream gone, within the drain grace).
        handle.close();
        match &served {
            Ok(()) => {
                handle.ended().await;
            }
            Err(_) => {
                let _ = tokio::time::timeout(self.limits.drain_grace, handle.ended()).await;
            }
        }
        served
    }

    /// Serves clients over HTTP at `path` on `listener` (Streamable HTTP on both wires, and
    /// 2024-11-05 HTTP+SSE beside it when offered; `TCP_NODELAY` on every connection) until the upstream goes away.
    pub async fn serve_http(
        &self,
        listener: tokio::net::TcpListener,
        path: &str,
    ) -> Result<(), BridgeError> {
        let app = self
            .server
            .router(path)
            .into_make_service_with_connect_info::<SocketAddr>();
        let server = self.server.clone();
        let sweeper = tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
            loop {
                tick.tick().await;
                server.expire_idle_sessions();
            }
        });
        let serving =
            axum::serve(mcp_wire_transport::server::without_nagle(listener), app).into_future();
        tokio::pin!(serving);
        let result = tokio::select! {
            served = &mut serving => served.map_err(BridgeError::Io),
            why = self.upstream.gone() => {
                // Keep serving a moment: the failed answers are being written.
                let _ = tokio::time::timeout(self.limits.drain_grace, &mut serving).await;
                Err(BridgeError::UpstreamClosed(why))
            }
        };
        sweeper.abort();
        result
    }

    /// Closes the upstream connection (a child process gets its stdin closed, then a kill)
    /// and waits up to `grace` for it to end.
    pub async fn shutdown(&self, grace: std::time::Duration) {
        self.upstream.shutdown();
        let _ = tokio::time::timeout(grace, self.upstream.gone()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire_transport::server::Change;

    #[test]
    fn interleaved_duplicates_of_an_overlap_are_announced_once_and_expire() {
        let mut r = Recent::default();
        let t = tokio::time::Instant::now();
        let x = Change::ToolsListChanged;
        let y = Change::ResourceUpdated("test://a".into());
        // The old stream's X, Y, then the new stream's X, Y during the overlap.
        assert!(r.fresh(&x, t));
        assert!(r.fresh(&y, t));
        assert!(!r.fresh(&x, t + std::time::Duration::from_millis(5)));
        assert!(!r.fresh(&y, t + std::time::Duration::from_millis(6)));
        // Another URI is another change.
        assert!(r.fresh(&Change::ResourceUpdated("test://b".into()), t));
        // After the window the same change is news again.
        assert!(r.fresh(&x, t + DUPLICATE_WINDOW));
        // Bounded: many distinct changes keep at most RECENT_CHANGES.
        for i in 0..100 {
            r.fresh(
                &Change::ResourceUpdated(format!("test://{i}")),
                t + DUPLICATE_WINDOW,
            );
        }
        assert!(r.seen.len() <= RECENT_CHANGES);
    }
}
