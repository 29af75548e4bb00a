//! What a stateless (2026-07-28) request's `Mcp-Name` header copies from its body, by method:
//! one table for the client that writes the header and the server that checks it.

/// The params member a request's `Mcp-Name` copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameMember {
    /// `params.name`.
    Name,
    /// `params.uri`.
    Uri,
    /// `params.taskId`.
    TaskId,
}

/// Which params member `Mcp-Name` copies, by method (methods without one have no row).
const NAME_MEMBER: &[(&str, NameMember)] = &[
    ("tools/call", NameMember::Name),
    ("prompts/get", NameMember::Name),
    ("resources/read", NameMember::Uri),
    // The tasks extension (SEP-2663) routes its methods by task.
    ("tasks/get", NameMember::TaskId),
    ("tasks/update", NameMember::TaskId),
    ("tasks/cancel", NameMember::TaskId),
];

/// The member `Mcp-Name` copies for `method`; `None` when its requests carry no name.
pub(crate) fn name_member(method: &str) -> Option<NameMember> {
    NAME_MEMBER
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, member)| *member)
}
