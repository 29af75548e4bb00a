//! Where the emitter writes: compact JSON text ([`Bytes`]), a JSON value ([`Values`]), or a JSON
//! value and the emission's report ([`Reporting`]). Each writes a value exactly as `serde_json`
//! would (to text, and to a `Value`); only [`Reporting`] keeps paths.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Refused, ScalarCheck, serialization};
use crate::ProtocolVersion;
use crate::jsonrpc::RequestId;
use crate::wire::error::{EmitErrorKind, JsonPath, PathSegment};
use crate::wire::json::{JsonWriter, write_str};
use crate::wire::ledger::Cause;
use crate::wire::report::{EmissionReport, NoteKind, ReportEntry};
use crate::wire::shaping::Scalar;

/// An output of the emitter.
pub trait Sink {
    /// Whether the emission keeps a report (then the current path is tracked).
    const REPORTS: bool = false;

    /// Writes `value` as plain serde writes it.
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused>;

    /// Writes the scalar `value` as plain serde writes it, when it passes `check`.
    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Refused>;

    /// Opens an object of about `members` members.
    fn open_object(&mut self, members: usize);

    /// A member's key (`quoted`: the key in quotes with its colon, when it needs no escaping);
    /// `first` for the object's first member.
    fn key(&mut self, first: bool, key: &str, quoted: Option<&[u8]>);

    /// Closes the innermost object.
    fn close_object(&mut self);

    /// Opens an array of `items` items.
    fn open_array(&mut self, items: usize);

    /// Before each item; `first` for the array's first.
    fn item(&mut self, first: bool);

    /// Closes the innermost array.
    fn close_array(&mut self);

    /// A JSON-RPC frame around a body: `jsonrpc`, the `id` when there is one, then the body's
    /// members (`member: None`, a request or notification) or the body as the value of `member`
    /// (a response's `"result"`). `body` writes the body into this sink; its changes and its
    /// refusal are located in the frame.
    fn envelope(
        &mut self,
        id: Option<&RequestId>,
        member: Option<&'static str>,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Refused>,
    ) -> Result<(), Refused> {
        self.open_object(3);
        self.key(true, "jsonrpc", Some(br#""jsonrpc":"#));
        self.plain("2.0")?;
        if let Some(id) = id {
            self.key(false, "id", Some(br#""id":"#));
            self.plain(id)?;
        }
        match member {
            Some(m) => {
                self.key(false, m, None);
                self.enter(|| PathSegment::Key(m.to_owned()));
                let written = body(self);
                self.leave();
                written.map_err(|r| r.at_key(m))?;
            }
            None => self.members_of(body)?,
        }
        self.close_object();
        Ok(())
    }

    /// Writes the body `body` writes as members of the open object (a frame's).
    fn members_of(
        &mut self,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Refused>,
    ) -> Result<(), Refused>;

    /// Enters a member or an item (`segment` is made only when [`Sink::REPORTS`]).
    fn enter(&mut self, _segment: impl FnOnce() -> PathSegment) {}

    /// Leaves it.
    fn leave(&mut self) {}

    /// Records a change at `key` of the current object, or at the current value, with the
    /// value `value` makes (kept, and made, only when [`Sink::REPORTS`]).
    fn note<V>(&mut self, _list: NoteKind, _key: Option<&str>, _cause: Cause, _value: V)
    where
        V: FnOnce() -> Option<Value>,
    {
    }
}

/// A body that is not a JSON object where an envelope needs one.
fn not_an_object(found: &str) -> Refused {
    Refused::new(
        EmitErrorKind::Serialization,
        format!("a message body must serialize to an object, not {found}"),
        None,
    )
}

/// `value` as plain serde makes it a `serde_json::Value`.
#[inline]
fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Refused> {
    value
        .serialize(serde_json::value::Serializer)
        .map_err(serialization)
}

/// Appends compact JSON text to a buffer.
pub struct Bytes<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Bytes<'a> {
    /// Writes to the end of `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Bytes { out }
    }
}

impl Bytes<'_> {
    /// Judges the value written from `at` on as a `Value` (its text alone was not enough: a
    /// string with escapes, or it fails). The `Value` is read back from that text, which holds
    /// what `serde_json` makes of the value; the text stays when the value passes. Not generic,
    /// so no value type is compiled again for this rare path.
    #[cold]
    #[inline(never)]
    fn check_written(&mut self, at: usize, check: ScalarCheck) -> Result<(), Refused> {
        let copy: Value = serde_json::from_slice(&self.out[at..]).map_err(serialization)?;
        check
            .judge(Scalar::of_value(&copy))
            .inspect_err(|_| self.out.truncate(at))
    }
}

impl Sink for Bytes<'_> {
    #[inline]
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value
            .serialize(&mut JsonWriter::new(self.out))
            .map_err(serialization)
    }

    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Refused> {
        let at = self.out.len();
        self.plain(value)?;
        if check.passes(Scalar::of_text(&self.out[at..])) {
            return Ok(());
        }
        self.check_written(at, check)
    }

    #[inline]
    fn open_object(&mut self, _members: usize) {
        self.out.push(b'{');
    }

    #[inline]
    fn key(&mut self, first: bool, key: &str, quoted: Option<&[u8]>) {
        if !first {
            self.out.push(b',');
        }
        match quoted {
            Some(q) => self.out.extend_from_slice(q),
            None => {
                write_str(self.out, key);
                self.out.push(b':');
            }
        }
    }

    #[inline]
    fn close_object(&mut self) {
        self.out.push(b'}');
    }

    #[inline]
    fn open_array(&mut self, _items: usize) {
        self.out.push(b'[');
    }

    #[inline]
    fn item(&mut self, first: bool) {
        if !first {
            self.out.push(b',');
        }
    }

    #[inline]
    fn close_array(&mut self) {
        self.out.push(b']');
    }

    fn members_of(
        &mut self,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Refused>,
    ) -> Result<(), Refused> {
        // The body's opening brace becomes the comma, and the frame's brace closes it.
        let brace = self.out.len();
        body(self)?;
        match self.out.get(brace..) {
            Some([b'{', b'}']) => self.out.truncate(brace),
            Some([b'{', .., b'}']) => {
                self.out[brace] = b',';
                self.out.pop();
            }
            _ => return Err(not_an_object("a non-object")),
        }
        Ok(())
    }
}

/// Builds a `serde_json::Value`, and when `REPORTS` the report of what the emission changed.
#[derive(Debug)]
pub struct ValueSink<const REPORTS: bool> {
    open: Vec<Container>,
    done: Option<Value>,
    /// The current path (tracked only when `REPORTS`).
    path: JsonPath,
    /// The report (kept only when `REPORTS`).
    pub report: EmissionReport,
}

/// Builds a `serde_json::Value`.
pub type Values = ValueSink<false>;

/// Builds a `serde_json::Value` and the report of what the emission changed.
pub type Reporting = ValueSink<true>;

#[derive(Debug)]
enum Container {
    Object(Map<String, Value>, String),
    Array(Vec<Value>),
}

impl<const REPORTS: bool> ValueSink<REPORTS> {
    /// An empty output for an emission at `version`, with its empty report.
    #[inline]
    pub fn new(version: ProtocolVersion) -> Self {
        ValueSink {
            open: Vec::new(),
            done: None,
            path: JsonPath::root(),
            report: EmissionReport::new(version),
        }
    }

    /// The value written, when it is whole.
    #[inline]
    pub fn value(&mut self) -> Option<Value> {
        self.open.is_empty().then(|| self.done.take()).flatten()
    }

    fn put(&mut self, value: Value) {
        match self.open.last_mut() {
            Some(Container::Object(map, key)) => {
                map.insert(std::mem::take(key), value);
            }
            Some(Container::Array(items)) => items.push(value),
            None => self.done = Some(value),
        }
    }
}

impl<const REPORTS: bool> Sink for ValueSink<REPORTS> {
    const REPORTS: bool = REPORTS;

    #[inline]
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.put(to_value(value)?);
        Ok(())
    }

    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Refused> {
        let value = to_value(value)?;
        check.judge(Scalar::of_value(&value))?;
        self.put(value);
        Ok(())
    }

    #[inline]
    fn open_object(&mut self, members: usize) {
        // Sized as `serde_json::to_value` sizes a struct's map.
        self.open.push(Container::Object(
            Map::with_capacity(members),
            String::new(),
        ));
    }

    #[inline]
    fn key(&mut self, _first: bool, key: &str, _quoted: Option<&[u8]>) {
        if let Some(Container::Object(_, pending)) = self.open.last_mut() {
            key.clone_into(pending);
        }
    }

    #[inline]
    fn close_object(&mut self) {
        if let Some(Container::Object(map, _)) = self.open.pop() {
            self.put(Value::Object(map));
        }
    }

    #[inline]
    fn open_array(&mut self, items: usize) {
        self.open.push(Container::Array(Vec::with_capacity(items)));
    }

    #[inline]
    fn item(&mut self, _first: bool) {}

    #[inline]
    fn close_array(&mut self) {
        if let Some(Container::Array(items)) = self.open.pop() {
            self.put(Value::Array(items));
        }
    }

    fn members_of(
        &mut self,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Refused>,
    ) -> Result<(), Refused> {
        // Written under no name, then its members moved into the frame.
        self.key(false, "", None);
        body(self)?;
        if let Some(Container::Object(frame, _)) = self.open.last_mut() {
            match frame.shift_remove("") {
                Some(Value::Object(fields)) => {
                    let members = fields.into_iter();
                    frame.extend(members.filter(|(k, _)| k != "jsonrpc" && k != "id"));
                }
                other => {
                    let found = other.map_or_else(|| "nothing".to_owned(), |v| v.to_string());
                    return Err(not_an_object(&found));
                }
            }
        }
        Ok(())
    }

    fn enter(&mut self, segment: impl FnOnce() -> PathSegment) {
        if REPORTS {
            self.path.push(segment());
        }
    }

    fn leave(&mut self) {
        if REPORTS {
            self.path.pop();
        }
    }

    fn note<V>(&mut self, list: NoteKind, key: Option<&str>, cause: Cause, value: V)
    where
        V: FnOnce() -> Option<Value>,
    {
        if !REPORTS {
            return;
        }
        let mut path = self.path.clone();
        if let Some(k) = key {
            path.push(PathSegment::Key(k.to_owned()));
        }
        let value = value();
        self.report.record(list, ReportEntry { path, cause, value });
    }
}
