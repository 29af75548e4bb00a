//! The boundary's emission contract, checked on one superset body at every revision:
//! - the emitter's value sink ([`serialize_for`]) and its reporting sink
//!   ([`serialize_for_report`]) emit the same value or the same error;
//! - the byte output ([`serialize_for_vec`]) is exactly `serde_json`'s text of that value, and
//!   leaves the buffer as it was on error;
//! - what is emitted at a revision parses back at that revision, and emitting that again gives
//!   the same value (the boundary is a fixed point on its own output) — for every body that names
//!   its own type (result unions read without their method are a structural guess).

use std::fmt::Debug;

use mcp_wire::ProtocolVersion;
use mcp_wire::wire::{
    WireBody, WireParse, parse_as, serialize_for, serialize_for_report, serialize_for_vec,
};
use serde_json::Value;

/// Checks the emission contract of `body` at every revision; panics on a breach.
pub fn check<B: WireBody + WireParse + Debug>(body: &B) {
    for version in ProtocolVersion::ALL {
        check_at(body, version);
    }
}

fn check_at<B: WireBody + WireParse + Debug>(body: &B, version: ProtocolVersion) {
    let value = serialize_for(body, version);
    let reported = serialize_for_report(body, version).map(|(value, _)| value);
    assert_eq!(
        value, reported,
        "serialize_for and serialize_for_report disagree at {version} on {body:?}"
    );
    let mut bytes = b"prefix".to_vec();
    let written = serialize_for_vec(body, version, &mut bytes);
    let Ok(value) = value else {
        assert!(
            written.is_err(),
            "serialize_for_vec wrote what serialize_for refused at {version}: {body:?}"
        );
        assert_eq!(bytes, b"prefix", "a refused emission left bytes behind");
        return;
    };
    assert!(
        written.is_ok(),
        "serialize_for_vec refused what serialize_for wrote at {version}: {written:?}"
    );
    let expected = serde_json::to_vec(&value).expect("a Value serializes");
    assert_eq!(
        String::from_utf8_lossy(&bytes[6..]),
        String::from_utf8_lossy(&expected),
        "serialize_for_vec's text is not serde_json's text of serialize_for's value at {version}"
    );
    // A result union read without its method is a ranked structural guess (`parse_result_for`
    // is the typed read), so only bodies that name their own type are held to the fixed point.
    if matches!(B::TYPE_NAME, "ServerResult" | "ClientResult") {
        return;
    }
    let reparsed = match parse_as::<B>(&value, version) {
        Ok(b) => b,
        Err(e) => panic!("what serialize_for wrote at {version} does not parse back: {e}\n{value}"),
    };
    let again: Value = serialize_for(&reparsed, version)
        .unwrap_or_else(|e| panic!("re-emitting at {version} fails: {e}\n{value}"));
    assert_eq!(
        again, value,
        "emission at {version} is not a fixed point (first, then second)"
    );
}
