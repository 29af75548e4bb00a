//! The emitter: the one code path behind every output of the boundary ([`super::serialize_for`],
//! [`super::serialize_for_vec`], [`super::serialize_for_report`] and their `_with` forms).
//!
//! Every model type describes itself ([`crate::model::describe`]: a struct its members in serde's
//! order, a union the member it holds); the emitter walks that description ([`EmitWalker`] is its
//! [`Walker`]) and asks each struct's [`Plan`] what to do with each member.
//! There is one plan per type, revision, [`Mode`] and [`Reached`] the value is reached, built once
//! from the ledger's tables and resolved down to one [`MemberStep`] per field:
//! - leave it out (a strip row, or a pass row in a strict emission);
//! - refuse it (a row that refuses its presence);
//! - write it as plain serde writes it;
//! - or hand it to its own type's writer (reached as [`Reached`] says);
//!
//! and, where a row or a 2026-07-28 role asks, a [`Check`] of the value and a flag the end of
//! the object looks for (required members, the role's injections). JSON the model holds as
//! `serde_json` values is walked by the same decisions, typed by the edge that leads to it.
//!
//! A refusal travels out of the walk as a [`Refused`], gathering its JSON path on the way (the
//! success path pays nothing for it). The writers are generic over a [`Sink`]: compact JSON text
//! ([`Bytes`]), a `serde_json::Value` ([`Values`]) or a value with its report ([`Reporting`],
//! which alone tracks the current path; the other sinks compile the report away).

use std::borrow::Cow;
use std::fmt::Arguments;
use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};

use super::body::{BodyInfo, BodyKind};
use super::clean::{self, FieldTable};
use super::error::{EmitError, EmitErrorKind, JsonPath, PathSegment};
use super::json::JsonWriter;
use super::ledger::{
    self, Action, AnswerVerdict, Cause, LedgerRow, MemberAction, MemberRow, OlderForm, OwnerInfo,
    RefuseWhen, TypeRow, member_rows_at,
};
use super::names;
use super::report::NoteKind;
use super::revs::Revisions;
use super::shaping::{F_NEEDED, Scalar, ShapedMember, ShapingRole, shaped_flag};
use crate::ProtocolVersion;
use crate::model::describe::{Describe, Field, Json, Members, Shape, Struct, Union, Walker};
use crate::model::meta::keys;

mod sink;
pub use sink::{Bytes, Reporting, Sink, Values};

/// A refusal on its way out of the walk: the error, and the path from the refused value out to
/// the body (innermost segment first), which becomes the error's JSON path at the top.
#[derive(Debug)]
pub struct Refused(Box<(EmitError, Vec<PathSegment>)>);

impl Refused {
    /// A refusal of the value being written (its revision is filled in at the top).
    #[cold]
    #[inline(never)]
    pub fn new(kind: EmitErrorKind, message: impl Into<String>, cause: Option<Cause>) -> Refused {
        let error = EmitError::new(kind, ProtocolVersion::LATEST, message, cause);
        Refused(Box::new((error, Vec::new())))
    }

    /// The refusal by ledger row `row` of its member, which `is` as the row says it may not be.
    #[cold]
    #[inline(never)]
    fn row(row: &'static LedgerRow, kind: EmitErrorKind, is: Arguments<'_>) -> Refused {
        let message = format!("{}.{} {is}: {}", row.owner, row.field, row.reason);
        Refused::new(kind, message, Some(Cause::Ledger(row)))
    }

    /// A value of type `t`, which does not exist inside a body at `version`.
    #[cold]
    #[inline(never)]
    fn absent(t: &'static TypeRow, version: ProtocolVersion) -> Refused {
        let message = format!("{} does not exist at {version}: {}", t.name, t.reason);
        Refused::new(EmitErrorKind::TypeAbsent, message, Some(Cause::Type(t)))
    }

    /// A refusal by 2026-07-28 shaping rule `rule`.
    #[cold]
    #[inline(never)]
    fn shaping(kind: EmitErrorKind, message: impl Into<String>, rule: &str) -> Refused {
        Refused::new(kind, message, Some(Cause::Shaping(ledger::shaping(rule))))
    }

    /// The same refusal, one member further out.
    #[cold]
    #[inline(never)]
    pub fn at_key(mut self, key: &str) -> Refused {
        self.0.1.push(PathSegment::Key(key.to_owned()));
        self
    }

    /// The same refusal, one array item further out.
    #[cold]
    #[inline(never)]
    fn at_index(mut self, index: usize) -> Refused {
        self.0.1.push(PathSegment::Index(index));
        self
    }

    /// The error, located, for a body of kind `body` emitted at `version`.
    #[cold]
    pub fn into_error(self, version: ProtocolVersion, body: BodyKind) -> EmitError {
        let (mut error, mut outward) = *self.0;
        outward.reverse();
        error.path = JsonPath::from_segments(outward);
        error.version = version;
        error.body.get_or_insert(body);
        error
    }
}

impl From<EmitError> for Refused {
    /// A located error of a body inside an envelope, on its way out of the envelope.
    fn from(error: EmitError) -> Refused {
        let outward = error.path.segments().iter().rev().cloned().collect();
        Refused(Box::new((error, outward)))
    }
}

/// What an emission does beyond its revision: it selects the plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No report, not strict: subtrees that need nothing are written unlooked.
    Fast,
    /// With a report: subtrees with members to report are walked.
    Report,
    /// Strict (with or without a report): `pass` rows strip.
    Strict,
}

/// How a value is reached, which decides whose ledger rows apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// With no expected type (an array item, a member without an edge): a struct's own rows
    /// apply, or none for a struct serde writes as a map (it has no name then).
    Nested,
    /// Where the parent's edge names type `.0`: a struct of that very type gets its rows either
    /// way; JSON, a map or a struct with no rows of its own gets that type's.
    Edge(&'static str),
    /// As the whole message body.
    Body,
    /// As the `params` of a 2026-07-28 client request.
    ClientParams,
    /// As the `_meta` of those params.
    ClientMeta,
}

/// One emission: the output, and what the plans depend on (read through `Deref`).
pub struct Emitter<'s, S> {
    sink: &'s mut S,
    emission: Emission,
}

/// What a plan depends on in an emission: the revision, the mode and the body.
#[derive(Clone, Copy)]
pub struct Emission {
    version: ProtocolVersion,
    mode: Mode,
    /// The [`clean::clean_bit`] of the revision and mode.
    bit: u16,
    body: BodyInfo,
}

impl<S> std::ops::Deref for Emitter<'_, S> {
    type Target = Emission;

    #[inline]
    fn deref(&self) -> &Emission {
        &self.emission
    }
}

/// What a plan reads of a struct type ([`Struct`]'s constants).
#[derive(Clone, Copy)]
struct Layout {
    name: &'static str,
    flat: bool,
    fields: &'static [Field],
}

/// Writes message body `body` (which is `info`) at `version` into `sink`: the revision's body
/// check, then the body's own writer.
pub(crate) fn emit_body<B: Describe + ?Sized, S: Sink>(
    body: &B,
    info: BodyInfo,
    to: super::EmitTarget,
    sink: &mut S,
) -> Result<(), EmitError> {
    let version = to.version;
    super::check_body(info, version)?;
    let mode = match (to.options.is_strict(), S::REPORTS) {
        (true, _) => Mode::Strict,
        (false, true) => Mode::Report,
        (false, false) => Mode::Fast,
    };
    let bit = match walk_everything() {
        true => 0,
        false => clean::clean_bit(version, mode != Mode::Fast),
    };
    let emission = Emission {
        version,
        mode,
        bit,
        body: info,
    };
    let mut e = Emitter { sink, emission };
    body.describe(&mut EmitWalker {
        e: &mut e,
        how: Reached::Body,
    })
    .map_err(|r| r.into_error(version, info.kind))
}

#[cfg(test)]
thread_local! {
    /// Set by tests on their thread: walk every object, even those [`clean`] says need nothing,
    /// to compare both emissions.
    pub(crate) static WALK_EVERYTHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether every object is walked (only ever in tests).
#[inline]
fn walk_everything() -> bool {
    #[cfg(test)]
    return WALK_EVERYTHING.get();
    #[cfg(not(test))]
    false
}

/// Writes a body that needs no shaping (an untyped interior, a JSON-RPC error) as plain serde
/// writes it, after the revision's body check.
pub(crate) fn emit_plain<B: Serialize + ?Sized, S: Sink>(
    body: &B,
    info: BodyInfo,
    version: ProtocolVersion,
    sink: &mut S,
) -> Result<(), EmitError> {
    super::check_body(info, version)?;
    sink.plain(body)
        .map_err(|r| r.into_error(version, info.kind))
}

impl<S: Sink> Emitter<'_, S> {
    /// Writes `value` as plain serde writes it.
    #[inline]
    pub fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.sink.plain(value)
    }

    /// Opens an object of about `members` members.
    #[inline]
    fn open(&mut self, members: usize) -> Open {
        self.sink.open_object(members);
        Open::default()
    }
}

/// How a member is written.
#[derive(Debug, Clone, Copy)]
enum Write {
    /// Left out by this row.
    Strip(&'static LedgerRow),
    /// Refused by this row: the member may not be present.
    Refuse(&'static LedgerRow),
    /// As plain serde writes it.
    Plain,
    /// By its own type's writer, reached as [`Reached`] says.
    Walk(Reached),
}

/// What is checked of a member: its value before it is written, or a scalar as it is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Nothing.
    None,
    /// A scalar of a 2026-07-28 role, as written.
    Scalar(ScalarCheck),
    /// What a refusing ledger row asks of the value: not an array ([`RefuseWhen::Array`]), a
    /// JSON object (whose root `type` is `"object"` for [`RefuseWhen::NotObjectSchema`]), or
    /// elicitation answers, each judged by [`RefuseWhen::answer`].
    Row(&'static LedgerRow, RefuseWhen),
    /// A JSON object (the client identity in a 2026-07-28 request's `_meta`).
    MetaObject,
    /// An object whose entries are counted; the member's flag is set only when it has some (an
    /// input-required result's `inputRequests`).
    Entries,
}

/// A scalar member a 2026-07-28 role checks as it is written: its row of
/// [`SHAPED_MEMBERS`](super::shaping::SHAPED_MEMBERS) and the role.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalarCheck {
    member: &'static ShapedMember,
    role: ShapingRole,
}

impl ScalarCheck {
    /// Whether `value` passes.
    pub fn passes(self, value: Scalar<'_>) -> bool {
        self.member
            .accepts
            .admits(value, self.role.own_result_type())
    }

    /// Whether `value` passes, or its refusal.
    pub fn judge(self, value: Scalar<'_>) -> Result<(), Refused> {
        if self.passes(value) {
            return Ok(());
        }
        let message = self.member.refusal(value, self.role);
        Err(Refused::shaping(
            EmitErrorKind::InvalidValue,
            message,
            self.member.rule,
        ))
    }
}

/// What to do with one member.
#[derive(Debug, Clone, Copy)]
struct MemberStep {
    write: Write,
    /// Set on the object when the member is written (a role's flags).
    flag: u32,
    /// The bit of the owner row that requires the member, set on the object when it is written.
    seen: u64,
    check: Check,
    /// The `pass` row by which it is written although the revision does not declare it.
    passed: Option<&'static LedgerRow>,
}

impl MemberStep {
    const fn just(write: Write) -> MemberStep {
        MemberStep {
            write,
            flag: 0,
            seen: 0,
            check: Check::None,
            passed: None,
        }
    }
}

/// Whose rows and which role decide the members of an object.
#[derive(Debug, Clone, Copy)]
struct Rules {
    owner: Option<&'static OwnerInfo>,
    /// Members whose values need no shaping at some revisions (objects without a role).
    table: Option<&'static FieldTable>,
    role: ShapingRole,
}

/// Everything a struct's writer needs at one revision, in one mode, reached one way.
#[derive(Debug, Clone)]
struct Plan {
    /// The type does not exist at this revision: its writer refuses.
    absent: Option<&'static TypeRow>,
    /// The whole value needs no shaping: written as plain serde writes it.
    through: bool,
    /// How many members the object may have (written members and injections; a flattened
    /// map's entries aside).
    members: usize,
    acts: Box<[MemberStep]>,
    /// The owner rows (bits of [`OwnerInfo::rows`]) that require their member at this revision.
    required: u64,
    /// The body it was built for, when it is a body's plan.
    body: Option<BodyInfo>,
    rules: Rules,
}

/// The ways a struct's plans are cached by: [`Reached::Nested`], its own [`Reached::Edge`], [`Reached::Body`]
/// and [`Reached::ClientParams`].
const WAYS: usize = 4;

/// The plans of every way and revision, for one mode.
type Slots = [OnceLock<Plan>; WAYS * ProtocolVersion::COUNT];

/// A struct type's plans, built on first use.
#[derive(Default)]
struct Plans {
    fast: Slots,
    /// The report and strict modes' plans (rarer: made when first needed).
    other: OnceLock<Box<[Slots; 2]>>,
}

impl Plans {
    /// The plan of the struct type laid out as `layout`, reached as `how` in emission `e`:
    /// cached, or made for this value.
    #[inline]
    fn get(&self, e: Emission, layout: Layout, how: Reached) -> Cow<'_, Plan> {
        let build = || Plan::build(how, layout, e);
        let way = match how {
            _ if walk_everything() => return Cow::Owned(build()),
            Reached::Nested => 0,
            Reached::Edge(c) if c == layout.name => 1,
            Reached::Body => 2,
            Reached::ClientParams => 3,
            Reached::Edge(_) | Reached::ClientMeta => return Cow::Owned(build()),
        };
        let slots = match e.mode {
            Mode::Fast => &self.fast,
            Mode::Report => &self.other.get_or_init(Default::default)[0],
            Mode::Strict => &self.other.get_or_init(Default::default)[1],
        };
        let plan = slots[way * ProtocolVersion::COUNT + e.version.index()].get_or_init(build);
        // A body plan is built for one body (its kind and method decide the role); a type is
        // always the same body, but a plan never serves another.
        if how == Reached::Body && plan.body != Some(e.body) {
            return Cow::Owned(build());
        }
        Cow::Borrowed(plan)
    }
}

impl Plan {
    /// Owner, role, the type's absence and whether the subtree is clean, for a struct laid out
    /// as `layout` reached as `how`; then each field resolved with [`decide`]. One function for
    /// every struct type and sink: it reads only the type's [`Layout`] and the [`Emission`].
    #[inline(never)]
    fn build(how: Reached, layout: Layout, e: Emission) -> Plan {
        let Emission {
            version: v,
            mode,
            bit,
            body,
        } = e;
        let Layout { name, flat, fields } = layout;
        let own = names::known(name);
        // serde names a struct unless it writes it as a map; only a named struct's type row and
        // rows apply by name.
        let named = (!flat).then_some(own);
        let (owner, absence_checked, through, table) = match how {
            Reached::Nested if flat => (None, false, false, None),
            Reached::Nested => (own.owner, true, own.is_clean(bit), own.fields),
            // Its own rows: it is the expected type, or a named struct with rows of its own.
            Reached::Edge(c) if c == name || named.is_some_and(|n| n.owner.is_some()) => {
                (own.owner, !flat, own.is_clean(bit), own.fields)
            }
            // The expected type's rows.
            Reached::Edge(c) => {
                let expected = names::known(c);
                (
                    expected.owner,
                    false,
                    expected.is_clean(bit) && named.is_none_or(|n| n.is_clean(bit)),
                    if flat { expected.fields } else { None },
                )
            }
            Reached::ClientParams => (if flat { None } else { own.owner }, !flat, false, None),
            Reached::ClientMeta => (names::known("RequestMetaObject").owner, false, false, None),
            Reached::Body => {
                let known = names::known(body.type_name);
                let same = body.type_name == name;
                (
                    known.owner.or(named.and_then(|n| n.owner)),
                    false,
                    known.is_clean(bit) && named.is_none_or(|n| n.is_clean(bit)),
                    if same { known.fields } else { None },
                )
            }
        };
        let absent = owner
            .and_then(|o| o.ty)
            .filter(|t| absence_checked && !t.nested.contains(v));
        let role = match how {
            Reached::Body => ShapingRole::of_body(body, owner, v),
            Reached::ClientParams => ShapingRole::ClientParams,
            Reached::ClientMeta => ShapingRole::ClientMeta,
            _ => ShapingRole::Plain,
        };
        let rules = Rules {
            owner,
            table: table.filter(|_| role == ShapingRole::Plain),
            role,
        };
        let acts: Box<[MemberStep]> = fields
            .iter()
            .map(|f| decide(rules, f.key, f.shape, v, bit, mode))
            .collect();
        let required = owner.map_or(0, |o| o.absent[v.index()]);
        let injected = role.injections().count();
        Plan {
            absent,
            through: through && role == ShapingRole::Plain && required == 0,
            members: acts
                .iter()
                .filter(|a| !matches!(a.write, Write::Strip(_)))
                .count()
                + injected,
            acts,
            required,
            body: (how == Reached::Body).then_some(body),
            rules,
        }
    }
}

/// What to do with member `key` (of shape `shape`) of an object whose members `rules` decide,
/// at revision `v` in `mode` (`bit`: its clean bit).
fn decide(
    rules: Rules,
    key: &str,
    shape: Shape,
    v: ProtocolVersion,
    bit: u16,
    mode: Mode,
) -> MemberStep {
    let Rules { owner, table, role } = rules;
    let mut opaque = false;
    let mut edge = None;
    let mut seen = 0;
    let mut passed = None;
    // What the row asks of the value.
    let mut row_check = Check::None;
    if let Some(plan) = owner.and_then(|o| o.plans.get(key)) {
        if let Some((i, row)) = plan.rows[v.index()] {
            match row.action {
                Action::Pass if mode != Mode::Strict => {
                    opaque = true;
                    passed = Some(row);
                }
                // A strict emission writes only what the revision declares.
                Action::Strip | Action::Pass => return MemberStep::just(Write::Strip(row)),
                // The object's end checks that it was written.
                Action::Refuse(RefuseWhen::Absent) => seen = 1 << i,
                Action::Refuse(RefuseWhen::Present) => return MemberStep::just(Write::Refuse(row)),
                Action::Refuse(when) => row_check = Check::Row(row, when),
            }
        }
        // Only the array check gives way to an edge or an opaque value.
        if !opaque && !matches!(row_check, Check::Row(_, when) if when != RefuseWhen::Array) {
            if plan.opaque {
                opaque = true;
            } else if plan.edge.is_some() {
                // An edge replaces the array check.
                edge = plan.edge;
                row_check = Check::None;
            }
        }
    }
    // What the object's role asks of the member: a check, a flag, how it is reached.
    let mut flag = match role.needs() {
        Some((needed, _)) if needed.contains(&key) => F_NEEDED,
        _ => 0,
    };
    let (check, role_how) = match role.shaped(key) {
        Some((i, member)) => {
            flag = shaped_flag(i);
            (Check::Scalar(ScalarCheck { member, role }), None)
        }
        None => match (role, key) {
            // Counted while it is walked.
            (ShapingRole::Result2026(_), "inputRequests") => {
                (Check::Entries, Some(Reached::Nested))
            }
            (ShapingRole::ClientRequest2026, "params") => {
                (Check::None, Some(Reached::ClientParams))
            }
            (ShapingRole::ClientParams, "_meta") => (Check::None, Some(Reached::ClientMeta)),
            // The client identity: objects typed by the `_meta` owner's edges.
            (ShapingRole::ClientMeta, keys::CLIENT_CAPABILITIES | keys::CLIENT_INFO) => {
                let edge = owner.and_then(|o| o.edge(key));
                (
                    Check::MetaObject,
                    Some(edge.map_or(Reached::Nested, Reached::Edge)),
                )
            }
            // The rest of a client `_meta` is open metadata.
            (ShapingRole::ClientMeta, _) => {
                opaque = true;
                (Check::None, None)
            }
            _ => (Check::None, None),
        },
    };
    let act = |write, check| MemberStep {
        write,
        flag,
        seen,
        check,
        passed,
    };
    if let Check::Scalar(_) = check {
        // Judged as it is written, whatever it is.
        return act(Write::Plain, check);
    }
    if opaque || (role_how.is_none() && key == "_meta") {
        // Written through (`_meta` is open metadata wherever no role types it): no check is
        // made.
        return act(Write::Plain, Check::None);
    }
    if let Some(how) = role_how {
        // A role's member: the rows' checks give way to the role's.
        return act(Write::Walk(how), check);
    }
    let write = match row_check {
        Check::Row(_, RefuseWhen::Array) => walk(shape, None, bit),
        Check::Row(..) => Write::Plain,
        _ if table.and_then(|t| t.get(key)).is_some_and(|b| b & bit != 0) => Write::Plain,
        _ => walk(shape, edge, bit),
    };
    act(write, row_check)
}

/// How a member that is walked is written, given the type its parent's edge expects there.
fn walk(shape: Shape, edge: Option<&'static str>, bit: u16) -> Write {
    match (shape, edge) {
        (Shape::Scalar, _) | (Shape::Json, None) => Write::Plain,
        (Shape::Seq, _) | (Shape::Map | Shape::Union | Shape::Struct { .. }, None) => {
            Write::Walk(Reached::Nested)
        }
        // A named struct with rows of its own: the edge does not change them.
        (Shape::Struct { name, flat: false }, Some(c))
            if c != name && names::known(name).owner.is_some() =>
        {
            Write::Walk(Reached::Nested)
        }
        (Shape::Json | Shape::Map | Shape::Union, Some(c)) if names::known(c).is_clean(bit) => {
            Write::Plain
        }
        (_, Some(c)) => Write::Walk(Reached::Edge(c)),
    }
}

/// An object being written.
#[derive(Default)]
struct Open {
    /// Whether a member's key was written.
    started: bool,
    /// The role's flags of the members written.
    flags: u32,
    /// The owner rows of the members written that require them.
    seen: u64,
}

impl Open {
    /// Writes a member's key (`quoted`: the key in quotes with its colon, when it needs no
    /// escaping).
    #[inline]
    fn key<S: Sink>(&mut self, e: &mut Emitter<'_, S>, key: &str, quoted: Option<&[u8]>) {
        e.sink.key(!self.started, key, quoted);
        self.started = true;
    }

    /// Member `key` as `act` says.
    #[inline]
    fn member<S: Sink, T: Describe + ?Sized>(
        &mut self,
        e: &mut Emitter<'_, S>,
        act: MemberStep,
        key: &str,
        quoted: Option<&[u8]>,
        value: &T,
    ) -> Result<(), Refused> {
        match act.write {
            Write::Strip(row) => {
                e.sink
                    .note(NoteKind::Stripped, Some(key), Cause::Ledger(row), || None);
                return Ok(());
            }
            Write::Refuse(row) => {
                let is = format_args!("cannot be sent at {}", e.version);
                return Err(Refused::row(row, EmitErrorKind::NotExpressible, is).at_key(key));
            }
            Write::Plain | Write::Walk(_) => {}
        }
        if let Some(row) = act.passed {
            e.sink
                .note(NoteKind::Passed, Some(key), Cause::Ledger(row), || None);
        }
        self.key(e, key, quoted);
        e.sink.enter(|| PathSegment::Key(key.to_owned()));
        let written = match act.check {
            Check::None => write(e, act.write, value).map(|()| true),
            _ => checked(e, act, value),
        };
        e.sink.leave();
        if written.map_err(|r| r.at_key(key))? {
            self.flags |= act.flag;
        }
        self.seen |= act.seen;
        Ok(())
    }

    /// The entries of a JSON object or map under `rules`: each key is decided as it comes.
    fn entries<'m, S: Sink, T: Describe + 'm>(
        &mut self,
        e: &mut Emitter<'_, S>,
        rules: Rules,
        entries: impl Iterator<Item = (&'m String, &'m T)>,
    ) -> Result<(), Refused> {
        for (k, x) in entries {
            let act = decide(rules, k, T::SHAPE, e.version, e.bit, e.mode);
            self.member(e, act, k, None, x)?;
        }
        Ok(())
    }

    /// Ends the object: the members its owner's rows require (the bits of `required`), what its
    /// role checks for, and the 2026-07-28 injections (reported).
    fn close<S: Sink>(
        mut self,
        e: &mut Emitter<'_, S>,
        rules: Rules,
        required: u64,
    ) -> Result<(), Refused> {
        let missing = required & !self.seen;
        if missing != 0
            && let Some(owner) = rules.owner
        {
            let row = owner.rows[missing.trailing_zeros() as usize];
            let is = format_args!("is missing");
            return Err(Refused::row(row, EmitErrorKind::MissingRequired, is).at_key(row.field));
        }
        let role = rules.role;
        if let Some((needed, rule)) = role.needs()
            && self.flags & F_NEEDED == 0
        {
            let (keys, v, says) = (needed.join(" or "), e.version, ledger::shaping(rule).text);
            let message = format!("{keys} is missing at {v}: {says}");
            let refused = Refused::shaping(EmitErrorKind::MissingRequired, message, rule);
            return Err(refused.at_key(needed[0]));
        }
        for (i, member) in role.injections() {
            if self.flags & shaped_flag(i) == 0
                && let Some(value) = member.injected_scalar(e.version, role)
            {
                self.key(e, member.key, None);
                e.plain(&value)?;
                // The rule is looked up for a report only.
                if S::REPORTS {
                    let cause = Cause::Shaping(ledger::shaping(member.rule));
                    let value = || serde_json::to_value(value).ok();
                    e.sink
                        .note(NoteKind::Injected, Some(member.key), cause, value);
                }
            }
        }
        e.sink.close_object();
        Ok(())
    }
}

/// Writes a member's value by `act`, which has a [`Check`] (few members have one: kept out of
/// the common path, which every member type instantiates); whether the member counts for its
/// flag.
#[cold]
#[inline(never)]
fn checked<S: Sink, T: Describe + ?Sized>(
    e: &mut Emitter<'_, S>,
    act: MemberStep,
    value: &T,
) -> Result<bool, Refused> {
    let v = e.version;
    match act.check {
        Check::Scalar(check) => e.sink.plain_checked(value, check)?,
        Check::Row(row, RefuseWhen::Array) if value.is_seq() => {
            let is = format_args!("is an array, which {v} cannot carry");
            return Err(Refused::row(row, EmitErrorKind::NotExpressible, is));
        }
        Check::Row(row, when @ (RefuseWhen::NotObject | RefuseWhen::NotObjectSchema)) => {
            let fits = with_object(value, |m| {
                m.is_some_and(|m| {
                    when != RefuseWhen::NotObjectSchema
                        || m.get("type").and_then(Value::as_str) == Some("object")
                })
            });
            if !fits {
                let is = format_args!("cannot be sent at {v}");
                return Err(Refused::row(row, EmitErrorKind::NotExpressible, is));
            }
            write(e, act.write, value)?;
        }
        Check::MetaObject => {
            if !with_object(value, |m| m.is_some()) {
                let message = "expected a JSON object";
                return Err(Refused::shaping(EmitErrorKind::InvalidValue, message, "S6"));
            }
            write(e, act.write, value)?;
        }
        Check::Entries => {
            write(e, act.write, value)?;
            // Written, but counted as input requests only when it has some.
            let entries = value
                .entries()
                .or_else(|| value.json_object().map(Map::len));
            return Ok(entries.is_some_and(|n| n > 0));
        }
        Check::Row(_, RefuseWhen::Array) | Check::None => write(e, act.write, value)?,
        Check::Row(row, when) => with_object(value, |m| answers(e, m, row, when))?,
    }
    Ok(true)
}

/// Calls `f` with the JSON object `value` is written as (`None` when it is not one); a value
/// the model does not hold as JSON is converted first.
fn with_object<T: Describe + ?Sized, R>(
    value: &T,
    f: impl FnOnce(Option<&Map<String, Value>>) -> R,
) -> R {
    if let Some(map) = value.json_object() {
        return f(Some(map));
    }
    match T::SHAPE {
        Shape::Scalar | Shape::Seq => f(None),
        _ => {
            // Read back from the text serde writes of it: the value's type is serialized by
            // the one text writer the emitter already compiles it for, not a second time into
            // a `Value`.
            let mut text = Vec::new();
            let copy = match value.serialize(&mut JsonWriter::new(&mut text)) {
                Ok(()) => read_copy(&text),
                Err(_) => None,
            };
            f(copy.as_ref().and_then(Value::as_object))
        }
    }
}

/// [`with_object`]'s read of the text, compiled once.
#[inline(never)]
fn read_copy(text: &[u8]) -> Option<Value> {
    serde_json::from_slice(text).ok()
}

/// Elicitation answers (the JSON object `map` of the member): each kept, stripped (a `null`,
/// reported) or refused by the row's verdict.
#[inline(never)]
fn answers<S: Sink>(
    e: &mut Emitter<'_, S>,
    map: Option<&Map<String, Value>>,
    row: &'static LedgerRow,
    when: RefuseWhen,
) -> Result<(), Refused> {
    let (v, kind) = (e.version, EmitErrorKind::NotExpressible);
    let Some(map) = map else {
        return Err(Refused::row(row, kind, format_args!("must be an object")));
    };
    if map.values().all(|x| when.answer(x) == AnswerVerdict::Keep) {
        return e.plain(map);
    }
    let mut kept = Map::with_capacity(map.len());
    for (k, x) in map {
        match when.answer(x) {
            AnswerVerdict::Keep => {
                kept.insert(k.clone(), x.clone());
            }
            AnswerVerdict::Strip => {
                e.sink
                    .note(NoteKind::Stripped, Some(k), Cause::Ledger(row), || None);
            }
            AnswerVerdict::Refuse => {
                let is = format_args!("answer {x} cannot be sent at {v}");
                return Err(Refused::row(row, kind, is).at_key(k));
            }
        }
    }
    e.plain(&kept)
}

/// Writes a member's value by `step` (its key is written).
#[inline]
fn write<S: Sink, T: Describe + ?Sized>(
    e: &mut Emitter<'_, S>,
    step: Write,
    value: &T,
) -> Result<(), Refused> {
    match step {
        Write::Plain => e.plain(value),
        Write::Walk(how) => value.describe(&mut EmitWalker { e, how }),
        Write::Strip(_) | Write::Refuse(_) => Ok(()),
    }
}

/// A JSON object or map (`map`, whose entries are `entries`) reached as `how`: written as plain
/// serde writes it when nothing in it needs shaping, else each entry decided as it comes.
fn object<'m, S: Sink, T: Describe + 'm>(
    e: &mut Emitter<'_, S>,
    how: Reached,
    map: &(impl Serialize + ?Sized),
    entries: impl ExactSizeIterator<Item = (&'m String, &'m T)>,
) -> Result<(), Refused> {
    let (owner, role) = match how {
        Reached::Edge(c) => {
            let known = names::known(c);
            if known.is_clean(e.bit) {
                return e.plain(map);
            }
            (known.owner, ShapingRole::Plain)
        }
        // JSON where no type is expected needs nothing; a typed map's values may.
        Reached::Nested | Reached::Body if T::SHAPE == Shape::Json => return e.plain(map),
        Reached::Nested | Reached::Body => (None, ShapingRole::Plain),
        Reached::ClientParams => (None, ShapingRole::ClientParams),
        Reached::ClientMeta => (
            names::known("RequestMetaObject").owner,
            ShapingRole::ClientMeta,
        ),
    };
    let rules = Rules {
        owner,
        table: None,
        role,
    };
    let mut o = e.open(entries.len() + role.injections().count());
    o.entries(e, rules, entries)?;
    let required = owner.map_or(0, |o| o.absent[e.version.index()]);
    o.close(e, rules, required)
}

/// The emitter as the walker of a model value's description: the value is reached as `how`.
pub struct EmitWalker<'p, 's, S> {
    e: &'p mut Emitter<'s, S>,
    how: Reached,
}

impl<S: Sink> EmitWalker<'_, '_, S> {
    /// Union member `name` at a revision where a member row decides it or its type is absent.
    #[cold]
    #[inline(never)]
    fn decided_member<T: Describe>(
        &mut self,
        name: &'static str,
        member: &T,
    ) -> Result<(), Refused> {
        let v = self.e.version;
        let Some(row) = ledger::member_row_at(name, v) else {
            return match ledger::type_row(name) {
                Some(t) if !t.nested.contains(v) => Err(Refused::absent(t, v)),
                _ => member.describe(self),
            };
        };
        match row.action {
            MemberAction::Refuse => Err(refused_member(row, v)),
            MemberAction::Older(form) => {
                let copy = serde_json::to_value(member).map_err(serialization)?;
                self.older(row, form, copy)
            }
            MemberAction::Same(_) => member.describe(self),
        }
    }

    /// Writes a union member (`copy`, its JSON) in the older form of its member row, and
    /// reports it.
    #[inline(never)]
    fn older(
        &mut self,
        row: &'static MemberRow,
        form: OlderForm,
        copy: Value,
    ) -> Result<(), Refused> {
        let v = self.e.version;
        let older = form.rewrite(copy).map_err(|why| {
            Refused::new(
                EmitErrorKind::NotExpressible,
                format!(
                    "{} cannot be sent at {v} as its {}: {why}",
                    row.member,
                    form.definition()
                ),
                Some(Cause::Member(row)),
            )
        })?;
        let copy = || Some(older.clone());
        self.e
            .sink
            .note(NoteKind::Rewritten, None, Cause::Member(row), copy);
        // The older form's own rows apply to what is written.
        self.how = Reached::Edge(form.superset_type());
        self.json(Json::Value(&older))
    }
}

/// The refusal of a member a revision has no form for: the member, its union, and the revision
/// it arrived in.
fn refused_member(row: &'static MemberRow, v: ProtocolVersion) -> Refused {
    let arrived = row
        .arrived()
        .map_or_else(|| "a later revision".to_owned(), |a| a.to_string());
    Refused::new(
        EmitErrorKind::NotExpressible,
        format!(
            "{} (a {} member) cannot be sent at {v}: it arrived in {arrived}; {}",
            row.member, row.union, row.reason
        ),
        Some(Cause::Member(row)),
    )
}

/// A value's own `Serialize` failed.
#[cold]
pub(crate) fn serialization(e: impl std::fmt::Display) -> Refused {
    Refused::new(EmitErrorKind::Serialization, e.to_string(), None)
}

impl<S: Sink> Walker for EmitWalker<'_, '_, S> {
    type Error = Refused;

    #[inline]
    fn scalar<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.e.plain(value)
    }

    fn json(&mut self, value: Json<'_>) -> Result<(), Refused> {
        let map = match value {
            Json::Value(Value::Object(map)) | Json::Object(map) => map,
            Json::Meta(meta) => &meta.0,
            Json::Value(other) => return self.e.plain(other),
        };
        object(self.e, self.how, map, map.iter())
    }

    #[inline]
    fn none(&mut self) -> Result<(), Refused> {
        self.e.plain(&())
    }

    fn seq<T: Describe>(&mut self, items: &[T]) -> Result<(), Refused> {
        let e = &mut *self.e;
        e.sink.open_array(items.len());
        for (i, item) in items.iter().enumerate() {
            e.sink.item(i == 0);
            e.sink.enter(|| PathSegment::Index(i));
            let written = item.describe(&mut EmitWalker {
                e: &mut *e,
                how: Reached::Nested,
            });
            e.sink.leave();
            written.map_err(|r| r.at_index(i))?;
        }
        e.sink.close_array();
        Ok(())
    }

    fn map<T: Describe>(&mut self, map: &IndexMap<String, T>) -> Result<(), Refused> {
        object(self.e, self.how, map, map.iter())
    }

    fn structure<T: Struct>(&mut self, value: &T) -> Result<(), Refused> {
        let e = &mut *self.e;
        let plans: &'static Plans = T::memo()
            .get_or_init(Plans::default)
            .ok_or_else(|| serialization(format!("{} keeps another walker's memo", T::NAME)))?;
        let layout = Layout {
            name: T::NAME,
            flat: T::FLAT,
            fields: T::FIELDS,
        };
        let plan = plans.get(e.emission, layout, self.how);
        if let Some(t) = plan.absent {
            return Err(Refused::absent(t, e.version));
        }
        if plan.through {
            return e.plain(value);
        }
        let mut o = e.open(plan.members);
        value.members(&mut Fields {
            o: &mut o,
            e: &mut *e,
            plan: &plan,
            flattened: false,
        })?;
        o.close(e, plan.rules, plan.required)
    }

    fn union_member<T: Describe>(
        &mut self,
        union: &'static Union,
        index: usize,
        member: &T,
    ) -> Result<(), Refused> {
        // The revisions at which each member has a deciding row or does not exist.
        let decided: &[Revisions] = union
            .memo
            .get_or_init(|| {
                union
                    .members
                    .iter()
                    .map(|m| {
                        m.map_or(Revisions::NONE, |m| {
                            let absent = ledger::type_row(m)
                                .map_or(Revisions::NONE, |t| t.nested.complement());
                            member_rows_at(union.name, m).or(absent)
                        })
                    })
                    .collect::<Box<[Revisions]>>()
            })
            .ok_or_else(|| serialization(format!("{} keeps another walker's memo", union.name)))?
            .as_ref();
        let name = union.members.get(index).copied().flatten();
        if let (Reached::Nested, Some(name)) = (self.how, name)
            && names::known(name).owner.is_some()
        {
            // A member reached with no expected type is its own type's (a member written as a
            // map has no name of its own).
            self.how = Reached::Edge(name);
        }
        match name {
            Some(name)
                if decided
                    .get(index)
                    .is_some_and(|d| d.contains(self.e.version)) =>
            {
                self.decided_member(name, member)
            }
            _ => member.describe(self),
        }
    }
}

/// The members of a struct being written by its plan; `flattened`: the members of a struct
/// flattened into it, which are keys of the same object, decided by its rules as they come
/// (the flattened type's own plan knows nothing of them).
struct Fields<'o, 'p, 's, 'a, S> {
    o: &'o mut Open,
    e: &'p mut Emitter<'s, S>,
    plan: &'a Plan,
    flattened: bool,
}

impl<S: Sink> Members for Fields<'_, '_, '_, '_, S> {
    type Error = Refused;

    #[inline]
    fn field<T: Describe + ?Sized>(
        &mut self,
        index: usize,
        key: &'static str,
        quoted: &'static [u8],
        value: &T,
    ) -> Result<(), Refused> {
        let act = match self.flattened {
            false => self.plan.acts[index],
            true => {
                let e = &*self.e;
                decide(self.plan.rules, key, T::SHAPE, e.version, e.bit, e.mode)
            }
        };
        self.o.member(self.e, act, key, Some(quoted), value)
    }

    fn extra(&mut self, map: &Map<String, Value>) -> Result<(), Refused> {
        self.o.entries(self.e, self.plan.rules, map.iter())
    }

    fn flatten<T: Struct>(&mut self, value: &T) -> Result<(), Refused> {
        value.members(&mut Fields {
            o: &mut *self.o,
            e: &mut *self.e,
            plan: self.plan,
            flattened: true,
        })
    }
}

#[cfg(test)]
mod tests;
