//! The README's "Write a server" block is the shipped example, `examples/server.rs` of
//! mcp-wire-transport (which the transport's tests build and drive), minus its opening doc
//! comment: the two cannot drift apart.

use std::path::Path;

fn workspace_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// The body of the first fenced block opened by `fence` after the heading `heading`.
fn block_after(text: &str, heading: &str, fence: &str) -> String {
    let section = &text[text.find(heading).expect("the heading is in the README")..];
    let start = section.find(fence).expect("the section has the block") + fence.len();
    let body = &section[start..];
    body[..body.find("\n```").expect("the block is closed")].to_owned()
}

#[test]
fn the_readme_server_is_the_example() {
    let readme = workspace_file("README.md");
    let example = workspace_file("crates/mcp-wire-transport/examples/server.rs");
    let code: Vec<&str> = example
        .lines()
        .skip_while(|l| l.starts_with("//!") || l.is_empty())
        .collect();
    let block = block_after(&readme, "## Write a server", "```rust,no_run\n");
    assert_eq!(block.trim_end(), code.join("\n").trim_end());
}

#[test]
fn the_readme_stays_a_guide() {
    let readme = workspace_file("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the guide's limit is 300"
    );
    let headings: Vec<&str> = readme.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings,
        [
            "## Two commands",
            "## Write a server",
            "## The library jobs",
            "## The CLI: `mcp-frames`",
            "## Server variants",
            "## Crates",
            "## Where the rest lives",
        ]
    );
}
