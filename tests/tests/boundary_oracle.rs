//! Schema oracle with proptest: for generated superset bodies and every revision, `serialize_for`
//! either refuses with a reason (and a table row) or emits a body that the revision's pinned
//! schema accepts; and what it emits parses back to the original minus exactly the reported
//! strips. Cases per property: `PROPTEST_CASES` (default 48).

mod common;

use common::{Body, Kind, Outcome, check_round_trip, translate};
use mcp_wire::ProtocolVersion;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![Just(None), s.prop_map(Some)].boxed()
}

/// Puts the present optional members into an object.
fn obj(members: Vec<(&str, Option<Value>)>) -> Value {
    let mut m = Map::new();
    for (k, v) in members {
        if let Some(v) = v {
            m.insert(k.to_owned(), v);
        }
    }
    Value::Object(m)
}

fn text() -> impl Strategy<Value = String> {
    "[a-z]{1,8}"
}

fn meta() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!({"vendor/key": 1})),
        Just(json!({"io.modelcontextprotocol/related": {"x": true}})),
    ]
    .boxed()
}

fn content_block() -> BoxedStrategy<Value> {
    prop_oneof![
        text().prop_map(|t| json!({"type":"text","text":t})),
        Just(json!({"type":"image","data":"AAAA","mimeType":"image/png"})),
        Just(json!({"type":"audio","data":"AAAA","mimeType":"audio/wav"})),
        text().prop_map(|n| json!({"type":"resource_link","uri":"file:///x","name":n})),
        Just(json!({"type":"resource","resource":{"uri":"file:///x","text":"t"}})),
        (text(), meta()).prop_map(|(t, m)| json!({"type":"text","text":t,"_meta":m,
            "annotations":{"audience":["user"],"priority":0.5}})),
    ]
    .boxed()
}

fn result_type() -> BoxedStrategy<Option<Value>> {
    opt(prop_oneof![
        Just(json!("complete")),
        Just(json!("input_required")),
        Just(json!("task")),
    ])
}

fn call_tool_result() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(content_block(), 0..4),
        opt(prop_oneof![
            Just(json!({"sum": 5})),
            Just(json!([1, 2])),
            Just(json!(5))
        ]),
        opt(any::<bool>()),
        opt(meta()),
        result_type(),
    )
        .prop_map(|(content, sc, err, meta, rt)| {
            obj(vec![
                ("content", Some(Value::Array(content))),
                ("structuredContent", sc),
                ("isError", err.map(Value::from)),
                ("_meta", meta),
                ("resultType", rt),
            ])
        })
}

fn tool() -> impl Strategy<Value = Value> {
    (
        text(),
        opt(text()),
        prop_oneof![
            Just(json!({"type":"object"})),
            Just(json!({"type":"object","properties":{"a":{"type":"number"}},"required":["a"]})),
            Just(json!({"type":"string"})),
        ],
        opt(prop_oneof![
            Just(json!({"type":"object"})),
            Just(json!({"type":"array","items":{"type":"string"}}))
        ]),
        opt(Just(json!({"readOnlyHint": true}))),
        opt(Just(json!({"taskSupport":"optional"}))),
        opt(Just(json!([{"src":"https://x/i.png"}]))),
    )
        .prop_map(|(name, title, input, output, ann, exec, icons)| {
            obj(vec![
                ("name", Some(Value::from(name))),
                ("title", title.map(Value::from)),
                ("inputSchema", Some(input)),
                ("outputSchema", output),
                ("annotations", ann),
                ("execution", exec),
                ("icons", icons),
            ])
        })
}

fn list_tools_result() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(tool(), 0..3),
        opt(text()),
        opt(prop_oneof![Just(json!(0)), Just(json!(60000))]),
        opt(prop_oneof![Just(json!("public")), Just(json!("private"))]),
        result_type(),
    )
        .prop_map(|(tools, cursor, ttl, scope, rt)| {
            obj(vec![
                ("tools", Some(Value::Array(tools))),
                ("nextCursor", cursor.map(Value::from)),
                ("ttlMs", ttl),
                ("cacheScope", scope),
                ("resultType", rt),
            ])
        })
}

fn request_meta() -> BoxedStrategy<Option<Value>> {
    opt(prop_oneof![
        Just(json!({
            "io.modelcontextprotocol/clientInfo": {"name":"c","version":"1"},
            "io.modelcontextprotocol/clientCapabilities": {"roots":{"listChanged":true},"tasks":{"list":{}}}
        })),
        Just(json!({"io.modelcontextprotocol/clientCapabilities": {}, "progressToken": 7})),
        Just(json!({"io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/logLevel": "loud"})),
        Just(json!({"progressToken": "p1"})),
    ])
}

fn call_tool_request() -> impl Strategy<Value = Value> {
    (
        text(),
        opt(Just(json!({"a": 1, "nested": {"task": true}}))),
        request_meta(),
        opt(Just(json!({"ttl": 1000}))),
        opt(Just(json!({"r1": {"roots": [{"uri":"file:///r"}]}}))),
        opt(text()),
    )
        .prop_map(|(name, args, meta, task, responses, state)| {
            json!({"method":"tools/call","params": obj(vec![
                ("_meta", meta),
                ("name", Some(Value::from(name))),
                ("arguments", args),
                ("task", task),
                ("inputResponses", responses),
                ("requestState", state.map(Value::from)),
            ])})
        })
}

fn sampling_content() -> BoxedStrategy<Value> {
    prop_oneof![
        text().prop_map(|t| json!({"type":"text","text":t})),
        Just(json!({"type":"tool_use","id":"c1","name":"w","input":{}})),
        Just(json!([{"type":"text","text":"a"},{"type":"text","text":"b"}])),
    ]
    .boxed()
}

fn create_message_request() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(sampling_content(), 1..3),
        opt(Just(json!([{"name":"w","inputSchema":{"type":"object"}}]))),
        opt(Just(json!({"ttl": 5}))),
    )
        .prop_map(|(contents, tools, task)| {
            let messages: Vec<Value> = contents
                .into_iter()
                .map(|c| json!({"role":"user","content":c}))
                .collect();
            json!({"method":"sampling/createMessage","params": obj(vec![
                ("messages", Some(Value::Array(messages))),
                ("maxTokens", Some(json!(100))),
                ("tools", tools),
                ("task", task),
            ])})
        })
}

fn initialize_result() -> impl Strategy<Value = Value> {
    (
        opt(Just(
            json!({"list": {}, "requests": {"tools": {"call": {}}}}),
        )),
        opt(Just(json!({"io.x/y": {"on": true}}))),
        opt(Just(json!({}))),
    )
        .prop_map(|(tasks, ext, completions)| {
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": obj(vec![
                    ("tools", Some(json!({"listChanged": true}))),
                    ("tasks", tasks),
                    ("extensions", ext),
                    ("completions", completions),
                ]),
                "serverInfo": {"name": "s", "version": "1"}
            })
        })
}

fn elicit_result() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        prop_oneof![
            Just(json!("x")),
            Just(json!(1.5)),
            Just(json!(true)),
            Just(json!(["a", "b"])),
            Just(Value::Null),
            Just(json!(2)),
        ],
        0..3,
    )
    .prop_map(|values| {
        let content: Map<String, Value> = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("k{i}"), v))
            .collect();
        json!({"action":"accept","content":content})
    })
}

/// One property of an elicitation form, in every shape some revision defines: string, number,
/// boolean, the legacy `enum` (+ `enumNames`), and 2025-11-25's titled and untitled single- and
/// multi-select enums; with the optional title, description and default.
fn form_property() -> BoxedStrategy<Value> {
    let options = || prop::collection::vec((text(), text()), 1..4);
    let values = || prop::collection::vec(text(), 1..4);
    let shape = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "format": "email", "minLength": 1})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": "boolean", "default": false})),
        values().prop_map(|e| json!({"type": "string", "enum": e})),
        values().prop_map(|e| {
            let names: Vec<String> = e.iter().map(|x| x.to_uppercase()).collect();
            json!({"type": "string", "enum": e, "enumNames": names})
        }),
        options().prop_map(|o| {
            let one_of: Vec<Value> = o
                .iter()
                .map(|(c, t)| json!({"const": c, "title": t}))
                .collect();
            json!({"type": "string", "oneOf": one_of})
        }),
        values().prop_map(|e| json!({"type": "array", "items": {"type": "string", "enum": e}})),
        options().prop_map(|o| {
            let any_of: Vec<Value> = o
                .iter()
                .map(|(c, t)| json!({"const": c, "title": t}))
                .collect();
            json!({"type": "array", "items": {"anyOf": any_of}, "maxItems": 2})
        }),
    ];
    (shape, opt(text()), opt(text()), any::<bool>())
        .prop_map(|(mut p, title, description, with_default)| {
            let m = p.as_object_mut().expect("an object");
            if let Some(t) = title {
                m.insert("title".into(), t.into());
            }
            if let Some(d) = description {
                m.insert("description".into(), d.into());
            }
            // A default of the member's own kind.
            if with_default && !m.contains_key("default") {
                let first = m
                    .get("enum")
                    .and_then(|e| e.get(0))
                    .or_else(|| {
                        m.get("oneOf")
                            .and_then(|o| o.get(0))
                            .and_then(|o| o.get("const"))
                    })
                    .cloned();
                let default = match m["type"].as_str() {
                    Some("string") => Some(first.unwrap_or_else(|| json!("d"))),
                    Some("integer") => Some(json!(3)),
                    Some("array") => m
                        .get("items")
                        .and_then(|i| {
                            i.get("enum").and_then(|e| e.get(0)).or_else(|| {
                                i.get("anyOf")
                                    .and_then(|o| o.get(0))
                                    .and_then(|o| o.get("const"))
                            })
                        })
                        .map(|x| json!([x])),
                    _ => None,
                };
                if let Some(d) = default {
                    m.insert("default".into(), d);
                }
            }
            p
        })
        .boxed()
}

fn elicit_request() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(form_property(), 0..4),
        opt(Just(json!("form"))),
    )
        .prop_map(|(properties, mode)| {
            let properties: Map<String, Value> = properties
                .into_iter()
                .enumerate()
                .map(|(i, p)| (format!("f{i}"), p))
                .collect();
            json!({"method": "elicitation/create", "params": obj(vec![
                ("mode", mode),
                ("message", Some(json!("Please fill in"))),
                ("requestedSchema", Some(json!({"type": "object", "properties": properties}))),
            ])})
        })
}

fn input_required_result() -> impl Strategy<Value = Value> {
    (
        opt(prop_oneof![
            Just(json!({})),
            Just(json!({"r1": {"method": "roots/list"}})),
        ]),
        opt(text()),
    )
        .prop_map(|(reqs, state)| {
            obj(vec![
                ("resultType", Some(json!("input_required"))),
                ("inputRequests", reqs),
                ("requestState", state.map(Value::from)),
            ])
        })
}

fn cancelled() -> impl Strategy<Value = Value> {
    (opt(Just(json!("r-1"))), opt(text())).prop_map(|(id, reason)| {
        json!({"method":"notifications/cancelled","params": obj(vec![
            ("requestId", id),
            ("reason", reason.map(Value::from)),
        ])})
    })
}

/// Parses at `source` and checks every revision.
fn check_from(
    source: ProtocolVersion,
    kind: Kind<'static>,
    method: &'static str,
    json: &Value,
) -> Result<(), TestCaseError> {
    let Ok(body) = Body::parse(kind, json, source) else {
        return Err(TestCaseError::reject("not a superset value"));
    };
    for v in ProtocolVersion::ALL {
        if let Outcome::Valid(value, report) = translate(&body, v, &json.to_string()) {
            check_round_trip(&body, &value, &report, v, method, &json.to_string());
        }
    }
    Ok(())
}

fn check(kind: Kind<'static>, method: &'static str, json: &Value) -> Result<(), TestCaseError> {
    check_from(ProtocolVersion::V2025_11_25, kind, method, json)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn call_tool_results(json in call_tool_result()) {
        check(Kind::Result("tools/call"), "tools/call", &json)?;
    }

    #[test]
    fn list_tools_results(json in list_tools_result()) {
        check(Kind::Result("tools/list"), "tools/list", &json)?;
    }

    #[test]
    fn call_tool_requests(json in call_tool_request()) {
        check(Kind::ClientRequest, "", &json)?;
    }

    #[test]
    fn sampling_requests(json in create_message_request()) {
        check(Kind::ServerRequest, "", &json)?;
    }

    #[test]
    fn initialize_results(json in initialize_result()) {
        check(Kind::Result("initialize"), "initialize", &json)?;
    }

    #[test]
    fn elicit_results(json in elicit_result()) {
        check(Kind::Result("elicitation/create"), "elicitation/create", &json)?;
    }

    #[test]
    fn elicit_requests(json in elicit_request()) {
        check(Kind::ServerRequest, "", &json)?;
        // Real 2025-06-18 peers send 2025-11-25 form shapes early: read at 2025-06-18 too.
        check_from(ProtocolVersion::V2025_06_18, Kind::ServerRequest, "", &json)?;
    }

    #[test]
    fn input_required_results(json in input_required_result()) {
        check_from(ProtocolVersion::V2026_07_28, Kind::Result("tools/call"), "tools/call", &json)?;
    }

    #[test]
    fn cancelled_notifications(json in cancelled()) {
        check(Kind::ClientNotification, "", &json)?;
    }
}
