//! Unit tests of the model: tags, paths, open/closed objects, numbers, builders, results by
//! method.

use serde_json::{Value, json};

use super::*;
use crate::jsonrpc::RequestId;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(v: Value) -> Value {
    let t: T = from_value(v).expect("parses");
    serde_json::to_value(t).expect("serializes")
}

fn unknown_tag(e: &ModelError) -> (&str, &str) {
    match &e.kind {
        ModelErrorKind::UnknownTag { field, tag, .. } => (field, tag),
        other => panic!("expected an unknown tag, got {other:?} at {}", e.path),
    }
}

#[test]
fn unknown_content_tag_names_tag_and_path() {
    let err = from_value::<CallToolResult>(json!({
        "content": [{"type": "text", "text": "ok"}, {"type": "carousel-deck", "slides": []}]
    }))
    .unwrap_err();
    assert_eq!(err.path.pointer(), "/content/1");
    assert_eq!(unknown_tag(&err), ("type", "carousel-deck"));
    assert_eq!(err.code(), codes::INVALID_PARAMS);
    let ModelErrorKind::UnknownTag { expected, .. } = &err.kind else {
        unreachable!()
    };
    assert_eq!(expected, "text, image, audio, resource_link, resource");
}

#[test]
fn nested_union_errors_keep_the_full_path() {
    let err = from_value::<GetPromptResult>(json!({
        "messages": [{"role": "user", "content": {"type": "holo"}}]
    }))
    .unwrap_err();
    assert_eq!(err.path.pointer(), "/messages/0/content");
    assert_eq!(unknown_tag(&err), ("type", "holo"));

    // A recognised tag with a bad member keeps the member's own error and path.
    let err = from_value::<ServerRequest>(json!({
        "method": "sampling/createMessage",
        "params": {"maxTokens": 5, "messages": [{"role": "user", "content": {"type": "text"}}]}
    }))
    .unwrap_err();
    assert_eq!(err.path.pointer(), "/params/messages/0/content");
    assert!(
        matches!(&err.kind, ModelErrorKind::Invalid(m) if m.contains("text")),
        "{err}"
    );

    let err = from_value::<SamplingMessage>(json!({
        "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "holo"}]
    }))
    .unwrap_err();
    assert_eq!(err.path.pointer(), "/content/1");
    assert_eq!(unknown_tag(&err), ("type", "holo"));
}

#[test]
fn unknown_and_missing_methods() {
    let err = from_value::<ClientRequest>(json!({"method": "bogus/method"})).unwrap_err();
    assert_eq!(unknown_tag(&err), ("method", "bogus/method"));
    assert_eq!(err.path.pointer(), "");
    assert_eq!(err.code(), codes::METHOD_NOT_FOUND);

    // Server-only methods are unknown to the client union and vice versa.
    let err = from_value::<ClientRequest>(json!({"method": "roots/list"})).unwrap_err();
    assert_eq!(unknown_tag(&err), ("method", "roots/list"));
    let err = from_value::<ServerNotification>(json!({"method": "notifications/initialized"}))
        .unwrap_err();
    assert_eq!(unknown_tag(&err).1, "notifications/initialized");

    // No method-less request is guessed into some member.
    let err = from_value::<ClientRequest>(json!({"params": {"name": "x"}})).unwrap_err();
    assert_eq!(
        err.kind,
        ModelErrorKind::MissingTag {
            field: "method".into()
        }
    );
    let err = from_value::<ClientRequest>(json!({"method": 3})).unwrap_err();
    assert_eq!(
        err.kind,
        ModelErrorKind::MissingTag {
            field: "method".into()
        }
    );

    // A missing `type` on content is a missing tag, not a default.
    let err = from_value::<ContentBlock>(json!({"text": "no tag"})).unwrap_err();
    assert_eq!(
        err.kind,
        ModelErrorKind::MissingTag {
            field: "type".into()
        }
    );
}

#[test]
fn standalone_members_check_their_tag() {
    let err = from_value::<TextContent>(json!({"type": "image", "text": "x"})).unwrap_err();
    assert_eq!(err.path.pointer(), "/type");
    let err =
        from_value::<CallToolRequest>(json!({"method": "tools/list", "params": {"name": "x"}}))
            .unwrap_err();
    assert_eq!(err.path.pointer(), "/method");
}

#[test]
fn requests_dispatch_on_method() {
    let req: ClientRequest = from_value(json!({
        "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}
    }))
    .unwrap();
    match &req {
        ClientRequest::CallTool(c) => {
            assert_eq!(c.params.name, "add");
            assert_eq!(c.params.arguments.as_ref().unwrap()["a"], json!(1));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(req.method(), "tools/call");
    // Absent params stay absent.
    let v = json!({"method": "tools/list"});
    assert_eq!(round_trip::<ClientRequest>(v.clone()), v);
    let v = json!({"method": "ping", "params": {"_meta": {"progressToken": "t"}}});
    assert_eq!(round_trip::<ServerRequest>(v.clone()), v);
}

#[test]
fn numbers_keep_their_json_form() {
    let v = json!({"progressToken": 1, "progress": 1, "total": 2.5});
    assert_eq!(round_trip::<ProgressNotificationParams>(v.clone()), v);
    let back =
        serde_json::to_string(&from_value::<ProgressNotificationParams>(v).unwrap()).unwrap();
    assert!(back.contains("\"progress\":1,"), "{back}");
    let v = json!({"audience": ["user"], "priority": 1});
    assert_eq!(round_trip::<Annotations>(v.clone()), v);
}

#[test]
fn closed_objects_ignore_unknown_keys_open_ones_keep_them() {
    let v = json!({"content": [], "futureField": {"x": 1}});
    assert_eq!(round_trip::<CallToolResult>(v), json!({"content": []}));

    let caps = json!({
        "tools": {"listChanged": true, "vendorFlag": 1},
        "experimental": {"x": {"y": 2}},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
        "futureCapability": {"z": true}
    });
    assert_eq!(round_trip::<ServerCapabilities>(caps.clone()), caps);

    let tool = json!({
        "name": "t",
        "inputSchema": {"type": "object", "$defs": {"a": {}}, "x-mcp-header": "h"},
        "outputSchema": {"type": "array", "items": {"type": "string"}}
    });
    assert_eq!(round_trip::<Tool>(tool.clone()), tool);

    let meta = json!({"_meta": {"vendor/key": [1, 2], "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}});
    let r: EmptyResult = from_value(meta.clone()).unwrap();
    assert_eq!(
        r.meta
            .as_ref()
            .unwrap()
            .server_info()
            .unwrap()
            .unwrap()
            .name,
        "s"
    );
    assert_eq!(serde_json::to_value(r).unwrap(), meta);

    let filter = json!({"toolsListChanged": true, "taskIds": ["a"]});
    assert_eq!(round_trip::<SubscriptionFilter>(filter.clone()), filter);
}

#[test]
fn builders_and_from() {
    let tool = Tool::new("add", Tool::empty_input_schema())
        .with_title("Add")
        .with_annotations(ToolAnnotations::new().with_read_only_hint(true));
    assert_eq!(
        serde_json::to_value(&tool).unwrap(),
        json!({"name": "add", "title": "Add", "inputSchema": {"type": "object"},
               "annotations": {"readOnlyHint": true}})
    );
    assert_eq!(
        serde_json::to_value(ContentBlock::from("hi")).unwrap(),
        json!({"type": "text", "text": "hi"})
    );
    assert_eq!(
        serde_json::to_value(CallToolResult::error("boom")).unwrap(),
        json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
    );
    let req = CallToolRequest::new(CallToolRequestParams::new("add"));
    assert_eq!(
        serde_json::to_value(ClientRequest::from(req)).unwrap(),
        json!({"method": "tools/call", "params": {"name": "add"}})
    );
    assert_eq!(
        serde_json::to_value(ListToolsRequest::new()).unwrap(),
        json!({"method": "tools/list"})
    );
    let result = InitializeResult::new(
        "2025-06-18",
        ServerCapabilities::new().with_tools(ToolsCapability::new().with_list_changed(true)),
        Implementation::new("srv", "1.0"),
    );
    assert_eq!(
        serde_json::to_value(ServerResult::from(result)).unwrap(),
        json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}},
               "serverInfo": {"name": "srv", "version": "1.0"}})
    );
}

#[test]
fn results_are_typed_by_method() {
    let irr = json!({"resultType": "input_required", "requestState": "s",
                     "inputRequests": {"k": {"method": "roots/list"}}});
    match ServerResult::from_method("tools/call", irr.clone()).unwrap() {
        ServerResult::InputRequired(r) => {
            assert_eq!(r.request_state.as_deref(), Some("s"));
            assert!(matches!(
                r.input_requests.unwrap()["k"],
                InputRequest::ListRoots(_)
            ));
        }
        other => panic!("{other:?}"),
    }
    // The same body for a method that cannot be answered by input-required stays that method's.
    assert!(matches!(
        ServerResult::from_method(
            "prompts/list",
            json!({"prompts": [], "resultType": "input_required"})
        )
        .unwrap(),
        ServerResult::ListPrompts(_)
    ));
    // Two list keys: the method decides, nothing is dropped silently into the wrong type.
    let both = json!({"tools": [], "prompts": []});
    assert!(matches!(
        ServerResult::from_method("tools/list", both).unwrap(),
        ServerResult::ListTools(_)
    ));
    // Exactly the method's type: a discover result missing supportedVersions is an error.
    let err =
        ServerResult::from_method("server/discover", json!({"capabilities": {}})).unwrap_err();
    assert!(err.to_string().contains("supportedVersions"), "{err}");
    // Task-augmented tools/call.
    let task = json!({"task": {"taskId": "t", "status": "working", "createdAt": "a",
                               "lastUpdatedAt": "b", "ttl": null}});
    match ServerResult::from_method("tools/call", task.clone()).unwrap() {
        r @ ServerResult::CreateTask(_) => assert_eq!(serde_json::to_value(r).unwrap(), task),
        other => panic!("{other:?}"),
    }
    let err = ServerResult::from_method("bogus/method", json!({})).unwrap_err();
    assert_eq!(unknown_tag(&err), ("method", "bogus/method"));
    assert!(matches!(
        ClientResult::from_method("roots/list", json!({"roots": []})).unwrap(),
        ClientResult::ListRoots(_)
    ));
    assert!(matches!(
        ClientResult::from_method("ping", json!({})).unwrap(),
        ClientResult::Empty(_)
    ));
}

#[test]
fn method_less_result_parse_is_lenient() {
    let cases = [
        (json!({}), "Empty"),
        (json!({"_meta": {"v": 1}}), "Empty"),
        (
            json!({"content": [{"type": "text", "text": "hi"}]}),
            "CallTool",
        ),
        (
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
            "Discover",
        ),
        (
            json!({"resultType": "input_required", "requestState": "x"}),
            "InputRequired",
        ),
        (json!({"resultType": "finished"}), "Empty"),
    ];
    for (body, name) in cases {
        let r: ServerResult = from_value(body.clone()).unwrap();
        assert!(format!("{r:?}").starts_with(name), "{body} -> {r:?}");
    }
    let r: ServerResult = from_value(json!({"resultType": "finished"})).unwrap();
    let ServerResult::Empty(e) = r else {
        unreachable!()
    };
    assert_eq!(e.result_type, Some(ResultType::Other("finished".into())));
    let c: ClientResult = from_value(json!({"action": "decline"})).unwrap();
    assert!(matches!(c, ClientResult::Elicit(_)));
}

#[test]
fn elicitation_modes_and_schemas() {
    // Mode absent (2025-06-18) is form, and stays absent.
    let v = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
    let p: ElicitRequestParams = from_value(v.clone()).unwrap();
    assert!(matches!(p, ElicitRequestParams::Form(_)));
    assert_eq!(serde_json::to_value(p).unwrap(), v);
    let url = json!({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"});
    assert!(matches!(
        from_value::<ElicitRequestParams>(url).unwrap(),
        ElicitRequestParams::Url(_)
    ));
    let err =
        from_value::<ElicitRequestParams>(json!({"mode": "voice", "message": "m"})).unwrap_err();
    assert_eq!(unknown_tag(&err), ("mode", "voice"));

    let props = json!({
        "s": {"type": "string", "format": "email"},
        "n": {"type": "integer", "minimum": 1},
        "b": {"type": "boolean", "default": false},
        "e1": {"type": "string", "enum": ["a", "b"]},
        "e2": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
        "e3": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
        "e4": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
        "e5": {"type": "string", "enum": ["a"], "enumNames": ["A"]}
    });
    let schema: ElicitRequestedSchema =
        from_value(json!({"type": "object", "properties": props.clone()})).unwrap();
    let kinds: Vec<_> = schema
        .properties
        .values()
        .map(|p| format!("{p:?}").split('(').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "String",
            "Number",
            "Boolean",
            "UntitledSingleSelectEnum",
            "TitledSingleSelectEnum",
            "UntitledMultiSelectEnum",
            "TitledMultiSelectEnum",
            "LegacyTitledEnum"
        ]
    );
    assert_eq!(serde_json::to_value(&schema).unwrap()["properties"], props);
    let err = from_value::<ElicitRequestedSchema>(
        json!({"type": "object", "properties": {"x": {"type": "object"}}}),
    )
    .unwrap_err();
    assert_eq!(err.path.pointer(), "/properties/x");
    assert_eq!(unknown_tag(&err), ("type", "object"));
}

#[test]
fn input_responses_are_chosen_by_keys() {
    let v = json!({
        "a": {"roots": [{"uri": "file:///x"}]},
        "b": {"action": "accept", "content": {"ok": true}},
        "c": {"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"}
    });
    let r: InputResponses = from_value(v.clone()).unwrap();
    assert!(matches!(r["a"], InputResponse::ListRoots(_)));
    assert!(matches!(r["b"], InputResponse::Elicit(_)));
    assert!(matches!(r["c"], InputResponse::CreateMessage(_)));
    assert_eq!(serde_json::to_value(r).unwrap(), v);
}

#[test]
fn sampling_content_single_or_many() {
    let one = json!({"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"});
    let r: CreateMessageResult = from_value(one.clone()).unwrap();
    assert!(matches!(r.content, SamplingContent::Single(_)));
    assert_eq!(serde_json::to_value(&r).unwrap(), one);
    let many = json!({"role": "assistant", "model": "m", "stopReason": "toolUse", "content": [
        {"type": "tool_use", "id": "1", "name": "f", "input": {"a": 1}},
        {"type": "text", "text": "t"}
    ]});
    let r: CreateMessageResult = from_value(many.clone()).unwrap();
    assert_eq!(r.content.blocks().len(), 2);
    assert_eq!(serde_json::to_value(&r).unwrap(), many);
}

#[test]
fn ids_and_tokens_are_strict() {
    let err = from_value::<CancelledNotificationParams>(json!({"requestId": true})).unwrap_err();
    assert_eq!(err.path.pointer(), "/requestId");
    let err =
        from_value::<ProgressNotificationParams>(json!({"progressToken": 1.5, "progress": 1}))
            .unwrap_err();
    assert_eq!(err.path.pointer(), "/progressToken");
    let p: CancelledNotificationParams = from_value(json!({"requestId": "7"})).unwrap();
    assert_eq!(p.request_id, Some(RequestId::String("7".into())));
}

#[test]
fn version_strings_inside_payloads_are_just_strings() {
    // Negotiation decides what an unknown version means; the model keeps it as sent.
    let v = json!({"protocolVersion": "2099-12-31", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}});
    assert_eq!(round_trip::<InitializeRequestParams>(v.clone()), v);
    let meta = Meta::new().with_protocol_version("zzz");
    assert_eq!(meta.protocol_version(), Some("zzz"));
    assert_eq!(
        "zzz".parse::<crate::ProtocolVersion>().unwrap_err().found,
        "zzz"
    );
}

#[test]
fn task_ttl_null_is_kept() {
    let v = json!({"taskId": "t", "status": "input_required", "createdAt": "a",
                   "lastUpdatedAt": "b", "ttl": null, "_meta": {}});
    assert_eq!(round_trip::<GetTaskResult>(v.clone()), v);
    let v = json!({"taskId": "t", "status": "completed", "createdAt": "a",
                   "lastUpdatedAt": "b", "ttl": 60000, "pollInterval": 5});
    assert_eq!(round_trip::<TaskStatusNotificationParams>(v.clone()), v);
}

#[test]
fn explicit_null_in_any_json_fields_is_kept() {
    let v = json!({"content": [], "structuredContent": null});
    let r: CallToolResult = from_value(v.clone()).unwrap();
    assert_eq!(r.structured_content, Some(Value::Null));
    assert_eq!(serde_json::to_value(&r).unwrap(), v);
    let absent: CallToolResult = from_value(json!({"content": []})).unwrap();
    assert_eq!(absent.structured_content, None);
    let e = json!({"code": 1, "message": "m", "data": null});
    assert_eq!(round_trip::<crate::jsonrpc::ErrorData>(e.clone()), e);
}

#[test]
fn union_members_know_their_spec_names() {
    let r = ClientRequest::from(ListToolsRequest::new());
    assert_eq!(r.type_name(), "ListToolsRequest");
    let c = ContentBlock::from("x");
    assert_eq!(c.type_name(), "TextContent");
    let res = ServerResult::from_method(
        "tools/call",
        json!({"content": [], "resultType": "complete", "_meta": {"k": 1}}),
    )
    .unwrap();
    assert_eq!(res.type_name(), "CallToolResult");
    assert_eq!(res.result_type(), Some(&ResultType::Complete));
    assert_eq!(res.meta().unwrap()["k"], json!(1));
}

#[test]
fn message_unions_stay_small_to_move() {
    // Parsed messages are moved through a few layers each; the rare handshake bodies box
    // their capabilities so that every other message is not moved at their size.
    use std::mem::size_of;
    for (name, size) in [
        ("ClientRequest", size_of::<ClientRequest>()),
        ("ServerRequest", size_of::<ServerRequest>()),
        ("ServerResult", size_of::<ServerResult>()),
        ("ClientResult", size_of::<ClientResult>()),
    ] {
        assert!(size <= 512, "{name} is {size} bytes");
    }
}

/// Issue 17 item 6: an untagged union of a generated module names its closest member and the
/// JSON path where that member fails (serde's derived untagged enums said only "data did not
/// match any variant").
#[test]
fn generated_untagged_unions_name_the_closest_member_with_its_path() {
    use crate::convert::from_generated_json;
    use crate::{v2025_06_18, v2026_07_28};
    // The `text` member lacks `text`: it is the closest (its `type` matches).
    let e = from_generated_json::<v2025_06_18::CallToolResult>(
        serde_json::json!({"content": [{"type": "text"}]}),
    )
    .unwrap_err();
    assert_eq!(e.path.pointer(), "/content/0", "{e}");
    let text = e.to_string();
    assert!(
        text.contains("no member of ContentBlock matches; the closest, TextContent, fails: missing field `text`"),
        "{text}"
    );
    // Deeper inside the member: the path goes on to the failing field.
    let e = from_generated_json::<v2026_07_28::CallToolResult>(serde_json::json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": 5}],
    }))
    .unwrap_err();
    assert_eq!(e.path.pointer(), "/content/1/mimeType", "{e}");
    assert!(e.to_string().contains("the closest, ImageContent"), "{e}");
    // Without a tag to go by, the member naming most of the value's keys.
    let e = from_generated_json::<v2025_06_18::ReadResourceResult>(serde_json::json!({
        "contents": [{"uri": "file:///a", "blob": 7}],
    }))
    .unwrap_err();
    assert_eq!(e.path.pointer(), "/contents/0/blob", "{e}");
    assert!(
        e.to_string().contains("the closest, BlobResourceContents"),
        "{e}"
    );
    // Plain serde: the same words, the member-relative path in the message, no packing.
    let e = serde_json::from_value::<v2026_07_28::ContentBlock>(
        serde_json::json!({"type": "image", "data": "x", "mimeType": 5}),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("the closest, ImageContent") && e.contains("(at /mimeType)"),
        "{e}"
    );
    assert!(!e.contains('\u{1}'), "{e:?}");
    // Values that fit still parse, each as its member.
    let ok: v2026_07_28::ContentBlock =
        serde_json::from_value(serde_json::json!({"type": "text", "text": "a"})).unwrap();
    assert!(matches!(ok, v2026_07_28::ContentBlock::TextContent(_)));
}
