//! Plans for the real plan clients (`tests/peers/ts-plan-client.mjs`, `ts-v2-plan-client.mjs`,
//! `py-plan-client.py`, one format: their usage comments list the ops), their outcomes by
//! step name, and the plan every real client runs against the project's conformance fixtures
//! with what it must show.

use std::collections::HashMap;

use serde_json::{Value, json};

/// One step of a plan: the name its outcome is asserted by, and the step as the clients take
/// it (`{"op": …}`).
pub type Step = (&'static str, Value);

/// The `PLAN` environment value the clients read.
pub fn plan_env(plan: &[Step]) -> String {
    let steps: Vec<&Value> = plan.iter().map(|(_, step)| step).collect();
    serde_json::to_string(&steps).expect("a plan is JSON")
}

/// A client's report (`protocolVersion`, `server`, `steps`, `seen`) with its steps by name.
#[derive(Debug)]
pub struct Outcome {
    /// The report as printed.
    pub report: Value,
    steps: HashMap<&'static str, Value>,
}

impl Outcome {
    /// Pairs `report`'s steps with `plan`'s names; panics when their counts differ.
    pub fn new(plan: &[Step], report: Value) -> Self {
        let outcomes = report["steps"].as_array().cloned().unwrap_or_default();
        assert_eq!(outcomes.len(), plan.len(), "one outcome per step: {report}");
        let steps = plan
            .iter()
            .zip(outcomes)
            .map(|((name, _), outcome)| (*name, outcome))
            .collect();
        Self { report, steps }
    }

    /// One step's outcome; panics when the plan has no such step.
    pub fn step(&self, name: &str) -> &Value {
        self.steps
            .get(name)
            .unwrap_or_else(|| panic!("no step {name}: {}", self.report))
    }

    /// What the client saw besides its steps (`logs`, `updated`, `asked`, `toolsChanged`).
    pub fn seen(&self, what: &str) -> &Value {
        &self.report["seen"][what]
    }

    /// The progress values a call step saw, as numbers (Python reports floats).
    pub fn progress(&self, name: &str) -> Vec<f64> {
        self.step(name)["progress"]
            .as_array()
            .map(|p| p.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    }
}

/// The plan against the conformance fixtures: list, call, read, get, subscribe (a 2026-07-28
/// client listens to tool changes instead), take progress, follow a list change, cancel, then
/// one more request.
pub fn fixture_plan(modern: bool) -> Vec<Step> {
    let mut plan = vec![
        ("tools", json!({"op": "tools"})),
        ("text", json!({"op": "call", "name": "test_simple_text"})),
        (
            "resource",
            json!({"op": "read", "uri": "test://static-text"}),
        ),
        (
            "prompt",
            json!({"op": "prompt", "name": "test_prompt_with_arguments",
                   "arguments": {"arg1": "a", "arg2": "b"}}),
        ),
        if modern {
            (
                "subscribe",
                json!({"op": "listen", "filter": {"toolsListChanged": true}}),
            )
        } else {
            (
                "subscribe",
                json!({"op": "subscribe", "uri": "test://watched-resource"}),
            )
        },
        (
            "progress",
            json!({"op": "call", "name": "test_tool_with_progress", "progress": true}),
        ),
        (
            "change",
            json!({"op": "change", "name": "test_trigger_tool_change"}),
        ),
        ("after change", json!({"op": "tools"})),
        (
            "cancel",
            json!({"op": "call", "name": "test_reconnection", "cancelAfterMs": 100}),
        ),
    ];
    plan.push(if modern {
        (
            "after cancel",
            json!({"op": "call", "name": "test_simple_text"}),
        )
    } else {
        ("after cancel", json!({"op": "ping"}))
    });
    plan
}

/// What every client must see of the fixtures through [`fixture_plan`] (progress aside: how
/// much of it arrives depends on the client and transport).
pub fn assert_fixtures(outcome: &Outcome, modern: bool) {
    let report = &outcome.report;
    assert_eq!(report["server"], "mcp-wire-conformance-server", "{report}");
    let tools = outcome.step("tools").as_array().map_or(0, Vec::len);
    assert_eq!(tools, 35, "{report}");
    let text = "This is a simple text response for testing.";
    assert_eq!(outcome.step("text"), text, "{report}");
    assert_eq!(
        outcome.step("resource"),
        &json!(["This is the content of the static text resource."]),
        "{report}"
    );
    assert_eq!(
        outcome.step("prompt"),
        &json!(["Prompt with arguments: arg1='a', arg2='b'"]),
        "{report}"
    );
    let subscribed = if modern {
        json!({"toolsListChanged": true})
    } else {
        json!({})
    };
    assert_eq!(outcome.step("subscribe"), &subscribed, "{report}");
    assert_eq!(outcome.step("change"), true, "{report}");
    assert!(
        outcome
            .step("after change")
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == "test_added_tool")),
        "{report}"
    );
    assert_eq!(
        outcome.step("cancel"),
        &json!({"cancelled": true}),
        "{report}"
    );
    let after = if modern { json!(text) } else { json!({}) };
    assert_eq!(outcome.step("after cancel"), &after, "{report}");
}
