//! How the crate works inside: notes for contributors and the curious. Nothing here is API;
//! the names in `code` are private modules of [`wire`](crate::wire).
//!
//! # The emitter: how it knows the owner type of each nested object
//!
//! Emission (`wire::serialize_for` and friends) has one implementation, the emitter
//! (`wire/planned.rs`), generic over where it writes: compact text, a `serde_json::Value`, or a
//! value with its report (`wire/planned/sink.rs`). A rule lives in one place, and every output
//! obeys it.
//!
//! **Descriptions, not serializers.** Every model type describes itself
//! ([`model::describe`](crate::model::describe), derived from the type's serde attributes by
//! `#[derive(Describe)]` from `mcp-wire-derive`): a struct its members with their wire names in
//! serde's order, a union the member it holds, open JSON as a value. The description decides
//! nothing. The superset follows the spec's names, so the owner of a field is the struct being
//! described, and the ledger row `(owner, field)` decides: strip (never written), pass (written
//! verbatim, not walked further; left out in a strict emission), refuse (the emission fails), or
//! nothing (written, and its value walked the same way). Where the superset holds an open object
//! (a map, `flatten`, or raw JSON such as a 2026-07-28 client request's `_meta`), the parent
//! supplies the owner through a typed edge (`wire::ledger::EDGES`); union members a revision
//! lacks have member rows (refuse, or rewrite to a faithful older form).
//!
//! **Plans.** Asking the tables per member would cost a lookup per key, so the emitter builds a
//! plan once per type, revision, mode (fast, report, strict) and way the value is reached
//! (nested, under an edge, as the body, as a 2026-07-28 client request's `params` or `_meta`),
//! caches it in the type's `Memo`, and resolves each member to one step: leave it out, refuse
//! it, write it as plain serde writes it, or hand it to its own type's writer — plus the check
//! a row asks for and a flag the object's end looks for (required members, role injections). A
//! whole subtree that needs nothing at a revision (`wire/clean.rs`) is written by plain serde
//! without being looked at. The other design considered, serializing to a `Value` tree and
//! walking it with a type graph, is simpler but allocates the whole tree; wrapping serde's
//! `Serializer` instead doubles the code every value passes through.
//!
//! The text sink writes through the crate's own compact JSON writer (`wire/json.rs`), which
//! writes the bytes `serde_json` writes but scans strings for escapes eight bytes at a time.
//!
//! **2026-07-28 shaping.** The body's object gets the shaping of `wire::ledger::SHAPING_2026`:
//! `resultType`, cache hints and the `_meta` protocol version are appended when the object
//! ends. The emitter reads one row per member (`wire::shaping::SHAPED_MEMBERS`: the objects it
//! applies to, the values accepted, the default injected, the rule), gives the object a `ShapingRole`,
//! and judges a scalar once (`Accepts::admits`) whether it reads it as text or as a value;
//! checks that need the whole object (the client capabilities requirement, the input-required
//! rule) run when it closes. Injected keys come after the caller's keys, so key order is the
//! declaration order plus appended injections.
//!
//! **Refusals and reports.** A refusal leaves the walk as a `Refused` that gathers its JSON path
//! segment by segment on the way out, so a successful emission pays nothing for paths. On a
//! refusal the output is discarded: `serialize_for_vec` truncates the buffer back. The report (stripped, passed and injected pointers)
//! is kept by the reporting sink alone, which tracks the current path; the other sinks compile
//! the bookkeeping away.
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
//! use mcp_wire::{model, v2025_11_25 as d};
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
