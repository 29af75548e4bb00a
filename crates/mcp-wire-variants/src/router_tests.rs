//! Router tests. Go reference counterparts are named in comments (`Go: TestX`).

use serde_json::{Value, json};

use super::*;
use crate::catalog::{PrincipalKey, VariantCatalog};
use crate::error::{CURSOR_PATH, INVALID_PARAMS, MSG_CURSOR_MISMATCH, MSG_INVALID_CURSOR};
use crate::wire::{
    DeprecationInfo, EXTENSION_ID, META_KEY, ServerVariant, SlotPolicy, VariantStatus,
};

const KEY: &[u8] = b"router-test-key-0123456789";

/// Go's fixture: `coding` (stable, priority 0) and `compact` (experimental, priority 1).
fn go_router() -> VariantRouter<&'static str> {
    VariantRouter::new(
        VariantCatalog::builder()
            .variant(
                ServerVariant::new("coding", "Optimized for coding workflows"),
                0,
                "coding-backend",
            )
            .variant(
                ServerVariant::new("compact", "Minimal token usage")
                    .with_status(VariantStatus::Experimental),
                1,
                "compact-backend",
            )
            .cursor_key(KEY)
            .build()
            .unwrap(),
    )
}

fn opt_in() -> Value {
    json!({"extensions": {EXTENSION_ID: {}}})
}

fn session(router: &VariantRouter<&'static str>) -> VariantSession<&'static str> {
    router
        .initialize(InitializeInput::new("2025-11-25", Some(&opt_in())))
        .unwrap()
        .session
}

fn sel(id: &str) -> Value {
    json!({"_meta": {META_KEY: id}})
}

fn anon() -> PrincipalKey {
    PrincipalKey::anonymous()
}

fn dispatch<B: Clone + std::fmt::Debug>(
    s: &VariantSession<B>,
    method: &str,
    params: Option<&Value>,
) -> Dispatch<B> {
    match s.route(&RequestView::new(method, params, &anon())) {
        RouteDecision::Dispatch(d) => d,
        other => panic!("{method}: expected dispatch, got {other:?}"),
    }
}

fn reject<B: Clone + std::fmt::Debug>(
    s: &VariantSession<B>,
    method: &str,
    params: Option<&Value>,
) -> VariantError {
    match s.route(&RequestView::new(method, params, &anon())) {
        RouteDecision::Reject(e) => e,
        other => panic!("{method}: expected reject, got {other:?}"),
    }
}

// Go: TestIntegration_EndToEnd (initialize part) — the advertised payload and its order.
#[test]
fn initialize_advertises_ranked_list_under_extensions() {
    let n = go_router()
        .initialize(InitializeInput::new("2025-11-25", Some(&opt_in())))
        .unwrap();
    let mut caps = json!({"tools": {"listChanged": true}});
    n.advertisement.unwrap().apply_to(&mut caps);
    assert_eq!(
        caps,
        json!({"tools": {"listChanged": true}, "extensions": {EXTENSION_ID: {
            "availableVariants": [
                {"id": "coding", "description": "Optimized for coding workflows"},
                {"id": "compact", "description": "Minimal token usage", "status": "experimental"}
            ],
            "moreVariantsAvailable": false
        }}})
    );
    assert!(n.session.client_opted_in());
    assert!(n.session.is_enabled());
}

// Go: TestIntegration_ClientWithoutVariantSupport.
#[test]
fn unaware_client_gets_default_variant() {
    let router = go_router();
    let n = router
        .initialize(InitializeInput::new(
            "2025-06-18",
            Some(&json!({"roots": {}})),
        ))
        .unwrap();
    // Advertised anyway (default policy), and the default serves selector-less requests.
    assert!(n.advertisement.is_some());
    assert!(!n.session.client_opted_in());
    let d = dispatch(&n.session, "tools/list", None);
    assert_eq!(
        (d.variant.as_str(), d.backend),
        ("coding", "coding-backend")
    );
    let d = dispatch(
        &n.session,
        "tools/call",
        Some(&json!({"name": "summarize"})),
    );
    assert_eq!(d.backend, "coding-backend");
}

#[test]
fn advertise_only_when_client_opts_in() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, ())
            .advertise(AdvertisePolicy::WhenClientOptsIn)
            .slot(SlotPolicy::Experimental)
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let unaware = router
        .initialize(InitializeInput::new("2025-11-25", None))
        .unwrap();
    assert_eq!(unaware.advertisement, None);
    assert_eq!(unaware.session.default_variant().as_str(), "a");
    // The Go reference's placement: read from `experimental`, written to `experimental`.
    let go_caps = json!({"experimental": {EXTENSION_ID: {}}});
    let aware = router
        .initialize(InitializeInput::new("2025-11-25", Some(&go_caps)))
        .unwrap();
    let mut caps = json!({});
    aware.advertisement.unwrap().apply_to(&mut caps);
    assert!(caps["experimental"][EXTENSION_ID]["availableVariants"].is_array());
    assert!(caps.get("extensions").is_none());
}

// The Go bug: the default re-ranked per request with empty hints. Here it is the session's head.
#[test]
fn default_is_session_snapshot_head() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(
                ServerVariant::new("compact", "c").with_hint("contextSize", "compact"),
                0,
                "c",
            )
            .variant(
                ServerVariant::new("verbose", "v").with_hint("contextSize", "verbose"),
                1,
                "v",
            )
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let caps = json!({"extensions": {EXTENSION_ID: {"variantHints": {"hints": {"contextSize": "verbose"}}}}});
    let n = router
        .initialize(InitializeInput::new("2025-11-25", Some(&caps)))
        .unwrap();
    assert_eq!(n.session.available_variants(), ["verbose", "compact"]);
    // A hint-less ranking would pick `compact`; the session keeps `verbose`.
    assert_eq!(dispatch(&n.session, "tools/list", None).backend, "v");
    assert_eq!(
        dispatch(&n.session, "prompts/get", Some(&json!({}))).backend,
        "v"
    );
}

// Go: TestGetConnection_InvalidVariant — plus: validation is against the session's list only.
#[test]
fn invalid_selector_error_shape_uses_session_list() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, ())
            .variant(ServerVariant::new("b", "B"), 1, ())
            .variant(ServerVariant::new("hidden-by-limit", "C"), 2, ())
            .discovery_limit(2)
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let n = router
        .initialize(InitializeInput::new("2025-11-25", None))
        .unwrap();
    assert_eq!(
        n.advertisement.unwrap().payload.more_variants_available,
        Some(true)
    );
    for requested in ["nonexistent", "hidden-by-limit", ""] {
        let e = reject(&n.session, "tools/list", Some(&sel(requested)));
        assert_eq!(
            serde_json::to_value(e.to_error_data()).unwrap(),
            json!({"code": -32602, "message": "Invalid server variant",
                   "data": {"requestedVariant": requested, "availableVariants": ["a", "b"]}}),
            "{requested:?}"
        );
    }
    // A non-string selector: no requestedVariant.
    let e = reject(
        &n.session,
        "tools/list",
        Some(&json!({"_meta": {META_KEY: 7}})),
    );
    assert_eq!(
        e.to_error_data().data,
        Some(json!({"availableVariants": ["a", "b"]}))
    );
    // JSON null is "no selector".
    let d = dispatch(
        &n.session,
        "tools/list",
        Some(&json!({"_meta": {META_KEY: null}})),
    );
    assert_eq!(d.variant.as_str(), "a");
}

#[test]
fn error_enumeration_can_be_turned_off() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, ())
            .error_enumeration(false)
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let s = router
        .initialize(InitializeInput::new("2025-11-25", None))
        .unwrap()
        .session;
    let e = reject(&s, "tools/call", Some(&sel("zzz")));
    assert_eq!(
        e.to_error_data().data,
        Some(json!({"requestedVariant": "zzz"}))
    );
}

// Go: TestHandleDirect_MethodRouting, TestHandle_RoutesToCorrectHandler.
#[test]
fn every_scoped_method_dispatches() {
    let s = session(&go_router());
    for (name, method) in crate::methods::SCOPED_METHODS {
        let d = dispatch(&s, name, Some(&sel("compact")));
        assert_eq!(d.method, method, "{name}");
        assert_eq!(d.backend, "compact-backend", "{name}");
        assert_eq!(d.method.method(), name);
    }
}

// Go: TestHandle_UnknownMethodPassthrough — plus: a selector on an unscoped method is validated.
#[test]
fn unscoped_methods_pass_through() {
    let s = session(&go_router());
    for method in [
        "ping",
        "custom/method",
        "logging/setLevel",
        "notifications/initialized",
    ] {
        assert_eq!(
            s.route(&RequestView::new(method, None, &anon())),
            RouteDecision::Passthrough,
            "{method}"
        );
        assert_eq!(
            s.route(&RequestView::new(method, Some(&sel("compact")), &anon())),
            RouteDecision::Passthrough
        );
    }
    let e = reject(&s, "ping", Some(&sel("nope")));
    assert_eq!(e.code(), INVALID_PARAMS);
}

// Go: TestIsNilInterface / *_NilParams — params absent, null, {} or not an object still route.
#[test]
fn params_absent_or_null_still_routes() {
    let s = session(&go_router());
    for params in [None, Some(json!(null)), Some(json!({})), Some(json!([1]))] {
        let d = dispatch(&s, "resources/subscribe", params.as_ref());
        assert_eq!(d.backend, "coding-backend");
        assert_eq!(d.uri, None);
        assert_eq!(
            d.rewrite_params(params.as_ref()),
            json!({"_meta": {META_KEY: "coding"}})
        );
    }
}

// Go: TestHandleDirect_MetaInjection, TestHandleReceive_SessionInjection (no mutation).
#[test]
fn rewrite_params_sets_resolved_variant_on_a_copy() {
    let s = session(&go_router());
    let original = json!({"name": "analyze_code", "arguments": {"x": 1},
                          "_meta": {"progressToken": "p"}});
    let d = dispatch(&s, "tools/call", Some(&original));
    let forwarded = d.rewrite_params(Some(&original));
    assert_eq!(
        forwarded,
        json!({"name": "analyze_code", "arguments": {"x": 1},
               "_meta": {"progressToken": "p", META_KEY: "coding"}})
    );
    assert_eq!(original["_meta"], json!({"progressToken": "p"}));
}

// Go: TestHandleList_CursorRoundTrip, for all four list methods.
#[test]
fn cursor_round_trip_all_list_methods() {
    let s = session(&go_router());
    for kind in [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ] {
        let first = dispatch(&s, kind.method(), Some(&sel("compact")));
        assert_eq!(first.inner_cursor, None);
        let wrapped = s.finish_list(&first, Some("page-2")).unwrap();
        assert_ne!(wrapped, "page-2");
        let params = json!({"cursor": wrapped, "_meta": {META_KEY: "compact"}});
        let next = dispatch(&s, kind.method(), Some(&params));
        assert_eq!(next.inner_cursor.as_deref(), Some("page-2"));
        assert_eq!(
            next.rewrite_params(Some(&params)),
            json!({"cursor": "page-2", "_meta": {META_KEY: "compact"}})
        );
    }
}

// Go: TestHandleList_NoCursor / TestHandleList_NilResult.
#[test]
fn empty_next_cursor_not_wrapped() {
    let s = session(&go_router());
    let d = dispatch(&s, "tools/list", None);
    assert_eq!(s.finish_list(&d, None), None);
    assert_eq!(s.finish_list(&d, Some("")), None);
    let mut result = json!({"tools": [], "nextCursor": ""});
    s.finish_list_result(&d, &mut result);
    assert_eq!(result, json!({"tools": []}));
    let mut null_result = Value::Null;
    s.finish_list_result(&d, &mut null_result);
    assert_eq!(null_result, Value::Null);
    let mut paged = json!({"tools": [], "nextCursor": "2"});
    s.finish_list_result(&d, &mut paged);
    assert!(paged["nextCursor"].as_str().unwrap().starts_with("mcv1."));
}

// Go: TestHandleList_InvalidCursor — garbage never reaches a backend; errors carry activeVariant.
#[test]
fn garbage_cursor_rejected_before_backend() {
    let s = session(&go_router());
    for cursor in [
        json!("page-2"),
        json!("eyJ2IjoiY29tcGFjdCIsImMiOiJwYWdlLTIifQ=="),
        json!(12),
    ] {
        let e = reject(&s, "tools/list", Some(&json!({"cursor": cursor})));
        assert!(matches!(e, VariantError::InvalidCursor { .. }), "{e:?}");
        assert_eq!(e.path(), Some(CURSOR_PATH));
        assert_eq!(
            serde_json::to_value(e.to_error_data()).unwrap(),
            json!({"code": -32602, "message": MSG_INVALID_CURSOR,
                   "data": {"activeVariant": "coding"}})
        );
    }
}

// Go: TestHandleList_CrossVariantCursor.
#[test]
fn cross_variant_cursor_rejected_with_data() {
    let s = session(&go_router());
    let d = dispatch(&s, "tools/list", Some(&sel("coding")));
    let coding_cursor = s.finish_list(&d, Some("2")).unwrap();
    let e = reject(
        &s,
        "tools/list",
        Some(&json!({"cursor": coding_cursor, "_meta": {META_KEY: "compact"}})),
    );
    assert_eq!(
        serde_json::to_value(e.to_error_data()).unwrap(),
        json!({"code": -32602, "message": MSG_CURSOR_MISMATCH,
               "data": {"cursorVariant": "coding", "requestedVariant": "compact",
                        "activeVariant": "compact"}})
    );
}

#[test]
fn cursor_of_another_list_method_or_session_is_refused() {
    let router = go_router();
    let s = session(&router);
    let d = dispatch(&s, "tools/list", None);
    let tools_cursor = s.finish_list(&d, Some("2")).unwrap();
    let e = reject(&s, "prompts/list", Some(&json!({"cursor": tools_cursor})));
    assert!(matches!(
        e,
        VariantError::InvalidCursor {
            reason: CursorError::WrongMethod {
                expected: "prompts/list",
                found: "tools/list"
            },
            ..
        }
    ));
    // Another session (different tag) cannot replay it.
    let other = router
        .initialize(InitializeInput::new("2025-11-25", None).with_session_tag("other"))
        .unwrap()
        .session;
    let e = reject(&other, "tools/list", Some(&json!({"cursor": tools_cursor})));
    assert!(matches!(
        e,
        VariantError::InvalidCursor {
            reason: CursorError::BadSignature,
            ..
        }
    ));
}

#[test]
fn tampered_cursor_is_refused() {
    let s = session(&go_router());
    let d = dispatch(&s, "tools/list", None);
    let good = s.finish_list(&d, Some("2")).unwrap();
    let mut bytes = good.into_bytes();
    let mid = bytes.len() / 3;
    bytes[mid] = if bytes[mid] == b'a' { b'b' } else { b'a' };
    let bad = String::from_utf8(bytes).unwrap();
    let e = reject(&s, "tools/list", Some(&json!({"cursor": bad})));
    assert!(matches!(
        e,
        VariantError::InvalidCursor {
            reason: CursorError::BadSignature | CursorError::Malformed,
            ..
        }
    ));
}

// Go: TestHandleList_ErrorEnrichment.
#[test]
fn dispatch_enriches_backend_errors() {
    let s = session(&go_router());
    let d = dispatch(&s, "tools/call", Some(&sel("compact")));
    let e = d.enrich_error(ErrorData::new(-32602, "Unknown tool: analyze_code"));
    assert_eq!(e.data, Some(json!({"activeVariant": "compact"})));
}

// Header precedence: `_meta` > header > default; an invalid header names the header path.
#[test]
fn header_fallback_and_meta_precedence() {
    let s = session(&go_router());
    let p = anon();
    let both = sel("compact");
    let view = RequestView::new("tools/list", Some(&both), &p).with_header(Some("coding"));
    match s.route(&view) {
        RouteDecision::Dispatch(d) => assert_eq!(d.variant.as_str(), "compact"),
        other => panic!("{other:?}"),
    }
    let view = RequestView::new("tools/list", None, &p).with_header(Some("compact"));
    match s.route(&view) {
        RouteDecision::Dispatch(d) => assert_eq!(d.variant.as_str(), "compact"),
        other => panic!("{other:?}"),
    }
    let view = RequestView::new("tools/list", None, &p).with_header(Some("zzz"));
    match s.route(&view) {
        RouteDecision::Reject(e) => {
            assert_eq!(e.path(), Some(crate::error::HEADER_PATH));
            assert_eq!(
                e.to_error_data().data,
                Some(
                    json!({"requestedVariant": "zzz", "availableVariants": ["coding", "compact"]})
                )
            );
        }
        other => panic!("{other:?}"),
    }
}

// Protocol gating: 2026-07-28 has no session; a disallowed revision disables the session.
#[test]
fn legacy_only_gating() {
    let router = go_router();
    assert_eq!(router.check_sessionless(None, None), Ok(()));
    assert_eq!(
        router.check_sessionless(Some(&json!({"_meta": {}})), None),
        Ok(())
    );
    let e = router
        .check_sessionless(Some(&sel("coding")), None)
        .unwrap_err();
    assert_eq!(
        serde_json::to_value(e.to_error_data()).unwrap(),
        json!({"code": -32602, "message": "Server variants not supported"})
    );
    let e = router.check_sessionless(None, Some("coding")).unwrap_err();
    assert_eq!(e.path(), Some(crate::error::HEADER_PATH));

    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let n = router
            .initialize(InitializeInput::new(v, Some(&opt_in())))
            .unwrap();
        assert!(n.session.is_enabled(), "{v}");
        assert!(n.advertisement.is_some(), "{v}");
    }
    for v in ["2026-07-28", "2030-01-01"] {
        let n = router
            .initialize(InitializeInput::new(v, Some(&opt_in())))
            .unwrap();
        assert!(!n.session.is_enabled(), "{v}");
        assert_eq!(n.advertisement, None);
        assert_eq!(
            reject(&n.session, "tools/list", Some(&sel("coding"))),
            VariantError::NotSupported {
                path: SELECTOR_PATH
            }
        );
        // Without a selector it behaves like a plain server: the default variant serves.
        assert_eq!(
            dispatch(&n.session, "tools/list", None).backend,
            "coding-backend"
        );
    }
    let narrow = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, ())
            .protocols([ProtocolVersion::V2025_11_25])
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let n = narrow
        .initialize(InitializeInput::new("2025-06-18", Some(&opt_in())))
        .unwrap();
    assert!(!n.session.is_enabled());
    assert_eq!(
        n.session.protocol_version(),
        Some(ProtocolVersion::V2025_06_18)
    );
}

// Principals: the session belongs to its creator; anyone else sees an unknown session.
#[test]
fn sessions_are_principal_bound() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("public", "P"), 1, ())
            .variant(ServerVariant::new("staff", "S"), 0, ())
            .visibility(|v: &ServerVariant, p: &PrincipalKey| v.id != "staff" || p.key() == "alice")
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let alice = PrincipalKey::new("alice");
    let bob = PrincipalKey::new("bob");
    let a = router
        .initialize(InitializeInput::new("2025-11-25", None).with_principal(alice.clone()))
        .unwrap()
        .session;
    assert_eq!(a.available_variants(), ["staff", "public"]);
    assert_eq!(a.principal(), &alice);
    assert_eq!(
        a.route(&RequestView::new("tools/list", None, &bob)),
        RouteDecision::Reject(VariantError::UnknownSession)
    );
    let b = router
        .initialize(InitializeInput::new("2025-11-25", None).with_principal(bob.clone()))
        .unwrap()
        .session;
    // Bob never learns that `staff` exists.
    let e = match b.route(&RequestView::new("tools/list", Some(&sel("staff")), &bob)) {
        RouteDecision::Reject(e) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        e.to_error_data().data,
        Some(json!({"requestedVariant": "staff", "availableVariants": ["public"]}))
    );
    // Alice's cursor is useless in Bob's hands, even with his own session.
    let d = match a.route(&RequestView::new(
        "tools/list",
        Some(&sel("public")),
        &alice,
    )) {
        RouteDecision::Dispatch(d) => d,
        other => panic!("{other:?}"),
    };
    let cursor = a.finish_list(&d, Some("2")).unwrap();
    let params = json!({"cursor": cursor, "_meta": {META_KEY: "public"}});
    assert!(matches!(
        b.route(&RequestView::new("tools/list", Some(&params), &bob)),
        RouteDecision::Reject(VariantError::InvalidCursor {
            reason: CursorError::BadSignature,
            ..
        })
    ));
}

// Tagging: list_changed carries the origin; unknown origin stays untagged; others untouched.
#[test]
fn notifications_are_tagged() {
    let mut s = session(&go_router());
    let compact = VariantId::from("compact");
    for method in crate::methods::TAGGED_LIST_CHANGED {
        let out = s.on_backend_notification(Some(&compact), RoutedNotification::new(method, None));
        assert_eq!(
            out,
            vec![RoutedNotification::new(
                method,
                Some(json!({"_meta": {META_KEY: "compact"}}))
            )]
        );
        let global = s.on_backend_notification(None, RoutedNotification::new(method, None));
        assert_eq!(global, vec![RoutedNotification::new(method, None)]);
        // A variant this session never saw: nothing.
        let foreign = VariantId::from("other");
        assert!(
            s.on_backend_notification(Some(&foreign), RoutedNotification::new(method, None))
                .is_empty()
        );
    }
    let progress = RoutedNotification::new(
        "notifications/progress",
        Some(json!({"progressToken": 1, "progress": 0.5})),
    );
    assert_eq!(
        s.on_backend_notification(Some(&compact), progress.clone()),
        vec![progress]
    );
}

// Subscriptions: bound to (variant, uri); updates only for live ones, tagged; tombstones.
#[test]
fn subscriptions_are_variant_bound() {
    let mut s = session(&go_router());
    let uri = "file:///data/metrics.json";
    let sub = |variant: &str| json!({"uri": uri, "_meta": {META_KEY: variant}});
    let d = dispatch(&s, "resources/subscribe", Some(&sub("compact")));
    assert_eq!(d.uri.as_deref(), Some(uri));
    s.record_subscribe(&d);
    assert_eq!(
        s.subscription("compact", uri),
        Some(SubscriptionState::Live)
    );
    assert_eq!(s.subscription("coding", uri), None);

    let update = RoutedNotification::new(RESOURCE_UPDATED, Some(json!({"uri": uri})));
    let compact = VariantId::from("compact");
    let coding = VariantId::from("coding");
    assert_eq!(
        s.on_backend_notification(Some(&compact), update.clone()),
        vec![RoutedNotification::new(
            RESOURCE_UPDATED,
            Some(json!({"uri": uri, "_meta": {META_KEY: "compact"}}))
        )]
    );
    // The same URI changing in another variant is not this subscription's business.
    assert!(
        s.on_backend_notification(Some(&coding), update.clone())
            .is_empty()
    );
    let other_uri = RoutedNotification::new(RESOURCE_UPDATED, Some(json!({"uri": "file:///x"})));
    assert!(s.on_backend_notification(None, other_uri).is_empty());

    // A second subscription on the same URI under `coding` is a separate one.
    let d2 = dispatch(&s, "resources/subscribe", Some(&json!({"uri": uri})));
    s.record_subscribe(&d2);
    assert_eq!(s.on_backend_notification(None, update.clone()).len(), 2);

    // Disappearance: tagged list_changed, no more updates, unsubscribe still succeeds.
    assert_eq!(
        s.on_resource_unavailable(&compact, uri),
        vec![RoutedNotification::new(
            RESOURCES_LIST_CHANGED,
            Some(json!({"_meta": {META_KEY: "compact"}}))
        )]
    );
    assert!(s.on_resource_unavailable(&compact, uri).is_empty());
    assert_eq!(
        s.subscription("compact", uri),
        Some(SubscriptionState::Tombstoned)
    );
    assert!(
        s.on_backend_notification(Some(&compact), update.clone())
            .is_empty()
    );
    let un = dispatch(&s, "resources/unsubscribe", Some(&sub("compact")));
    assert_eq!(s.record_unsubscribe(&un), UnsubscribeOutcome::Tombstoned);
    assert_eq!(s.record_unsubscribe(&un), UnsubscribeOutcome::Unknown);

    // Close returns what is still live and ends the session.
    assert_eq!(s.close(), vec![(coding.clone(), uri.to_owned())]);
    assert_eq!(
        s.route(&RequestView::new("ping", None, &anon())),
        RouteDecision::Reject(VariantError::UnknownSession)
    );
    assert!(s.on_backend_notification(None, update).is_empty());
}

#[test]
fn deprecated_variant_info_is_advertised() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("full", "Full"), 0, ())
            .variant(
                ServerVariant::new("legacy", "Old").deprecated(
                    DeprecationInfo::new("Use full")
                        .with_replacement("full")
                        .with_removal_date("2027-01-31"),
                ),
                1,
                (),
            )
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let n = router
        .initialize(InitializeInput::new("2024-11-05", None))
        .unwrap();
    let payload = serde_json::to_value(n.advertisement.unwrap().payload).unwrap();
    assert_eq!(
        payload["availableVariants"][1],
        json!({"id": "legacy", "description": "Old", "status": "deprecated",
               "deprecationInfo": {"message": "Use full", "replacement": "full",
                                   "removalDate": "2027-01-31"}})
    );
}

#[test]
fn initialize_failures_are_error_frames() {
    let router = VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, ())
            .visibility(|_: &ServerVariant, p: &PrincipalKey| p.key() == "ok")
            .cursor_key(KEY)
            .build()
            .unwrap(),
    );
    let e = router
        .initialize(InitializeInput::new("2025-11-25", None))
        .unwrap_err();
    assert_eq!(
        serde_json::to_value(e.to_error_data()).unwrap(),
        json!({"code": -32603, "message": "No server variants are visible"})
    );
}

// Go: TestIntegration_HTTP — two sessions on one router, different selections, no crosstalk.
#[test]
fn concurrent_sessions_are_isolated() {
    let router = go_router();
    let caps = json!({"extensions": {EXTENSION_ID: {"variantHints": {"hints": {"status": "experimental"}}}}});
    let one = session(&router);
    let two = router
        .initialize(InitializeInput::new("2025-11-25", Some(&caps)).with_session_tag("two"))
        .unwrap()
        .session;
    assert_eq!(one.default_variant().as_str(), "coding");
    assert_eq!(two.default_variant().as_str(), "compact");
    let threads: Vec<_> = [(one, "coding-backend"), (two, "compact-backend")]
        .into_iter()
        .map(|(s, expected)| {
            std::thread::spawn(move || {
                for _ in 0..100 {
                    assert_eq!(
                        dispatch(&s, "tools/call", Some(&json!({"name": "x"}))).backend,
                        expected
                    );
                }
                s
            })
        })
        .collect();
    let sessions: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    // A cursor minted in one session is refused in the other, even for the same variant.
    let d = dispatch(&sessions[0], "tools/list", Some(&sel("coding")));
    let c = sessions[0].finish_list(&d, Some("2")).unwrap();
    assert!(matches!(
        reject(
            &sessions[1],
            "tools/list",
            Some(&json!({"cursor": c, "_meta": {META_KEY: "coding"}}))
        ),
        VariantError::InvalidCursor { .. }
    ));
}

// Go: TestIntegration_HTTP_Stateless — per-request sessions route by selector.
#[test]
fn stateless_session_routes_by_selector() {
    let router = go_router();
    let s = router.stateless_session(anon()).unwrap();
    assert!(s.is_enabled());
    assert_eq!(dispatch(&s, "tools/list", None).backend, "coding-backend");
    assert_eq!(
        dispatch(&s, "tools/call", Some(&sel("compact"))).backend,
        "compact-backend"
    );
    assert!(matches!(
        reject(&s, "tools/call", Some(&sel("zzz"))),
        VariantError::InvalidVariant { .. }
    ));
    // Two stateless sessions of the same principal accept each other's cursors (same binding).
    let d = dispatch(&s, "tools/list", None);
    let c = s.finish_list(&d, Some("4")).unwrap();
    let again = router.stateless_session(anon()).unwrap();
    assert_eq!(
        dispatch(&again, "tools/list", Some(&json!({"cursor": c})))
            .inner_cursor
            .as_deref(),
        Some("4")
    );
}

// 4.1: the payload goes under `extensions`, and also under `experimental` when the client used it.
#[test]
fn go_clients_get_the_payload_where_they_look() {
    let router = go_router();
    let go = router
        .initialize(InitializeInput::new(
            "2025-03-26",
            Some(&json!({"experimental": {EXTENSION_ID: {}}})),
        ))
        .unwrap();
    let mut caps = json!({});
    go.advertisement.unwrap().apply_to(&mut caps);
    assert_eq!(
        caps["experimental"][EXTENSION_ID],
        caps["extensions"][EXTENSION_ID]
    );
    let sep = router
        .initialize(InitializeInput::new("2025-03-26", Some(&opt_in())))
        .unwrap();
    let mut caps = json!({});
    sep.advertisement.unwrap().apply_to(&mut caps);
    assert!(caps.get("experimental").is_none());
    assert!(caps["extensions"][EXTENSION_ID]["availableVariants"].is_array());
}

/// A catalog whose deprecated `old` names `secret` as its replacement; only alice sees `secret`.
fn replacement_router() -> VariantRouter<&'static str> {
    VariantRouter::new(
        VariantCatalog::builder()
            .variant(ServerVariant::new("main", "The default."), 0, "main")
            .variant(ServerVariant::new("secret", "Staff only."), 1, "secret")
            .variant(
                ServerVariant::new("old", "Going away.")
                    .deprecated(DeprecationInfo::new("Moved.").with_replacement("secret")),
                2,
                "old",
            )
            .visibility(|v, p| v.id != "secret" || p.key() == "alice")
            .cursor_key(KEY)
            .build()
            .unwrap(),
    )
}

#[test]
fn a_hidden_variant_never_leaks_through_a_replacement() {
    let router = replacement_router();
    let advertised = |who: &str| {
        let n = router
            .initialize(
                InitializeInput::new("2025-11-25", Some(&opt_in()))
                    .with_principal(PrincipalKey::new(who)),
            )
            .unwrap();
        let mut caps = json!({});
        n.advertisement.unwrap().apply_to(&mut caps);
        caps["extensions"][EXTENSION_ID]["availableVariants"].clone()
    };
    let alice = advertised("alice");
    assert_eq!(alice[2]["deprecationInfo"]["replacement"], "secret");
    let bob = advertised("bob");
    assert_eq!(bob.as_array().unwrap().len(), 2);
    assert_eq!(bob[1]["id"], "old");
    assert_eq!(bob[1]["deprecationInfo"], json!({"message": "Moved."}));
    assert!(!bob.to_string().contains("secret"), "{bob}");
}

#[test]
fn cursors_survive_a_key_rotation_until_the_old_key_is_retired_and_expire() {
    let with_keys = |current: &[u8], previous: Option<&[u8]>| {
        let mut b = VariantCatalog::builder()
            .variant(ServerVariant::new("a", "A"), 0, "a")
            .cursor_key(current)
            .cursor_ttl(std::time::Duration::from_secs(60));
        if let Some(p) = previous {
            b = b.previous_cursor_key(p);
        }
        VariantRouter::new(b.build().unwrap())
    };
    let old_key: &[u8] = b"the-key-before-rotation";
    let new_key: &[u8] = b"the-key-after-rotation!";
    let before = session(&with_keys(old_key, None));
    let anonymous = PrincipalKey::anonymous();
    let view = |params| RequestView::new("tools/list", params, &anonymous);
    let d = match before.route(&view(None).with_now(1_000)) {
        RouteDecision::Dispatch(d) => d,
        other => panic!("{other:?}"),
    };
    let cursor = before.finish_list(&d, Some("page-2")).unwrap();
    let params = json!({"cursor": cursor});
    // The same session after a rotation (same binding: anonymous, no session tag).
    let rotated = session(&with_keys(new_key, Some(old_key)));
    match rotated.route(&view(Some(&params)).with_now(1_030)) {
        RouteDecision::Dispatch(d) => assert_eq!(d.inner_cursor.as_deref(), Some("page-2")),
        other => panic!("accepted after rotation: {other:?}"),
    }
    // Expired 60 s after it was minted.
    match rotated.route(&view(Some(&params)).with_now(1_060)) {
        RouteDecision::Reject(VariantError::InvalidCursor { reason, .. }) => {
            assert_eq!(reason, CursorError::Expired { expired_at: 1_060 });
        }
        other => panic!("expired: {other:?}"),
    }
    // Retired: the old key is gone.
    let retired = session(&with_keys(new_key, None));
    match retired.route(&view(Some(&params)).with_now(1_030)) {
        RouteDecision::Reject(VariantError::InvalidCursor { reason, .. }) => {
            assert_eq!(reason, CursorError::BadSignature);
        }
        other => panic!("retired: {other:?}"),
    }
}
