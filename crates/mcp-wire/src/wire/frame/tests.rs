//! The frame entry point: envelopes, typed bodies, faults that keep the id, and the envelope
//! emission (the body's own emission inside the frame, as text, value and report). A read is
//! checked as a row: a name, the frame as [`read`] gives it, and the parts it must have.

use serde::Serialize;
use serde_json::{Value, json};

use super::*;
use crate::ProtocolVersion::{self, *};
use crate::jsonrpc::{JsonRpcMessage, JsonRpcResponse};
use crate::model::{
    CallToolResult, ClientNotification, ClientRequest, ContentBlock, ListTasksRequest,
    ServerNotification, ServerRequest, ServerResult,
};
use crate::wire::INPUT_REQUIRED_METHODS;
use crate::wire::tests::{Emitted, check, emitted, expect, fault, outcome, parsed, variant};

/// Whether `text` reads as a frame at `v`, with the client's or the server's body types.
fn reads(text: &str, v: ProtocolVersion, answering: Option<ResultFor<'_>>) -> bool {
    let client = parse_frame_answering::<ClientRequest, ClientNotification>(text, v, |_| answering);
    let server = parse_frame_answering::<ServerRequest, ServerNotification>(text, v, |_| answering);
    client.is_ok() || server.is_ok()
}

/// `text` read at `v` with the client's body types, a response's result typed as `answering`
/// says (see [`read_as`]).
fn read(text: &str, v: ProtocolVersion, answering: Option<ResultFor<'_>>) -> Value {
    read_as::<ClientRequest, ClientNotification>(text, v, answering)
}

/// `text` read at `v` as a value whose parts a row names: the `request` or `notification` body,
/// a result `untyped` (its text) or `typed` (its variant), an `error`'s code, and the `id`; or
/// the fault's parts (see `tests::parsed`), its usable `id`, the `reply` owed (its id and code;
/// null when none is) with its `reply_message` and `data`, and the `version` it was read at. `reads`: whether the
/// client's or the server's body types read it; `asked`: the id `answering` was asked about.
fn read_as<R, N>(text: &str, v: ProtocolVersion, answering: Option<ResultFor<'_>>) -> Value
where
    R: WireParse + Serialize,
    N: WireParse + Serialize,
{
    let mut asked = None;
    let read = parse_frame_answering::<R, N>(text, v, |id| {
        asked = Some(id.clone());
        answering
    });
    let mut got = match read {
        Ok(TypedFrame::Request(r)) => json!({"request": r.request, "id": r.id}),
        Ok(TypedFrame::Notification(n)) => json!({"notification": n.notification}),
        Ok(TypedFrame::Response(r)) => json!({"typed": variant(&r.result), "id": r.id}),
        Ok(TypedFrame::UntypedResponse { id, result }) => {
            json!({"untyped": result.get(), "id": id})
        }
        Ok(TypedFrame::Error(e)) => json!({"error": e.error.code, "id": e.id}),
        Err(e) => {
            let mut got = fault(&e.error);
            got["id"] = json!(e.id);
            got["version"] = json!(e.error.version.to_string());
            if let Some(r) = e.reply() {
                got["reply"] = json!({"id": r.id, "code": r.error.code});
                got["reply_message"] = json!(r.error.message);
                got["data"] = json!(r.error.data);
            }
            got
        }
    };
    got["reads"] = json!(reads(text, v, answering));
    got["asked"] = json!(asked);
    got
}

/// Frames read typed, or refused with the fault's code and pointer, keeping a usable id for the
/// reply (requests and frames whose kind cannot be told are answered; notifications and
/// responses never are).
#[test]
fn frames_are_typed_or_refused_keeping_a_usable_id() {
    let no_initialize = "method \"initialize\" does not exist at protocol version 2026-07-28; its \
        client requests are completion/complete, prompts/get, prompts/list, resources/list, \
        resources/read, resources/templates/list, server/discover, subscriptions/listen, \
        tools/call, tools/list";
    let no_tasks = "method \"tasks/list\" does not exist at protocol version 2024-11-05; its client \
        requests are completion/complete, initialize, logging/setLevel, ping, prompts/get, \
        prompts/list, resources/list, resources/read, resources/subscribe, \
        resources/templates/list, resources/unsubscribe, tools/call, tools/list";
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let tasks = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/list"}"#;
    let call = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
    let server = read_as::<ServerRequest, ServerNotification>;
    let at_06 = |text: &str| read(text, V2025_06_18, None);
    let (list, tools) = (
        json!({"method": "tasks/list"}),
        Some(ResultFor::method("tools/list")),
    );
    #[rustfmt::skip]
    let rows = [
        ("a request", at_06(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#),
            json!({"request": {"method": "tools/list", "params": {}}, "id": "a"})),
        ("a notification", at_06(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            json!({"notification": {"method": "notifications/initialized"}})),
        // The reply's message is for the peer: no crate prefix, no revision, no type name.
        ("a bad body", read(r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":5}}"#, V2025_11_25, None),
            json!({"id": 41, "code": -32602, "reply": {"id": 41, "code": -32602},
                "reply_message": "invalid type: integer `5`, expected a string",
                "data": {"pointer": "/params/name", "revision": "2025-11-25", "type": "ClientRequest"}})),
        // A method the revision lacks is -32601, listing only the revision's methods.
        ("initialize at 2026-07-28", read(init, V2026_07_28, None), json!({"kind": "UnknownMethod", "code": -32601,
            "at": "/method", "message": no_initialize, "reply": {"id": 1, "code": -32601}})),
        ("tasks/list at 2024-11-05", read(tasks, V2024_11_05, None), json!({"kind": "UnknownMethod", "message": no_tasks})),
        ("tasks/list at 2025-11-25", read(tasks, V2025_11_25, None), json!({"request": {"method": "tasks/list"}, "id": 2})),
        // A server request at a revision without server requests, whose type it does not define.
        ("ping from a server at 2026-07-28", server(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#, V2026_07_28, None),
            json!({"message": "method \"ping\" does not exist at protocol version 2026-07-28; it has no server requests"})),
        // Embedded-only members (2026-07-28's input requests) still parse as their union.
        ("roots/list from a server at 2026-07-28", server(r#"{"jsonrpc":"2.0","id":4,"method":"roots/list"}"#, V2026_07_28, None),
            json!({"request": {"method": "roots/list"}, "id": 4})),
        // Bodies the revision lacks are TypeAbsent; a method no revision has stays UnknownMethod.
        ("ListTasksRequest at 2024-11-05", parsed(parse_as::<ListTasksRequest>(&list, V2024_11_05)),
            json!({"kind": "TypeAbsent", "code": -32601})),
        ("ListTasksRequest text at 2025-06-18", parsed(parse_as::<ListTasksRequest>(&list.to_string(), V2025_06_18)),
            json!({"kind": "TypeAbsent"})),
        ("ListTasksRequest at 2025-11-25", parsed(parse_as::<ListTasksRequest>(&list, V2025_11_25)), json!({"body": list})),
        ("a result of bogus/method", parsed(parse_result_for("bogus/method", &json!({}), V2025_03_26)),
            json!({"kind": "UnknownMethod"})),
        // Not JSON: -32700, answered with a null id; a bad `jsonrpc` with a usable id keeps it.
        ("not JSON", at_06("{\"jsonrpc\":"), json!({"code": -32700, "id": null, "reply": {"id": null, "code": -32700}})),
        ("jsonrpc 1.0", at_06(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#),
            json!({"code": -32600, "id": 9, "at": "/jsonrpc"})),
        // A boolean or fractional id on a request is invalid, never a notification (a null one:
        // `bad_frames_are_refused_at_every_revision_as_values_judge_them`).
        ("a boolean id", at_06(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#),
            json!({"code": -32600, "id": null, "reply": {"id": null, "code": -32600}})),
        ("a fractional id", at_06(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            json!({"code": -32600, "id": null, "reply": {"id": null, "code": -32600}})),
        ("a batch", at_06(r#"[{"jsonrpc":"2.0","method":"ping"}]"#), json!({"says": ["batch"]})),
        ("a bad notification", at_06(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"x"}}"#), json!({"reads": false, "reply": null})),
        ("a bad result", read(r#"{"jsonrpc":"2.0","id":3,"result":{"tools":5}}"#, V2025_06_18, tools),
            json!({"id": 3, "at": "/result/tools", "reply": null})),
        // Responses are typed by the request they answer, kept as text without it.
        ("untyped", server(call, V2025_06_18, None), json!({"untyped": r#"{"content":[{"type":"text","text":"hi"}]}"#, "id": 3})),
        ("typed", server(call, V2025_06_18, Some(ResultFor::method("tools/call"))), json!({"typed": "Server::CallTool", "id": 3})),
        ("an error response", at_06(r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#),
            json!({"error": -32601, "id": "x"})),
        // Faults keep the id and pointer whatever the member order (the TypeScript SDK's: id last).
        ("a bad result, id last", read(r#"{"result":{"tools":5},"jsonrpc":"2.0","id":3}"#, V2025_06_18, tools),
            json!({"id": 3, "at": "/result/tools"})),
        ("tasks/list, id last", read(r#"{"method":"tasks/list","jsonrpc":"2.0","id":6}"#, V2024_11_05, None),
            json!({"code": -32601, "id": 6})),
        // A duplicate inside the body reads last-wins, as a `Value` does.
        ("a duplicate in the body", at_06(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#),
            json!({"request": {"method": "tools/call", "params": {"name": "b"}}, "id": 1})),
        // The ends of the range are ids.
        ("id i64::MAX", at_06(&format!(r#"{{"method":"ping","jsonrpc":"2.0","id":{}}}"#, i64::MAX)),
            json!({"reads": true, "request": {"method": "ping"}, "id": i64::MAX})),
        ("id i64::MIN", at_06(&format!(r#"{{"method":"ping","jsonrpc":"2.0","id":{}}}"#, i64::MIN)),
            json!({"reads": true, "request": {"method": "ping"}, "id": i64::MIN})),
    ];
    check(rows);
    let response = Envelope::Response {
        id: RequestId::Integer(3),
    };
    assert_eq!(RawFrame::split(call).unwrap().envelope(), &response);
}

#[test]
fn a_raw_frame_is_the_sessions_evidence() {
    use crate::session::{Direction, Session};
    let mut s = Session::new();
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    let raw = RawFrame::split(text).unwrap();
    let c = s.observe(1, Some(Direction::ClientToServer), raw.envelope(), &raw);
    let c = c.unwrap();
    assert_eq!(c.revision, Some(V2025_11_25));
    assert!(c.task_augmented);
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}"#;
    let raw = RawFrame::split(answer).unwrap();
    let c = s.observe(2, Some(Direction::ServerToClient), raw.envelope(), &raw);
    let origin = c.unwrap().origin.unwrap();
    let origin = Some(origin.result_for());
    let frame = raw.parse::<ServerRequest, ServerNotification>(V2025_11_25, origin);
    let Ok(TypedFrame::Response(r)) = frame else {
        panic!("a response: {frame:?}")
    };
    assert!(matches!(
        r.result,
        MethodResult::Server(ServerResult::CreateTask(_))
    ));
}

/// `body`'s emission framed: `jsonrpc`, the id, then the body's members or the body as
/// `member`, with the refusal's path and the report's pointers under it.
fn framed(id: Option<&RequestId>, body: &Emitted, member: Option<&str>) -> Value {
    let base = member.map_or(String::new(), |m| format!("/{m}"));
    let under = |p: &Value| json!(format!("{base}{}", p.as_str().unwrap()));
    let mut want = outcome(body);
    let Some(Value::Object(members)) = want.get("body").cloned() else {
        want["at"] = under(&want["at"]);
        return want;
    };
    let mut frame = json!({"jsonrpc": "2.0"});
    if let Some(id) = id {
        frame["id"] = json!(id);
    }
    match member {
        Some(m) => frame[m] = Value::Object(members),
        None => frame.as_object_mut().unwrap().extend(members),
    }
    want["body"] = frame;
    for list in ["stripped", "injected", "passed", "rewritten"] {
        want[list] = want[list].as_array().unwrap().iter().map(under).collect();
    }
    want
}

/// An envelope emits as its body does, framed: the same text and value, the same refusal, and
/// the body's report with the pointers of the frame.
#[test]
fn envelopes_emit_their_bodies_framed() {
    let hi = CallToolResult::new(vec![ContentBlock::text("hi")]);
    let result = MethodResult::Server(ServerResult::CallTool(hi));
    let mut frames: Vec<JsonRpcMessage<ClientRequest, ClientNotification, MethodResult>> =
        vec![JsonRpcMessage::Response(JsonRpcResponse::new(7, result))];
    // Each read at the revision that has its method, emitted at every one.
    #[rustfmt::skip]
    let texts = [
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#, V2026_07_28),
        (r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#, V2025_06_18),
        (r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#, V2026_07_28),
    ];
    for (t, at) in texts {
        match parse_frame(t, at).unwrap() {
            TypedFrame::Request(r) => frames.push(JsonRpcMessage::Request(r)),
            TypedFrame::Notification(n) => frames.push(JsonRpcMessage::Notification(n)),
            _ => unreachable!(),
        }
    }
    for v in ProtocolVersion::ALL {
        check(frames.iter().enumerate().map(|(i, f)| {
            let want = match f {
                JsonRpcMessage::Request(r) => framed(Some(&r.id), &emitted(&r.request, v), None),
                JsonRpcMessage::Notification(n) => framed(None, &emitted(&n.notification, v), None),
                JsonRpcMessage::Response(r) => {
                    framed(Some(&r.id), &emitted(&r.result, v), Some("result"))
                }
                JsonRpcMessage::Error(_) => unreachable!(),
            };
            (format!("frame {i} at {v}"), outcome(&emitted(f, v)), want)
        }));
    }
    // Paths of an envelope's emission, refusals and report alike, are relative to the frame:
    // a response's body sits under `/result` in both (by every output: see `tests::emitted`).
    let audio = ContentBlock::audio("AAAA", "audio/wav");
    let audio = CallToolResult::new(vec![ContentBlock::text("a"), audio]);
    let passed =
        CallToolResult::new(vec![ContentBlock::text("a")]).with_structured_content(json!({"n": 1}));
    #[rustfmt::skip]
    let rows = [
        ("the body alone", emitted(&audio, V2024_11_05), json!({"refused": "TypeAbsent", "at": "/content/1"})),
        ("framed", emitted(&JsonRpcResponse::new(7, audio), V2024_11_05),
            json!({"refused": "TypeAbsent", "at": "/result/content/1"})),
        ("a report framed", emitted(&JsonRpcResponse::new(8, passed), V2024_11_05),
            json!({"passed": ["/result/structuredContent"]})),
    ];
    expect(rows);
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
        r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#.into(),
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.into(),
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#.into(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}"#.into(),
        // Escaped keys and values read as their text.
        r#"{"jsonr\u0070c":"2\u002e0","id":"\u0031","method":"ping"}"#.into(),
    ];
    for text in &frames {
        // Every frame here reads at the revisions that have its method, with the envelope its
        // `Value` has.
        let somewhere = ProtocolVersion::ALL
            .into_iter()
            .any(|v| reads(text, v, None));
        assert!(somewhere, "{text} reads nowhere");
        let value = serde_json::from_str(text).unwrap();
        let envelope = RawFrame::split(text).unwrap().envelope().clone();
        assert_eq!(envelope, Envelope::of(&value).unwrap(), "{text}");
    }
    let tools = Some(ResultFor::method("tools/list"));
    let (call, mut rows) = (Some(ResultFor::method("tools/call")), Vec::new());
    // Responses: typed where they stand when the id comes first, after the id when it comes
    // last, and kept as text without the request they answer.
    for text in [
        r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#,
        r#"{"result":{"tools":[]},"jsonrpc":"2.0","id":3}"#,
    ] {
        for v in ProtocolVersion::ALL {
            #[rustfmt::skip]
            rows.extend([
                (format!("{text} at {v}"), read(text, v, tools), json!({"reads": true, "typed": "Server::ListTools", "asked": 3})),
                (format!("{text} untyped at {v}"), read(text, v, None), json!({"reads": true, "id": 3, "asked": 3})),
            ]);
        }
    }
    // A task-augmented answer and an input-required one take the routes that type them.
    let task = r#"{"jsonrpc":"2.0","id":4,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}"#;
    let augmented = Some(ResultFor::method("tools/call").task_augmented(true));
    #[rustfmt::skip]
    rows.push(("a task".into(), read(task, V2025_11_25, augmented), json!({"reads": true, "typed": "Server::CreateTask"})));
    let input = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}}"#;
    // The same body with `resultType` last, and with the result before the id.
    let late = r#"{"jsonrpc":"2.0","id":5,"result":{"inputRequests":{"a":{"method":"roots/list"}},"requestState":"s","resultType":"input_required"}}"#;
    let id_last = r#"{"jsonrpc":"2.0","result":{"resultType":"input_required"},"id":5}"#;
    for method in INPUT_REQUIRED_METHODS {
        #[rustfmt::skip]
        let cases = [
            (input, V2026_07_28, true), (late, V2026_07_28, true), (id_last, V2026_07_28, true),
            // Neither the method's own result nor an input-required one: refused.
            (r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","inputRequests":{}}}"#, V2026_07_28, false),
            (r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"later"}}"#, V2026_07_28, false),
            (r#"{"jsonrpc":"2.0","id":5,"result":{"inputRequests":{}}}"#, V2026_07_28, false),
            // Before 2026-07-28 the body is the method's own result, whatever it says.
            (input, V2025_11_25, false),
        ];
        for (text, v, reads) in cases {
            let got = read(text, v, Some(ResultFor::method(method)));
            let want = json!({"reads": reads});
            rows.push((format!("{method}: {text} at {v}"), got, want));
        }
    }
    let complete = r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[]}}"#;
    #[rustfmt::skip]
    rows.extend([
        ("complete".into(), read(complete, V2026_07_28, call), json!({"reads": true})),
        ("input for tools/call".into(), read(input, V2026_07_28, call), json!({"typed": "Server::InputRequired"})),
    ]);
    check(rows);
}

/// Frames no revision reads, each read at every revision with the parts its row names (the
/// fault read at that revision). The text splitter and the `Value` readers ask the same judge:
/// where the text is a JSON object whose `Value` has a bad envelope, the split fails with the
/// same path, code, message and usable id. Duplicate members (which a `Value` reads last-wins),
/// ids beyond i64 and batches are refused (-32600) too; a bad body keeps its id and pointer
/// whatever the member order.
#[test]
fn bad_frames_are_refused_at_every_revision_as_values_judge_them() {
    let duplicate = json!({"code": -32600, "says": ["duplicate field"]});
    let id =
        json!({"code": -32600, "id": null, "at": "/id", "reply": {"id": null, "code": -32600}});
    let name = json!({"id": 41, "at": "/params/name", "reply": {"id": 41, "code": -32602}});
    #[rustfmt::skip]
    let mut rows: Vec<(String, Value)> = [
        (r#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":5}}"#, name.clone()),
        (r#"{"method":"tools/call","params":{"name":5},"jsonrpc":"2.0","id":41}"#, name.clone()),
        (r#"{"params":{"name":5},"method":"tools/call","id":41,"jsonrpc":"2.0"}"#, name),
        (r#"{"jsonrpc":"2.0","method":"tools/list","params":{}}"#, json!({})), // a request method, no id
        (r#"{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}"#, json!({})), // a notification with an id
        // A null id on a request is invalid, never a notification.
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, json!({"code": -32600, "id": null, "reply": {"id": null, "code": -32600}})),
        (r#"{"id":1,"method":"ping"}"#, json!({})),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#, json!({"code": -32600})),
        (r#"{"jsonrpc":"2.0","result":{}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":"bogus/method"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"},"id":true}"#, json!({})),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", json!({})),
        ("7", json!({})),
        (r#"{"id":1,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":3}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"x"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"result":[]}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"error":"m"}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}"#, json!({})),
        (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, duplicate.clone()),
        (r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#, duplicate.clone()),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"ping"}"#, duplicate.clone()),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"params":{}}"#, duplicate.clone()),
        (r#"{"method":"ping","jsonrpc":"2.0","id":1,"id":1}"#, duplicate.clone()),
        (r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#, duplicate),
        (r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            json!({"code": -32600, "id": null, "says": ["only at 2025-03-26"]})),
    ].map(|(text, want)| (text.to_owned(), want)).into();
    // Ids beyond i64 (or not integers), first and last, in requests and responses.
    #[rustfmt::skip]
    let forms = [r#"{"jsonrpc":"2.0","id":ID,"method":"ping"}"#, r#"{"method":"ping","jsonrpc":"2.0","id":ID}"#,
        r#"{"result":{},"jsonrpc":"2.0","id":ID}"#];
    for big in [
        "18446744073709551615",
        "9223372036854775808",
        "-9223372036854775809",
        "1e3",
    ] {
        rows.extend(forms.map(|form| (form.replace("ID", big), id.clone())));
    }
    let mut reads = Vec::new();
    for (text, want) in &rows {
        for v in ProtocolVersion::ALL {
            let mut want = want.clone();
            (want["reads"], want["version"]) = (json!(false), json!(v.to_string()));
            reads.push((format!("{text} at {v}"), read(text, v, None), want));
        }
        let value = serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object);
        let Some((value, Err(judged))) = value.as_ref().map(|v| (v, Envelope::of(v))) else {
            continue;
        };
        let split = RawFrame::split(text).unwrap_err();
        assert_eq!(split.code(), judged.code(), "{text}");
        assert_eq!(split.error.path, judged.path, "{text}");
        let (message, judged) = (&split.error.message, judged.to_string());
        assert!(judged.contains(message), "{text}: {message} vs {judged}");
        let usable = value.get("id").and_then(RequestId::from_value);
        let usable = usable.filter(|_| split.error.path.pointer() != "/id");
        assert_eq!(split.id, usable, "{text}");
    }
    check(reads);
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
    let pv = Some(json!("2026-07-28"));
    for (text, want) in [
        // A `taskId` of the wrong kind hides neither the revision nor the task.
        (format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"taskId":5,"task":{{}},{meta}}}}}"#), (pv.clone(), true, None)),
        (format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"taskId":"t-1",{meta}}}}}"#), (pv, false, Some("t-1".into()))),
        // Arrays are not objects: no revision read from `params` or `_meta` given positionally.
        (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}]}"#.into(), (None, false, None)),
        (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":["2026-07-28"]}}"#.into(), (None, false, None)),
        // A null task or revision is none.
        (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"task":null,"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#.into(), (None, false, None)),
    ] {
        assert_eq!(peek(&text), want, "{text}");
    }
}
