//! The emitter: a version-aware `serde::Serializer` wrapper.
//!
//! [`Shaper`] wraps any serializer (the byte writer of [`super::json`], which writes what
//! `serde_json` writes, or `serde_json::value::Serializer`) and
//! sees every struct name and field while the superset value is written. An object's owner type
//! is the struct name serde reports, or, for maps (open objects, `flatten`ed structs, JSON held as
//! `serde_json::Value`), the type its parent's edge names ([`super::ledger::EDGES`]). Per field it
//! consults the owner's ledger rows: strip (skip the field), pass (write it verbatim), refuse
//! (fail). 2026-07-28 injections are appended when an object ends. Nothing is buffered: a body
//! that needs no change is written exactly as plain `serde_json` would write it.
//!
//! It emits the report ([`super::serialize_for_report`]), every refusal with its JSON path, and
//! the bodies the planned emitter ([`super::planned`]) hands over; the planned emitter writes the
//! rest, byte for byte what this one writes.

use std::cell::{Cell, RefCell};

use serde::ser::{
    self, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::Value;

use super::body::{BodyInfo, BodyKind};
use super::clean;
use super::error::{EmitError, EmitErrorKind, JsonPath, PathSegment};
use super::ledger::{
    self, Action, AnswerVerdict, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, CLIENT_REQUESTS_2026,
    Cause, LedgerRow, MemberAction, MemberRow, OlderForm, OwnerInfo, RefuseWhen,
};
use super::names;
use super::report::{Change, EmissionReport};
use super::shaping::{
    F_CAPABILITIES, F_INPUT_REQUESTS, F_META, F_PARAMS, F_REQUEST_STATE, F_SCHEMA_TYPE, Role,
    Scalar, shaped_flag,
};
use super::text::{Text, key_text, with_key};
use crate::ProtocolVersion;

/// A scalar seen in a [`Slot::Capture`] position.
#[derive(Debug, Default, Clone, PartialEq)]
enum Captured {
    #[default]
    Nothing,
    Str(Text),
    Int(i128),
    Float(f64),
    Entries(usize),
    Other(&'static str),
}

/// What only a path-tracking emission keeps: the current path and the report.
struct Tracked {
    path: JsonPath,
    report: EmissionReport,
}

/// A refusal already recorded in the [`Ctx`], with its message: turned into the serializer's
/// error at the generic edge, so the decisions themselves are compiled once, not once per value
/// type.
struct Refused(String);

impl Refused {
    fn into_error<E: ser::Error>(self) -> E {
        E::custom(self.0)
    }
}

/// State shared by every level of one emission.
///
/// Small on purpose: it is built for every body, and an emission without a report touches
/// nothing but the version, the clean bit and the body's entry.
pub(crate) struct Ctx {
    pub version: ProtocolVersion,
    /// A strict emission: `pass` rows strip instead (see [`super::EmitOptions::strict`]).
    strict: bool,
    /// The [`clean::clean_bit`] of this emission; 0 walks every object (tests compare both).
    clean_bit: u16,
    /// What is known about the body's type (looked up once per emission).
    body: names::Known,
    /// Path and report, only when the emission keeps paths (for the report and error paths).
    tracked: Option<RefCell<Tracked>>,
    error: Cell<Option<Box<EmitError>>>,
    captured: RefCell<Captured>,
}

impl Ctx {
    pub fn new(
        version: ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        body: names::Known,
    ) -> Self {
        let strict = options.is_strict();
        Ctx {
            version,
            strict,
            // A strict emission acts on `pass` rows, which the report's clean bits count.
            clean_bit: if walk_everything() {
                0
            } else {
                clean::clean_bit(version, track || strict)
            },
            body,
            tracked: track.then(|| {
                RefCell::new(Tracked {
                    path: JsonPath::root(),
                    report: EmissionReport::new(version),
                })
            }),
            error: Cell::new(None),
            captured: RefCell::new(Captured::Nothing),
        }
    }

    /// Whether this emission keeps the current path (for the report and for error paths).
    #[inline]
    pub fn track(&self) -> bool {
        self.tracked.is_some()
    }

    /// The first error recorded, if any.
    pub fn take_error(&self) -> Option<EmitError> {
        self.error.take().map(|e| *e)
    }

    /// The report of a tracking emission.
    pub fn into_report(self) -> Option<EmissionReport> {
        self.tracked.map(|t| t.into_inner().report)
    }

    fn path_with(&self, key: Option<&str>) -> JsonPath {
        let mut p = self
            .tracked
            .as_ref()
            .map_or_else(JsonPath::root, |t| t.borrow().path.clone());
        if let Some(k) = key {
            p.push(PathSegment::Key(k.to_owned()));
        }
        p
    }

    /// Records the first error; the returned [`Refused`] carries its message outwards.
    fn record(&self, mut err: EmitError, key: Option<&str>) -> Refused {
        if self.track() {
            err.path = self.path_with(key);
        }
        let msg = err.message.clone();
        let first = self.error.take().unwrap_or_else(|| Box::new(err));
        self.error.set(Some(first));
        Refused(msg)
    }

    /// Records the first error and returns the serializer error that carries it outwards.
    fn fail<E: ser::Error>(&self, err: EmitError, key: Option<&str>) -> E {
        self.record(err, key).into_error()
    }

    /// The refusal of a [`Action::Refuse`] row whose condition holds at the current path.
    fn refused_row(&self, row: &'static LedgerRow, key: Option<&str>) -> Refused {
        self.record(
            EmitError::new(
                EmitErrorKind::NotExpressible,
                self.version,
                format!(
                    "{}.{} cannot be sent at {}: {}",
                    row.owner, row.field, self.version, row.reason
                ),
                Some(Cause::Ledger(row)),
            ),
            key,
        )
    }

    /// [`Ctx::refused_row`] as a serializer error.
    fn refuse_row<E: ser::Error>(&self, row: &'static LedgerRow, key: Option<&str>) -> E {
        self.refused_row(row, key).into_error()
    }

    fn note(&self, list: NoteKind, key: Option<&str>, cause: Cause, value: Option<Value>) {
        let Some(tracked) = &self.tracked else {
            return;
        };
        let change = Change {
            path: self.path_with(key),
            cause,
            value,
        };
        let r = &mut tracked.borrow_mut().report;
        match list {
            NoteKind::Stripped => r.stripped.push(change),
            NoteKind::Injected => r.injected.push(change),
            NoteKind::Passed => r.passed.push(change),
            NoteKind::Rewritten => r.rewritten.push(change),
        }
    }

    #[inline]
    fn push_key(&self, key: &str) {
        if let Some(t) = &self.tracked {
            t.borrow_mut().path.push(PathSegment::Key(key.to_owned()));
        }
    }

    #[inline]
    fn push(&self, seg: PathSegment) {
        if let Some(t) = &self.tracked {
            t.borrow_mut().path.push(seg);
        }
    }

    #[inline]
    fn pop(&self) {
        if let Some(t) = &self.tracked {
            t.borrow_mut().path.pop();
        }
    }

    fn capture(&self, c: Captured) {
        *self.captured.borrow_mut() = c;
    }

    fn take_captured(&self) -> Captured {
        std::mem::take(&mut *self.captured.borrow_mut())
    }
}

#[cfg(test)]
thread_local! {
    /// Set by tests on their thread: walk every object, even those [`clean`] says need nothing,
    /// to compare both emissions.
    pub(crate) static WALK_EVERYTHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
fn walk_everything() -> bool {
    WALK_EVERYTHING.get()
}

#[cfg(not(test))]
#[inline]
fn walk_everything() -> bool {
    false
}

#[derive(Clone, Copy)]
enum NoteKind {
    Stripped,
    Injected,
    Passed,
    Rewritten,
}

/// What the value being serialized is, as far as its parent knows.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// A nested value; for a map, the type its parent expects there.
    Typed(Option<&'static str>),
    /// Like `Typed`, but it must be a JSON object.
    Object(Option<&'static str>, Cause),
    /// The whole message body.
    Body(BodyInfo),
    /// An object with a role.
    Role(Role),
    /// Must not be an array.
    RefuseArray(&'static LedgerRow),
    /// A scalar the parent checks after it is written.
    Capture,
    /// Must be a JSON object (a [`RefuseWhen::NotObject`] or [`RefuseWhen::NotObjectSchema`] row).
    Shape(&'static LedgerRow, RefuseWhen),
}

/// What [`Shaper::object`] decides about an object about to be written.
struct Opened {
    owner: Option<&'static OwnerInfo>,
    role: Role,
    /// The whole subtree needs no shaping.
    through: bool,
    /// The object's fields, for members whose values need no shaping.
    fields: Option<&'static clean::FieldTable>,
}

/// The version-aware serializer wrapper.
pub(crate) struct Shaper<'c, S> {
    pub inner: S,
    pub ctx: &'c Ctx,
    slot: Slot,
}

impl<'c, S> Shaper<'c, S> {
    pub fn body(inner: S, ctx: &'c Ctx, info: BodyInfo) -> Self {
        Shaper {
            inner,
            ctx,
            slot: Slot::Body(info),
        }
    }
}

struct Wrap<'a, 'c, T: ?Sized> {
    value: &'a T,
    ctx: &'c Ctx,
    slot: Slot,
}

impl<T: Serialize + ?Sized> Serialize for Wrap<'_, '_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Shaper {
            inner: serializer,
            ctx: self.ctx,
            slot: self.slot,
        })
    }
}

impl<'c, S: Serializer> Shaper<'c, S> {
    fn scalar(&self, c: impl FnOnce() -> Captured) -> Result<(), S::Error> {
        match self.slot {
            Slot::Capture => {
                self.ctx.capture(c());
                Ok(())
            }
            Slot::Shape(row, _) => Err(self.ctx.refuse_row(row, None)),
            Slot::Object(_, cause) => Err(self.ctx.fail(
                EmitError::new(
                    EmitErrorKind::InvalidValue,
                    self.ctx.version,
                    "expected a JSON object",
                    Some(cause),
                ),
                None,
            )),
            _ => Ok(()),
        }
    }

    fn array(&self) -> Result<(), S::Error> {
        match self.slot {
            Slot::RefuseArray(row) => Err(self.ctx.fail(
                EmitError::new(
                    EmitErrorKind::NotExpressible,
                    self.ctx.version,
                    format!(
                        "{}.{} is an array, which {} cannot carry: {}",
                        row.owner, row.field, self.ctx.version, row.reason
                    ),
                    Some(Cause::Ledger(row)),
                ),
                None,
            )),
            Slot::Capture => {
                self.ctx.capture(Captured::Other("an array"));
                Ok(())
            }
            Slot::Shape(row, _) => Err(self.ctx.refuse_row(row, None)),
            _ => self.scalar(|| Captured::Other("an array")),
        }
    }

    /// Owner and role of an object about to be written (`name` is serde's struct name), and
    /// whether its subtree needs no shaping (then it is written unwrapped).
    fn object(&self, name: Option<&'static str>) -> Result<Opened, S::Error> {
        let v = self.ctx.version;
        // The body's struct is almost always the body type itself: no second lookup.
        let body_struct = match (self.slot, name) {
            (Slot::Body(info), Some(n)) => n == info.type_name,
            _ => false,
        };
        let named = name.map(|n| match body_struct {
            true => self.ctx.body,
            false => names::known(n),
        });
        let by_name = named.and_then(|k| k.owner);
        if let Some(info) = by_name
            && let Some(t) = info.ty
            && !matches!(self.slot, Slot::Body(_))
            && !t.nested.contains(v)
        {
            return Err(self.ctx.fail(
                EmitError::new(
                    EmitErrorKind::TypeAbsent,
                    v,
                    format!("{} does not exist at {}: {}", t.name, v, t.reason),
                    Some(Cause::Type(t)),
                ),
                None,
            ));
        }
        let bit = self.ctx.clean_bit;
        // Clean when every name the walk would take rows from is clean (an unnamed object with
        // no expected type is walked: nothing is known about it).
        let named_clean = named.map(|k| k.is_clean(bit));
        let own_fields = named.and_then(|k| k.fields);
        let (owner, role, clean, fields) = match self.slot {
            Slot::Typed(expect) | Slot::Object(expect, _) => {
                let expected = expect.map(names::known);
                // The fields are those of the type whose rows apply (see `owner` below).
                let fields = match (named, expected) {
                    (Some(_), _) if by_name.is_some() => own_fields,
                    (Some(_), None) => own_fields,
                    (None, Some(e)) => e.fields,
                    _ => None,
                };
                // The struct's own rows, or the expected type's if it has none.
                let clean = match (named_clean, expected) {
                    (Some(c), Some(e)) => c && (by_name.is_some() || e.is_clean(bit)),
                    (Some(c), None) => c,
                    (None, Some(e)) => e.is_clean(bit),
                    (None, None) => false,
                };
                (
                    by_name.or_else(|| expected.and_then(|e| e.owner)),
                    Role::Plain,
                    clean,
                    fields,
                )
            }
            Slot::Body(info) => {
                let body = self.ctx.body;
                let owner = body.owner.or(by_name);
                let role = if v != ProtocolVersion::V2026_07_28 {
                    Role::Plain
                } else {
                    match info.kind {
                        BodyKind::Result => owner
                            .and_then(|o| o.result)
                            .map_or(Role::Plain, Role::Result2026),
                        BodyKind::Request
                            if info
                                .method
                                .is_some_and(|m| CLIENT_REQUESTS_2026.contains(&m)) =>
                        {
                            Role::ClientRequest2026
                        }
                        _ => Role::Plain,
                    }
                };
                // The body type's rows first, then the struct's: both must be clean.
                let clean = body.is_clean(bit) && named_clean != Some(false);
                let same = name.is_none_or(|n| body_struct || n == info.type_name);
                (owner, role, clean, body.fields.filter(|_| same))
            }
            Slot::Role(Role::ClientMeta) => (
                names::known("RequestMetaObject").owner,
                Role::ClientMeta,
                false,
                None,
            ),
            Slot::Role(role) => (by_name, role, false, None),
            Slot::RefuseArray(_) => (by_name, Role::Plain, named_clean == Some(true), own_fields),
            Slot::Shape(row, when) => (None, Role::Checked(row, when), false, None),
            Slot::Capture => {
                self.ctx.capture(Captured::Other("an object"));
                (by_name, Role::Plain, named_clean == Some(true), own_fields)
            }
        };
        Ok(Opened {
            owner,
            role,
            through: clean && role == Role::Plain,
            fields: fields.filter(|_| role == Role::Plain),
        })
    }

    fn open(self, name: Option<&'static str>) -> Result<Obj<'c, S::SerializeMap>, S::Error> {
        let Opened {
            owner,
            role,
            through,
            fields,
        } = self.object(name)?;
        let inner = self.inner.serialize_map(None)?;
        let inspect = !through
            && (owner.is_some_and(|o| !o.plans.is_empty())
                || role != Role::Plain
                || self.ctx.track());
        Ok(Obj {
            inner,
            state: ObjState {
                ctx: self.ctx,
                owner,
                role,
                inspect,
                through,
                fields,
                flags: 0,
                rows_seen: 0,
                count: 0,
                pending: None,
            },
        })
    }
}

macro_rules! scalar_methods {
    ($($method:ident($ty:ty) => $cap:expr;)*) => {
        $(
            fn $method(self, v: $ty) -> Result<S::Ok, S::Error> {
                #[allow(clippy::redundant_closure_call)]
                self.scalar(|| ($cap)(v))?;
                self.inner.$method(v)
            }
        )*
    };
}

impl<'c, S: Serializer> Serializer for Shaper<'c, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Seq<'c, S::SerializeSeq>;
    type SerializeTuple = Seq<'c, S::SerializeTuple>;
    type SerializeTupleStruct = Seq<'c, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Seq<'c, S::SerializeTupleVariant>;
    type SerializeMap = Obj<'c, S::SerializeMap>;
    type SerializeStruct = Obj<'c, S::SerializeMap>;
    type SerializeStructVariant = Variant<'c, S::SerializeStructVariant>;

    scalar_methods! {
        serialize_bool(bool) => |_| Captured::Other("a boolean");
        serialize_i8(i8) => |v: i8| Captured::Int(v.into());
        serialize_i16(i16) => |v: i16| Captured::Int(v.into());
        serialize_i32(i32) => |v: i32| Captured::Int(v.into());
        serialize_i64(i64) => |v: i64| Captured::Int(v.into());
        serialize_i128(i128) => Captured::Int;
        serialize_u8(u8) => |v: u8| Captured::Int(v.into());
        serialize_u16(u16) => |v: u16| Captured::Int(v.into());
        serialize_u32(u32) => |v: u32| Captured::Int(v.into());
        serialize_u64(u64) => |v: u64| Captured::Int(v.into());
        serialize_f32(f32) => |v: f32| Captured::Float(v.into());
        serialize_f64(f64) => Captured::Float;
        serialize_char(char) => |v: char| Captured::Str(Text::new(v.encode_utf8(&mut [0; 4])));
        serialize_str(&str) => |v: &str| Captured::Str(Text::new(v));
        serialize_bytes(&[u8]) => |_| Captured::Other("bytes");
    }

    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Int(i128::try_from(v).unwrap_or(i128::MAX)))?;
        self.inner.serialize_u128(v)
    }

    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Other("null"))?;
        self.inner.serialize_none()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Other("null"))?;
        self.inner.serialize_unit()
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Other("null"))?;
        self.inner.serialize_unit_struct(name)
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Str(Text::new(variant)))?;
        self.inner.serialize_unit_variant(name, index, variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        // A union that serde writes without member names (members written as maps) names each
        // member with a newtype struct: its member row or type row decides here.
        if let Some(row) = ledger::member_row_at(name, self.ctx.version) {
            match row.action {
                MemberAction::Refuse => {
                    return Err(self.ctx.fail(refused_member(row, self.ctx.version), None));
                }
                MemberAction::Older(form) => return self.older(row, form, value),
                MemberAction::Same(_) => {}
            }
        } else if let Some(t) = ledger::type_row(name)
            && !t.nested.contains(self.ctx.version)
        {
            return Err(self.ctx.fail(
                EmitError::new(
                    EmitErrorKind::TypeAbsent,
                    self.ctx.version,
                    format!(
                        "{} does not exist at {}: {}",
                        t.name, self.ctx.version, t.reason
                    ),
                    Some(Cause::Type(t)),
                ),
                None,
            ));
        }
        let slot = match self.slot {
            Slot::Typed(None) if names::known(name).owner.is_some() => Slot::Typed(Some(name)),
            other => other,
        };
        self.inner.serialize_newtype_struct(
            name,
            &Wrap {
                value,
                ctx: self.ctx,
                slot,
            },
        )
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.scalar(|| Captured::Other("an object"))?;
        self.inner.serialize_newtype_variant(
            name,
            index,
            variant,
            &Wrap {
                value,
                ctx: self.ctx,
                slot: Slot::Typed(None),
            },
        )
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.array()?;
        Ok(Seq::new(self.inner.serialize_seq(len)?, self.ctx))
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.array()?;
        Ok(Seq::new(self.inner.serialize_tuple(len)?, self.ctx))
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.array()?;
        Ok(Seq::new(
            self.inner.serialize_tuple_struct(name, len)?,
            self.ctx,
        ))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.scalar(|| Captured::Other("an object"))?;
        Ok(Seq::new(
            self.inner
                .serialize_tuple_variant(name, index, variant, len)?,
            self.ctx,
        ))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.open(None)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.open(Some(name))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.scalar(|| Captured::Other("an object"))?;
        Ok(Variant {
            inner: self
                .inner
                .serialize_struct_variant(name, index, variant, len)?,
            ctx: self.ctx,
        })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

impl<S: Serializer> Shaper<'_, S> {
    /// Writes a union member in the older form of its member row, and reports it.
    #[cold]
    #[inline(never)]
    fn older<T: Serialize + ?Sized>(
        self,
        row: &'static MemberRow,
        form: OlderForm,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let v = self.ctx.version;
        let copy = serde_json::to_value(value).map_err(ser::Error::custom)?;
        let older = match rewrite(form, copy) {
            Ok(older) => older,
            Err(why) => {
                let err = EmitError::new(
                    EmitErrorKind::NotExpressible,
                    v,
                    format!(
                        "{} cannot be sent at {v} as its {}: {why}",
                        row.member,
                        form.definition()
                    ),
                    Some(Cause::Member(row)),
                );
                return Err(self.ctx.fail(err, None));
            }
        };
        if self.ctx.track() {
            self.ctx.note(
                NoteKind::Rewritten,
                None,
                Cause::Member(row),
                Some(older.clone()),
            );
        }
        // The older form's own rows apply to what is written.
        Wrap {
            value: &older,
            ctx: self.ctx,
            slot: Slot::Typed(Some(form.superset_type())),
        }
        .serialize(self.inner)
    }
}

/// The refusal of a member a revision has no form for: the member, its union, and the revision
/// it arrived in.
fn refused_member(row: &'static MemberRow, v: ProtocolVersion) -> EmitError {
    let arrived = row
        .arrived()
        .map_or_else(|| "a later revision".to_owned(), |a| a.to_string());
    EmitError::new(
        EmitErrorKind::NotExpressible,
        v,
        format!(
            "{} (a {} member) cannot be sent at {v}: it arrived in {arrived}; {}",
            row.member, row.union, row.reason
        ),
        Some(Cause::Member(row)),
    )
}

/// `value` (a member's JSON) in older form `form`, or why it has none.
pub(crate) fn rewrite(form: OlderForm, value: Value) -> Result<Value, String> {
    match form {
        OlderForm::EnumNames => {
            let Value::Object(map) = value else {
                return Err("it is not an object".to_owned());
            };
            if map.contains_key("enum") || map.contains_key("enumNames") {
                return Err("it already has enum or enumNames keys".to_owned());
            }
            if !map.contains_key("oneOf") {
                return Err("it has no oneOf choices".to_owned());
            }
            let mut out = serde_json::Map::with_capacity(map.len() + 1);
            for (k, x) in map {
                if k != "oneOf" {
                    out.insert(k, x);
                    continue;
                }
                let Value::Array(options) = x else {
                    return Err("oneOf is not an array".to_owned());
                };
                let mut values = Vec::with_capacity(options.len());
                let mut titles = Vec::with_capacity(options.len());
                for o in options {
                    match (
                        o.get("const"),
                        o.get("title"),
                        o.as_object().map(|m| m.len()),
                    ) {
                        (Some(Value::String(c)), Some(Value::String(t)), Some(2)) => {
                            values.push(Value::String(c.clone()));
                            titles.push(Value::String(t.clone()));
                        }
                        _ => return Err(format!("choice {o} is not a const with a title")),
                    }
                }
                out.insert("enum".to_owned(), Value::Array(values));
                out.insert("enumNames".to_owned(), Value::Array(titles));
            }
            Ok(Value::Object(out))
        }
    }
}

/// Arrays and tuples: every element is a nested value.
pub(crate) struct Seq<'c, C> {
    inner: C,
    ctx: &'c Ctx,
    index: usize,
}

impl<'c, C> Seq<'c, C> {
    fn new(inner: C, ctx: &'c Ctx) -> Self {
        Seq {
            inner,
            ctx,
            index: 0,
        }
    }

    fn element<T: Serialize + ?Sized, E>(
        &mut self,
        value: &T,
        write: impl FnOnce(&mut C, &Wrap<'_, 'c, T>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.ctx.push(PathSegment::Index(self.index));
        write(
            &mut self.inner,
            &Wrap {
                value,
                ctx: self.ctx,
                slot: Slot::Typed(None),
            },
        )?;
        self.ctx.pop();
        self.index += 1;
        Ok(())
    }
}

impl<C: SerializeSeq> SerializeSeq for Seq<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.element(value, |c, w| c.serialize_element(w))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTuple> SerializeTuple for Seq<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.element(value, |c, w| c.serialize_element(w))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleStruct> SerializeTupleStruct for Seq<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.element(value, |c, w| c.serialize_field(w))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

impl<C: SerializeTupleVariant> SerializeTupleVariant for Seq<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.element(value, |c, w| c.serialize_field(w))
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// Externally tagged struct variants (not used by the MCP model, forwarded with nested values).
pub(crate) struct Variant<'c, C> {
    inner: C,
    ctx: &'c Ctx,
}

impl<C: SerializeStructVariant> SerializeStructVariant for Variant<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        self.inner.serialize_field(
            key,
            &Wrap {
                value,
                ctx: self.ctx,
                slot: Slot::Typed(None),
            },
        )
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// Objects: structs and maps.
///
/// The generic part (per inner serializer and per member value type) only writes; what to do
/// with each member is decided by [`ObjState`], which is compiled once. That keeps the code that
/// runs per member small, which matters more than instruction counts here: every model type's
/// `Serialize` is instantiated for the emitter as well as for plain `serde_json`.
pub(crate) struct Obj<'c, C> {
    inner: C,
    state: ObjState<'c>,
}

/// Everything about an object being written except the inner serializer.
struct ObjState<'c> {
    ctx: &'c Ctx,
    owner: Option<&'static OwnerInfo>,
    role: Role,
    /// Whether keys must be read (an owner with rows, a role, or path tracking).
    inspect: bool,
    /// Whether members are written unwrapped (the subtree needs no shaping, see [`clean`]).
    through: bool,
    /// Members whose values need no shaping at some revisions (written unwrapped there).
    fields: Option<&'static clean::FieldTable>,
    flags: u32,
    rows_seen: u64,
    count: usize,
    pending: Option<Text>,
}

/// What to do with one member of an object.
enum Member {
    /// Leave it out (a strip row; already noted).
    Skip,
    /// Write its value as plain serde writes it; `Slot` is checked afterwards.
    Verbatim(Slot),
    /// Write its value through the shaping serializer in `Slot`.
    Walk(Slot),
    /// Elicitation answers, checked as JSON values ([`ObjState::answers`]).
    Answers(&'static LedgerRow, RefuseWhen),
}

impl ObjState<'_> {
    fn refused(
        &self,
        kind: EmitErrorKind,
        message: String,
        cause: Cause,
        key: Option<&str>,
    ) -> Refused {
        self.ctx.record(
            EmitError::new(kind, self.ctx.version, message, Some(cause)),
            key,
        )
    }

    /// Whether the value of member `key` needs no shaping (`fields` is only set for objects
    /// whose role reads no members).
    #[inline]
    fn member_is_clean(&self, key: &str) -> bool {
        self.fields
            .is_some_and(|t| t.clean_bits(key) & self.ctx.clean_bit != 0)
    }

    /// What to do with member `key`: its ledger row, its edge and the object's role decide.
    /// For members that are written, the key is pushed on the path ([`ObjState::after`] pops it).
    fn decide(&mut self, key: &str) -> Result<Member, Refused> {
        let v = self.ctx.version;
        self.count += 1;
        let mut slot = Slot::Typed(None);
        let mut opaque = false;
        if let Some(plan) = self.owner.and_then(|o| o.plan(key)) {
            if let Some((i, row)) = plan.rows[v.index()] {
                match row.action {
                    Action::Strip => {
                        self.ctx
                            .note(NoteKind::Stripped, Some(key), Cause::Ledger(row), None);
                        return Ok(Member::Skip);
                    }
                    // A strict emission writes only what the revision declares.
                    Action::Pass if self.ctx.strict => {
                        self.ctx
                            .note(NoteKind::Stripped, Some(key), Cause::Ledger(row), None);
                        return Ok(Member::Skip);
                    }
                    Action::Pass => {
                        self.ctx
                            .note(NoteKind::Passed, Some(key), Cause::Ledger(row), None);
                        opaque = true;
                    }
                    Action::Refuse(RefuseWhen::Present) => {
                        return Err(self.ctx.refused_row(row, Some(key)));
                    }
                    Action::Refuse(RefuseWhen::Absent) => self.rows_seen |= 1 << i,
                    Action::Refuse(RefuseWhen::Array) => slot = Slot::RefuseArray(row),
                    Action::Refuse(
                        when @ (RefuseWhen::NotPrimitiveValue
                        | RefuseWhen::NotPrimitiveOrStringsValue),
                    ) => {
                        return Ok(Member::Answers(row, when));
                    }
                    Action::Refuse(
                        when @ (RefuseWhen::NotObject | RefuseWhen::NotObjectSchema),
                    ) => {
                        // Checked while it is written (see `Role::Checked`).
                        slot = Slot::Shape(row, when);
                    }
                }
            }
            if !opaque && !matches!(slot, Slot::Shape(..)) {
                if plan.opaque {
                    opaque = true;
                } else if let Some(child) = plan.edge {
                    slot = Slot::Typed(Some(child));
                }
            }
        }
        let shaped = self.role.shaped(key);
        match self.role {
            Role::Plain | Role::Counted => {}
            Role::Checked(_, when) => {
                if when == RefuseWhen::NotObjectSchema && key == "type" {
                    self.flags |= F_SCHEMA_TYPE;
                    slot = Slot::Capture;
                } else {
                    opaque = true;
                }
            }
            // A member the role checks (and injects when absent): captured and judged by its row.
            _ if let Some((i, _)) = shaped => {
                self.flags |= shaped_flag(i);
                slot = Slot::Capture;
            }
            Role::Result2026(_) => match key {
                "inputRequests" => slot = Slot::Role(Role::Counted),
                "requestState" => self.flags |= F_REQUEST_STATE,
                _ => {}
            },
            Role::ClientRequest2026 => {
                if key == "params" {
                    self.flags |= F_PARAMS;
                    slot = Slot::Role(Role::ClientParams);
                }
            }
            Role::ClientParams => {
                if key == "_meta" {
                    self.flags |= F_META;
                    slot = Slot::Role(Role::ClientMeta);
                }
            }
            Role::ClientMeta => {
                let s6 = Cause::Shaping(ledger::shaping("S6"));
                let expect = self.owner.and_then(|o| o.edge(key));
                match key {
                    CLIENT_CAPABILITIES_KEY => {
                        self.flags |= F_CAPABILITIES;
                        slot = Slot::Object(expect, s6);
                    }
                    CLIENT_INFO_KEY => slot = Slot::Object(expect, s6),
                    _ => opaque = true,
                }
            }
        }
        if !opaque && matches!(slot, Slot::Typed(_)) && self.member_is_clean(key) {
            opaque = true;
        }
        if !opaque && key == "_meta" && !matches!(slot, Slot::Role(Role::ClientMeta)) {
            // `_meta` is open metadata at every owner; only a 2026-07-28 client request's is typed.
            opaque = true;
        }
        self.ctx.push_key(key);
        Ok(if opaque {
            Member::Verbatim(slot)
        } else {
            Member::Walk(slot)
        })
    }

    /// After member `key` was written in `slot`: pops its path segment and checks a captured
    /// value.
    #[inline]
    fn after(&mut self, key: &str, slot: Slot) -> Result<(), Refused> {
        self.ctx.pop();
        if matches!(slot, Slot::Capture | Slot::Role(Role::Counted)) {
            self.check_captured(key)?;
        }
        Ok(())
    }

    /// Elicitation answers: strings, integers, booleans (and string arrays where allowed);
    /// `null` answers are left out and reported as stripped. Returns the answers to write.
    fn answers(
        &mut self,
        key: &str,
        copy: Value,
        row: &'static LedgerRow,
        when: RefuseWhen,
    ) -> Result<serde_json::Map<String, Value>, Refused> {
        let v = self.ctx.version;
        let Value::Object(map) = copy else {
            return Err(self.refused(
                EmitErrorKind::NotExpressible,
                format!("{}.{} must be an object", row.owner, row.field),
                Cause::Ledger(row),
                Some(key),
            ));
        };
        let mut kept = serde_json::Map::new();
        self.ctx.push_key(key);
        for (k, x) in map {
            let ok = match when.answer(&x) {
                AnswerVerdict::Strip => {
                    self.ctx
                        .note(NoteKind::Stripped, Some(&k), Cause::Ledger(row), None);
                    continue;
                }
                AnswerVerdict::Keep => true,
                AnswerVerdict::Refuse => false,
            };
            if !ok {
                return Err(self.refused(
                    EmitErrorKind::NotExpressible,
                    format!(
                        "answer {x} cannot be sent at {v}: {}.{} {}",
                        row.owner, row.field, row.reason
                    ),
                    Cause::Ledger(row),
                    Some(&k),
                ));
            }
            kept.insert(k, x);
        }
        self.ctx.pop();
        Ok(kept)
    }

    fn check_captured(&mut self, key: &str) -> Result<(), Refused> {
        let captured = self.ctx.take_captured();
        if let Role::Checked(row, _) = self.role {
            return match captured {
                Captured::Str(s) if s.as_str() == "object" => Ok(()),
                _ => Err(self.ctx.refused_row(row, None)),
            };
        }
        if let Some((_, member)) = self.role.shaped(key) {
            let value = captured.as_scalar();
            if member.accepts.admits(value, self.role.own_result_type()) {
                return Ok(());
            }
            return Err(self.refused(
                EmitErrorKind::InvalidValue,
                member.refusal(value, self.role),
                Cause::Shaping(ledger::shaping(member.rule)),
                Some(key),
            ));
        }
        if let (Role::Result2026(_), "inputRequests", Captured::Entries(n)) =
            (self.role, key, &captured)
            && *n > 0
        {
            self.flags |= F_INPUT_REQUESTS;
        }
        Ok(())
    }

    fn missing(&self, message: String, rule: &str, key: &str) -> Refused {
        self.refused(
            EmitErrorKind::MissingRequired,
            message,
            Cause::Shaping(ledger::shaping(rule)),
            Some(key),
        )
    }

    /// Whether the end of the object checks or injects anything (a role, or rows that must be
    /// present at this revision).
    #[inline]
    fn has_closing(&self) -> bool {
        self.role != Role::Plain
            || self
                .owner
                .is_some_and(|o| o.absent[self.ctx.version.index()] != 0)
    }
}

impl<C: SerializeMap> Obj<'_, C> {
    /// Writes member `key` as [`ObjState::decide`] says.
    #[inline]
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), C::Error> {
        match self.state.decide(key) {
            Ok(Member::Skip) => Ok(()),
            Ok(Member::Verbatim(slot)) => {
                self.inner.serialize_entry(key, value)?;
                self.state.after(key, slot).map_err(Refused::into_error)
            }
            Ok(Member::Walk(slot)) => {
                self.inner.serialize_entry(
                    key,
                    &Wrap {
                        value,
                        ctx: self.state.ctx,
                        slot,
                    },
                )?;
                self.state.after(key, slot).map_err(Refused::into_error)
            }
            Ok(Member::Answers(row, when)) => self.answers(key, value, row, when),
            Err(refused) => Err(refused.into_error()),
        }
    }

    /// Writes elicitation answers (rare: kept out of line, away from the members' hot path).
    #[cold]
    #[inline(never)]
    fn answers<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
        row: &'static LedgerRow,
        when: RefuseWhen,
    ) -> Result<(), C::Error> {
        let copy = serde_json::to_value(value).map_err(ser::Error::custom)?;
        let kept = self
            .state
            .answers(key, copy, row, when)
            .map_err(Refused::into_error)?;
        self.inner.serialize_entry(key, &kept)
    }

    /// A member written as a nested value of unknown type.
    #[inline]
    fn nested<K: Serialize + ?Sized, T: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &T,
    ) -> Result<(), C::Error> {
        self.state.count += 1;
        self.inner.serialize_entry(
            key,
            &Wrap {
                value,
                ctx: self.state.ctx,
                slot: Slot::Typed(None),
            },
        )
    }

    /// Writes the members the object's role injects that were not written, and reports them
    /// (when the emission keeps a report).
    fn inject_absent(&mut self) -> Result<(), C::Error> {
        let (role, v) = (self.state.role, self.state.ctx.version);
        for (i, member) in role.injections() {
            if self.state.flags & shaped_flag(i) != 0 {
                continue;
            }
            let Some(value) = member.injected_scalar(v, role) else {
                continue;
            };
            self.inner.serialize_entry(member.key, &value)?;
            if self.state.ctx.track() {
                self.state.ctx.note(
                    NoteKind::Injected,
                    Some(member.key),
                    Cause::Shaping(ledger::shaping(member.rule)),
                    Some(value.into()),
                );
            }
        }
        Ok(())
    }

    /// Ends the object: the checks and injections of its end (see [`ObjState::has_closing`]).
    fn finish(mut self) -> Result<C::Ok, C::Error> {
        if self.state.through || !self.state.has_closing() {
            return self.inner.end();
        }
        let v = self.state.ctx.version;
        if let Some(o) = self.state.owner {
            let missing = o.absent[v.index()] & !self.state.rows_seen;
            if missing != 0 {
                let row = o.rows[missing.trailing_zeros() as usize];
                return Err(self
                    .state
                    .refused(
                        EmitErrorKind::MissingRequired,
                        format!("{}.{} is missing: {}", row.owner, row.field, row.reason),
                        Cause::Ledger(row),
                        Some(row.field),
                    )
                    .into_error());
            }
        }
        match self.state.role {
            Role::Result2026(shape) => {
                self.inject_absent()?;
                if shape.result_type == "input_required"
                    && self.state.flags & (F_INPUT_REQUESTS | F_REQUEST_STATE) == 0
                {
                    return Err(self.state.missing(
                        "an InputRequiredResult needs a non-empty inputRequests or a requestState"
                            .to_owned(),
                        "S5",
                        "inputRequests",
                    )
                    .into_error());
                }
            }
            Role::ClientRequest2026 if self.state.flags & F_PARAMS == 0 => {
                return Err(self.state.missing(
                    format!(
                        "a client request at {v} needs params._meta with {CLIENT_CAPABILITIES_KEY}"
                    ),
                    "S4",
                    "params",
                )
                    .into_error());
            }
            Role::ClientParams if self.state.flags & F_META == 0 => {
                return Err(self
                    .state
                    .missing(
                        format!(
                            "a client request at {v} needs _meta with {CLIENT_CAPABILITIES_KEY}"
                        ),
                        "S4",
                        "_meta",
                    )
                    .into_error());
            }
            Role::ClientMeta => {
                if self.state.flags & F_CAPABILITIES == 0 {
                    return Err(self.state.missing(
                        format!("a client request at {v} needs _meta {CLIENT_CAPABILITIES_KEY} (never synthesized)"),
                        "S4",
                        CLIENT_CAPABILITIES_KEY,
                    )
                    .into_error());
                }
                self.inject_absent()?;
            }
            Role::Counted => self.state.ctx.capture(Captured::Entries(self.state.count)),
            Role::Checked(row, RefuseWhen::NotObjectSchema)
                if self.state.flags & F_SCHEMA_TYPE == 0 =>
            {
                return Err(self.state.ctx.refuse_row(row, None));
            }
            _ => {}
        }
        self.inner.end()
    }
}

impl Captured {
    /// The captured scalar as a check sees it.
    fn as_scalar(&self) -> Scalar<'_> {
        match self {
            Captured::Nothing => Scalar::Other("nothing"),
            Captured::Str(s) => Scalar::Str(s.as_str()),
            Captured::Int(n) => Scalar::Int(*n),
            Captured::Float(f) => Scalar::Float(*f),
            Captured::Entries(_) => Scalar::Other("an object"),
            Captured::Other(what) => Scalar::Other(what),
        }
    }
}

impl<C: SerializeMap> SerializeMap for Obj<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), C::Error> {
        if self.state.through {
            return self.inner.serialize_key(key);
        }
        if self.state.inspect {
            match key_text(key) {
                Some(k) => {
                    self.state.pending = Some(k);
                    Ok(())
                }
                None => self.inner.serialize_key(key),
            }
        } else {
            self.state.count += 1;
            self.inner.serialize_key(key)
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        if self.state.through {
            return self.inner.serialize_value(value);
        }
        match self.state.pending.take() {
            Some(k) => self.entry(k.as_str(), value),
            None => self.inner.serialize_value(&Wrap {
                value,
                ctx: self.state.ctx,
                slot: Slot::Typed(None),
            }),
        }
    }

    fn serialize_entry<K: Serialize + ?Sized, T: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &T,
    ) -> Result<(), C::Error> {
        if self.state.through {
            return self.inner.serialize_entry(key, value);
        }
        if let (Role::Checked(..), false) = (self.state.role, self.state.ctx.track())
            && with_key(key, |k| k != "type") == Some(true)
        {
            // Only the root `type` of a checked object is read; the rest is written verbatim.
            self.state.count += 1;
            return self.inner.serialize_entry(key, value);
        }
        if self.state.inspect
            && let Some(done) = with_key(key, |k| self.entry(k, value))
        {
            return done;
        }
        self.nested(key, value)
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.finish()
    }
}

impl<C: SerializeMap> SerializeStruct for Obj<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        if self.state.through {
            self.inner.serialize_entry(key, value)
        } else if self.state.inspect {
            self.entry(key, value)
        } else if key == "_meta" || self.state.member_is_clean(key) {
            self.state.count += 1;
            self.inner.serialize_entry(key, value)
        } else {
            self.nested(key, value)
        }
    }

    fn skip_field(&mut self, _key: &'static str) -> Result<(), C::Error> {
        Ok(())
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.finish()
    }
}
