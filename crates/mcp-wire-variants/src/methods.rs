//! Which methods are variant-scoped and which notifications get tagged: two tables.

/// The four paginated list methods whose cursors the router wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
}

/// A variant-scoped request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScopedMethod {
    /// A paginated list.
    List(ListKind),
    /// `tools/call`.
    CallTool,
    /// `resources/read`.
    ReadResource,
    /// `resources/subscribe` (binds a subscription to the variant).
    Subscribe,
    /// `resources/unsubscribe` (resolved like subscribe).
    Unsubscribe,
    /// `prompts/get`.
    GetPrompt,
    /// `completion/complete` (references resolve inside the variant).
    Complete,
}

/// Wire method name → scoped method. Every method not in this table passes through.
pub const SCOPED_METHODS: [(&str, ScopedMethod); 10] = [
    ("tools/list", ScopedMethod::List(ListKind::Tools)),
    ("tools/call", ScopedMethod::CallTool),
    ("resources/list", ScopedMethod::List(ListKind::Resources)),
    (
        "resources/templates/list",
        ScopedMethod::List(ListKind::ResourceTemplates),
    ),
    ("resources/read", ScopedMethod::ReadResource),
    ("resources/subscribe", ScopedMethod::Subscribe),
    ("resources/unsubscribe", ScopedMethod::Unsubscribe),
    ("prompts/list", ScopedMethod::List(ListKind::Prompts)),
    ("prompts/get", ScopedMethod::GetPrompt),
    ("completion/complete", ScopedMethod::Complete),
];

/// Notifications a variant's backend raises that the router tags with the variant id.
pub const TAGGED_LIST_CHANGED: [&str; 3] = [
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
];

/// `notifications/resources/updated`: delivered only for a live subscription, tagged with its variant.
pub const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// `notifications/resources/list_changed`, sent when a subscribed resource leaves its variant.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";

impl ScopedMethod {
    /// Looks a wire method up in [`SCOPED_METHODS`].
    pub fn from_method(method: &str) -> Option<ScopedMethod> {
        SCOPED_METHODS
            .iter()
            .find(|(name, _)| *name == method)
            .map(|(_, m)| *m)
    }

    /// The wire method name.
    pub fn method(self) -> &'static str {
        SCOPED_METHODS
            .iter()
            .find(|(_, m)| *m == self)
            .map(|(name, _)| *name)
            .unwrap_or_default()
    }
}

impl ListKind {
    /// The wire method name of this list.
    pub fn method(self) -> &'static str {
        ScopedMethod::List(self).method()
    }

    /// Reads a list method name.
    pub fn from_method(method: &str) -> Option<ListKind> {
        match ScopedMethod::from_method(method) {
            Some(ScopedMethod::List(kind)) => Some(kind),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips() {
        for (name, method) in SCOPED_METHODS {
            assert_eq!(ScopedMethod::from_method(name), Some(method));
            assert_eq!(method.method(), name);
        }
        assert_eq!(ListKind::Prompts.method(), "prompts/list");
        assert_eq!(
            ListKind::from_method("resources/templates/list"),
            Some(ListKind::ResourceTemplates)
        );
        assert_eq!(ListKind::from_method("tools/call"), None);
        for unscoped in [
            "initialize",
            "ping",
            "logging/setLevel",
            "custom/method",
            "server/discover",
        ] {
            assert_eq!(ScopedMethod::from_method(unscoped), None, "{unscoped}");
        }
    }
}
