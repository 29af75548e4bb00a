//! The catalog: registered variants with their priority and backend, and the ranking that turns
//! a client's hints into the list advertised at `initialize`.
//!
//! A [`Ranker`] only orders candidates. Whatever it returns, [`VariantCatalog::rank`] enforces the
//! invariants: ids are unique and visible, omitted candidates are appended in priority order, the
//! head is stable (unless the client asked for experimental variants, and even then never
//! deprecated), and the list is cut to the discovery limit with `moreVariantsAvailable` set.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use mcp_wire::ProtocolVersion;

use crate::cursor::{CursorKey, CursorKeyTooShort};
use crate::error::{RankerError, VariantError};
use crate::wire::{
    ServerVariant, SlotPolicy, VariantHints, VariantId, VariantStatus, hint_keys,
    is_valid_removal_date,
};

/// Who is talking: an opaque key the transport derives from verified authentication (issuer,
/// subject, client id), or [`PrincipalKey::anonymous`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PrincipalKey(String);

impl PrincipalKey {
    /// A principal identified by `key`.
    pub fn new(key: impl Into<String>) -> Self {
        PrincipalKey(key.into())
    }

    /// The unauthenticated principal (e.g. a local stdio client).
    pub fn anonymous() -> Self {
        PrincipalKey(String::new())
    }

    /// The key (empty for anonymous).
    pub fn key(&self) -> &str {
        &self.0
    }
}

/// One visible variant offered to a ranker.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The variant's wire description.
    pub variant: &'a ServerVariant,
    /// Registration priority: lower is more important.
    pub priority: i32,
    /// Registration order (0 for the first registered).
    pub index: usize,
}

/// What a ranker sees.
#[derive(Debug, Clone, Copy)]
pub struct RankingInput<'a> {
    /// The client's hints, when it sent any.
    pub hints: Option<&'a VariantHints>,
    /// The variants visible to the principal, in default order (priority, status, registration).
    pub candidates: &'a [Candidate<'a>],
    /// The principal being served.
    pub principal: &'a PrincipalKey,
}

/// Orders candidates for one client. Return ids best first; omitted candidates are appended.
pub trait Ranker: Send + Sync {
    /// The ranked ids.
    fn rank(&self, input: &RankingInput<'_>) -> Vec<VariantId>;
}

impl<F> Ranker for F
where
    F: Fn(&RankingInput<'_>) -> Vec<VariantId> + Send + Sync,
{
    fn rank(&self, input: &RankingInput<'_>) -> Vec<VariantId> {
        self(input)
    }
}

/// The Go reference's ranking: ignores hints, orders by priority, then status, then registration.
#[derive(Debug, Clone, Copy, Default)]
pub struct PriorityRanker;

impl Ranker for PriorityRanker {
    fn rank(&self, input: &RankingInput<'_>) -> Vec<VariantId> {
        // Candidates already arrive in default order.
        input
            .candidates
            .iter()
            .map(|c| c.variant.id.clone())
            .collect()
    }
}

/// The default ranking: for every client hint whose preference list contains the variant's hint
/// value for the same key, add `list length - position`; highest score first, ties in default
/// order. Comparison is exact and case-sensitive. The key [`hint_keys::STATUS`] is matched
/// against the variant's effective status.
#[derive(Debug, Clone, Copy, Default)]
pub struct HintScoreRanker;

impl HintScoreRanker {
    /// The score of one variant for the given hints.
    pub fn score(hints: &VariantHints, variant: &ServerVariant) -> usize {
        let status = variant.effective_status();
        hints
            .iter()
            .filter_map(|(key, wanted)| {
                let offered = if key == hint_keys::STATUS {
                    Some(status.as_str())
                } else {
                    variant.hint(key)
                };
                let values = wanted.values();
                offered
                    .and_then(|v| values.iter().position(|w| *w == v))
                    .map(|pos| values.len() - pos)
            })
            .sum()
    }
}

impl Ranker for HintScoreRanker {
    fn rank(&self, input: &RankingInput<'_>) -> Vec<VariantId> {
        let mut scored: Vec<(usize, &Candidate<'_>)> = input
            .candidates
            .iter()
            .map(|c| (input.hints.map_or(0, |h| Self::score(h, c.variant)), c))
            .collect();
        // Stable sort: equal scores keep default order.
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        scored
            .into_iter()
            .map(|(_, c)| c.variant.id.clone())
            .collect()
    }
}

/// The default "did the client explicitly ask for experimental variants?" test: some hint value
/// (or array element) is the literal `experimental`.
pub fn asks_for_experimental(hints: &VariantHints) -> bool {
    hints.mentions("experimental")
}

/// The handshake revisions the extension is enabled for by default.
pub const DEFAULT_PROTOCOLS: [ProtocolVersion; 4] = [
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// The default discovery limit (the SEP suggests 2–5).
pub const DEFAULT_DISCOVERY_LIMIT: usize = 5;

/// Whether to advertise the list to clients that did not send the extension payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AdvertisePolicy {
    /// Always advertise (Go and the HTTP adapter do; unaware clients ignore it).
    #[default]
    Always,
    /// Only when the client opted in; others still get the default variant.
    WhenClientOptsIn,
}

type Visibility = dyn Fn(&ServerVariant, &PrincipalKey) -> bool + Send + Sync;
type OptIn = dyn Fn(&VariantHints) -> bool + Send + Sync;

struct Entry<B> {
    variant: ServerVariant,
    priority: i32,
    backend: B,
}

/// A registered set of variants and the policies that govern them. Immutable once built.
pub struct VariantCatalog<B> {
    entries: Vec<Entry<B>>,
    ranker: Box<dyn Ranker>,
    visibility: Option<Box<Visibility>>,
    experimental_opt_in: Box<OptIn>,
    discovery_limit: usize,
    protocols: Vec<ProtocolVersion>,
    pub(crate) slot: SlotPolicy,
    pub(crate) advertise: AdvertisePolicy,
    pub(crate) enumerate_in_errors: bool,
    /// The cursor keys: the current one (mints) first, then previous ones (verify only).
    pub(crate) cursor_keys: Vec<CursorKey>,
    /// How long a minted cursor is accepted, in seconds (`None`: no expiry).
    pub(crate) cursor_ttl: Option<u64>,
}

impl<B> fmt::Debug for VariantCatalog<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantCatalog")
            .field(
                "variants",
                &self
                    .entries
                    .iter()
                    .map(|e| e.variant.id.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("discovery_limit", &self.discovery_limit)
            .field("protocols", &self.protocols)
            .finish_non_exhaustive()
    }
}

/// The outcome of ranking for one client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// The advertised ids, default first.
    pub ids: Vec<VariantId>,
    /// Whether the principal could see more than `ids`.
    pub more_available: bool,
    /// Whether the client explicitly asked for experimental variants.
    pub experimental_requested: bool,
}

impl<B> VariantCatalog<B> {
    /// Starts a catalog.
    pub fn builder() -> VariantCatalogBuilder<B> {
        VariantCatalogBuilder {
            entries: Vec::new(),
            ranker: Box::new(HintScoreRanker),
            visibility: None,
            experimental_opt_in: Box::new(asks_for_experimental),
            discovery_limit: DEFAULT_DISCOVERY_LIMIT,
            protocols: DEFAULT_PROTOCOLS.to_vec(),
            slot: SlotPolicy::default(),
            advertise: AdvertisePolicy::default(),
            enumerate_in_errors: true,
            cursor_key: None,
            previous_cursor_keys: Vec::new(),
            cursor_ttl: None,
        }
    }

    /// Every registered variant, in registration order.
    pub fn variants(&self) -> impl Iterator<Item = &ServerVariant> {
        self.entries.iter().map(|e| &e.variant)
    }

    /// A registered variant by id.
    pub fn variant(&self, id: &str) -> Option<&ServerVariant> {
        self.entry(id).map(|e| &e.variant)
    }

    /// The backend handle of a registered variant.
    pub fn backend(&self, id: &str) -> Option<&B> {
        self.entry(id).map(|e| &e.backend)
    }

    /// Whether `principal` may see the variant `id`.
    pub fn is_visible_to(&self, id: &str, principal: &PrincipalKey) -> bool {
        self.entry(id).is_some_and(|e| {
            self.visibility
                .as_ref()
                .is_none_or(|f| f(&e.variant, principal))
        })
    }

    /// Whether the extension is enabled at `version`.
    pub fn is_enabled_for(&self, version: ProtocolVersion) -> bool {
        self.protocols.contains(&version)
    }

    fn entry(&self, id: &str) -> Option<&Entry<B>> {
        self.entries.iter().find(|e| e.variant.id == id)
    }

    fn visible(&self, principal: &PrincipalKey) -> Vec<Candidate<'_>> {
        let mut candidates: Vec<Candidate<'_>> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                self.visibility
                    .as_ref()
                    .is_none_or(|f| f(&e.variant, principal))
            })
            .map(|(index, e)| Candidate {
                variant: &e.variant,
                priority: e.priority,
                index,
            })
            .collect();
        candidates.sort_by(default_order);
        candidates
    }

    /// Ranks the variants visible to `principal` for `hints` and applies every invariant.
    pub fn rank(
        &self,
        hints: Option<&VariantHints>,
        principal: &PrincipalKey,
    ) -> Result<Ranked, VariantError> {
        let candidates = self.visible(principal);
        if candidates.is_empty() {
            return Err(VariantError::NoVisibleVariant);
        }
        let proposed = self.ranker.rank(&RankingInput {
            hints,
            candidates: &candidates,
            principal,
        });

        // Unique, known ids; then whatever the ranker left out, in default order.
        let known: HashSet<&str> = candidates.iter().map(|c| c.variant.id.as_str()).collect();
        let mut seen: HashSet<VariantId> = HashSet::new();
        let mut order: Vec<&Candidate<'_>> = Vec::with_capacity(candidates.len());
        for id in proposed {
            if !known.contains(id.as_str()) {
                return Err(RankerError::UnknownId(id).into());
            }
            if !seen.insert(id.clone()) {
                return Err(RankerError::DuplicateId(id).into());
            }
            if let Some(c) = candidates.iter().find(|c| c.variant.id == id) {
                order.push(c);
            }
        }
        order.extend(candidates.iter().filter(|c| !seen.contains(&c.variant.id)));

        // Stable first, unless the client asked for experimental and the head is experimental.
        let experimental_requested = hints.is_some_and(|h| (self.experimental_opt_in)(h));
        let head_ok = match order[0].variant.effective_status() {
            VariantStatus::Stable => true,
            VariantStatus::Experimental => experimental_requested,
            _ => false,
        };
        if !head_ok {
            let stable = order
                .iter()
                .position(|c| c.variant.is_stable())
                .ok_or(VariantError::NoStableVariant)?;
            let promoted = order.remove(stable);
            order.insert(0, promoted);
        }

        // Discovery limit: at least two when two or more are visible, so there is a fallback.
        let limit = self.discovery_limit.max(2.min(order.len()));
        let more_available = order.len() > limit;
        order.truncate(limit);
        Ok(Ranked {
            ids: order.iter().map(|c| c.variant.id.clone()).collect(),
            more_available,
            experimental_requested,
        })
    }
}

fn default_order(a: &Candidate<'_>, b: &Candidate<'_>) -> Ordering {
    a.priority
        .cmp(&b.priority)
        .then_with(|| {
            a.variant
                .effective_status()
                .weight()
                .cmp(&b.variant.effective_status().weight())
        })
        .then_with(|| a.index.cmp(&b.index))
}

/// Builds a [`VariantCatalog`]; [`Self::build`] checks the configuration.
pub struct VariantCatalogBuilder<B> {
    entries: Vec<Entry<B>>,
    ranker: Box<dyn Ranker>,
    visibility: Option<Box<Visibility>>,
    experimental_opt_in: Box<OptIn>,
    discovery_limit: usize,
    protocols: Vec<ProtocolVersion>,
    slot: SlotPolicy,
    advertise: AdvertisePolicy,
    enumerate_in_errors: bool,
    cursor_key: Option<Result<CursorKey, CursorKeyTooShort>>,
    previous_cursor_keys: Vec<Result<CursorKey, CursorKeyTooShort>>,
    cursor_ttl: Option<u64>,
}

impl<B> VariantCatalogBuilder<B> {
    /// Registers a variant with its priority (lower is more important) and backend handle.
    pub fn variant(mut self, variant: ServerVariant, priority: i32, backend: B) -> Self {
        self.entries.push(Entry {
            variant,
            priority,
            backend,
        });
        self
    }

    /// Replaces the default [`HintScoreRanker`].
    pub fn ranker(mut self, ranker: impl Ranker + 'static) -> Self {
        self.ranker = Box::new(ranker);
        self
    }

    /// Restricts which variants a principal may see (default: all).
    pub fn visibility(
        mut self,
        f: impl Fn(&ServerVariant, &PrincipalKey) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.visibility = Some(Box::new(f));
        self
    }

    /// Replaces [`asks_for_experimental`] as the test for "the client asked for experimental".
    pub fn experimental_opt_in(
        mut self,
        f: impl Fn(&VariantHints) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.experimental_opt_in = Box::new(f);
        self
    }

    /// How many variants to advertise at most (default 5; never fewer than 2 when 2 are visible).
    pub fn discovery_limit(mut self, limit: usize) -> Self {
        self.discovery_limit = limit;
        self
    }

    /// The handshake revisions the extension is enabled for (default: all four).
    pub fn protocols(mut self, versions: impl IntoIterator<Item = ProtocolVersion>) -> Self {
        self.protocols = versions.into_iter().collect();
        self
    }

    /// Where the server payload is written (default `extensions`).
    pub fn slot(mut self, slot: SlotPolicy) -> Self {
        self.slot = slot;
        self
    }

    /// Whether clients without the payload get the list advertised (default: always).
    pub fn advertise(mut self, policy: AdvertisePolicy) -> Self {
        self.advertise = policy;
        self
    }

    /// Whether "Invalid server variant" lists the session's ids (default: yes).
    pub fn error_enumeration(mut self, enumerate: bool) -> Self {
        self.enumerate_in_errors = enumerate;
        self
    }

    /// The secret that signs cursors (required, at least 16 bytes).
    pub fn cursor_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.cursor_key = Some(CursorKey::new(key));
        self
    }

    /// A previous cursor secret, still accepted for verification (never for minting) so the
    /// cursors clients hold survive a key rotation; remove it to retire it.
    pub fn previous_cursor_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.previous_cursor_keys.push(CursorKey::new(key));
        self
    }

    /// Cursors expire `ttl` after they were minted (checked against the time the transport
    /// passes with each request, see [`crate::RequestView::with_now`]). Default: no expiry.
    pub fn cursor_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.cursor_ttl = Some(ttl.as_secs().max(1));
        self
    }

    /// Checks the configuration and returns the catalog, or every problem found.
    pub fn build(self) -> Result<Arc<VariantCatalog<B>>, CatalogError> {
        let mut problems = Vec::new();
        if self.entries.is_empty() {
            problems.push(CatalogProblem::NoVariants);
        }
        let mut ids = HashSet::new();
        for e in &self.entries {
            let v = &e.variant;
            if v.id.as_str().is_empty() {
                problems.push(CatalogProblem::EmptyId);
            } else if !ids.insert(v.id.as_str()) {
                problems.push(CatalogProblem::DuplicateId(v.id.clone()));
            }
            if v.description.trim().is_empty() {
                problems.push(CatalogProblem::EmptyDescription(v.id.clone()));
            }
            if let Some(VariantStatus::Other(s)) = &v.status {
                problems.push(CatalogProblem::UnknownStatus(v.id.clone(), s.clone()));
            }
            if let Some(info) = &v.deprecation_info {
                if let Some(date) = &info.removal_date
                    && !is_valid_removal_date(date)
                {
                    problems.push(CatalogProblem::BadRemovalDate(v.id.clone(), date.clone()));
                }
                if !matches!(v.status, Some(VariantStatus::Deprecated)) {
                    problems.push(CatalogProblem::DeprecationInfoOnLiveVariant(v.id.clone()));
                }
            }
        }
        for e in &self.entries {
            if let Some(r) = e
                .variant
                .deprecation_info
                .as_ref()
                .and_then(|i| i.replacement.as_ref())
                && !ids.contains(r.as_str())
            {
                problems.push(CatalogProblem::UnknownReplacement(
                    e.variant.id.clone(),
                    r.clone(),
                ));
            }
        }
        if !self.entries.is_empty() && !self.entries.iter().any(|e| e.variant.is_stable()) {
            problems.push(CatalogProblem::NoStableVariant);
        }
        if self.discovery_limit == 0 {
            problems.push(CatalogProblem::ZeroDiscoveryLimit);
        }
        if let Some(v) = self
            .protocols
            .iter()
            .find(|v| v.era() != mcp_wire::Era::Handshake)
        {
            problems.push(CatalogProblem::SessionlessProtocol(*v));
        }
        let mut previous = Vec::new();
        for key in self.previous_cursor_keys {
            match key {
                Ok(k) => previous.push(k),
                Err(e) => problems.push(CatalogProblem::CursorKey(e)),
            }
        }
        let cursor_key = match self.cursor_key {
            None => {
                problems.push(CatalogProblem::MissingCursorKey);
                None
            }
            Some(Err(e)) => {
                problems.push(CatalogProblem::CursorKey(e));
                None
            }
            Some(Ok(k)) => Some(k),
        };
        match cursor_key {
            Some(cursor_key) if problems.is_empty() => Ok(Arc::new(VariantCatalog {
                entries: self.entries,
                ranker: self.ranker,
                visibility: self.visibility,
                experimental_opt_in: self.experimental_opt_in,
                discovery_limit: self.discovery_limit,
                protocols: self.protocols,
                slot: self.slot,
                advertise: self.advertise,
                enumerate_in_errors: self.enumerate_in_errors,
                cursor_keys: std::iter::once(cursor_key).chain(previous).collect(),
                cursor_ttl: self.cursor_ttl,
            })),
            _ => Err(CatalogError { problems }),
        }
    }
}

/// One thing wrong with a catalog configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogProblem {
    /// No variant registered.
    #[error("no variant registered")]
    NoVariants,
    /// A variant with an empty id.
    #[error("a variant has an empty id")]
    EmptyId,
    /// Two variants with the same id.
    #[error("variant id '{0}' registered twice")]
    DuplicateId(VariantId),
    /// A variant without a description.
    #[error("variant '{0}' has an empty description")]
    EmptyDescription(VariantId),
    /// A status outside stable/experimental/deprecated.
    #[error("variant '{0}' has unknown status '{1}'")]
    UnknownStatus(VariantId, String),
    /// A removal date that is not `YYYY-MM-DD[T…]`.
    #[error("variant '{0}' has removal date '{1}', expected YYYY-MM-DD")]
    BadRemovalDate(VariantId, String),
    /// Deprecation guidance on a variant that is not deprecated.
    #[error("variant '{0}' carries deprecationInfo but is not deprecated")]
    DeprecationInfoOnLiveVariant(VariantId),
    /// A replacement id that names no registered variant.
    #[error("variant '{0}' names replacement '{1}', which is not registered")]
    UnknownReplacement(VariantId, VariantId),
    /// No stable variant at all: the head of every list must be stable.
    #[error("no stable variant registered")]
    NoStableVariant,
    /// A discovery limit of zero.
    #[error("discovery limit must be at least 1")]
    ZeroDiscoveryLimit,
    /// A revision without `initialize` in the allow-list.
    #[error("server variants need an initialize handshake; {0} has none")]
    SessionlessProtocol(ProtocolVersion),
    /// No cursor key.
    #[error("no cursor key configured")]
    MissingCursorKey,
    /// A cursor key that is too short.
    #[error(transparent)]
    CursorKey(CursorKeyTooShort),
}

/// Every problem [`VariantCatalogBuilder::build`] found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid variant catalog: {}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct CatalogError {
    /// The problems, in the order found.
    pub problems: Vec<CatalogProblem>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{DeprecationInfo, HintValue};

    const KEY: &[u8] = b"test-key-test-key-test-key";

    fn v(id: &str) -> ServerVariant {
        ServerVariant::new(id, format!("{id} variant"))
    }

    fn exp(id: &str) -> ServerVariant {
        v(id).with_status(VariantStatus::Experimental)
    }

    fn dep(id: &str) -> ServerVariant {
        v(id).deprecated(DeprecationInfo::new("old"))
    }

    fn ids(r: &Ranked) -> Vec<&str> {
        r.ids.iter().map(VariantId::as_str).collect()
    }

    fn anon() -> PrincipalKey {
        PrincipalKey::anonymous()
    }

    #[test]
    fn priority_ranker_matches_go_order() {
        // priority, then status weight, then registration order.
        let cat = VariantCatalog::builder()
            .variant(v("b"), 1, ())
            .variant(exp("x"), 0, ())
            .variant(v("a"), 0, ())
            .variant(v("c"), 1, ())
            .ranker(PriorityRanker)
            .cursor_key(KEY)
            .build()
            .unwrap();
        let r = cat.rank(None, &anon()).unwrap();
        assert_eq!(ids(&r), ["a", "x", "b", "c"]);
        assert!(!r.more_available);
    }

    #[test]
    fn hint_score_respects_preference_positions() {
        let cat = VariantCatalog::builder()
            .variant(v("compact").with_hint("contextSize", "compact"), 0, ())
            .variant(v("standard").with_hint("contextSize", "standard"), 1, ())
            .variant(v("verbose").with_hint("contextSize", "verbose"), 2, ())
            .cursor_key(KEY)
            .build()
            .unwrap();
        let hints = VariantHints::new().with_hint("contextSize", ["verbose", "standard"]);
        assert_eq!(
            ids(&cat.rank(Some(&hints), &anon()).unwrap()),
            ["verbose", "standard", "compact"]
        );
        let none = VariantHints::new().with_hint("unknownKey", "x");
        assert_eq!(
            ids(&cat.rank(Some(&none), &anon()).unwrap()),
            ["compact", "standard", "verbose"]
        );
        assert_eq!(
            HintScoreRanker::score(&hints, cat.variant("standard").unwrap()),
            1
        );
    }

    #[test]
    fn stable_first_is_enforced_whatever_the_ranker_says() {
        let cat = VariantCatalog::builder()
            .variant(v("stable"), 0, ())
            .variant(exp("fallback"), 1, ())
            .variant(dep("old"), 2, ())
            .ranker(|_: &RankingInput<'_>| vec![VariantId::from("old"), "fallback".into()])
            .cursor_key(KEY)
            .build()
            .unwrap();
        // Deprecated head → the first stable is promoted, the rest keeps the ranker's order.
        let r = cat.rank(None, &anon()).unwrap();
        assert_eq!(ids(&r), ["stable", "old", "fallback"]);
        assert!(!r.experimental_requested);
        // Even a client asking for experimental never gets a deprecated head.
        let asks = VariantHints::new().with_hint("status", "experimental");
        assert_eq!(
            ids(&cat.rank(Some(&asks), &anon()).unwrap()),
            ["stable", "old", "fallback"]
        );
    }

    #[test]
    fn experimental_head_only_when_asked() {
        // The HTTP adapter's case: with {status: experimental} the experimental fallback leads.
        let cat = VariantCatalog::builder()
            .variant(v("stable"), 0, ())
            .variant(exp("fallback"), 1, ())
            .cursor_key(KEY)
            .build()
            .unwrap();
        let asks = VariantHints::new().with_hint("status", "experimental");
        let r = cat.rank(Some(&asks), &anon()).unwrap();
        assert_eq!(ids(&r), ["fallback", "stable"]);
        assert!(r.experimental_requested);
        // A ranker putting it first without the request is overruled.
        let cat = VariantCatalog::builder()
            .variant(v("stable"), 0, ())
            .variant(exp("fallback"), 1, ())
            .ranker(|i: &RankingInput<'_>| {
                i.candidates
                    .iter()
                    .rev()
                    .map(|c| c.variant.id.clone())
                    .collect()
            })
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(
            ids(&cat.rank(None, &anon()).unwrap()),
            ["stable", "fallback"]
        );
        let custom = VariantCatalog::builder()
            .variant(v("stable"), 0, ())
            .variant(exp("fallback"), 1, ())
            .ranker(|i: &RankingInput<'_>| {
                i.candidates
                    .iter()
                    .rev()
                    .map(|c| c.variant.id.clone())
                    .collect()
            })
            .experimental_opt_in(|h: &VariantHints| h.get("channel").is_some())
            .cursor_key(KEY)
            .build()
            .unwrap();
        let channel = VariantHints::new().with_hint("channel", "beta");
        assert_eq!(
            ids(&custom.rank(Some(&channel), &anon()).unwrap()),
            ["fallback", "stable"]
        );
    }

    #[test]
    fn ranker_contract_violations() {
        let unknown = VariantCatalog::builder()
            .variant(v("a"), 0, ())
            .ranker(|_: &RankingInput<'_>| vec![VariantId::from("ghost")])
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(
            unknown.rank(None, &anon()),
            Err(VariantError::Ranker(RankerError::UnknownId("ghost".into())))
        );
        let dup = VariantCatalog::builder()
            .variant(v("a"), 0, ())
            .variant(v("b"), 1, ())
            .ranker(|_: &RankingInput<'_>| vec![VariantId::from("a"), "a".into()])
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(
            dup.rank(None, &anon()),
            Err(VariantError::Ranker(RankerError::DuplicateId("a".into())))
        );
        // Omitted ids are appended in default order.
        let partial = VariantCatalog::builder()
            .variant(v("a"), 0, ())
            .variant(v("b"), 2, ())
            .variant(v("c"), 1, ())
            .ranker(|_: &RankingInput<'_>| vec![VariantId::from("b")])
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(ids(&partial.rank(None, &anon()).unwrap()), ["b", "a", "c"]);
    }

    #[test]
    fn discovery_limit_and_more_flag() {
        let build = |limit| {
            VariantCatalog::builder()
                .variant(v("a"), 0, ())
                .variant(v("b"), 1, ())
                .variant(v("c"), 2, ())
                .discovery_limit(limit)
                .cursor_key(KEY)
                .build()
                .unwrap()
        };
        let r = build(2).rank(None, &anon()).unwrap();
        assert_eq!((ids(&r), r.more_available), (vec!["a", "b"], true));
        // A limit of 1 still leaves a fallback.
        let r = build(1).rank(None, &anon()).unwrap();
        assert_eq!((ids(&r), r.more_available), (vec!["a", "b"], true));
        let r = build(3).rank(None, &anon()).unwrap();
        assert_eq!((ids(&r).len(), r.more_available), (3, false));
    }

    #[test]
    fn visibility_filters_before_ranking() {
        let cat = VariantCatalog::builder()
            .variant(v("public"), 1, ())
            .variant(v("internal"), 0, ())
            .variant(exp("lab"), 2, ())
            .visibility(|v: &ServerVariant, p: &PrincipalKey| {
                v.id != "internal" || p.key() == "staff"
            })
            .cursor_key(KEY)
            .build()
            .unwrap();
        let staff = cat.rank(None, &PrincipalKey::new("staff")).unwrap();
        assert_eq!(ids(&staff), ["internal", "public", "lab"]);
        let guest = cat.rank(None, &PrincipalKey::new("guest")).unwrap();
        assert_eq!(ids(&guest), ["public", "lab"]);
        // Only an experimental variant visible and no opt-in: nothing stable to lead.
        let lab_only = VariantCatalog::builder()
            .variant(v("public"), 0, ())
            .variant(exp("lab"), 1, ())
            .visibility(|v: &ServerVariant, _: &PrincipalKey| v.id == "lab")
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(
            lab_only.rank(None, &anon()),
            Err(VariantError::NoStableVariant)
        );
        let nothing = VariantCatalog::builder()
            .variant(v("public"), 0, ())
            .visibility(|_: &ServerVariant, _: &PrincipalKey| false)
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(
            nothing.rank(None, &anon()),
            Err(VariantError::NoVisibleVariant)
        );
    }

    #[test]
    fn ranking_is_deterministic() {
        let cat = VariantCatalog::builder()
            .variant(v("a").with_hint("k", "x"), 3, ())
            .variant(v("b").with_hint("k", "x"), 3, ())
            .variant(v("c").with_hint("k", "y"), 3, ())
            .cursor_key(KEY)
            .build()
            .unwrap();
        let hints = VariantHints::new().with_hint("k", ["x", "y"]);
        let first = cat.rank(Some(&hints), &anon()).unwrap();
        for _ in 0..10 {
            assert_eq!(cat.rank(Some(&hints), &anon()).unwrap(), first);
        }
        assert_eq!(ids(&first), ["a", "b", "c"]);
    }

    #[test]
    fn build_reports_every_problem() {
        let err = VariantCatalog::<()>::builder()
            .variant(v("a"), 0, ())
            .variant(v("a"), 1, ())
            .variant(ServerVariant::new("", "no id"), 2, ())
            .variant(ServerVariant::new("b", " "), 3, ())
            .variant(
                v("c").with_status(VariantStatus::Other("beta".into())),
                4,
                (),
            )
            .variant(
                v("d").deprecated(
                    DeprecationInfo::new("gone")
                        .with_replacement("zzz")
                        .with_removal_date("soon"),
                ),
                5,
                (),
            )
            .variant(
                ServerVariant {
                    deprecation_info: Some(DeprecationInfo::new("odd")),
                    ..v("e")
                },
                6,
                (),
            )
            .discovery_limit(0)
            .protocols([ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28])
            .cursor_key(b"short")
            .build()
            .unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                CatalogProblem::DuplicateId("a".into()),
                CatalogProblem::EmptyId,
                CatalogProblem::EmptyDescription("b".into()),
                CatalogProblem::UnknownStatus("c".into(), "beta".into()),
                CatalogProblem::BadRemovalDate("d".into(), "soon".into()),
                CatalogProblem::DeprecationInfoOnLiveVariant("e".into()),
                CatalogProblem::UnknownReplacement("d".into(), "zzz".into()),
                CatalogProblem::ZeroDiscoveryLimit,
                CatalogProblem::SessionlessProtocol(ProtocolVersion::V2026_07_28),
                CatalogProblem::CursorKey(CursorKeyTooShort { len: 5 }),
            ]
        );
        assert!(err.to_string().contains("variant id 'a' registered twice"));
    }

    #[test]
    fn build_requires_variants_a_stable_one_and_a_key() {
        let empty = VariantCatalog::<()>::builder().build().unwrap_err();
        assert_eq!(
            empty.problems,
            vec![CatalogProblem::NoVariants, CatalogProblem::MissingCursorKey]
        );
        let unstable = VariantCatalog::builder()
            .variant(exp("x"), 0, ())
            .cursor_key(KEY)
            .build()
            .unwrap_err();
        assert_eq!(unstable.problems, vec![CatalogProblem::NoStableVariant]);
    }

    #[test]
    fn catalog_lookups() {
        let cat = VariantCatalog::builder()
            .variant(v("a"), 0, 10u8)
            .variant(v("b"), 1, 20u8)
            .cursor_key(KEY)
            .build()
            .unwrap();
        assert_eq!(cat.backend("b"), Some(&20));
        assert_eq!(cat.backend("z"), None);
        assert_eq!(
            cat.variants().map(|v| v.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(cat.is_enabled_for(ProtocolVersion::V2024_11_05));
        assert!(!cat.is_enabled_for(ProtocolVersion::V2026_07_28));
        assert!(format!("{cat:?}").contains("[\"a\", \"b\"]"));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn status(code: u8) -> VariantStatus {
            match code {
                0 => VariantStatus::Stable,
                1 => VariantStatus::Experimental,
                _ => VariantStatus::Deprecated,
            }
        }

        // Case count: proptest's `PROPTEST_CASES` environment knob (default 256; ranking is cheap).
        proptest! {
            #[test]
            fn every_ranking_satisfies_the_invariants(
                specs in proptest::collection::vec((0u8..3, 0i32..4, 0u8..3), 1..8),
                order in proptest::collection::vec(0usize..8, 0..10),
                wanted in proptest::collection::vec(0u8..3, 0..3),
                ask_experimental: bool,
                limit in 1usize..6,
            ) {
                let mut builder = VariantCatalog::builder().discovery_limit(limit).cursor_key(KEY);
                for (i, (st, priority, hint)) in specs.iter().enumerate() {
                    // Variant 0 is always stable, so the catalog builds.
                    let st = if i == 0 { VariantStatus::Stable } else { status(*st) };
                    let mut variant = v(&format!("v{i}")).with_hint("contextSize", ["a", "b", "c"][*hint as usize]);
                    variant.status = Some(st);
                    builder = builder.variant(variant, *priority, ());
                }
                let n = specs.len();
                let proposal: Vec<VariantId> = {
                    let mut seen = HashSet::new();
                    order.iter().filter(|i| **i < n && seen.insert(**i)).map(|i| VariantId::from(format!("v{i}"))).collect()
                };
                let cat = builder
                    .ranker(move |_: &RankingInput<'_>| proposal.clone())
                    .build()
                    .unwrap();
                let mut hints = VariantHints::new()
                    .with_hint("contextSize", HintValue::Many(wanted.iter().map(|w| ["a", "b", "c"][*w as usize].to_owned()).collect()));
                if ask_experimental {
                    hints = hints.with_hint("status", "experimental");
                }
                let r = cat.rank(Some(&hints), &anon()).unwrap();
                let unique: HashSet<_> = r.ids.iter().collect();
                prop_assert_eq!(unique.len(), r.ids.len());
                let expected_len = limit.max(2.min(n)).min(n);
                prop_assert_eq!(r.ids.len(), expected_len);
                prop_assert_eq!(r.more_available, n > expected_len);
                let head = cat.variant(r.ids[0].as_str()).unwrap().effective_status();
                prop_assert!(
                    head == VariantStatus::Stable
                        || (ask_experimental && head == VariantStatus::Experimental),
                    "head {:?}", head
                );
                prop_assert_eq!(r.experimental_requested, ask_experimental);
                // Deterministic: the same input ranks the same way.
                prop_assert_eq!(cat.rank(Some(&hints), &anon()).unwrap(), r);
            }
        }
    }
}
