//! Unit tests of the session layer on hand-written frames (the CLI's tests run it over the
//! shared corpus).

use super::*;
use serde_json::json;

use ProtocolVersion::*;

#[test]
fn ids_are_tracked_per_direction() {
    let mut s = Session::new();
    let mut feed = |dir, v: Value| {
        let env = Envelope::of(&v).unwrap();
        s.observe(1, dir, &env, &v)
    };
    let c2s = Some(Direction::ClientToServer);
    let s2c = Some(Direction::ServerToClient);
    feed(
        c2s,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}),
    )
    .unwrap();
    feed(s2c, json!({"jsonrpc":"2.0","id":1,"method":"roots/list"})).unwrap();
    // The client answers the server's id 1 …
    let a = feed(c2s, json!({"jsonrpc":"2.0","id":1,"result":{"roots":[]}})).unwrap();
    assert_eq!(a.origin.unwrap().method, "roots/list");
    // … and the server answers the client's id 1, at the answered revision.
    let b = feed(
        s2c,
        json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}),
    )
    .unwrap();
    assert_eq!(b.origin.unwrap().method, "initialize");
    assert_eq!(b.revision, Some(V2025_03_26));
    let e = feed(s2c, json!({"jsonrpc":"2.0","id":1,"result":{}})).unwrap_err();
    assert_eq!(
        e.to_string(),
        "response id 1 answers no pending client request"
    );
}

#[test]
fn discover_refused_with_32601_falls_back_to_initialize() {
    let mut s = Session::new();
    let mut feed = |v: Value| {
        let env = Envelope::of(&v).unwrap();
        s.observe(1, None, &env, &v).map(|c| c.revision)
    };
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28"});
    assert_eq!(
        feed(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta}})),
        Ok(Some(V2026_07_28))
    );
    assert_eq!(
        feed(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}})),
        Ok(Some(V2026_07_28))
    );
    // No evidence now: a notification here cannot be placed.
    assert_eq!(
        feed(json!({"jsonrpc":"2.0","method":"notifications/progress"})),
        Ok(None)
    );
    assert_eq!(
        feed(
            json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})
        ),
        Ok(Some(V2025_11_25))
    );
    assert_eq!(
        feed(json!({"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18"}})),
        Ok(Some(V2025_06_18))
    );
    assert_eq!(
        feed(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
        Ok(Some(V2025_06_18))
    );
}

#[test]
fn bare_frames_get_their_direction_from_the_method_tables() {
    assert_eq!(
        Direction::of_request("elicitation/create"),
        Direction::ServerToClient
    );
    assert_eq!(Direction::of_request("ping"), Direction::ClientToServer);
    assert_eq!(
        Direction::of_notification("notifications/roots/list_changed"),
        Direction::ClientToServer
    );
    assert_eq!(
        Direction::of_notification("notifications/progress"),
        Direction::ServerToClient
    );
}

#[test]
fn task_ids_lead_tasks_result_to_the_request_that_created_the_task() {
    let mut s = Session::fixed(V2025_11_25);
    let c2s = Some(Direction::ClientToServer);
    let s2c = Some(Direction::ServerToClient);
    let mut feed = |line, dir, v: Value| {
        let env = Envelope::of(&v).unwrap();
        s.observe(line, dir, &env, &v).unwrap()
    };
    let call = feed(
        1,
        c2s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}),
    );
    assert!(call.task_augmented);
    let created = feed(
        2,
        s2c,
        json!({"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1"}}}),
    );
    let origin = created.origin.unwrap();
    assert_eq!(
        origin.result_for(),
        ResultFor::method("tools/call").task_augmented(true)
    );
    let payload = |s: &mut Session, id: i64, task: &str| {
        let ask = json!({"jsonrpc":"2.0","id":id,"method":"tasks/result","params":{"taskId":task}});
        s.observe(3, c2s, &Envelope::of(&ask).unwrap(), &ask)
            .unwrap();
        let answer = json!({"jsonrpc":"2.0","id":id,"result":{}});
        let c = s.observe(4, s2c, &Envelope::of(&answer).unwrap(), &answer);
        c.unwrap().origin.unwrap()
    };
    let known = payload(&mut s, 2, "t-1");
    assert_eq!(known.result_for(), ResultFor::task_payload("tools/call"));
    // An id the session never saw created, or one created for the other peer, stays open.
    let unknown = payload(&mut s, 3, "t-2");
    assert_eq!(unknown.result_for(), ResultFor::method("tasks/result"));
    let ask = json!({"jsonrpc":"2.0","id":9,"method":"tasks/result","params":{"taskId":"t-1"}});
    s.observe(5, s2c, &Envelope::of(&ask).unwrap(), &ask)
        .unwrap();
    let answer = json!({"jsonrpc":"2.0","id":9,"result":{}});
    let c = s
        .observe(6, c2s, &Envelope::of(&answer).unwrap(), &answer)
        .unwrap();
    assert_eq!(c.origin.unwrap().payload_of, None);
}

#[test]
fn the_tasks_remembered_are_bounded() {
    let mut s = Session::new();
    let c2s = Some(Direction::ClientToServer);
    let s2c = Some(Direction::ServerToClient);
    for i in 0..(MAX_TASKS + 5) as i64 {
        let call =
            json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"x","task":{}}});
        s.observe(1, c2s, &Envelope::of(&call).unwrap(), &call)
            .unwrap();
        let created = json!({"jsonrpc":"2.0","id":i,"result":{"task":{"taskId":format!("t{i}")}}});
        s.observe(
            i as usize + 2,
            s2c,
            &Envelope::of(&created).unwrap(),
            &created,
        )
        .unwrap();
    }
    assert_eq!(s.tasks.len(), MAX_TASKS);
    // The oldest went first.
    assert!(!s.tasks.contains(&(Direction::ClientToServer, "t0".into())));
    let last = format!("t{}", MAX_TASKS + 4);
    assert!(s.tasks.contains(&(Direction::ClientToServer, last)));
}

#[test]
fn a_fixed_source_fixes_only_the_revision() {
    let c2s = Some(Direction::ClientToServer);
    let init = json!({"jsonrpc":"2.0","id":"a","method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{"roots":{}},
        "clientInfo":{"name":"c","version":"1"}}});
    let mut fixed = Session::fixed(V2025_03_26);
    let mut detected = Session::new();
    for s in [&mut fixed, &mut detected] {
        s.observe(1, c2s, &Envelope::of(&init).unwrap(), &init)
            .unwrap();
        assert_eq!(s.pending_len(), 1);
        // The identity `initialize` states is learnt whether or not the source is fixed.
        assert_eq!(
            s.client_identity().map(|i| &**i),
            Some(&ClientIdentity {
                client_info: Some(json!({"name":"c","version":"1"})),
                capabilities: Some(json!({"roots":{}})),
            })
        );
        assert_eq!(s.current(), Some(V2025_06_18));
    }
    let ping = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    let at = |s: &mut Session| {
        s.observe(2, c2s, &Envelope::of(&ping).unwrap(), &ping)
            .unwrap()
            .revision
    };
    assert_eq!(at(&mut fixed), Some(V2025_03_26));
    assert_eq!(at(&mut detected), Some(V2025_06_18));
    // An unknown claim is the same fault either way.
    let bad = json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2099-01-01"}}});
    for s in [&mut fixed, &mut detected] {
        let e = s.observe(3, c2s, &Envelope::of(&bad).unwrap(), &bad);
        assert!(
            matches!(e, Err(SessionError::UnknownRevision { .. })),
            "{e:?}"
        );
    }
}

#[test]
fn an_initialize_offering_2026_is_a_handshake_frame_and_its_answer_decides() {
    let c2s = Some(Direction::ClientToServer);
    let s2c = Some(Direction::ServerToClient);
    let frames = [
        (
            c2s,
            json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
                "protocolVersion":"2026-07-28","capabilities":{},
                "clientInfo":{"name":"ts","version":"1"}}}),
        ),
        (
            s2c,
            json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",
                "capabilities":{},"serverInfo":{"name":"s","version":"1"}}}),
        ),
        (
            c2s,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        ),
    ];
    for mut s in [Session::new(), Session::fixed(V2025_11_25)] {
        let got: Vec<_> = frames
            .iter()
            .map(|(d, f)| {
                s.observe(1, *d, &Envelope::of(f).unwrap(), f)
                    .unwrap()
                    .revision
            })
            .collect();
        assert_eq!(got, [Some(V2025_11_25); 3]);
    }
    // With --from 2026-07-28 the handshake frames are still judged as handshake frames.
    let mut s = Session::fixed(V2026_07_28);
    let got: Vec<_> = frames
        .iter()
        .map(|(d, f)| {
            s.observe(1, *d, &Envelope::of(f).unwrap(), f)
                .unwrap()
                .revision
        })
        .collect();
    assert_eq!(
        got,
        [Some(V2025_11_25), Some(V2025_11_25), Some(V2026_07_28)]
    );
    assert_eq!(handshake_revision(V2026_07_28), V2025_11_25);
    assert_eq!(handshake_revision(V2025_03_26), V2025_03_26);
}

fn request(id: i64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{}})
}

fn observe(
    s: &mut Session,
    at: usize,
    d: Direction,
    v: &Value,
) -> Result<FrameContext, SessionError> {
    s.observe(at, Some(d), &Envelope::of(v).unwrap(), v)
}

#[test]
fn a_full_direction_forgets_its_oldest_request_and_hands_it_back() {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    let mut s = Session::with_limits(SessionLimits::new().pending_per_direction(2));
    for i in 0..2 {
        let c = observe(&mut s, i as usize, C2s, &request(i)).unwrap();
        assert_eq!(c.forgotten, None);
    }
    // The other direction has its own table.
    let roots = json!({"jsonrpc":"2.0","id":0,"method":"roots/list"});
    assert_eq!(observe(&mut s, 2, S2c, &roots).unwrap().forgotten, None);
    assert_eq!(s.pending_len(), 3);
    let c = observe(&mut s, 3, C2s, &request(2)).unwrap();
    let (id, forgotten) = *c.forgotten.unwrap();
    assert_eq!((id, forgotten.position), (RequestId::Integer(0), 0));
    assert_eq!(s.pending_len(), 3);
    // Its late answer answers nothing now; the others are still known.
    let answer = |id: i64| json!({"jsonrpc":"2.0","id":id,"result":{"tools":[]}});
    let e = observe(&mut s, 4, S2c, &answer(0)).unwrap_err();
    assert_eq!(e.code(), -32600);
    assert!(observe(&mut s, 5, S2c, &answer(1)).is_ok());
    assert_eq!(
        s.pending(C2s, &RequestId::Integer(2)).map(|p| p.position),
        Some(3)
    );
}

#[test]
fn a_full_direction_can_refuse_new_requests_instead() {
    use Direction::{ClientToServer as C2s, ServerToClient as S2c};
    let limits = SessionLimits::new()
        .pending_per_direction(1)
        .when_full(WhenFull::Refuse);
    let mut s = Session::fixed_with_limits(V2025_06_18, limits);
    observe(&mut s, 1, C2s, &request(1)).unwrap();
    let e = observe(&mut s, 2, C2s, &request(2)).unwrap_err();
    assert_eq!(
        e,
        SessionError::PendingFull {
            id: RequestId::Integer(2),
            direction: C2s,
            bound: 1
        }
    );
    assert_eq!(e.code(), -32603);
    assert_eq!(
        e.to_string(),
        "request id 2 refused: 1 client requests are already awaiting an answer"
    );
    // A request reusing a pending id replaces it (it does not need room).
    observe(&mut s, 3, C2s, &request(1)).unwrap();
    assert_eq!(s.pending(C2s, &RequestId::Integer(1)).unwrap().position, 3);
    // The refused request left nothing behind; an answer makes room.
    let answer = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}});
    observe(&mut s, 4, S2c, &answer).unwrap();
    observe(&mut s, 5, C2s, &request(2)).unwrap();
}

#[test]
fn a_proxy_can_forget_and_drain_what_it_answers_itself() {
    use Direction::ClientToServer as C2s;
    let mut s = Session::fixed(V2025_11_25);
    for i in 0..3 {
        observe(&mut s, i as usize, C2s, &request(i)).unwrap();
    }
    s.set_forwarded(C2s, &RequestId::Integer(2), true);
    assert_eq!(s.forget(C2s, &RequestId::Integer(1)).unwrap().position, 1);
    assert_eq!(s.forget(C2s, &RequestId::Integer(1)), None);
    let left: Vec<_> = s
        .drain_pending(C2s)
        .into_iter()
        .map(|(id, p)| (id, p.forwarded))
        .collect();
    assert_eq!(
        left,
        [
            (RequestId::Integer(0), false),
            (RequestId::Integer(2), true)
        ]
    );
    assert_eq!(s.pending_len(), 0);
}
