//! The model's tables and the tasks extension's types held against the boundary: the method
//! map against the generated facts and the extensions' methods (`ledger::EXTENSION_METHODS`),
//! and the extension's bodies emitted and read per revision. (They live here, not in `model/`,
//! which knows nothing of the boundary.)

use serde_json::{Value, json};

use super::route_tests::{body, result};
use super::tests::{check, emitted, expect, parsed, typed};
use crate::ProtocolVersion::{self, V2025_11_25, V2026_07_28};
use crate::jsonrpc::ErrorData;
use crate::model::*;

#[test]
fn map_agrees_with_the_facts() {
    let mut used = std::collections::HashSet::new();
    for v in ProtocolVersion::ALL {
        let f = crate::facts::revision(v);
        let tables = [
            (f.client_requests, MethodKind::Request, true),
            (f.server_requests, MethodKind::Request, false),
            (f.client_notifications, MethodKind::Notification, true),
            (f.server_notifications, MethodKind::Notification, false),
        ];
        for (table, kind, client) in tables {
            for fact in table {
                let m = fact.method;
                let row = method_info(m).unwrap_or_else(|| panic!("{v}: {m} has no row"));
                assert_eq!(row.kind, kind, "{v}: {m}");
                let side = (client, row.sender.client(), row.sender.server());
                let right = matches!(side, (true, true, _) | (false, _, true));
                assert!(right, "{v}: {m} sent by the wrong side");
                assert_eq!(row.type_name, fact.type_name, "{v}: {m}");
                if let (Some(ours), Some(theirs)) = (row.result, fact.result) {
                    assert_eq!(ours, theirs, "{v}: result of {m}");
                }
                assert!(is_defined_at(v, fact.method, kind, row.sender));
                used.insert((fact.method, client));
            }
        }
    }
    for row in METHODS {
        // Methods only an extension defines are in no revision's schema tables.
        let m = row.method;
        let extension = super::ledger::EXTENSION_METHODS
            .iter()
            .any(|(e, _)| *e == m);
        if extension && !used.iter().any(|(u, _)| *u == m) {
            continue;
        }
        for (client, sends, who) in [
            (true, row.sender.client(), "clients"),
            (false, row.sender.server(), "servers"),
        ] {
            let used = !sends || used.contains(&(m, client));
            assert!(used, "{m} never sent by {who}");
        }
    }
}

fn task(status: TaskStatus) -> TaskInfo {
    let (created, updated) = ("2026-12-02T04:05:06.789Z", "2026-12-02T04:05:07.000Z");
    TaskInfo::new("t1", status, created, updated, Some(60_000)).with_poll_interval_ms(200)
}

/// The tasks extension's results at 2026-07-28: a created task flat (absent before: a result we
/// cannot express is our own failure to answer), and `tasks/get` inlining the outcome with the
/// outcome's result type.
#[test]
fn task_results_are_emitted_flat_with_their_outcome() {
    let created = ServerResult::TaskCreated(TaskCreatedResult::new(task(TaskStatus::Working)));
    let result = json!({"content": [{"type": "text", "text": "done"}], "resultType": "complete"});
    let done = DetailedTask::new(task(TaskStatus::Completed));
    let done = done.with_result(result.as_object().unwrap().clone());
    let failed = DetailedTask::new(task(TaskStatus::Failed));
    let failed = failed.with_error(ErrorData::new(-32603, "boom"));
    let detailed = |t| ServerResult::DetailedTask(GetDetailedTaskResult::new(t));
    #[rustfmt::skip]
    let rows = [
        ("created at 2026-07-28", emitted(&created, V2026_07_28), json!({"body": {"taskId": "t1", "status": "working",
            "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
            "ttlMs": 60_000, "pollIntervalMs": 200, "resultType": "task"}})),
        ("created at 2025-11-25", emitted(&created, V2025_11_25), json!({"refused": "TypeAbsent", "code": -32603})),
        ("completed", emitted(&detailed(done), V2026_07_28), json!({"body": {"taskId": "t1", "status": "completed",
            "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
            "ttlMs": 60_000, "pollIntervalMs": 200, "result": result, "resultType": "complete"}})),
        ("failed", emitted(&detailed(failed), V2026_07_28), json!({"body": {"taskId": "t1", "status": "failed",
            "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z", "ttlMs": 60_000,
            "pollIntervalMs": 200, "error": {"code": -32603, "message": "boom"}, "resultType": "complete"}})),
    ];
    expect(rows);
}

/// Task results and requests typed per revision, from a value and from text alike: the
/// extension's detailed task and acknowledgement at 2026-07-28, 2025-11-25's core `Task` for
/// both methods, and `tasks/update` at 2026-07-28 only.
#[test]
fn task_results_and_requests_are_typed_per_revision() {
    let detailed = json!({"taskId": "t1", "status": "completed",
        "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
        "ttlMs": 60_000, "result": {"content": [], "resultType": "complete"}, "resultType": "complete"});
    let ack = json!({"resultType": "complete"});
    // 2025-11-25's core task: `ttl`, a `Task` for both.
    let core = json!({"taskId": "t1", "status": "cancelled",
        "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
        "ttl": 30_000});
    let update = r#"{"method": "tasks/update", "params": {"taskId": "t1",
        "inputResponses": {"k": {"action": "accept"}, "other": {"ignored": true}},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}"#;
    // Each read by every route (text, bytes, a `Value`, a slot): see `route_tests`.
    let request = |text: &str, v| parsed(body::<ClientRequest>(text, v));
    let result = |method: &str, json: &Value, v| typed(result(method, &json.to_string(), v));
    #[rustfmt::skip]
    let rows = [
        ("tasks/get", result("tasks/get", &detailed, V2026_07_28),
            json!({"typed": "Server::DetailedTask", "body": detailed})),
        ("tasks/cancel", result("tasks/cancel", &ack, V2026_07_28), json!({"typed": "Server::Empty"})),
        ("a core tasks/get", result("tasks/get", &core, V2025_11_25), json!({"typed": "Server::GetTask"})),
        ("a core tasks/cancel", result("tasks/cancel", &core, V2025_11_25), json!({"typed": "Server::GetTask"})),
        // A task that is not an object is refused.
        ("a task in an array", result("tasks/get", &json!(["t1"]), V2026_07_28), json!({"kind": "Invalid"})),
        ("tasks/update", request(update, V2026_07_28), json!({"body": serde_json::from_str::<Value>(update).unwrap()})),
        ("tasks/update at 2025-11-25", request(update, V2025_11_25), json!({"kind": "UnknownMethod"})),
        ("tasks/get", request(r#"{"method": "tasks/get", "params": {"taskId": "t1"}}"#, V2026_07_28),
            json!({"body": {"method": "tasks/get", "params": {"taskId": "t1"}}})),
        ("tasks/list", request(r#"{"method": "tasks/list", "params": {}}"#, V2026_07_28), json!({"kind": "UnknownMethod"})),
    ];
    check(rows);
}
