//! How the crate works inside: notes for contributors and the curious. Nothing here is API;
//! the names in `code` are private modules of [`wire`](crate::wire).
//!
//! # The emitter: how it knows the owner type of each nested object
//!
//! Emission (`wire::serialize_for` and friends) has two implementations that must write the
//! same bytes.
//!
//! **The shaping serializer** (`wire/emit.rs`, `emit::Shaper`) runs the value's own `Serialize`
//! implementation through a version-aware `serde::Serializer` wrapper that forwards to the real
//! `serde_json` serializer. Serde reports every struct's name and every field's key while
//! writing, so the owner of a field is the name of the struct being written — the superset
//! follows the spec's names — and the ledger row `(owner, field)` decides: strip (the field is
//! never written), pass (written verbatim, not walked further), refuse (the emission fails), or
//! nothing (written, and its value walked the same way). Where the superset holds an open object
//! (a map, `flatten`, or raw JSON such as a 2026-07-28 client request's `_meta`), the parent
//! supplies the owner through a typed edge (`wire::ledger::EDGES`). The other design
//! considered, serializing to a `serde_json::Value` tree and walking it with a type graph, is
//! simpler but allocates the whole tree; the wrapper writes straight to the output, so an
//! emission that changes nothing costs little more than plain `serde_json` and is
//! byte-identical to it. The same wrapper, given `serde_json::value::Serializer`, produces the
//! `Value` output. The byte outputs write through the crate's own compact JSON writer
//! (`wire/json.rs`), which writes the bytes `serde_json` writes but scans strings for escapes
//! eight bytes at a time.
//!
//! **The planned emitter** (`wire/planned.rs`), the fast path. The wrapper still runs every
//! model type's `Serialize` for a second serializer, which doubles the code a value passes
//! through. So `serialize_for` and `serialize_for_vec` first walk the value's description
//! ([`model::describe`](crate::model::describe), derived from each type's serde attributes by
//! `#[derive(Describe)]` from `mcp-types-derive`; it says what the members are and decides
//! nothing), asking a plan built once per type and revision from the same tables what to do
//! with each member (the plans are kept in each type's `Memo`). It
//! writes exactly what the wrapper writes, or bails when a body needs anything it does not
//! decide (every refusal among them); then the wrapper emits the body.
//! `serialize_for_report` always takes the wrapper. Tests hold the two together byte for byte
//! (`wire/planned/tests.rs`).
//!
//! **2026-07-28 shaping.** The body's object gets the shaping of `wire::ledger::SHAPING_2026`:
//! `resultType`, cache hints and the `_meta` protocol version are appended when the object
//! ends. Both emitters read the same rows for it (`wire::shaping::SHAPED_MEMBERS`: per member,
//! the objects it applies to, the values accepted, the default injected, the rule), the same
//! `Role` of an object and the same member flags, and judge a scalar once
//! (`Accepts::admits`) whether they read it as text, as a value, or as what serde handed them; checks that need the whole object (the client capabilities requirement, the
//! input-required rule) run there too. Injected keys come after the caller's keys, so key order
//! is the declaration order plus appended injections.
//!
//! **Refusals.** On a refusal the output is discarded: `serialize_for_vec` truncates the
//! buffer back and `serialize_for_writer` writes nothing. The error's JSON path is computed by
//! a second, path-tracking pass that only runs when emission fails.
//!
//! # Generated modules and the superset
//!
//! `v2024_11_05` … `v2026_07_28` are typify's output for each pinned schema, plus named fixes
//! in the generator: the schema's definitions one for one, with its names and exactly its
//! shapes. They are for code that must hold one revision's exact form (a conformance fixture,
//! a schema-faithful test, a peer pinned to one revision) and for reading a revision's types
//! as documentation; the boundary itself never uses them (it reads the generated *facts*).
//! Everything else — servers, proxies, validators — uses the superset, [`model`](crate::model),
//! and chooses the revision at the boundary. [`convert`](crate::convert) goes between the two
//! through the revision's wire form.
//!
//! Union variant names differ by design, and follow one rule each:
//!
//! | union | generated variant (the member's definition name) | superset variant (what tags it) |
//! | --- | --- | --- |
//! | requests, notifications | `ClientRequest::CallToolRequest` | `ClientRequest::CallTool` (the definition without `Request`/`Notification`) |
//! | results | `ServerResult::CallToolResult` | `ServerResult::CallTool` (named after the request it answers) |
//! | content blocks | `ContentBlock::TextContent`, `ContentBlock::EmbeddedResource` | `ContentBlock::Text`, `ContentBlock::Resource` (the `type` tag: `text`, `resource`) |
//!
//! The member *types* keep the spec's names in both (`TextContent`, `CallToolRequest`).
//!
//! ```
//! # #[cfg(feature = "v2025_11_25")] {
//! use mcp_types::{model, v2025_11_25 as d};
//! let json = r#"{"type":"resource","resource":{"uri":"file:///a","text":"a"}}"#;
//! let generated: d::ContentBlock = serde_json::from_str(json).unwrap();
//! assert!(matches!(generated, d::ContentBlock::EmbeddedResource(_)));
//! let superset: model::ContentBlock = serde_json::from_str(json).unwrap();
//! assert!(matches!(superset, model::ContentBlock::Resource(_)));
//! # }
//! ```
//!
//! Generated unions are untagged: the first member that parses is taken. When none does, the
//! error names the closest member (the one whose discriminators the value carries, then the one
//! naming most of its keys, then the one that failed deepest) and where it fails; read them with
//! [`convert::from_generated_json`](crate::convert::from_generated_json) (or
//! [`model::from_value`](crate::model::from_value)) for the whole JSON path
//! (`/content/1/mimeType`: no member of ContentBlock matches; the closest, ImageContent, fails:
//! …); plain serde gives the same words with the member-relative path.
