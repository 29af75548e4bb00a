//! Direction A's subscriptions (A8–A10): a 2026-07-28 server pushes list changes
//! and resource updates only on a `subscriptions/listen` stream, so the bridge keeps one
//! stream upstream for all its legacy clients, its filter the list changes the server offers
//! plus every URI some client subscribed to (reference-counted). Filters cannot be edited:
//! a change opens the new stream, waits for its acknowledgement, then cancels the old one
//! (Q13). A stream the server ends is reopened after [`REOPEN_AFTER`], at most
//! [`SHORT_STREAMS`] times in a row when each lasted less than [`SHORT_STREAM`].
//! The notifications themselves reach the clients through the runtime's notifier
//! (`Upstream::route_notification`): list changes to every session, updates to the sessions
//! that subscribed to the URI.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::meta::keys;
use mcp_wire::model::{ServerCapabilities, SubscriptionFilter};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::limits::Reason;
use crate::upstream::{LegEvent, LegHandle, Upstream, bridge_info, client_request};

/// How long the bridge waits for a listen stream's acknowledgement.
const ACK_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause before a stream the server ended is reopened.
const REOPEN_AFTER: Duration = Duration::from_secs(2);
/// A stream shorter than this counts as short.
const SHORT_STREAM: Duration = Duration::from_secs(30);
/// Consecutive short streams after which the bridge stops reopening.
const SHORT_STREAMS: u32 = 5;
/// URIs one listen stream carries.
const MAX_URIS: usize = 256;

/// The one upstream listen stream and the URIs it carries.
pub(crate) struct Listener {
    upstream: Arc<Upstream>,
    /// The list changes the server offers (asked for on every stream).
    lists: SubscriptionFilter,
    state: tokio::sync::Mutex<ListenState>,
}

#[derive(Default)]
struct ListenState {
    /// Subscribed URIs and how many client subscriptions hold each.
    uris: BTreeMap<String, usize>,
    /// The task owning the current stream (its leg); aborting it cancels the stream.
    owner: Option<tokio::task::JoinHandle<()>>,
    /// Bumped per stream: an owner whose stream was superseded does not reopen.
    generation: u64,
}

impl Listener {
    /// A listener for a server with `capabilities`; `None` when it offers nothing to listen to.
    pub(crate) fn new(
        upstream: Arc<Upstream>,
        capabilities: &ServerCapabilities,
    ) -> Option<Arc<Self>> {
        let caps = serde_json::to_value(capabilities).unwrap_or(Value::Null);
        let flag =
            |area: &str, key: &str| caps.pointer(&format!("/{area}/{key}")) == Some(&json!(true));
        let mut lists = SubscriptionFilter::new();
        lists.tools_list_changed = flag("tools", "listChanged").then_some(true);
        lists.prompts_list_changed = flag("prompts", "listChanged").then_some(true);
        lists.resources_list_changed = flag("resources", "listChanged").then_some(true);
        let subscribe = flag("resources", "subscribe");
        if lists.tools_list_changed.is_none()
            && lists.prompts_list_changed.is_none()
            && lists.resources_list_changed.is_none()
            && !subscribe
        {
            return None;
        }
        Some(Arc::new(Self {
            upstream,
            lists,
            state: tokio::sync::Mutex::new(ListenState::default()),
        }))
    }

    /// Opens the first stream (list changes only).
    pub(crate) async fn start(self: &Arc<Self>) -> Result<(), ErrorData> {
        let mut st = self.state.lock().await;
        self.reopen(&mut st).await
    }

    /// Adds a client subscription to `uri`; `Ok` once the server acknowledged a stream
    /// carrying it.
    pub(crate) async fn subscribe(self: &Arc<Self>, uri: &str) -> Result<(), ErrorData> {
        let mut st = self.state.lock().await;
        if let Some(count) = st.uris.get_mut(uri) {
            *count += 1;
            return Ok(());
        }
        if st.uris.len() >= MAX_URIS {
            return Err(Reason::LimitExceeded.error(
                format!("the bridge carries at most {MAX_URIS} subscribed URIs"),
                None,
                None,
            ));
        }
        st.uris.insert(uri.to_owned(), 1);
        let opened = self.reopen(&mut st).await;
        if opened.is_err() {
            st.uris.remove(uri);
        }
        opened
    }

    /// Drops a client subscription to `uri` (an unknown one is fine); the stream is replaced
    /// when no client holds the URI any more.
    pub(crate) async fn unsubscribe(self: &Arc<Self>, uri: &str) -> Result<(), ErrorData> {
        let mut st = self.state.lock().await;
        match st.uris.get_mut(uri) {
            Some(count) if *count > 1 => {
                *count -= 1;
                Ok(())
            }
            Some(_) => {
                st.uris.remove(uri);
                self.reopen(&mut st).await
            }
            None => Ok(()),
        }
    }

    fn filter(&self, st: &ListenState) -> SubscriptionFilter {
        let mut filter = self.lists.clone();
        if !st.uris.is_empty() {
            filter.resource_subscriptions = Some(st.uris.keys().cloned().collect());
        }
        filter
    }

    /// Opens a stream with the current filter, waits for its acknowledgement, then replaces
    /// the old stream with it.
    async fn reopen(self: &Arc<Self>, st: &mut ListenState) -> Result<(), ErrorData> {
        let filter = self.filter(st);
        let mut leg = self.open(&filter).await?;
        let acked = tokio::time::timeout(ACK_TIMEOUT, async {
            loop {
                match leg.next().await {
                    Some(LegEvent::Ack(ack)) => return Ok(ack),
                    Some(LegEvent::Done(Err(e))) => {
                        leg.finished = true;
                        return Err(e);
                    }
                    Some(LegEvent::Done(Ok(_))) | None => {
                        leg.finished = true;
                        return Err(Reason::NotAcknowledged.error(
                            "the listen stream ended before its acknowledgement",
                            None,
                            None,
                        ));
                    }
                    Some(_) => {}
                }
            }
        })
        .await
        .unwrap_or_else(|_| {
            Err(Reason::NotAcknowledged.error("no acknowledgement in time", None, None))
        })?;
        let wanted = filter.resource_subscriptions.unwrap_or_default();
        let granted = acked.resource_subscriptions.unwrap_or_default();
        if let Some(missing) = wanted.iter().find(|u| !granted.contains(u)) {
            return Err(Reason::NotAcknowledged.error(
                format!("the server did not acknowledge a subscription to {missing}"),
                None,
                Some(json!({"uri": missing})),
            ));
        }
        st.generation += 1;
        let generation = st.generation;
        if let Some(old) = st.owner.take() {
            // Dropping the old leg cancels that stream upstream.
            old.abort();
        }
        st.owner = Some(tokio::spawn(own(Arc::downgrade(self), leg, generation)));
        Ok(())
    }

    async fn open(&self, filter: &SubscriptionFilter) -> Result<LegHandle, ErrorData> {
        let request = client_request(json!({
            "method": "subscriptions/listen",
            "params": {
                "notifications": filter,
                "_meta": {
                    keys::PROTOCOL_VERSION: "2026-07-28",
                    keys::CLIENT_CAPABILITIES: {},
                    keys::CLIENT_INFO: bridge_info(),
                }
            }
        }))?;
        let id = self.upstream.reserve_id();
        self.upstream.start_leg(id, request, None).await
    }
}

/// Owns one acknowledged stream until it ends, then reopens it (unless superseded or too
/// many short streams in a row).
async fn own(listener: Weak<Listener>, mut leg: LegHandle, generation: u64) {
    let mut short = 0u32;
    loop {
        let opened = Instant::now();
        while let Some(event) = leg.next().await {
            if let LegEvent::Done(_) = event {
                leg.finished = true;
                break;
            }
        }
        leg.finished = true;
        short = if opened.elapsed() < SHORT_STREAM {
            short + 1
        } else {
            0
        };
        if short >= SHORT_STREAMS {
            return;
        }
        tokio::time::sleep(REOPEN_AFTER).await;
        let Some(l) = listener.upgrade() else { return };
        let st = l.state.lock().await;
        if st.generation != generation {
            return;
        }
        let filter = l.filter(&st);
        drop(st);
        match l.open(&filter).await {
            Ok(next) => leg = next,
            Err(_) => return,
        }
    }
}
