//! [`Capped`]: the one bounded map of the collector. Entries keep the order their keys were
//! first seen in; a new key past the cap is refused and counted, so that what a case keeps is
//! bounded by the number of distinct things, never by the number of lines.

use indexmap::IndexMap;
use std::borrow::Borrow;
use std::hash::Hash;

/// An insertion-ordered map of at most `CAP` entries, reached by key or by index (the order of
/// first insertion). Entries are never removed; keys refused because the map was full are
/// counted ([`Capped::refused`]).
#[derive(Debug, Clone)]
pub(crate) struct Capped<K, V, const CAP: usize> {
    map: IndexMap<K, V>,
    refused: u64,
}

impl<K, V, const CAP: usize> Default for Capped<K, V, CAP> {
    fn default() -> Self {
        Capped {
            map: IndexMap::new(),
            refused: 0,
        }
    }
}

impl<K: Eq + Hash, V, const CAP: usize> Capped<K, V, CAP> {
    /// Entries kept.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// No entry yet.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// New keys refused because the map was full.
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// The value of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.get(key)
    }

    /// The value at index `i` (0 = the first key inserted).
    pub fn at(&self, i: usize) -> Option<&V> {
        self.map.get_index(i).map(|(_, v)| v)
    }

    /// The value at index `i`, to change.
    pub fn at_mut(&mut self, i: usize) -> Option<&mut V> {
        self.map.get_index_mut(i).map(|(_, v)| v)
    }

    /// The index and value of `key`'s entry, made by `make` when the key is new; `None` (and
    /// the refusal counted) when the key is new and the map already holds `CAP` entries.
    pub fn entry<Q>(&mut self, key: &Q, make: impl FnOnce() -> V) -> Option<(usize, &mut V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let i = match self.map.get_index_of(key) {
            Some(i) => i,
            None if self.map.len() >= CAP => {
                self.refused += 1;
                return None;
            }
            None => self.map.insert_full(key.to_owned(), make()).0,
        };
        self.map.get_index_mut(i).map(|(_, v)| (i, v))
    }

    /// Keys and values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.map.iter()
    }

    /// Keys, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.map.keys()
    }

    /// Values, in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values()
    }
}

impl<K, V, const CAP: usize> std::ops::Index<usize> for Capped<K, V, CAP> {
    type Output = V;

    fn index(&self, i: usize) -> &V {
        &self.map[i]
    }
}

impl<K, V, const CAP: usize> std::ops::IndexMut<usize> for Capped<K, V, CAP> {
    fn index_mut(&mut self, i: usize) -> &mut V {
        &mut self.map[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_insertion_order_and_refuses_past_the_cap() {
        let mut m: Capped<String, u32, 3> = Capped::default();
        for k in ["b", "a", "b", "c", "d", "a", "e"] {
            if let Some((_, n)) = m.entry(k, || 0) {
                *n += 1;
            }
        }
        let got: Vec<(&str, u32)> = m.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(got, vec![("b", 2), ("a", 2), ("c", 1)]);
        assert_eq!(m.refused(), 2, "d and e came after the map was full");
        assert_eq!(m.len(), 3);
        assert_eq!(m.get("a"), Some(&2));
        assert_eq!(m.get("d"), None);
        assert_eq!(m.at(2), Some(&1));
        assert_eq!(m[0], 2);
        // A known key is still reached when the map is full, and is not a refusal.
        assert_eq!(m.entry("c", || 99).map(|(i, v)| (i, *v)), Some((2, 1)));
        assert_eq!(m.refused(), 2);
    }

    #[test]
    fn composite_keys_and_indices() {
        let mut m: Capped<(Option<usize>, String), Vec<u8>, 8> = Capped::default();
        let (i, v) = m.entry(&(None, "x".to_string()), Vec::new).unwrap();
        v.push(1);
        assert_eq!(i, 0);
        let (j, _) = m.entry(&(Some(0), "x".to_string()), Vec::new).unwrap();
        assert_eq!(j, 1, "the same name under another problem is another entry");
        if let Some(v) = m.at_mut(0) {
            v.push(2);
        }
        assert_eq!(m.get(&(None, "x".to_string())), Some(&vec![1, 2]));
        assert_eq!(m.keys().count(), 2);
        assert!(!m.is_empty());
    }
}
