//! Every JSON-RPC error code and every reserved `_meta` key has exactly one definition in the
//! workspace: `mcp_wire::jsonrpc::codes` (defined in `de/error.rs`, beside `ModelError`) and
//! `mcp_wire::model::meta::keys`. Library code of every crate names them through those
//! constants; only tests may spell the wire value (they assert what goes on the wire), and serde
//! attributes, which cannot name a constant.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a file holds only tests (`tests.rs`, `*_tests.rs`).
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The library code of `text`, line by line: everything before the first `#[cfg(test)]`, with
/// comments and serde attributes blanked.
fn library_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| !line.trim_start().starts_with("#[cfg(test)]"))
        .filter(|(_, line)| {
            let t = line.trim_start();
            !t.starts_with("//") && !t.starts_with("#[serde(")
        })
        .map(|(i, line)| (i + 1, line))
        .collect()
}

/// Whether `line` has a JSON-RPC error code literal (`-32xxx`) outside string literals.
fn has_code_literal(line: &str) -> bool {
    let code: String = line.split('"').step_by(2).collect::<Vec<_>>().join(" ");
    let b = code.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'-'
            && code[i + 1..].starts_with("32")
            && b.len() >= i + 6
            && b[i + 1..i + 6].iter().all(u8::is_ascii_digit)
            && b.get(i + 6).is_none_or(|c| !c.is_ascii_alphanumeric())
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
    })
}

/// Whether `line` spells a reserved `_meta` key of the protocol as a string literal.
fn has_reserved_key_literal(line: &str) -> bool {
    const RESERVED: [&str; 7] = [
        "\"io.modelcontextprotocol/protocolVersion\"",
        "\"io.modelcontextprotocol/clientInfo\"",
        "\"io.modelcontextprotocol/clientCapabilities\"",
        "\"io.modelcontextprotocol/logLevel\"",
        "\"io.modelcontextprotocol/serverInfo\"",
        "\"io.modelcontextprotocol/subscriptionId\"",
        "\"io.modelcontextprotocol/related-task\"",
    ];
    RESERVED.iter().any(|k| line.contains(k))
}

/// The places that define the constants.
const DEFINITIONS: [&str; 2] = [
    "crates/mcp-wire/src/de/error.rs",
    "crates/mcp-wire/src/model/meta.rs",
];

/// Every library line of the workspace's crates that spells a code or a reserved key.
fn findings(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "found only {} sources", files.len());
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(root).unwrap_or(file);
        let rel_text = rel.to_string_lossy().replace('\\', "/");
        let in_library = rel_text.contains("/src/") && !rel_text.contains("/generated/");
        if !in_library || is_test_file(file) || DEFINITIONS.contains(&rel_text.as_str()) {
            continue;
        }
        let text = fs::read_to_string(file).expect("readable source");
        for (n, line) in library_lines(&text) {
            if has_code_literal(line) || has_reserved_key_literal(line) {
                found.push(format!("{rel_text}:{n}: {}", line.trim()));
            }
        }
    }
    found
}

#[test]
fn codes_and_reserved_keys_are_named_not_spelled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let found = findings(&root);
    assert!(
        found.is_empty(),
        "spelled instead of naming mcp_wire::jsonrpc::codes / model::meta::keys:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_literals_and_skips_strings_comments_and_tests() {
    assert!(has_code_literal("ErrorData::new(-32602, \"bad\")"));
    assert!(has_code_literal("code => -32600,"));
    assert!(!has_code_literal(
        "ErrorData::new(codes::INVALID_PARAMS, \"-32602 here\")"
    ));
    assert!(!has_code_literal("let x = -3260;"));
    assert!(!has_code_literal("let x = -326021;"));
    assert!(has_reserved_key_literal(
        "meta.get(\"io.modelcontextprotocol/clientInfo\")"
    ));
    assert!(!has_reserved_key_literal("meta.get(keys::CLIENT_INFO)"));
    let text = "let a = -32601;\n// -32601\n#[serde(rename = \"io.modelcontextprotocol/logLevel\")]\n\
                #[cfg(test)]\nlet b = -32601;\n";
    let lines: Vec<usize> = library_lines(text)
        .into_iter()
        .filter(|(_, l)| has_code_literal(l) || has_reserved_key_literal(l))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(lines, vec![1]);
}
