//! `mcp_wire::convert` on the real captured sessions: every frame of each revision's corpus,
//! read as that revision's generated union (`ClientRequest`, `ServerResult`, …), converts to the
//! superset and back to the same generated value; where the generated type keeps every member
//! of the frame, the superset value is the one `parse_as` makes of the frame itself.

use std::fmt::Debug;

use mcp_wire::ProtocolVersion;
use mcp_wire::convert::{ConvertError, FromSuperset, ToSuperset, from_generated_json};
use mcp_wire::jsonrpc::{JsonRpcNotification, JsonRpcRequest, RequestId};
use mcp_wire::model;
use mcp_wire::wire::{WireBody, WireParse, parse_as};
use mcp_wire_tests::corpus;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What one revision's frames did.
#[derive(Debug, Default)]
struct Tally {
    /// Frames converted both ways.
    converted: usize,
    /// Of those, frames the generated type reads losslessly, whose superset value was compared
    /// with `parse_as` of the frame.
    compared: usize,
    /// Frames the generated union rejects (`file:line: error`).
    rejected: Vec<String>,
    /// Frames whose superset value has no form at the revision (a peer sending a later
    /// revision's member): the refusal, with its pointer.
    refused: Vec<String>,
}

/// How a frame's body travels: bare, or inside the envelope the generated type spells out.
enum Envelope {
    Request(RequestId),
    Notification,
    None,
}

fn without_envelope(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.shift_remove("jsonrpc");
        m.shift_remove("id");
    }
    v
}

/// Converts one frame's payload (`input`: the whole frame for requests and notifications, the
/// `result` member for results) read as `G`, to `S` and back.
fn check<G, S>(input: &Value, envelope: Envelope, v: ProtocolVersion, at: &str, tally: &mut Tally)
where
    G: Serialize + DeserializeOwned + PartialEq + Debug,
    S: WireParse + WireBody + PartialEq + Debug + Clone,
{
    let generated: G = match from_generated_json(input.clone()) {
        Ok(g) => g,
        Err(e) => {
            // The generated union rejects only frames the boundary rejects too (a method the
            // revision lacks, a 2026-07-28 request without its `_meta` revision).
            let method = input
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            assert!(
                parse_as::<S>(&without_envelope(input.clone()), v).is_err(),
                "{at}: the generated union rejects {method}, parse_as accepts it: {e}"
            );
            tally.rejected.push(format!("{at}: {method}"));
            return;
        }
    };
    let superset: S = generated
        .to_superset(v)
        .unwrap_or_else(|e| panic!("{at}: to_superset: {e}"));
    let written = serde_json::to_value(&generated).unwrap();
    let spells_envelope = written.get("jsonrpc").is_some();
    if without_envelope(written) == without_envelope(input.clone()) {
        let direct: S = parse_as(&without_envelope(input.clone()), v)
            .unwrap_or_else(|e| panic!("{at}: parse_as: {e}"));
        assert_eq!(
            superset, direct,
            "{at}: to_superset disagrees with parse_as"
        );
        tally.compared += 1;
    }
    let back: Result<G, ConvertError> = match (spells_envelope, envelope) {
        (true, Envelope::Request(id)) => G::from_superset(&JsonRpcRequest::new(id, superset), v),
        (true, Envelope::Notification) => G::from_superset(&JsonRpcNotification::new(superset), v),
        _ => G::from_superset(&superset, v),
    };
    let back = match back {
        Ok(back) => back,
        Err(ConvertError::Emit(e)) => {
            let data = mcp_wire::jsonrpc::ErrorData::from(&e);
            tally.refused.push(format!(
                "{at}: {} at {}",
                e.message,
                data.data.unwrap()["pointer"]
            ));
            return;
        }
        Err(e) => panic!("{at}: from_superset: {e}"),
    };
    assert_eq!(back, generated, "{at}: from_superset(to_superset(g)) != g");
    tally.converted += 1;
}

macro_rules! revision {
    ($module:ident, $v:expr, $file:expr, $tally:expr) => {
        revision!(
            $module,
            $v,
            $file,
            $tally,
            |frame: &Value, id, at: &str, tally: &mut Tally| {
                check::<mcp_wire::$module::ServerRequest, model::ServerRequest>(
                    frame,
                    Envelope::Request(id),
                    $v,
                    at,
                    tally,
                )
            }
        )
    };
    ($module:ident, $v:expr, $file:expr, $tally:expr, $server_request:expr) => {{
        use mcp_wire::$module as d;
        for (line, captured) in &$file.frames {
            let at = format!("{}:{line}", $file.name);
            let frame = &captured.frame;
            let c2s = captured.dir == "c2s";
            let id = frame
                .get("id")
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
            match (frame.get("method").is_some(), id, frame.get("result")) {
                (true, Some(id), _) if c2s => check::<d::ClientRequest, model::ClientRequest>(
                    frame,
                    Envelope::Request(id),
                    $v,
                    &at,
                    $tally,
                ),
                (true, Some(id), _) => ($server_request)(frame, id, &at, $tally),
                (true, None, _) if c2s => {
                    check::<d::ClientNotification, model::ClientNotification>(
                        frame,
                        Envelope::Notification,
                        $v,
                        &at,
                        $tally,
                    )
                }
                (true, None, _) => check::<d::ServerNotification, model::ServerNotification>(
                    frame,
                    Envelope::Notification,
                    $v,
                    &at,
                    $tally,
                ),
                (false, _, Some(result)) if c2s => check::<d::ClientResult, model::ClientResult>(
                    result,
                    Envelope::None,
                    $v,
                    &at,
                    $tally,
                ),
                (false, _, Some(result)) => check::<d::ServerResult, model::ServerResult>(
                    result,
                    Envelope::None,
                    $v,
                    &at,
                    $tally,
                ),
                // Error responses have no body to convert.
                _ => {}
            }
        }
    }};
}

#[test]
fn corpus_frames_convert_both_ways_and_agree_with_parse_as() {
    let mut totals = Vec::new();
    for file in corpus() {
        let mut tally = Tally::default();
        match file.version {
            ProtocolVersion::V2024_11_05 => revision!(v2024_11_05, file.version, file, &mut tally),
            ProtocolVersion::V2025_03_26 => revision!(v2025_03_26, file.version, file, &mut tally),
            ProtocolVersion::V2025_06_18 => revision!(v2025_06_18, file.version, file, &mut tally),
            ProtocolVersion::V2025_11_25 => revision!(v2025_11_25, file.version, file, &mut tally),
            // 2026-07-28 has no server requests (their forms are input requests inside results).
            ProtocolVersion::V2026_07_28 => revision!(
                v2026_07_28,
                file.version,
                file,
                &mut tally,
                |_: &Value, _: RequestId, at: &str, _: &mut Tally| panic!(
                    "{at}: a server request at 2026-07-28"
                )
            ),
        }
        eprintln!("{}: {tally:?}", file.name);
        totals.push((file.name.clone(), tally));
    }
    for (name, tally) in &totals {
        // Most of every session converts, and a good share is compared with parse_as.
        assert!(tally.converted >= 30, "{name}: {tally:?}");
        assert!(tally.compared >= 20, "{name}: {tally:?}");
        // A superset value without a form at the revision is refused with a pointer: the
        // Python SDK's resource link sent to pre-2025-06-18 clients, nothing else.
        assert!(tally.refused.len() <= 1, "{name}: {:?}", tally.refused);
        for r in &tally.refused {
            assert!(r.contains("at \"/content/1\""), "{name}: {r}");
        }
        assert!(tally.rejected.len() <= 6, "{name}: {:?}", tally.rejected);
    }
}
