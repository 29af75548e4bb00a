//! The modules of `mcp-wire` and of `mcp-wire-transport` form layers, and every reference
//! between two of them runs down: a module names only modules of lower layers, so no two
//! modules need each other.
//!
//! [`WIRE`] and [`TRANSPORT`] are the orders, bottom first. The check reads every source file
//! under the crate's `src/` (its binaries, separate crate roots, left out)
//! (generated ones included, test modules left out) and every path it names through `crate::`,
//! `$crate::`, `super::` or `self::` outside comments — `use` items, paths in code and macro
//! bodies, and `deserialize_with = "crate::…"` strings alike. Doc links may point anywhere.

use std::collections::BTreeMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Layers of a crate, bottom first. A module may name the modules of lower rows; the modules of
/// one row name none of each other.
///
/// An entry is a module path. A file belongs to the longest entry its module path starts with,
/// and so does every path it names: `de::strict` is its own layer below the rest of `de`.
type Layers = &'static [&'static [&'static str]];

/// The layers of `mcp-wire`.
#[rustfmt::skip]
const WIRE: Layers = &[
    // Leaves: the revisions, JSON paths, the generated modules' constant tags.
    &["version", "path", "wire_const"],
    // How every parse reads JSON: the error of a read (and the one table of JSON-RPC codes),
    // the strict deserializer, the streaming reads of unions.
    &["de::error", "de::value"],
    &["de::strict"],
    &["de"],
    // Strict reading of a frame's text.
    &["json_text"],
    // The generated per-revision models.
    &["v2024_11_05", "v2025_03_26", "v2025_06_18", "v2025_11_25", "v2026_07_28"],
    // Each revision's method and type tables (and the check against its generated types);
    // the JSON-RPC envelope.
    &["facts", "jsonrpc"],
    // The superset model.
    &["model"],
    // The version boundary: emission, parsing, frames.
    &["wire"],
    // What a stream of frames says about itself.
    &["session"],
    // Between the generated modules and the superset; typed tools; the design notes.
    &["convert", "tool", "design"],
];

/// The layers of `mcp-wire-transport`: the frame and its JSON-RPC plumbing, then the server from
/// its state upward to the transports that serve it, the client beside it.
#[rustfmt::skip]
const TRANSPORT: Layers = &[
    // How the crate spawns its background work.
    &["spawn"],
    // The transport's errors; the HTTP routing headers; the server's leaves: who asks, its
    // bounds, the signed request state, the store engines, the bounded task table.
    &["error", "routing", "secret", "server::auth", "server::limits", "server::state", "server::store",
      "server::tasks::table"],
    // One JSON-RPC frame.
    &["frame"],
    // Logs and metrics; the OAuth resource server.
    &["telemetry", "server::oauth"],
    // Frames over stdio; what a handler answers instead of a result; stream logs mirrored to
    // the store.
    &["stdio", "server::error", "server::mirror"],
    // Handshake-era sessions; the task store; the client.
    &["server::session", "server::tasks", "client"],
    // Server-wide changes.
    &["server::notify"],
    // The per-request context.
    &["server::context"],
    // The handler trait.
    &["server::handler"],
    // Registered tools, resources and prompts; running a request as a task; what replicas
    // share and say to each other.
    &["server::router", "server::tasks::run", "server::replica"],
    // The server value: a handler and the state its requests share.
    &["server::shared"],
    // A replica at work.
    &["server::replica::serve"],
    // How a server is set up (a shared store brings its replica).
    &["server::config"],
    // The transport-free runtime.
    &["server::runtime"],
    // The transports: one connection of frames, Streamable HTTP and HTTP+SSE.
    &["server::connection", "server::http"],
    // The server's face.
    &["server"],
    // The conformance fixtures.
    &["fixtures"],
];

/// A crate whose modules form layers.
struct Crate {
    /// Its `src/` directory.
    src: PathBuf,
    layers: Layers,
}

impl Crate {
    fn at(dir: &str, layers: Layers) -> Self {
        Self {
            src: mcp_wire_schemas::workspace_root().join(dir).join("src"),
            layers,
        }
    }
}

/// The layer of `module` (a module path): its row in `layers` and the longest entry it starts
/// with; `None` when no entry does.
fn layer_of(layers: Layers, module: &[String]) -> Option<(usize, &'static str)> {
    layers
        .iter()
        .enumerate()
        .flat_map(|(row, entries)| entries.iter().map(move |e| (row, *e)))
        .filter(|(_, entry)| {
            let entry: Vec<&str> = entry.split("::").collect();
            entry.len() <= module.len() && entry.iter().zip(module).all(|(a, b)| a == b)
        })
        .max_by_key(|(_, entry)| entry.split("::").count())
}

/// One source file: where it is, its module path, and its code (comments blanked, inline test
/// modules removed).
struct Source {
    file: PathBuf,
    module: Vec<String>,
    code: String,
}

/// A path that one file names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Named {
    /// 1-based line.
    line: usize,
    /// The path from the crate root, as written after `crate::` (or resolved from `super::`).
    path: Vec<String>,
}

// ---- reading Rust text ----------------------------------------------------------------------

/// What a span of Rust text is, besides code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    Comment,
    Literal,
}

/// The comments and literals (strings, raw strings, characters) of `text`, in order.
fn spans(text: &str) -> Vec<(Range<usize>, Span)> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                out.push((start..i, Span::Comment));
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push((start..i, Span::Comment));
            }
            b'r' if (i == 0 || !ident(b[i - 1]) || b[i - 1] == b'b')
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1; // `r#ident`
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i = (i + close.len()).min(b.len());
                out.push((start..i, Span::Literal));
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push((start..i, Span::Literal));
            }
            b'\'' => {
                // A character literal (`'{'`, `'\''`, `'é'`), or else a lifetime or label.
                let rest = &text[i + 1..];
                let len = if let Some(escaped) = rest.strip_prefix('\\') {
                    // The escaped character, then up to the closing quote (`\u{…}` is longer).
                    escaped.get(1..).and_then(|e| e.find('\'')).map(|n| n + 2)
                } else {
                    let c = rest.chars().next().map_or(0, char::len_utf8);
                    (rest[c..].starts_with('\'') && c > 0).then_some(c)
                };
                match len {
                    Some(n) => {
                        i += n + 2;
                        out.push((start..i, Span::Literal));
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `text` with its comments blanked (newlines kept, so offsets and lines stay), and the spans
/// of its literals.
fn code_of(text: &str) -> (String, Vec<Range<usize>>) {
    let mut code = text.as_bytes().to_vec();
    let mut literals = Vec::new();
    for (range, span) in spans(text) {
        match span {
            Span::Comment => {
                for c in &mut code[range] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
            }
            Span::Literal => literals.push(range),
        }
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    (String::from_utf8(code).expect("utf-8"), literals)
}

/// The identifier at the start of `s`, if any.
fn ident(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0 && !s.starts_with(|c: char| c.is_ascii_digit())).then(|| &s[..end])
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The test code of `code`: each `#[cfg(test)]` inline `mod x { … }` (its whole range), and
/// the names of `#[cfg(test)] mod x;` (modules in their own files).
fn test_modules(code: &str, literals: &[Range<usize>]) -> (Vec<Range<usize>>, Vec<String>) {
    let (mut inline, mut files) = (Vec::new(), Vec::new());
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let mut rest = &code[at + "#[cfg(test)]".len()..];
        loop {
            rest = rest.trim_start();
            if rest.starts_with("#[") {
                rest = &rest[rest.find(']').map_or(rest.len(), |n| n + 1)..];
            } else {
                break;
            }
        }
        let Some(after) = rest
            .strip_prefix("pub(crate) mod ")
            .or_else(|| rest.strip_prefix("mod "))
        else {
            continue;
        };
        let Some(name) = ident(after) else { continue };
        let tail = after[name.len()..].trim_start();
        if tail.starts_with(';') {
            files.push(name.to_owned());
        } else if tail.starts_with('{') {
            let open = code.len() - tail.len();
            inline.push(at..matching_brace(code, literals, open));
        }
    }
    (inline, files)
}

/// The end of the block whose `{` is at `open` (braces in literals do not count).
fn matching_brace(code: &str, literals: &[Range<usize>], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    let b = code.as_bytes();
    while i < b.len() {
        if let Some(lit) = literals.iter().find(|r| r.contains(&i)) {
            i = lit.end;
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The paths after one `crate::`/`super::`/`self::` prefix: `a::b::C`, or every member of a
/// `{…}` group (`{a::b, C, d::{e, f}}`), each as its segments. A path ends at its first
/// segment that is not an identifier (`*`, `<`, `(`).
fn paths_after(s: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    read_path(s, Vec::new(), &mut out);
    out
}

/// The index of the first byte at or after `at` that is not whitespace.
fn skip_space(s: &str, at: usize) -> usize {
    at + (s[at..].len() - s[at..].trim_start().len())
}

/// Reads one path or group from the start of `s`, below `path`, into `out`; returns the number
/// of bytes read.
fn read_path(s: &str, mut path: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut at = skip_space(s, 0);
    loop {
        if s[at..].starts_with('{') {
            at += 1;
            loop {
                at = skip_space(s, at);
                if s[at..].starts_with('}') {
                    return at + 1;
                }
                at += read_path(&s[at..], path.clone(), out);
                at = skip_space(s, at);
                if s[at..].starts_with(',') {
                    at += 1;
                } else {
                    return at + usize::from(s[at..].starts_with('}'));
                }
            }
        }
        let Some(name) = ident(&s[at..]) else {
            if !path.is_empty() {
                out.push(path);
            }
            return at;
        };
        path.push(name.to_owned());
        at += name.len();
        if s[at..].starts_with("::") {
            at = skip_space(s, at + 2);
            continue;
        }
        out.push(path);
        let next = skip_space(s, at);
        if s[next..].starts_with("as ") {
            let alias = skip_space(s, next + 3);
            at = alias + ident(&s[alias..]).map_or(0, str::len);
        }
        return at;
    }
}

/// Every path `code` names from the crate root: after `crate::` (or `$crate::`), and after
/// `super::`/`self::` resolved against `module`, the module path of the file.
fn named_paths(code: &str, module: &[String]) -> Vec<Named> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // Paths are ASCII: the rest of a character outside ASCII is skipped.
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !is_ident_byte(b[i - 1]);
        let word = ident(&code[i..]);
        let Some(word) = word.filter(|_| starts_word) else {
            i += 1;
            continue;
        };
        let after = &code[i + word.len()..];
        let base: Option<(Vec<String>, usize)> = match word {
            "crate" if after.starts_with("::") => Some((Vec::new(), word.len() + 2)),
            "self" if after.starts_with("::") => Some((module.to_vec(), word.len() + 2)),
            "super" if after.starts_with("::") => {
                let mut up = 1;
                let mut len = word.len() + 2;
                while code[i + len..].starts_with("super::") {
                    up += 1;
                    len += "super::".len();
                }
                // Above the crate root: not a path of this crate (never written in practice).
                (up <= module.len()).then(|| (module[..module.len() - up].to_vec(), len))
            }
            _ => None,
        };
        if let Some((base, len)) = base {
            let line = code[..i].matches('\n').count() + 1;
            for rest in paths_after(&code[i + len..]) {
                let mut path = base.clone();
                path.extend(rest);
                if !path.is_empty() {
                    out.push(Named { line, path });
                }
            }
            i += len;
        } else {
            i += word.len();
        }
    }
    out
}

// ---- the crate's files ------------------------------------------------------------------------

/// Every `.rs` file under `dir`, recursively, but for the binaries (`src/bin`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable source dir") {
        let path = entry.expect("dir entry").path();
        if path.ends_with("src/bin") {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file by its place (`wire/frame/mod.rs` is `wire::frame`).
fn module_by_place(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The directory a file's `#[path]` and `mod x;` declarations are relative to.
fn declaring_dir(file: &Path) -> PathBuf {
    let dir = file.parent().expect("a parent").to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs") => dir,
        _ => dir.join(file.file_stem().expect("a stem")),
    }
}

/// Every source file of the crate with its module path (a `#[path]` declaration decides it
/// where there is one) and its code; test modules are left out.
fn sources(krate: &Crate) -> Vec<Source> {
    let src = &krate.src;
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut read: BTreeMap<PathBuf, (String, Vec<Range<usize>>)> = BTreeMap::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("readable source");
        read.insert(file.clone(), code_of(&text));
    }
    // Modules declared with `#[path]`, and test modules in their own files.
    let mut placed: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    let mut test_files: Vec<PathBuf> = Vec::new();
    for (file, (code, literals)) in &read {
        let module = module_by_place(src, file);
        for (at, _) in code.match_indices("#[path = \"") {
            let rest = &code[at + "#[path = \"".len()..];
            let target = &rest[..rest.find('"').expect("closed path")];
            let decl = rest.find("mod ").expect("a mod after #[path]");
            let name = ident(&rest[decl + 4..]).expect("a module name");
            // Relative to the declaring file's own directory, whatever its name.
            let base = file.parent().expect("parent");
            let mut path = module.clone();
            path.push(name.to_owned());
            placed.insert(base.join(target), path);
        }
        let (_, tests) = test_modules(code, literals);
        for name in tests {
            let dir = declaring_dir(file);
            test_files.push(dir.join(format!("{name}.rs")));
            test_files.push(dir.join(&name).join("mod.rs"));
        }
    }
    let mut out = Vec::new();
    for (file, (code, literals)) in read {
        if test_files.contains(&file) {
            continue;
        }
        let (inline, _) = test_modules(&code, &literals);
        let mut code = code.into_bytes();
        for range in inline {
            for c in &mut code[range] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
        }
        let module = placed
            .get(&file)
            .cloned()
            .unwrap_or_else(|| module_by_place(src, &file));
        out.push(Source {
            file,
            module,
            code: String::from_utf8(code).expect("utf-8"),
        });
    }
    out
}

/// The crate root's re-exports of its own modules' items (`pub use version::{Era, …}`): the
/// name, and the module path it comes from.
fn root_reexports(lib: &Source) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (at, _) in lib.code.match_indices("pub use ") {
        for path in paths_after(&lib.code[at + "pub use ".len()..]) {
            if let Some((name, from)) = path.split_last() {
                out.insert(name.clone(), from.to_vec());
            }
        }
    }
    out
}

/// A reference that breaks the order, or names a module with no layer.
fn violations(layers: Layers, sources: &[Source]) -> Vec<String> {
    let lib = sources
        .iter()
        .find(|s| s.module.is_empty())
        .expect("src/lib.rs");
    let reexports = root_reexports(lib);
    let mut found = Vec::new();
    for source in sources.iter().filter(|s| !s.module.is_empty()) {
        let Some((row, entry)) = layer_of(layers, &source.module) else {
            found.push(format!(
                "{}: module `{}` has no layer",
                source.file.display(),
                source.module.join("::")
            ));
            continue;
        };
        for named in named_paths(&source.code, &source.module) {
            let mut path = named.path.clone();
            if let Some(from) = reexports.get(&path[0]) {
                // `crate::Era` is `crate::version::Era`; a re-exported external crate
                // (`crate::schemars`) is no module of ours.
                if from.is_empty() {
                    continue;
                }
                path.splice(0..0, from.iter().cloned());
            }
            let Some((to_row, to_entry)) = layer_of(layers, &path) else {
                found.push(format!(
                    "{}:{}: `crate::{}` is in no layer",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
                continue;
            };
            if to_entry != entry && to_row >= row {
                found.push(format!(
                    "{}:{}: `{entry}` (row {row}) names `{}` of `{to_entry}` (row {to_row})",
                    source.file.display(),
                    named.line,
                    path.join("::"),
                ));
            }
        }
    }
    found
}

// ---- the checks -------------------------------------------------------------------------------

fn wire() -> Crate {
    Crate::at("crates/mcp-wire", WIRE)
}

fn transport() -> Crate {
    Crate::at("crates/mcp-wire-transport", TRANSPORT)
}

/// The references of `krate` that break its order (at least `min_sources` files read).
fn check_runs_down(krate: &Crate, min_sources: usize) {
    let sources = sources(krate);
    assert!(
        sources.len() >= min_sources,
        "found only {} sources",
        sources.len()
    );
    let found = violations(krate.layers, &sources);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

#[test]
fn every_reference_between_modules_of_mcp_wire_runs_down_the_layers() {
    check_runs_down(&wire(), 60);
}

#[test]
fn every_reference_between_modules_of_mcp_wire_transport_runs_down_the_layers() {
    check_runs_down(&transport(), 50);
}

/// Every module the crate root declares has a layer, and every entry names a module that
/// exists, so the table cannot drift from the crate.
fn check_table_matches(krate: &Crate, min_declared: usize) {
    let sources = sources(krate);
    let lib = sources
        .iter()
        .find(|s| s.module.is_empty())
        .expect("lib.rs");
    let declared: Vec<String> = lib
        .code
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            ident(line.strip_prefix("mod ")?).map(str::to_owned)
        })
        .collect();
    assert!(declared.len() >= min_declared, "read {declared:?}");
    let missing: Vec<&String> = declared
        .iter()
        .filter(|m| layer_of(krate.layers, &[(*m).clone()]).is_none())
        .collect();
    assert!(missing.is_empty(), "modules without a layer: {missing:?}");
    for entry in krate.layers.iter().flat_map(|row| row.iter()) {
        let path: Vec<String> = entry.split("::").map(str::to_owned).collect();
        assert!(
            sources.iter().any(|s| s.module == path),
            "the table names `{entry}`, which no source file is"
        );
    }
}

#[test]
fn every_module_of_each_crate_root_has_a_layer() {
    check_table_matches(&wire(), 14);
    check_table_matches(&transport(), 8);
}

/// The boundary decides; the superset model only describes. Kept apart from the general
/// check so the reason stays stated.
#[test]
fn the_model_imports_nothing_from_the_boundary() {
    let sources = sources(&wire());
    let model: Vec<&Source> = sources
        .iter()
        .filter(|s| s.module.first().is_some_and(|m| m == "model"))
        .collect();
    assert!(model.len() > 20, "found only {} model sources", model.len());
    let found: Vec<String> = model
        .iter()
        .flat_map(|s| {
            named_paths(&s.code, &s.module)
                .into_iter()
                .filter(|n| n.path[0] == "wire")
                .map(move |n| format!("{}:{}", s.file.display(), n.line))
        })
        .collect();
    assert!(
        found.is_empty(),
        "model/ names the boundary:\n{}",
        found.join("\n")
    );
}

// ---- the reader itself ------------------------------------------------------------------------

fn names(code: &str, module: &[&str]) -> Vec<(usize, String)> {
    let module: Vec<String> = module.iter().map(|s| (*s).to_owned()).collect();
    let (code, literals) = code_of(code);
    let (inline, _) = test_modules(&code, &literals);
    let mut code = code.into_bytes();
    for range in inline {
        for c in &mut code[range] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    named_paths(&String::from_utf8(code).unwrap(), &module)
        .into_iter()
        .map(|n| (n.line, n.path.join("::")))
        .collect()
}

#[test]
fn the_reader_sees_uses_paths_and_macro_bodies_but_not_comments() {
    let found = names(
        "use crate::wire::ledger;\n/// see [`x`](crate::wire::x)\nlet a = 1; // crate::wire\n\
         $crate::wire::planned::emit!();\n/* crate::session */ let s = \"// not a comment\"; crate::facts::revision(v);\n",
        &["model", "tools"],
    );
    assert_eq!(
        found,
        vec![
            (1, "wire::ledger".to_owned()),
            (4, "wire::planned::emit".to_owned()),
            (5, "facts::revision".to_owned()),
        ]
    );
}

#[test]
fn the_reader_resolves_groups_super_self_and_strings() {
    let found = names(
        "use crate::{Era, jsonrpc::{RequestId, codes}, model::Meta as M};\n\
         use super::super::wire::Frame;\nuse self::Mode;\n\
         #[serde(deserialize_with = \"crate::de::keep_null\")]\nlet c = '{'; 'outer: loop {}\n\
         let n = '\\n'; let q = '\\''; crate::path::JsonPath;\n",
        &["de", "strict"],
    );
    assert_eq!(
        found,
        vec![
            (1, "Era".to_owned()),
            (1, "jsonrpc::RequestId".to_owned()),
            (1, "jsonrpc::codes".to_owned()),
            (1, "model::Meta".to_owned()),
            (2, "wire::Frame".to_owned()),
            (3, "de::strict::Mode".to_owned()),
            (4, "de::keep_null".to_owned()),
            (6, "path::JsonPath".to_owned()),
        ]
    );
}

#[test]
fn the_reader_leaves_test_modules_out() {
    let found = names(
        "use crate::path::JsonPath;\n#[cfg(test)]\nmod tests {\n    use crate::wire::x;\n    \
         const S: &str = \"}\";\n    const R: &str = r#\"{\"a\"\"#;\n}\nuse crate::facts;\n",
        &["model"],
    );
    assert_eq!(
        found,
        vec![(1, "path::JsonPath".to_owned()), (8, "facts".to_owned())]
    );
}

#[test]
fn a_reference_up_the_layers_is_reported() {
    let source = |file: &str, module: &[&str], code: &str| Source {
        file: PathBuf::from(file),
        module: module.iter().map(|s| (*s).to_owned()).collect(),
        code: code.to_owned(),
    };
    let sources = [
        source("lib.rs", &[], "pub use version::{Era};\n"),
        source(
            "model/x.rs",
            &["model", "x"],
            "use crate::session::Session;\nuse crate::Era;\n",
        ),
        source("jsonrpc.rs", &["jsonrpc"], "use crate::facts::revision;\n"),
        source(
            "de/strict.rs",
            &["de", "strict"],
            "use super::error::ModelError;\nuse super::Tagged;\n",
        ),
        source("wire/mod.rs", &["wire"], "use crate::nowhere::X;\n"),
    ];
    let found = violations(WIRE, &sources);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(
        found[0].starts_with("model/x.rs:1: `model` (row 7) names `session::Session`"),
        "{}",
        found[0]
    );
    assert!(
        found[1].starts_with(
            "jsonrpc.rs:1: `jsonrpc` (row 6) names `facts::revision` of `facts` (row 6)"
        ),
        "{}",
        found[1]
    );
    assert!(
        found[2]
            .starts_with("de/strict.rs:2: `de::strict` (row 2) names `de::Tagged` of `de` (row 3)"),
        "{}",
        found[2]
    );
    assert!(
        found[3].contains("`crate::nowhere::X` is in no layer"),
        "{}",
        found[3]
    );
}
