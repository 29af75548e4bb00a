//! Negotiation and routing, without I/O: the transport owns the connection and calls in.
//!
//! 1. On `initialize`: [`VariantRouter::initialize`] returns a [`VariantSession`] and, when the
//!    list is advertised, an [`Advertisement`] to merge into the result's capabilities.
//! 2. On every later request: [`VariantSession::route`] says [`RouteDecision::Dispatch`] (to which
//!    variant's backend, with params rewritten by [`Dispatch::rewrite_params`]),
//!    [`RouteDecision::Passthrough`] (the server's own handler) or [`RouteDecision::Reject`].
//! 3. After a list dispatch, [`VariantSession::finish_list`] wraps the backend's `nextCursor`;
//!    after a failed dispatch, [`Dispatch::enrich_error`] adds `activeVariant`.
//! 4. Backend notifications go through [`VariantSession::on_backend_notification`].
//!
//! Sessionless (2026-07-28) traffic has no `initialize`: [`VariantRouter::check_sessionless`]
//! refuses any selector with "Server variants not supported".

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_wire::model::{ClientCapabilities, ServerCapabilities};
use mcp_wire::{ProtocolVersion, VersionLike};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::catalog::{AdvertisePolicy, PrincipalKey, VariantCatalog};
use crate::cursor::{self, CursorBinding, CursorClaims, CursorError};
use crate::error::{ErrorData, HEADER_PATH, SELECTOR_PATH, VariantError, with_active_variant};
use crate::methods::{
    ListKind, RESOURCE_UPDATED, RESOURCES_LIST_CHANGED, ScopedMethod, TAGGED_LIST_CHANGED,
};
use crate::wire::{
    ClientVariantsExtension, ExtensionSlot, Selector, ServerVariantsExtension, SlotPolicy,
    VariantId, read_client_capabilities, read_client_extension, read_params_selector,
    write_extension, write_selector, write_server_capabilities,
};

/// The entry point: a shared catalog plus the negotiation logic.
#[derive(Debug)]
pub struct VariantRouter<B> {
    catalog: Arc<VariantCatalog<B>>,
}

impl<B> Clone for VariantRouter<B> {
    fn clone(&self) -> Self {
        VariantRouter {
            catalog: Arc::clone(&self.catalog),
        }
    }
}

/// What the transport knows at `initialize`.
#[derive(Debug, Clone)]
pub struct InitializeInput {
    /// The protocol revision the server is about to answer with.
    pub protocol_version: VersionLike,
    /// The client's extension payload and where it was found (`None`: the client did not opt in).
    pub client_extension: Option<(ClientVariantsExtension, ExtensionSlot)>,
    /// Who sent the request.
    pub principal: PrincipalKey,
    /// The transport's session tag (e.g. the `MCP-Session-Id` it mints); cursors are bound to it.
    pub session_tag: String,
}

impl InitializeInput {
    /// Input from the request's raw `params.capabilities` JSON (anonymous, no session tag).
    pub fn new(
        protocol_version: impl Into<VersionLike>,
        client_capabilities: Option<&Value>,
    ) -> Self {
        InitializeInput {
            protocol_version: protocol_version.into(),
            client_extension: client_capabilities.and_then(read_client_extension),
            principal: PrincipalKey::anonymous(),
            session_tag: String::new(),
        }
    }

    /// Input from typed client capabilities (anonymous, no session tag).
    pub fn from_capabilities(
        protocol_version: impl Into<VersionLike>,
        client_capabilities: &ClientCapabilities,
    ) -> Self {
        InitializeInput {
            protocol_version: protocol_version.into(),
            client_extension: read_client_capabilities(client_capabilities),
            principal: PrincipalKey::anonymous(),
            session_tag: String::new(),
        }
    }

    /// Sets the principal.
    pub fn with_principal(mut self, principal: PrincipalKey) -> Self {
        self.principal = principal;
        self
    }

    /// Sets the session tag.
    pub fn with_session_tag(mut self, tag: impl Into<String>) -> Self {
        self.session_tag = tag.into();
        self
    }
}

/// The result of a successful negotiation.
#[derive(Debug)]
pub struct Negotiated<B> {
    /// The session to keep for the connection.
    pub session: VariantSession<B>,
    /// The payload to merge into the `InitializeResult` capabilities (`None`: advertise nothing).
    pub advertisement: Option<Advertisement>,
}

/// The server's extension payload plus where to write it.
#[derive(Debug, Clone, PartialEq)]
pub struct Advertisement {
    /// The payload.
    pub payload: ServerVariantsExtension,
    slot: SlotPolicy,
}

impl Advertisement {
    /// Writes the payload into a `ServerCapabilities` JSON object, keeping everything else.
    pub fn apply_to(&self, server_capabilities: &mut Value) {
        write_extension(server_capabilities, &self.payload, self.slot);
    }

    /// Writes the payload into typed server capabilities, keeping everything else.
    pub fn apply_to_capabilities(&self, server_capabilities: &mut ServerCapabilities) {
        write_server_capabilities(server_capabilities, &self.payload, self.slot);
    }
}

impl<B: Clone> VariantRouter<B> {
    /// A router over a built catalog.
    pub fn new(catalog: Arc<VariantCatalog<B>>) -> Self {
        VariantRouter { catalog }
    }

    /// The catalog.
    pub fn catalog(&self) -> &VariantCatalog<B> {
        &self.catalog
    }

    /// Negotiates variants for an `initialize` request.
    ///
    /// At a revision outside the catalog's allow-list (or an unknown one) the session is
    /// disabled: nothing is advertised, selectors are refused as not supported, and scoped methods
    /// go to the hint-less default variant, so the server behaves as a plain server.
    pub fn initialize(&self, input: InitializeInput) -> Result<Negotiated<B>, VariantError> {
        let enabled = input
            .protocol_version
            .known()
            .is_some_and(|v| self.catalog.is_enabled_for(v));
        let payload = input.client_extension;
        let opted_in = payload.is_some();
        // A client that wrote its payload under `experimental` (the Go reference) reads ours
        // there too: mirror it, on top of the configured slot.
        let slot = match (self.catalog.slot, payload.as_ref().map(|(_, s)| *s)) {
            (SlotPolicy::Extensions, Some(ExtensionSlot::Experimental)) => SlotPolicy::Both,
            (configured, _) => configured,
        };
        let hints = if enabled {
            payload.as_ref().and_then(|(p, _)| p.variant_hints.as_ref())
        } else {
            None
        };
        let ranked = self.catalog.rank(hints, &input.principal)?;
        let advertise = enabled && (opted_in || self.catalog.advertise == AdvertisePolicy::Always);
        let advertisement = advertise.then(|| Advertisement {
            payload: ServerVariantsExtension {
                available_variants: ranked
                    .ids
                    .iter()
                    .filter_map(|id| self.catalog.variant(id.as_str()).cloned())
                    .map(|variant| self.without_hidden_replacement(variant, &input.principal))
                    .collect(),
                more_variants_available: Some(ranked.more_available),
                extra: Map::new(),
            },
            slot,
        });
        Ok(Negotiated {
            session: VariantSession {
                catalog: Arc::clone(&self.catalog),
                state: if enabled {
                    SessionState::Enabled
                } else {
                    SessionState::Disabled
                },
                ids: ranked.ids,
                principal: input.principal,
                session_tag: input.session_tag,
                protocol_version: input.protocol_version,
                opted_in,
                subscriptions: BTreeMap::new(),
            },
            advertisement,
        })
    }

    /// `variant` as `principal` may see it: a `deprecationInfo.replacement` naming a variant
    /// hidden from them is left out (its id would reveal the hidden variant).
    fn without_hidden_replacement(
        &self,
        mut variant: crate::wire::ServerVariant,
        principal: &PrincipalKey,
    ) -> crate::wire::ServerVariant {
        if let Some(info) = &mut variant.deprecation_info
            && info
                .replacement
                .as_ref()
                .is_some_and(|r| !self.catalog.is_visible_to(r.as_str(), principal))
        {
            info.replacement = None;
        }
        variant
    }

    /// A throw-away session for stateless HTTP at a handshake revision (no `MCP-Session-Id`):
    /// the principal's hint-less ranking, built per request. Weaker than a real session: nothing
    /// ties two requests together, so subscriptions recorded on it are lost with it.
    pub fn stateless_session(
        &self,
        principal: PrincipalKey,
    ) -> Result<VariantSession<B>, VariantError> {
        self.initialize(
            InitializeInput::new(ProtocolVersion::LATEST_HANDSHAKE, None).with_principal(principal),
        )
        .map(|n| n.session)
    }

    /// For sessionless (2026-07-28) requests: any selector, in `_meta` or the header, is refused
    /// with "Server variants not supported"; otherwise the request is the server's business.
    pub fn check_sessionless(
        &self,
        params: Option<&Value>,
        header: Option<&str>,
    ) -> Result<(), VariantError> {
        match read_params_selector(params) {
            Selector::Absent if header.is_none() => Ok(()),
            Selector::Absent => Err(VariantError::NotSupported { path: HEADER_PATH }),
            _ => Err(VariantError::NotSupported {
                path: SELECTOR_PATH,
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionState {
    Enabled,
    Disabled,
    Closed,
}

/// Whether a subscription still delivers updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionState {
    /// Updates are delivered (tagged with the variant).
    Live,
    /// The resource left the variant: no more updates, but unsubscribe still succeeds.
    Tombstoned,
}

/// What [`VariantSession::record_unsubscribe`] found (the wire answer is success either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsubscribeOutcome {
    /// A live subscription was removed.
    Live,
    /// A tombstoned subscription was removed.
    Tombstoned,
    /// There was none for this (variant, uri).
    Unknown,
}

/// A notification for the client: method and params.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutedNotification {
    /// The JSON-RPC method (a free string: the router forwards methods it does not know).
    pub method: String,
    /// The params, if any.
    pub params: Option<Value>,
}

impl RoutedNotification {
    /// A notification.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        RoutedNotification {
            method: method.into(),
            params,
        }
    }

    fn tagged(mut self, variant: &VariantId) -> Self {
        let mut params = self.params.take().unwrap_or(Value::Object(Map::new()));
        write_selector(&mut params, variant);
        self.params = Some(params);
        self
    }
}

/// One client session's negotiated variant state. Plain owned data; the caller stores it per
/// connection (or per `MCP-Session-Id`) and supplies any locking.
#[derive(Debug)]
pub struct VariantSession<B> {
    catalog: Arc<VariantCatalog<B>>,
    state: SessionState,
    /// The list returned at `initialize` (head = the session default), fixed for the session.
    ids: Vec<VariantId>,
    principal: PrincipalKey,
    session_tag: String,
    protocol_version: VersionLike,
    opted_in: bool,
    subscriptions: BTreeMap<(VariantId, String), SubscriptionState>,
}

/// A request as the router needs to see it.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    /// The JSON-RPC method.
    pub method: &'a str,
    /// The request's params.
    pub params: Option<&'a Value>,
    /// The `MCP-Server-Variant` header value (HTTP transports only).
    pub header: Option<&'a str>,
    /// Who sent it.
    pub principal: &'a PrincipalKey,
    /// When it arrived (unix seconds), for cursor expiry; `None`: expiry is not checked and
    /// minted cursors do not expire.
    pub now: Option<u64>,
}

impl<'a> RequestView<'a> {
    /// A request without a header.
    pub fn new(method: &'a str, params: Option<&'a Value>, principal: &'a PrincipalKey) -> Self {
        RequestView {
            method,
            params,
            header: None,
            principal,
            now: None,
        }
    }

    /// Sets the time the request arrived (unix seconds).
    pub fn with_now(mut self, unix_seconds: u64) -> Self {
        self.now = Some(unix_seconds);
        self
    }

    /// Sets the header selector.
    pub fn with_header(mut self, header: Option<&'a str>) -> Self {
        self.header = header;
        self
    }
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteDecision<B> {
    /// To the backend of a variant.
    Dispatch(Dispatch<B>),
    /// Not variant-scoped: the server's own handler (any selector on it was valid).
    Passthrough,
    /// Refused; answer with [`VariantError::to_error_data`].
    Reject(VariantError),
}

/// A request resolved to one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch<B> {
    /// The resolved variant.
    pub variant: VariantId,
    /// Its backend handle.
    pub backend: B,
    /// Which scoped method.
    pub method: ScopedMethod,
    /// The backend's own cursor, unwrapped from the client's (list methods only).
    pub inner_cursor: Option<String>,
    /// `params.uri` (subscribe and unsubscribe only).
    pub uri: Option<String>,
    /// When the request arrived (unix seconds), if the transport said: cursors minted for its
    /// answer expire from then on.
    pub now: Option<u64>,
}

impl<B> Dispatch<B> {
    /// The params to forward: a copy of `params` with the resolved variant in `_meta` and the
    /// client's cursor replaced by the backend's own (or removed). The caller's value is untouched.
    pub fn rewrite_params(&self, params: Option<&Value>) -> Value {
        let mut out = params
            .filter(|p| p.is_object())
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new()));
        write_selector(&mut out, &self.variant);
        if let (ScopedMethod::List(_), Value::Object(map)) = (self.method, &mut out) {
            match &self.inner_cursor {
                Some(c) => {
                    map.insert("cursor".into(), Value::String(c.clone()));
                }
                None => {
                    map.remove("cursor");
                }
            }
        }
        out
    }

    /// A backend error with `data.activeVariant` added (for -32602, -32601 and -32002).
    pub fn enrich_error(&self, error: ErrorData) -> ErrorData {
        with_active_variant(error, &self.variant)
    }
}

impl<B: Clone> VariantSession<B> {
    /// The session default: the head of the list returned at `initialize`.
    pub fn default_variant(&self) -> &VariantId {
        // The catalog never ranks an empty list (rank fails first), so ids has a head.
        &self.ids[0]
    }

    /// The ids this session may select (the advertised list).
    pub fn available_variants(&self) -> &[VariantId] {
        &self.ids
    }

    /// Whether selectors are honoured (false at revisions outside the allow-list).
    pub fn is_enabled(&self) -> bool {
        self.state == SessionState::Enabled
    }

    /// Whether the client sent the extension payload.
    pub fn client_opted_in(&self) -> bool {
        self.opted_in
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.protocol_version.known()
    }

    /// The principal the session belongs to.
    pub fn principal(&self) -> &PrincipalKey {
        &self.principal
    }

    fn binding(&self) -> CursorBinding<'_> {
        CursorBinding {
            principal: self.principal.key(),
            session: &self.session_tag,
        }
    }

    /// Decides where a request goes. Order: session closed or other principal → unknown session;
    /// selector (`_meta`, else header) on a disabled session → not supported; malformed or unknown
    /// selector → invalid variant; unscoped → passthrough; list cursor checks; dispatch.
    pub fn route(&self, request: &RequestView<'_>) -> RouteDecision<B> {
        match self.try_route(request) {
            Ok(Some(d)) => RouteDecision::Dispatch(d),
            Ok(None) => RouteDecision::Passthrough,
            Err(e) => RouteDecision::Reject(e),
        }
    }

    fn try_route(&self, request: &RequestView<'_>) -> Result<Option<Dispatch<B>>, VariantError> {
        if self.state == SessionState::Closed || *request.principal != self.principal {
            return Err(VariantError::UnknownSession);
        }
        let (selector, path) = match read_params_selector(request.params) {
            Selector::Absent => match request.header {
                Some(h) => (Selector::Id(h.to_owned()), HEADER_PATH),
                None => (Selector::Absent, SELECTOR_PATH),
            },
            s => (s, SELECTOR_PATH),
        };
        if self.state == SessionState::Disabled && selector != Selector::Absent {
            return Err(VariantError::NotSupported { path });
        }
        let available = || self.catalog.enumerate_in_errors.then(|| self.ids.clone());
        let variant = match selector {
            Selector::Absent => self.default_variant().clone(),
            Selector::Malformed(_) => {
                return Err(VariantError::InvalidVariant {
                    requested: None,
                    available: available(),
                    path,
                });
            }
            Selector::Id(id) => match self.ids.iter().find(|v| v.as_str() == id) {
                Some(v) => v.clone(),
                None => {
                    return Err(VariantError::InvalidVariant {
                        requested: Some(id),
                        available: available(),
                        path,
                    });
                }
            },
        };
        let Some(method) = ScopedMethod::from_method(request.method) else {
            return Ok(None);
        };
        let inner_cursor = match method {
            ScopedMethod::List(kind) => {
                self.open_cursor(request.params, kind, &variant, request.now)?
            }
            _ => None,
        };
        let uri = match method {
            ScopedMethod::Subscribe | ScopedMethod::Unsubscribe => request
                .params
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        };
        let backend = self
            .catalog
            .backend(variant.as_str())
            .cloned()
            .ok_or_else(|| VariantError::InvalidVariant {
                requested: Some(variant.as_str().to_owned()),
                available: available(),
                path,
            })?;
        Ok(Some(Dispatch {
            variant,
            backend,
            method,
            inner_cursor,
            uri,
            now: request.now,
        }))
    }

    fn open_cursor(
        &self,
        params: Option<&Value>,
        kind: ListKind,
        variant: &VariantId,
        now: Option<u64>,
    ) -> Result<Option<String>, VariantError> {
        let invalid = |reason| VariantError::InvalidCursor {
            active_variant: variant.clone(),
            reason,
        };
        let raw = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(invalid(CursorError::NotAString {
                    found: json_type(other),
                }));
            }
        };
        let claims = cursor::open_with(&self.catalog.cursor_keys, raw, self.binding(), now)
            .map_err(invalid)?;
        if claims.variant != *variant {
            return Err(VariantError::CursorMismatch {
                cursor_variant: claims.variant,
                requested_variant: variant.clone(),
            });
        }
        if claims.list != kind {
            return Err(invalid(CursorError::WrongMethod {
                expected: kind.method(),
                found: claims.list.method(),
            }));
        }
        Ok(Some(claims.inner))
    }

    /// Wraps a backend's `nextCursor` for the client; `None` and `""` stay absent.
    pub fn finish_list(&self, dispatch: &Dispatch<B>, next_cursor: Option<&str>) -> Option<String> {
        let ScopedMethod::List(list) = dispatch.method else {
            return next_cursor.map(str::to_owned);
        };
        let inner = next_cursor.filter(|c| !c.is_empty())?;
        let expires = self
            .catalog
            .cursor_ttl
            .zip(dispatch.now)
            .map(|(ttl, now)| now.saturating_add(ttl));
        Some(cursor::mint(
            &self.catalog.cursor_keys[0],
            &CursorClaims {
                variant: dispatch.variant.clone(),
                list,
                inner: inner.to_owned(),
                expires,
            },
            self.binding(),
        ))
    }

    /// Rewrites a list result in place: `nextCursor` wrapped (or removed when empty).
    pub fn finish_list_result(&self, dispatch: &Dispatch<B>, result: &mut Value) {
        let Some(map) = result.as_object_mut() else {
            return;
        };
        let next = map
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match self.finish_list(dispatch, next.as_deref()) {
            Some(c) => {
                map.insert("nextCursor".into(), Value::String(c));
            }
            None => {
                map.remove("nextCursor");
            }
        }
    }

    /// Records a subscription after the backend accepted `resources/subscribe`.
    pub fn record_subscribe(&mut self, dispatch: &Dispatch<B>) {
        if let (ScopedMethod::Subscribe, Some(uri)) = (dispatch.method, &dispatch.uri) {
            self.subscriptions.insert(
                (dispatch.variant.clone(), uri.clone()),
                SubscriptionState::Live,
            );
        }
    }

    /// Removes a subscription on `resources/unsubscribe` (same variant resolution as subscribe).
    pub fn record_unsubscribe(&mut self, dispatch: &Dispatch<B>) -> UnsubscribeOutcome {
        let Some(uri) = &dispatch.uri else {
            return UnsubscribeOutcome::Unknown;
        };
        match self
            .subscriptions
            .remove(&(dispatch.variant.clone(), uri.clone()))
        {
            Some(SubscriptionState::Live) => UnsubscribeOutcome::Live,
            Some(SubscriptionState::Tombstoned) => UnsubscribeOutcome::Tombstoned,
            None => UnsubscribeOutcome::Unknown,
        }
    }

    /// The subscription state of (variant, uri).
    pub fn subscription(&self, variant: &str, uri: &str) -> Option<SubscriptionState> {
        self.subscriptions
            .iter()
            .find(|((v, u), _)| v == variant && u == uri)
            .map(|(_, s)| *s)
    }

    /// Turns a backend notification into what the client receives.
    ///
    /// - `list_changed` (tools, resources, prompts) from a known variant of this session: tagged;
    ///   from an unknown origin (`None`): untagged, meaning "any variant may be affected".
    /// - `resources/updated`: one tagged copy per live subscription on that URI (restricted to the
    ///   origin variant when known); nothing when no live subscription matches.
    /// - Anything else (progress, log messages, …): forwarded untouched.
    ///
    /// A variant outside this session's list produces nothing but passthrough notifications.
    pub fn on_backend_notification(
        &mut self,
        origin: Option<&VariantId>,
        notification: RoutedNotification,
    ) -> Vec<RoutedNotification> {
        if self.state == SessionState::Closed {
            return Vec::new();
        }
        let origin_in_session = origin.filter(|o| self.ids.contains(o));
        if TAGGED_LIST_CHANGED.contains(&notification.method.as_str()) {
            return match (origin, origin_in_session) {
                (None, _) => vec![notification],
                (Some(_), Some(o)) => vec![notification.tagged(o)],
                (Some(_), None) => Vec::new(),
            };
        }
        if notification.method == RESOURCE_UPDATED {
            let Some(uri) = notification
                .params
                .as_ref()
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
            else {
                return Vec::new();
            };
            return self
                .subscriptions
                .iter()
                .filter(|((v, u), state)| {
                    u == uri && **state == SubscriptionState::Live && origin.is_none_or(|o| o == v)
                })
                .map(|((v, _), _)| notification.clone().tagged(v))
                .collect();
        }
        vec![notification]
    }

    /// A subscribed resource left a variant's namespace: the subscription is tombstoned (no more
    /// updates; unsubscribe still succeeds) and the client gets a tagged `resources/list_changed`.
    pub fn on_resource_unavailable(
        &mut self,
        variant: &VariantId,
        uri: &str,
    ) -> Vec<RoutedNotification> {
        match self
            .subscriptions
            .get_mut(&(variant.clone(), uri.to_owned()))
        {
            Some(state @ SubscriptionState::Live) => {
                *state = SubscriptionState::Tombstoned;
                vec![RoutedNotification::new(RESOURCES_LIST_CHANGED, None).tagged(variant)]
            }
            _ => Vec::new(),
        }
    }

    /// Ends the session: every later request is an unknown session. Returns the live
    /// subscriptions (variant, uri) whose backend resources the caller should release.
    pub fn close(&mut self) -> Vec<(VariantId, String)> {
        self.state = SessionState::Closed;
        std::mem::take(&mut self.subscriptions)
            .into_iter()
            .filter(|(_, s)| *s == SubscriptionState::Live)
            .map(|(k, _)| k)
            .collect()
    }
}

/// What a negotiated session holds, as plain data: what replicas of one server share so that
/// a session answers the same on each (the list fixed at `initialize`, its default first; the
/// principal and tag cursors are bound to; the subscriptions). A closed session has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    /// Whether selectors are honoured (the revision is in the catalog's allow-list).
    pub enabled: bool,
    /// The list returned at `initialize`; its head is the session default.
    pub variants: Vec<VariantId>,
    /// The principal's key.
    pub principal: String,
    /// The transport's session tag.
    pub session_tag: String,
    /// The negotiated revision.
    pub protocol_version: VersionLike,
    /// Whether the client sent the extension payload.
    pub opted_in: bool,
    /// The subscriptions, in (variant, uri) order.
    pub subscriptions: Vec<SubscriptionRecord>,
}

/// One subscription of a [`SessionSnapshot`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionRecord {
    /// The variant it was made in.
    pub variant: VariantId,
    /// The resource.
    pub uri: String,
    /// Whether the resource left the variant (no more updates; unsubscribe still succeeds).
    pub tombstoned: bool,
}

impl<B> VariantSession<B> {
    /// The session as plain data (`None` once closed).
    pub fn snapshot(&self) -> Option<SessionSnapshot> {
        if self.state == SessionState::Closed {
            return None;
        }
        Some(SessionSnapshot {
            enabled: self.state == SessionState::Enabled,
            variants: self.ids.clone(),
            principal: self.principal.key().to_owned(),
            session_tag: self.session_tag.clone(),
            protocol_version: self.protocol_version.clone(),
            opted_in: self.opted_in,
            subscriptions: self
                .subscriptions
                .iter()
                .map(|((variant, uri), state)| SubscriptionRecord {
                    variant: variant.clone(),
                    uri: uri.clone(),
                    tombstoned: *state == SubscriptionState::Tombstoned,
                })
                .collect(),
        })
    }
}

impl<B> VariantRouter<B> {
    /// The session `snapshot` describes, on this router's catalog. Variants the catalog no
    /// longer has are dropped from the list and the subscriptions; `None` when none of the
    /// list is left (the session cannot be served here).
    pub fn restore(&self, snapshot: SessionSnapshot) -> Option<VariantSession<B>> {
        let known = |id: &VariantId| self.catalog.variant(id.as_str()).is_some();
        let ids: Vec<VariantId> = snapshot.variants.into_iter().filter(known).collect();
        if ids.is_empty() {
            return None;
        }
        let subscriptions = snapshot
            .subscriptions
            .into_iter()
            .filter(|s| ids.contains(&s.variant))
            .map(|s| {
                let state = if s.tombstoned {
                    SubscriptionState::Tombstoned
                } else {
                    SubscriptionState::Live
                };
                ((s.variant, s.uri), state)
            })
            .collect();
        Some(VariantSession {
            catalog: Arc::clone(&self.catalog),
            state: if snapshot.enabled {
                SessionState::Enabled
            } else {
                SessionState::Disabled
            },
            ids,
            principal: PrincipalKey::new(snapshot.principal),
            session_tag: snapshot.session_tag,
            protocol_version: snapshot.protocol_version,
            opted_in: snapshot.opted_in,
            subscriptions,
        })
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
#[path = "router_tests.rs"]
mod tests;
