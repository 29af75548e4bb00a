//! The planned emitter: the fast path of the outputs without a report ([`super::serialize_for`]
//! and [`super::serialize_for_vec`], and what is built on them).
//!
//! Every model type describes itself ([`crate::model::describe`]: a struct its members in serde's
//! order, a union the member it holds); the emitter walks that description ([`At`] is its
//! [`Walker`]) and asks each struct's [`Plan`] what to do with each member.
//! There is one plan per type, revision and [`How`] the value is reached, built once from the
//! same tables the shaping serializer ([`super::emit`]) reads, and resolved down to one [`Act`]
//! per field:
//! - leave it out (a strip row);
//! - write it as plain serde writes it;
//! - hand it to its own type's writer (or, for JSON an edge types, to [`json_as`]);
//! - or give up ([`Bail`]);
//!
//! and, where a row or a 2026-07-28 role asks, a [`Check`] of the value and a flag the end of
//! the object looks for (required members, the role's injections).
//!
//! The planned emitter never refuses and never reports. Whenever a body needs something it does
//! not do (a refusal, a value to check that it cannot check, a union member with a member
//! row), it bails, the caller drops what was written, and the shaping serializer
//! emits the body again and decides. A body it writes is byte for byte what the shaping
//! serializer writes (tests compare the two on the corpus and on generated bodies).
//!
//! A flattened struct's members are keys of its parent's object: they are decided as they come
//! by the parent's owner rows and role (`Fields` with `flattened`), as the shaping serializer decides the keys of
//! the map serde writes for such a struct.
//!
//! The writers are generic over a [`Sink`]: compact JSON text ([`Bytes`]) or a
//! `serde_json::Value` ([`Values`]).

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};

use super::body::{BodyInfo, BodyKind, WireBody};
use super::clean::{self, FieldTable};
use super::ledger::{
    Action, AnswerVerdict, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, CLIENT_REQUESTS_2026,
    OwnerInfo, RefuseWhen, member_rows_at,
};
use super::names;
use super::revs::Revisions;
use super::shaping::{
    F_CAPABILITIES, F_FIRST_REQUIRED, F_INPUT_REQUESTS, F_META, F_PARAMS, F_REQUEST_STATE, Role,
    Scalar, ShapedMember, shaped_flag,
};
use crate::ProtocolVersion;
use crate::model::describe::{Describe, Json, Members, Shape, Struct, Union, Walker};

mod sink;
pub use sink::{Bytes, Sink, Values};

/// The planned emitter cannot write this body alone; the shaping serializer will.
#[derive(Debug)]
pub struct Bail;

/// How a value is reached, which decides whose ledger rows apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// With no expected type (an array item, a member without an edge): a struct's own rows
    /// apply, or none for a struct serde writes as a map (it has no name then).
    Nested,
    /// Where the parent's edge names this very type: its rows apply either way.
    Expected,
    /// As the whole message body.
    Body,
    /// As the `params` of a 2026-07-28 client request.
    ClientParams,
    /// As the `_meta` of those params.
    ClientMeta,
}

/// One emission: the output and the revision.
pub struct Planned<S> {
    sink: S,
    version: ProtocolVersion,
    /// The [`clean::clean_bit`] of the revision (an emission without a report).
    bit: u16,
    body: BodyInfo,
}

/// Writes message body `body` at `version` into `sink`: the revision's body check, then the
/// body's own writer. `None` when it bails.
fn run<B: Describe + WireBody + ?Sized, S: Sink>(
    body: &B,
    version: ProtocolVersion,
    sink: S,
) -> Option<S> {
    let info = body.body_info();
    if super::check_body(names::known(info.type_name), version).is_err() {
        return None;
    }
    let mut e = Planned {
        sink,
        version,
        bit: clean::clean_bit(version, false),
        body: info,
    };
    body.describe(&mut At::new(&mut e, How::Body))
        .ok()
        .map(|()| e.sink)
}

/// Appends the compact JSON text of message body `body` at `version` to `out`; false when it
/// bails (then `out` holds a partial write the caller truncates).
pub(crate) fn body_text<B: Describe + WireBody + ?Sized>(
    body: &B,
    version: ProtocolVersion,
    out: &mut Vec<u8>,
) -> bool {
    run(body, version, Bytes::new(out)).is_some()
}

/// The JSON value of message body `body` at `version`; `None` when it bails.
pub(crate) fn body_value<B: Describe + WireBody + ?Sized>(
    body: &B,
    version: ProtocolVersion,
) -> Option<Value> {
    run(body, version, Values::default()).and_then(Values::into_value)
}

impl<S: Sink> Planned<S> {
    /// Writes `value` as plain serde writes it.
    #[inline]
    pub fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        self.sink.plain(value)
    }

    /// Opens an object of about `members` members.
    #[inline]
    pub fn open(&mut self, members: usize) -> Open {
        self.sink.open_object(members);
        Open {
            first: true,
            flags: 0,
        }
    }
}

/// How a member is written.
#[derive(Debug, Clone, Copy)]
enum Write {
    /// Left out.
    Skip,
    /// Not decided here.
    Bail,
    /// As plain serde writes it.
    Plain,
    /// By its own type's writer.
    Walk(How),
    /// JSON typed by an edge to this type ([`json_as`]).
    Json(&'static str),
}

/// What is checked of a member: its value before it is written, or a scalar as it is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Nothing.
    None,
    /// A scalar, as written.
    Scalar(ScalarCheck),
    /// Value: not an array (a [`RefuseWhen::Array`] row).
    NotArray,
    /// Value: a JSON object (a [`RefuseWhen::NotObject`] row).
    Object,
    /// Value: a JSON object whose root `type` is `"object"` ([`RefuseWhen::NotObjectSchema`]).
    ObjectSchema,
    /// Value: an object whose entries are counted; the member's flag is set only when it has
    /// some (an input-required result's `inputRequests`).
    Entries,
    /// Value: elicitation answers, each kept by the row's [`RefuseWhen::answer`] (a `null`
    /// answer, which is stripped and reported, is left to the shaping serializer).
    Answers(RefuseWhen),
}

/// A scalar member a 2026-07-28 role checks as it is written: its row of
/// [`SHAPED_MEMBERS`](super::shaping::SHAPED_MEMBERS), and the result's own `resultType`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalarCheck {
    member: &'static ShapedMember,
    own: &'static str,
}

impl ScalarCheck {
    /// Whether `value` passes.
    pub fn passes(self, value: Scalar<'_>) -> bool {
        self.member.accepts.admits(value, self.own)
    }
}

/// What to do with one member.
#[derive(Debug, Clone, Copy)]
struct Act {
    write: Write,
    /// Set on the object when the member is written.
    flag: u32,
    check: Check,
}

impl Act {
    const fn just(write: Write) -> Act {
        Act {
            write,
            flag: 0,
            check: Check::None,
        }
    }
}

/// Everything a struct's writer needs at one revision, reached one way.
#[derive(Debug)]
pub struct Plan {
    /// The type cannot be written this way at this revision: its writer bails.
    bail: bool,
    /// The whole value needs no shaping: written as plain serde writes it.
    pub through: bool,
    /// How many members the object may have (written members and injections; a flattened
    /// map's entries aside).
    pub members: usize,
    acts: Box<[Act]>,
    /// The flags of the members that ledger rows require at this revision.
    required: u32,
    /// Of those, the members of a flattened struct, by key.
    flat_required: Box<[(&'static str, u32)]>,
    /// The body it was built for, when it is a body's plan.
    body: Option<BodyInfo>,
    /// For keys of a flattened map.
    owner: Option<&'static OwnerInfo>,
    table: Option<&'static FieldTable>,
    role: Role,
}

/// A struct type's plans, built on first use.
pub struct Plans {
    slots: [OnceLock<Plan>; 4 * 5],
}

impl Default for Plans {
    fn default() -> Self {
        Self::new()
    }
}

impl Plans {
    /// No plan built yet.
    pub const fn new() -> Self {
        Plans {
            slots: [const { OnceLock::new() }; 4 * 5],
        }
    }

    /// The plan of struct type `T`, reached as `how` in emission `e`.
    #[inline]
    pub fn get<S, T: Struct + ?Sized>(&self, e: &Planned<S>, how: How) -> Result<&Plan, Bail> {
        let way = match how {
            How::Nested => 0,
            How::Expected => 1,
            How::Body => 2,
            How::ClientParams => 3,
            How::ClientMeta => return Err(Bail),
        };
        let plan = self.slots[way * 5 + e.version.index()]
            .get_or_init(|| Plan::build::<T>(how, e.version, e.body));
        // A body plan is built for one body (its kind and method decide the role); a type is
        // always the same body, but a plan never serves another.
        if plan.bail || (how == How::Body && plan.body != Some(e.body)) {
            Err(Bail)
        } else {
            Ok(plan)
        }
    }
}

impl Plan {
    fn bail() -> Plan {
        Plan {
            bail: true,
            through: false,
            members: 0,
            acts: Box::new([]),
            required: 0,
            flat_required: Box::new([]),
            body: None,
            owner: None,
            table: None,
            role: Role::Plain,
        }
    }

    /// Mirrors the shaping serializer's `object` (owner, role, the type's absence, whether the
    /// subtree is clean) for a struct, then resolves each field with [`decide`].
    fn build<T: Struct + ?Sized>(how: How, v: ProtocolVersion, body: BodyInfo) -> Plan {
        let (name, flat, fields) = (T::NAME, T::FLAT, T::FIELDS);
        let bit = clean::clean_bit(v, false);
        let own = names::known(name);
        // serde names a struct unless it writes it as a map; only a named struct's type row and
        // rows apply by name.
        let (owner, absence_checked, through) = match how {
            How::Nested | How::ClientParams if flat => (None, false, false),
            How::Nested => (own.owner, true, own.is_clean(bit)),
            How::Expected => (own.owner, !flat, own.is_clean(bit)),
            How::ClientParams => (own.owner, true, false),
            How::Body => {
                if body.type_name != name {
                    return Plan::bail();
                }
                (own.owner, false, own.is_clean(bit))
            }
            How::ClientMeta => return Plan::bail(),
        };
        if absence_checked
            && let Some(t) = owner.and_then(|o| o.ty)
            && !t.nested.contains(v)
        {
            return Plan::bail();
        }
        let role = match how {
            How::Body if v == ProtocolVersion::V2026_07_28 => match body.kind {
                BodyKind::Result => match owner.and_then(|o| o.result) {
                    Some(shape) => Role::Result2026(shape),
                    None => Role::Plain,
                },
                BodyKind::Request
                    if body
                        .method
                        .is_some_and(|m| CLIENT_REQUESTS_2026.contains(&m)) =>
                {
                    Role::ClientRequest2026
                }
                _ => Role::Plain,
            },
            How::ClientParams => Role::ClientParams,
            _ => Role::Plain,
        };
        let table = clean::field_table(name);
        let mut acts: Box<[Act]> = fields
            .iter()
            .map(|f| decide(owner, table, role, f.key, f.shape, v, bit))
            .collect();
        // Members that must be present: each gets a flag the object's end looks for (a member
        // of a flattened struct, when it is written: see `Fields`).
        let mut required = 0;
        let mut flat_required = Vec::new();
        if let Some(o) = owner {
            let mut absent = o.absent[v.index()];
            let mut next = F_FIRST_REQUIRED;
            while absent != 0 {
                let row = o.rows[absent.trailing_zeros() as usize];
                absent &= absent - 1;
                if next == u32::BITS {
                    return Plan::bail();
                }
                match fields.iter().position(|f| f.key == row.field) {
                    Some(i) => acts[i].flag |= 1 << next,
                    None if T::FLATTENS_STRUCT => flat_required.push((row.field, 1 << next)),
                    None => return Plan::bail(),
                }
                required |= 1 << next;
                next += 1;
            }
        }
        let injected = match role {
            Role::Result2026(_) => 3,
            _ => 0,
        };
        Plan {
            bail: false,
            through: through && matches!(role, Role::Plain) && required == 0,
            members: acts
                .iter()
                .filter(|a| !matches!(a.write, Write::Skip))
                .count()
                + injected,
            acts,
            required,
            flat_required: flat_required.into_boxed_slice(),
            body: (how == How::Body).then_some(body),
            owner,
            table,
            role,
        }
    }
}

/// What to do with member `key` (of shape `shape`) of an object owned by `owner` in `role`:
/// the shaping serializer's `decide` for an emission without a report.
fn decide(
    owner: Option<&'static OwnerInfo>,
    table: Option<&'static FieldTable>,
    role: Role,
    key: &str,
    shape: Shape,
    v: ProtocolVersion,
    bit: u16,
) -> Act {
    let mut opaque = false;
    let mut edge = None;
    // What the row asks of the value: a check, and for `RefuseWhen::Array`, a walk by the
    // value's own name (the edge is not taken).
    let mut row_check = Check::None;
    if let Some(plan) = owner.and_then(|o| o.plan(key)) {
        if let Some((_, row)) = plan.rows[v.index()] {
            match row.action {
                Action::Strip => return Act::just(Write::Skip),
                Action::Pass => opaque = true,
                // The object's plan flags the member; its end checks that it was written.
                Action::Refuse(RefuseWhen::Absent) => {}
                Action::Refuse(RefuseWhen::Present) => return Act::just(Write::Bail),
                Action::Refuse(RefuseWhen::Array) => row_check = Check::NotArray,
                Action::Refuse(RefuseWhen::NotObject) => row_check = Check::Object,
                Action::Refuse(RefuseWhen::NotObjectSchema) => row_check = Check::ObjectSchema,
                Action::Refuse(when) => {
                    return Act {
                        write: Write::Plain,
                        flag: 0,
                        check: Check::Answers(when),
                    };
                }
            }
        }
        let shaped = matches!(row_check, Check::Object | Check::ObjectSchema);
        if !opaque && !shaped {
            if plan.opaque {
                opaque = true;
            } else if plan.edge.is_some() {
                // An edge replaces the array check (the shaping serializer's slot order).
                edge = plan.edge;
                row_check = Check::None;
            }
        }
    }
    let (flag, check, role_how) = match role.shaped(key) {
        Some((i, member)) => {
            let check = ScalarCheck {
                member,
                own: role.own_result_type(),
            };
            (shaped_flag(i), Check::Scalar(check), None)
        }
        None => match (role, key) {
            (Role::Result2026(_), "inputRequests") => (F_INPUT_REQUESTS, Check::Entries, None),
            (Role::Result2026(_), "requestState") => (F_REQUEST_STATE, Check::None, None),
            (Role::ClientRequest2026, "params") => (F_PARAMS, Check::None, Some(How::ClientParams)),
            (Role::ClientParams, "_meta") => (F_META, Check::None, Some(How::ClientMeta)),
            _ => (0, Check::None, None),
        },
    };
    if check != Check::None || role_how.is_some() {
        // A role's member: the rows' checks give way to the role (the shaping serializer's
        // slot order).
        row_check = Check::None;
    }
    let write = if check == Check::Entries {
        // Counted while it is walked; written through, it is not counted (and not flagged).
        match (opaque, shape) {
            (true, _) => {
                return Act {
                    write: Write::Plain,
                    flag: 0,
                    check: Check::None,
                };
            }
            (false, Shape::Map) => Write::Walk(How::Nested),
            _ => Write::Bail,
        }
    } else if check != Check::None {
        // A checked member is captured: a written-through member is never seen, which the
        // shaping serializer refuses; only scalars are checked here.
        if opaque || !matches!(shape, Shape::Scalar) {
            Write::Bail
        } else {
            Write::Plain
        }
    } else if let Some(how) = role_how {
        match (opaque, shape) {
            (true, _) => Write::Plain,
            (false, Shape::Struct { .. } | Shape::Union) if how == How::ClientParams => {
                Write::Walk(how)
            }
            (false, Shape::Json) if how == How::ClientMeta => Write::Walk(how),
            _ => Write::Bail,
        }
    } else if opaque || key == "_meta" {
        // Written through: the rows' checks are not made (the shaping serializer's too).
        return Act {
            write: Write::Plain,
            flag,
            check: Check::None,
        };
    } else {
        match row_check {
            Check::Object | Check::ObjectSchema => Write::Plain,
            Check::NotArray => walk(shape, None, bit),
            _ if table.is_some_and(|t| t.clean_bits(key) & bit != 0) => Write::Plain,
            _ => walk(shape, edge, bit),
        }
    };
    let check = if check == Check::None {
        row_check
    } else {
        check
    };
    Act { write, flag, check }
}

/// How a member that is walked is written, given the type its parent's edge expects there.
fn walk(shape: Shape, edge: Option<&'static str>, bit: u16) -> Write {
    let clean = |c: &'static str| names::known(c).is_clean(bit);
    match (shape, edge) {
        (Shape::Scalar, _) | (Shape::Json, None) => Write::Plain,
        (Shape::Json, Some(c)) => {
            if clean(c) {
                Write::Plain
            } else {
                Write::Json(c)
            }
        }
        (Shape::Seq, _) | (Shape::Map | Shape::Union | Shape::Struct { .. }, None) => {
            Write::Walk(How::Nested)
        }
        (Shape::Struct { name, flat }, Some(c)) => {
            if c == name {
                Write::Walk(How::Expected)
            } else if !flat && names::known(name).owner.is_some() {
                // A named struct with rows of its own: the edge does not change them.
                Write::Walk(How::Nested)
            } else {
                Write::Bail
            }
        }
        (Shape::Map | Shape::Union, Some(c)) => {
            if clean(c) {
                Write::Plain
            } else {
                Write::Bail
            }
        }
    }
}

/// An object being written.
pub struct Open {
    first: bool,
    flags: u32,
}

impl Open {
    /// Writes a member's key (`quoted`: the key in quotes with its colon, when it needs no
    /// escaping).
    #[inline]
    fn key<S: Sink>(&mut self, e: &mut Planned<S>, key: &str, quoted: Option<&[u8]>) {
        e.sink.key(self.first, key, quoted);
        self.first = false;
    }

    /// Member number `index` of the plan's struct: its key, and the key in quotes with its
    /// colon.
    #[inline]
    pub fn field<S: Sink, T: Describe + ?Sized>(
        &mut self,
        e: &mut Planned<S>,
        plan: &Plan,
        index: usize,
        key: &str,
        quoted: &[u8],
        value: &T,
    ) -> Result<(), Bail> {
        let act = plan.acts[index];
        match act.write {
            Write::Skip => return Ok(()),
            Write::Bail => return Err(Bail),
            _ => {}
        }
        self.key(e, key, Some(quoted));
        self.value(e, act, value)
    }

    /// Writes a member's value as `act` says (its key is written).
    #[inline]
    fn value<S: Sink, T: Describe + ?Sized>(
        &mut self,
        e: &mut Planned<S>,
        act: Act,
        value: &T,
    ) -> Result<(), Bail> {
        if act.check != Check::None {
            return self.checked(e, act, value);
        }
        write(e, act.write, value)?;
        self.flags |= act.flag;
        Ok(())
    }

    /// [`Open::value`] for a member with a [`Check`] (few members have one: kept out of the
    /// common path, which every member type instantiates).
    #[cold]
    #[inline(never)]
    fn checked<S: Sink, T: Describe + ?Sized>(
        &mut self,
        e: &mut Planned<S>,
        act: Act,
        value: &T,
    ) -> Result<(), Bail> {
        if !passes(act.check, value) {
            return Err(Bail);
        }
        match (act.write, act.check) {
            (Write::Plain, Check::Scalar(check)) => e.sink.plain_checked(value, check)?,
            (step, _) => write(e, step, value)?,
        }
        if act.check != Check::Entries || value.entries().is_some_and(|n| n > 0) {
            self.flags |= act.flag;
        }
        Ok(())
    }

    /// The entries of a flattened map: each key is decided as it comes.
    pub fn extra<S: Sink>(
        &mut self,
        e: &mut Planned<S>,
        plan: &Plan,
        map: &Map<String, Value>,
    ) -> Result<(), Bail> {
        for (k, x) in map {
            let act = decide(
                plan.owner,
                plan.table,
                plan.role,
                k,
                Shape::Json,
                e.version,
                e.bit,
            );
            if let Write::Skip = act.write {
                continue;
            }
            self.key(e, k, None);
            self.value(e, act, x)?;
        }
        Ok(())
    }

    /// Appends the members `role` injects that were not written.
    fn inject<S: Sink>(&mut self, e: &mut Planned<S>, role: Role) -> Result<(), Bail> {
        for (i, member) in role.injections() {
            if self.flags & shaped_flag(i) == 0
                && let Some(value) = member.injected_scalar(e.version, role)
            {
                self.key(e, member.key, None);
                e.plain(&value)?;
            }
        }
        Ok(())
    }

    /// Ends the object: what its role checks for, and the 2026-07-28 injections.
    pub fn close<S: Sink>(mut self, e: &mut Planned<S>, plan: &Plan) -> Result<(), Bail> {
        if self.flags & plan.required != plan.required {
            return Err(Bail);
        }
        match plan.role {
            Role::Result2026(shape) => {
                if shape.result_type == "input_required"
                    && self.flags & (F_INPUT_REQUESTS | F_REQUEST_STATE) == 0
                {
                    return Err(Bail);
                }
                self.inject(e, plan.role)?;
            }
            Role::ClientRequest2026 if self.flags & F_PARAMS == 0 => return Err(Bail),
            Role::ClientParams if self.flags & F_META == 0 => return Err(Bail),
            _ => {}
        }
        e.sink.close_object();
        Ok(())
    }
}

/// Writes a member's value by `step` (its key is written).
#[inline]
fn write<S: Sink, T: Describe + ?Sized>(
    e: &mut Planned<S>,
    step: Write,
    value: &T,
) -> Result<(), Bail> {
    match step {
        Write::Plain => e.plain(value),
        Write::Walk(how) => value.describe(&mut At::new(e, how)),
        Write::Json(expected) => value.describe(&mut At::typed_json(e, expected)),
        Write::Skip | Write::Bail => Err(Bail),
    }
}

/// Whether a member's value passes `check` (checks of written text pass here).
#[inline]
fn passes<T: Describe + ?Sized>(check: Check, value: &T) -> bool {
    match check {
        Check::None | Check::Scalar(_) | Check::Entries => true,
        Check::NotArray => !value.is_seq(),
        Check::Object => value.json_object().is_some(),
        Check::ObjectSchema => value
            .json_object()
            .is_some_and(|m| m.get("type").and_then(Value::as_str) == Some("object")),
        Check::Answers(when) => value
            .json_object()
            .is_some_and(|m| m.values().all(|x| when.answer(x) == AnswerVerdict::Keep)),
    }
}

/// Whether the written text of a scalar passes `check`.
fn text_passes(check: ScalarCheck, text: &[u8]) -> bool {
    check.passes(Scalar::of_text(text))
}

/// JSON typed by the edge to `expected`: the shaping serializer's walk of a map whose owner
/// its parent names (a scalar or an array is written as it is, unless `object` demands an
/// object).
fn json_as<S: Sink>(
    e: &mut Planned<S>,
    expected: Option<&'static str>,
    value: &Value,
    object: bool,
) -> Result<(), Bail> {
    match value {
        Value::Object(map) => map_as(e, expected, map),
        _ if object => Err(Bail),
        _ => e.plain(value),
    }
}

/// A JSON object typed by the edge to `expected` ([`json_as`] of an object, without a copy).
fn map_as<S: Sink>(
    e: &mut Planned<S>,
    expected: Option<&'static str>,
    map: &Map<String, Value>,
) -> Result<(), Bail> {
    let Some(expected) = expected else {
        return e.plain(map);
    };
    let known = names::known(expected);
    if known.is_clean(e.bit) {
        return e.plain(map);
    }
    let owner = known.owner;
    if owner.is_some_and(|o| o.absent[e.version.index()] != 0) {
        return Err(Bail);
    }
    let plan = Plan {
        bail: false,
        through: false,
        members: 0,
        acts: Box::new([]),
        required: 0,
        flat_required: Box::new([]),
        body: None,
        owner,
        table: None,
        role: Role::Plain,
    };
    let mut o = e.open(map.len());
    o.extra(e, &plan, map)?;
    o.close(e, &plan)
}

/// The `_meta` of a 2026-07-28 client request's params: the reserved keys are checked, the
/// client's capabilities and identity are walked as their types, and the protocol version is
/// injected when missing.
fn client_meta<S: Sink>(e: &mut Planned<S>, map: &Map<String, Value>) -> Result<(), Bail> {
    let v = e.version;
    let owner = names::known("RequestMetaObject").owner;
    if owner.is_some_and(|o| o.absent[v.index()] != 0) {
        return Err(Bail);
    }
    let mut o = e.open(map.len() + 1);
    for (k, x) in map {
        let mut opaque = false;
        if let Some(plan) = owner.and_then(|o| o.plan(k))
            && let Some((_, row)) = plan.rows[v.index()]
        {
            match row.action {
                Action::Strip => continue,
                Action::Pass => opaque = true,
                Action::Refuse(RefuseWhen::Absent) => {}
                Action::Refuse(_) => return Err(Bail),
            }
        }
        o.key(e, k, None);
        if let Some((i, member)) = Role::ClientMeta.shaped(k) {
            if opaque || !member.accepts.admits(Scalar::of_value(x), "") {
                return Err(Bail);
            }
            o.flags |= shaped_flag(i);
            e.plain(x)?;
            continue;
        }
        match k.as_str() {
            CLIENT_CAPABILITIES_KEY | CLIENT_INFO_KEY => {
                if k == CLIENT_CAPABILITIES_KEY {
                    o.flags |= F_CAPABILITIES;
                }
                if opaque {
                    e.plain(x)?;
                } else {
                    json_as(e, owner.and_then(|o| o.edge(k)), x, true)?;
                }
            }
            _ => e.plain(x)?,
        }
    }
    if o.flags & F_CAPABILITIES == 0 {
        return Err(Bail);
    }
    o.inject(e, Role::ClientMeta)?;
    e.sink.close_object();
    Ok(())
}

/// The planned emitter as the walker of a model value's description: the value is reached as
/// `how`, or (`expected`) is JSON typed by the edge to that type, which only JSON can be.
pub struct At<'p, S> {
    e: &'p mut Planned<S>,
    how: How,
    expected: Option<&'static str>,
}

impl<'p, S: Sink> At<'p, S> {
    /// A value reached as `how`.
    #[inline]
    fn new(e: &'p mut Planned<S>, how: How) -> Self {
        At {
            e,
            how,
            expected: None,
        }
    }

    /// JSON typed by the edge to `expected`.
    #[inline]
    fn typed_json(e: &'p mut Planned<S>, expected: &'static str) -> Self {
        At {
            e,
            how: How::Nested,
            expected: Some(expected),
        }
    }

    /// Untyped JSON, written as it is (only the client `_meta` role reads JSON, and only `_meta`
    /// takes it).
    fn untyped<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        match self.how {
            How::ClientMeta => Err(Bail),
            _ => self.e.plain(value),
        }
    }
}

impl<S: Sink> Walker for At<'_, S> {
    type Error = Bail;

    #[inline]
    fn scalar<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        match self.expected {
            Some(_) => Err(Bail),
            None => self.e.plain(value),
        }
    }

    fn json(&mut self, value: Json<'_>) -> Result<(), Bail> {
        match (self.expected, value) {
            (Some(expected), Json::Value(v)) => json_as(self.e, Some(expected), v, false),
            (Some(expected), Json::Object(map)) => map_as(self.e, Some(expected), map),
            (Some(expected), Json::Meta(meta)) => map_as(self.e, Some(expected), &meta.0),
            (None, Json::Meta(meta)) => match self.how {
                How::ClientMeta => client_meta(self.e, &meta.0),
                _ => self.e.plain(meta),
            },
            (None, Json::Value(v)) => self.untyped(v),
            (None, Json::Object(map)) => self.untyped(map),
        }
    }

    #[inline]
    fn none(&mut self) -> Result<(), Bail> {
        self.e.plain(&())
    }

    fn seq<T: Describe>(&mut self, items: &[T]) -> Result<(), Bail> {
        if self.expected.is_some() {
            return Err(Bail);
        }
        let e = &mut *self.e;
        e.sink.open_array(items.len());
        for (i, item) in items.iter().enumerate() {
            e.sink.item(i == 0);
            item.describe(&mut At::new(e, How::Nested))?;
        }
        e.sink.close_array();
        Ok(())
    }

    fn map<T: Describe>(&mut self, map: &IndexMap<String, T>) -> Result<(), Bail> {
        if self.expected.is_some() || self.how == How::ClientMeta {
            return Err(Bail);
        }
        let e = &mut *self.e;
        let mut o = e.open(map.len());
        for (k, x) in map {
            o.key(e, k, None);
            x.describe(&mut At::new(e, How::Nested))?;
        }
        e.sink.close_object();
        Ok(())
    }

    fn structure<T: Struct>(&mut self, value: &T) -> Result<(), Bail> {
        if self.expected.is_some() {
            return Err(Bail);
        }
        let e = &mut *self.e;
        let plans: &'static Plans = T::memo().get_or_init(Plans::new).ok_or(Bail)?;
        let plan = plans.get::<S, T>(e, self.how)?;
        if plan.through {
            return e.plain(value);
        }
        let mut o = e.open(plan.members);
        value.members(&mut Fields {
            o: &mut o,
            e: &mut *e,
            plan,
            flattened: false,
        })?;
        o.close(e, plan)
    }

    fn union_member<T: Describe>(
        &mut self,
        union: &'static Union,
        index: usize,
        member: &T,
    ) -> Result<(), Bail> {
        if self.expected.is_some() {
            return Err(Bail);
        }
        // Members with a member row at some revision are decided there by the shaping
        // serializer (refused or rewritten).
        let decided: &[Revisions] = union
            .memo
            .get_or_init(|| {
                union
                    .members
                    .iter()
                    .map(|m| m.map_or(Revisions::NONE, |m| member_rows_at(union.name, m)))
                    .collect::<Box<[Revisions]>>()
            })
            .ok_or(Bail)?
            .as_ref();
        if decided
            .get(index)
            .is_some_and(|d| d.contains(self.e.version))
        {
            return Err(Bail);
        }
        member.describe(self)
    }
}

/// The members of a struct being written by its plan; `flattened`: the members of a struct
/// flattened into it, which are keys of the same object, decided by its owner's rows and role
/// as they come (the flattened type's own plan knows nothing of them).
struct Fields<'o, 'p, S> {
    o: &'o mut Open,
    e: &'p mut Planned<S>,
    plan: &'static Plan,
    flattened: bool,
}

impl<S: Sink> Members for Fields<'_, '_, S> {
    type Error = Bail;

    #[inline]
    fn field<T: Describe + ?Sized>(
        &mut self,
        index: usize,
        key: &'static str,
        quoted: &'static [u8],
        value: &T,
    ) -> Result<(), Bail> {
        if !self.flattened {
            return self.o.field(self.e, self.plan, index, key, quoted, value);
        }
        let plan = self.plan;
        let mut act = decide(
            plan.owner,
            plan.table,
            plan.role,
            key,
            T::SHAPE,
            self.e.version,
            self.e.bit,
        );
        match act.write {
            Write::Skip => return Ok(()),
            Write::Bail => return Err(Bail),
            _ => {}
        }
        if let Some((_, flag)) = plan.flat_required.iter().find(|(k, _)| *k == key) {
            act.flag |= flag;
        }
        self.o.key(self.e, key, Some(quoted));
        self.o.value(self.e, act, value)
    }

    fn extra(&mut self, map: &Map<String, Value>) -> Result<(), Bail> {
        self.o.extra(self.e, self.plan, map)
    }

    fn flatten<T: Struct>(&mut self, value: &T) -> Result<(), Bail> {
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
