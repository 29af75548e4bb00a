//! The crate's one path type: a location inside a JSON value, printed as a JSON Pointer. Every
//! error type ([`ModelError`](crate::model::ModelError), [`ParseError`](crate::wire::ParseError),
//! [`EmitError`](crate::wire::EmitError), …) locates its fault with it.

use std::fmt;

/// One step of a [`JsonPath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A location inside a JSON value, printed as a JSON Pointer (RFC 6901, `""` is the root).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct JsonPath(Vec<PathSegment>);

impl JsonPath {
    /// The root of the value.
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    /// A path from its segments, outermost first.
    pub fn from_segments(segments: Vec<PathSegment>) -> Self {
        JsonPath(segments)
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> &[PathSegment] {
        &self.0
    }

    /// This path extended by an object key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.0.push(PathSegment::Key(key.into()));
        self
    }

    /// This path extended by an array index.
    pub fn index(mut self, index: usize) -> Self {
        self.0.push(PathSegment::Index(index));
        self
    }

    /// This path put under `outer` (`/result` and `/content/0` give `/result/content/0`).
    pub fn under(mut self, outer: &JsonPath) -> Self {
        let mut segments = outer.0.clone();
        segments.append(&mut self.0);
        JsonPath(segments)
    }

    /// Whether this is the root (no segment).
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn push(&mut self, segment: PathSegment) {
        self.0.push(segment);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    /// The JSON Pointer text, e.g. `/params/_meta/io.modelcontextprotocol~1clientInfo`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for seg in &self.0 {
            out.push('/');
            match seg {
                PathSegment::Key(k) => {
                    for c in k.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                }
                PathSegment::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
}

/// The reference tokens of a JSON Pointer (RFC 6901), unescaped (`~1` is `/`, `~0` is `~`):
/// the reading of what [`JsonPath::pointer`] writes. `""` (the root) has none; `None` for text
/// that does not start with `/`.
pub fn pointer_tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("(root)")
        } else {
            f.write_str(&self.pointer())
        }
    }
}

/// How a JSON value's kind reads in a message ("an array", "null", …).
pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_put_under_others_escape_their_keys() {
        let p = JsonPath::root()
            .key("content")
            .index(1)
            .key("0")
            .key("a\u{1}/b");
        assert_eq!(
            p.under(&JsonPath::root().key("result")).pointer(),
            "/result/content/1/0/a\u{1}~1b"
        );
    }

    #[test]
    fn pointer_tokens_read_what_pointer_writes() {
        let p = JsonPath::root().key("_meta").key("a~b/c").index(3);
        assert_eq!(p.pointer(), "/_meta/a~0b~1c/3");
        assert_eq!(JsonPath::root().pointer(), "");
        assert_eq!(JsonPath::root().to_string(), "(root)");
        assert_eq!(
            pointer_tokens(&p.pointer()),
            Some(vec!["_meta".to_owned(), "a~b/c".to_owned(), "3".to_owned()])
        );
        assert_eq!(pointer_tokens("/~01"), Some(vec!["~1".to_owned()]));
        assert_eq!(pointer_tokens(""), Some(vec![]));
        assert_eq!(pointer_tokens("no-slash"), None);
    }
}
