//! `router`: the server-variants router (SEP-2053) on arbitrary requests.
//!
//! Input: byte 0 picks the catalog (the advertise policy and whether errors enumerate the
//! variants) and whether requests come from another principal than the session's; the rest is
//! JSON lines. The first line that is an `initialize` request negotiates the session (its
//! `protocolVersion` and `capabilities`, as a server receives them); before it the router is
//! stateless. Every other request line is routed (an optional top-level `"header"` string is
//! the `MCP-Server-Variant` header); a notification line is offered to the session as a backend
//! notification (`"origin"`: the variant it comes from); a `{"close":true}` line closes it.
//!
//! Checked: nothing panics; a dispatched request goes to the backend of the variant it names,
//! its forwarded params carry that variant and the backend's own cursor; a cursor minted for a
//! list page routes the next page back to the same variant and inner cursor; a refusal's error
//! object serializes with a JSON-RPC error code; a subscription recorded by `resources/subscribe`
//! is found live and removed once by `resources/unsubscribe`; tagged notifications name a
//! variant of the session.

use std::sync::{Arc, OnceLock};

use mcp_wire_variants::methods::{RESOURCE_UPDATED, TAGGED_LIST_CHANGED};
use mcp_wire_variants::wire::META_KEY;
use mcp_wire_variants::{
    AdvertisePolicy, InitializeInput, PrincipalKey, RequestView, RouteDecision, RoutedNotification,
    ScopedMethod, ServerVariant, SubscriptionState, UnsubscribeOutcome, VariantCatalog, VariantId,
    VariantRouter, VariantSession, VariantStatus,
};
use serde_json::Value;

use crate::seeds::Sources;

/// A backend handle: the variant it serves.
type Backend = &'static str;

/// The catalogs byte 0 chooses from: one variant per status, one with hints, built once.
fn router(which: u8) -> &'static VariantRouter<Backend> {
    static ROUTERS: OnceLock<Vec<VariantRouter<Backend>>> = OnceLock::new();
    let routers = ROUTERS.get_or_init(|| {
        [
            (AdvertisePolicy::WhenClientOptsIn, true),
            (AdvertisePolicy::WhenClientOptsIn, false),
            (AdvertisePolicy::Always, true),
            (AdvertisePolicy::Always, false),
        ]
        .into_iter()
        .map(|(advertise, enumerate)| VariantRouter::new(catalog(advertise, enumerate)))
        .collect()
    });
    &routers[usize::from(which) % routers.len()]
}

fn catalog(advertise: AdvertisePolicy, enumerate: bool) -> Arc<VariantCatalog<Backend>> {
    VariantCatalog::builder()
        .variant(
            ServerVariant::new("coding", "Optimized for coding workflows")
                .with_hint("useCase", "coding")
                .with_hint("contextSize", "verbose"),
            0,
            "coding",
        )
        .variant(
            ServerVariant::new("compact", "Minimal token usage")
                .with_hint("contextSize", "compact")
                .with_status(VariantStatus::Experimental),
            1,
            "compact",
        )
        .variant(
            ServerVariant::new("legacy", "The old tool set").with_status(VariantStatus::Deprecated),
            2,
            "legacy",
        )
        .advertise(advertise)
        .error_enumeration(enumerate)
        .cursor_key(b"fuzz-router-cursor-key-0123456789")
        .build()
        .expect("the fuzz catalog is valid")
}

/// One input.
pub fn run(data: &[u8]) {
    let [config, rest @ ..] = data else {
        return;
    };
    let router = router(*config & 3);
    let owner = PrincipalKey::new("owner");
    let stranger = PrincipalKey::new("stranger");
    let principal = if *config & 4 != 0 { &stranger } else { &owner };
    let mut session: Option<VariantSession<Backend>> = None;
    for line in rest.split(|b| *b == b'\n') {
        let Ok(frame) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let method = frame.get("method").and_then(Value::as_str);
        let params = frame.get("params");
        let header = frame.get("header").and_then(Value::as_str);
        if frame.get("close") == Some(&Value::Bool(true)) {
            if let Some(s) = &mut session {
                s.close();
            }
            continue;
        }
        match (method, frame.get("id"), &mut session) {
            (Some("initialize"), Some(_), None) => {
                let version = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let caps = params.and_then(|p| p.get("capabilities"));
                let input = InitializeInput::new(version, caps)
                    .with_principal(owner.clone())
                    .with_session_tag("fuzz-session");
                match router.initialize(input) {
                    Ok(negotiated) => {
                        if let Some(ad) = &negotiated.advertisement {
                            let mut caps = serde_json::json!({"tools": {}});
                            ad.apply_to(&mut caps);
                            assert!(caps.is_object());
                        }
                        session = Some(negotiated.session);
                    }
                    Err(e) => check_error(&e.to_error_data()),
                }
            }
            (Some(method), Some(_), Some(s)) => {
                route(
                    s,
                    RequestView::new(method, params, principal).with_header(header),
                );
            }
            (Some(method), Some(_), None) => {
                if let Err(e) = router.check_sessionless(params, header) {
                    check_error(&e.to_error_data());
                }
                if let Ok(mut s) = router.stateless_session(principal.clone()) {
                    route(
                        &mut s,
                        RequestView::new(method, params, principal).with_header(header),
                    );
                }
            }
            (Some(method), None, Some(s)) => {
                let origin = frame
                    .get("origin")
                    .and_then(Value::as_str)
                    .map(VariantId::new);
                let n = RoutedNotification::new(method, params.cloned());
                // Only what the router tags is checked: other notifications (and list changes
                // of an unknown origin) pass with the backend's own params, untouched.
                let tagged = origin.is_some()
                    && (TAGGED_LIST_CHANGED.contains(&method) || method == RESOURCE_UPDATED);
                for out in s.on_backend_notification(origin.as_ref(), n) {
                    if tagged && let Some(tag) = selector(out.params.as_ref()) {
                        assert!(
                            s.available_variants().iter().any(|v| v.as_str() == tag),
                            "a notification tagged with {tag}, not a variant of the session"
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// The variant a params object selects in `_meta`.
fn selector(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_KEY)?.as_str()
}

fn check_error(e: &mcp_wire_variants::ErrorData) {
    assert!(
        (-32768..=-32000).contains(&e.code),
        "a variant error outside the JSON-RPC error range: {e:?}"
    );
    serde_json::to_value(e).expect("an error object serializes");
}

fn route(s: &mut VariantSession<Backend>, request: RequestView<'_>) {
    let d = match s.route(&request) {
        RouteDecision::Dispatch(d) => d,
        RouteDecision::Passthrough => return,
        RouteDecision::Reject(e) => return check_error(&e.to_error_data()),
    };
    assert_eq!(
        d.backend,
        d.variant.as_str(),
        "dispatched to another variant's backend"
    );
    assert!(s.available_variants().contains(&d.variant));
    let forwarded = d.rewrite_params(request.params);
    assert_eq!(
        selector(Some(&forwarded)),
        Some(d.variant.as_str()),
        "forwarded params do not name the variant"
    );
    match d.method {
        ScopedMethod::List(_) => {
            assert_eq!(
                forwarded.get("cursor").and_then(Value::as_str),
                d.inner_cursor.as_deref(),
                "forwarded params do not carry the backend's cursor"
            );
            let next = s
                .finish_list(&d, Some("backend-page-2"))
                .expect("a non-empty next cursor is wrapped");
            // The client asks for the next page with its own params and the minted cursor.
            let mut params = request
                .params
                .filter(|p| p.is_object())
                .cloned()
                .unwrap_or_else(|| serde_json::json!({}));
            params["cursor"] = Value::String(next);
            let next_page = RequestView::new(request.method, Some(&params), request.principal)
                .with_header(request.header);
            match s.route(&next_page) {
                RouteDecision::Dispatch(again) => {
                    assert_eq!(again.variant, d.variant);
                    assert_eq!(again.inner_cursor.as_deref(), Some("backend-page-2"));
                }
                other => panic!("the next page of a minted cursor did not route: {other:?}"),
            }
            assert_eq!(s.finish_list(&d, Some("")), None);
        }
        ScopedMethod::Subscribe => {
            s.record_subscribe(&d);
            if let Some(uri) = &d.uri {
                assert_eq!(
                    s.subscription(d.variant.as_str(), uri),
                    Some(SubscriptionState::Live)
                );
            }
        }
        ScopedMethod::Unsubscribe => {
            let outcome = s.record_unsubscribe(&d);
            if outcome != UnsubscribeOutcome::Unknown
                && let Some(uri) = &d.uri
            {
                assert_eq!(s.subscription(d.variant.as_str(), uri), None);
                assert_eq!(s.record_unsubscribe(&d), UnsubscribeOutcome::Unknown);
            }
        }
        _ => {}
    }
}

/// Every session's client requests (a handshake session starts with its `initialize`), under
/// each catalog; and the same with selectors for each variant, and an unknown one, added to its
/// requests.
pub fn seeds(sources: &Sources) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (n, session) in sources.sessions.iter().enumerate() {
        let requests: Vec<&Value> = session
            .frames
            .iter()
            .filter(|(dir, f)| dir != "s2c" && f.get("method").is_some())
            .map(|(_, f)| f)
            .collect();
        for (k, variant) in [None, Some("coding"), Some("compact"), Some("nope")]
            .into_iter()
            .enumerate()
        {
            let mut s = vec![(n + k) as u8 & 3];
            for frame in &requests {
                let mut frame = (*frame).clone();
                if let (Some(v), Some(Value::Object(params))) = (variant, frame.get_mut("params"))
                    && frame_method(params).is_none()
                {
                    let meta = params
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(Default::default()));
                    if let Value::Object(meta) = meta {
                        meta.insert(META_KEY.into(), Value::String(v.into()));
                    }
                }
                s.extend(serde_json::to_vec(&frame).expect("JSON"));
                s.push(b'\n');
            }
            out.push(s);
        }
    }
    out
}

/// `params.protocolVersion` marks an `initialize`, whose params take no selector.
fn frame_method(params: &serde_json::Map<String, Value>) -> Option<&Value> {
    params.get("protocolVersion")
}
