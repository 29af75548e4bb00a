//! Server-wide changes (list changes, resource updates) broadcast to every listening client:
//! handshake-era sessions' GET streams and 2026-07-28 `subscriptions/listen` streams.

use mcp_wire::model::{
    ServerNotification, SubscriptionFilter, SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
};
use serde_json::Value;
use tokio::sync::broadcast;

use super::session::Session;
use mcp_wire::model::meta::keys;

/// One change a server announces.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// A resource changed (delivered to clients subscribed to its URI).
    ResourceUpdated(String),
    /// The inner change, for 2026-07-28 `subscriptions/listen` streams only (handshake-era
    /// sessions do not receive it): how a front server that tells its sessions about an inner
    /// server's changes itself (tagged, per session) reaches its plain 2026-07-28 clients.
    StatelessOnly(Box<Change>),
}

/// Announces [`Change`]s; cloneable. Slow listeners miss changes rather than grow a queue.
#[derive(Debug, Clone)]
pub struct Notifier {
    tx: broadcast::Sender<Change>,
    /// With replicas: where the announced changes go to reach the others.
    outward: Option<tokio::sync::mpsc::Sender<Change>>,
}

impl Notifier {
    /// A notifier whose listeners lag behind by at most `capacity` changes.
    pub fn new(capacity: usize) -> Self {
        Self {
            tx: broadcast::channel(capacity.max(1)).0,
            outward: None,
        }
    }

    /// The same notifier, its announcements also sent to `outward` (the other replicas).
    pub(crate) fn with_outward(mut self, outward: tokio::sync::mpsc::Sender<Change>) -> Self {
        self.outward = Some(outward);
        self
    }

    /// Announces `change` to every current listener (of every replica).
    pub fn announce(&self, change: Change) {
        if let Some(outward) = &self.outward
            && outward.try_send(change.clone()).is_err()
        {
            crate::telemetry::limit_hit("change_backlog");
        }
        self.announce_here(change);
    }

    /// Announces `change` to the listeners of this process only.
    pub(crate) fn announce_here(&self, change: Change) {
        // No listener is fine.
        let _ = self.tx.send(change);
    }

    /// A new listener.
    pub(crate) fn listen(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// A new listener outside the runtime (e.g. a front server relaying an inner server's
    /// changes); it sees the changes announced from now on and may lag behind (then it misses
    /// the oldest).
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.listen()
    }
}

/// `n` tagged with the listen request's id in `params._meta` (2026-07-28 listen streams). A
/// listen stream carries its acknowledgement ([`listen_ack`]) and change notifications
/// ([`change_notification`]): those members are tagged; any other passes as it is.
pub(crate) fn tag_subscription(mut n: ServerNotification, id: &Value) -> ServerNotification {
    use mcp_wire::model::NotificationParams;
    let meta = match &mut n {
        ServerNotification::ToolListChanged(x) => {
            &mut x.params.get_or_insert_with(NotificationParams::new).meta
        }
        ServerNotification::PromptListChanged(x) => {
            &mut x.params.get_or_insert_with(NotificationParams::new).meta
        }
        ServerNotification::ResourceListChanged(x) => {
            &mut x.params.get_or_insert_with(NotificationParams::new).meta
        }
        ServerNotification::ResourceUpdated(x) => &mut x.params.meta,
        ServerNotification::SubscriptionsAcknowledged(x) => &mut x.params.meta,
        _ => return n,
    };
    meta.get_or_insert_with(Default::default)
        .insert(keys::SUBSCRIPTION_ID.to_owned(), id.clone());
    n
}

/// The acknowledgement that opens a listen stream.
pub(crate) fn listen_ack(filter: &SubscriptionFilter, id: &Value) -> ServerNotification {
    tag_subscription(
        ServerNotification::SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification::new(
            SubscriptionsAcknowledgedNotificationParams::new(filter.clone()),
        )),
        id,
    )
}

/// The notification announcing `change`, if `filter` asks for it.
pub(crate) fn change_notification(
    change: &Change,
    filter: &SubscriptionFilter,
) -> Option<ServerNotification> {
    use mcp_wire::model::{
        PromptListChangedNotification, ResourceListChangedNotification,
        ResourceUpdatedNotification, ResourceUpdatedNotificationParams,
        ToolListChangedNotification,
    };
    let on = |flag: Option<bool>| flag == Some(true);
    match change {
        Change::StatelessOnly(inner) => change_notification(inner, filter),
        Change::ToolsListChanged if on(filter.tools_list_changed) => Some(
            ServerNotification::ToolListChanged(ToolListChangedNotification::new()),
        ),
        Change::PromptsListChanged if on(filter.prompts_list_changed) => Some(
            ServerNotification::PromptListChanged(PromptListChangedNotification::new()),
        ),
        Change::ResourcesListChanged if on(filter.resources_list_changed) => Some(
            ServerNotification::ResourceListChanged(ResourceListChangedNotification::new()),
        ),
        Change::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|s| s.iter().any(|u| u == uri)) =>
        {
            Some(ServerNotification::ResourceUpdated(
                ResourceUpdatedNotification::new(ResourceUpdatedNotificationParams::new(
                    uri.clone(),
                )),
            ))
        }
        _ => None,
    }
}

/// The handshake-era change notifications a session receives on its standalone stream.
pub(crate) fn session_change(change: &Change, session: &Session) -> Option<ServerNotification> {
    if matches!(change, Change::StatelessOnly(_)) {
        return None;
    }
    let mut all = SubscriptionFilter::new();
    all.tools_list_changed = Some(true);
    all.prompts_list_changed = Some(true);
    all.resources_list_changed = Some(true);
    all.resource_subscriptions = match change {
        Change::ResourceUpdated(uri) if session.is_subscribed(uri) => Some(vec![uri.clone()]),
        _ => None,
    };
    change_notification(change, &all)
}
