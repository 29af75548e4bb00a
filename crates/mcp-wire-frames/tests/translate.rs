//! `translate` and `explain` over the shared corpus and the shipped session: every session to
//! every revision gives frames that validate against the target's pinned schema, or refusals
//! with reasons; `explain` accounts for every difference; nothing is silently dropped.

mod common;

use common::{arg, corpus_files, example_session, run};
use mcp_wire::ProtocolVersion;
use mcp_wire_frames::pointer;
use serde_json::{Value, json};

/// Non-blank input lines with their 1-based numbers.
fn input_lines(path: &std::path::Path) -> Vec<(usize, Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, serde_json::from_str(l).unwrap()))
        .collect()
}

/// `(translated, refused, invalid)` from a summary line.
fn counts(summary: &str, verb: &str) -> (usize, usize, usize) {
    let nums: Vec<usize> = summary
        .strip_prefix(verb)
        .unwrap_or_else(|| panic!("summary {summary:?}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 3, "summary {summary:?}");
    (nums[0], nums[1], nums[2])
}

fn frame_of(record: &Value) -> &Value {
    record.get("frame").unwrap_or(record)
}

#[test]
fn every_session_to_every_revision_validates_at_the_target_or_is_refused_with_a_reason() {
    let scratch = common::scratch("translate-corpus");
    let mut sessions = corpus_files();
    sessions.push((example_session(), ProtocolVersion::V2025_06_18));
    for (path, _) in &sessions {
        let inputs = input_lines(path);
        for to in ProtocolVersion::ALL {
            let ctx = format!("{} --to {to}", path.display());
            let r = run(&["translate", "--to", to.as_str(), arg(path)], b"");
            assert!(
                r.code == 0 || r.code == 1,
                "{ctx}: exit {} {}",
                r.code,
                r.stderr
            );
            let (translated, refused, invalid) = counts(r.summary(), "translated ");
            assert_eq!(
                translated + refused + invalid,
                inputs.len(),
                "{ctx}: a frame went missing"
            );
            assert_eq!(r.lines().len(), translated, "{ctx}");
            assert_eq!(r.code == 0, refused + invalid == 0, "{ctx}");
            // Every refusal and every invalid frame has its `line N: …` report with a reason.
            let reports: Vec<&str> = r
                .stderr
                .lines()
                .filter(|l| l.starts_with("line "))
                .collect();
            assert_eq!(reports.len(), refused + invalid, "{ctx}: {}", r.stderr);
            for rep in &reports {
                let (_, reason) = rep.split_once(": ").unwrap();
                assert!(
                    (reason.starts_with("refused: ") || reason.starts_with("invalid: "))
                        && reason.len() > "refused: ".len() + 10,
                    "{ctx}: {rep}"
                );
            }
            // The output keeps the capture format and validates at the target.
            let out = scratch.join("out.jsonl");
            std::fs::write(&out, &r.stdout).unwrap();
            for v in r.json_lines() {
                assert!(
                    v.get("dir").is_some() && v.get("frame").is_some(),
                    "{ctx}: {v}"
                );
            }
            let check = run(
                &["validate", "--schema", "--version", to.as_str(), arg(&out)],
                b"",
            );
            let bad: Vec<_> = check
                .json_lines()
                .into_iter()
                .filter(|v| v["ok"] == false)
                .collect();
            assert!(
                bad.is_empty(),
                "{ctx}: translated frames fail the {to} schema: {bad:#?}"
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn explain_accounts_for_every_difference() {
    let mut sessions = corpus_files();
    sessions.push((example_session(), ProtocolVersion::V2025_06_18));
    let mut changed = 0;
    let mut rewritten = 0;
    for (path, _) in &sessions {
        let inputs = input_lines(path);
        for to in ProtocolVersion::ALL {
            let ctx = format!("{} --to {to}", path.display());
            let t = run(&["translate", "--to", to.as_str(), arg(path)], b"");
            let e = run(&["explain", "--to", to.as_str(), arg(path)], b"");
            let explained = e.json_lines();
            assert_eq!(
                explained.len(),
                inputs.len(),
                "{ctx}: one explanation per frame"
            );
            let mut outputs = t.json_lines().into_iter();
            for ((line, input), ex) in inputs.iter().zip(&explained) {
                assert_eq!(ex["line"], json!(line), "{ctx}");
                let status = ex["status"].as_str().unwrap();
                assert_eq!(
                    ex.get("reason").is_some(),
                    status != "written",
                    "{ctx}: line {line}: {ex}"
                );
                if status != "written" {
                    assert!(status == "refused" || status == "invalid", "{ctx}: {ex}");
                    let reason = ex["reason"].as_str().unwrap();
                    assert!(
                        t.stderr
                            .contains(&format!("line {line}: {status}: {reason}")),
                        "{ctx}: line {line}: translate does not report {status}: {reason:?}"
                    );
                    continue;
                }
                let output = outputs
                    .next()
                    .unwrap_or_else(|| panic!("{ctx}: output ended early"));
                let (input, output) = (frame_of(input), frame_of(&output));
                let mut rebuilt = input.clone();
                for p in ex["stripped"].as_array().unwrap() {
                    let p = p.as_str().unwrap();
                    assert!(
                        pointer::remove(&mut rebuilt, p).is_some(),
                        "{ctx}: line {line}: stripped {p} is not in the input"
                    );
                }
                for p in ex["injected"].as_array().unwrap() {
                    let p = p.as_str().unwrap();
                    let v = output.pointer(p).unwrap_or_else(|| {
                        panic!("{ctx}: line {line}: injected {p} not in the output")
                    });
                    assert!(pointer::insert(&mut rebuilt, p, v.clone()), "{ctx}: {p}");
                }
                // A rewritten member is in both, with the output's value.
                for p in ex
                    .get("rewritten")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let p = p.as_str().unwrap();
                    assert!(rebuilt.pointer(p).is_some(), "{ctx}: {p} not in the input");
                    let v = output.pointer(p).unwrap_or_else(|| {
                        panic!("{ctx}: line {line}: rewritten {p} not in the output")
                    });
                    assert!(pointer::insert(&mut rebuilt, p, v.clone()), "{ctx}: {p}");
                    rewritten += 1;
                }
                assert_eq!(
                    &rebuilt, output,
                    "{ctx}: line {line}: the output differs from input - stripped + injected, rewritten replaced"
                );
                if input != output {
                    changed += 1;
                }
            }
            assert!(
                outputs.next().is_none(),
                "{ctx}: more output frames than explanations"
            );
        }
    }
    assert!(
        changed > 100,
        "only {changed} frames changed: the test would not notice much"
    );
    // Every handshake session's `initialize` and its answer, to each other handshake revision.
    assert!(rewritten >= 30, "only {rewritten} rewritten members");
}

#[test]
fn initialize_and_its_answer_name_the_target_revision() {
    for (path, source) in corpus_files() {
        if source == ProtocolVersion::V2026_07_28 {
            continue;
        }
        for to in ProtocolVersion::ALL {
            let ctx = format!("{} --to {to}", path.display());
            let r = run(&["translate", "--to", to.as_str(), arg(&path)], b"");
            let frames: Vec<Value> = r.json_lines().iter().map(|v| frame_of(v).clone()).collect();
            let init = frames.iter().find(|f| f["method"] == "initialize");
            if to == ProtocolVersion::V2026_07_28 {
                // No handshake at 2026-07-28: refused, and so is its answer.
                assert!(init.is_none(), "{ctx}");
                assert!(
                    !frames
                        .iter()
                        .any(|f| f["result"].get("serverInfo").is_some()),
                    "{ctx}"
                );
                continue;
            }
            let init = init.unwrap_or_else(|| panic!("{ctx}: no initialize written"));
            assert_eq!(init["params"]["protocolVersion"], to.as_str(), "{ctx}");
            let answer = frames
                .iter()
                .find(|f| f["id"] == init["id"] && f.get("result").is_some())
                .unwrap_or_else(|| panic!("{ctx}: no answer to initialize written"));
            assert_eq!(answer["result"]["protocolVersion"], to.as_str(), "{ctx}");
        }
    }
    // The TypeScript client's offer of 2026-07-28, judged at 2025-11-25, offers the target.
    let here = mcp_wire_schemas::workspace_root()
        .join("crates/mcp-wire-frames/tests/ts-offers-2026.jsonl");
    let r = run(&["translate", "--to", "2025-06-18", arg(&here)], b"");
    let init = r
        .json_lines()
        .into_iter()
        .map(|v| frame_of(&v).clone())
        .find(|f| f["method"] == "initialize")
        .unwrap();
    assert_eq!(init["params"]["protocolVersion"], "2025-06-18");
}

#[test]
fn bad_input_is_reported_and_the_rest_still_translates() {
    let stream = include_bytes!("bad-stream.jsonl");
    let r = run(&["translate", "--to", "2025-11-25"], stream);
    assert_eq!(r.code, 1);
    let reports: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        reports,
        vec![
            "line 3: invalid: not JSON: column 42: EOF while parsing a string",
            "line 4: invalid: not JSON: column 84: invalid UTF-8",
            "line 5: invalid: not JSON: column 128: recursion limit exceeded",
            "line 6: invalid: not JSON: column 50: duplicate key \"id\"",
            "line 7: invalid: invalid JSON-RPC message: `id` must be a string or an integer, found a boolean (at /id)",
            "line 8: invalid: tools/teleport is not a client request at 2025-06-18",
            "line 9: invalid: response id 99 answers no pending client request",
            "translated 4, refused 0, invalid 7",
        ]
    );
    let ids: Vec<Value> = r.json_lines().iter().map(|f| f["id"].clone()).collect();
    assert_eq!(ids, vec![json!(1), json!(1), json!(6), json!(6)]);
}

#[test]
fn on_refuse_error_answers_refused_and_invalid_requests() {
    let stream = include_bytes!("bad-stream.jsonl");
    let r = run(
        &["translate", "--to", "2026-07-28", "--on-refuse", "error"],
        stream,
    );
    let frames = r.json_lines();
    // initialize has no 2026-07-28 form: its sender gets an error with its id; so does the
    // request with an unknown method. The boolean id cannot be echoed, so it gets no answer.
    let errors: Vec<(Value, i64)> = frames
        .iter()
        .filter(|f| f.get("error").is_some())
        .map(|f| (f["id"].clone(), f["error"]["code"].as_i64().unwrap()))
        .collect();
    assert_eq!(errors, vec![(json!(1), -32601), (json!(5), -32601)]);
    assert!(
        r.stderr.contains("line 1: refused: no form at 2026-07-28"),
        "{}",
        r.stderr
    );
}

/// A request the translator cannot judge because it was not told the source revision (no
/// `initialize` seen, no `_meta` revision, no `--from`) is a configuration problem of ours, not
/// the peer's malformed request: answered with -32603, not -32600.
#[test]
fn on_refuse_error_answers_a_configuration_problem_as_internal() {
    let input = br#"{"jsonrpc":"2.0","id":"t","method":"tools/list"}
"#;
    let r = run(
        &["translate", "--to", "2025-06-18", "--on-refuse", "error"],
        input,
    );
    let out = r.json_lines();
    assert_eq!(out.len(), 1, "{}", r.stderr);
    assert_eq!(out[0]["id"], "t");
    assert_eq!(out[0]["error"]["code"], -32603, "{}", out[0]);
    assert!(
        r.stderr.contains("cannot tell the source revision"),
        "{}",
        r.stderr
    );
    // Told the revision, the same request is translated.
    let told = run(
        &[
            "translate",
            "--to",
            "2025-06-18",
            "--from",
            "2025-06-18",
            "--on-refuse",
            "error",
        ],
        input,
    );
    assert_eq!(told.code, 0, "{}", told.stderr);
    assert_eq!(told.json_lines()[0]["method"], "tools/list");
}

#[test]
fn capture_replies_travel_back_to_the_sender() {
    let input = br#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
"#;
    let r = run(
        &["translate", "--to", "2026-07-28", "--on-refuse", "error"],
        input,
    );
    let out = r.json_lines();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["dir"], "s2c");
    assert_eq!(out[0]["frame"]["id"], "i");
    assert_eq!(r.summary(), "translated 0, refused 1, invalid 0");
}

/// A real TypeScript client's handshake: `initialize` offers 2026-07-28, the server answers
/// 2025-11-25.
fn ts_offering_2026() -> std::path::PathBuf {
    mcp_wire_schemas::workspace_root().join("crates/mcp-wire-frames/tests/ts-offers-2026.jsonl")
}

#[test]
fn from_fixes_only_the_revision_the_output_is_the_detected_one() {
    let mut sessions = corpus_files();
    sessions.push((example_session(), ProtocolVersion::V2025_06_18));
    sessions.push((ts_offering_2026(), ProtocolVersion::V2025_11_25));
    sessions.push((task_flows(), ProtocolVersion::V2025_11_25));
    let mut written_to_2026 = 0;
    for (path, from) in &sessions {
        for to in ProtocolVersion::ALL {
            for cmd in ["translate", "explain"] {
                let ctx = format!("{cmd} {} --to {to}", path.display());
                let detected = run(&[cmd, "--to", to.as_str(), arg(path)], b"");
                let fixed = run(
                    &[cmd, "--to", to.as_str(), "--from", from.as_str(), arg(path)],
                    b"",
                );
                assert_eq!(detected.stdout, fixed.stdout, "{ctx}: --from {from}");
                assert_eq!(detected.stderr, fixed.stderr, "{ctx}: --from {from}");
                assert_eq!(detected.code, fixed.code, "{ctx}: --from {from}");
                if cmd == "translate" && to == ProtocolVersion::V2026_07_28 {
                    written_to_2026 += fixed.lines().len();
                }
            }
        }
    }
    // The handshake sessions' requests reach 2026-07-28 with the identity `initialize` stated
    // (without it every request and its answer would be refused).
    assert!(written_to_2026 > 200, "{written_to_2026}");
}

#[test]
fn an_initialize_offering_2026_is_judged_as_the_handshake_it_is() {
    let path = ts_offering_2026();
    let r = run(&["translate", "--to", "2025-11-25", arg(&path)], b"");
    assert_eq!(
        r.summary(),
        "translated 9, refused 0, invalid 0",
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 0);
    // To 2026-07-28 the handshake frames are refused (not invalid) and every request after
    // them carries the client identity the offer stated.
    let r = run(&["explain", "--to", "2026-07-28", arg(&path)], b"");
    let status: Vec<(u64, String)> = r
        .json_lines()
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(u64, String)> = [
        (1, "refused"),
        (2, "refused"),
        (3, "refused"),
        (4, "written"),
        (5, "written"),
        (6, "written"),
        (7, "written"),
        (8, "refused"),
        (9, "refused"),
    ]
    .into_iter()
    .map(|(l, s)| (l, s.to_owned()))
    .collect();
    assert_eq!(status, want);
    let t = run(&["translate", "--to", "2026-07-28", arg(&path)], b"");
    let call = &t.json_lines()[2]["frame"];
    assert_eq!(call["method"], "tools/call");
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientInfo"],
        json!({"name":"ts-v2-client","version":"0.1.0"})
    );
    // validate judges the handshake at 2025-11-25 as valid.
    let v = run(
        &[
            "validate",
            "--schema",
            "--version",
            "2025-11-25",
            arg(&path),
        ],
        b"",
    );
    assert_eq!(v.summary(), "valid 9, invalid 0", "{}", v.stdout);
}

/// A base64 text of `len` bytes (the alphabet, repeated).
fn base64_blob(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s: Vec<u8> = ALPHABET.iter().copied().cycle().take(len - 2).collect();
    s.extend_from_slice(b"==");
    String::from_utf8(s).unwrap()
}

#[test]
fn a_24_mb_tools_call_and_its_image_answer_translate_by_default() {
    let image = base64_blob(24 << 20);
    let frames = [
        json!({"dir":"c2s","frame":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"uploader","version":"1.0.0"}}}}),
        json!({"dir":"s2c","frame":{"jsonrpc":"2.0","id":0,"result":{
            "protocolVersion":"2025-06-18","capabilities":{"tools":{}},
            "serverInfo":{"name":"vision","version":"1.0.0"}}}}),
        json!({"dir":"c2s","frame":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
            "name":"describe_image","arguments":{"image":image,"mimeType":"image/png"}}}}),
        json!({"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{"content":[
            {"type":"text","text":"A test pattern."},
            {"type":"image","data":image,"mimeType":"image/png"}],"isError":false}}}),
    ];
    let mut input = Vec::new();
    for f in &frames {
        serde_json::to_writer(&mut input, f).unwrap();
        input.push(b'\n');
    }
    assert!(input.len() > 48 << 20);
    for to in ["2025-11-25", "2026-07-28"] {
        let r = run(&["translate", "--to", to], &input);
        let out = r.json_lines();
        let want = if to == "2026-07-28" { 2 } else { 4 };
        assert_eq!(out.len(), want, "--to {to}: {}", r.stderr);
        let (call, answer) = (&out[want - 2]["frame"], &out[want - 1]["frame"]);
        assert_eq!(call["params"]["arguments"]["image"].as_str(), Some(&*image));
        assert_eq!(
            answer["result"]["content"][1]["data"].as_str(),
            Some(&*image)
        );
        assert!(!r.stderr.contains("exceeds the limit"), "{}", r.stderr);
    }
}

/// Task flows at 2025-11-25, both ways: a task-augmented `tools/call` answered by a
/// `CreateTaskResult`, `notifications/tasks/status`, `tasks/get`, `tasks/result` answered by the
/// `CallToolResult`, `tasks/list`, a second task cancelled with `tasks/cancel`; then a server's
/// task-augmented `elicitation/create`, whose `tasks/result` the client answers with the
/// `ElicitResult`.
fn task_flows() -> std::path::PathBuf {
    mcp_wire_schemas::workspace_root().join("crates/mcp-wire-frames/tests/tasks-2025-11-25.jsonl")
}

#[test]
fn task_flows_validate_and_translate_at_2025_11_25() {
    let path = task_flows();
    let v = run(
        &[
            "validate",
            "--schema",
            "--version",
            "2025-11-25",
            arg(&path),
        ],
        b"",
    );
    assert_eq!(v.summary(), "valid 22, invalid 0", "{}", v.stdout);
    let r = run(&["translate", "--to", "2025-11-25", arg(&path)], b"");
    assert_eq!(
        r.summary(),
        "translated 22, refused 0, invalid 0",
        "{}",
        r.stderr
    );
    let out = r.json_lines();
    // The created task and the payload come out as what they are.
    assert_eq!(
        out[6]["frame"]["result"]["task"]["taskId"],
        "786512e2-9e0d-44bd-8f29-789f320fe840"
    );
    assert_eq!(
        out[11]["frame"]["result"]["content"][0]["text"],
        "Q3 report: revenue up 4%."
    );
    assert_eq!(out[21]["frame"]["result"]["content"]["approve"], true);
    let e = run(&["explain", "--to", "2025-11-25", arg(&path)], b"");
    assert!(e.json_lines().iter().all(|x| x["status"] == "written"));
}

#[test]
fn task_results_are_typed_by_the_request_and_its_augmentation() {
    let text = std::fs::read_to_string(task_flows()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let stream = |picked: &[&str]| picked.join("\n").into_bytes();
    // The payload of `tasks/result` is checked as the `CallToolResult` it is: one without
    // `content` is invalid, and says so as a `CallToolResult`.
    let bad_payload = lines[11].replace(
        r#""content":[{"type":"text","text":"Q3 report: revenue up 4%."}],"#,
        "",
    );
    let input = stream(&[
        lines[0],
        lines[1],
        lines[5],
        lines[6],
        lines[10],
        &bad_payload,
    ]);
    let v = run(&["validate", "--schema", "--version", "2025-11-25"], &input);
    let verdicts = v.json_lines();
    assert_eq!(verdicts[5]["ok"], false, "{}", v.stdout);
    let msg = verdicts[5]["errors"].to_string();
    assert!(
        msg.contains("CallToolResult") && msg.contains("content"),
        "{msg}"
    );
    // A `tools/call` without `task` answered by a created task is not a `CallToolResult`.
    let plain_call = lines[5].replace(r#","task":{"ttl":60000}"#, "");
    let input = stream(&[lines[0], lines[1], &plain_call, lines[6]]);
    let v = run(&["validate", "--version", "2025-11-25"], &input);
    assert_eq!(v.json_lines()[3]["ok"], false, "{}", v.stdout);
    let t = run(&["translate", "--to", "2025-11-25"], &input);
    assert!(
        t.stderr
            .contains("line 4: invalid: not valid at its revision"),
        "{}",
        t.stderr
    );
}

#[test]
fn task_flows_are_refused_with_a_reason_where_tasks_do_not_exist() {
    let path = task_flows();
    for to in ["2024-11-05", "2025-03-26", "2025-06-18", "2026-07-28"] {
        let e = run(&["explain", "--to", to, arg(&path)], b"");
        let records = e.json_lines();
        assert_eq!(records.len(), 22, "--to {to}");
        // Only the handshake and the plain tools/list (and at 2026-07-28 not even the
        // handshake) are written; every task frame is refused, none is invalid.
        let written: Vec<u64> = records
            .iter()
            .filter(|r| r["status"] == "written")
            .map(|r| r["line"].as_u64().unwrap())
            .collect();
        let want: &[u64] = if to == "2026-07-28" {
            &[4, 5]
        } else {
            &[1, 2, 3, 4, 5]
        };
        assert_eq!(written, want, "--to {to}");
        assert!(
            records.iter().all(|r| r["status"] != "invalid"),
            "--to {to}"
        );
        // (Before 2025-06-18 and at 2026-07-28 there is no elicitation/create to refuse for
        // its augmentation: it is refused as a method the target lacks.)
        let augmented: &[usize] = if to == "2025-06-18" {
            &[6, 15, 19]
        } else {
            &[6, 15]
        };
        assert!(
            records[18]["reason"]
                .as_str()
                .unwrap()
                .starts_with("no form at")
        );
        for &line in augmented {
            let reason = records[line - 1]["reason"].as_str().unwrap();
            assert!(
                reason.starts_with(&format!("no form at {to}: "))
                    && reason.ends_with(
                        "is task-augmented (params.task), which exists only at 2025-11-25"
                    ),
                "--to {to}: line {line}: {reason}"
            );
        }
        let answer = records[6]["reason"].as_str().unwrap();
        assert_eq!(
            answer,
            "answers tools/call (line 6), which was not translated"
        );
        // Translating writes exactly the frames explain calls written.
        let t = run(&["translate", "--to", to, arg(&path)], b"");
        assert_eq!(t.lines().len(), want.len(), "--to {to}");
        assert_eq!(t.code, 1);
    }
}

/// A JSON-RPC batch is judged by the crate's rule for the session's revision: at 2025-03-26
/// (the only revision with batches) each of its messages is placed and translated as if it had
/// its own line; anywhere else the line is invalid, and the stream goes on.
#[test]
fn batches_are_split_at_2025_03_26_and_refused_elsewhere() {
    let session = |v: &str| {
        format!(
            concat!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{v}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#,
                "\n",
                r#"[{{"jsonrpc":"2.0","id":2,"method":"tools/list"}},{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":9}}}}]"#,
                "\n",
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[]}}}}"#,
                "\n"
            ),
            v = v
        )
    };
    let r = run(
        &["translate", "--to", "2025-06-18"],
        session("2025-03-26").as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.summary(), "translated 5, refused 0, invalid 0");
    let methods: Vec<Value> = r
        .json_lines()
        .iter()
        .map(|f| f.get("method").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        methods,
        vec![
            json!("initialize"),
            Value::Null,
            json!("tools/list"),
            json!("notifications/cancelled"),
            Value::Null
        ]
    );

    let r = run(
        &["translate", "--to", "2025-03-26"],
        session("2025-06-18").as_bytes(),
    );
    assert_eq!(r.code, 1);
    let reports: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        reports,
        vec![
            "line 3: invalid: JSON-RPC batches exist only at protocol version 2025-03-26, not at '2025-06-18' (at (root))",
            "line 4: invalid: response id 2 answers no pending client request",
            "translated 2, refused 0, invalid 2",
        ]
    );

    // A bad message inside an allowed batch is reported with its index; the others go on.
    let bad = session("2025-03-26").replace(
        r#"{"jsonrpc":"2.0","method":"notif"#,
        r#"{"jsonrpc":"1.0","method":"notif"#,
    );
    let r = run(&["translate", "--to", "2025-03-26"], bad.as_bytes());
    assert_eq!(r.summary(), "translated 4, refused 0, invalid 1");
    assert!(
        r.stderr.starts_with(
            "line 3: invalid: batch message 1: invalid JSON-RPC message: `jsonrpc` must be \"2.0\""
        ),
        "{}",
        r.stderr
    );
}
