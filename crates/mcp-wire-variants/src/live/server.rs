//! [`VariantServer`]: the front server, its builder, the backend and provider traits.

use std::collections::HashMap;
use std::future::Future;
use std::hash::BuildHasher;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{
    ClientRequest, Implementation, InitializeResult, ServerCapabilities, ServerNotification,
    ServerResult,
};
use mcp_wire_transport::server::store::Store;
use mcp_wire_transport::server::{
    Change, Handler, HandlerError, HandlerResult, Intercepted, Notifier, RequestContext, Server,
    ServerConfig, SessionHandle,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::catalog::{
    AdvertisePolicy, CatalogError, PrincipalKey, VariantCatalog, VariantCatalogBuilder,
};
use crate::error::{INVALID_PARAMS, MSG_RESOURCE_UNAVAILABLE, VariantError};
use crate::methods::{RESOURCE_UPDATED, ScopedMethod};
use crate::router::{
    Dispatch, InitializeInput, RequestView, RouteDecision, RoutedNotification, SessionSnapshot,
    VariantRouter, VariantSession,
};
use crate::wire::{HTTP_HEADER, META_KEY, ServerVariant, VariantId};

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// An inner server a variant dispatches to: the object-safe face of a transport
/// [`Server`] (implemented for every `Arc<Server<H>>`), so variants of different handler
/// types sit in one catalog.
pub trait Backend: Send + Sync + 'static {
    /// Answers one typed request as the inner server would (see [`Server::handle`]).
    fn handle(
        &self,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> BoxFuture<HandlerResult<ServerResult>>;

    /// The capabilities the inner server advertises.
    fn capabilities(&self) -> ServerCapabilities;

    /// Where the inner server's handler announces its changes.
    fn notifier(&self) -> Notifier;
}

impl<H: Handler> Backend for Arc<Server<H>> {
    fn handle(
        &self,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> BoxFuture<HandlerResult<ServerResult>> {
        let server = Arc::clone(self);
        Box::pin(async move { server.handle(ctx, request).await })
    }

    fn capabilities(&self) -> ServerCapabilities {
        self.handler().capabilities()
    }

    fn notifier(&self) -> Notifier {
        Server::notifier(self).clone()
    }
}

/// One event on a subscription's update stream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceUpdate {
    /// The resource changed: the client gets `notifications/resources/updated`, tagged.
    Updated,
    /// The resource left the variant: the client gets a last tagged
    /// `notifications/resources/updated`, then a tagged `notifications/resources/list_changed`;
    /// the subscription is tombstoned (unsubscribe still succeeds) and its stream closed.
    Gone,
}

/// The source of resource updates: one stream per subscribed (variant, uri), opened by
/// `resources/subscribe` and closed (dropped) by `resources/unsubscribe`, DELETE, idle expiry
/// or a disconnect.
pub trait SubscriptionProvider: Send + Sync + 'static {
    /// The updates of `uri` in `variant`, until the stream ends or is dropped.
    fn open(&self, variant: &VariantId, uri: &str) -> BoxStream<'static, ResourceUpdate>;
}

/// Why a [`VariantServer`] cannot be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LiveConfigError {
    /// The catalog is invalid.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The transport offers no revision the extension exists at (it needs `initialize` and a
    /// session: 2024-11-05 … 2025-11-25).
    #[error(
        "server variants need a handshake revision (2024-11-05 … 2025-11-25) the catalog allows, but the server offers only {0:?}"
    )]
    NoHandshakeRevision(Vec<ProtocolVersion>),
}

/// Builds a [`VariantServer`].
pub struct VariantServerBuilder {
    catalog: VariantCatalogBuilder<usize>,
    backends: Vec<Arc<dyn Backend>>,
    info: Implementation,
    instructions: Option<String>,
    page_size: Option<usize>,
    provider: Option<Arc<dyn SubscriptionProvider>>,
}

impl VariantServerBuilder {
    /// Registers a variant served by `handler` (wrapped in an inner [`Server`] of its own,
    /// which never listens: it only answers what the front hands it).
    pub fn variant(self, variant: ServerVariant, priority: i32, handler: impl Handler) -> Self {
        let server = Server::new(handler, ServerConfig::default());
        self.variant_backend(variant, priority, Arc::new(server))
    }

    /// Registers a variant served by an existing server.
    pub fn variant_server<H: Handler>(
        self,
        variant: ServerVariant,
        priority: i32,
        server: Arc<Server<H>>,
    ) -> Self {
        self.variant_backend(variant, priority, Arc::new(server))
    }

    /// Registers a variant served by any [`Backend`].
    pub fn variant_backend(
        mut self,
        variant: ServerVariant,
        priority: i32,
        backend: Arc<dyn Backend>,
    ) -> Self {
        let index = self.backends.len();
        self.backends.push(backend);
        self.catalog = self.catalog.variant(variant, priority, index);
        self
    }

    /// Configures the catalog: ranker, visibility, discovery limit, advertise policy, cursor
    /// key (required), protocols, … (see [`VariantCatalogBuilder`]).
    pub fn catalog(
        mut self,
        configure: impl FnOnce(VariantCatalogBuilder<usize>) -> VariantCatalogBuilder<usize>,
    ) -> Self {
        self.catalog = configure(self.catalog);
        self
    }

    /// Instructions for the model (`initialize`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Pages list results at the front, `size` items a page, with variant-bound cursors
    /// (default: one page, as the backend answers).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// The source of resource updates for subscriptions.
    pub fn provider(mut self, provider: impl SubscriptionProvider) -> Self {
        self.provider = Some(Arc::new(provider));
        self
    }

    /// Checks the catalog and builds the server.
    pub fn build(self) -> Result<VariantServer, LiveConfigError> {
        let catalog = self.catalog.build()?;
        let capabilities = union_capabilities(self.backends.iter().map(|b| b.capabilities()));
        let ids = catalog.variants().map(|v| v.id.clone()).collect();
        let stateless_default = catalog
            .rank(None, &PrincipalKey::anonymous())
            .ok()
            .and_then(|r| r.ids.into_iter().next());
        Ok(VariantServer {
            inner: Arc::new(Inner {
                router: VariantRouter::new(catalog),
                backends: self.backends,
                ids,
                info: self.info,
                capabilities,
                instructions: self.instructions,
                page_size: self.page_size,
                provider: self.provider,
                sessions: Mutex::new(HashMap::new()),
                relays: OnceLock::new(),
                open_streams: Arc::new(AtomicUsize::new(0)),
                front_notifier: OnceLock::new(),
                stateless_default,
                shared: OnceLock::new(),
            }),
        })
    }
}

/// The variant-aware front server: a [`Handler`] for the transport runtime (see the module
/// docs). Serve it with [`VariantServer::into_server`].
pub struct VariantServer {
    inner: Arc<Inner>,
}

struct Inner {
    router: VariantRouter<usize>,
    backends: Vec<Arc<dyn Backend>>,
    /// Variant id by backend index (registration order).
    ids: Vec<VariantId>,
    info: Implementation,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    page_size: Option<usize>,
    provider: Option<Arc<dyn SubscriptionProvider>>,
    sessions: Mutex<HashMap<String, Arc<LiveSession>>>,
    /// The tasks relaying each backend's changes (started with the first session).
    relays: OnceLock<()>,
    /// Provider streams open now.
    open_streams: Arc<AtomicUsize>,
    /// The front server's own notifier (what its 2026-07-28 listen streams hear), learnt from
    /// the first request's context.
    front_notifier: OnceLock<Notifier>,
    /// The variant that serves 2026-07-28 clients: the first-ranked stable one without hints.
    stateless_default: Option<VariantId>,
    /// The store shared with the other replicas (set from the transport's configuration).
    shared: OnceLock<Shared>,
}

/// What replicas of one variant server share (the transport's store, `ServerConfig::store`):
/// - each session's [`SessionSnapshot`] under [`snapshot_key`], expiring after the session's
///   idle limit, which every request of the session moves; the replica that negotiates a
///   session writes it, every replica reads it before routing and writes it back when a
///   subscription changes;
/// - on the bus ([`BUS`]): the notifications a provider stream produces (the stream runs on
///   the replica that accepted `resources/subscribe`; the session's standalone stream may be
///   held by any replica) and the end of a subscription unsubscribed elsewhere.
struct Shared {
    store: Arc<dyn Store>,
    /// How long a snapshot lives without a request of its session.
    idle: std::time::Duration,
    /// This process, on the bus (random).
    replica: u64,
    /// The bus listener (started with the first session).
    listening: OnceLock<()>,
}

/// The bus channel of variant servers.
const BUS: &str = "mcp-wire-variants:bus";

/// Where the snapshot of session `id` is kept.
fn snapshot_key(id: &str) -> String {
    format!("mcp-wire-variants:session:{id}")
}

/// A notification as the bus carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SharedNotification {
    method: String,
    params: Option<Value>,
}

/// What the bus carries between replicas.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t")]
enum BusMessage {
    /// Notifications for `session`'s standalone stream.
    Notify {
        from: u64,
        session: String,
        notifications: Vec<SharedNotification>,
    },
    /// The subscription (variant, uri) of `session` ended: its provider stream closes.
    Unsubscribed {
        from: u64,
        session: String,
        variant: VariantId,
        uri: String,
    },
}

impl BusMessage {
    fn from(&self) -> u64 {
        match self {
            Self::Notify { from, .. } | Self::Unsubscribed { from, .. } => *from,
        }
    }
}

/// One negotiated session.
struct LiveSession {
    state: Mutex<VariantSession<usize>>,
    /// The session id.
    id: String,
    /// The transport's copies of the session in this process (one, but two for a moment when
    /// two requests restore it at once and the runtime keeps one): notifications go to each
    /// that is live.
    handles: Mutex<Vec<SessionHandle>>,
    /// The provider stream of each live subscription.
    streams: Mutex<HashMap<(VariantId, String), tokio::task::AbortHandle>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A variant refusal as the handler's error (logged at `debug` with its code; never the
/// request's cursor or `_meta`).
fn rpc(error: &VariantError) -> HandlerError {
    let data = error.to_error_data();
    tracing::debug!(code = data.code, %error, "variant refused");
    HandlerError::Rpc(data)
}

/// The router's principal for the transport's.
fn principal_of(p: &mcp_wire_transport::server::Principal) -> PrincipalKey {
    PrincipalKey::new(&**p.key())
}

/// Now, in unix seconds (cursor expiry).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The request's params as JSON.
fn params_of(request: &ClientRequest) -> Option<Value> {
    serde_json::to_value(request)
        .ok()
        .and_then(|mut v| v.get_mut("params").map(Value::take))
}

/// A typed request from a method and params.
fn typed_request(method: &str, params: Value) -> Result<ClientRequest, HandlerError> {
    serde_json::from_value(json!({"method": method, "params": params}))
        .map_err(|e| HandlerError::invalid_params(format!("{method}: {e}")))
}

impl VariantServer {
    /// Starts a server.
    pub fn builder(info: Implementation) -> VariantServerBuilder {
        VariantServerBuilder {
            // The Go plan's backward compatibility: a client without the payload sees a plain
            // server (no `availableVariants`); `catalog(|c| c.advertise(Always))` changes it.
            catalog: VariantCatalog::builder().advertise(AdvertisePolicy::WhenClientOptsIn),
            backends: Vec::new(),
            info,
            instructions: None,
            page_size: None,
            provider: None,
        }
    }

    /// The transport server for this front, set up by `config`. Refused when `config` offers
    /// no revision the extension exists at (e.g. only 2026-07-28): variants are legacy-only.
    pub fn into_server(
        self,
        config: ServerConfig,
    ) -> Result<Arc<Server<VariantServer>>, LiveConfigError> {
        let catalog = self.inner.router.catalog();
        if !config.revisions.iter().any(|v| catalog.is_enabled_for(*v)) {
            return Err(LiveConfigError::NoHandshakeRevision(config.revisions));
        }
        if let Some(store) = &config.store {
            // Keyed from the OS's randomness: distinct per process.
            let replica =
                std::collections::hash_map::RandomState::new().hash_one(std::process::id());
            let _ = self.inner.shared.set(Shared {
                store: Arc::clone(store.store()),
                idle: config.limits.session_idle,
                replica,
                listening: OnceLock::new(),
            });
        }
        Ok(Server::new(self, config))
    }

    /// The catalog.
    pub fn catalog(&self) -> &VariantCatalog<usize> {
        self.inner.router.catalog()
    }

    /// How many negotiated sessions are live.
    pub fn session_count(&self) -> usize {
        lock(&self.inner.sessions).len()
    }

    /// How many provider streams are open now (one per live subscription with a provider).
    pub fn open_subscription_streams(&self) -> usize {
        self.inner.open_streams.load(Ordering::Acquire)
    }

    /// The variants a live session may select, default first.
    pub fn session_variants(&self, session_id: &str) -> Option<Vec<VariantId>> {
        let live = lock(&self.inner.sessions).get(session_id).cloned()?;
        let state = lock(&live.state);
        Some(state.available_variants().to_vec())
    }
}

impl Handler for VariantServer {
    fn server_info(&self) -> Implementation {
        self.inner.info.clone()
    }

    fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities.clone()
    }

    fn instructions(&self) -> Option<String> {
        self.inner.instructions.clone()
    }

    fn session_started(
        &self,
        session: &SessionHandle,
        result: &mut InitializeResult,
    ) -> Result<(), ErrorData> {
        self.inner.start_relays();
        let input = InitializeInput::from_capabilities(
            session.revision().as_str(),
            session.client_capabilities(),
        )
        .with_principal(principal_of(session.principal()))
        .with_session_tag(session.id());
        let negotiated = self
            .inner
            .router
            .initialize(input)
            .map_err(|e| e.to_error_data())?;
        if let Some(advertisement) = &negotiated.advertisement {
            advertisement.apply_to_capabilities(&mut result.capabilities);
        }
        let live = {
            let mut sessions = lock(&self.inner.sessions);
            if let Some(existing) = sessions.get(session.id()) {
                // Another copy of a session restored here: its state is the one in use.
                existing.add_handle(session.clone());
                return Ok(());
            }
            let live = Arc::new(LiveSession {
                state: Mutex::new(negotiated.session),
                id: session.id().to_owned(),
                handles: Mutex::new(vec![session.clone()]),
                streams: Mutex::new(HashMap::new()),
            });
            sessions.insert(session.id().to_owned(), Arc::clone(&live));
            live
        };
        if self.inner.shared.get().is_some() {
            // The negotiating replica writes the snapshot; a replica restoring the session
            // finds one there already (it adopts it before each request).
            let inner = Arc::clone(&self.inner);
            tokio::spawn(async move { inner.share_if_absent(&live).await });
        }
        Ok(())
    }

    fn session_ended(&self, session_id: &str) {
        let live = lock(&self.inner.sessions).remove(session_id);
        if let Some(live) = live {
            lock(&live.state).close();
            for (_, task) in lock(&live.streams).drain() {
                task.abort();
            }
        }
    }

    async fn intercept(&self, ctx: RequestContext, request: ClientRequest) -> Intercepted {
        let inner = Arc::clone(&self.inner);
        inner.intercept(ctx, request).await
    }
}

impl Inner {
    fn backend(&self, index: usize) -> Arc<dyn Backend> {
        Arc::clone(&self.backends[index])
    }

    fn session(&self, id: &str) -> Option<Arc<LiveSession>> {
        lock(&self.sessions).get(id).cloned()
    }

    async fn intercept(
        self: Arc<Self>,
        ctx: RequestContext,
        request: ClientRequest,
    ) -> Intercepted {
        self.front_notifier.get_or_init(|| ctx.notifier().clone());
        self.start_relays();
        let method = request.method().to_owned();
        let params = params_of(&request);
        let header = ctx.header(HTTP_HEADER).map(str::to_owned);
        let session = ctx.session_id().and_then(|id| self.session(id));
        let Some(live) = session else {
            if ctx.revision().era() == mcp_wire::Era::Handshake {
                // A handshake-era request without a negotiated session (cannot happen on the
                // runtime's transports, which negotiate at `initialize`).
                return Intercepted::Answered(Err(rpc(&VariantError::UnknownSession)));
            }
            return self.sessionless(ctx, request, params, header).await;
        };
        if let Err(e) = self
            .sync_shared(ctx.session_id().unwrap_or_default(), &live)
            .await
        {
            return Intercepted::Answered(Err(e));
        }
        let principal = principal_of(ctx.principal());
        let decision = {
            let state = lock(&live.state);
            let view = RequestView::new(&method, params.as_ref(), &principal)
                .with_header(header.as_deref())
                .with_now(unix_now());
            state.route(&view)
        };
        match decision {
            RouteDecision::Passthrough => Intercepted::Continue(ctx, request),
            RouteDecision::Reject(e) => Intercepted::Answered(Err(rpc(&e))),
            RouteDecision::Dispatch(d) => {
                Intercepted::Answered(self.dispatch(&live, ctx, &method, params, d).await)
            }
        }
    }

    /// 2026-07-28: no extension. A selector is refused; scoped methods go to the first-ranked
    /// stable variant for this principal, as a plain server.
    async fn sessionless(
        &self,
        ctx: RequestContext,
        request: ClientRequest,
        params: Option<Value>,
        header: Option<String>,
    ) -> Intercepted {
        if let Err(e) = self
            .router
            .check_sessionless(params.as_ref(), header.as_deref())
        {
            return Intercepted::Answered(Err(rpc(&e)));
        }
        if ScopedMethod::from_method(request.method()).is_none() {
            return Intercepted::Continue(ctx, request);
        }
        let ranked = match self
            .router
            .catalog()
            .rank(None, &principal_of(ctx.principal()))
        {
            Ok(r) => r,
            Err(e) => return Intercepted::Answered(Err(rpc(&e))),
        };
        let Some(index) = ranked
            .ids
            .first()
            .and_then(|id| self.router.catalog().backend(id.as_str()))
            .copied()
        else {
            return Intercepted::Answered(Err(rpc(&VariantError::NoStableVariant)));
        };
        // The backend's changes go through the relay like those of any request: tagged to the
        // handshake sessions that see the variant, plain to the 2026-07-28 listeners.
        let backend = self.backend(index);
        let ctx = ctx.with_notifier(backend.notifier());
        Intercepted::Answered(backend.handle(ctx, request).await)
    }

    async fn dispatch(
        self: &Arc<Self>,
        live: &Arc<LiveSession>,
        ctx: RequestContext,
        method: &str,
        params: Option<Value>,
        d: Dispatch<usize>,
    ) -> HandlerResult<ServerResult> {
        tracing::debug!(variant = d.variant.as_str(), "variant selected");
        let backend = self.backend(d.backend);
        let mut forwarded = d.rewrite_params(params.as_ref());
        let front_paged = matches!(d.method, ScopedMethod::List(_)) && self.page_size.is_some();
        let offset = if front_paged {
            if let Some(map) = forwarded.as_object_mut() {
                map.remove("cursor");
            }
            match d.inner_cursor.as_deref().map(str::parse::<usize>) {
                None => 0,
                Some(Ok(n)) => n,
                Some(Err(_)) => {
                    return Err(HandlerError::Rpc(d.enrich_error(ErrorData::new(
                        INVALID_PARAMS,
                        crate::error::MSG_INVALID_CURSOR,
                    ))));
                }
            }
        } else {
            0
        };
        let request = typed_request(method, forwarded)?;
        let ctx = ctx.with_notifier(backend.notifier());
        if d.method == ScopedMethod::Subscribe {
            self.check_exists(&backend, &ctx, &d).await?;
        }
        let result = backend.handle(ctx, request).await.map_err(|e| match e {
            HandlerError::Rpc(error) => HandlerError::Rpc(d.enrich_error(error)),
            other => other,
        })?;
        match d.method {
            ScopedMethod::List(_) => {
                let state = lock(&live.state);
                Ok(page(result, &state, &d, self.page_size, offset))
            }
            ScopedMethod::Subscribe => {
                lock(&live.state).record_subscribe(&d);
                self.share_snapshot(live).await?;
                self.open_stream(live, &d);
                Ok(result)
            }
            ScopedMethod::Unsubscribe => {
                lock(&live.state).record_unsubscribe(&d);
                self.share_snapshot(live).await?;
                if let Some(uri) = &d.uri {
                    live.stop_stream(&d.variant, uri);
                    if let Some(shared) = self.shared.get() {
                        let message = BusMessage::Unsubscribed {
                            from: shared.replica,
                            session: live.id.as_str().to_owned(),
                            variant: d.variant.clone(),
                            uri: uri.clone(),
                        };
                        shared.publish(&message).await;
                    }
                }
                Ok(result)
            }
            _ => Ok(result),
        }
    }

    /// `resources/subscribe` needs the resource to exist in the variant: listed by its
    /// backend, or readable there (template-backed resources).
    async fn check_exists(
        &self,
        backend: &Arc<dyn Backend>,
        ctx: &RequestContext,
        d: &Dispatch<usize>,
    ) -> HandlerResult<()> {
        let uri = d.uri.clone().unwrap_or_default();
        let listed = match backend
            .handle(ctx.clone(), typed_request("resources/list", json!({}))?)
            .await
        {
            Ok(ServerResult::ListResources(r)) => r.resources.iter().any(|r| r.uri == uri),
            _ => false,
        };
        let exists = listed
            || backend
                .handle(
                    ctx.clone(),
                    typed_request("resources/read", json!({"uri": uri}))?,
                )
                .await
                .is_ok();
        if exists {
            return Ok(());
        }
        Err(HandlerError::Rpc(
            ErrorData::new(INVALID_PARAMS, MSG_RESOURCE_UNAVAILABLE)
                .with_data(json!({"uri": uri, "activeVariant": d.variant})),
        ))
    }

    /// Opens the provider's stream for a new live subscription.
    fn open_stream(self: &Arc<Self>, live: &Arc<LiveSession>, d: &Dispatch<usize>) {
        let (Some(provider), Some(uri)) = (&self.provider, &d.uri) else {
            return;
        };
        let key = (d.variant.clone(), uri.clone());
        let mut streams = lock(&live.streams);
        if streams.contains_key(&key) {
            return;
        }
        let stream = provider.open(&d.variant, uri);
        let open = OpenStream::new(Arc::clone(&self.open_streams));
        let weak: Weak<LiveSession> = Arc::downgrade(live);
        let front: Weak<Inner> = Arc::downgrade(self);
        let (variant, uri) = key.clone();
        let task = tokio::spawn(async move {
            let _open = open;
            let mut stream = stream;
            while let Some(update) = stream.next().await {
                let (Some(live), Some(front)) = (weak.upgrade(), front.upgrade()) else {
                    break;
                };
                let updated = RoutedNotification::new(RESOURCE_UPDATED, Some(json!({"uri": uri})));
                let gone = update == ResourceUpdate::Gone;
                let out = {
                    let mut state = lock(&live.state);
                    let mut out = state.on_backend_notification(Some(&variant), updated);
                    if gone {
                        out.extend(state.on_resource_unavailable(&variant, &uri));
                    }
                    out
                };
                front.deliver(&live, out).await;
                if gone {
                    if let Err(e) = front.share_snapshot(&live).await {
                        tracing::warn!(error = ?e, "tombstone not shared");
                    }
                    lock(&live.streams).remove(&(variant.clone(), uri.clone()));
                    break;
                }
            }
        });
        streams.insert(key, task.abort_handle());
    }

    /// With a shared store: adopts the session's shared snapshot (its expiry moved: the
    /// session is in use), or writes this replica's when there is none yet.
    async fn sync_shared(&self, id: &str, live: &LiveSession) -> HandlerResult<()> {
        let Some(shared) = self.shared.get() else {
            return Ok(());
        };
        let key = snapshot_key(id);
        let stored = shared
            .store
            .get(&key, Some(shared.idle))
            .await
            .map_err(|e| HandlerError::internal(e.to_string()))?;
        let snapshot = stored.and_then(|bytes| {
            serde_json::from_slice::<SessionSnapshot>(&bytes)
                .inspect_err(|e| tracing::warn!(error = %e, "unreadable session snapshot"))
                .ok()
        });
        match snapshot.and_then(|s| self.router.restore(s)) {
            Some(restored) => {
                let mut state = lock(&live.state);
                if state.snapshot().is_some() {
                    *state = restored;
                }
                Ok(())
            }
            None => self.share_snapshot(live).await,
        }
    }

    /// Writes the session's snapshot unless the shared store has one (a failure is logged:
    /// the session's next request writes it).
    async fn share_if_absent(&self, live: &LiveSession) {
        let Some(shared) = self.shared.get() else {
            return;
        };
        let written = match shared.store.get(&snapshot_key(&live.id), None).await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => self.share_snapshot(live).await,
            Err(e) => Err(HandlerError::internal(e.to_string())),
        };
        if let Err(e) = written {
            tracing::warn!(error = ?e, "session snapshot not shared");
        }
    }

    /// Writes the session's snapshot to the shared store (nothing without one, or once the
    /// session is closed).
    async fn share_snapshot(&self, live: &LiveSession) -> HandlerResult<()> {
        let Some(shared) = self.shared.get() else {
            return Ok(());
        };
        let Some(snapshot) = lock(&live.state).snapshot() else {
            return Ok(());
        };
        let bytes =
            serde_json::to_vec(&snapshot).map_err(|e| HandlerError::internal(e.to_string()))?;
        shared
            .store
            .put(&snapshot_key(live.id.as_str()), bytes, shared.idle)
            .await
            .map_err(|e| HandlerError::internal(e.to_string()))
    }

    /// Sends notifications to a session: on its standalone stream here, and with a shared
    /// store to the replicas that hold a copy (the stream may be open on any of them).
    async fn deliver(&self, live: &LiveSession, notifications: Vec<RoutedNotification>) {
        if notifications.is_empty() {
            return;
        }
        if let Some(shared) = self.shared.get() {
            let message = BusMessage::Notify {
                from: shared.replica,
                session: live.id.as_str().to_owned(),
                notifications: notifications
                    .iter()
                    .map(|n| SharedNotification {
                        method: n.method.clone(),
                        params: n.params.clone(),
                    })
                    .collect(),
            };
            shared.publish(&message).await;
        }
        live.push_all(notifications);
    }

    /// A message from another replica.
    fn on_bus(&self, message: BusMessage) {
        match message {
            BusMessage::Notify {
                session,
                notifications,
                ..
            } => {
                if let Some(live) = self.session(&session) {
                    live.push_all(
                        notifications
                            .into_iter()
                            .map(|n| RoutedNotification::new(n.method, n.params))
                            .collect(),
                    );
                }
            }
            BusMessage::Unsubscribed {
                session,
                variant,
                uri,
                ..
            } => {
                if let Some(live) = self.session(&session) {
                    live.stop_stream(&variant, &uri);
                }
            }
        }
    }

    /// Starts relaying each backend's changes to the sessions (once).
    fn start_relays(self: &Arc<Self>) {
        if let Some(shared) = self.shared.get() {
            shared.listening.get_or_init(|| {
                let mut bus = shared.store.subscribe(vec![BUS.to_owned()]);
                let weak = Arc::downgrade(self);
                let replica = shared.replica;
                tokio::spawn(async move {
                    while let Some(message) = bus.recv().await {
                        let Some(inner) = weak.upgrade() else { break };
                        match serde_json::from_slice::<BusMessage>(&message.payload) {
                            Ok(m) if m.from() != replica => inner.on_bus(m),
                            Ok(_) => {}
                            Err(e) => tracing::warn!(error = %e, "unreadable variants bus message"),
                        }
                    }
                });
            });
        }
        self.relays.get_or_init(|| {
            for (index, backend) in self.backends.iter().enumerate() {
                let mut changes = backend.notifier().subscribe();
                let weak = Arc::downgrade(self);
                let variant = self.ids[index].clone();
                tokio::spawn(async move {
                    use tokio::sync::broadcast::error::RecvError;
                    loop {
                        match changes.recv().await {
                            Ok(change) => match weak.upgrade() {
                                Some(inner) => inner.relay(&variant, &change),
                                None => break,
                            },
                            Err(RecvError::Lagged(_)) => {}
                            Err(RecvError::Closed) => break,
                        }
                    }
                });
            }
        });
    }

    /// One backend change, re-sent to every session that can see its variant: tagged for
    /// sessions that opted in, untagged (and only from the default variant) for the others.
    fn relay(&self, variant: &VariantId, change: &Change) {
        let notification = match change {
            Change::ToolsListChanged => {
                RoutedNotification::new("notifications/tools/list_changed", None)
            }
            Change::PromptsListChanged => {
                RoutedNotification::new("notifications/prompts/list_changed", None)
            }
            Change::ResourcesListChanged => {
                RoutedNotification::new("notifications/resources/list_changed", None)
            }
            Change::ResourceUpdated(uri) => {
                RoutedNotification::new(RESOURCE_UPDATED, Some(json!({"uri": uri})))
            }
            _ => return,
        };
        if self.stateless_default.as_ref() == Some(variant)
            && let Some(front) = self.front_notifier.get()
        {
            front.announce(Change::StatelessOnly(Box::new(change.clone())));
        }
        let sessions: Vec<Arc<LiveSession>> = lock(&self.sessions).values().cloned().collect();
        for live in sessions {
            let out = {
                let mut state = lock(&live.state);
                if state.client_opted_in() {
                    state.on_backend_notification(Some(variant), notification.clone())
                } else if state.default_variant() == variant {
                    state
                        .on_backend_notification(Some(variant), notification.clone())
                        .into_iter()
                        .map(untagged)
                        .collect()
                } else {
                    Vec::new()
                }
            };
            live.push_all(out);
        }
    }
}

impl Shared {
    /// Publishes `message` to the other replicas (a failure is logged: the bus is best effort).
    async fn publish(&self, message: &BusMessage) {
        let payload = serde_json::to_vec(message).unwrap_or_default();
        if let Err(e) = self.store.publish(BUS, payload).await {
            tracing::warn!(error = %e, "variants bus message not sent");
        }
    }
}

impl LiveSession {
    /// Adds a copy of the session (dropping those that ended).
    fn add_handle(&self, handle: SessionHandle) {
        let mut handles = lock(&self.handles);
        handles.retain(SessionHandle::is_live);
        handles.push(handle);
    }

    /// Closes the provider stream of subscription (variant, uri), when it runs here.
    fn stop_stream(&self, variant: &VariantId, uri: &str) {
        if let Some(task) = lock(&self.streams).remove(&(variant.clone(), uri.to_owned())) {
            task.abort();
        }
    }

    /// Sends the router's notifications on the session's standalone stream.
    fn push_all(&self, notifications: Vec<RoutedNotification>) {
        for n in notifications {
            let mut frame = Map::new();
            frame.insert("method".into(), Value::String(n.method));
            if let Some(params) = n.params {
                frame.insert("params".into(), params);
            }
            if let Ok(typed) = serde_json::from_value::<ServerNotification>(Value::Object(frame)) {
                let mut handles = lock(&self.handles);
                handles.retain(SessionHandle::is_live);
                for handle in handles.iter() {
                    handle.notify(typed.clone());
                }
            }
        }
    }
}

/// A notification without the variant tag (for clients that did not opt in).
fn untagged(mut n: RoutedNotification) -> RoutedNotification {
    if let Some(Value::Object(params)) = &mut n.params {
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.remove(META_KEY);
            if meta.is_empty() {
                params.remove("_meta");
            }
        }
        if params.is_empty() {
            n.params = None;
        }
    }
    n
}

/// Counts a provider stream as open while it lives.
struct OpenStream(Arc<AtomicUsize>);

impl OpenStream {
    fn new(counter: Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        OpenStream(counter)
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A list result paged for the client: the front's page (when it pages) and a variant-bound
/// `nextCursor`.
fn page(
    result: ServerResult,
    state: &VariantSession<usize>,
    d: &Dispatch<usize>,
    page_size: Option<usize>,
    offset: usize,
) -> ServerResult {
    fn cut<T>(items: &mut Vec<T>, next: &mut Option<String>, size: Option<usize>, offset: usize) {
        let Some(size) = size else { return };
        let total = items.len();
        let kept: Vec<T> = items.drain(..).skip(offset).take(size).collect();
        *items = kept;
        let end = offset.saturating_add(size);
        *next = (end < total).then(|| end.to_string());
    }
    macro_rules! paged {
        ($r:ident, $items:ident) => {{
            cut(&mut $r.$items, &mut $r.next_cursor, page_size, offset);
            $r.next_cursor = state.finish_list(d, $r.next_cursor.as_deref());
        }};
    }
    let mut result = result;
    match &mut result {
        ServerResult::ListTools(r) => paged!(r, tools),
        ServerResult::ListResources(r) => paged!(r, resources),
        ServerResult::ListResourceTemplates(r) => paged!(r, resource_templates),
        ServerResult::ListPrompts(r) => paged!(r, prompts),
        _ => {}
    }
    result
}

/// The union of several servers' capabilities: every member any of them declares, flags
/// OR-ed (`listChanged`, `subscribe`), maps merged (the first value of a non-flag member wins).
pub fn union_capabilities(all: impl IntoIterator<Item = ServerCapabilities>) -> ServerCapabilities {
    fn merge(into: &mut Value, from: Value) {
        match (into, from) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in b {
                    match a.get_mut(&k) {
                        Some(existing) => merge(existing, v),
                        None => {
                            a.insert(k, v);
                        }
                    }
                }
            }
            (Value::Bool(a), Value::Bool(b)) => *a = *a || b,
            (slot @ Value::Null, v) => *slot = v,
            _ => {}
        }
    }
    let mut union = Value::Object(Map::new());
    for caps in all {
        merge(
            &mut union,
            serde_json::to_value(caps).unwrap_or(Value::Null),
        );
    }
    serde_json::from_value(union).unwrap_or_default()
}
