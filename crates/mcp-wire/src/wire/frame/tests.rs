//! The frame entry point: envelopes, typed bodies, faults that keep the id, and the envelope
//! emission (the body's own emission inside the frame, as text, value and report).

use serde_json::{Value, json};

use super::*;
use crate::ProtocolVersion::{self, *};
use crate::jsonrpc::{JsonRpcMessage, JsonRpcResponse};
use crate::model::{
    CallToolResult, ClientNotification, ClientRequest, ContentBlock, ServerNotification,
    ServerRequest, ServerResult,
};
use crate::wire::{
    EmitError, INPUT_REQUIRED_METHODS, ParseErrorKind, ResultFor, WireBody, serialize_for,
    serialize_for_report, serialize_for_vec,
};

type Client<'a> = TypedFrame<'a, ClientRequest, ClientNotification>;

fn client(text: &str, v: ProtocolVersion) -> Result<Client<'_>, FrameError> {
    parse_frame::<ClientRequest, ClientNotification>(text, v)
}

fn reply(e: &FrameError) -> Value {
    serde_json::to_value(e.reply().expect("a reply is owed")).unwrap()
}

#[test]
fn requests_and_notifications_come_typed_with_their_envelope() {
    let text = r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#;
    let Ok(TypedFrame::Request(r)) = client(text, V2025_06_18) else {
        panic!("a request")
    };
    assert_eq!(r.id, RequestId::String("a".into()));
    assert!(matches!(r.request, ClientRequest::ListTools(_)));
    let text = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let Ok(TypedFrame::Notification(n)) = client(text, V2025_06_18) else {
        panic!("a notification")
    };
    assert!(matches!(n.notification, ClientNotification::Initialized(_)));
}

#[test]
fn a_bad_body_keeps_the_id_and_the_reply_names_the_pointer() {
    let text = r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":5}}"#;
    let e = client(text, V2025_11_25).unwrap_err();
    assert_eq!(e.id, Some(RequestId::Integer(41)));
    assert_eq!(e.code(), -32602);
    let r = reply(&e);
    assert_eq!(r["id"], 41);
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["pointer"], "/params/name");
    assert_eq!(r["error"]["data"]["revision"], "2025-11-25");
    // The message is for the peer: no crate prefix, no revision, no type name.
    let message = r["error"]["message"].as_str().unwrap();
    assert!(!message.starts_with("cannot parse"), "{message}");
}

#[test]
fn a_method_the_revision_lacks_is_32601_listing_only_its_methods() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let e = client(text, V2026_07_28).unwrap_err();
    assert_eq!(e.error.kind, ParseErrorKind::UnknownMethod);
    assert_eq!(e.code(), -32601);
    assert_eq!(e.error.path.pointer(), "/method");
    assert_eq!(
        e.error.message,
        "method \"initialize\" does not exist at protocol version 2026-07-28; its client \
         requests are completion/complete, prompts/get, prompts/list, resources/list, \
         resources/read, resources/templates/list, server/discover, subscriptions/listen, \
         tools/call, tools/list"
    );
    assert_eq!(reply(&e)["id"], 1);
    let text = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/list"}"#;
    let e = client(text, V2024_11_05).unwrap_err();
    assert_eq!(e.error.kind, ParseErrorKind::UnknownMethod);
    assert!(
        !e.error.message.contains("tasks/get"),
        "{}",
        e.error.message
    );
    // The same method where it exists.
    assert!(client(text, V2025_11_25).is_ok());
    // A server request at a revision without server requests, whose type it does not define.
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let e = parse_frame::<ServerRequest, ServerNotification>(ping, V2026_07_28).unwrap_err();
    assert!(
        e.error.message.ends_with("it has no server requests"),
        "{}",
        e.error.message
    );
    // Embedded-only members (2026-07-28's input requests) still parse as their union.
    let roots = r#"{"jsonrpc":"2.0","id":4,"method":"roots/list"}"#;
    assert!(parse_frame::<ServerRequest, ServerNotification>(roots, V2026_07_28).is_ok());
}

#[test]
fn type_absent_is_produced_for_types_and_results_the_revision_lacks() {
    use crate::model::ListTasksRequest;
    use crate::wire::{parse_as, parse_result_for};
    let body = json!({"method": "tasks/list"});
    let e = parse_as::<ListTasksRequest>(&body, V2024_11_05).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::TypeAbsent);
    assert_eq!(e.code(), -32601);
    let e = parse_as::<ListTasksRequest>(&body.to_string(), V2025_06_18).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::TypeAbsent);
    assert!(parse_as::<ListTasksRequest>(&body, V2025_11_25).is_ok());
    // A method no revision has stays UnknownMethod.
    let e = parse_result_for("bogus/method", &json!({}), V2025_03_26).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
}

#[test]
fn envelope_faults_keep_a_usable_id_and_answer_null_otherwise() {
    // Not JSON: -32700, answered with a null id.
    let e = client("{\"jsonrpc\":", V2025_06_18).unwrap_err();
    assert_eq!((e.code(), e.id.clone()), (-32700, None));
    assert_eq!(reply(&e)["id"], Value::Null);
    // A bad `jsonrpc` with a usable id keeps it.
    let e = client(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#, V2025_06_18).unwrap_err();
    assert_eq!(
        (e.code(), e.id.clone()),
        (-32600, Some(RequestId::Integer(9)))
    );
    assert_eq!(e.error.path.pointer(), "/jsonrpc");
    // A null, boolean or fractional id on a request is invalid, never a notification.
    for id in ["null", "true", "1.5", "18446744073709551615"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let e = client(&text, V2025_06_18).unwrap_err();
        assert_eq!((e.code(), e.id.clone()), (-32600, None), "{id}");
        assert_eq!(reply(&e)["id"], Value::Null);
    }
    let e = client(r#"[{"jsonrpc":"2.0","method":"ping"}]"#, V2025_06_18).unwrap_err();
    assert!(e.error.message.contains("batch"), "{}", e.error.message);
    let e = client(
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        V2025_06_18,
    )
    .unwrap_err();
    assert_eq!(e.code(), -32600);
    // The envelope fault reads at the revision asked for.
    assert_eq!(e.error.version, VersionLike::from(V2025_06_18));
}

#[test]
fn notifications_and_responses_are_never_answered() {
    let bad = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"x"}}"#;
    let e = client(bad, V2025_06_18).unwrap_err();
    assert!(e.reply().is_none());
    let raw = RawFrame::split(r#"{"jsonrpc":"2.0","id":3,"result":{"tools":5}}"#).unwrap();
    let e = raw
        .parse::<ClientRequest, ClientNotification>(V2025_06_18, Some("tools/list".into()))
        .unwrap_err();
    assert_eq!(e.id, Some(RequestId::Integer(3)));
    assert_eq!(e.error.path.pointer(), "/result/tools");
    assert!(e.reply().is_none());
}

#[test]
fn responses_are_typed_by_the_request_they_answer() {
    let text = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
    let raw = RawFrame::split(text).unwrap();
    assert_eq!(
        raw.envelope(),
        &Envelope::Response {
            id: RequestId::Integer(3)
        }
    );
    let Ok(TypedFrame::UntypedResponse { result, .. }) =
        raw.parse::<ServerRequest, ServerNotification>(V2025_06_18, None)
    else {
        panic!("untyped without its request")
    };
    assert_eq!(result.get(), r#"{"content":[{"type":"text","text":"hi"}]}"#);
    let typed = raw.parse::<ServerRequest, ServerNotification>(
        V2025_06_18,
        Some(ResultFor::method("tools/call")),
    );
    let Ok(TypedFrame::Response(r)) = typed else {
        panic!("typed")
    };
    assert!(matches!(
        r.result,
        MethodResult::Server(ServerResult::CallTool(_))
    ));
    let error = r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#;
    let Ok(TypedFrame::Error(e)) = client(error, V2025_06_18) else {
        panic!("an error response")
    };
    assert_eq!(e.error.code, -32601);
}

#[test]
fn a_raw_frame_is_the_sessions_evidence() {
    use crate::session::{Direction, Session};
    let mut s = Session::new();
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    let raw = RawFrame::split(text).unwrap();
    let c = s
        .observe(1, Some(Direction::ClientToServer), raw.envelope(), &raw)
        .unwrap();
    assert_eq!(c.revision, Some(V2025_11_25));
    assert!(c.task_augmented);
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}"#;
    let raw = RawFrame::split(answer).unwrap();
    let c = s
        .observe(2, Some(Direction::ServerToClient), raw.envelope(), &raw)
        .unwrap();
    let origin = c.origin.unwrap();
    let frame = raw
        .parse::<ServerRequest, ServerNotification>(V2025_11_25, Some(origin.result_for()))
        .unwrap();
    assert!(matches!(
        frame,
        TypedFrame::Response(JsonRpcResponse {
            result: MethodResult::Server(ServerResult::CreateTask(_)),
            ..
        })
    ));
}

/// The frame around a body emitted on its own: `jsonrpc`, the id, then the body's members or
/// the body as `result`.
fn framed<B: WireBody>(
    id: Option<Value>,
    body: &B,
    member: Option<&str>,
    v: ProtocolVersion,
) -> Result<Value, EmitError> {
    let mut out = serde_json::Map::new();
    out.insert("jsonrpc".into(), json!("2.0"));
    if let Some(id) = id {
        out.insert("id".into(), id);
    }
    let emitted = serialize_for(body, v).map_err(|mut e| {
        // A refusal inside a framed body is located in the frame.
        if let Some(m) = member {
            let mut segments = vec![PathSegment::Key(m.to_owned())];
            segments.extend(e.path.segments().iter().cloned());
            e.path = JsonPath::from_segments(segments);
        }
        e
    })?;
    match (member, emitted) {
        (Some(m), body) => {
            out.insert(m.into(), body);
        }
        (None, Value::Object(members)) => out.extend(members),
        (None, other) => panic!("a body is an object: {other}"),
    }
    Ok(Value::Object(out))
}

/// An envelope emits as its body does, framed: the same text and value, the same refusal, and
/// the body's report with the pointers of the frame.
#[test]
fn envelopes_emit_their_bodies_framed() {
    let result = CallToolResult::new(vec![ContentBlock::text("hi")]);
    let texts = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    ];
    for v in ProtocolVersion::ALL {
        let mut frames: Vec<JsonRpcMessage<ClientRequest, ClientNotification, MethodResult>> =
            vec![JsonRpcMessage::Response(JsonRpcResponse::new(
                7,
                MethodResult::Server(ServerResult::CallTool(result.clone())),
            ))];
        for t in texts {
            // Read at the revision that has the method, emitted at every one.
            let at = if t.contains("ping") {
                V2025_06_18
            } else {
                V2026_07_28
            };
            match client(t, at).unwrap() {
                TypedFrame::Request(r) => frames.push(JsonRpcMessage::Request(r)),
                TypedFrame::Notification(n) => frames.push(JsonRpcMessage::Notification(n)),
                _ => unreachable!(),
            }
        }
        for f in &frames {
            let expected = match f {
                JsonRpcMessage::Request(r) => framed(Some(json!(r.id)), &r.request, None, v),
                JsonRpcMessage::Notification(n) => framed(None, &n.notification, None, v),
                JsonRpcMessage::Response(r) => {
                    framed(Some(json!(r.id)), &r.result, Some("result"), v)
                }
                JsonRpcMessage::Error(_) => unreachable!(),
            };
            let mut text = b"prefix".to_vec();
            let written = serialize_for_vec(f, v, &mut text);
            match (&expected, serialize_for(f, v)) {
                (Ok(expected), Ok(value)) => {
                    assert_eq!(&value, expected, "{v}");
                    assert!(written.is_ok(), "{v}");
                    assert_eq!(
                        String::from_utf8_lossy(&text[6..]),
                        serde_json::to_string(expected).unwrap(),
                        "{v}"
                    );
                }
                (Err(expected), Err(e)) => {
                    assert_eq!(&e, expected, "{v}");
                    assert_eq!(written, Err(e), "{v}");
                    assert_eq!(text, b"prefix", "{v}: nothing written on a refusal");
                }
                (expected, got) => panic!("{v}: {expected:?} / {got:?}"),
            }
            if let (JsonRpcMessage::Response(r), Ok(_)) = (f, &expected) {
                let (_, inner) = serialize_for_report(&r.result, v).unwrap();
                let (_, outer) = serialize_for_report(f, v).unwrap();
                let prefixed = |p: Vec<String>| -> Vec<String> {
                    p.into_iter().map(|p| format!("/result{p}")).collect()
                };
                assert_eq!(
                    outer.injected_pointers(),
                    prefixed(inner.injected_pointers())
                );
                assert_eq!(
                    outer.stripped_pointers(),
                    prefixed(inner.stripped_pointers())
                );
            }
        }
    }
}

/// Paths of an envelope's emission, refusals and report alike, are relative to the frame:
/// a response's body sits under `/result` in both, a request's members at the frame's root.
#[test]
fn an_envelope_refusal_and_its_report_share_the_frame_as_base() {
    let result = CallToolResult::new(vec![
        ContentBlock::text("a"),
        ContentBlock::audio("AAAA", "audio/wav"),
    ]);
    let response = JsonRpcResponse::new(7, result.clone());
    // The body alone: relative to the body.
    let alone = serialize_for(&result, V2024_11_05).unwrap_err();
    assert_eq!(alone.path.pointer(), "/content/1");
    // Framed: relative to the frame, refused the same way whichever output is asked for.
    let framed = serialize_for(&response, V2024_11_05).unwrap_err();
    assert_eq!(framed.path.pointer(), "/result/content/1");
    assert_eq!(framed.kind, alone.kind);
    let mut text = Vec::new();
    let written = serialize_for_vec(&response, V2024_11_05, &mut text).unwrap_err();
    assert_eq!(written.path.pointer(), "/result/content/1");
    let reported = serialize_for_report(&response, V2024_11_05).unwrap_err();
    assert_eq!(reported.path.pointer(), "/result/content/1");
    // The report of an emission that succeeds names the same base.
    let passed =
        CallToolResult::new(vec![ContentBlock::text("a")]).with_structured_content(json!({"n": 1}));
    let (_, report) = serialize_for_report(&JsonRpcResponse::new(8, passed), V2024_11_05).unwrap();
    assert_eq!(report.passed_pointers(), ["/result/structuredContent"]);
}

/// Whether `text` reads as a frame at `v`, with the client's or the server's body types.
fn reads(text: &str, v: ProtocolVersion, answering: Option<ResultFor<'_>>) -> bool {
    let client = parse_frame_answering::<ClientRequest, ClientNotification>(text, v, |_| answering);
    let server = parse_frame_answering::<ServerRequest, ServerNotification>(text, v, |_| answering);
    client.is_ok() || server.is_ok()
}

#[test]
fn good_frames_are_read_in_any_member_order() {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = format!(r#"{{"name":"add","arguments":{{"a":1}},{meta}}}"#);
    let frames = [
        // The Python SDK's order, and the TypeScript SDK's (method first, id last).
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{call}}}"#),
        format!(r#"{{"method":"tools/call","params":{call},"jsonrpc":"2.0","id":"x"}}"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.into(),
        r#"{"method":"ping","jsonrpc":"2.0","id":2}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        r#"{"method":"notifications/cancelled","params":{"requestId":1},"jsonrpc":"2.0"}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5},"x-extra":[1,{"a":null}]}"#.into(),
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"no","data":null}}"#.into(),
        r#"{"error":{"code":1,"message":"m"},"id":null,"jsonrpc":"2.0"}"#.into(),
        // Escaped keys and values read as their text.
        r#"{"jsonr\u0070c":"2\u002e0","id":"\u0031","method":"ping"}"#.into(),
    ];
    for text in &frames {
        // Every frame here reads at the revisions that have its method.
        let at = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| reads(text, *v, None));
        assert!(at.count() >= 1, "{text} reads nowhere");
    }
    // Responses: typed where they stand when the id comes first, after the id when it comes
    // last, and kept as text without the request they answer.
    let tools = Some(ResultFor::method("tools/list"));
    for text in [
        r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#,
        r#"{"result":{"tools":[]},"jsonrpc":"2.0","id":3}"#,
    ] {
        for v in ProtocolVersion::ALL {
            assert!(reads(text, v, tools), "{v} {text}");
            assert!(reads(text, v, None), "{v} {text}");
            let typed = parse_frame_answering::<ClientRequest, ClientNotification>(text, v, |id| {
                assert_eq!(id, &RequestId::Integer(3));
                tools
            });
            assert!(matches!(typed, Ok(TypedFrame::Response(_))), "{v} {text}");
        }
    }
    // A task-augmented answer and an input-required one take the routes that type them.
    let task = r#"{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}"#;
    let augmented = Some(ResultFor::method("tools/call").task_augmented(true));
    assert!(reads(task, V2025_11_25, augmented));
    let input = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}}"#;
    for method in INPUT_REQUIRED_METHODS {
        let answering = Some(ResultFor::method(method));
        assert!(reads(input, V2026_07_28, answering), "{method}");
        // The same body with `resultType` last, and with the result before the id.
        let late = r#"{"jsonrpc":"2.0","id":5,"result":{"inputRequests":{"a":{"method":"roots/list"}},"requestState":"s","resultType":"input_required"}}"#;
        assert!(reads(late, V2026_07_28, answering), "{method}");
        let id_last = r#"{"jsonrpc":"2.0","result":{"resultType":"input_required"},"id":5}"#;
        assert!(reads(id_last, V2026_07_28, answering), "{method}");
        // Neither the method's own result nor an input-required one: refused.
        for bad in [
            r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","inputRequests":{}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"later"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"inputRequests":{}}}"#,
        ] {
            assert!(!reads(bad, V2026_07_28, answering), "{method} {bad}");
        }
        // Before 2026-07-28 the body is the method's own result, whatever it says.
        assert!(!reads(input, V2025_11_25, answering), "{method}");
    }
    let complete = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[]}}"#;
    assert!(reads(
        complete,
        V2026_07_28,
        Some(ResultFor::method("tools/call"))
    ));
    assert!(matches!(
        parse_frame_answering::<ClientRequest, ClientNotification>(input, V2026_07_28, |_| {
            Some(ResultFor::method("tools/call"))
        }),
        Ok(TypedFrame::Response(_))
    ));
}

#[test]
fn a_bad_body_keeps_the_id_in_any_member_order() {
    for text in [
        r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":5}}"#,
        r#"{"method":"tools/call","params":{"name":5},"jsonrpc":"2.0","id":41}"#,
        r#"{"params":{"name":5},"method":"tools/call","id":41,"jsonrpc":"2.0"}"#,
    ] {
        for v in [V2024_11_05, V2025_06_18, V2025_11_25] {
            assert!(!reads(text, v, None), "{v} {text}");
            let e = client(text, v).unwrap_err();
            assert_eq!(e.id, Some(RequestId::Integer(41)), "{v} {text}");
            assert_eq!(e.error.path.pointer(), "/params/name");
            assert_eq!(reply(&e)["error"]["code"], -32602);
        }
    }
    // A bad result keeps the response's id, with the pointer under `result`.
    let text = r#"{"result":{"tools":5},"jsonrpc":"2.0","id":3}"#;
    let e = parse_frame_answering::<ClientRequest, ClientNotification>(text, V2025_06_18, |_| {
        Some(ResultFor::method("tools/list"))
    })
    .unwrap_err();
    assert_eq!(e.id, Some(RequestId::Integer(3)));
    assert_eq!(e.error.path.pointer(), "/result/tools");
    // A method the revision lacks, read in the TypeScript order, is still -32601 for its id.
    let e = client(
        r#"{"method":"tasks/list","jsonrpc":"2.0","id":6}"#,
        V2024_11_05,
    )
    .unwrap_err();
    assert_eq!(
        (e.code(), e.id.clone()),
        (-32601, Some(RequestId::Integer(6)))
    );
}

#[test]
fn duplicate_members_are_refused_in_the_envelope_and_last_wins_in_the_body() {
    let dup_envelope = [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"params":{}}"#,
        r#"{"method":"ping","jsonrpc":"2.0","id":1,"id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
    ];
    for text in dup_envelope {
        assert!(!reads(text, V2025_06_18, None), "{text}");
        let e = client(text, V2025_06_18).unwrap_err();
        assert_eq!(e.code(), -32600, "{text}");
        assert!(
            e.error.message.contains("duplicate field"),
            "{}",
            e.error.message
        );
    }
    // A duplicate inside the body reads last-wins, as a `Value` does.
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#;
    let Ok(TypedFrame::Request(r)) = client(text, V2025_06_18) else {
        panic!("a request")
    };
    let ClientRequest::CallTool(call) = r.request else {
        panic!("tools/call")
    };
    assert_eq!(call.params.name, "b");
}

#[test]
fn ids_beyond_i64_are_refused_in_any_member_order() {
    for id in [
        "18446744073709551615",
        "9223372036854775808",
        "-9223372036854775809",
        "1e3",
    ] {
        for text in [
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
            format!(r#"{{"method":"ping","jsonrpc":"2.0","id":{id}}}"#),
            format!(r#"{{"result":{{}},"jsonrpc":"2.0","id":{id}}}"#),
        ] {
            assert!(!reads(&text, V2025_06_18, None), "{text}");
            let e = client(&text, V2025_06_18).unwrap_err();
            assert_eq!((e.code(), e.id.clone()), (-32600, None), "{text}");
            assert_eq!(e.error.path.pointer(), "/id", "{text}");
        }
    }
    // The ends of the range are ids.
    for id in [i64::MAX, i64::MIN] {
        let text = format!(r#"{{"method":"ping","jsonrpc":"2.0","id":{id}}}"#);
        assert!(reads(&text, V2025_06_18, None));
        let Ok(TypedFrame::Request(r)) = client(&text, V2025_06_18) else {
            panic!("{text} is a request")
        };
        assert_eq!(r.id, RequestId::Integer(id));
    }
}

#[test]
fn batches_are_refused_by_the_frame_api_at_every_revision() {
    let batch = r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    for v in ProtocolVersion::ALL {
        assert!(!reads(batch, v, None));
        let e = client(batch, v).unwrap_err();
        assert_eq!((e.code(), e.id.clone()), (-32600, None));
        assert!(
            e.error.message.contains("only at 2025-03-26"),
            "{}",
            e.error.message
        );
        // The transport unit that reads batches takes it at 2025-03-26 only.
        let unit = crate::jsonrpc::JsonRpcFrame::<
            crate::jsonrpc::RawRequest,
            crate::jsonrpc::RawNotification,
            crate::jsonrpc::JsonObject,
        >::from_value_at(serde_json::from_str(batch).unwrap(), &v.into());
        assert_eq!(unit.is_ok(), v == V2025_03_26, "{v}");
    }
}

#[test]
fn unusual_envelopes_are_refused_at_every_revision() {
    for text in [
        r#"{"jsonrpc":"2.0","method":"tools/list","params":{}}"#, // a request method, no id
        r#"{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}"#, // a notification with an id
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"bogus/method"}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"},"id":true}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
        "7",
    ] {
        for v in ProtocolVersion::ALL {
            assert!(!reads(text, v, None), "{v} {text}");
        }
    }
}

/// The text splitter and the `Value` readers ask the same judge: every envelope fault has the
/// same path, code, message and usable id whichever way the frame was read.
#[test]
fn text_and_value_readers_judge_envelopes_alike() {
    let frames = [
        json!({"id":1,"method":"x"}),
        json!({"jsonrpc":"1.0","id":1,"method":"x"}),
        json!({"jsonrpc":"2.0","id":1,"method":3}),
        json!({"jsonrpc":"2.0","id":1,"method":"x","result":{}}),
        json!({"jsonrpc":"2.0","id":1,"method":"x","params":"p"}),
        json!({"jsonrpc":"2.0","id":true,"method":"x"}),
        json!({"jsonrpc":"2.0","id":null,"method":"x"}),
        json!({"jsonrpc":"2.0","id":1.5,"method":"x"}),
        json!({"jsonrpc":"2.0","id":u64::MAX,"method":"x"}),
        json!({"jsonrpc":"2.0","result":{}}),
        json!({"jsonrpc":"2.0","id":1,"result":[]}),
        json!({"jsonrpc":"2.0","id":1,"error":"m"}),
        json!({"jsonrpc":"2.0","id":1,"error":{"message":"m"}}),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}),
        json!({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}),
        json!({"jsonrpc":"2.0","id":1}),
    ];
    for frame in frames {
        let text = frame.to_string();
        let split = RawFrame::split(&text).unwrap_err();
        let value = Envelope::of(&frame).unwrap_err();
        assert_eq!(split.code(), value.code(), "{text}");
        assert_eq!(split.error.path, value.path, "{text}");
        assert!(
            value.to_string().contains(&split.error.message),
            "{text}: {} vs {value}",
            split.error.message
        );
        let usable = frame.get("id").and_then(RequestId::from_value);
        let usable = usable.filter(|_| split.error.path.pointer() != "/id");
        assert_eq!(split.id, usable, "{text}");
    }
    // Valid frames get the same envelope both ways.
    for frame in [
        json!({"jsonrpc":"2.0","id":"a","method":"ping"}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized","params":{}}),
        json!({"jsonrpc":"2.0","id":7,"result":{}}),
        json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}),
    ] {
        let text = frame.to_string();
        assert_eq!(
            RawFrame::split(&text).unwrap().envelope(),
            &Envelope::of(&frame).unwrap(),
            "{text}"
        );
    }
}

#[test]
fn the_params_peek_reads_each_member_alone_and_objects_only() {
    use crate::session::Evidence;
    let peek = |text: &str| {
        let raw = RawFrame::split(text).unwrap();
        (
            raw.meta_revision().map(|v| v.into_owned()),
            raw.task_augmented(),
            raw.task_id().map(|t| t.into_owned()),
        )
    };
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    // A `taskId` of the wrong kind hides neither the revision nor the task.
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"taskId":5,"task":{{}},{meta}}}}}"#
    );
    assert_eq!(
        peek(&text),
        (Some(serde_json::json!("2026-07-28")), true, None)
    );
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"taskId":"t-1",{meta}}}}}"#
    );
    assert_eq!(peek(&text).2.as_deref(), Some("t-1"));
    // Arrays are not objects: no revision read from `params` or `_meta` given positionally.
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":["2026-07-28"]}}"#,
    ] {
        assert_eq!(peek(text), (None, false, None), "{text}");
    }
}
