//! `mcp-wire-bridge`: a live MCP proxy between a client of one protocol revision and a server of
//! another, every frame translated with `mcp-wire`' boundary (`serialize_for` / `parse_as`
//! at each side's revision). It is what `mcp-frames bridge` runs (cargo feature `bridge` of
//! `mcp-frames`; see its README section).
//!
//! # Architecture
//!
//! - **Downstream** (the client side) is the transport crate's server runtime
//!   (`mcp_wire_transport::server`) with [`engine::BridgeHandler`] as its handler. The runtime
//!   already serves every revision on every transport the issue asks for — stdio, Streamable
//!   HTTP on both wires (`Mcp-Session-Id` sessions, the 2026-07-28 stateless wire with its
//!   headers), 2024-11-05 HTTP+SSE — negotiates each client's revision on its own, and frames
//!   every answer with `serialize_for` at that revision. The handler intercepts every request
//!   and carries it upstream.
//! - **Upstream** ([`upstream::Upstream`]) is one client connection of the transport crate: a
//!   child process over stdio, or a URL (the 2026-07-28 stateless wire, the stateful wire, or
//!   HTTP+SSE, tried in that order by the probe). Its router task reads every upstream frame
//!   at the upstream's revision (`parse_str_as`, results with `parse_result_for` typed by the
//!   request they answer) and delivers it to the *leg* it belongs to.
//! - The mapping tables are data: [`engine`]'s `CLIENT_CAPABILITY_MAP` (legacy
//!   `initialize` capabilities → 2026-07-28 `clientCapabilities`), `SERVER_CAPABILITIES_HIDDEN`,
//!   `MODERN_RESULT_META`, the ledger's `RESERVED_META`; [`limits::Limits`] (every bound); [`limits::Reason`]
//!   (the refusal catalogue, `data.reason`). Field-level stripping and refusing is the
//!   boundary's ledger, not repeated here.
//! - [`report`]: `--report FILE`, one line per frame changed, refused or synthesized, in
//!   `explain`'s shape.
//!
//! - Direction B (`direction_b`, `legacy_sessions`, `park`): a 2026-07-28 client in
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
//! Judged by `tests/conformance.rs`: direction A (the fixtures at 2026-07-28 only behind the
//! bridge) scores 80 passed / 0 failed at `--requirements 2025-11-25` (the direct server
//! scores 83: the suite's `server-sse-polling` runs none of its 3 checks through the bridge,
//! since a 2026-07-28 upstream never closes a stream for polling and so the bridge never
//! does); direction B (the fixtures at 2025-11-25 only behind the bridge, their tasks as
//! 2025-11-25 core tasks) scores 196 passed / 0 failed at `--requirements 2026-07-28`,
//! the tasks-extension scenarios included (Q8), with an empty
//! `tests/conformance/expected-failures-b.yaml`. Also by real SDK clients in
//! `tests/real_clients.rs`, real SDK client and server pairs in both directions in
//! `tests/sdk_pairs.rs`, and by `tests/direction_b.rs`.
//!
//! # Decisions on the reference's open questions (bridge-reference.md §6)
//!
//! - **Q1.** A legacy server request with nothing to ride on gets -32601 (`Upstream::route`, "no
//!   client request in flight"). Static roots (`--roots`) decided against for now: the
//!   bridge would answer for a client that never stated those roots (a 2026-07-28 client's
//!   roots are per request, a legacy one's per session and changing with
//!   `roots/list_changed`), so a configured list can contradict the client's own; and the
//!   one case seen (server-everything's roots sync after `initialized`) is harmless with
//!   -32601, which servers treat as "no roots". Revisit with a per-identity config.
//! - **Q2.** Attribution on a shared upstream: a server→client request goes to the newest
//!   `tools/call`/`prompts/get`/`resources/read` in flight, a log message to the newest leg
//!   (else to every session's standalone stream); progress by token, exactly (the leg id is
//!   the token). Calls run concurrently (`Upstream::route`). A server request unrelated to
//!   the call in flight still rides on it (seen with server-everything's roots sync 350 ms
//!   after `initialized`: in direction B that call gets an extra round); attributing by
//!   stream on HTTP upstreams is open.
//! - **Q3.** A client refusing one bridged input fails the request with `client_refused_input`
//!   (`BridgeHandler::gather_inputs`).
//! - **Q4.** Bridge-local errors: -32603 + `data.reason` in both eras ([`limits::Reason::error`]).
//! - **Q5.** -32602 → -32002 for legacy clients: not rewritten (errors pass, §2.4).
//! - **Q6.** No log level before a legacy `setLevel`: nothing stamped (`BridgeHandler::prepare`).
//! - **Q13.** A changed filter opens the new listen stream, waits for its acknowledgement,
//!   then cancels the old one (`listen::Listener::reopen`). The overlap's duplicates are
//!   removed where every upstream change meets: the relay task of `Bridge::connect` announces a
//!   change only if no identical one went out within `DUPLICATE_WINDOW` (200 ms; `Recent`,
//!   at most 16 remembered, so interleaved copies are caught too; unit test in this file).
//! - **A8, a session that ends subscribed.** Each legacy session holds one reference per URI
//!   on the upstream listen stream (a repeated subscribe adds none); when the session ends
//!   without unsubscribing, its URIs are released and the stream reopened without them
//!   (`BridgeHandler::hold`, `session_ended`; tested in `tests/faults.rs`).
//! - **Q7.** `logging` is advertised in the synthesized `DiscoverResult` when the legacy
//!   server has it; a legacy log goes to the request it is attributed to (the newest leg of
//!   the identity's session) and out only at or above that request's `_meta` level, none
//!   without one (`direction_b::DirectionB::drive`, the runtime's filter).
//! - **B13.** No upstream `logging/setLevel` in direction B: a legacy session that never got a
//!   level sends every log (SDK v1 filters only after one), and the bridge, not the server,
//!   applies each request's `logLevel`. Sending one would make a session shared by requests
//!   of different levels filter for the quietest of them. Judged by the SDK pairs
//!   (`tests/sdk_pairs.rs`: the 2026-07-28 clients get their calls' logs at their level).
//! - **Q9.** `supportedVersions` is `["2026-07-28"]` only (`direction_b::DirectionB::discover`):
//!   legacy clients reach the bridge through `initialize`.
//! - **Q10.** Listen streams are the runtime's; the bridge ends one only by closing it (no
//!   listen result, no stdio cancel yet). B7: the runtime's `Handler::listen` hook
//!   (`direction_b::DirectionB::listen`) narrows the filter to what the legacy server offers
//!   (`*ListChanged` only with that `listChanged`, URIs only with `resources.subscribe`),
//!   subscribes each URI upstream on the identity's session, reference-counted, leaves a URI
//!   the server refuses out of the acknowledgement, and unsubscribes at count zero when the
//!   stream ends; at most 16 streams, 256 URIs each. List changes are relayed from every
//!   legacy session, identical ones within 200 ms announced once (`DUPLICATE_WINDOW`).
//! - **Q12.** `serverInfo` in B is the upstream's, in the discover result and every result's
//!   `_meta`; the bridge does not name itself there.
//! - **Q15.** One legacy session per distinct principal + `clientInfo` + `clientCapabilities`
//!   (`legacy_sessions::LegacySessions::get`), opened with that identity (its capabilities by
//!   `LEGACY_CAPABILITY_MAP`), never shared across principals; at most
//!   [`Limits::max_legacy_sessions`] (the least recently used idle one closes for a new
//!   identity, `limit_exceeded` when all are busy), idle ones end after
//!   [`Limits::legacy_session_idle`]. Parked tokens are bound to the principal too.
//! - **Q20.** A legacy server request the client's capabilities do not cover (sub-capabilities
//!   included: URL elicitation, sampling with tools) is answered -32601 upstream; if the call
//!   then fails the client gets -32021 with `data.requiredCapabilities`, if it completes, its
//!   result (`direction_b::admit`, `legacy_error`; tested in `tests/faults.rs`). With sessions
//!   per identity the server mostly decides itself (it saw the client's capabilities in
//!   `initialize`).
//! - **B9 keys and tokens.** An `inputRequests` key is the handler's own when the upstream is
//!   this project's runtime (it names it in the legacy request's `_meta`,
//!   `mcp_wire_transport::server::INPUT_KEY_META`), else bridge-chosen (`elicitation-1`, …); a
//!   first call's `inputResponses` answer questions of the same key without a round. Tokens:
//!   HMAC-SHA256 with a per-process key over {epoch, park id, expiry} + principal + method +
//!   params digest, single use, new per round, [`Limits::park_ttl`]; altered, foreign,
//!   replayed, expired or other-params tokens are -32602 (`data.restarted` for another
//!   process's); an answer of the wrong shape is -32602 and ends the call (`park`). Questions
//!   sent together by the server (within [`Limits::input_gather`]) make one round; the
//!   runtime's `RequestContext::inputs` now asks them at once at the handshake revisions
//!   (Q18).
//! - **B11.** A legacy -32042 (URL elicitation required) answering a `tools/call`,
//!   `prompts/get` or `resources/read` of a 2026-07-28 client that declared URL elicitation
//!   becomes an input-required round of those URL elicitations (keys `url-elicitation-N`, no
//!   `elicitationId`, no `requestState`, at most 8): the client's retry is a fresh call, which
//!   the legacy server expects after the flow, so nothing is parked; a retry answering one of
//!   them with anything but accept fails `client_refused_input` (Q3). Without the capability
//!   the client gets -32021 naming `elicitation.url` (`direction_b::url_elicitation_round`;
//!   the Python SDK pair runs both paths of server-everything's `trigger-url-elicitation`).
//! - **B10.** A legacy server request outside a `tools/call`/`prompts/get`/`resources/read`
//!   of the identity is answered -32601 (no static roots).
//! - **Q8 / B16.** Tasks. Legacy clients (directions A and C): never advertised, `tasks/*`
//!   and task-augmented calls -32601 (`BridgeHandler::intercept`, `SERVER_CAPABILITIES_HIDDEN`,
//!   `CLIENT_CAPABILITY_MAP`). Direction B: the `io.modelcontextprotocol/tasks` extension
//!   (SEP-2663) is offered to 2026-07-28 clients exactly when the legacy server offers
//!   2025-11-25 core tasks for `tools/call` (`tasks.requests.tools.call`), and mapped onto
//!   them (`tasks`): the bridge keeps the extension's store itself (owner principal, at most
//!   [`Limits::max_tasks`], each kept [`Limits::task_ttl`]); a declaring client's call of a
//!   tool the server lists `optional`/`required` goes upstream with `params.task`, and the
//!   server's task is driven in the background through its `tasks/result` (its requests with
//!   `related-task` become the task's `inputRequests`, `tasks/update` answers them, its
//!   payload or error becomes the inlined outcome, a tool error `completed` + `isError`);
//!   `tasks/get` answers from the store, `tasks/cancel` is an idempotent ack that cancels
//!   upstream. A `required` tool called by a client without the extension is -32021 naming
//!   it; input asked before the server answers the augmented call is an input-required round
//!   as for any call (the MRTR → task composition). Servers without core tasks: by default
//!   no tasks, since only the server's `taskSupport` says which tools may or must run as tasks
//!   (a bridge that promoted plain calls on a timer would be guessing, and could not honour
//!   `required`). Opt-in ([`Limits::host_tasks_after`], `--host-tasks-after MS`): a declaring
//!   client's call the server has not answered by then becomes a task the bridge hosts (the
//!   extension lets a server answer a fast call synchronously): the plain legacy call goes on
//!   in the background, its later questions are the task's input requests, its answer the
//!   outcome, and `tasks/cancel` cancels it upstream (`notifications/cancelled`); a full store
//!   leaves the call synchronous. The reference's B16 absorption of `required` tools (call
//!   with `params.task`, block on `tasks/result`, answer the payload as the call's result) is
//!   replaced for 2026-07-28 clients by the extension's rule (-32021: the bridge lists the
//!   server's `taskSupport` as it is); for legacy clients of a 2025-11-25 server with such
//!   tools (direction C) it is open, they get the server's -32601. Open too:
//!   `notifications/tasks` on listen streams, a task's progress and logs (dropped: no request
//!   carries them).
//! - **Q11.** Client identity: `clientInfo` as the client sent it; the bridge names itself
//!   (`upstream::bridge_info`) only upstream when it has no client identity (its own
//!   handshake and probe).
//! - **Q14.** Lossy content: the boundary's ledger decides (strip, pass, or refuse with the
//!   emission error, reported); `--strict` emits upstream frames strictly. The text-block
//!   replacement is open.
//! - **Q16.** Direction C presents the client's requested revision (the runtime echoes it when
//!   offered).
//! - **Q17.** `completions` toward a 2024-11-05 client: the ledger strips it; never synthesized.
//! - **Q18.** Parallel questions: the runtime's input API asks them all at once
//!   (`RequestContext::inputs`), answers kept in the order asked.
//! - **Q19.** mcp-remote's differences are not copied: `resultType`, `ttlMs`, `cacheScope` and
//!   2026-07-28 result `_meta` keys are all stripped; `extensions` hidden.

pub mod cli;
mod direction_b;
pub mod emit;
pub mod engine;
mod legacy_sessions;
pub mod limits;
mod listen;
mod park;
pub mod report;
mod tasks;
pub mod upstream;

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::Arc;

use mcp_wire::ProtocolVersion;
use mcp_wire_transport::server::{Notifier, Principal, Server, ServerConfig};
use mcp_wire_transport::{Connection, Frame};

pub use emit::Emitter;
pub use engine::BridgeHandler;
pub use limits::{Limits, Reason};
pub use report::Report;
pub use upstream::{Era, Snapshot, UpstreamTarget};

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
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BridgeOptions {
    /// The revisions offered to clients.
    pub client_revisions: Vec<ProtocolVersion>,
    /// The revisions the bridge may speak upstream.
    pub server_revisions: Vec<ProtocolVersion>,
    /// Every bound.
    pub limits: Limits,
    /// The live report.
    pub report: Arc<Report>,
    /// How upstream frames are emitted.
    pub emitter: Emitter,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        Self {
            client_revisions: ProtocolVersion::ALL.to_vec(),
            server_revisions: ProtocolVersion::ALL.to_vec(),
            limits: Limits::default(),
            report: Arc::new(Report::none()),
            emitter: Emitter::default(),
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
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`BridgeOptions::report`].
    pub fn report(mut self, report: Report) -> Self {
        self.report = Arc::new(report);
        self
    }
}

/// A bridge connected to its upstream, ready to serve clients.
pub struct Bridge {
    server: Arc<Server<BridgeHandler>>,
    upstream: Arc<upstream::Upstream>,
    snapshot: Snapshot,
    limits: Limits,
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
            snapshot.era,
            listen::Listener::new(upstream.clone(), &snapshot.capabilities),
        ) {
            (Era::Modern, Some(listener)) => match listener.start().await {
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
        // its own identity (`legacy_sessions`).
        let legacy_sessions = (snapshot.era == Era::Legacy
            && revisions.contains(&ProtocolVersion::V2026_07_28))
        .then(|| {
            legacy_sessions::LegacySessions::new(
                target.clone(),
                snapshot.clone(),
                options.limits,
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
            legacy_sessions,
        );
        let mut config = ServerConfig {
            revisions,
            ..ServerConfig::default()
        };
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
    /// [`Limits::drain_grace`] to reach the client).
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
    /// [`Bridge::serve_connection`] does. A line over [`Limits::max_frame_bytes`] is skipped
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
        let served = self.serve_connection(stdio.connection).await;
        refusing.abort();
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
