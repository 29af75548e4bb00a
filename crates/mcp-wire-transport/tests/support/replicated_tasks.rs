//! 2025-11-25 core tasks across replicas, over HTTP to each replica directly: the flow the
//! in-process replicas (`tests/replicas.rs`) and the `conformance_server` processes on Redis
//! (`tests/scale.rs`) both pass.

use std::time::Duration;

use http::StatusCode;
use serde_json::json;

use super::http_client::{self, client, events, message, post, text};

/// `initialize` at 2025-11-25 declaring elicitation, and `notifications/initialized`, at
/// `url`: the session id.
async fn open_eliciting_session(client: &http_client::HttpClient, url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "replicas-test", "version": "1"}}});
    let response = post(client, url, None, init).await;
    let session = http_client::session_id(response.headers()).expect("Mcp-Session-Id");
    let (status, body) = text(response).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) = text(post(client, url, Some(&session), initialized).await).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    session
}

/// One JSON-RPC request of `session` at `url`: its answer.
async fn call(
    client: &http_client::HttpClient,
    url: &str,
    session: &str,
    id: i64,
    method: &str,
    params: serde_json::Value,
) -> serde_json::Value {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let (status, body) = text(post(client, url, Some(session), request).await).await;
    assert_eq!(status, StatusCode::OK, "{method}: {body}");
    message(&body)
}

/// The ids and statuses `tasks/list` answers at `url`.
async fn task_list(
    client: &http_client::HttpClient,
    url: &str,
    session: &str,
    id: i64,
) -> Vec<(String, String)> {
    let list = call(client, url, session, id, "tasks/list", json!({})).await;
    list["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("a task list: {list}"))
        .iter()
        .map(|t| {
            (
                t["taskId"].as_str().unwrap_or_default().to_owned(),
                t["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// 2025-11-25 core tasks on two replicas `a` and `b` of one server (the conformance fixtures)
/// sharing a store: a task on each, listed alike on both, oldest first; `tasks/result` on `b`
/// for the task `a` runs carries its two questions to the client (answered through `a`) and
/// ends with the task's result; the same on `a` for `b`'s finished task.
pub async fn listed_and_carried_on_any_replica(a: &str, b: &str) {
    let (a, b) = (a.to_owned(), b.to_owned());
    let client = client();
    let session = open_eliciting_session(&client, &a).await;
    // A task on each replica: one that waits for two answers (on a), one that ends at once (on b).
    let asks = json!({"name": "multi_input", "arguments": {}, "task": {}});
    let created = call(&client, &a, &session, 2, "tools/call", asks).await;
    let asking = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    // Creation times (milliseconds) order the list: the second task comes a little later.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let quick =
        json!({"name": "slow_compute", "arguments": {"seconds": 0, "label": "b"}, "task": {}});
    let created = call(&client, &b, &session, 3, "tools/call", quick).await;
    let quick = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    assert_ne!(
        asking.split('.').next(),
        quick.split('.').next(),
        "one task per replica"
    );

    // Each replica lists both, oldest first, whichever runs them.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let on_a = task_list(&client, &a, &session, 4).await;
        let on_b = task_list(&client, &b, &session, 5).await;
        let want = [
            (asking.clone(), "input_required".to_owned()),
            (quick.clone(), "completed".to_owned()),
        ];
        for listed in [&on_a, &on_b] {
            let ids: Vec<&str> = listed.iter().map(|(id, _)| id.as_str()).collect();
            assert_eq!(ids, [asking.as_str(), quick.as_str()]);
        }
        if on_a == want && on_b == want {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "statuses {on_a:?} {on_b:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // tasks/result on b, for the task a runs: b carries its questions to the client, the
    // answers reach a's task, and b's stream ends with the task's result.
    let waiting = json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result",
        "params": {"taskId": asking}});
    let response = post(&client, &b, Some(&session), waiting).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.into_body();
    let mut keys = Vec::new();
    let mut asked = 0;
    while asked < 2 {
        for event in events(&mut stream, 1).await {
            if event.data.is_empty() {
                continue;
            }
            let ask = message(&format!("data: {}", event.data));
            assert_eq!(ask["method"], "elicitation/create", "{ask}");
            let meta = &ask["params"]["_meta"];
            assert_eq!(
                meta["io.modelcontextprotocol/related-task"]["taskId"],
                asking.as_str()
            );
            let key = meta["dev.mcp-wire/inputKey"]
                .as_str()
                .unwrap_or_else(|| panic!("an input key: {ask}"))
                .to_owned();
            // The answer goes through the other replica.
            let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
                "result": {"action": "accept", "content": {"value": format!("v-{key}")}}});
            let (status, _) = text(post(&client, &a, Some(&session), answer).await).await;
            assert_eq!(status, StatusCode::ACCEPTED);
            keys.push(key);
            asked += 1;
        }
    }
    keys.sort();
    assert_eq!(keys, ["input-a", "input-b"]);
    let result = events(&mut stream, 1).await;
    let result = message(&format!("data: {}", result[0].data));
    assert_eq!(result["id"], 6, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"], "multi_input: v-input-a, v-input-b",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        asking.as_str()
    );

    // The same on a task that already ended elsewhere, and the list agrees on both replicas.
    let done = call(
        &client,
        &a,
        &session,
        7,
        "tasks/result",
        json!({"taskId": quick}),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "slow_compute(b) done after 0s",
        "{done}"
    );
    for (n, url) in [(8, &a), (9, &b)] {
        let listed = task_list(&client, url, &session, n).await;
        assert_eq!(
            listed,
            [
                (asking.clone(), "completed".to_owned()),
                (quick.clone(), "completed".to_owned())
            ],
            "{url}"
        );
    }
}
