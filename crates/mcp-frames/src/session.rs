//! What the traffic itself says: the source revision of each frame, and which request each
//! response answers (ids are tracked per direction, so a server's `id: 1` never matches a
//! client's `id: 1`).
//!
//! Evidence, in the order the stream presents it:
//! - a client `initialize` offers `params.protocolVersion` (that request is at the offered
//!   revision, and so is what follows until the answer);
//! - the `initialize` result's `protocolVersion` wins over the offer; an error answer withdraws
//!   the offer;
//! - a 2026-07-28 request names its revision in `params._meta["io.modelcontextprotocol/protocolVersion"]`;
//! - a `-32601` answer to `server/discover` withdraws the revision that request claimed: real
//!   clients fall back to `initialize` next, whose offer then decides.
//!
//! Responses are at the revision of the request they answer.
//!
//! Tasks (2025-11-25): a request whose params carry `task` is remembered as task-augmented (its
//! answer is the task it created); the task id that answer returns is remembered with the
//! request's method (bounded by [`MAX_TASKS`]), so a later `tasks/result` for it is typed by
//! that method ([`Pending::result_for`]).
//!
//! An `initialize` and its answer are handshake frames whatever revision they name: they are
//! judged at the newest handshake revision not newer than it (a TypeScript client offering
//! 2026-07-28 sends a 2025-11-25 `initialize`), and the answer decides the session's revision.
//!
//! `--from` ([`Session::fixed`]) fixes only the revision frames are judged at; everything else
//! the session learns (the client identity, pending ids, claims and their withdrawal) is
//! learnt exactly as with detection.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use mcp_types::ProtocolVersion;
use mcp_types::facts::{self, MethodFact, RevisionFacts};
use mcp_types::wire::ResultFor;
use serde_json::{Map, Value};

use crate::envelope::{Envelope, RequestId};
use crate::record::Direction;

/// The reserved `_meta` key that carries a 2026-07-28 request's revision.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The reserved `_meta` key that carries the client's implementation info (2026-07-28).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The reserved `_meta` key that carries the client's capabilities (2026-07-28).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Bound on requests awaiting an answer, so a stream of unanswered requests runs in constant
/// memory; past it, the oldest is forgotten (its late answer is then reported as unknown).
pub const MAX_PENDING: usize = 100_000;

/// A request seen on the stream and not yet answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Its method.
    pub method: String,
    /// The revision it was read at, if one was known.
    pub revision: Option<ProtocolVersion>,
    /// Its line number.
    pub line: usize,
    /// Whether the request made it to the output (an answer to a dropped request is dropped too).
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
    /// The frame's source revision, if the evidence (or `--from`) gives one.
    pub revision: Option<ProtocolVersion>,
    /// For responses and errors: the request it answers.
    pub origin: Option<Pending>,
    /// For requests: whether its params carried `task` (task-augmented).
    pub task_augmented: bool,
}

/// A frame the session cannot place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// A response or error whose id matches no pending request of the other peer.
    UnknownId {
        /// The id found.
        id: RequestId,
        /// The direction the response travels.
        direction: Direction,
    },
    /// A frame that names a revision this tool does not know.
    UnknownRevision {
        /// The string found.
        found: String,
    },
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::UnknownId { id, direction } => {
                let peer = match direction.reverse() {
                    Direction::ClientToServer => "client",
                    Direction::ServerToClient => "server",
                };
                write!(f, "response id {id} answers no pending {peer} request")
            }
            SessionError::UnknownRevision { found } => write!(
                f,
                "unknown protocol revision {found:?}; known: {}",
                ProtocolVersion::ALL.map(|v| v.as_str()).join(", ")
            ),
        }
    }
}

/// The client's identity as the handshake stated it, for re-stating it in 2026-07-28 `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientIdentity {
    /// `clientInfo` of `initialize`.
    pub client_info: Option<Value>,
    /// `capabilities` of `initialize`.
    pub capabilities: Option<Value>,
}

/// Bound on the tasks remembered (task id → the method that created it), so a stream creating
/// tasks without end runs in constant memory; past it, the oldest is forgotten (a later
/// `tasks/result` for it is then typed as the open `GetTaskPayloadResult`).
pub const MAX_TASKS: usize = 10_000;

/// A task a task-augmented request created.
#[derive(Debug, Clone)]
struct CreatedTask {
    /// The method of the request that created it.
    method: String,
    /// The line of the answer that created it (the oldest is forgotten first).
    line: usize,
}

/// The per-stream state: current revision, pending requests per direction, client identity,
/// the tasks created.
#[derive(Debug, Default)]
pub struct Session {
    fixed: Option<ProtocolVersion>,
    current: Option<ProtocolVersion>,
    /// Keyed with foldhash: a lookup per answer, and a seeded hasher keeps crafted ids harmless.
    pending: HashMap<(Direction, RequestId), Pending, foldhash::fast::RandomState>,
    identity: Option<ClientIdentity>,
    /// Keyed by the direction of the requests that created them (the requestor's `tasks/*`
    /// travel the same way) and the task id.
    tasks: HashMap<(Direction, String), CreatedTask, foldhash::fast::RandomState>,
}

/// What the session reads from a frame besides its envelope. A parsed frame (`Value`) answers
/// by reference; the direct path of `translate` answers from its borrowed members, parsing a
/// member only when it is asked for (an `initialize` and its answer).
pub trait Evidence {
    /// The frame's `params`, when it is an object.
    fn params(&self) -> Option<Cow<'_, Map<String, Value>>>;
    /// The frame's `result`.
    fn result(&self) -> Option<Cow<'_, Value>>;
    /// The `_meta` revision claim of a request: `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    fn meta_revision(&self) -> Option<Cow<'_, Value>>;
    /// Whether the frame's `params` carry a `task` (a task-augmented request).
    fn task_augmented(&self) -> bool;
    /// The frame's `params.taskId`, when it is a string (`tasks/*` requests).
    fn task_id(&self) -> Option<Cow<'_, str>>;
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

/// The `_meta` revision claim of a request, if any.
pub fn meta_revision(frame: &Value) -> Option<&Value> {
    params(frame)?
        .get("_meta")?
        .as_object()?
        .get(META_PROTOCOL_VERSION)
}

impl Session {
    /// A session that detects revisions from the traffic.
    pub fn new() -> Self {
        Session::default()
    }

    /// A session whose every frame is at `version` (`--from`); ids are still tracked.
    pub fn fixed(version: ProtocolVersion) -> Self {
        Session {
            fixed: Some(version),
            current: Some(version),
            ..Session::default()
        }
    }

    /// The revision the evidence so far points at.
    pub fn current(&self) -> Option<ProtocolVersion> {
        self.current
    }

    /// The client identity stated by the last `initialize`, if any.
    pub fn client_identity(&self) -> Option<&ClientIdentity> {
        self.identity.as_ref()
    }

    /// Number of requests awaiting an answer.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The revision a frame is judged at: the fixed one (`--from`), else what the evidence
    /// says; a handshake frame (`initialize` and its answer) at the newest handshake revision
    /// not newer than that.
    fn judged(
        &self,
        evidence: Option<ProtocolVersion>,
        handshake: bool,
    ) -> Option<ProtocolVersion> {
        let v = self.fixed.or(evidence)?;
        Some(if handshake { handshake_revision(v) } else { v })
    }

    /// Places one frame: its direction (`stated` for capture records, inferred for bare
    /// frames), its revision, and for answers the request answered. Updates the evidence.
    pub fn observe(
        &mut self,
        line: usize,
        stated: Option<Direction>,
        envelope: &Envelope,
        frame: &dyn Evidence,
    ) -> Result<FrameContext, SessionError> {
        match envelope {
            Envelope::Request { id, method } => {
                let direction = stated.unwrap_or_else(|| infer_request_direction(method));
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
                        self.tasks.get(&key).map(|t| t.method.clone())
                    }),
                    _ => None,
                };
                self.remember(
                    direction,
                    id.clone(),
                    Pending {
                        method: method.clone(),
                        revision,
                        line,
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
                })
            }
            Envelope::Notification { method } => Ok(FrameContext {
                direction: stated.unwrap_or_else(|| infer_notification_direction(method)),
                revision: self.judged(self.current, false),
                origin: None,
                task_augmented: false,
            }),
            Envelope::Response { id } => {
                let (direction, origin) = self.answer(stated, id)?;
                if origin.task_augmented {
                    self.learn_task(line, direction.reverse(), &origin, frame);
                }
                let mut revision = origin.revision;
                if is_handshake(&origin.method) {
                    let answer = frame
                        .result()
                        .and_then(|r| r.get("protocolVersion").and_then(revision_of));
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
                })
            }
            Envelope::Error { id: None, .. } => Ok(FrameContext {
                direction: stated.unwrap_or(Direction::ServerToClient),
                revision: self.judged(self.current, false),
                origin: None,
                task_augmented: false,
            }),
            Envelope::Error { id: Some(id), code } => {
                let (direction, origin) = self.answer(stated, id)?;
                let withdrawn = match origin.method.as_str() {
                    "initialize" => true,
                    "server/discover" => *code == -32601,
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
            self.identity = Some(ClientIdentity {
                client_info: p.and_then(|p| p.get("clientInfo")).cloned(),
                capabilities: p.and_then(|p| p.get("capabilities")).cloned(),
            });
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
    fn learn_task(
        &mut self,
        line: usize,
        direction: Direction,
        origin: &Pending,
        frame: &dyn Evidence,
    ) {
        let Some(result) = frame.result() else { return };
        let Some(task_id) = result
            .get("task")
            .and_then(|t| t.get("taskId"))
            .and_then(Value::as_str)
        else {
            return;
        };
        if self.tasks.len() >= MAX_TASKS
            && let Some(oldest) = self
                .tasks
                .iter()
                .min_by_key(|(_, t)| t.line)
                .map(|(k, _)| k.clone())
        {
            self.tasks.remove(&oldest);
        }
        self.tasks.insert(
            (direction, task_id.to_owned()),
            CreatedTask {
                method: origin.method.clone(),
                line,
            },
        );
    }

    /// Records whether the request `id` sent in `direction` reached the output.
    pub fn set_forwarded(&mut self, direction: Direction, id: &RequestId, forwarded: bool) {
        if let Some(p) = self.pending.get_mut(&(direction, id.clone())) {
            p.forwarded = forwarded;
        }
    }

    fn remember(&mut self, direction: Direction, id: RequestId, p: Pending) {
        if self.pending.len() >= MAX_PENDING {
            // Forget the oldest request (rare: only streams of unanswered requests get here).
            if let Some(oldest) = self
                .pending
                .iter()
                .min_by_key(|(_, p)| p.line)
                .map(|(k, _)| k.clone())
            {
                self.pending.remove(&oldest);
            }
        }
        self.pending.insert((direction, id), p);
    }

    fn answer(
        &mut self,
        stated: Option<Direction>,
        id: &RequestId,
    ) -> Result<(Direction, Pending), SessionError> {
        let one;
        let candidates: &[Direction] = match stated {
            Some(d) => {
                one = [d];
                &one
            }
            // A bare answer: most answers are the server's, so try that first.
            None => &[Direction::ServerToClient, Direction::ClientToServer],
        };
        for d in candidates {
            if let Some(p) = self.pending.remove(&(d.reverse(), id.clone())) {
                return Ok((*d, p));
            }
        }
        Err(SessionError::UnknownId {
            id: id.clone(),
            direction: candidates[0],
        })
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
        .find(|r| r.era() == mcp_types::Era::Handshake)
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

/// A bare request (no capture `dir`) is the server's when only servers ever send its method
/// (`sampling/createMessage`, `roots/list`, `elicitation/create`); `ping`, sent by both, is read
/// as the client's.
fn infer_request_direction(method: &str) -> Direction {
    if only_in(method, |f| f.server_requests, |f| f.client_requests) {
        Direction::ServerToClient
    } else {
        Direction::ClientToServer
    }
}

/// A bare notification is the client's when only clients ever send it; otherwise (including
/// `cancelled` and `progress`, sent by both) the server's.
fn infer_notification_direction(method: &str) -> Direction {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::classify;
    use crate::record::Record;
    use serde_json::json;

    use ProtocolVersion::*;

    fn corpus_file(name: &str) -> Vec<(usize, Record)> {
        let path = mcp_wire_tests::corpus_dir().join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "the shared corpus is missing: {} ({e}); set MCP_WIRE_CORPUS",
                path.display()
            )
        });
        text.lines()
            .enumerate()
            .map(|(i, l)| {
                let v = crate::json::parse_line(l.as_bytes()).unwrap();
                (i + 1, Record::from_value(v).unwrap())
            })
            .collect()
    }

    /// Runs a session over a corpus file; returns each line's revision or error text.
    fn detect(name: &str) -> Vec<(usize, Result<Option<ProtocolVersion>, String>)> {
        let mut s = Session::new();
        corpus_file(name)
            .into_iter()
            .map(|(line, r)| {
                let env = classify(&r.frame).unwrap();
                let got = s
                    .observe(line, r.direction(), &env, &r.frame)
                    .map(|c| c.revision)
                    .map_err(|e| e.to_string());
                (line, got)
            })
            .collect()
    }

    #[test]
    fn handshake_sessions_are_detected_from_initialize() {
        for (name, v) in [
            ("pysdk-2024-11-05.jsonl", V2024_11_05),
            ("pysdk-2025-03-26.jsonl", V2025_03_26),
            ("pysdk-2025-06-18.jsonl", V2025_06_18),
            ("pysdk-2025-11-25.jsonl", V2025_11_25),
            ("tsv2-2025-11-25.jsonl", V2025_11_25),
        ] {
            let got = detect(name);
            assert!(got.len() > 40, "{name}: {} lines", got.len());
            for (line, r) in got {
                assert_eq!(r, Ok(Some(v)), "{name}:{line}");
            }
        }
    }

    #[test]
    fn the_2026_session_follows_meta_and_a_refused_initialize() {
        let got = detect("pysdk-2026-07-28.jsonl");
        let odd: Vec<_> = got
            .iter()
            .filter(|(_, r)| *r != Ok(Some(V2026_07_28)))
            .collect();
        // Line 84 offers 2025-11-25 in an `initialize` the server turns down (line 85 answers
        // at the offered revision, then the session is back at 2026-07-28); line 76 claims a
        // revision nobody knows, and its answer (line 77) answers a request with no revision.
        assert_eq!(
            odd,
            vec![
                &(
                    76,
                    Err(
                        "unknown protocol revision \"2099-01-01\"; known: 2024-11-05, \
                         2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
                            .into()
                    )
                ),
                &(77, Ok(None)),
                &(84, Ok(Some(V2025_11_25))),
                &(85, Ok(Some(V2025_11_25))),
            ]
        );
        assert_eq!(got.len(), 87);
    }

    #[test]
    fn ids_are_tracked_per_direction() {
        let mut s = Session::new();
        let mut feed = |dir, v: Value| {
            let env = classify(&v).unwrap();
            s.observe(1, dir, &env, &v)
        };
        let c2s = Some(Direction::ClientToServer);
        let s2c = Some(Direction::ServerToClient);
        feed(
            c2s,
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}),
        )
        .unwrap();
        feed(s2c, json!({"jsonrpc":"2.0","id":1,"method":"roots/list"})).unwrap();
        // The client answers the server's id 1 …
        let a = feed(c2s, json!({"jsonrpc":"2.0","id":1,"result":{"roots":[]}})).unwrap();
        assert_eq!(a.origin.unwrap().method, "roots/list");
        // … and the server answers the client's id 1, at the answered revision.
        let b = feed(
            s2c,
            json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}),
        )
        .unwrap();
        assert_eq!(b.origin.unwrap().method, "initialize");
        assert_eq!(b.revision, Some(V2025_03_26));
        let e = feed(s2c, json!({"jsonrpc":"2.0","id":1,"result":{}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "response id 1 answers no pending client request"
        );
    }

    #[test]
    fn discover_refused_with_32601_falls_back_to_initialize() {
        let mut s = Session::new();
        let mut feed = |v: Value| {
            let env = classify(&v).unwrap();
            s.observe(1, None, &env, &v).map(|c| c.revision)
        };
        let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28"});
        assert_eq!(
            feed(
                json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta}})
            ),
            Ok(Some(V2026_07_28))
        );
        assert_eq!(
            feed(
                json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}})
            ),
            Ok(Some(V2026_07_28))
        );
        // No evidence now: a notification here cannot be placed.
        assert_eq!(
            feed(json!({"jsonrpc":"2.0","method":"notifications/progress"})),
            Ok(None)
        );
        assert_eq!(
            feed(
                json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})
            ),
            Ok(Some(V2025_11_25))
        );
        assert_eq!(
            feed(json!({"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18"}})),
            Ok(Some(V2025_06_18))
        );
        assert_eq!(
            feed(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Ok(Some(V2025_06_18))
        );
    }

    #[test]
    fn bare_frames_get_their_direction_from_the_method_tables() {
        assert_eq!(
            infer_request_direction("elicitation/create"),
            Direction::ServerToClient
        );
        assert_eq!(infer_request_direction("ping"), Direction::ClientToServer);
        assert_eq!(
            infer_notification_direction("notifications/roots/list_changed"),
            Direction::ClientToServer
        );
        assert_eq!(
            infer_notification_direction("notifications/progress"),
            Direction::ServerToClient
        );
    }

    #[test]
    fn task_ids_lead_tasks_result_to_the_request_that_created_the_task() {
        let mut s = Session::fixed(V2025_11_25);
        let c2s = Some(Direction::ClientToServer);
        let s2c = Some(Direction::ServerToClient);
        let mut feed = |line, dir, v: Value| {
            let env = classify(&v).unwrap();
            s.observe(line, dir, &env, &v).unwrap()
        };
        let call = feed(
            1,
            c2s,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}),
        );
        assert!(call.task_augmented);
        let created = feed(
            2,
            s2c,
            json!({"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1"}}}),
        );
        let origin = created.origin.unwrap();
        assert_eq!(
            origin.result_for(),
            ResultFor::method("tools/call").task_augmented(true)
        );
        let payload = |s: &mut Session, id: i64, task: &str| {
            let ask =
                json!({"jsonrpc":"2.0","id":id,"method":"tasks/result","params":{"taskId":task}});
            s.observe(3, c2s, &classify(&ask).unwrap(), &ask).unwrap();
            let answer = json!({"jsonrpc":"2.0","id":id,"result":{}});
            let c = s.observe(4, s2c, &classify(&answer).unwrap(), &answer);
            c.unwrap().origin.unwrap()
        };
        let known = payload(&mut s, 2, "t-1");
        assert_eq!(known.result_for(), ResultFor::task_payload("tools/call"));
        // An id the session never saw created, or one created for the other peer, stays open.
        let unknown = payload(&mut s, 3, "t-2");
        assert_eq!(unknown.result_for(), ResultFor::method("tasks/result"));
        let ask = json!({"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":"t-1"}});
        s.observe(5, s2c, &classify(&ask).unwrap(), &ask).unwrap();
        let answer = json!({"jsonrpc":"2.0","id":9,"result":{}});
        let c = s
            .observe(6, c2s, &classify(&answer).unwrap(), &answer)
            .unwrap();
        assert_eq!(c.origin.unwrap().payload_of, None);
    }

    #[test]
    fn the_tasks_remembered_are_bounded() {
        let mut s = Session::new();
        let c2s = Some(Direction::ClientToServer);
        let s2c = Some(Direction::ServerToClient);
        for i in 0..(MAX_TASKS + 5) as i64 {
            let call = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"x","task":{}}});
            s.observe(1, c2s, &classify(&call).unwrap(), &call).unwrap();
            let created =
                json!({"jsonrpc":"2.0","id":i,"result":{"task":{"taskId":format!("t{i}")}}});
            s.observe(i as usize + 2, s2c, &classify(&created).unwrap(), &created)
                .unwrap();
        }
        assert_eq!(s.tasks.len(), MAX_TASKS);
        // The oldest went first.
        assert!(
            !s.tasks
                .contains_key(&(Direction::ClientToServer, "t0".into()))
        );
        let last = format!("t{}", MAX_TASKS + 4);
        assert!(s.tasks.contains_key(&(Direction::ClientToServer, last)));
    }

    #[test]
    fn a_fixed_source_fixes_only_the_revision() {
        let c2s = Some(Direction::ClientToServer);
        let init = json!({"jsonrpc":"2.0","id":"a","method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{"roots":{}},
            "clientInfo":{"name":"c","version":"1"}}});
        let mut fixed = Session::fixed(V2025_03_26);
        let mut detected = Session::new();
        for s in [&mut fixed, &mut detected] {
            s.observe(1, c2s, &classify(&init).unwrap(), &init).unwrap();
            assert_eq!(s.pending_len(), 1);
            // The identity `initialize` states is learnt whether or not the source is fixed.
            assert_eq!(
                s.client_identity(),
                Some(&ClientIdentity {
                    client_info: Some(json!({"name":"c","version":"1"})),
                    capabilities: Some(json!({"roots":{}})),
                })
            );
            assert_eq!(s.current(), Some(V2025_06_18));
        }
        let ping = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
        let at = |s: &mut Session| {
            s.observe(2, c2s, &classify(&ping).unwrap(), &ping)
                .unwrap()
                .revision
        };
        assert_eq!(at(&mut fixed), Some(V2025_03_26));
        assert_eq!(at(&mut detected), Some(V2025_06_18));
        // An unknown claim is the same fault either way.
        let bad = json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2099-01-01"}}});
        for s in [&mut fixed, &mut detected] {
            let e = s.observe(3, c2s, &classify(&bad).unwrap(), &bad);
            assert!(
                matches!(e, Err(SessionError::UnknownRevision { .. })),
                "{e:?}"
            );
        }
    }

    #[test]
    fn an_initialize_offering_2026_is_a_handshake_frame_and_its_answer_decides() {
        let c2s = Some(Direction::ClientToServer);
        let s2c = Some(Direction::ServerToClient);
        let frames = [
            (
                c2s,
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
                    "protocolVersion":"2026-07-28","capabilities":{},
                    "clientInfo":{"name":"ts","version":"1"}}}),
            ),
            (
                s2c,
                json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",
                    "capabilities":{},"serverInfo":{"name":"s","version":"1"}}}),
            ),
            (
                c2s,
                json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            ),
        ];
        for mut s in [Session::new(), Session::fixed(V2025_11_25)] {
            let got: Vec<_> = frames
                .iter()
                .map(|(d, f)| s.observe(1, *d, &classify(f).unwrap(), f).unwrap().revision)
                .collect();
            assert_eq!(got, [Some(V2025_11_25); 3]);
        }
        // With --from 2026-07-28 the handshake frames are still judged as handshake frames.
        let mut s = Session::fixed(V2026_07_28);
        let got: Vec<_> = frames
            .iter()
            .map(|(d, f)| s.observe(1, *d, &classify(f).unwrap(), f).unwrap().revision)
            .collect();
        assert_eq!(
            got,
            [Some(V2025_11_25), Some(V2025_11_25), Some(V2026_07_28)]
        );
        assert_eq!(handshake_revision(V2026_07_28), V2025_11_25);
        assert_eq!(handshake_revision(V2025_03_26), V2025_03_26);
    }
}
