//! The model's tables and the tasks extension's types held against the boundary: the method
//! map against the generated facts and the extensions' methods (`ledger::EXTENSION_METHODS`),
//! and the extension's bodies emitted and read per revision. (They live here, not in `model/`,
//! which knows nothing of the boundary.)

use serde_json::json;

use super::*;
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
                let row = method_info(fact.method)
                    .unwrap_or_else(|| panic!("{v}: {} has no row", fact.method));
                assert_eq!(row.kind, kind, "{v}: {}", fact.method);
                let side = if client {
                    row.sender.client()
                } else {
                    row.sender.server()
                };
                assert!(side, "{v}: {} sent by the wrong side", fact.method);
                assert_eq!(row.type_name, fact.type_name, "{v}: {}", fact.method);
                if let (Some(ours), Some(theirs)) = (row.result, fact.result) {
                    assert_eq!(ours, theirs, "{v}: result of {}", fact.method);
                }
                assert!(is_defined_at(v, fact.method, kind, row.sender));
                used.insert((fact.method, client));
            }
        }
    }
    for row in METHODS {
        // Methods only an extension defines are in no revision's schema tables.
        let extension = super::ledger::EXTENSION_METHODS
            .iter()
            .any(|(m, _)| *m == row.method);
        if extension && !used.iter().any(|(m, _)| *m == row.method) {
            continue;
        }
        if row.sender.client() {
            assert!(
                used.contains(&(row.method, true)),
                "{} never sent by clients",
                row.method
            );
        }
        if row.sender.server() {
            assert!(
                used.contains(&(row.method, false)),
                "{} never sent by servers",
                row.method
            );
        }
    }
}

fn task(status: TaskStatus) -> TaskInfo {
    TaskInfo::new(
        "t1",
        status,
        "2026-12-02T04:05:06.789Z",
        "2026-12-02T04:05:07.000Z",
        Some(60_000),
    )
    .with_poll_interval_ms(200)
}

#[test]
fn a_created_task_is_flat_at_2026_07_28_and_absent_before() {
    let body = ServerResult::TaskCreated(TaskCreatedResult::new(task(TaskStatus::Working)));
    assert_eq!(
        serialize_for(&body, V2026_07_28).unwrap(),
        json!({"taskId": "t1", "status": "working",
            "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
            "ttlMs": 60_000, "pollIntervalMs": 200, "resultType": "task"})
    );
    let e = serialize_for(&body, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::TypeAbsent);
    // A result we cannot express is our own failure to answer.
    assert_eq!(e.code(), -32603);
}

#[test]
fn tasks_get_inlines_the_outcome_and_gets_its_result_type() {
    let result = json!({"content": [{"type": "text", "text": "done"}], "resultType": "complete"});
    let detailed = DetailedTask::new(task(TaskStatus::Completed))
        .with_result(result.as_object().unwrap().clone());
    let body = ServerResult::DetailedTask(GetDetailedTaskResult::new(detailed));
    let v = serialize_for(&body, V2026_07_28).unwrap();
    assert_eq!(v["resultType"], "complete");
    assert_eq!(v["result"], result);
    assert_eq!(v["status"], "completed");
    assert!(v.get("error").is_none() && v.get("inputRequests").is_none());
    let failed =
        DetailedTask::new(task(TaskStatus::Failed)).with_error(ErrorData::new(-32603, "boom"));
    let v = serialize_for(
        &ServerResult::DetailedTask(GetDetailedTaskResult::new(failed)),
        V2026_07_28,
    )
    .unwrap();
    assert_eq!(v["error"], json!({"code": -32603, "message": "boom"}));
}

#[test]
fn tasks_get_and_cancel_results_are_typed_per_revision() {
    let detailed = json!({"taskId": "t1", "status": "completed",
        "createdAt": "2026-12-02T04:05:06.789Z", "lastUpdatedAt": "2026-12-02T04:05:07.000Z",
        "ttlMs": 60_000, "resultType": "complete",
        "result": {"content": [], "resultType": "complete"}});
    let text = detailed.to_string();
    for got in [
        parse_result_for("tasks/get", &detailed, V2026_07_28),
        parse_result_for("tasks/get", &text, V2026_07_28),
    ] {
        match got.unwrap() {
            MethodResult::Server(ServerResult::DetailedTask(r)) => {
                assert_eq!(r.task.task.ttl_ms, Some(60_000));
                assert!(r.task.result.is_some());
            }
            other => panic!("typed as {other:?}"),
        }
    }
    let ack = json!({"resultType": "complete"});
    assert!(matches!(
        parse_result_for("tasks/cancel", &ack, V2026_07_28).unwrap(),
        MethodResult::Server(ServerResult::Empty(_))
    ));
    assert!(matches!(
        parse_result_for("tasks/cancel", &ack.to_string(), V2026_07_28).unwrap(),
        MethodResult::Server(ServerResult::Empty(_))
    ));
    // 2025-11-25's core task: `ttl`, a `Task` for both.
    let core = json!({"taskId": "t1", "status": "cancelled",
        "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
        "ttl": 30_000});
    for method in ["tasks/get", "tasks/cancel"] {
        assert!(matches!(
            parse_result_for(method, &core, V2025_11_25).unwrap(),
            MethodResult::Server(ServerResult::GetTask(_))
        ));
    }
    // A task that is not an object is refused on both paths.
    assert!(parse_result_for("tasks/get", &json!(["t1"]), V2026_07_28).is_err());
    assert!(parse_result_for("tasks/get", "[\"t1\"]", V2026_07_28).is_err());
}

#[test]
fn tasks_update_parses_at_2026_07_28_only() {
    let text = r#"{"method": "tasks/update", "params": {"taskId": "t1",
        "inputResponses": {"k": {"action": "accept"}, "other": {"ignored": true}},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}"#;
    match parse_as::<ClientRequest>(text, V2026_07_28).unwrap() {
        ClientRequest::UpdateTask(r) => {
            assert_eq!(r.params.task_id, "t1");
            assert_eq!(r.params.input_responses.len(), 2);
        }
        other => panic!("parsed as {}", other.method()),
    }
    let e = parse_as::<ClientRequest>(text, V2025_11_25).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
    let get = r#"{"method": "tasks/get", "params": {"taskId": "t1"}}"#;
    assert!(parse_as::<ClientRequest>(get, V2026_07_28).is_ok());
    let list = r#"{"method": "tasks/list", "params": {}}"#;
    let e = parse_as::<ClientRequest>(list, V2026_07_28).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownMethod);
}
