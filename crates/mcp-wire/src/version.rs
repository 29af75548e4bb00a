//! Protocol revisions: the five released MCP revisions as an ordered enum.
//!
//! Order is the position in [`ProtocolVersion::ALL`] (declaration order), never a comparison of
//! date strings, so a future identifier that is not a date cannot break "is newer than".

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One released revision of the Model Context Protocol.
///
/// `Ord` follows release order: `V2024_11_05 < … < V2026_07_28`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// Revision `2024-11-05`, the first released revision.
    V2024_11_05,
    /// Revision `2025-03-26` (audio content, tool annotations, JSON-RPC batches).
    V2025_03_26,
    /// Revision `2025-06-18` (elicitation, structured tool output, resource links; no batches).
    V2025_06_18,
    /// Revision `2025-11-25` (tasks, icons, URL elicitation, sampling with tools).
    V2025_11_25,
    /// Revision `2026-07-28` (stateless: no `initialize`, `resultType`, cache hints, `_meta` identity).
    V2026_07_28,
}

/// The two eras of the protocol, which differ in how a session starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: an `initialize` handshake negotiates the revision for a session.
    Handshake,
    /// 2026-07-28 onwards: no handshake; every client request carries its identity in `_meta`.
    Stateless,
}

impl ProtocolVersion {
    /// How many revisions are known (the length of [`ProtocolVersion::ALL`]); per-revision
    /// arrays are sized by it.
    pub const COUNT: usize = 5;

    /// Every known revision, oldest first.
    pub const ALL: [ProtocolVersion; Self::COUNT] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest known revision (the last of [`ProtocolVersion::ALL`]).
    pub const LATEST: ProtocolVersion = Self::ALL[Self::COUNT - 1];

    /// The newest revision that is negotiated with an `initialize` handshake.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The newest stateless revision: the one a server and a bridge speak with a stateless
    /// peer.
    pub const LATEST_STATELESS: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The revision's wire identifier, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// The Rust module name of the revision's generated model, e.g. `"v2025_06_18"`.
    pub const fn module_name(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "v2024_11_05",
            ProtocolVersion::V2025_03_26 => "v2025_03_26",
            ProtocolVersion::V2025_06_18 => "v2025_06_18",
            ProtocolVersion::V2025_11_25 => "v2025_11_25",
            ProtocolVersion::V2026_07_28 => "v2026_07_28",
        }
    }

    /// Position in [`ProtocolVersion::ALL`] (0 for the oldest).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The era this revision belongs to: the handshake era up to [`Self::LATEST_HANDSHAKE`],
    /// the stateless era after it.
    pub const fn era(self) -> Era {
        if self.index() <= Self::LATEST_HANDSHAKE.index() {
            Era::Handshake
        } else {
            Era::Stateless
        }
    }

    /// Whether this revision is `other` or newer.
    pub fn is_at_least(self, other: ProtocolVersion) -> bool {
        self >= other
    }

    /// The revision after this one, if any.
    pub fn next(self) -> Option<ProtocolVersion> {
        Self::ALL.get(self.index() + 1).copied()
    }

    /// The revision before this one, if any.
    pub fn previous(self) -> Option<ProtocolVersion> {
        self.index().checked_sub(1).map(|i| Self::ALL[i])
    }

    /// The URL of this revision's specification.
    pub fn spec_url(self) -> String {
        format!(
            "https://modelcontextprotocol.io/specification/{}",
            self.as_str()
        )
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string that names no known revision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown protocol version '{found}'; known versions: {}",
    KnownVersions
)]
pub struct UnknownVersionError {
    /// The string that was given.
    pub found: String,
}

/// Displays every known revision, oldest first, separated by `, `.
struct KnownVersions;

impl fmt::Display for KnownVersions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in ProtocolVersion::ALL.into_iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(v.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVersionError {
                found: s.to_owned(),
            })
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A version as a peer may send it: a known revision, or any other string.
///
/// Parsing accepts this (a peer may offer a revision we do not know); an unknown version is never
/// "at least" anything, so it never switches on a revision's rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VersionLike {
    /// A known revision.
    Known(ProtocolVersion),
    /// A string that names no known revision.
    Unknown(String),
}

impl VersionLike {
    /// The known revision, if this is one.
    pub fn known(&self) -> Option<ProtocolVersion> {
        match self {
            VersionLike::Known(v) => Some(*v),
            VersionLike::Unknown(_) => None,
        }
    }

    /// The era of the known revision; `None` for unknown strings.
    pub fn era(&self) -> Option<Era> {
        self.known().map(ProtocolVersion::era)
    }

    /// Whether this is a known revision that is `other` or newer; `false` for unknown strings.
    pub fn is_at_least(&self, other: ProtocolVersion) -> bool {
        self.known().is_some_and(|v| v >= other)
    }

    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            VersionLike::Known(v) => v.as_str(),
            VersionLike::Unknown(s) => s,
        }
    }
}

impl From<ProtocolVersion> for VersionLike {
    fn from(v: ProtocolVersion) -> Self {
        VersionLike::Known(v)
    }
}

impl From<&str> for VersionLike {
    fn from(s: &str) -> Self {
        s.parse()
            .map(VersionLike::Known)
            .unwrap_or_else(|_| VersionLike::Unknown(s.to_owned()))
    }
}

impl fmt::Display for VersionLike {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for VersionLike {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for VersionLike {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(VersionLike::from(s.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_release_order() {
        let mut sorted = ProtocolVersion::ALL;
        sorted.sort();
        assert_eq!(sorted, ProtocolVersion::ALL);
        assert!(ProtocolVersion::V2025_03_26 < ProtocolVersion::V2025_06_18);
        assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V2026_07_28);
        assert_eq!(ProtocolVersion::V2024_11_05.previous(), None);
        assert_eq!(ProtocolVersion::V2026_07_28.next(), None);
        assert_eq!(
            ProtocolVersion::V2025_06_18.next(),
            Some(ProtocolVersion::V2025_11_25)
        );
    }

    #[test]
    fn strings_round_trip() {
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>(), Ok(v));
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{v}\""));
            assert_eq!(serde_json::from_str::<ProtocolVersion>(&json).unwrap(), v);
        }
    }

    #[test]
    fn unknown_strings_are_typed_errors() {
        let err = "2030-01-01".parse::<ProtocolVersion>().unwrap_err();
        assert_eq!(err.found, "2030-01-01");
        assert_eq!(
            err.to_string(),
            "unknown protocol version '2030-01-01'; known versions: \
             2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
        );
        assert!(serde_json::from_str::<ProtocolVersion>("\"zzz\"").is_err());
    }

    #[test]
    fn unknown_version_like_is_never_at_least_anything() {
        let zzz = VersionLike::from("zzz");
        assert_eq!(zzz, VersionLike::Unknown("zzz".into()));
        for v in ProtocolVersion::ALL {
            assert!(!zzz.is_at_least(v));
        }
        let known: VersionLike = serde_json::from_str("\"2025-11-25\"").unwrap();
        assert!(known.is_at_least(ProtocolVersion::V2025_06_18));
        assert!(!known.is_at_least(ProtocolVersion::V2026_07_28));
    }

    /// Every revision has its feature (`.ci/run` builds each one alone from these lines) and
    /// the default set enables them all.
    #[test]
    fn every_revision_has_a_feature() {
        let manifest = include_str!("../Cargo.toml");
        let features: Vec<&str> = manifest
            .lines()
            .filter_map(|l| l.split_once(" = []"))
            .map(|(name, _)| name)
            .filter(|name| name.starts_with('v'))
            .collect();
        let modules: Vec<&str> = ProtocolVersion::ALL
            .map(ProtocolVersion::module_name)
            .into();
        assert_eq!(features, modules);
        let default = manifest
            .lines()
            .find(|l| l.starts_with("default = "))
            .unwrap();
        for m in modules {
            assert!(
                default.contains(&format!("\"{m}\"")),
                "{m} not in {default}"
            );
        }
    }

    #[test]
    fn eras() {
        assert_eq!(ProtocolVersion::V2025_11_25.era(), Era::Handshake);
        assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Stateless);
        assert_eq!(VersionLike::from("2026-07-28").era(), Some(Era::Stateless));
        assert_eq!(VersionLike::from("2024-11-05").era(), Some(Era::Handshake));
        assert_eq!(VersionLike::from("zzz").era(), None);
        assert_eq!(
            ProtocolVersion::ALL
                .into_iter()
                .rfind(|v| v.era() == Era::Handshake),
            Some(ProtocolVersion::LATEST_HANDSHAKE)
        );
    }
}
