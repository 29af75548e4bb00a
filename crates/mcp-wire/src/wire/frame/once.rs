//! The one-pass read of a frame: the envelope members and the typed body from the same
//! `serde_json` pass, with no raw split before it and no `Value` after it.
//!
//! The frame's object is read member by member. `jsonrpc`, `id` and `error` are read as they
//! come. At `method` the body is read at once: the body type sees a map that starts with the
//! `method` entry and goes on with the frame's remaining members, the envelope's taken out on
//! the way (so `{"method":…,"params":…,"jsonrpc":"2.0","id":1}` reads in one pass too). Whether
//! it is a request or a notification is decided by the id when it came first, else by which of
//! the two body types reads the method ([`WireParse::FRAME_METHODS`]), and checked against the
//! id at the end. A `result` is typed where it stands when the id came first and the caller
//! says what it answers; otherwise it is kept as raw text (typed after the id, as
//! [`RawFrame::parse`](super::RawFrame::parse) does).
//!
//! Anything unusual (a fault, a repeated member, `params` before `method`, a body the typed
//! value cannot check) gives up ([`read`] returns `None`) and the two-pass route
//! ([`RawFrame::split`](super::RawFrame::split) then [`RawFrame::parse`](super::RawFrame::parse))
//! reads the frame again and decides, so every answer and every error is that route's.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, Visitor,
};
use serde_json::value::RawValue;

use super::TypedFrame;
use crate::VersionLike;
use crate::de::strict::CowStr;
use crate::de::strict::{FromText, Strict};
use crate::jsonrpc::{
    ErrorData, JSONRPC_VERSION, JsonRpcError, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse,
    RequestId,
};
use crate::wire::parse::{
    MethodResult, NextValue, ResultFor, ResultTyping, WireParse, check, parse_result_for,
    typed_result_for,
};

/// What a response answers, asked of the caller at most once (the two-pass route reuses the
/// answer when the one pass gives up).
pub(super) struct Answering<'r, F> {
    ask: Option<F>,
    answer: Option<ResultFor<'r>>,
}

impl<'r, F: FnOnce(&RequestId) -> Option<ResultFor<'r>>> Answering<'r, F> {
    /// Will ask `ask` with the response's id.
    pub(super) fn new(ask: F) -> Self {
        Answering {
            ask: Some(ask),
            answer: None,
        }
    }

    /// What the response with `id` answers.
    pub(super) fn get(&mut self, id: &RequestId) -> Option<ResultFor<'r>> {
        if let Some(ask) = self.ask.take() {
            self.answer = ask(id);
        }
        self.answer
    }
}

/// Reads `text` as one frame in one pass into `slot`; `false` (the slot then left empty)
/// leaves the frame to the two-pass route.
///
/// The frame is written into the caller's slot rather than returned through `serde_json`'s
/// `Result`s: a typed frame is a few hundred bytes, and each layer it is returned through
/// copies it.
pub(super) fn read<'a, 'r, R, N, F>(
    text: &'a str,
    version: &VersionLike,
    answering: &mut Answering<'r, F>,
    slot: &mut Option<TypedFrame<'a, R, N>>,
) -> bool
where
    R: WireParse,
    N: WireParse,
    F: FnOnce(&RequestId) -> Option<ResultFor<'r>>,
{
    let (Some(requests), Some(notifications)) = (R::FRAME_METHODS, N::FRAME_METHODS) else {
        return false;
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de.deserialize_map(FrameVisitor {
        version,
        answering,
        requests,
        notifications,
        slot: &mut *slot,
    });
    if read.is_ok() && de.end().is_ok() {
        return slot.is_some();
    }
    *slot = None;
    false
}

/// The one pass gives up: the two-pass route decides (and words the error).
fn give_up<E: de::Error>() -> E {
    E::custom("left to the two-pass read")
}

/// A member of the frame's object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    /// Any other key (ignored, as the two-pass route ignores it).
    Other,
}

impl Member {
    fn of(key: &str) -> Member {
        match key {
            "jsonrpc" => Member::Jsonrpc,
            "id" => Member::Id,
            "method" => Member::Method,
            "params" => Member::Params,
            "result" => Member::Result,
            "error" => Member::Error,
            _ => Member::Other,
        }
    }
}

/// The envelope members read so far, besides the body.
#[derive(Default)]
struct Seen {
    jsonrpc: bool,
    /// `Some(None)`: a present `null` id.
    id: Option<Option<RequestId>>,
    error: Option<ErrorData>,
}

impl Seen {
    /// Reads the value of `jsonrpc`, `id` or `error`; a repeated one, a bad `jsonrpc` or any
    /// other member gives up.
    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        member: Member,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match member {
            Member::Jsonrpc if !self.jsonrpc => {
                self.jsonrpc = true;
                if map.next_value_seed(CowStr)? != JSONRPC_VERSION {
                    return Err(give_up());
                }
            }
            Member::Id if self.id.is_none() => self.id = Some(map.next_value()?),
            Member::Error if self.error.is_none() => self.error = Some(map.next_value()?),
            _ => return Err(give_up()),
        }
        Ok(())
    }
}

/// The frame's map as the body sees it: the `method` entry (already read) first, then the
/// frame's other members, the envelope's taken out on the way.
struct BodyAccess<'s, 'de, A> {
    method: Option<Cow<'de, str>>,
    /// The method, due as the value after its key.
    method_value: Option<Cow<'de, str>>,
    map: &'s mut A,
    seen: &'s mut Seen,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for BodyAccess<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some(method) = self.method.take() {
            self.method_value = Some(method);
            return seed
                .deserialize(de::value::BorrowedStrDeserializer::new("method"))
                .map(Some);
        }
        while let Some(key) = self.map.next_key_seed(CowStr)? {
            match Member::of(&key) {
                Member::Method | Member::Params | Member::Other => {
                    return seed.deserialize(key.into_deserializer()).map(Some);
                }
                member => self.seen.read(member, self.map)?,
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.method_value.take() {
            Some(method) => seed.deserialize(method.into_deserializer()),
            None => self.map.next_value_seed(seed),
        }
    }
}

/// The frame's body as read.
// Typed bodies are large by nature; a body is read once and moved once into its frame.
#[allow(clippy::large_enum_variant)]
enum Body<'de, R, N> {
    Request(R),
    Notification(N),
    Result(MethodResult),
    /// A result kept as text: typed once the id is known.
    RawResult(&'de RawValue),
}

struct FrameVisitor<'v, 'a, 'r, R, N, F> {
    version: &'v VersionLike,
    answering: &'v mut Answering<'r, F>,
    requests: &'static [&'static str],
    notifications: &'static [&'static str],
    /// Where the frame read is put.
    slot: &'v mut Option<TypedFrame<'a, R, N>>,
}

impl<'v, 'a, 'r, R, N, F> FrameVisitor<'v, 'a, 'r, R, N, F>
where
    R: WireParse,
    N: WireParse,
    F: FnOnce(&RequestId) -> Option<ResultFor<'r>>,
{
    /// Reads the body of a frame whose `method` is `method`: a request or a notification.
    fn method_body<'de, A: MapAccess<'de>>(
        &self,
        method: Cow<'de, str>,
        map: &mut A,
        seen: &mut Seen,
    ) -> Result<Body<'de, R, N>, A::Error> {
        let request = match &seen.id {
            Some(Some(_)) => true,
            // A null id on a request is a fault.
            Some(None) => return Err(give_up()),
            None if self.notifications.contains(&&*method) => false,
            None if self.requests.contains(&&*method) => true,
            None => return Err(give_up()),
        };
        let access = MapAccessDeserializer::new(BodyAccess {
            method: Some(method),
            method_value: None,
            map,
            seen,
        });
        let passes = |verdict: Option<Result<(), _>>| matches!(verdict, Some(Ok(())));
        if request {
            let parsed = R::deserialize(Strict(access, FromText))?;
            if !passes(check(&parsed, self.version)) {
                return Err(give_up());
            }
            Ok(Body::Request(parsed))
        } else {
            let parsed = N::deserialize(Strict(access, FromText))?;
            if !passes(check(&parsed, self.version)) {
                return Err(give_up());
            }
            Ok(Body::Notification(parsed))
        }
    }

    /// Reads a `result`: typed where it stands when the id came first and the caller says what
    /// it answers, else kept as text.
    fn result_body<'de, A: MapAccess<'de>>(
        &mut self,
        map: &mut A,
        seen: &Seen,
    ) -> Result<Body<'de, R, N>, A::Error> {
        let answering = match &seen.id {
            Some(Some(id)) => self.answering.get(id),
            _ => None,
        };
        match answering.map(|a| a.typing(self.version.clone())) {
            Some(ResultTyping::Method(method)) => {
                let mut slot = None;
                match (
                    typed_result_for(method, NextValue(map), self.version, &mut slot),
                    slot,
                ) {
                    (Some(Ok(())), Some(result)) => Ok(Body::Result(result)),
                    _ => Err(give_up()),
                }
            }
            _ => map.next_value::<&'de RawValue>().map(Body::RawResult),
        }
    }
}

impl<'de, 'r, R, N, F> Visitor<'de> for FrameVisitor<'_, 'de, 'r, R, N, F>
where
    R: WireParse,
    N: WireParse,
    F: FnOnce(&RequestId) -> Option<ResultFor<'r>>,
{
    /// The frame goes to the visitor's slot.
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC object")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = Seen::default();
        let mut body = None;
        while let Some(key) = map.next_key_seed(CowStr)? {
            match Member::of(&key) {
                Member::Method if body.is_none() => {
                    let method = map.next_value_seed(CowStr)?;
                    body = Some(self.method_body(method, &mut map, &mut seen)?);
                }
                Member::Result if body.is_none() => {
                    body = Some(self.result_body(&mut map, &seen)?);
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
                // `params` before `method`, or a second body.
                Member::Method | Member::Params | Member::Result => return Err(give_up()),
                member => seen.read(member, &mut map)?,
            }
        }
        if !seen.jsonrpc {
            return Err(give_up());
        }
        *self.slot = Some(match (body, seen.error, seen.id) {
            (Some(Body::Request(r)), None, Some(Some(id))) => {
                TypedFrame::Request(JsonRpcRequest::new(id, r))
            }
            (Some(Body::Notification(n)), None, None) => {
                TypedFrame::Notification(JsonRpcNotification::new(n))
            }
            (Some(Body::Result(r)), None, Some(Some(id))) => {
                TypedFrame::Response(JsonRpcResponse::new(id, r))
            }
            (Some(Body::RawResult(result)), None, Some(Some(id))) => {
                match self.answering.get(&id) {
                    None => TypedFrame::UntypedResponse { id, result },
                    Some(answering) => {
                        let typed = parse_result_for(answering, result.get(), self.version.clone())
                            .map_err(|_| give_up())?;
                        TypedFrame::Response(JsonRpcResponse::new(id, typed))
                    }
                }
            }
            (None, Some(error), id) => TypedFrame::Error(JsonRpcError::new(id.flatten(), error)),
            _ => return Err(give_up()),
        });
        Ok(())
    }
}
