//! Between a revision's generated types (`mcp_wire::v2025_06_18::CallToolResult`, …) and the
//! superset model (`mcp_wire::model::CallToolResult`), through that revision's wire form.
//!
//! [`to_superset`] writes the generated value as JSON and reads it with
//! [`crate::wire::parse_as`] at the revision; [`from_superset`] emits the superset value
//! with [`crate::wire::serialize_for`] at the revision and reads the JSON as the
//! generated type. So a conversion is exactly what a peer of that revision would send or
//! receive: a superset member the revision lacks is left out (or refused, as the boundary
//! decides), and a generated value converts to what `parse_as` makes of the same JSON.
//!
//! From 2025-11-25 on, the schema's requests and notifications spell out the JSON-RPC
//! envelope (`jsonrpc`, `id`), so their generated types do too: [`to_superset`] reads the body
//! and leaves those two members out, and [`from_superset`] needs the envelope to fill them
//! (convert a [`JsonRpcRequest`](crate::jsonrpc::JsonRpcRequest), not its bare request).
//!
//! The extension traits [`ToSuperset`] and [`FromSuperset`] give the same as methods
//! (`generated.to_superset::<S>(v)`, `G::from_superset(&s, v)`); import them where wanted.
//!
//! ```
//! # #[cfg(feature = "v2025_06_18")] {
//! use mcp_wire::ProtocolVersion::V2025_06_18;
//! use mcp_wire::convert::{FromSuperset, ToSuperset};
//! use mcp_wire::{model, v2025_06_18 as d};
//!
//! let generated: d::CallToolResult =
//!     serde_json::from_str(r#"{"content":[{"type":"text","text":"5"}]}"#).unwrap();
//! let superset: model::CallToolResult = generated.to_superset(V2025_06_18).unwrap();
//! assert_eq!(superset.content[0].as_text(), Some("5"));
//! assert_eq!(d::CallToolResult::from_superset(&superset, V2025_06_18).unwrap(), generated);
//! # }
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ProtocolVersion;
use crate::jsonrpc::ErrorData;
use crate::model::{ModelError, from_value};
use crate::wire::{EmitError, ParseError, WireBody, WireParse, parse_as, serialize_for};

/// Why a conversion between a generated type and the superset failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The generated value's JSON is not a valid superset value at the revision.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The superset value has no form at the revision.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// The revision's JSON does not fit the generated type (for an untagged union: no member
    /// matched), located by its JSON path.
    #[error(transparent)]
    Generated(#[from] ModelError),
}

impl From<&ConvertError> for ErrorData {
    fn from(e: &ConvertError) -> Self {
        match e {
            ConvertError::Parse(e) => e.into(),
            ConvertError::Emit(e) => e.into(),
            ConvertError::Generated(e) => e.into(),
        }
    }
}

impl From<ConvertError> for ErrorData {
    fn from(e: ConvertError) -> Self {
        ErrorData::from(&e)
    }
}

/// Reads a generated value of revision `version` into the superset type `S`: what
/// [`parse_as`] makes of the value's JSON (the envelope members `jsonrpc` and `id` left out).
pub fn to_superset<S: WireParse, G: Serialize + ?Sized>(
    generated: &G,
    version: ProtocolVersion,
) -> Result<S, ConvertError> {
    let mut json = generated_json(generated)?;
    if let Value::Object(members) = &mut json {
        members.shift_remove("jsonrpc");
        members.shift_remove("id");
    }
    Ok(parse_as::<S>(&json, version)?)
}

/// Emits a superset body (or envelope) at `version` and reads it as the generated type `G`.
pub fn from_superset<G: DeserializeOwned, S: WireBody + ?Sized>(
    superset: &S,
    version: ProtocolVersion,
) -> Result<G, ConvertError> {
    let json = serialize_for(superset, version)?;
    Ok(from_generated_json(json)?)
}

/// Reads JSON as a generated type with a located error: a field's path, or for an untagged
/// union none of whose members matched, the union's path (serde alone reports neither).
pub fn from_generated_json<G: DeserializeOwned>(json: Value) -> Result<G, ModelError> {
    from_value(json)
}

/// A generated value as JSON. Generated types serialize to JSON objects, arrays and scalars
/// only, so this fails only for a hand-made map with non-string keys.
fn generated_json<G: Serialize + ?Sized>(generated: &G) -> Result<Value, ModelError> {
    serde_json::to_value(generated).map_err(|e| {
        ModelError::new(
            crate::JsonPath::root(),
            crate::model::ModelErrorKind::Invalid(e.to_string()),
        )
    })
}

/// `to_superset` as a method of every serializable value (meant for the generated types).
pub trait ToSuperset: Serialize {
    /// See [`to_superset`].
    fn to_superset<S: WireParse>(&self, version: ProtocolVersion) -> Result<S, ConvertError> {
        to_superset(self, version)
    }
}

impl<G: Serialize + ?Sized> ToSuperset for G {}

/// `from_superset` as an associated function of every deserializable type (meant for the
/// generated types).
pub trait FromSuperset: DeserializeOwned {
    /// See [`from_superset`].
    fn from_superset<S: WireBody + ?Sized>(
        superset: &S,
        version: ProtocolVersion,
    ) -> Result<Self, ConvertError> {
        from_superset(superset, version)
    }
}

impl<G: DeserializeOwned> FromSuperset for G {}
