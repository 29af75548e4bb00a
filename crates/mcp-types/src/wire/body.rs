//! [`WireBody`]: the values `serialize_for` accepts (message bodies and JSON-RPC envelopes).
//!
//! The trait is sealed and implemented only for whole bodies, so passing a fragment (a content
//! block, capabilities, params) to `serialize_for` does not compile:
//!
//! ```compile_fail
//! # use mcp_types::wire::serialize_for;
//! # use mcp_types::ProtocolVersion;
//! // `serde_json::Value` is not a message body.
//! let fragment = serde_json::json!({"type": "text", "text": "hi"});
//! let _ = serialize_for(&fragment, ProtocolVersion::V2025_06_18);
//! ```

/// What kind of message a body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// `{"method", "params"}` of a request.
    Request,
    /// `{"method", "params"}` of a notification.
    Notification,
    /// A result object.
    Result,
    /// A whole JSON-RPC frame (request, notification, response or error).
    Envelope,
}

/// Which body a value is: its spec type name, kind and (for requests and notifications) method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BodyInfo {
    /// The spec definition name, e.g. `"CallToolResult"`.
    pub type_name: &'static str,
    /// The kind of message.
    pub kind: BodyKind,
    /// The `method`, for requests and notifications.
    pub method: Option<&'static str>,
}

impl BodyInfo {
    /// A request body.
    pub const fn request(type_name: &'static str, method: &'static str) -> Self {
        BodyInfo {
            type_name,
            kind: BodyKind::Request,
            method: Some(method),
        }
    }

    /// A notification body.
    pub const fn notification(type_name: &'static str, method: &'static str) -> Self {
        BodyInfo {
            type_name,
            kind: BodyKind::Notification,
            method: Some(method),
        }
    }

    /// A result body.
    pub const fn result(type_name: &'static str) -> Self {
        BodyInfo {
            type_name,
            kind: BodyKind::Result,
            method: None,
        }
    }

    /// A JSON-RPC frame.
    pub const fn envelope(type_name: &'static str) -> Self {
        BodyInfo {
            type_name,
            kind: BodyKind::Envelope,
            method: None,
        }
    }
}

pub(crate) mod sealed {
    /// Only this crate decides what is a message body.
    pub trait Sealed {
        /// Writes the body at `version` to the end of `out` through the planned emitter
        /// ([`crate::wire::planned`]); false when it bails or the body has no planned writer
        /// (then `out` may hold a partial write the caller truncates).
        fn emit_planned(&self, _version: crate::ProtocolVersion, _out: &mut Vec<u8>) -> bool {
            false
        }

        /// The body's JSON value at `version` from the planned emitter; `None` when it bails or
        /// the body has no planned writer.
        fn emit_planned_value(
            &self,
            _version: crate::ProtocolVersion,
        ) -> Option<serde_json::Value> {
            None
        }
    }
}

/// A whole message body or JSON-RPC envelope: the only values [`super::serialize_for`] accepts.
pub trait WireBody: serde::Serialize + sealed::Sealed {
    /// Which body this value is (for enums: the variant's).
    fn body_info(&self) -> BodyInfo;

    /// Emits the value through `ser` (envelopes override this to shape their interior).
    #[doc(hidden)]
    fn emit_with<S: serde::Serializer>(
        &self,
        version: crate::ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<super::EmissionReport>), super::EmitError> {
        super::run_body(self, version, options, track, ser)
    }
}

impl<T: WireBody + ?Sized> sealed::Sealed for &T {
    fn emit_planned(&self, version: crate::ProtocolVersion, out: &mut Vec<u8>) -> bool {
        (**self).emit_planned(version, out)
    }

    fn emit_planned_value(&self, version: crate::ProtocolVersion) -> Option<serde_json::Value> {
        (**self).emit_planned_value(version)
    }
}

impl<T: WireBody + ?Sized> WireBody for &T {
    fn body_info(&self) -> BodyInfo {
        (**self).body_info()
    }

    fn emit_with<S: serde::Serializer>(
        &self,
        version: crate::ProtocolVersion,
        options: super::EmitOptions,
        track: bool,
        ser: S,
    ) -> Result<(S::Ok, Option<super::EmissionReport>), super::EmitError> {
        (**self).emit_with(version, options, track, ser)
    }
}
