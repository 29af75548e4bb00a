//! [`WireBody`]: the values `serialize_for` accepts (message bodies and JSON-RPC envelopes).
//!
//! The trait is sealed and implemented only for whole bodies, so passing a fragment (a content
//! block, capabilities, params) to `serialize_for` does not compile:
//!
//! ```compile_fail
//! # use mcp_wire::wire::serialize_for;
//! # use mcp_wire::ProtocolVersion;
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
    use crate::ProtocolVersion;
    use crate::wire::EmitError;
    use crate::wire::planned::Sink;

    /// Only this crate decides what is a message body, and how it is emitted.
    pub trait Sealed {
        /// Writes the body at `version` into `sink` through the emitter
        /// ([`crate::wire::planned`]); `strict` strips what the revision does not declare.
        fn emit_into<S: Sink>(
            &self,
            version: ProtocolVersion,
            strict: bool,
            sink: &mut S,
        ) -> Result<(), EmitError>;
    }
}

/// A whole message body or JSON-RPC envelope: the only values [`super::serialize_for`] accepts.
pub trait WireBody: serde::Serialize + sealed::Sealed {
    /// Which body this value is (for enums: the variant's).
    fn body_info(&self) -> BodyInfo;
}

impl<T: WireBody + ?Sized> sealed::Sealed for &T {
    fn emit_into<S: crate::wire::planned::Sink>(
        &self,
        version: crate::ProtocolVersion,
        strict: bool,
        sink: &mut S,
    ) -> Result<(), crate::wire::EmitError> {
        (**self).emit_into(version, strict, sink)
    }
}

impl<T: WireBody + ?Sized> WireBody for &T {
    fn body_info(&self) -> BodyInfo {
        (**self).body_info()
    }
}
