//! [`BodyInfo`]: which message body a value is (its spec name, kind and method), what the
//! emitter checks a body against and errors name.

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
