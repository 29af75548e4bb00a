//! The binary's contract: commands, exit codes, output formats, and bad input that never stops
//! the stream.

mod common;

use common::{arg, corpus_files, example_session, run};
use serde_json::json;

#[test]
fn versions_lists_every_revision_with_its_era() {
    let r = run(&["versions"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    for v in mcp_wire::ProtocolVersion::ALL {
        assert!(
            r.stdout.lines().any(|l| l.starts_with(v.as_str())),
            "{v} missing:\n{}",
            r.stdout
        );
    }
    assert!(
        r.stdout
            .contains("- methods: client notification notifications/initialized")
    );
    assert!(
        r.stdout
            .contains("+ methods: server request elicitation/create")
    );
    // Each revision's changes come in two groups: what a peer sees, and what only the schema's
    // definitions regroup (2025-11-25 spells out the envelope in every request definition).
    let block = r
        .stdout
        .split("\n2026-07-28")
        .next()
        .and_then(|s| s.split("2025-11-25  ").nth(1))
        .expect("a 2025-11-25 block");
    let (wire, restructuring) = block
        .split_once("  schema restructuring (same wire shape):")
        .expect("both groups");
    assert!(
        wire.contains("  wire changes (a peer sees these):"),
        "{block}"
    );
    assert!(
        wire.contains("    + Tool.icons (result of tools/list: tools[].icons)"),
        "{wire}"
    );
    assert!(
        restructuring.contains("    ~ CallToolRequest: +id +jsonrpc"),
        "{restructuring}"
    );
    assert!(!wire.contains("CallToolRequest: +id"), "{wire}");
}

#[test]
fn usage_and_io_errors_exit_with_2() {
    assert_eq!(run(&["validate"], b"").code, 2, "missing --version");
    assert_eq!(run(&["translate"], b"").code, 2, "missing --to");
    assert_eq!(run(&["explain", "--to", "1999-01-01"], b"").code, 2);
    assert_eq!(run(&["validate", "--version", "2030-01-01"], b"").code, 2);
    // One spelling everywhere (`--to`), the old one kept as an alias.
    assert_eq!(run(&["validate", "--to", "2025-06-18"], b"").code, 0);
    // A directory names itself.
    let dir = run(&["validate", "--to", "2025-06-18", "/"], b"");
    assert_eq!(dir.code, 2);
    assert!(dir.stderr.contains("/: is a directory"), "{}", dir.stderr);
    // --help lists the revisions.
    let help = run(&["--help"], b"");
    assert!(
        help.stdout
            .contains("2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"),
        "{}",
        help.stdout
    );
    let r = run(
        &["validate", "--version", "2025-06-18", "/no/such/file.jsonl"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("/no/such/file.jsonl"), "{}", r.stderr);
    let help = run(&["--help"], b"");
    assert_eq!(help.code, 0);
    for cmd in ["translate", "validate", "explain", "versions"] {
        assert!(help.stdout.contains(cmd), "{cmd} not in --help");
    }
}

#[test]
fn validate_reports_each_line_of_the_corpus() {
    for (path, v) in corpus_files() {
        let r = run(
            &["validate", "--schema", "--version", v.as_str(), arg(&path)],
            b"",
        );
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        let verdicts = r.json_lines();
        assert_eq!(
            verdicts.len(),
            lines,
            "{}: one verdict per line",
            path.display()
        );
        let invalid: Vec<u64> = verdicts
            .iter()
            .filter(|v| v["ok"] == false)
            .map(|v| v["line"].as_u64().unwrap())
            .collect();
        // Every session has its deliberate probes (an unknown method, handshake methods sent to
        // a 2026-07-28 server, a request without _meta); nothing else is invalid at its own
        // revision, except the resource links the 2024/2025-03 servers send (not in those
        // schemas).
        let name = path.file_name().unwrap().to_string_lossy();
        let expected: &[u64] = match &*name {
            "pysdk-2024-11-05.jsonl" | "pysdk-2025-03-26.jsonl" => &[19, 72],
            "pysdk-2025-06-18.jsonl" | "pysdk-2025-11-25.jsonl" => &[74],
            // Line 76 claims a revision nobody knows (2099-01-01) in `_meta`: the session
            // reports that claim whether the revision is detected or fixed (`--version`).
            "pysdk-2026-07-28.jsonl" => &[74, 76, 78, 80, 82, 84, 86],
            "tsv2-2025-11-25.jsonl" => &[],
            other => panic!("unexpected corpus file {other}"),
        };
        assert_eq!(invalid, expected, "{name}");
        assert_eq!(r.code, if expected.is_empty() { 0 } else { 1 }, "{name}");
        assert_eq!(
            r.summary(),
            format!(
                "valid {}, invalid {}",
                lines - expected.len(),
                expected.len()
            )
        );
    }
}

#[test]
fn validate_applies_the_2026_mandates() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let r = run(&["validate", "--version", "2026-07-28"], frame);
    let v = &r.json_lines()[0];
    assert_eq!(v["ok"], false);
    let paths: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"/params/_meta/io.modelcontextprotocol~1clientCapabilities"),
        "{v}"
    );
    assert_eq!(r.code, 1);
}

#[test]
fn the_example_session_is_valid_2025_06_18_except_its_unknown_method() {
    let r = run(
        &[
            "validate",
            "--schema",
            "--version",
            "2025-06-18",
            arg(&example_session()),
        ],
        b"",
    );
    let bad: Vec<_> = r
        .json_lines()
        .into_iter()
        .filter(|v| v["ok"] == false)
        .collect();
    assert_eq!(
        bad,
        vec![json!({"line":57,"ok":false,"errors":[{"path":"",
            "message":"harbour/weather is not a client request at 2025-06-18"}]})]
    );
    assert_eq!(r.summary(), "valid 57, invalid 1");
}

/// A stream with one of every kind of bad input between good frames (line 10 is blank):
/// truncated JSON, invalid UTF-8, 10,000-deep nesting, duplicate keys, a boolean id, an unknown
/// method, a response with an unknown id.
const BAD_STREAM: &[u8] = include_bytes!("bad-stream.jsonl");

#[test]
fn bad_input_is_reported_and_the_stream_goes_on_in_validate() {
    let r = run(&["validate", "--version", "2025-06-18"], BAD_STREAM);
    assert_eq!(r.code, 1);
    let verdicts = r.json_lines();
    let ok: Vec<(u64, bool)> = verdicts
        .iter()
        .map(|v| (v["line"].as_u64().unwrap(), v["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        ok,
        vec![
            (1, true),
            (2, true),
            (3, false),
            (4, false),
            (5, false),
            (6, false),
            (7, false),
            (8, false),
            (9, false),
            (11, true),
            (12, true)
        ]
    );
    let msg = |line: u64| {
        verdicts.iter().find(|v| v["line"] == line).unwrap()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(msg(3), "not JSON: column 42: EOF while parsing a string");
    assert_eq!(msg(4), "not JSON: column 84: invalid UTF-8");
    assert_eq!(msg(5), "not JSON: column 128: recursion limit exceeded");
    assert_eq!(msg(6), "not JSON: column 50: duplicate key \"id\"");
    assert_eq!(
        msg(7),
        "invalid JSON-RPC message: `id` must be a string or an integer, found a boolean (at /id)"
    );
    assert_eq!(
        msg(8),
        "tools/teleport is not a client request at 2025-06-18"
    );
    assert_eq!(msg(9), "response id 99 answers no pending client request");
    assert_eq!(r.summary(), "valid 4, invalid 7");
}

#[test]
fn a_line_over_the_default_limit_is_skipped_and_reported() {
    let dir = common::scratch("big-line");
    let path = dir.join("big.jsonl");
    let big;
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(f, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).unwrap();
        let head = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":""#;
        let tail = r#""}}"#;
        f.write_all(head.as_bytes()).unwrap();
        // One MiB past the default limit (128 MiB).
        let mib = mcp_wire_frames::input::DEFAULT_MAX_LINE_BYTES / (1 << 20) + 1;
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..mib {
            f.write_all(&chunk).unwrap();
        }
        writeln!(f, "{tail}").unwrap();
        big = head.len() + tail.len() + mib * (1 << 20);
        writeln!(f, r#"{{"jsonrpc":"2.0","id":1,"result":{{}}}}"#).unwrap();
    }
    let started = std::time::Instant::now();
    let r = run(&["validate", "--version", "2025-06-18", arg(&path)], b"");
    let took = started.elapsed();
    std::fs::remove_dir_all(&dir).unwrap();
    let lines: Vec<_> = r.json_lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], json!({"line":1,"ok":true}));
    assert_eq!(lines[2], json!({"line":3,"ok":true}));
    assert_eq!(
        lines[1]["errors"][0]["message"],
        format!("line of {big} bytes exceeds the limit (--max-line-bytes); skipped")
    );
    assert!(took.as_secs() < 30, "took {took:?}");
}

/// A 2025-11-25 tools/list answer at 2024-11-05: the tool's `title` passes (explain lists it);
/// with `--strict` it is stripped (and explain lists it as stripped).
#[test]
fn strict_writes_only_what_the_target_declares_and_explain_lists_passed_members() {
    let session = concat!(
        r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}"#,
        "\n",
        r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}"#,
        "\n",
        r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#,
        "\n",
        r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","title":"T","inputSchema":{"type":"object"}}]}}}"#,
        "\n",
    );
    let to = ["--to", "2024-11-05"];
    let plain = run(&[&["translate"][..], &to].concat(), session.as_bytes());
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let tools = &plain.json_lines()[3]["frame"]["result"]["tools"][0];
    assert_eq!(tools["title"], "T");
    let strict = run(
        &[&["translate", "--strict"][..], &to].concat(),
        session.as_bytes(),
    );
    assert_eq!(strict.code, 0, "{}", strict.stderr);
    let tools = &strict.json_lines()[3]["frame"]["result"]["tools"][0];
    assert!(tools.get("title").is_none(), "{tools}");
    assert_eq!(tools["name"], "t");
    let explained = run(&[&["explain"][..], &to].concat(), session.as_bytes());
    let line = &explained.json_lines()[3];
    assert_eq!(line["passed"], serde_json::json!(["/result/tools/0/title"]));
    assert_eq!(line["stripped"], serde_json::json!([]));
    let explained = run(
        &[&["explain", "--strict"][..], &to].concat(),
        session.as_bytes(),
    );
    let line = &explained.json_lines()[3];
    assert!(line.get("passed").is_none(), "{line}");
    assert_eq!(
        line["stripped"],
        serde_json::json!(["/result/tools/0/title"])
    );
}

/// A fractional answer to a number field is valid, by the generated types and by the schema
/// (with its named upstream fixes), at every revision whose schema.ts types answers `number`.
#[test]
fn validate_admits_fractional_elicitation_answers() {
    let ask = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"A number?","requestedSchema":{"type":"object","properties":{"x":{"type":"number"}}}}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"x":3.14}}}"#;
    let stream = format!("{ask}\n{answer}\n");
    for v in ["2025-06-18", "2025-11-25"] {
        let r = run(&["validate", "--schema", "--to", v], stream.as_bytes());
        assert_eq!(r.code, 0, "{v}: {}", r.stdout);
        assert_eq!(r.summary(), "valid 2, invalid 0", "{v}");
    }
    // At 2026-07-28 the answer travels in the retried request's inputResponses.
    let retry = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","inputResponses":{"x":{"action":"accept","content":{"x":3.14}}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
    let r = run(
        &["validate", "--schema", "--to", "2026-07-28"],
        retry.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.summary(), "valid 1, invalid 0");
}
