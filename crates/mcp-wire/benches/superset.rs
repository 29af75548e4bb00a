//! Hot paths of the superset model: parse a frame's envelope, type its body by method, and emit it
//! again. Each is measured next to the plain `serde_json` baseline for the same text (parse into /
//! serialize from `serde_json::Value`), so the report reads as "typing costs N× a plain parse".

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_wire::jsonrpc::{JsonRpcMessage, RawMessage};
use mcp_wire::model::{ClientNotification, ClientRequest, ServerResult};
use serde_json::Value;

const REQUEST: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"capture-driver","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{},"roots":{}}}}}"#;

const RESPONSE: &str = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"text":"{\"city\": \"Oslo\", \"temperature_c\": 21.5}","type":"text"},{"type":"resource_link","uri":"config://app","name":"app-config","mimeType":"application/json"}],"isError":false,"resultType":"complete","structuredContent":{"city":"Oslo","temperature_c":21.5,"conditions":"Sunny"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pysdk-example","version":"0.1.0"}}}}"#;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("superset");
    group.bench_function("baseline: request text -> Value", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(REQUEST)).unwrap())
    });
    group.bench_function("request text -> typed ClientRequest frame", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_str(std::hint::black_box(REQUEST)).unwrap();
            JsonRpcMessage::<ClientRequest, ClientNotification, Value>::from_value(value).unwrap()
        })
    });
    group.bench_function("baseline: response text -> Value", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(RESPONSE)).unwrap())
    });
    group.bench_function("response text -> ServerResult by method", |b| {
        b.iter(|| {
            let JsonRpcMessage::Response(r) =
                RawMessage::from_json(std::hint::black_box(RESPONSE)).unwrap()
            else {
                unreachable!()
            };
            ServerResult::from_method("tools/call", Value::Object(r.result)).unwrap()
        })
    });
    let value: Value = serde_json::from_str(RESPONSE).unwrap();
    let JsonRpcMessage::Response(r) = RawMessage::from_value(value.clone()).unwrap() else {
        unreachable!()
    };
    let typed = ServerResult::from_method("tools/call", Value::Object(r.result)).unwrap();
    group.bench_function("baseline: Value -> text", |b| {
        b.iter(|| serde_json::to_string(std::hint::black_box(&value["result"])).unwrap())
    });
    group.bench_function("typed ServerResult -> text", |b| {
        b.iter(|| serde_json::to_string(std::hint::black_box(&typed)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
