//! Direction B's parked calls (B9): a `tools/call`, `prompts/get` or
//! `resources/read` whose legacy server asked the client something is answered with an
//! `InputRequiredResult`, and the call itself — still running upstream, its server waiting
//! for the answers — is *parked* here under a fresh `requestState` token until the client's
//! retry brings them.
//!
//! A token is `base64url(payload) "." base64url(tag)`: the payload names this process
//! (`e`, random per process), the park (`p`) and the expiry (`x`, Unix seconds); the tag is
//! HMAC-SHA256 with a per-process key over the payload, the principal, the method and the
//! digest of the call's params (without `_meta`, `inputResponses`, `requestState`). So a token
//! altered, shown by another principal, for another method or with other params fails its tag;
//! one of an earlier process is told apart (`data.restarted`); one already redeemed or expired
//! finds no park. Every one of these is `-32602`. Tokens are single use: each round gets a new
//! one. The table is bounded ([`crate::BridgeLimits::max_parked`]); a park lives
//! [`crate::BridgeLimits::park_ttl`], after which its waiting legacy requests are answered (an
//! elicitation `cancel`, anything else an error) and its upstream call is cancelled.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use indexmap::IndexMap;
use mcp_wire::jsonrpc::{ErrorData, RequestId, codes};
use mcp_wire::model::{ClientResult, InputRequest};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio::time::Instant;

use crate::limits::Reason;
use crate::upstream::{LegHandle, Upstream};

/// The params members that are not part of what a token is bound to: the retry's own.
const UNBOUND_PARAMS: [&str; 3] = ["_meta", "inputResponses", "requestState"];

/// One legacy server→client request a parked call waits on, under its bridge-chosen key.
#[derive(Debug)]
pub(crate) struct Pending {
    /// The legacy request's id (the upstream's).
    pub id: RequestId,
    /// What it asks, as the client sees it.
    pub request: InputRequest,
}

/// A call in flight upstream whose server waits for client input.
pub(crate) struct Call {
    /// The legacy session it runs on.
    pub session: Arc<Upstream>,
    /// Its leg; dropping it cancels the call upstream.
    pub leg: LegHandle,
    /// The legacy requests waiting for answers, by key.
    pub pending: IndexMap<String, Pending>,
    /// A capability the client lacked when the server asked for it (answered -32601 to the
    /// server); an error of the call then becomes -32021 naming it.
    pub refused: Option<serde_json::Value>,
    /// Keys handed out so far (the next key's number).
    pub keys: usize,
    /// The last progress value forwarded (legs restart their counts).
    pub last_progress: Option<f64>,
    /// Answers the client sent with its first call, by key: a server question of the same
    /// key is answered with one at once.
    pub prefilled: IndexMap<String, mcp_wire::model::InputResponse>,
    /// The call went upstream task-augmented (2025-11-25 core tasks, for the tasks
    /// extension): its answer is a `CreateTaskResult`.
    pub augmented: bool,
    /// When a call not answered by then becomes a task the bridge hosts (the tasks
    /// extension, [`crate::BridgeLimits::host_tasks_after`]).
    pub promote_at: Option<tokio::time::Instant>,
}

impl Call {
    /// A call that has asked nothing yet.
    pub(crate) fn new(session: Arc<Upstream>, leg: LegHandle) -> Self {
        Self {
            session,
            leg,
            pending: IndexMap::new(),
            refused: None,
            keys: 0,
            last_progress: None,
            prefilled: IndexMap::new(),
            augmented: false,
            promote_at: None,
        }
    }

    /// A fresh key for an input request (unique within the call).
    pub(crate) fn next_key(&mut self, request: &InputRequest) -> String {
        self.keys += 1;
        let kind = match request {
            InputRequest::CreateMessage(_) => "sampling",
            InputRequest::ListRoots(_) => "roots",
            InputRequest::Elicit(_) => "elicitation",
            #[allow(unreachable_patterns)]
            _ => "input",
        };
        format!("{kind}-{}", self.keys)
    }
}

/// What a park holds: ended with [`Abandon::abandon`] when its park expires.
pub(crate) trait Abandon: Send + 'static {
    /// Ends the parked value, `why` saying why.
    fn abandon(self, why: &str);
}

impl Abandon for Call {
    /// Answers every waiting legacy request as a client that will never answer would (an
    /// elicitation `cancel`, anything else an error), then cancels the call upstream.
    fn abandon(mut self, why: &str) {
        let pending = std::mem::take(&mut self.pending);
        let session = self.session.clone();
        let why = why.to_owned();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                for (_, p) in pending {
                    session
                        .respond(p.id, abandoned_answer(&p.request, &why))
                        .await;
                }
                // The leg goes last: its cancel follows the answers.
                drop(self);
            });
        }
    }
}

/// What a never-answered input request gets when its park ends (B14).
pub(crate) fn abandoned_answer(
    request: &InputRequest,
    why: &str,
) -> Result<ClientResult, ErrorData> {
    match request {
        InputRequest::Elicit(_) => serde_json::from_value(json!({"action": "cancel"}))
            .map(ClientResult::Elicit)
            .map_err(|e| ErrorData::new(codes::INTERNAL_ERROR, e.to_string())),
        _ => Err(ErrorData::new(codes::INTERNAL_ERROR, why.to_owned())),
    }
}

struct Parked<T> {
    expires: Instant,
    call: T,
}

/// The parked calls of one bridge, and the key their tokens are signed with.
pub(crate) struct Parks<T = Call> {
    key: [u8; 32],
    epoch: String,
    next: AtomicU64,
    max: usize,
    ttl: Duration,
    table: Mutex<HashMap<u64, Parked<T>>>,
}

impl<T: Abandon> Parks<T> {
    /// An empty table: at most `max` parks, each living `ttl`; a random key and epoch.
    pub(crate) fn new(max: usize, ttl: Duration) -> Arc<Self> {
        let mut key = [0u8; 32];
        let mut epoch = [0u8; 8];
        if getrandom::fill(&mut key).is_err() || getrandom::fill(&mut epoch).is_err() {
            // No OS randomness: unique per process by time, still secret-free only in name.
            let t = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            key[..16].copy_from_slice(&t.to_le_bytes());
            epoch.copy_from_slice(&t.to_le_bytes()[..8]);
        }
        let parks = Arc::new(Self {
            key,
            epoch: URL_SAFE_NO_PAD.encode(epoch),
            next: AtomicU64::new(1),
            max,
            ttl,
            table: Mutex::new(HashMap::new()),
        });
        // The sweeper: expired parks end even when no request touches the table.
        let weak = Arc::downgrade(&parks);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let period = (ttl / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
            rt.spawn(async move {
                let mut tick = tokio::time::interval(period);
                loop {
                    tick.tick().await;
                    match weak.upgrade() {
                        Some(p) => p.sweep(),
                        None => break,
                    }
                }
            });
        }
        parks
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Parked<T>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many calls are parked.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Ends every expired park.
    pub(crate) fn sweep(&self) {
        let now = Instant::now();
        let expired: Vec<Parked<T>> = {
            let mut table = self.lock();
            let ids: Vec<u64> = table
                .iter()
                .filter(|(_, p)| p.expires <= now)
                .map(|(id, _)| *id)
                .collect();
            ids.into_iter().filter_map(|id| table.remove(&id)).collect()
        };
        for p in expired {
            p.call
                .abandon("the client did not retry the request in time");
        }
    }

    /// Parks `call` for `principal`'s `method` with params digest `digest`; the token.
    pub(crate) fn park(
        &self,
        principal: &str,
        method: &str,
        digest: &[u8; 32],
        call: T,
    ) -> Result<String, (ErrorData, T)> {
        self.sweep();
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let expires_at = unix_now() + self.ttl.as_secs().max(1);
        let payload = json!({"e": self.epoch, "p": id, "x": expires_at}).to_string();
        let payload = URL_SAFE_NO_PAD.encode(payload);
        let binding = self.binding(&payload, principal, method, digest);
        let token = format!("{payload}.{}", URL_SAFE_NO_PAD.encode(binding));
        let mut table = self.lock();
        if table.len() >= self.max {
            drop(table);
            return Err((
                Reason::LimitExceeded.error(
                    format!("{} calls are waiting for client input already", self.max),
                    None,
                    None,
                ),
                call,
            ));
        }
        table.insert(
            id,
            Parked {
                expires: Instant::now() + self.ttl,
                call,
            },
        );
        Ok(token)
    }

    /// The parked call `token` names, taken out of the table (single use), when the token is
    /// intact and bound to this `principal`, `method` and params `digest`.
    pub(crate) fn redeem(
        &self,
        token: &str,
        principal: &str,
        method: &str,
        digest: &[u8; 32],
    ) -> Result<T, ErrorData> {
        let refuse = |why: &str, extra: Value| {
            let mut data = json!({"requestState": why});
            if let (Some(d), Value::Object(extra)) = (data.as_object_mut(), extra) {
                d.extend(extra);
            }
            ErrorData::new(codes::INVALID_PARAMS, format!("requestState {why}")).with_data(data)
        };
        let Some((payload, tag)) = token.split_once('.') else {
            return Err(refuse("is malformed", json!({})));
        };
        let fields: Option<Map<String, Value>> = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let Some(fields) = fields else {
            return Err(refuse("is malformed", json!({})));
        };
        if fields.get("e").and_then(Value::as_str) != Some(self.epoch.as_str()) {
            return Err(refuse(
                "was issued before the bridge restarted",
                json!({"restarted": true}),
            ));
        }
        let sent = URL_SAFE_NO_PAD.decode(tag).unwrap_or_default();
        let mut mac = self.mac();
        mac.update(&binding_input(payload, principal, method, digest));
        if mac.verify_slice(&sent).is_err() {
            return Err(refuse(
                "failed its integrity check, or belongs to another request",
                json!({}),
            ));
        }
        let id = fields.get("p").and_then(Value::as_u64).unwrap_or(0);
        let expired = fields
            .get("x")
            .and_then(Value::as_u64)
            .is_none_or(|x| x < unix_now());
        let parked = self.lock().remove(&id);
        match parked {
            Some(p) if expired || p.expires <= Instant::now() => {
                p.call.abandon("the client retried too late");
                Err(refuse("has expired", json!({})))
            }
            Some(p) => Ok(p.call),
            None if expired => Err(refuse("has expired", json!({}))),
            None => Err(refuse("was already used", json!({}))),
        }
    }

    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"))
    }

    fn binding(&self, payload: &str, principal: &str, method: &str, digest: &[u8; 32]) -> [u8; 32] {
        let mut mac = self.mac();
        mac.update(&binding_input(payload, principal, method, digest));
        mac.finalize().into_bytes().into()
    }
}

/// What a token's tag covers, each part length-prefixed so that no two inputs run together.
fn binding_input(payload: &str, principal: &str, method: &str, digest: &[u8; 32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + principal.len() + method.len() + 64);
    for part in [
        payload.as_bytes(),
        principal.as_bytes(),
        method.as_bytes(),
        digest,
    ] {
        out.extend_from_slice(&(part.len() as u64).to_be_bytes());
        out.extend_from_slice(part);
    }
    out
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The SHA-256 of a call's params as the token binds them: without the retry's own members
/// ([`UNBOUND_PARAMS`]), object keys sorted at every depth.
pub(crate) fn params_digest(params: Option<&Value>) -> [u8; 32] {
    let mut bound = match params {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for key in UNBOUND_PARAMS {
        bound.shift_remove(key);
    }
    let mut text = String::new();
    canonical(&Value::Object(bound), &mut text);
    Sha256::digest(text.as_bytes()).into()
}

/// JSON text with object keys sorted (so member order does not change a digest).
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_ignore_member_order_and_the_retrys_own_members() {
        let a = json!({"name": "t", "arguments": {"x": 1, "y": [1, {"b": 2, "a": 1}]}});
        let b = json!({"arguments": {"y": [1, {"a": 1, "b": 2}], "x": 1}, "name": "t",
            "requestState": "s", "inputResponses": {"k": {}}, "_meta": {"m": 1}});
        assert_eq!(params_digest(Some(&a)), params_digest(Some(&b)));
        let c = json!({"name": "t", "arguments": {"x": 2, "y": [1, {"a": 1, "b": 2}]}});
        assert_ne!(params_digest(Some(&a)), params_digest(Some(&c)));
        assert_ne!(
            params_digest(Some(&json!({"y": [1, 2]}))),
            params_digest(Some(&json!({"y": [2, 1]})))
        );
    }

    /// A parked value that records how it ended.
    struct Probe(Arc<Mutex<Vec<String>>>);

    impl Abandon for Probe {
        fn abandon(self, why: &str) {
            self.0.lock().unwrap().push(why.to_owned());
        }
    }

    fn reason_of(e: &ErrorData) -> String {
        e.data.as_ref().unwrap()["requestState"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[tokio::test]
    async fn a_token_redeems_once_and_only_for_its_principal_method_and_params() {
        let parks: Arc<Parks<Probe>> = Parks::new(4, Duration::from_secs(300));
        let log = Arc::new(Mutex::new(Vec::new()));
        let digest = params_digest(Some(&json!({"name": "t"})));
        let token = parks
            .park("alice", "tools/call", &digest, Probe(log.clone()))
            .unwrap_or_else(|_| panic!("parks"));
        let other = params_digest(Some(&json!({"name": "u"})));
        for (principal, method, d) in [
            ("bob", "tools/call", &digest),
            ("alice", "prompts/get", &digest),
            ("alice", "tools/call", &other),
        ] {
            let e = parks.redeem(&token, principal, method, d).err().unwrap();
            assert_eq!(e.code, -32602);
            assert!(reason_of(&e).contains("integrity"), "{e:?}");
        }
        let mut tampered = token.clone();
        tampered.push_str("-TAMPERED");
        let e = parks
            .redeem(&tampered, "alice", "tools/call", &digest)
            .err()
            .unwrap();
        assert!(reason_of(&e).contains("integrity"));
        assert_eq!(parks.len(), 1, "failed redemptions leave the park in place");
        assert!(parks.redeem(&token, "alice", "tools/call", &digest).is_ok());
        let e = parks
            .redeem(&token, "alice", "tools/call", &digest)
            .err()
            .unwrap();
        assert_eq!(reason_of(&e), "was already used");
        assert!(log.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn tokens_of_another_process_say_so_and_garbage_is_malformed() {
        let a: Arc<Parks<Probe>> = Parks::new(4, Duration::from_secs(300));
        let b: Arc<Parks<Probe>> = Parks::new(4, Duration::from_secs(300));
        let d = params_digest(None);
        let token = a
            .park("p", "tools/call", &d, Probe(Arc::default()))
            .unwrap_or_else(|_| panic!("parks"));
        let e = b.redeem(&token, "p", "tools/call", &d).err().unwrap();
        assert_eq!(e.data.unwrap()["restarted"], true);
        for junk in ["", "no-dot", "a.b", "!!.??"] {
            let e = a.redeem(junk, "p", "tools/call", &d).err().unwrap();
            assert_eq!(e.code, -32602, "{junk:?}");
        }
    }

    #[tokio::test]
    async fn the_table_is_bounded_and_expired_parks_are_abandoned() {
        let parks: Arc<Parks<Probe>> = Parks::new(2, Duration::from_millis(200));
        let log = Arc::new(Mutex::new(Vec::new()));
        let d = params_digest(None);
        let first = parks
            .park("p", "tools/call", &d, Probe(log.clone()))
            .unwrap_or_else(|_| panic!("parks"));
        let _second = parks
            .park("p", "tools/call", &d, Probe(log.clone()))
            .unwrap_or_else(|_| panic!("parks"));
        let (e, _) = parks
            .park("p", "tools/call", &d, Probe(log.clone()))
            .err()
            .unwrap();
        assert_eq!(e.data.unwrap()["reason"], "limit_exceeded");
        tokio::time::sleep(Duration::from_millis(1300)).await;
        assert_eq!(parks.len(), 0, "the sweeper ended both");
        assert_eq!(
            log.lock().unwrap().len(),
            2,
            "both expired parks were abandoned"
        );
        let e = parks.redeem(&first, "p", "tools/call", &d).err().unwrap();
        assert_eq!(e.code, -32602);
    }

    #[test]
    fn length_prefixes_keep_the_bound_parts_apart() {
        let d = [0u8; 32];
        assert_ne!(
            binding_input("p", "ab", "c", &d),
            binding_input("p", "a", "bc", &d)
        );
    }
}
