//! The 2026-07-28 shaping of a body as data: which members a role checks, what values it
//! accepts, what it injects when they are absent ([`SHAPED_MEMBERS`]), and the object roles and
//! member flags both emitters use. "What happens to `ttlMs` at 2026-07-28" is one row.
//!
//! The rules these rows implement are [`SHAPING_2026`](super::ledger::SHAPING_2026) (`S1`…`S6`,
//! which reports and errors cite); which results are shaped how is
//! [`RESULTS_2026`](super::ledger::RESULTS_2026).

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::body::{BodyInfo, BodyKind};
use super::ledger::{
    CLIENT_REQUESTS_2026, LOGGING_LEVELS, OwnerInfo, RESULT_TYPES_2026, ResultShape,
};
use crate::model::meta::keys;
use crate::{Era, ProtocolVersion};

/// Which objects a row of [`SHAPED_MEMBERS`] applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapedObject {
    /// Every 2026-07-28 result body.
    Result,
    /// A cacheable result body (every cacheable result is a complete one).
    CacheableResult,
    /// The `_meta` of a 2026-07-28 client request's `params`.
    ClientMeta,
}

/// The values a role accepts for a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// The result's own `resultType` literal (a known other one contradicts it).
    ResultType,
    /// An integer `>= 0` (an integral float counts).
    NonNegativeInteger,
    /// Any string.
    String,
    /// One of these strings; the second part says so in words.
    OneOf(&'static [&'static str], &'static str),
}

/// What a role writes for a member that is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    /// The result's own `resultType` literal.
    ResultType,
    /// This integer.
    Integer(u64),
    /// This string.
    Str(&'static str),
    /// The emission's protocol version.
    ProtocolVersion,
}

/// One member a 2026-07-28 role checks, and injects when it is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapedMember {
    /// The objects it applies to.
    pub on: ShapedObject,
    /// The member's key.
    pub key: &'static str,
    /// The values accepted (anything else is refused with the rule).
    pub accepts: Accepts,
    /// What is written when the member is absent (`None`: nothing).
    pub injected: Option<Injected>,
    /// The rule of [`SHAPING_2026`](super::ledger::SHAPING_2026) it implements.
    pub rule: &'static str,
}

/// The members 2026-07-28 shaping checks and injects, in the order injections are appended.
#[rustfmt::skip]
pub static SHAPED_MEMBERS: &[ShapedMember] = &[
    ShapedMember { on: ShapedObject::Result, key: "resultType", accepts: Accepts::ResultType, injected: Some(Injected::ResultType), rule: "S1" },
    ShapedMember { on: ShapedObject::CacheableResult, key: "ttlMs", accepts: Accepts::NonNegativeInteger, injected: Some(Injected::Integer(0)), rule: "S2" },
    ShapedMember { on: ShapedObject::CacheableResult, key: "cacheScope", accepts: Accepts::OneOf(&["public", "private"], "\"public\" or \"private\""), injected: Some(Injected::Str("private")), rule: "S2" },
    ShapedMember { on: ShapedObject::ClientMeta, key: keys::PROTOCOL_VERSION, accepts: Accepts::String, injected: Some(Injected::ProtocolVersion), rule: "S3" },
    ShapedMember { on: ShapedObject::ClientMeta, key: keys::LOG_LEVEL, accepts: Accepts::OneOf(&LOGGING_LEVELS, "a logging level"), injected: None, rule: "S6" },
];

/// The flag an object sets when it writes the member of row `index` of [`SHAPED_MEMBERS`].
pub const fn shaped_flag(index: usize) -> u32 {
    1 << index
}

/// The flag an open object sets when it writes a member its role needs ([`ShapingRole::needs`]),
/// beyond [`SHAPED_MEMBERS`]' (`shaped_flag(0..5)`).
pub const F_NEEDED: u32 = 1 << 8;

/// What an object does beyond its owner's ledger rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapingRole {
    /// Nothing beyond the rows.
    Plain,
    /// The body of a 2026-07-28 result: [`ShapedObject::Result`] rows (and
    /// [`ShapedObject::CacheableResult`] rows when it is cacheable); an input-required result
    /// needs `inputRequests` or `requestState`.
    Result2026(&'static ResultShape),
    /// The body of a 2026-07-28 client request: it needs `params`.
    ClientRequest2026,
    /// Its `params`: they need `_meta`.
    ClientParams,
    /// Its `params._meta`: [`ShapedObject::ClientMeta`] rows; it needs the client capabilities.
    ClientMeta,
}

impl ShapingRole {
    /// The rows of [`SHAPED_MEMBERS`] that apply to objects in this role, with their indexes.
    #[inline]
    fn rows(self) -> impl Iterator<Item = (usize, &'static ShapedMember)> {
        // Only results and a client `_meta` have any: no row is looked at for the other roles.
        let rows: &'static [ShapedMember] = match self {
            ShapingRole::Result2026(_) | ShapingRole::ClientMeta => SHAPED_MEMBERS,
            _ => &[],
        };
        rows.iter()
            .enumerate()
            .filter(move |(_, m)| match (self, m.on) {
                (ShapingRole::Result2026(_), ShapedObject::Result) => true,
                (ShapingRole::Result2026(shape), ShapedObject::CacheableResult) => shape.cacheable,
                (ShapingRole::ClientMeta, ShapedObject::ClientMeta) => true,
                _ => false,
            })
    }

    /// The row of [`SHAPED_MEMBERS`] for member `key` of an object in this role, with its index.
    #[inline]
    pub fn shaped(self, key: &str) -> Option<(usize, &'static ShapedMember)> {
        self.rows().find(|(_, m)| m.key == key)
    }

    /// What an object in this role must write: one of the keys (an `inputRequests` counts only
    /// with entries), else the rule refuses it, at the first key.
    pub fn needs(self) -> Option<(&'static [&'static str], &'static str)> {
        match self {
            ShapingRole::Result2026(shape) if shape.result_type == "input_required" => {
                Some((&["inputRequests", "requestState"], "S5"))
            }
            ShapingRole::ClientRequest2026 => Some((&["params"], "S4")),
            ShapingRole::ClientParams => Some((&["_meta"], "S4")),
            ShapingRole::ClientMeta => Some((&[keys::CLIENT_CAPABILITIES], "S4")),
            _ => None,
        }
    }

    /// The rows that inject a member when absent, with their indexes.
    pub fn injections(self) -> impl Iterator<Item = (usize, &'static ShapedMember)> {
        self.rows().filter(|(_, m)| m.injected.is_some())
    }

    /// The role of a message body's object at `version` (`owner`: the body type's rows): a
    /// stateless-era result or client request, or none.
    pub(crate) fn of_body(
        body: BodyInfo,
        owner: Option<&'static OwnerInfo>,
        version: ProtocolVersion,
    ) -> ShapingRole {
        if version.era() != Era::Stateless {
            return ShapingRole::Plain;
        }
        match body.kind {
            BodyKind::Result => owner
                .and_then(|o| o.result)
                .map_or(ShapingRole::Plain, ShapingRole::Result2026),
            BodyKind::Request
                if body
                    .method
                    .is_some_and(|m| CLIENT_REQUESTS_2026.contains(&m)) =>
            {
                ShapingRole::ClientRequest2026
            }
            _ => ShapingRole::Plain,
        }
    }

    /// The `resultType` literal of a result role (`""` otherwise).
    pub fn own_result_type(self) -> &'static str {
        match self {
            ShapingRole::Result2026(shape) => shape.result_type,
            _ => "",
        }
    }
}

/// A scalar as a check sees it, whichever form it was read from (the value, its text, or what
/// a serializer was given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    /// A string (its contents).
    Str(&'a str),
    /// An integer.
    Int(i128),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// Anything else, described in words (`"null"`, `"a boolean"`, `"an object"`, …).
    Other(&'static str),
}

impl<'a> Scalar<'a> {
    /// A JSON value.
    pub fn of_value(value: &'a Value) -> Self {
        match value {
            Value::String(s) => Scalar::Str(s),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => Scalar::Int(i.into()),
                (_, Some(u), _) => Scalar::Int(u.into()),
                (_, _, Some(f)) => Scalar::Float(f),
                _ => Scalar::Other("a number"),
            },
            Value::Bool(_) => Scalar::Other("a boolean"),
            Value::Null => Scalar::Other("null"),
            Value::Array(_) => Scalar::Other("an array"),
            Value::Object(_) => Scalar::Other("an object"),
        }
    }

    /// Compact JSON text as `serde_json` writes it (a string with escapes is read as
    /// [`Scalar::Other`]: a check then fails, and the caller takes the path that reads values).
    pub fn of_text(text: &'a [u8]) -> Self {
        match text {
            [b'"', inner @ .., b'"'] if !inner.contains(&b'\\') => {
                std::str::from_utf8(inner).map_or(Scalar::Other("a string"), Scalar::Str)
            }
            [b'"', ..] => Scalar::Other("a string"),
            b"true" | b"false" => Scalar::Other("a boolean"),
            b"null" => Scalar::Other("null"),
            [b'-' | b'0'..=b'9', ..] => {
                let s = std::str::from_utf8(text).unwrap_or("");
                match s.parse::<i128>() {
                    Ok(i) => Scalar::Int(i),
                    Err(_) => s
                        .parse::<f64>()
                        .map_or(Scalar::Other("a number"), Scalar::Float),
                }
            }
            [b'[', ..] => Scalar::Other("an array"),
            _ => Scalar::Other("an object"),
        }
    }

    /// Words for error messages: the value quoted, or what it is.
    pub fn describe(self) -> String {
        match self {
            Scalar::Str(s) => format!("\"{s}\""),
            Scalar::Int(n) => n.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Other(what) => what.to_owned(),
        }
    }
}

/// Written as serde writes the string or the number (an injected value is one of them);
/// [`Scalar::Other`] only describes a value, and fails.
impl Serialize for Scalar<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Scalar::Str(v) => s.serialize_str(v),
            Scalar::Int(n) => s.serialize_i128(n),
            Scalar::Float(f) => s.serialize_f64(f),
            Scalar::Other(what) => Err(S::Error::custom(format!("{what} has no value to write"))),
        }
    }
}

impl Accepts {
    /// Whether `value` is accepted; `own` is the result's own `resultType` literal.
    pub fn admits(self, value: Scalar<'_>, own: &str) -> bool {
        match (self, value) {
            (Accepts::ResultType, Scalar::Str(s)) => s == own,
            (Accepts::NonNegativeInteger, Scalar::Int(n)) => n >= 0,
            (Accepts::NonNegativeInteger, Scalar::Float(f)) => f >= 0.0 && f.fract() == 0.0,
            (Accepts::String, Scalar::Str(_)) => true,
            (Accepts::OneOf(values, _), Scalar::Str(s)) => values.contains(&s),
            _ => false,
        }
    }
}

impl ShapedMember {
    /// Why `value` is refused for this member (`shape`'s name and literal for `resultType`).
    pub fn refusal(&self, value: Scalar<'_>, role: ShapingRole) -> String {
        let found = value.describe();
        match (self.accepts, role, value) {
            (Accepts::ResultType, ShapingRole::Result2026(shape), Scalar::Str(s))
                if RESULT_TYPES_2026.contains(&s) =>
            {
                format!(
                    "resultType \"{s}\" contradicts {}, whose resultType is \"{}\"",
                    shape.name, shape.result_type
                )
            }
            (Accepts::ResultType, ..) => {
                format!("resultType must be \"complete\" or \"input_required\", found {found}")
            }
            (Accepts::NonNegativeInteger, ..) => {
                format!("{} must be an integer >= 0, found {found}", self.key)
            }
            (Accepts::String, ..) => format!("{} must be a string, found {found}", self.key),
            (Accepts::OneOf(_, what), ..) => format!("{} must be {what}, found {found}", self.key),
        }
    }

    /// What is injected for an absent member, at `version` in `role`.
    pub fn injected_scalar(
        &self,
        version: ProtocolVersion,
        role: ShapingRole,
    ) -> Option<Scalar<'static>> {
        self.injected.map(|i| match i {
            Injected::ResultType => Scalar::Str(role.own_result_type()),
            Injected::Integer(n) => Scalar::Int(n.into()),
            Injected::Str(s) => Scalar::Str(s),
            Injected::ProtocolVersion => Scalar::Str(version.as_str()),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::ledger::RESULTS_2026;

    #[test]
    fn every_cacheable_result_is_complete() {
        // The cache hints are injected into cacheable results only; the rule says "complete".
        for shape in RESULTS_2026.iter().filter(|s| s.cacheable) {
            assert_eq!(shape.result_type, "complete", "{}", shape.name);
        }
    }

    #[test]
    fn the_flags_do_not_overlap() {
        let shaped = (0..SHAPED_MEMBERS.len()).fold(0, |acc, i| acc | shaped_flag(i));
        assert_eq!(shaped & F_NEEDED, 0, "shaped flags run into F_NEEDED");
    }

    #[test]
    fn one_judgement_whatever_form_the_scalar_was_read_from() {
        let ttl = SHAPED_MEMBERS[1];
        assert_eq!(ttl.key, "ttlMs");
        for (text, ok) in [
            ("0", true),
            ("60000", true),
            ("1.0", true),
            ("1e3", true),
            ("-1", false),
            ("0.5", false),
            ("\"5\"", false),
            ("null", false),
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let from_text = Scalar::of_text(text.as_bytes());
            let from_value = Scalar::of_value(&value);
            assert_eq!(ttl.accepts.admits(from_text, ""), ok, "text {text}");
            assert_eq!(ttl.accepts.admits(from_value, ""), ok, "value {text}");
        }
        let scope = SHAPED_MEMBERS[2];
        assert!(scope.accepts.admits(Scalar::of_text(b"\"public\""), ""));
        assert!(!scope.accepts.admits(Scalar::of_text(b"\"shared\""), ""));
        assert_eq!(
            scope.refusal(Scalar::Str("shared"), ShapingRole::Plain),
            "cacheScope must be \"public\" or \"private\", found \"shared\""
        );
        let rt = SHAPED_MEMBERS[0];
        assert!(
            rt.accepts
                .admits(Scalar::Str("input_required"), "input_required")
        );
        assert!(!rt.accepts.admits(Scalar::Str("complete"), "input_required"));
        // An escaped string is not judged from text: the check fails there and the value path
        // decides.
        assert_eq!(Scalar::of_text(br#""a\"b""#), Scalar::Other("a string"));
    }

    #[test]
    fn injections_follow_the_role() {
        let injected =
            |role: ShapingRole| role.injections().map(|(_, m)| m.key).collect::<Vec<_>>();
        let result = |name| RESULTS_2026.iter().find(|s| s.name == name).unwrap();
        let tools = injected(ShapingRole::Result2026(result("ListToolsResult")));
        assert_eq!(tools, ["resultType", "ttlMs", "cacheScope"]);
        let call = injected(ShapingRole::Result2026(result("CallToolResult")));
        assert_eq!(call, ["resultType"]);
        assert_eq!(injected(ShapingRole::ClientMeta), [keys::PROTOCOL_VERSION]);
        assert_eq!(
            SHAPED_MEMBERS[3]
                .injected_scalar(ProtocolVersion::V2026_07_28, ShapingRole::ClientMeta)
                .map(|s| serde_json::to_value(s).unwrap()),
            Some(Value::from("2026-07-28"))
        );
    }

    #[test]
    fn one_verdict_per_elicitation_answer() {
        use crate::wire::ledger::{AnswerVerdict::*, RefuseWhen::*};
        let cases = [
            (json!("a"), Keep, Keep),
            (json!(3), Keep, Keep),
            (json!(true), Keep, Keep),
            (json!(1.5), Keep, Keep),
            (json!(-2.5e-3), Keep, Keep),
            (json!(null), Strip, Strip),
            (json!(["a", "b"]), Refuse, Keep),
            (json!(["a", 1]), Refuse, Refuse),
            (json!({"a": 1}), Refuse, Refuse),
        ];
        for (value, primitive, strings) in cases {
            let verdicts = [
                (NotPrimitiveValue, primitive),
                (NotPrimitiveOrStringsValue, strings),
            ];
            for (when, want) in verdicts.into_iter().chain([(Present, Keep)]) {
                assert_eq!(when.answer(&value), want, "{value} {when:?}");
            }
        }
    }
}
