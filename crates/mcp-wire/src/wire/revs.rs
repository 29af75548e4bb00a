//! Sets of revisions, as a bitset over [`ProtocolVersion::ALL`].

use std::fmt;

use crate::{Era, ProtocolVersion};

/// A set of protocol revisions (the revisions a ledger row or a type table entry applies to).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Revisions(u8);

// One bit per revision of `ProtocolVersion::ALL`.
const _: () = assert!(ProtocolVersion::COUNT <= u8::BITS as usize);

impl Revisions {
    /// No revision.
    pub const NONE: Revisions = Revisions(0);
    /// Every known revision.
    pub const ALL: Revisions = Revisions(((1u16 << ProtocolVersion::COUNT) - 1) as u8);
    /// The revisions of the handshake era ([`Era::Handshake`]).
    pub const HANDSHAKE: Revisions = Revisions::of_era(Era::Handshake);
    /// The revisions of the stateless era ([`Era::Stateless`]).
    pub const STATELESS: Revisions = Revisions::of_era(Era::Stateless);

    /// The revisions whose [`ProtocolVersion::era`] is `era`.
    pub const fn of_era(era: Era) -> Revisions {
        let mut bits = 0;
        let mut i = 0;
        while i < ProtocolVersion::COUNT {
            if ProtocolVersion::ALL[i].era() as u8 == era as u8 {
                bits |= 1 << i;
            }
            i += 1;
        }
        Revisions(bits)
    }

    /// The set holding exactly `v`.
    pub const fn only(v: ProtocolVersion) -> Revisions {
        Revisions(1 << v as u8)
    }

    /// Every revision older than `v`.
    pub const fn before(v: ProtocolVersion) -> Revisions {
        Revisions((1 << v as u8) - 1)
    }

    /// `v` and every newer revision.
    pub const fn since(v: ProtocolVersion) -> Revisions {
        Revisions(Self::ALL.0 & !Self::before(v).0)
    }

    /// Every revision except `v`.
    pub const fn except(v: ProtocolVersion) -> Revisions {
        Revisions(Self::ALL.0 & !(1 << v as u8))
    }

    /// From `first` to `last`, both included.
    pub const fn range(first: ProtocolVersion, last: ProtocolVersion) -> Revisions {
        Revisions(Self::since(first).0 & (Self::before(last).0 | 1 << last as u8))
    }

    /// The union of two sets.
    pub const fn or(self, other: Revisions) -> Revisions {
        Revisions(self.0 | other.0)
    }

    /// The revisions of `ALL` not in this set.
    pub const fn complement(self) -> Revisions {
        Revisions(Self::ALL.0 & !self.0)
    }

    /// Whether `v` is in the set.
    pub const fn contains(self, v: ProtocolVersion) -> bool {
        self.0 & (1 << v as u8) != 0
    }

    /// Whether every revision of `other` is in this set.
    pub const fn contains_all(self, other: Revisions) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the two sets share a revision.
    pub const fn contains_any(self, other: Revisions) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The revisions of the set, oldest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .filter(move |v| self.contains(*v))
    }
}

impl FromIterator<ProtocolVersion> for Revisions {
    fn from_iter<I: IntoIterator<Item = ProtocolVersion>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Revisions::NONE, |acc, v| acc.or(Revisions::only(v)))
    }
}

impl fmt::Debug for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(ProtocolVersion::as_str).collect();
        f.write_str(&names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn constructors() {
        assert_eq!(Revisions::before(V2025_06_18).iter().count(), 2);
        let newer = Revisions::from_iter([V2025_06_18, V2025_11_25, V2026_07_28]);
        assert_eq!(Revisions::since(V2025_06_18), newer);
        assert_eq!(Revisions::range(V2025_03_26, V2025_11_25).iter().count(), 3);
        assert_eq!(Revisions::except(V2025_11_25).iter().count(), 4);
        assert!(!Revisions::except(V2025_11_25).contains(V2025_11_25));
        assert_eq!(Revisions::HANDSHAKE.complement(), Revisions::STATELESS);
        assert_eq!(
            Revisions::HANDSHAKE,
            Revisions::range(V2024_11_05, ProtocolVersion::LATEST_HANDSHAKE)
        );
        assert_eq!(Revisions::STATELESS, Revisions::only(V2026_07_28));
        assert_eq!(Revisions::ALL.iter().count(), ProtocolVersion::COUNT);
        assert_eq!(Revisions::only(V2026_07_28).to_string(), "2026-07-28");
        assert_eq!(Revisions::since(V2024_11_05), Revisions::ALL);
    }
}
