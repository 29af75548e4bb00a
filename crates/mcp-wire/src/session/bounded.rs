//! A map with a bound on its length that knows its insertion order, so the oldest entry is
//! found in `O(log n)` (a stream that keeps a table full must not pay a scan per frame).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// Keyed with foldhash: a lookup per answer, and a seeded hasher keeps crafted ids harmless.
type Hasher = foldhash::fast::RandomState;

/// A map of at most `bound` entries, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct Bounded<K, V> {
    bound: usize,
    next: u64,
    entries: HashMap<K, (u64, V), Hasher>,
    order: BTreeMap<u64, K>,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    pub(crate) fn new(bound: usize) -> Self {
        Bounded {
            bound,
            next: 0,
            entries: HashMap::default(),
            order: BTreeMap::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_full(&self) -> bool {
        self.entries.len() >= self.bound
    }

    pub(crate) fn bound(&self) -> usize {
        self.bound
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.entries.get_mut(key).map(|(_, v)| v)
    }

    pub(crate) fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    /// Inserts `value` as the newest entry (replacing an entry with the same key); when the map
    /// is full, the oldest entry makes room and is returned.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<(K, V)> {
        let replaced = self.remove(&key).is_some();
        let evicted = if !replaced && self.is_full() {
            self.pop_oldest()
        } else {
            None
        };
        let seq = self.next;
        self.next += 1;
        self.order.insert(seq, key.clone());
        self.entries.insert(key, (seq, value));
        evicted
    }

    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let (seq, value) = self.entries.remove(key)?;
        self.order.remove(&seq);
        Some(value)
    }

    pub(crate) fn pop_oldest(&mut self) -> Option<(K, V)> {
        let (_, key) = self.order.pop_first()?;
        let (_, value) = self.entries.remove(&key)?;
        Some((key, value))
    }

    /// Every entry, oldest first, leaving the map empty.
    pub(crate) fn drain(&mut self) -> Vec<(K, V)> {
        let order = std::mem::take(&mut self.order);
        let mut entries = std::mem::take(&mut self.entries);
        order
            .into_values()
            .filter_map(|k| entries.remove(&k).map(|(_, v)| (k, v)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_makes_room_and_a_replaced_key_is_newest() {
        let mut m = Bounded::new(2);
        assert_eq!(m.insert("a", 1), None);
        assert_eq!(m.insert("b", 2), None);
        // Replacing "a" evicts nothing and makes "a" the newest.
        assert_eq!(m.insert("a", 3), None);
        assert_eq!(m.insert("c", 4), Some(("b", 2)));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&"a"), Some(&3));
        assert_eq!(m.remove(&"a"), Some(3));
        assert_eq!(m.insert("d", 5), None);
        assert_eq!(m.drain(), vec![("c", 4), ("d", 5)]);
        assert_eq!(m.len(), 0);
        assert_eq!(m.pop_oldest(), None);
    }
}
