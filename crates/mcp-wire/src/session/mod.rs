//! The session layer: what the traffic of one MCP session says about itself, for anything that
//! sits on a stream of frames — a validator reading a capture, a proxy relaying live traffic, a
//! server that needs to know what a response answers.
//!
//! [`Session::observe`] takes each frame in stream order (its [`Envelope`] and the members the
//! session reads, [`Evidence`]) and answers with its [`FrameContext`]: which peer sent it, the
//! revision it is at, and for a response the [`Pending`] request it answers — whose
//! [`Pending::result_for`] types the result ([`parse_result_for`](crate::wire::parse_result_for)).
//!
//! ```
//! use mcp_wire::ProtocolVersion;
//! use mcp_wire::session::{Direction, Envelope, Session};
//! use mcp_wire::wire::{MethodResult, parse_result_for};
//! use serde_json::json;
//!
//! let mut session = Session::new();
//! let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
//!     "protocolVersion": "2025-06-18", "capabilities": {},
//!     "clientInfo": {"name": "c", "version": "1"}}});
//! let seen = session.observe(1, Some(Direction::ClientToServer), &Envelope::of(&init)?, &init)?;
//! assert_eq!(seen.revision, Some(ProtocolVersion::V2025_06_18));
//!
//! let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {
//!     "protocolVersion": "2025-06-18", "capabilities": {},
//!     "serverInfo": {"name": "s", "version": "1"}}});
//! let seen = session.observe(2, Some(Direction::ServerToClient), &Envelope::of(&answer)?, &answer)?;
//! let origin = seen.origin.expect("answers the initialize");
//! let typed = parse_result_for(origin.result_for(), &answer["result"], seen.revision.unwrap())?;
//! assert!(matches!(typed, MethodResult::Server(_)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Evidence, in the order the stream presents it
//! - a client `initialize` offers `params.protocolVersion` (that request is at the offered
//!   revision, and so is what follows until the answer);
//! - the `initialize` result's `protocolVersion` wins over the offer; an error answer withdraws
//!   the offer;
//! - a 2026-07-28 request names its revision in `params._meta["io.modelcontextprotocol/protocolVersion"]`;
//! - a `-32601` answer to `server/discover` withdraws the revision that request claimed: real
//!   clients fall back to `initialize` next, whose offer then decides.
//!
//! Responses are at the revision of the request they answer. An `initialize` and its answer are
//! handshake frames whatever revision they name: they are judged at the newest handshake
//! revision not newer than it (a TypeScript client offering 2026-07-28 sends a 2025-11-25
//! `initialize`), and the answer decides the session's revision.
//!
//! [`Session::fixed`] fixes only the revision frames are judged at; everything else the session
//! learns (the client identity, pending ids, claims and their withdrawal) is learnt exactly as
//! with detection.
//!
//! # Ids, per direction
//! A request is remembered under its sender's direction, so a server's `id: 1` never matches a
//! client's `id: 1`; the answer travelling the other way takes it out again.
//!
//! # Tasks (2025-11-25)
//! A request whose params carry `task` is remembered as task-augmented (its answer is the task
//! it created); the task id that answer returns is remembered with the request's method, so a
//! later `tasks/result` for it is typed by that method ([`Pending::result_for`]).
//!
//! # Bounds
//! Every table is bounded ([`SessionLimits`]): the pending requests of each direction (default
//! [`MAX_PENDING`] each) and the tasks remembered (default [`MAX_TASKS`]). When a direction's
//! table is full, [`WhenFull`] decides: [`WhenFull::ForgetOldest`] (the default, for captures)
//! forgets the oldest request of that direction and hands it back in
//! [`FrameContext::forgotten`], so a live caller can still answer it; [`WhenFull::Refuse`] (for
//! proxies) remembers nothing and fails the new request with [`SessionError::PendingFull`],
//! which the caller answers with [`SessionError::code`]. A full task table always forgets its
//! oldest task (a later `tasks/result` for it is then typed as the open
//! `GetTaskPayloadResult`).

mod bounded;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::facts::{self, MethodFact, RevisionFacts};
use crate::jsonrpc::{RequestId, codes};
use crate::model::meta::keys;
use crate::wire::{RawFrame, ResultFor};
use crate::{Era, ProtocolVersion};
use bounded::Bounded;

pub use crate::jsonrpc::Envelope;

/// Default bound on the requests awaiting an answer, per direction.
pub const MAX_PENDING: usize = 100_000;

/// Default bound on the tasks remembered (task id → the method that created it).
pub const MAX_TASKS: usize = 10_000;

/// Which peer sent a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Client to server (`"c2s"`).
    ClientToServer,
    /// Server to client (`"s2c"`).
    ServerToClient,
}

impl Direction {
    /// The short spelling captures use: `"c2s"` or `"s2c"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "c2s",
            Direction::ServerToClient => "s2c",
        }
    }

    /// The other peer.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        }
    }

    /// The sender of a request with `method` when nothing else says: the server when only
    /// servers ever send it (`sampling/createMessage`, `roots/list`, `elicitation/create`);
    /// `ping`, sent by both, is read as the client's.
    pub fn of_request(method: &str) -> Direction {
        if only_in(method, |f| f.server_requests, |f| f.client_requests) {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        }
    }

    /// The sender of a notification with `method` when nothing else says: the client when only
    /// clients ever send it; otherwise (including `cancelled` and `progress`, sent by both) the
    /// server.
    pub fn of_notification(method: &str) -> Direction {
        if only_in(
            method,
            |f| f.client_notifications,
            |f| f.server_notifications,
        ) {
            Direction::ClientToServer
        } else {
            Direction::ServerToClient
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request seen on the stream and not yet answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Its method.
    pub method: String,
    /// The revision it was read at, if one was known.
    pub revision: Option<ProtocolVersion>,
    /// Its position in the stream, as the caller numbers frames (a line number, a counter).
    pub position: usize,
    /// Whether the caller passed the request on ([`Session::set_forwarded`]); a translator or a
    /// proxy drops the answer to a request it did not forward.
    pub forwarded: bool,
    /// When the request claimed a revision (an `initialize` offer, a `_meta` revision).
    claim: Option<Claim>,
    /// Whether its params carried `task` (a task-augmented request, 2025-11-25).
    pub task_augmented: bool,
    /// For `tasks/result`: the method of the request that created the task, if the session saw
    /// it created.
    pub payload_of: Option<String>,
}

impl Pending {
    /// What the answer to this request answers, which types it.
    pub fn result_for(&self) -> ResultFor<'_> {
        match &self.payload_of {
            Some(original) => ResultFor::task_payload(original),
            None => ResultFor::method(&self.method).task_augmented(self.task_augmented),
        }
    }
}

/// A revision a request claimed for the session, and the session revision before it (restored
/// if the peer turns the claim down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Claim {
    claimed: ProtocolVersion,
    prior: Option<ProtocolVersion>,
}

/// Where a frame stands in the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameContext {
    /// The sender.
    pub direction: Direction,
    /// The frame's revision, if the evidence (or [`Session::fixed`]) gives one.
    pub revision: Option<ProtocolVersion>,
    /// For responses and errors: the request it answers.
    pub origin: Option<Pending>,
    /// For requests: whether its params carried `task` (task-augmented).
    pub task_augmented: bool,
    /// For requests under [`WhenFull::ForgetOldest`]: the request this one pushed out of its
    /// direction's full table (its answer will now be an [`SessionError::UnknownId`]).
    pub forgotten: Option<Box<(RequestId, Pending)>>,
}

/// A frame the session cannot place.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionError {
    /// A response or error whose id matches no pending request of the other peer.
    UnknownId {
        /// The id found.
        id: RequestId,
        /// The direction the response travels.
        direction: Direction,
    },
    /// A frame that names a revision this crate does not know.
    UnknownRevision {
        /// The string found.
        found: String,
    },
    /// A request that does not fit its direction's full pending table ([`WhenFull::Refuse`]).
    PendingFull {
        /// The id of the request refused.
        id: RequestId,
        /// The direction it travels.
        direction: Direction,
        /// The bound.
        bound: usize,
    },
}

impl SessionError {
    /// The JSON-RPC code that answers the frame: `-32022` (unsupported protocol version) for an
    /// unknown revision, `-32600` (invalid request) for an answer to no request, `-32603`
    /// (internal error: the receiver's own limit) for a full table.
    pub fn code(&self) -> i64 {
        match self {
            SessionError::UnknownRevision { .. } => codes::UNSUPPORTED_PROTOCOL_VERSION,
            SessionError::UnknownId { .. } => codes::INVALID_REQUEST,
            SessionError::PendingFull { .. } => codes::INTERNAL_ERROR,
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let peer = |d: Direction| match d {
            Direction::ClientToServer => "client",
            Direction::ServerToClient => "server",
        };
        match self {
            SessionError::UnknownId { id, direction } => write!(
                f,
                "response id {id} answers no pending {} request",
                peer(direction.reverse())
            ),
            SessionError::UnknownRevision { found } => write!(
                f,
                "unknown protocol revision {found:?}; known: {}",
                ProtocolVersion::ALL.map(|v| v.as_str()).join(", ")
            ),
            SessionError::PendingFull {
                id,
                direction,
                bound,
            } => write!(
                f,
                "request id {id} refused: {bound} {} requests are already awaiting an answer",
                peer(*direction)
            ),
        }
    }
}

impl std::error::Error for SessionError {}

/// The client's identity as the handshake stated it, for re-stating it in 2026-07-28 `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientIdentity {
    /// `clientInfo` of `initialize`.
    pub client_info: Option<Value>,
    /// `capabilities` of `initialize`.
    pub capabilities: Option<Value>,
}

/// What a session does with a request when its direction's pending table is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WhenFull {
    /// Forget the oldest pending request of that direction and remember the new one; the
    /// forgotten request comes back in [`FrameContext::forgotten`].
    #[default]
    ForgetOldest,
    /// Remember nothing and fail the new request with [`SessionError::PendingFull`].
    Refuse,
}

/// The bounds of a [`Session`]'s tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionLimits {
    /// Requests awaiting an answer, per direction.
    pub pending_per_direction: usize,
    /// Tasks remembered (task id → the method that created it), both directions together.
    pub tasks: usize,
    /// What happens to a request that finds its direction's table full.
    pub when_full: WhenFull,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            pending_per_direction: MAX_PENDING,
            tasks: MAX_TASKS,
            when_full: WhenFull::ForgetOldest,
        }
    }
}

impl SessionLimits {
    /// The defaults: [`MAX_PENDING`] per direction, [`MAX_TASKS`], [`WhenFull::ForgetOldest`].
    pub fn new() -> Self {
        SessionLimits::default()
    }

    /// Sets the bound on pending requests per direction (at least 1).
    pub fn pending_per_direction(mut self, bound: usize) -> Self {
        self.pending_per_direction = bound.max(1);
        self
    }

    /// Sets the bound on remembered tasks (at least 1).
    pub fn tasks(mut self, bound: usize) -> Self {
        self.tasks = bound.max(1);
        self
    }

    /// Sets what happens to a request that finds its table full.
    pub fn when_full(mut self, when_full: WhenFull) -> Self {
        self.when_full = when_full;
        self
    }
}

/// The per-stream state: current revision, pending requests per direction, client identity,
/// the tasks created.
#[derive(Debug, Clone)]
pub struct Session {
    fixed: Option<ProtocolVersion>,
    current: Option<ProtocolVersion>,
    when_full: WhenFull,
    /// The requests each peer sent, by the sender's direction.
    client_pending: Bounded<RequestId, Pending>,
    server_pending: Bounded<RequestId, Pending>,
    identity: Option<Arc<ClientIdentity>>,
    /// Keyed by the direction of the requests that created them (the requestor's `tasks/*`
    /// travel the same way) and the task id; the value is the creating request's method.
    tasks: Bounded<(Direction, String), String>,
}

impl Default for Session {
    fn default() -> Self {
        Session::with_limits(SessionLimits::default())
    }
}

/// What the session reads from a frame besides its envelope. A parsed frame (`Value`) answers
/// by reference; a reader that keeps the frame as text answers from its borrowed members,
/// parsing a member only when it is asked for (an `initialize` and its answer).
pub trait Evidence {
    /// The frame's `params`, when it is an object.
    fn params(&self) -> Option<Cow<'_, Map<String, Value>>>;
    /// The frame's `result`.
    fn result(&self) -> Option<Cow<'_, Value>>;
    /// The member `key` of the frame's `result` (what the session reads of an answer: the
    /// revision an `initialize` chose, the task a task-augmented request created). A reader
    /// that keeps the frame as text reads that member only.
    fn result_member(&self, key: &str) -> Option<Cow<'_, Value>> {
        match self.result()? {
            Cow::Borrowed(r) => r.get(key).map(Cow::Borrowed),
            Cow::Owned(mut r) => r.as_object_mut()?.shift_remove(key).map(Cow::Owned),
        }
    }
    /// The `_meta` revision claim of a request: `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    fn meta_revision(&self) -> Option<Cow<'_, Value>>;
    /// Whether the frame's `params` carry a `task` (a task-augmented request).
    fn task_augmented(&self) -> bool;
    /// The frame's `params.taskId`, when it is a string (`tasks/*` requests).
    fn task_id(&self) -> Option<Cow<'_, str>>;
}

impl Evidence for RawFrame<'_> {
    fn params(&self) -> Option<Cow<'_, Map<String, Value>>> {
        serde_json::from_str(self.params_text()?.get())
            .ok()
            .map(Cow::Owned)
    }

    fn result(&self) -> Option<Cow<'_, Value>> {
        serde_json::from_str(self.result_text()?.get())
            .ok()
            .map(Cow::Owned)
    }

    fn meta_revision(&self) -> Option<Cow<'_, Value>> {
        self.peek().meta_revision.as_ref().map(Cow::Borrowed)
    }

    fn task_augmented(&self) -> bool {
        self.peek().task
    }

    fn task_id(&self) -> Option<Cow<'_, str>> {
        self.peek().task_id.as_deref().map(Cow::Borrowed)
    }
}

impl Evidence for Value {
    fn task_augmented(&self) -> bool {
        params(self)
            .and_then(|p| p.get("task"))
            .is_some_and(|t| !t.is_null())
    }

    fn task_id(&self) -> Option<Cow<'_, str>> {
        params(self)?.get("taskId")?.as_str().map(Cow::Borrowed)
    }

    fn params(&self) -> Option<Cow<'_, Map<String, Value>>> {
        params(self).map(Cow::Borrowed)
    }

    fn result(&self) -> Option<Cow<'_, Value>> {
        self.get("result").map(Cow::Borrowed)
    }

    fn meta_revision(&self) -> Option<Cow<'_, Value>> {
        meta_revision(self).map(Cow::Borrowed)
    }
}

/// Reads a revision string; `Err` for strings that name no known revision.
fn revision_of(v: &Value) -> Option<Result<ProtocolVersion, SessionError>> {
    let s = v.as_str()?;
    Some(s.parse().map_err(|_| SessionError::UnknownRevision {
        found: s.to_owned(),
    }))
}

fn params(frame: &Value) -> Option<&Map<String, Value>> {
    frame.get("params")?.as_object()
}

/// The `_meta` revision claim of a request frame, if any.
pub fn meta_revision(frame: &Value) -> Option<&Value> {
    params(frame)?
        .get("_meta")?
        .as_object()?
        .get(keys::PROTOCOL_VERSION)
}

impl Session {
    /// A session that detects revisions from the traffic, with the default limits.
    pub fn new() -> Self {
        Session::default()
    }

    /// A session that detects revisions from the traffic, with these limits.
    pub fn with_limits(limits: SessionLimits) -> Self {
        let pending = limits.pending_per_direction.max(1);
        Session {
            fixed: None,
            current: None,
            when_full: limits.when_full,
            client_pending: Bounded::new(pending),
            server_pending: Bounded::new(pending),
            identity: None,
            tasks: Bounded::new(limits.tasks.max(1)),
        }
    }

    /// A session whose every frame is at `version`; ids, claims and the identity are still
    /// tracked.
    pub fn fixed(version: ProtocolVersion) -> Self {
        Session::fixed_with_limits(version, SessionLimits::default())
    }

    /// [`Session::fixed`] with these limits.
    pub fn fixed_with_limits(version: ProtocolVersion, limits: SessionLimits) -> Self {
        Session {
            fixed: Some(version),
            current: Some(version),
            ..Session::with_limits(limits)
        }
    }

    /// The revision the evidence so far points at.
    pub fn current(&self) -> Option<ProtocolVersion> {
        self.current
    }

    /// The client identity stated by the last `initialize`, if any. It is shared: an identity
    /// is replaced, never changed, so the same `Arc` (see [`Arc::ptr_eq`]) means the same
    /// identity, and whoever restates it can keep what it made of it.
    pub fn client_identity(&self) -> Option<&Arc<ClientIdentity>> {
        self.identity.as_ref()
    }

    /// Number of requests awaiting an answer, both directions.
    pub fn pending_len(&self) -> usize {
        self.client_pending.len() + self.server_pending.len()
    }

    /// The request with `id` that the peer sending in `direction` sent, if it awaits an answer.
    pub fn pending(&self, direction: Direction, id: &RequestId) -> Option<&Pending> {
        self.table(direction).get(id)
    }

    /// Forgets the request with `id` sent in `direction` (a proxy that answered it itself, or
    /// gave up waiting), returning it.
    pub fn forget(&mut self, direction: Direction, id: &RequestId) -> Option<Pending> {
        self.table_mut(direction).remove(id)
    }

    /// Forgets every request sent in `direction`, oldest first, returning them (a proxy whose
    /// peer went away answers each with an error).
    pub fn drain_pending(&mut self, direction: Direction) -> Vec<(RequestId, Pending)> {
        self.table_mut(direction).drain()
    }

    fn table(&self, direction: Direction) -> &Bounded<RequestId, Pending> {
        match direction {
            Direction::ClientToServer => &self.client_pending,
            Direction::ServerToClient => &self.server_pending,
        }
    }

    fn table_mut(&mut self, direction: Direction) -> &mut Bounded<RequestId, Pending> {
        match direction {
            Direction::ClientToServer => &mut self.client_pending,
            Direction::ServerToClient => &mut self.server_pending,
        }
    }

    /// The revision a frame is judged at: the fixed one, else what the evidence says; a
    /// handshake frame (`initialize` and its answer) at the newest handshake revision not newer
    /// than that.
    fn judged(
        &self,
        evidence: Option<ProtocolVersion>,
        handshake: bool,
    ) -> Option<ProtocolVersion> {
        let v = self.fixed.or(evidence)?;
        Some(if handshake { handshake_revision(v) } else { v })
    }

    /// Places one frame: its direction (`stated` when the caller knows the sender, else
    /// inferred from the method tables), its revision, and for answers the request answered.
    /// `position` orders the stream (a line number or a counter; it comes back in
    /// [`Pending::position`]). Updates the evidence.
    pub fn observe(
        &mut self,
        position: usize,
        stated: Option<Direction>,
        envelope: &Envelope,
        frame: &dyn Evidence,
    ) -> Result<FrameContext, SessionError> {
        match envelope {
            Envelope::Request { id, method } => {
                let direction = stated.unwrap_or_else(|| Direction::of_request(method));
                if self.when_full == WhenFull::Refuse {
                    let table = self.table(direction);
                    if table.is_full() && !table.contains(id) {
                        return Err(SessionError::PendingFull {
                            id: id.clone(),
                            direction,
                            bound: table.bound(),
                        });
                    }
                }
                let claim = self.claim(direction, method, frame);
                let handshake = is_handshake(method);
                let revision = match &claim {
                    Ok(Some(c)) => self.judged(Some(c.claimed), handshake),
                    Ok(None) => self.judged(self.current, handshake),
                    Err(_) => None,
                };
                let task_augmented = frame.task_augmented();
                let payload_of = match method.as_str() {
                    "tasks/result" => frame.task_id().and_then(|task| {
                        let key = (direction, task.into_owned());
                        self.tasks.get(&key).cloned()
                    }),
                    _ => None,
                };
                let forgotten = self.table_mut(direction).insert(
                    id.clone(),
                    Pending {
                        method: method.clone(),
                        revision,
                        position,
                        forwarded: false,
                        claim: claim.clone().ok().flatten(),
                        task_augmented,
                        payload_of,
                    },
                );
                claim?;
                Ok(FrameContext {
                    direction,
                    revision,
                    origin: None,
                    task_augmented,
                    forgotten: forgotten.map(Box::new),
                })
            }
            Envelope::Notification { method } => Ok(FrameContext {
                direction: stated.unwrap_or_else(|| Direction::of_notification(method)),
                revision: self.judged(self.current, false),
                origin: None,
                task_augmented: false,
                forgotten: None,
            }),
            Envelope::Response { id } => {
                let (direction, origin) = self.answer(stated, id)?;
                if origin.task_augmented {
                    self.learn_task(direction.reverse(), &origin, frame);
                }
                let mut revision = origin.revision;
                if is_handshake(&origin.method) {
                    let answer = frame
                        .result_member("protocolVersion")
                        .and_then(|v| revision_of(&v));
                    if let Some(answer) = answer {
                        let v = answer?;
                        self.current = Some(v);
                        revision = self.judged(Some(v), true);
                    }
                }
                Ok(FrameContext {
                    direction,
                    revision,
                    origin: Some(origin),
                    task_augmented: false,
                    forgotten: None,
                })
            }
            Envelope::Error { id: None, .. } => Ok(FrameContext {
                direction: stated.unwrap_or(Direction::ServerToClient),
                revision: self.judged(self.current, false),
                origin: None,
                task_augmented: false,
                forgotten: None,
            }),
            Envelope::Error { id: Some(id), code } => {
                let (direction, origin) = self.answer(stated, id)?;
                let withdrawn = match origin.method.as_str() {
                    "initialize" => true,
                    "server/discover" => *code == codes::METHOD_NOT_FOUND,
                    _ => false,
                };
                if let (true, Some(claim)) = (withdrawn, origin.claim)
                    && self.current == Some(claim.claimed)
                {
                    self.current = claim.prior;
                }
                Ok(FrameContext {
                    direction,
                    revision: origin.revision,
                    origin: Some(origin),
                    task_augmented: false,
                    forgotten: None,
                })
            }
        }
    }

    /// The revision a request claims for the session (a `_meta` revision, an `initialize`
    /// offer), applied to the session; an `initialize` also states the client identity.
    fn claim(
        &mut self,
        direction: Direction,
        method: &str,
        frame: &dyn Evidence,
    ) -> Result<Option<Claim>, SessionError> {
        let claimed = if let Some(claim) = frame.meta_revision().and_then(|v| revision_of(&v)) {
            claim
        } else if method == "initialize" && direction == Direction::ClientToServer {
            let p = frame.params();
            let p = p.as_deref();
            self.identity = Some(Arc::new(ClientIdentity {
                client_info: p.and_then(|p| p.get("clientInfo")).cloned(),
                capabilities: p.and_then(|p| p.get("capabilities")).cloned(),
            }));
            match p
                .and_then(|p| p.get("protocolVersion"))
                .and_then(revision_of)
            {
                Some(offer) => offer,
                None => return Ok(None),
            }
        } else {
            return Ok(None);
        };
        let claimed = claimed?;
        let prior = self.current.replace(claimed);
        Ok(Some(Claim { claimed, prior }))
    }

    /// Remembers the task an answer to the task-augmented request `origin` (sent in
    /// `direction`) created: `result.task.taskId`, mapped to the request's method.
    fn learn_task(&mut self, direction: Direction, origin: &Pending, frame: &dyn Evidence) {
        let Some(task) = frame.result_member("task") else {
            return;
        };
        let Some(task_id) = task.get("taskId").and_then(Value::as_str) else {
            return;
        };
        self.tasks
            .insert((direction, task_id.to_owned()), origin.method.clone());
    }

    /// Records whether the request `id` sent in `direction` was passed on.
    pub fn set_forwarded(&mut self, direction: Direction, id: &RequestId, forwarded: bool) {
        if let Some(p) = self.table_mut(direction).get_mut(id) {
            p.forwarded = forwarded;
        }
    }

    fn answer(
        &mut self,
        stated: Option<Direction>,
        id: &RequestId,
    ) -> Result<(Direction, Pending), SessionError> {
        for &d in answer_directions(stated) {
            if let Some(p) = self.table_mut(d.reverse()).remove(id) {
                return Ok((d, p));
            }
        }
        Err(unknown_id(stated, id))
    }
}

/// The directions an answer may travel in, in the order they are tried: `stated`, or for a
/// bare answer both (the server's first: most answers are).
fn answer_directions(stated: Option<Direction>) -> &'static [Direction] {
    match stated {
        Some(Direction::ClientToServer) => &[Direction::ClientToServer],
        Some(Direction::ServerToClient) => &[Direction::ServerToClient],
        None => &[Direction::ServerToClient, Direction::ClientToServer],
    }
}

/// The error for an answer whose id matches no pending request.
fn unknown_id(stated: Option<Direction>, id: &RequestId) -> SessionError {
    SessionError::UnknownId {
        id: id.clone(),
        direction: stated.unwrap_or(Direction::ServerToClient),
    }
}

/// Whether `method` is the handshake request (its answer is a handshake frame too).
fn is_handshake(method: &str) -> bool {
    method == "initialize"
}

/// The newest handshake revision not newer than `v`: an `initialize` naming a revision of the
/// stateless era is still a handshake frame, of the last handshake revision.
pub fn handshake_revision(v: ProtocolVersion) -> ProtocolVersion {
    ProtocolVersion::ALL[..=v.index()]
        .iter()
        .rev()
        .copied()
        .find(|r| r.era() == Era::Handshake)
        .unwrap_or(v)
}

/// Whether some revision's facts list `method` in `table` and none lists it in `other`.
fn only_in(
    method: &str,
    table: fn(&RevisionFacts) -> &'static [MethodFact],
    other: fn(&RevisionFacts) -> &'static [MethodFact],
) -> bool {
    let listed = |t: fn(&RevisionFacts) -> &'static [MethodFact]| {
        ProtocolVersion::ALL
            .iter()
            .any(|v| t(facts::revision(*v)).iter().any(|m| m.method == method))
    };
    listed(table) && !listed(other)
}

/// The error a peer is answered with: [`SessionError::code`] and the message.
impl From<&SessionError> for crate::jsonrpc::ErrorData {
    fn from(e: &SessionError) -> Self {
        crate::jsonrpc::ErrorData::new(e.code(), e.to_string())
    }
}

impl From<SessionError> for crate::jsonrpc::ErrorData {
    fn from(e: SessionError) -> Self {
        crate::jsonrpc::ErrorData::from(&e)
    }
}
