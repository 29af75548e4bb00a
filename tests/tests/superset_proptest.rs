//! Property tests: generated superset values survive serialize → parse unchanged (compared both
//! as typed values and as JSON). Case count: `PROPTEST_CASES` (default 64, kept small for CI).

use mcp_wire::jsonrpc::{
    JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId,
};
use mcp_wire::model::*;
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

fn check<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let json = serde_json::to_value(value).expect("serializes");
    let back: T = from_value(json.clone()).unwrap_or_else(|e| panic!("{e}\n{json}"));
    assert_eq!(&back, value, "{json}");
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
}

fn key() -> impl Strategy<Value = String> {
    "[a-zA-Z_/.]{1,12}"
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,16}"
}

fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        (-1.0e6f64..1.0e6).prop_map(|f| Number::from_f64(f).unwrap()),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((key(), json()), 0..4).prop_map(|kv| kv.into_iter().collect())
}

fn meta() -> impl Strategy<Value = Option<Meta>> {
    prop::option::of(object().prop_map(Meta::from))
}

fn set_meta<T>(t: T, meta: Option<Meta>, with: fn(T, Meta) -> T) -> T {
    match meta {
        Some(m) => with(t, m),
        None => t,
    }
}

fn annotations() -> impl Strategy<Value = Option<Annotations>> {
    prop::option::of(
        (
            prop::option::of(prop::collection::vec(
                prop_oneof![Just(Role::User), Just(Role::Assistant)],
                0..3,
            )),
            prop::option::of(number()),
        )
            .prop_map(|(aud, pri)| {
                let mut a = Annotations::new();
                if let Some(aud) = aud {
                    a = a.with_audience(aud);
                }
                if let Some(p) = pri {
                    a = a.with_priority(p);
                }
                a
            }),
    )
}

fn content_block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        (text(), annotations(), meta()).prop_map(|(t, a, m)| {
            let mut c = TextContent::new(t);
            if let Some(a) = a {
                c = c.with_annotations(a);
            }
            set_meta(c, m, TextContent::with_meta).into()
        }),
        (text(), text()).prop_map(|(d, mt)| ImageContent::new(d, mt).into()),
        (text(), text()).prop_map(|(d, mt)| AudioContent::new(d, mt).into()),
        (text(), text(), prop::option::of(any::<u64>())).prop_map(|(u, n, s)| {
            let mut l = ResourceLink::new(u, n);
            if let Some(s) = s {
                l = l.with_size(s);
            }
            l.into()
        }),
        (text(), text(), any::<bool>()).prop_map(|(u, body, blob)| {
            let contents: ResourceContents = if blob {
                BlobResourceContents::new(u, body).into()
            } else {
                TextResourceContents::new(u, body)
                    .with_mime_type("text/plain")
                    .into()
            };
            EmbeddedResource::new(contents).into()
        }),
    ]
}

fn call_tool_result() -> impl Strategy<Value = CallToolResult> {
    (
        prop::collection::vec(content_block(), 0..4),
        prop::option::of(json()),
        prop::option::of(any::<bool>()),
        prop::option::of(prop_oneof![
            Just(ResultType::Complete),
            Just(ResultType::InputRequired),
            "[a-z]{1,8}".prop_map(|s| ResultType::from(s.as_str())),
        ]),
        meta(),
    )
        .prop_map(|(content, sc, err, rt, m)| {
            let mut r = CallToolResult::new(content);
            if let Some(sc) = sc {
                r = r.with_structured_content(sc);
            }
            if let Some(e) = err {
                r = r.with_is_error(e);
            }
            if let Some(rt) = rt {
                r = r.with_result_type(rt);
            }
            set_meta(r, m, CallToolResult::with_meta)
        })
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        text(),
        object(),
        prop::option::of(object()),
        prop::option::of(text()),
        any::<bool>(),
    )
        .prop_map(|(name, input, output, title, ro)| {
            let mut t = Tool::new(name, input)
                .with_annotations(ToolAnnotations::new().with_read_only_hint(ro));
            if let Some(o) = output {
                t = t.with_output_schema(o);
            }
            if let Some(title) = title {
                t = t.with_title(title);
            }
            t
        })
}

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Integer),
        text().prop_map(RequestId::String)
    ]
}

fn client_request() -> impl Strategy<Value = ClientRequest> {
    prop_oneof![
        meta().prop_map(|m| {
            let p = PingRequest::new();
            match m {
                Some(m) => p.with_params(RequestParams::new().with_meta(m)).into(),
                None => p.into(),
            }
        }),
        (text(), prop::option::of(object()), meta()).prop_map(|(n, args, m)| {
            let mut p = CallToolRequestParams::new(n);
            if let Some(a) = args {
                p = p.with_arguments(a);
            }
            CallToolRequest::new(set_meta(p, m, CallToolRequestParams::with_meta)).into()
        }),
        prop::option::of(text()).prop_map(|c| {
            let r = ListToolsRequest::new();
            match c {
                Some(c) => r
                    .with_params(PaginatedRequestParams::new().with_cursor(c))
                    .into(),
                None => r.into(),
            }
        }),
        (text(), text(), object()).prop_map(|(v, n, exp)| {
            InitializeRequest::new(InitializeRequestParams::new(
                v,
                ClientCapabilities::new().with_experimental(exp),
                Implementation::new(n, "1"),
            ))
            .into()
        }),
        (text(), text(), any::<bool>()).prop_map(|(name, value, prompt)| {
            let r: CompleteReference = if prompt {
                PromptReference::new(name.clone()).into()
            } else {
                ResourceTemplateReference::new(name.clone()).into()
            };
            CompleteRequest::new(CompleteRequestParams::new(
                r,
                CompletionArgument::new(name, value),
            ))
            .into()
        }),
        (any::<bool>(), prop::collection::vec(text(), 0..3)).prop_map(|(t, uris)| {
            SubscriptionsListenRequest::new(SubscriptionsListenRequestParams::new(
                SubscriptionFilter::new()
                    .with_tools_list_changed(t)
                    .with_resource_subscriptions(uris),
            ))
            .into()
        }),
    ]
}

fn server_notification() -> impl Strategy<Value = ServerNotification> {
    prop_oneof![
        (
            request_id(),
            number(),
            prop::option::of(number()),
            prop::option::of(text())
        )
            .prop_map(|(tok, progress, total, msg)| {
                let tok = match tok {
                    RequestId::Integer(i) => ProgressToken::Integer(i),
                    RequestId::String(s) => ProgressToken::String(s),
                };
                let mut p = ProgressNotificationParams::new(tok, progress);
                if let Some(t) = total {
                    p = p.with_total(t);
                }
                if let Some(m) = msg {
                    p = p.with_message(m);
                }
                ProgressNotification::new(p).into()
            }),
        (json(), prop::option::of(text())).prop_map(|(data, logger)| {
            let mut p = LoggingMessageNotificationParams::new(LoggingLevel::Warning, data);
            if let Some(l) = logger {
                p = p.with_logger(l);
            }
            LoggingMessageNotification::new(p).into()
        }),
        text().prop_map(|u| {
            ResourceUpdatedNotification::new(ResourceUpdatedNotificationParams::new(u)).into()
        }),
        Just(ToolListChangedNotification::new().into()),
    ]
}

fn primitive_schema() -> impl Strategy<Value = PrimitiveSchemaDefinition> {
    let values = || prop::collection::vec(text(), 1..4);
    prop_oneof![
        prop::option::of(text()).prop_map(|d| {
            let mut s = StringSchema::new().with_format(StringFormat::Email);
            if let Some(d) = d {
                s = s.with_default(d);
            }
            PrimitiveSchemaDefinition::String(s)
        }),
        (number(), any::<bool>()).prop_map(|(min, int)| {
            let ty = if int {
                NumberType::Integer
            } else {
                NumberType::Number
            };
            PrimitiveSchemaDefinition::Number(NumberSchema::new(ty).with_minimum(min))
        }),
        any::<bool>()
            .prop_map(|d| PrimitiveSchemaDefinition::Boolean(BooleanSchema::new().with_default(d))),
        values().prop_map(|v| {
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(
                UntitledSingleSelectEnumSchema::new(v),
            )
        }),
        values().prop_map(|v| {
            let opts = v
                .into_iter()
                .map(|x| EnumOption::new(x.clone(), x))
                .collect();
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(TitledSingleSelectEnumSchema::new(
                opts,
            ))
        }),
        values().prop_map(|v| {
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema::new(
                UntitledEnumItems::new(v),
            ))
        }),
        values().prop_map(|v| {
            let opts = v
                .into_iter()
                .map(|x| EnumOption::new(x.clone(), x))
                .collect();
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(TitledMultiSelectEnumSchema::new(
                TitledEnumItems::new(opts),
            ))
        }),
        (values(), values()).prop_map(|(v, names)| {
            PrimitiveSchemaDefinition::LegacyTitledEnum(
                LegacyTitledEnumSchema::new(v).with_enum_names(names),
            )
        }),
    ]
}

fn input_request() -> impl Strategy<Value = InputRequest> {
    prop_oneof![
        (
            text(),
            prop::collection::vec((key(), primitive_schema()), 0..4)
        )
            .prop_map(|(msg, props)| {
                let schema = ElicitRequestedSchema::new(props.into_iter().collect());
                let params = ElicitRequestFormParams::new(msg, schema).with_mode(FormMode);
                ElicitRequest::new(params.into()).into()
            }),
        (text(), text()).prop_map(|(msg, url)| {
            ElicitRequest::new(ElicitRequestURLParams::new(msg, url).into()).into()
        }),
        (
            prop::collection::vec(content_block_for_sampling(), 1..3),
            1i64..4096
        )
            .prop_map(|(blocks, max)| {
                let messages = blocks
                    .into_iter()
                    .map(|b| SamplingMessage::new(Role::User, b.into()))
                    .collect();
                CreateMessageRequest::new(CreateMessageRequestParams::new(messages, max)).into()
            }),
        Just(ListRootsRequest::new().into()),
    ]
}

fn content_block_for_sampling() -> impl Strategy<Value = SamplingMessageContentBlock> {
    prop_oneof![
        text().prop_map(|t| SamplingMessageContentBlock::from(t.as_str())),
        (text(), text(), object()).prop_map(|(id, name, input)| {
            SamplingMessageContentBlock::ToolUse(ToolUseContent::new(id, name, input))
        }),
        (
            text(),
            prop::collection::vec(content_block(), 0..2),
            prop::option::of(json())
        )
            .prop_map(|(id, content, sc)| {
                let mut r = ToolResultContent::new(id, content);
                if let Some(sc) = sc {
                    r = r.with_structured_content(sc);
                }
                SamplingMessageContentBlock::ToolResult(r)
            }),
    ]
}

fn input_required_result() -> impl Strategy<Value = InputRequiredResult> {
    (
        prop::option::of(prop::collection::vec((key(), input_request()), 0..3)),
        prop::option::of(text()),
    )
        .prop_map(|(reqs, state)| {
            let mut r = InputRequiredResult::new().with_result_type(ResultType::InputRequired);
            if let Some(reqs) = reqs {
                r = r.with_input_requests(reqs.into_iter().collect());
            }
            if let Some(s) = state {
                r = r.with_request_state(s);
            }
            r
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn content_blocks_round_trip(c in content_block()) {
        check(&c);
    }

    #[test]
    fn call_tool_results_round_trip(r in call_tool_result()) {
        check(&r);
        let json = serde_json::to_value(&r).unwrap();
        let typed = ServerResult::from_method("tools/call", json.clone()).unwrap();
        // An `input_required` resultType routes to InputRequiredResult by design; everything
        // else stays a CallToolResult and re-serializes identically.
        if r.result_type != Some(ResultType::InputRequired) {
            prop_assert_eq!(serde_json::to_value(typed).unwrap(), json);
        }
    }

    #[test]
    fn tools_round_trip(t in tool()) {
        check(&t);
        check(&ListToolsResult::new(vec![t]).with_next_cursor("c").with_ttl_ms(0));
    }

    #[test]
    fn client_request_frames_round_trip(id in request_id(), r in client_request()) {
        check(&r);
        let frame: JsonRpcMessage<ClientRequest, ClientNotification, JsonObject> =
            JsonRpcMessage::Request(JsonRpcRequest::new(id, r));
        check(&frame);
    }

    #[test]
    fn server_notification_frames_round_trip(n in server_notification()) {
        check(&n);
        let frame: JsonRpcMessage<ServerRequest, ServerNotification, JsonObject> =
            JsonRpcMessage::Notification(JsonRpcNotification::new(n));
        check(&frame);
    }

    #[test]
    fn response_frames_round_trip(id in request_id(), result in object()) {
        let frame: JsonRpcMessage = JsonRpcMessage::Response(JsonRpcResponse::new(id, result));
        check(&frame);
    }

    #[test]
    fn input_required_results_round_trip(r in input_required_result()) {
        check(&r);
        let json = serde_json::to_value(&r).unwrap();
        for method in ["tools/call", "prompts/get", "resources/read"] {
            let typed = ServerResult::from_method(method, json.clone()).unwrap();
            prop_assert!(matches!(typed, ServerResult::InputRequired(_)));
            prop_assert_eq!(serde_json::to_value(typed).unwrap(), json.clone());
        }
    }

    #[test]
    fn sampling_results_round_trip(blocks in prop::collection::vec(content_block_for_sampling(), 1..4), many in any::<bool>()) {
        let content = if many {
            SamplingContent::Multiple(blocks)
        } else {
            SamplingContent::Single(blocks.into_iter().next().unwrap())
        };
        let r = CreateMessageResult::new(Role::Assistant, content, "m").with_stop_reason("endTurn");
        check(&r);
        let typed = ClientResult::from_method("sampling/createMessage", serde_json::to_value(&r).unwrap()).unwrap();
        prop_assert_eq!(typed, ClientResult::CreateMessage(r));
    }
}
