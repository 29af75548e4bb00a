//! Direction B's legacy sessions: a 2026-07-28 client states its identity and capabilities on
//! every request, a legacy server learns them once, in `initialize`. So the bridge opens one
//! legacy session per distinct identity — principal, `clientInfo`, `clientCapabilities` — with
//! that identity in its `initialize` (the capabilities trimmed to what the bridge can carry,
//! [`HANDSHAKE_CAPABILITY_MAP`]), and sends each request to its identity's session: the server
//! then sees exactly what the client declared, and decides on it as it would for that client
//! (a tool that needs sampling refuses a client without it itself). Nothing is shared across
//! principals (Q15). The sessions are bounded ([`BridgeLimits::max_handshake_sessions`],
//! least recently used idle one closed first) and end after [`BridgeLimits::handshake_session_idle`]
//! without use.

use std::sync::Arc;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{ClientCapabilities, Implementation};
use mcp_wire_transport::client::{
    AuthorizerSlot, ClientOptions, Wire, connect_legacy_sse, connect_streamable,
};
use mcp_wire_transport::server::Notifier;
use mcp_wire_transport::stdio::{StdioOptions, spawn_child};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use crate::emit::Emitter;
use crate::limits::{BridgeLimits, Reason};
use crate::report::{Dir, Report, Status};
use crate::upstream::{Snapshot, TapSlot, Upstream, UpstreamTarget, bridge_info};

/// How a 2026-07-28 client's `clientCapabilities` become the capabilities of its legacy
/// session's `initialize`, one row per member; members not listed are not sent (a legacy
/// server would not know them).
const HANDSHAKE_CAPABILITY_MAP: [(&str, HandshakeRule); 6] = [
    // Roots are asked for per request at 2026-07-28: no root change is ever reported.
    ("roots", HandshakeRule::RootsNoChanges),
    ("sampling", HandshakeRule::Keep),
    // Form and URL modes for 2025-11-25; a 2025-06-18 server knows elicitation as `{}`.
    ("elicitation", HandshakeRule::Elicitation),
    ("experimental", HandshakeRule::Keep),
    // Core tasks are never carried (Q8); extensions are 2026-07-28's.
    ("tasks", HandshakeRule::Drop),
    ("extensions", HandshakeRule::Drop),
];

/// What [`HANDSHAKE_CAPABILITY_MAP`] does with one member.
#[derive(Debug, Clone, Copy)]
enum HandshakeRule {
    Keep,
    RootsNoChanges,
    Elicitation,
    Drop,
}

/// A 2026-07-28 client's capabilities as a legacy `initialize` at `revision` states them.
pub(crate) fn handshake_client_capabilities(
    caps: &ClientCapabilities,
    revision: ProtocolVersion,
) -> Value {
    let value = serde_json::to_value(caps).unwrap_or_else(|_| json!({}));
    let mut out = Map::new();
    for (member, rule) in HANDSHAKE_CAPABILITY_MAP {
        let Some(current) = value.get(member) else {
            continue;
        };
        match rule {
            HandshakeRule::Keep => {
                out.insert(member.into(), current.clone());
            }
            HandshakeRule::RootsNoChanges => {
                out.insert(member.into(), json!({"listChanged": false}));
            }
            HandshakeRule::Elicitation => {
                if revision >= ProtocolVersion::V2025_11_25 {
                    out.insert(member.into(), current.clone());
                } else if revision >= ProtocolVersion::V2025_06_18 {
                    out.insert(member.into(), json!({}));
                }
            }
            HandshakeRule::Drop => {}
        }
    }
    Value::Object(out)
}

/// Who a 2026-07-28 request acts for, as far as a legacy session is concerned.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    /// The principal's identity (`Principal::key`).
    pub principal: String,
    /// `clientInfo` (the bridge's own when the client sent none).
    pub client_info: Implementation,
    /// `clientCapabilities`.
    pub capabilities: ClientCapabilities,
}

impl Identity {
    /// The key sessions are kept under.
    pub(crate) fn key(&self) -> String {
        let info = serde_json::to_string(&self.client_info).unwrap_or_default();
        let caps = serde_json::to_string(&self.capabilities).unwrap_or_default();
        format!("{}\u{0}{info}\u{0}{caps}", self.principal)
    }
}

struct Entry {
    key: String,
    upstream: Arc<Upstream>,
    last_used: Instant,
    /// The session's reference count when nobody but the bridge's own tasks held it: more
    /// means a parked call or a listen stream's subscriptions still use it.
    baseline: usize,
}

impl Entry {
    fn idle(&self) -> bool {
        self.upstream.in_flight() == 0 && Arc::strong_count(&self.upstream) <= self.baseline
    }
}

/// The legacy sessions of one bridge.
pub(crate) struct HandshakeSessions {
    target: UpstreamTarget,
    snapshot: Snapshot,
    limits: BridgeLimits,
    authorizer: Option<AuthorizerSlot>,
    report: Arc<Report>,
    emitter: Emitter,
    changes: Notifier,
    entries: tokio::sync::Mutex<Vec<Entry>>,
}

impl HandshakeSessions {
    /// Sessions to the server at `target`, which the probe found speaking `snapshot`'s
    /// revision over `snapshot`'s transport; their list changes and updates go to `changes`.
    pub(crate) fn new(
        target: UpstreamTarget,
        snapshot: Snapshot,
        limits: BridgeLimits,
        authorizer: Option<AuthorizerSlot>,
        report: Arc<Report>,
        emitter: Emitter,
        changes: Notifier,
    ) -> Self {
        Self {
            target,
            snapshot,
            limits,
            authorizer,
            report,
            emitter,
            changes,
            entries: tokio::sync::Mutex::new(Vec::new()),
        }
    }

    /// Where the sessions' list changes and updates go.
    pub(crate) fn changes(&self) -> &Notifier {
        &self.changes
    }

    /// How many sessions are open.
    pub(crate) async fn len(&self) -> usize {
        self.entries.lock().await.len()
    }

    /// The session of `identity`, opened (and initialized with it) when it has none.
    pub(crate) async fn get(&self, identity: &Identity) -> Result<Arc<Upstream>, ErrorData> {
        let key = identity.key();
        let mut entries = self.entries.lock().await;
        let now = Instant::now();
        // Gone sessions leave; idle ones past their time end.
        entries.retain(|e| {
            let idle =
                e.idle() && now.duration_since(e.last_used) >= self.limits.handshake_session_idle;
            if idle {
                e.upstream.shutdown();
            }
            !idle && !e.upstream.is_closed()
        });
        if let Some(e) = entries.iter_mut().find(|e| e.key == key) {
            e.last_used = now;
            return Ok(e.upstream.clone());
        }
        if entries.len() >= self.limits.max_handshake_sessions {
            let lru = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.idle())
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i);
            match lru {
                Some(i) => entries.remove(i).upstream.shutdown(),
                None => {
                    return Err(Reason::LimitExceeded.error(
                        format!(
                            "{} legacy sessions are busy; none can be closed for a new client identity",
                            self.limits.max_handshake_sessions
                        ),
                        None,
                        None,
                    ));
                }
            }
        }
        let upstream = self.open(identity).await?;
        // This clone and the one returned are not the session's users.
        let baseline = Arc::strong_count(&upstream);
        entries.push(Entry {
            key,
            upstream: upstream.clone(),
            last_used: now,
            baseline,
        });
        Ok(upstream)
    }

    /// Opens a session on the transport the probe found and initializes it as `identity`.
    async fn open(&self, identity: &Identity) -> Result<Arc<Upstream>, ErrorData> {
        let revision = self.snapshot.revision;
        let unavailable = |m: String| {
            Reason::UpstreamUnavailable.error(
                format!("cannot open a legacy session: {m}"),
                Some((ProtocolVersion::V2026_07_28, revision)),
                None,
            )
        };
        let (connection, tap) = match &self.target {
            UpstreamTarget::Command(argv) => {
                let (program, args) = argv
                    .split_first()
                    .ok_or_else(|| unavailable("empty upstream command".into()))?;
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let child = spawn_child(
                    command,
                    StdioOptions::default().max_line_bytes(self.limits.max_frame_bytes),
                )
                .map_err(|e| unavailable(format!("cannot start {program:?}: {e}")))?;
                (child.connection, None)
            }
            UpstreamTarget::Url(url) => {
                let tap = TapSlot::default();
                let mut options = ClientOptions::default()
                    .max_frame_bytes(self.limits.max_frame_bytes)
                    .request_timeout(self.limits.request_timeout);
                options.authorizer = self.authorizer.clone();
                let connection = if revision == ProtocolVersion::V2024_11_05
                    && self.snapshot.transport == "http+sse"
                {
                    connect_legacy_sse(url, tap.options(&options))
                        .await
                        .map_err(|e| unavailable(format!("{url}: {e}")))?
                } else {
                    connect_streamable(url, Wire::Stateful, tap.options(&options))
                        .map_err(|e| unavailable(format!("{url}: {e}")))?
                };
                (connection, Some(tap))
            }
        };
        let upstream = Upstream::start(
            connection,
            tap,
            self.limits,
            self.report.clone(),
            self.emitter,
            self.changes.clone(),
        );
        let capabilities = handshake_client_capabilities(&identity.capabilities, revision);
        match upstream
            .initialize_as(
                revision,
                &[revision],
                capabilities,
                identity.client_info.clone(),
            )
            .await
        {
            Ok(_) => {
                self.report.event(
                    Dir::ToServer,
                    "initialize",
                    Some(ProtocolVersion::V2026_07_28),
                    revision,
                    Status::Synthesized,
                    format!(
                        "a legacy session for {} ({})",
                        identity.principal, identity.client_info.name
                    ),
                );
                Ok(upstream)
            }
            Err(e) => {
                upstream.shutdown();
                Err(unavailable(e.to_string()))
            }
        }
    }
}

/// The identity of a 2026-07-28 request.
pub(crate) fn identity_of(ctx: &mcp_wire_transport::server::RequestContext) -> Identity {
    Identity {
        principal: ctx.principal().key().to_string(),
        client_info: ctx.client_info().cloned().unwrap_or_else(bridge_info),
        capabilities: ctx.client_capabilities().clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_capabilities_become_legacy_ones_by_the_table() {
        let caps: ClientCapabilities = serde_json::from_value(json!({
            "roots": {},
            "sampling": {"tools": {}},
            "elicitation": {"form": {}, "url": {}},
            "extensions": {"io.x/y": {}},
            "experimental": {"z": {}}
        }))
        .unwrap();
        assert_eq!(
            handshake_client_capabilities(&caps, ProtocolVersion::V2025_11_25),
            json!({"roots": {"listChanged": false}, "sampling": {"tools": {}},
                "elicitation": {"form": {}, "url": {}}, "experimental": {"z": {}}})
        );
        assert_eq!(
            handshake_client_capabilities(&caps, ProtocolVersion::V2025_06_18)["elicitation"],
            json!({})
        );
        assert!(
            handshake_client_capabilities(&caps, ProtocolVersion::V2025_03_26)
                .get("elicitation")
                .is_none()
        );
        assert_eq!(
            handshake_client_capabilities(
                &ClientCapabilities::default(),
                ProtocolVersion::V2025_11_25
            ),
            json!({})
        );
    }

    #[test]
    fn identities_differ_by_principal_info_and_capabilities() {
        let base = Identity {
            principal: "a".into(),
            client_info: Implementation::new("c", "1"),
            capabilities: ClientCapabilities::default(),
        };
        let mut other = base.clone();
        other.principal = "b".into();
        assert_ne!(base.key(), other.key());
        let mut other = base.clone();
        other.client_info = Implementation::new("c", "2");
        assert_ne!(base.key(), other.key());
        let mut other = base.clone();
        other.capabilities = serde_json::from_value(json!({"sampling": {}})).unwrap();
        assert_ne!(base.key(), other.key());
        assert_eq!(base.key(), base.clone().key());
    }
}
