//! The superset model knows nothing of the boundary: no code under `src/model/` names
//! `crate::wire` (doc comments may link to it). The boundary reads the model's policy-free
//! description (`model::describe`) and owns every decision.

use std::fs;
use std::path::Path;

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that name the boundary's module outside comments.
fn boundary_uses(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let code = line.split("//").next().unwrap_or("");
            let named = ["crate::wire", "super::wire", "super::super::wire"]
                .iter()
                .any(|p| code.contains(p));
            named.then(|| (i + 1, line.trim().to_owned()))
        })
        .collect()
}

#[test]
fn the_model_imports_nothing_from_the_boundary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 20, "found only {} model sources", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("readable source");
        for (line, code) in boundary_uses(&text) {
            found.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "model/ names the boundary:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_use_and_skips_a_doc_link() {
    let uses = boundary_uses(
        "use crate::wire::ledger;\n/// see [`x`](crate::wire::x)\nlet a = 1; // crate::wire\n\
         $crate::wire::planned::emit!();\n",
    );
    assert_eq!(uses.iter().map(|(l, _)| *l).collect::<Vec<_>>(), vec![1, 4]);
}
