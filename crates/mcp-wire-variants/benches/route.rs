//! Hot path of a variant-aware server: route a request (selector lookup, cursor verification) and
//! wrap the next cursor. Measured next to the plain `serde_json` parse of the same frame, which
//! every server pays anyway, so the report reads as "routing costs N× a parse".

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_wire_variants::{
    InitializeInput, PrincipalKey, RequestView, RouteDecision, ServerVariant, VariantCatalog,
    VariantRouter, VariantStatus,
};
use serde_json::{Value, json};

fn bench(c: &mut Criterion) {
    let catalog = VariantCatalog::builder()
        .variant(ServerVariant::new("compact", "c"), 0, 0usize)
        .variant(ServerVariant::new("full", "f"), 1, 1usize)
        .variant(
            ServerVariant::new("preview", "p").with_status(VariantStatus::Experimental),
            2,
            2usize,
        )
        .cursor_key(b"bench-key-bench-key-bench-key")
        .build()
        .expect("valid catalog");
    let router = VariantRouter::new(catalog);
    let session = router
        .initialize(InitializeInput::new("2025-11-25", None))
        .expect("negotiates")
        .session;
    let anonymous = PrincipalKey::anonymous();

    // A continuation frame: selector plus a cursor minted under the same variant.
    let first = json!({"_meta": {"io.modelcontextprotocol/server-variant": "full"}});
    let RouteDecision::Dispatch(d) =
        session.route(&RequestView::new("tools/list", Some(&first), &anonymous))
    else {
        panic!("first page routes");
    };
    let cursor = session.finish_list(&d, Some("40")).expect("wrapped");
    let frame = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list",
        "params": {"cursor": cursor, "_meta": {"io.modelcontextprotocol/server-variant": "full"}}})
    .to_string();

    let mut group = c.benchmark_group("tools_list_continuation");
    group.bench_function("baseline_serde_json_parse", |b| {
        b.iter(|| serde_json::from_str::<Value>(&frame).expect("json"))
    });
    group.bench_function("parse_route_and_rewrap", |b| {
        b.iter(|| {
            let v: Value = serde_json::from_str(&frame).expect("json");
            let RouteDecision::Dispatch(d) =
                session.route(&RequestView::new("tools/list", v.get("params"), &anonymous))
            else {
                panic!("routes");
            };
            let forwarded = d.rewrite_params(v.get("params"));
            (forwarded, session.finish_list(&d, Some("42")))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
