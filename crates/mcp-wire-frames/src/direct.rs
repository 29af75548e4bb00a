//! The direct path of `translate`: one line read once, borrowing, and written once.
//!
//! The general path parses a line into a `serde_json::Value`, splits record and frame, cuts the
//! body out as another `Value`, and builds the output as a `Value` again. Here the line is read
//! into its members as borrowed raw text: the capture record's members, the frame's members,
//! and nothing deeper. Each member, the body (`params` or `result`) among them, is checked as
//! it is read for what the strict reader of [`mcp_wire::json_text`] refuses (duplicate keys,
//! depth) without building anything but the few facts of `params` the session needs (the
//! crate's reader of unchecked text, [`mcp_wire::wire::in_place::Unchecked`], reads it): the
//! session never learns from a line the strict reader would refuse. The body is then parsed
//! from its text into the superset at the source revision, and emitted for the target; the
//! output line is the envelope written around the emitted body, members in the input's order.
//!
//! The direct path writes what the general path writes, byte for byte. Error responses (the
//! same at every revision) are written as they stand; frames the session or the method tables
//! refuse are reported without being read further; a body the boundary refuses at the target
//! or finds invalid at the source is reported from the boundary's own error, which is the
//! general path's (see `crate::translate`). Anything else (invalid JSON, envelope faults, a
//! value whose own serialization fails) makes it give up, and the line takes the general path,
//! which reports it exactly as before. Giving up after the session has seen the frame is fine:
//! the caller then rebuilds the general path's view of the line and continues from the same
//! session state.
//!
//! The stages, one module each: `line` (the line into its members and envelope), `check` (a
//! member's text checked as the strict reader checks it), `hollow` (a large body's long strings
//! set aside), `identity` (the client identity a 2026-07-28 request is lent), `write` (the
//! boundary's verdict and the output line); this module drives them per line.

use std::sync::Arc;

use mcp_wire::{Era, ProtocolVersion};

use crate::boundary::{BodyKind, Failure};
use crate::record::{Direction, Format};
use crate::session::ClientIdentity;

mod check;
mod hollow;
mod identity;
mod line;
mod write;

use identity::{LentIdentity, body_text};
pub use line::{Line, read};
use write::{emit, push_copied, push_key, write_frame};

/// Why the direct path gave up (never shown: the general path takes over and reports).
#[derive(Debug)]
struct GiveUp;

/// Reusable buffers of the direct path.
#[derive(Default)]
pub struct Buffers {
    body: String,
    emitted: Vec<u8>,
    /// The client identity's `_meta` entries, lent to each parsed request for its emission.
    lent: LentIdentity,
    /// The output line, newline included, after a successful [`translate`] or [`copy`] (with
    /// placeholders where `hollow` says).
    line: Vec<u8>,
    /// A large body's long strings, taken out before it is parsed, and where the output line's
    /// placeholders are replaced by them ([`hollow`]).
    hollow: hollow::Hollow,
}

impl Buffers {
    /// See [`crate::translate::Translate::with_pass_through`].
    pub fn pass_through(&mut self, min_body: usize, min_string: usize) {
        (self.hollow.min_body, self.hollow.min_string) = (min_body, min_string);
    }

    /// The output line [`translate`] or [`copy`] made of `line`, in pieces (the long
    /// strings of a large body come straight from `line`'s text).
    pub fn output<'a>(&'a self, line: &'a Line<'_>) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.hollow.pieces(&self.line, line.text.as_bytes())
    }
}

/// Why [`translate`] wrote nothing.
#[derive(Debug)]
pub enum Unwritten {
    /// The boundary refused the body at the target or found it invalid at the source, with the
    /// failure the general path reports for the same line.
    Failed(Failure),
    /// Not for the direct path: the general path takes the line (and reports what went wrong).
    GaveUp,
}

impl From<GiveUp> for Unwritten {
    fn from(GiveUp: GiveUp) -> Self {
        Unwritten::GaveUp
    }
}

/// Translates one line read by [`read`] into `buffers.line` (newline included).
pub fn translate(
    line: &Line<'_>,
    kind: BodyKind<'_>,
    from: ProtocolVersion,
    to: ProtocolVersion,
    identity: Option<&Arc<ClientIdentity>>,
    buffers: &mut Buffers,
) -> Result<(), Unwritten> {
    let Buffers {
        body,
        emitted,
        lent,
        line: out,
        hollow,
    } = buffers;
    // The general path adds the client identity to the body before parsing it
    // (`convert::add_identity`); here the entries are lent to the parsed request instead
    // ([`LentIdentity`]). Where the entries were missing, that changes no verdict the parse
    // reaches: below 2026-07-28 `_meta` is an open map; at 2026-07-28 a request that lacks them
    // fails its `_meta` mandates, and the general path then decides.
    let mut restated = identity
        .filter(|_| {
            to.era() == Era::Stateless && kind == BodyKind::Request(Direction::ClientToServer)
        })
        .map(|id| lent.entries_of(id));
    let text = body_text(line, body)?;
    // Emits a body text and writes the output line around it.
    let mut emitted_into = |text: &str, restated: Option<&mut LentIdentity>, out: &mut Vec<u8>| {
        emitted.clear();
        emit(kind, text, from, to, restated, emitted)
            .and_then(|()| Ok(write_line(line, emitted, out)?))
    };
    // A large body's long strings stay in the line (see [`hollow`]); whatever goes wrong with
    // the hollowed body, the whole one is read as usual, and written with no placeholders
    // (`of` forgets the last line's).
    if let Some(hollowed) = hollow.of(line.text, text) {
        match emitted_into(hollowed, restated.as_deref_mut(), out) {
            Ok(()) if hollow.splices(out) => return Ok(()),
            // The boundary's verdict stands unless it quotes a placeholder: a long string
            // decides nothing there (the premise of hollowing), so a refused or invalid large
            // frame costs no more than a translated one.
            Err(Unwritten::Failed(f)) if !hollow.quoted_in(f.reason()) => {
                return Err(Unwritten::Failed(f));
            }
            _ => {}
        }
    }
    emitted_into(text, restated, out)
}

/// Writes an error response read by [`read`] into `buffers.line` as it stands: every member
/// copied, as the general path writes the frame it leaves unchanged.
pub fn copy(line: &Line<'_>, buffers: &mut Buffers) -> Result<(), Unwritten> {
    buffers.hollow.forget();
    Ok(write_line(line, &[], &mut buffers.line)?)
}

/// Writes the output line (record, frame around the emitted `body`, newline) into `out`.
fn write_line(line: &Line<'_>, body: &[u8], out: &mut Vec<u8>) -> Result<(), GiveUp> {
    out.clear();
    match line.format {
        Format::Bare => write_frame(line, body, out)?,
        Format::Capture(_) => {
            out.push(b'{');
            for (i, (key, raw)) in line.record.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_key(out, key)?;
                match *key {
                    "frame" => write_frame(line, body, out)?,
                    _ => push_copied(out, raw)?,
                }
            }
            out.push(b'}');
        }
    }
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use mcp_wire::jsonrpc::RequestId;
    use mcp_wire::model::meta::keys;
    use mcp_wire::model::{ClientRequest, RequestMeta};
    use mcp_wire::session::Envelope;
    use mcp_wire::wire::ResultFor;
    use serde_json::Value;

    use crate::session::Evidence;

    use super::check::{checked_at, params_at};
    use super::write::method_and_params;
    use super::*;

    /// [`read`] into a slot of its own.
    fn read_owned(bytes: &[u8]) -> Option<Line<'_>> {
        let mut slot = None;
        read(bytes, &mut slot)?;
        slot
    }

    #[test]
    fn members_are_checked_as_the_strict_reader_checks_them() {
        for text in [
            r#""c2s""#,
            r#""""#,
            r#""a\"b""#,
            "0",
            "-7",
            "1.5",
            "1e3",
            "12345678901234567890123",
            "true",
            "null",
            "[1,{}]",
            r#"{"\u0061":1}"#,
        ] {
            let framed = format!("{text},");
            assert_eq!(
                checked_at(&framed, 0).ok(),
                Some((text, text.len())),
                "{text}"
            );
        }
        for bad in [
            "01",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            "1E400",
            "tru",
            "1.",
            "\"a\tb\"",
            "\"open",
        ] {
            assert!(checked_at(bad, 0).is_err(), "{bad}");
        }
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(checked_at(&deep, 0).is_err());
    }

    #[test]
    fn params_facts_are_read_while_checking() {
        let text = r#"{ "_meta" : { "io.modelcontextprotocol/protocolVersion" : "2026-07-28", "io.modelcontextprotocol/clientInfo":{} } , "a":[1], "task":{}, "taskId":"t" },"#;
        let (facts, raw, end) = params_at(text, 0).unwrap();
        assert_eq!((raw, end), (&text[..text.len() - 1], text.len() - 1));
        assert!(facts.task());
        assert_eq!(facts.task_id(), Some("t"));
        assert_eq!(facts.meta_revision(), Some(&Value::from("2026-07-28")));
        for (text, accepted) in [
            (r#"{"_meta":1}"#, false),
            (r#"{"a":1,"a":2}"#, false),
            (r#"{"_meta":{"k":1,"k":2}}"#, false),
            (r#"{"\u0061":1}"#, true),
            (r#"{"_meta":{"x":1e2}}"#, true),
            (r#"{"task":null}"#, true),
            // Facts come from objects only, as the parsed frame's do.
            (
                r#"[{"io.modelcontextprotocol/protocolVersion":"x"},{},"t"]"#,
                false,
            ),
            (r#"{"_meta":["x"]}"#, false),
        ] {
            assert_eq!(params_at(text, 0).is_ok(), accepted, "{text}");
        }
        assert!(!params_at(r#"{"task":null}"#, 0).unwrap().0.task());
    }

    #[test]
    fn results_are_checked_as_read() {
        fn body(text: &str) -> Option<&str> {
            read_owned(text.as_bytes())?.body
        }
        // Results (small, and as large as the bodies `hollow` looks through) wherever they
        // stand: last or not, before the record's members.
        let deep = format!(r#"{{"a":{}{}}}"#, "[".repeat(120), "]".repeat(120));
        let long = format!(r#""{}""#, "x".repeat(hollow::MIN_BODY));
        let large = format!(r#"{{"s":{long}}}"#);
        let fine = [r#"{"a":[{"b":"}"}],"c":{}}"#, &large];
        let bad = [
            r#"{"a":1,"a":2}"#,
            r#"{"a":[{"b":1,"\u0062":1}]}"#,
            &deep,
            &format!(r#"{{"s":{long},"s":1}}"#),
        ];
        for place in [
            r#"{"jsonrpc":"2.0","id":1,"result":R}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":R } "#,
            r#"{"jsonrpc":"2.0","id":1,"result":R,"x":{}}"#,
            r#"{"result":R,"jsonrpc":"2.0","id":1,"x":{}}"#,
            r#"{"dir":"s2c","frame":{"result":R,"jsonrpc":"2.0","id":1}}"#,
            r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":R},"t":{"a":{}}}"#,
        ] {
            for result in fine {
                assert_eq!(body(&place.replace('R', result)), Some(result), "{place}");
            }
            for result in bad {
                assert!(body(&place.replace('R', result)).is_none(), "{place}");
            }
        }
        // A capture record's own `result` is checked too (and copied: it is not the body).
        let record = r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{}},"result":R}"#;
        assert_eq!(body(&record.replace('R', fine[0])), Some("{}"));
        assert!(body(&record.replace('R', bad[0])).is_none());
    }

    #[test]
    fn members_are_written_in_the_input_order_wherever_the_body_stands() {
        let v = ProtocolVersion::V2025_06_18;
        let (list, done) = (
            r#""method":"tools/list""#,
            r#""method":"notifications/initialized""#,
        );
        let mut buffers = Buffers::default();
        for text in [
            format!(r#"{{"jsonrpc":"2.0","id":1,{list},"params":{{"cursor":"c"}}}}"#),
            format!(r#"{{"jsonrpc":"2.0",{done}}}"#),
            r#"{"id":1,"result":{},"jsonrpc":"2.0"}"#.into(),
            format!(r#"{{"jsonrpc":"2.0","params":{{"cursor":"c"}},{list},"id":1}}"#),
            format!(r#"{{"jsonrpc":"2.0",{list},"id":1}}"#),
            format!(r#"{{{done},"jsonrpc":"2.0"}}"#),
            format!(r#"{{"jsonrpc":"2.0",{list},"params":{{"cursor":"c"}},"id":1,"x":1}}"#),
        ] {
            let line = read_owned(text.as_bytes()).expect(&text);
            let kind = match &line.envelope {
                Envelope::Request { .. } => BodyKind::Request(Direction::ClientToServer),
                Envelope::Notification { .. } => BodyKind::Notification(Direction::ClientToServer),
                _ => BodyKind::Result(Direction::ServerToClient, ResultFor::method("ping")),
            };
            translate(&line, kind, v, v, None, &mut buffers).expect(&text);
            assert_eq!(String::from_utf8_lossy(&buffers.line), format!("{text}\n"));
        }
    }

    #[test]
    fn long_strings_of_a_large_body_are_not_copied() {
        let data = "QUJD".repeat(32 * 1024);
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"image","data":"{data}","mimeType":"image/png"}}]}}}}"#
        );
        let line = read_owned(text.as_bytes()).unwrap();
        let mut buffers = Buffers::default();
        let kind = BodyKind::Result(
            Direction::ServerToClient,
            mcp_wire::wire::ResultFor::method("tools/call"),
        );
        for to in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let from = ProtocolVersion::V2025_11_25;
            translate(&line, kind, from, to, None, &mut buffers).unwrap();
            // The written line holds a placeholder, not the data; the output holds the data.
            assert!(buffers.line.len() < 1024, "{to}");
            let pieces: Vec<&[u8]> = buffers.output(&line).collect();
            assert_eq!(pieces.len(), 3, "{to}");
            assert_eq!(pieces[1], format!("\"{data}\"").as_bytes());
            let out: Vec<u8> = pieces.concat();
            let written: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(written["result"]["content"][0]["data"], data.as_str());
        }
        // A small body is written whole.
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let line = read_owned(text.as_bytes()).unwrap();
        let from = ProtocolVersion::V2025_11_25;
        translate(&line, kind, from, from, None, &mut buffers).unwrap();
        assert_eq!(buffers.output(&line).count(), 1);
    }

    #[test]
    fn emitted_bodies_split_into_method_and_params() {
        let split = |method: &'static [u8], params| Some((method, params));
        for (body, want) in [
            (
                &br#"{"method":"a\"b","params":{"x":[1,{"y":"}"}],"z":null}}"#[..],
                split(br#""a\"b""#, Some(&br#"{"x":[1,{"y":"}"}],"z":null}"#[..])),
            ),
            // Escapes at the ends of strings, and strings that never end.
            (br#"{"method":"\\"}"#, split(br#""\\""#, None)),
            (br#"{"method":"\""}"#, split(br#""\"""#, None)),
            (b"{}", None),
            (b"{\"method\":\"m\"", None),
            (br#"{"method":"ab\"}"#, None),
            (br#"{"method":"ab\}"#, None),
            (br#"{"method":"m","x":1}"#, None),
            (br#"{"params":{},"method":"m"}"#, None),
        ] {
            let text = String::from_utf8_lossy(body);
            assert_eq!(method_and_params(body), want, "{text}");
        }
    }

    #[test]
    fn lines_the_general_path_must_judge_are_given_up() {
        for bad in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"k":1,"k":1}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":1E400}}"#,
            br#"{"jsonrpc":"2.0","id":true,"method":"x"}"#,
            // A key with an escape (plain keys only: a repeat could hide behind it).
            br#"{"jsonrpc":"2.0","method":"x","a":1,"\u0061":2}"#,
            // Error responses the envelope refuses.
            br#"{"jsonrpc":"2.0","id":1,"error":"m"}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x"} x"#,
            br#"{"dir":"up","frame":{"jsonrpc":"2.0","method":"x"}}"#,
            br#"{"frame":{"jsonrpc":"2.0","method":"x"}}"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
            // Bad UTF-8 deep in lines long enough for the vector check: an encoded surrogate,
            // an overlong slash, a sequence cut off at the line's end.
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\xed\xa0\x80\"}}",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\xc0\xaf\"}}",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\"}}\xe2\x82",
            br#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":1,"result":{}},"result":{"a":1,"a":2}}"#,
            // Scalars the fast reader leaves to the deserializer, which refuses them.
            br#"{"jsonrpc":"2.0","id":01,"method":"x"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"x","n":tru}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}",
        ] {
            assert!(read_owned(bad).is_none(), "{}", String::from_utf8_lossy(bad));
        }
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":{}{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        assert!(read_owned(deep.as_bytes()).is_none());
        // `n` distinct keys, then a repeat of the one at `dup`: among the keys held inline and
        // beyond them. Distinct keys alone are fine.
        for (n, dup) in [
            (6, Some(0)),
            (7, Some(6)),
            (8, Some(7)),
            (16, Some(15)),
            (8, None),
        ] {
            let key = |i: u8| (b'a' + i) as char;
            let members: String = (0..n)
                .map(|i| format!(r#","{}":{}"#, key(i), i + 1))
                .collect();
            let dup = dup.map_or(String::new(), |i| format!(r#","{}":{}"#, key(i), n + 1));
            let text = format!(r#"{{"jsonrpc":"2.0","method":"x"{members}{dup}}}"#);
            let read = read_owned(text.as_bytes());
            assert_eq!(read.is_some(), dup.is_empty(), "{text}");
        }
    }

    #[test]
    fn the_session_reads_a_line_as_it_reads_the_parsed_frame() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t-1","status":"working"},"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"task":{}}}"#,
            r#"{"dir":"c2s","frame":{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{}}}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"t-1","_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":7,"task":null}}"#,
            // Error responses, read as the envelope judge reads them (a `params` member too).
            r#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}"#,
            r#"{"dir":"s2c","frame":{"jsonrpc":"2.0","id":"e","error":{"code":-32601,"message":"caf\u00e9","data":{"n":1E2}}}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"message":"m","x":[],"code":-9223372036854775808}}"#,
            r#"{"id":8,"error":{"code":0,"message":""},"params":{"task":{},"taskId":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"x"}},"jsonrpc":"2.0"}"#,
        ];
        for text in lines {
            let line = read_owned(text.as_bytes()).expect(text);
            let parsed: Value = serde_json::from_str(text).unwrap();
            let frame = parsed.get("frame").unwrap_or(&parsed);
            let envelope = Envelope::of(frame).unwrap();
            assert_eq!(line.envelope, envelope, "{text}");
            for key in ["protocolVersion", "task", "capabilities", "absent"] {
                let (read, want) = (line.result_member(key), frame.result_member(key));
                assert_eq!(read, want, "{key} of {text}");
            }
            assert_eq!(Evidence::params(&line), Evidence::params(frame), "{text}");
            assert_eq!(line.meta_revision(), frame.meta_revision(), "{text}");
            assert_eq!(line.task_augmented(), frame.task_augmented(), "{text}");
            assert_eq!(line.task_id(), frame.task_id(), "{text}");
        }
        let task = serde_json::json!({"taskId": "t-1", "status": "working"});
        let line = read_owned(lines[1].as_bytes()).unwrap();
        assert_eq!(line.result_member("task").as_deref(), Some(&task));
        let line = read_owned(lines[4].as_bytes()).unwrap();
        assert_eq!(line.format, Format::Capture(Direction::ClientToServer));
        let (id, method) = (RequestId::String("a".into()), "tools/list".into());
        assert_eq!(line.envelope, Envelope::Request { id, method });
        let revision = Value::from("2026-07-28");
        assert_eq!(line.meta_revision().as_deref(), Some(&revision));
    }

    #[test]
    fn identity_entries_are_lent_and_taken_back() {
        let id = Arc::new(ClientIdentity {
            client_info: Some(serde_json::json!({"name": "c", "version": "1"})),
            capabilities: Some(serde_json::json!({"roots": {}})),
        });
        let both = serde_json::json!({
            keys::CLIENT_INFO: {"name": "c", "version": "1"},
            keys::CLIENT_CAPABILITIES: {"roots": {}}
        });
        let mut lent = LentIdentity::default();
        let parse = |text: &str| -> ClientRequest { serde_json::from_str(text).unwrap() };
        let meta_of =
            |r: &ClientRequest| serde_json::to_value(r).unwrap()["params"]["_meta"].clone();
        for _ in 0..2 {
            // No params: both entries are its `_meta`, in order, and come back whole.
            let mut r = parse(r#"{"method":"tools/list"}"#);
            lent.entries_of(&id)
                .lent_to(&mut r, |r| assert_eq!(meta_of(r), both));
            assert!(r.meta().is_some_and(|m| m.is_empty()));
            assert_eq!(Value::Object(lent.entries.0.clone()), both);
            // A request that states its own client info keeps it; capabilities are added at
            // the end of its `_meta`, and stay.
            let mut r = parse(
                r#"{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1,"io.modelcontextprotocol/clientInfo":{"name":"own"}}}}"#,
            );
            let own = serde_json::json!({
                "progressToken": 1,
                keys::CLIENT_INFO: {"name": "own"},
                keys::CLIENT_CAPABILITIES: {"roots": {}}
            });
            lent.entries_of(&id)
                .lent_to(&mut r, |r| assert_eq!(meta_of(r), own));
            assert_eq!(meta_of(&r), own);
            let keys_in_order: Vec<_> = r.meta().unwrap().keys().cloned().collect();
            assert_eq!(
                keys_in_order.last().map(String::as_str),
                Some(keys::CLIENT_CAPABILITIES)
            );
            // The entries stay whole for the next request.
            assert_eq!(Value::Object(lent.entries.0.clone()), both);
        }
        // An identity with no entries lends nothing: no `_meta` is made.
        let none = Arc::new(ClientIdentity {
            client_info: None,
            capabilities: None,
        });
        let mut r = parse(r#"{"method":"tools/call","params":{"name":"x"}}"#);
        lent.entries_of(&none)
            .lent_to(&mut r, |r| assert!(r.meta().is_none()));
        assert!(r.meta().is_none());
        // A new identity replaces the entries.
        let other = Arc::new(ClientIdentity {
            client_info: None,
            capabilities: Some(serde_json::json!({})),
        });
        let mut r = parse(r#"{"method":"tools/list"}"#);
        let caps = serde_json::json!({keys::CLIENT_CAPABILITIES: {}});
        lent.entries_of(&other)
            .lent_to(&mut r, |r| assert_eq!(meta_of(r), caps));
        assert!(r.meta().is_some_and(|m| m.is_empty()));
    }

    #[test]
    fn identity_is_added_where_the_request_lacks_it() {
        let id = Arc::new(ClientIdentity {
            client_info: Some(serde_json::json!({"name":"c"})),
            capabilities: Some(serde_json::json!({})),
        });
        // The entries the request lacks, then the revision the target's emission states.
        let both = r#""io.modelcontextprotocol/clientInfo":{"name":"c"},"#.to_owned()
            + r#""io.modelcontextprotocol/clientCapabilities":{},"#
            + r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#;
        let cases = [
            (r#""#, format!(r#","params":{{"_meta":{{{both}}}}}"#)),
            (r#","params":{ }"#, format!(r#","params":{{"_meta":{{{both}}}}}"#)),
            (
                r#","params":{"cursor":"x" }"#,
                format!(r#","params":{{"cursor":"x","_meta":{{{both}}}}}"#),
            ),
            (
                r#","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"own"}},"cursor":"x"}"#,
                r#","params":{"cursor":"x","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"own"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#.into(),
            ),
            (r#","params":{"_meta":{}}"#, format!(r#","params":{{"_meta":{{{both}}}}}"#)),
        ];
        let kind = BodyKind::Request(Direction::ClientToServer);
        let (from, to) = (ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28);
        let mut buffers = Buffers::default();
        for (params, want) in cases {
            let input = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list"{params}}}"#);
            let l = read_owned(input.as_bytes()).unwrap();
            translate(&l, kind, from, to, Some(&id), &mut buffers).unwrap();
            let want =
                format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"{want}}}\n");
            assert_eq!(String::from_utf8_lossy(&buffers.line), want, "{input}");
        }
    }
}
