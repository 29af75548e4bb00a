//! What the emitter knows about a type name — its owner entry (ledger rows, edges, …) and the
//! revisions at which its subtree needs no shaping — remembered per thread by the name's address:
//! serde hands the emitter the same few `&'static str` struct names on every object.

use std::cell::Cell;

use super::clean;
use super::ledger::{self, OwnerInfo};

/// Everything known about one type name.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Known {
    /// Its owner entry, if the tables name it.
    pub owner: Option<&'static OwnerInfo>,
    /// [`clean::clean_bits`] of the name.
    pub clean: u16,
    /// Its fields whose values may need nothing ([`clean::field_table`]).
    pub fields: Option<&'static clean::FieldTable>,
}

impl Known {
    /// Whether the subtree needs no shaping at the emission whose clean bit is `bit`.
    #[inline]
    pub fn is_clean(&self, bit: u16) -> bool {
        self.clean & bit != 0
    }
}

/// Sets of the cache (two entries each).
const SETS: usize = 256;

type Entry = Cell<(usize, usize, Known)>;

thread_local! {
    static CACHE: [Entry; 2 * SETS] =
        const { [const { Cell::new((0, 0, Known { owner: None, clean: 0, fields: None })) }; 2 * SETS] };
}

/// What is known about `name`, a string that lives as long as the program.
#[inline]
pub(crate) fn known(name: &'static str) -> Known {
    let addr = name.as_ptr() as usize;
    // Fibonacci hashing: names lie close together in the binary; spread them over the sets.
    let h = ((addr ^ name.len().rotate_left(40)) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let set = 2 * ((h >> 32) as usize & (SETS - 1));
    CACHE.with(|cache| {
        for way in &cache[set..set + 2] {
            let (a, len, k) = way.get();
            if a == addr && len == name.len() {
                return k;
            }
        }
        let k = Known {
            owner: ledger::owner(name),
            clean: clean::clean_bits(name),
            fields: clean::field_table(name),
        };
        // The newer entry first; the older one stays as the second way.
        cache[set + 1].set(cache[set].get());
        cache[set].set((addr, name.len(), k));
        k
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_answers_equal_the_tables() {
        let names: Vec<&'static str> = ledger::LEDGER.iter().map(|r| r.owner).collect();
        for _ in 0..3 {
            for &n in &names {
                let k = known(n);
                assert_eq!(
                    k.owner.map(|o| o as *const OwnerInfo),
                    ledger::owner(n).map(|o| o as *const OwnerInfo)
                );
                assert_eq!(k.clean, clean::clean_bits(n));
            }
        }
        assert!(known("NoSuchType").owner.is_none());
        assert_eq!(known("NoSuchType").clean, 0);
    }
}
