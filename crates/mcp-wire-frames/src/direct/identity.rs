//! The client identity a 2026-07-28 request must carry in `_meta`, lent to each request that
//! lacks it, and the body text with it added.

use std::sync::Arc;

use mcp_wire::model::{ClientRequest, Meta, RequestMeta};

use crate::session::ClientIdentity;
use mcp_wire::model::meta::keys;

use super::GiveUp;
use super::line::Line;

/// The `_meta` entries of a client identity, owned once and lent to each request that lacks
/// them, so restating the identity costs nothing per request in the usual case: a request
/// without `_meta` is lent the whole map (swapped in for the emission and swapped back out
/// after: no hashing, no allocation); one with a `_meta` of its own gets copies of the entries
/// it lacks.
#[derive(Default)]
pub(super) struct LentIdentity {
    /// The identity the entries were made from (the session's, kept alive so that the same
    /// pointer is the same identity).
    pub(super) of: Option<Arc<ClientIdentity>>,
    /// `clientInfo` and `clientCapabilities` entries, in that order, where the identity has them.
    pub(super) entries: Meta,
}

impl LentIdentity {
    /// The entries of `identity` (made anew only when it changed).
    pub(super) fn entries_of(&mut self, identity: &Arc<ClientIdentity>) -> &mut Self {
        if !self.of.as_ref().is_some_and(|of| Arc::ptr_eq(of, identity)) {
            self.entries = Meta(
                [
                    (keys::CLIENT_INFO, &identity.client_info),
                    (keys::CLIENT_CAPABILITIES, &identity.capabilities),
                ]
                .into_iter()
                .filter_map(|(key, v)| Some((key.to_owned(), v.clone()?)))
                .collect(),
            );
            self.of = Some(identity.clone());
        }
        self
    }

    /// Runs `f` on `request` given the entries its `_meta` lacks (at its end, as
    /// `convert::add_identity` adds them). Entries lent whole are taken back; copies stay (the
    /// request is not emitted again).
    pub(super) fn lent_to<R>(
        &mut self,
        request: &mut ClientRequest,
        f: impl FnOnce(&ClientRequest) -> R,
    ) -> R {
        if self.entries.is_empty() {
            return f(request);
        }
        if request.meta().is_none() {
            std::mem::swap(request.meta_mut(), &mut self.entries);
            let r = f(request);
            std::mem::swap(request.meta_mut(), &mut self.entries);
            return r;
        }
        let meta = request.meta_mut();
        for (key, value) in self.entries.iter() {
            if !meta.contains_key(key) {
                meta.insert(key.clone(), value.clone());
            }
        }
        f(request)
    }
}

/// Params from this size on are parsed from the frame's own text (see [`body_text`]).
pub(super) const LARGE_PARAMS: usize = 64 * 1024;

/// The body text the boundary parses: for responses the `result` text; for requests and
/// notifications the frame's own text where `method` is its first member or the params are
/// large (no copy of a body that may be tens of megabytes), and otherwise
/// `{"method":…,"params":…}` built in `buf` (members before the `method` tag would be buffered
/// by the typed read). The frame's text reads as the same body: a request or notification type
/// has exactly the members `method` and `params` and ignores any other (`jsonrpc`, `id`, unknown
/// frame members), and its errors and mandates concern those two alone.
pub(super) fn body_text<'t: 'r, 'b: 'r, 'r>(
    line: &Line<'t>,
    buf: &'b mut String,
) -> Result<&'r str, GiveUp> {
    let Some(method) = line.method else {
        return line.body.ok_or(GiveUp);
    };
    let first = line.frame.first().map(|(key, _)| *key);
    if first == Some("method") || line.body.is_some_and(|p| p.len() >= LARGE_PARAMS) {
        return Ok(line.frame_text);
    }
    buf.clear();
    buf.push_str("{\"method\":");
    buf.push_str(method);
    if let Some(params) = line.body {
        buf.push_str(",\"params\":");
        buf.push_str(params);
    }
    buf.push('}');
    Ok(buf)
}
