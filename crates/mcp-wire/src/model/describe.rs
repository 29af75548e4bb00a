//! What a model value looks like from outside, and nothing more: the members of a struct with
//! their wire names, in serde's order; the member of a union; whether a value is JSON, an array,
//! a map or a scalar. No revision, no ledger, no decision: code that walks the model (the
//! boundary's emitter, in [`crate::wire`]) reads this description and decides for itself.
//!
//! Every model type implements [`Describe`]. Structs and unions get it from
//! `#[derive(Describe)]` (from `mcp-wire-derive`), which reads the same `#[serde(...)]`
//! attributes `serde_derive` reads, so the description names the members serde writes, in the
//! order it writes them; an attribute it does not know is a compile error. Scalars get it from
//! `describe_scalar!` (internal).
//!
//! A walker implements [`Walker`] (what to do with each kind of value) and, for the members of
//! a struct, [`Members`]. [`Memo`] is a slot per type where a walker may keep what it derives
//! from a type's description (its own business: this module never looks inside).

use std::any::Any;
use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Number, Value};

pub(crate) use mcp_wire_derive::Describe;

use super::Meta;
use crate::jsonrpc::{ErrorData, RequestId};

/// What a value's type looks like to the struct that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A struct with named members: its serde name, and whether serde writes it as a map (it
    /// has a `flatten`ed member, so serde reports no name for it).
    Struct {
        /// The serde (struct) name.
        name: &'static str,
        /// Whether serde writes it as a map.
        flat: bool,
    },
    /// Any JSON: a `serde_json::Value`, a JSON object map, or [`Meta`].
    Json,
    /// A map of typed values.
    Map,
    /// An array.
    Seq,
    /// A string, number, boolean or enum literal.
    Scalar,
    /// A union of structs (an enum of newtype variants).
    Union,
}

/// One member of a described struct, in serde's order (flattened members are not listed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The key on the wire.
    pub key: &'static str,
    /// The shape of its value's type.
    pub shape: Shape,
}

/// A union, as its description names it.
#[derive(Debug)]
pub struct Union {
    /// The union's name.
    pub name: &'static str,
    /// The name of each member's type, by variant index (`None` where the type is not a path).
    pub members: &'static [Option<&'static str>],
    /// The walkers' slot for this union.
    pub memo: Memo,
}

/// JSON held by the model, by what holds it.
#[derive(Debug, Clone, Copy)]
pub enum Json<'a> {
    /// Any JSON value.
    Value(&'a Value),
    /// A JSON object.
    Object(&'a Map<String, Value>),
    /// A `_meta` object.
    Meta(&'a Meta),
}

impl<'a> Json<'a> {
    /// The JSON object, when it is one.
    pub fn object(self) -> Option<&'a Map<String, Value>> {
        match self {
            Json::Value(v) => v.as_object(),
            Json::Object(m) => Some(m),
            Json::Meta(m) => Some(&m.0),
        }
    }
}

/// A slot per described type where a walker keeps what it derives from the description, built
/// on first use. Whoever fills it decides what it holds; a read asking for another type gets
/// `None`.
#[derive(Debug, Default)]
pub struct Memo(OnceLock<Box<dyn Any + Send + Sync>>);

impl Memo {
    /// An empty slot.
    pub const fn new() -> Self {
        Memo(OnceLock::new())
    }

    /// What the slot holds, built by `init` on first use; `None` when it holds another type.
    #[inline]
    pub fn get_or_init<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Option<&T> {
        self.0.get_or_init(|| Box::new(init())).downcast_ref()
    }
}

/// A model value that can describe itself to a [`Walker`].
pub trait Describe: Serialize {
    /// What the value's type looks like to its parent.
    const SHAPE: Shape;

    /// Hands the value to the walker method of its kind.
    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error>;

    /// The JSON object this value holds, if it is JSON.
    fn json_object(&self) -> Option<&Map<String, Value>> {
        None
    }

    /// Whether serde writes this value as an array.
    fn is_seq(&self) -> bool {
        matches!(Self::SHAPE, Shape::Seq)
    }

    /// The number of entries of a map value.
    fn entries(&self) -> Option<usize> {
        None
    }
}

/// A struct with named members.
pub trait Struct: Describe {
    /// The serde (struct) name.
    const NAME: &'static str;
    /// Whether serde writes it as a map (it has a `flatten`ed member).
    const FLAT: bool;
    /// Its members, in serde's order, flattened ones left out.
    const FIELDS: &'static [Field];
    /// Whether a member of struct type is flattened into it (its members are then keys of this
    /// object).
    const FLATTENS_STRUCT: bool;

    /// The walkers' slot for this type.
    fn memo() -> &'static Memo;

    /// Hands each member serde would write (`skip_serializing_if` applied) to `m`, in order.
    fn members<M: Members>(&self, m: &mut M) -> Result<(), M::Error>;
}

/// What a walker does with each kind of value.
pub trait Walker {
    /// Why a walk stops.
    type Error;

    /// A string, number, boolean or literal, written as its `Serialize` writes it.
    fn scalar<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Self::Error>;

    /// JSON the model holds as JSON.
    fn json(&mut self, value: Json<'_>) -> Result<(), Self::Error>;

    /// An absent optional value (serde writes `null`).
    fn none(&mut self) -> Result<(), Self::Error>;

    /// An array.
    fn seq<T: Describe>(&mut self, items: &[T]) -> Result<(), Self::Error>;

    /// A map of typed values.
    fn map<T: Describe>(&mut self, map: &IndexMap<String, T>) -> Result<(), Self::Error>;

    /// A struct.
    fn structure<T: Struct>(&mut self, value: &T) -> Result<(), Self::Error>;

    /// Member `index` of `union`, holding `member`.
    fn union_member<T: Describe>(
        &mut self,
        union: &'static Union,
        index: usize,
        member: &T,
    ) -> Result<(), Self::Error>;
}

/// What a walker does with the members of a struct ([`Struct::members`]).
pub trait Members {
    /// Why a walk stops.
    type Error;

    /// Member `index` of [`Struct::FIELDS`]: its key, the key in quotes with its colon, and its
    /// value.
    fn field<T: Describe + ?Sized>(
        &mut self,
        index: usize,
        key: &'static str,
        quoted: &'static [u8],
        value: &T,
    ) -> Result<(), Self::Error>;

    /// A flattened JSON object map: its entries are members of the struct's object.
    fn extra(&mut self, map: &Map<String, Value>) -> Result<(), Self::Error>;

    /// A flattened struct: its members are members of this struct's object.
    fn flatten<T: Struct>(&mut self, value: &T) -> Result<(), Self::Error>;
}

/// Implements [`Describe`] for types that serialize as one scalar.
macro_rules! describe_scalar {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::model::describe::Describe for $ty {
            const SHAPE: $crate::model::describe::Shape = $crate::model::describe::Shape::Scalar;

            #[inline]
            fn describe<W: $crate::model::describe::Walker>(
                &self,
                w: &mut W,
            ) -> Result<(), W::Error> {
                w.scalar(self)
            }
        }
    )*};
}
pub(crate) use describe_scalar;

describe_scalar!(String, &'static str, bool, u64, i64, Number);
// The JSON-RPC values the model's types hold: each crosses the boundary as one value.
describe_scalar!(RequestId, ErrorData, super::ProgressToken);

impl Describe for Value {
    const SHAPE: Shape = Shape::Json;

    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        w.json(Json::Value(self))
    }

    fn json_object(&self) -> Option<&Map<String, Value>> {
        self.as_object()
    }

    fn is_seq(&self) -> bool {
        self.is_array()
    }
}

impl Describe for Map<String, Value> {
    const SHAPE: Shape = Shape::Json;

    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        w.json(Json::Object(self))
    }

    fn json_object(&self) -> Option<&Map<String, Value>> {
        Some(self)
    }
}

impl Describe for Meta {
    const SHAPE: Shape = Shape::Json;

    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        w.json(Json::Meta(self))
    }

    fn json_object(&self) -> Option<&Map<String, Value>> {
        Some(&self.0)
    }
}

impl<T: Describe> Describe for Option<T> {
    const SHAPE: Shape = T::SHAPE;

    #[inline]
    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        match self {
            Some(v) => v.describe(w),
            None => w.none(),
        }
    }

    fn json_object(&self) -> Option<&Map<String, Value>> {
        self.as_ref().and_then(T::json_object)
    }

    fn is_seq(&self) -> bool {
        self.as_ref().is_some_and(T::is_seq)
    }

    fn entries(&self) -> Option<usize> {
        self.as_ref().and_then(T::entries)
    }
}

impl<T: Describe> Describe for Box<T> {
    const SHAPE: Shape = T::SHAPE;

    #[inline]
    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        (**self).describe(w)
    }

    fn json_object(&self) -> Option<&Map<String, Value>> {
        (**self).json_object()
    }

    fn is_seq(&self) -> bool {
        (**self).is_seq()
    }

    fn entries(&self) -> Option<usize> {
        (**self).entries()
    }
}

/// A boxed struct flattens as the struct it holds.
impl<T: Struct> Struct for Box<T> {
    const NAME: &'static str = T::NAME;
    const FLAT: bool = T::FLAT;
    const FIELDS: &'static [Field] = T::FIELDS;
    const FLATTENS_STRUCT: bool = T::FLATTENS_STRUCT;

    fn memo() -> &'static Memo {
        T::memo()
    }

    #[inline]
    fn members<M: Members>(&self, m: &mut M) -> Result<(), M::Error> {
        (**self).members(m)
    }
}

impl<T: Describe> Describe for Vec<T> {
    const SHAPE: Shape = Shape::Seq;

    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        w.seq(self)
    }
}

impl<T: Describe> Describe for IndexMap<String, T> {
    const SHAPE: Shape = Shape::Map;

    fn describe<W: Walker>(&self, w: &mut W) -> Result<(), W::Error> {
        w.map(self)
    }

    fn entries(&self) -> Option<usize> {
        Some(self.len())
    }
}
