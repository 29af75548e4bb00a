//! `serialize_for`: arbitrary superset bodies emitted at every revision (structure-aware).
//!
//! Input, read through [`arbitrary::Unstructured`]: the first byte picks a revision `r`, then a
//! body definition of `r` (a request, notification or result of its method tables), whose value
//! [`crate::generate`] builds from the facts — `r`'s required members, optional members of any
//! revision, unknown keys — and the superset parses leniently. With the first byte's high bit set,
//! the rest is instead JSON text for the body chosen by the next byte (the seeds: real bodies).
//!
//! Checked: the emission contract of [`crate::emission`] at every revision.

use arbitrary::Unstructured;
use mcp_wire::facts;
use serde_json::Value;

use crate::generate::Generator;
use crate::seeds::{BodyKind, Sources};
use crate::targets::parse_as::{TYPES, Target};

/// The bodies, with their lenient value check.
fn bodies() -> impl Iterator<Item = (&'static str, fn(&Value))> {
    TYPES
        .iter()
        .filter_map(|t: &Target| t.value.map(|check| (t.name, check)))
}

fn body(name: &str) -> Option<fn(&Value)> {
    bodies().find(|(n, _)| *n == name).map(|(_, check)| check)
}

/// One input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mode) = u.arbitrary::<u8>() else {
        return;
    };
    if mode & 0x80 != 0 {
        let (Ok(selector), text) = (u.arbitrary::<u8>(), u.take_rest()) else {
            return;
        };
        let all: Vec<_> = bodies().collect();
        let (_, check) = all[usize::from(selector) % all.len()];
        if let Ok(value) = serde_json::from_slice::<Value>(text) {
            check(&value);
        }
        return;
    }
    let version = crate::revision(mode);
    let f = facts::revision(version);
    let names: Vec<&'static str> = f
        .client_requests
        .iter()
        .chain(f.server_requests)
        .chain(f.client_notifications)
        .chain(f.server_notifications)
        .map(|m| m.type_name)
        .chain(
            f.client_requests
                .iter()
                .chain(f.server_requests)
                .filter_map(|m| m.result),
        )
        .filter(|n| body(n).is_some())
        .collect();
    let Ok(name) = u.choose(&names) else {
        return;
    };
    let Some(check) = body(name) else {
        return;
    };
    let Ok(value) = Generator::new(&mut u).named(version, name, 0) else {
        return;
    };
    check(&value);
}

/// Real bodies in the JSON mode: each request and notification as its method union, each result
/// as the result type of its method (the union of its side).
pub fn seeds(sources: &Sources) -> Vec<Vec<u8>> {
    let index = |name: &str| bodies().position(|(n, _)| n == name).map(|i| i as u8);
    let mut out = Vec::new();
    for b in sources.bodies() {
        let client = b.dir != "s2c";
        let union = match (b.kind, client) {
            (BodyKind::Request, true) => "ClientRequest",
            (BodyKind::Request, false) => "ServerRequest",
            (BodyKind::Notification, true) => "ClientNotification",
            (BodyKind::Notification, false) => "ServerNotification",
            // A client answers server requests; a server answers client requests.
            (BodyKind::Result, true) => "ClientResult",
            (BodyKind::Result, false) => "ServerResult",
        };
        if let Some(i) = index(union) {
            let mut s = vec![0x80, i];
            s.extend(serde_json::to_vec(b.value).expect("JSON"));
            out.push(s);
        }
    }
    out
}
