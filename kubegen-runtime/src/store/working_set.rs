//! The decoded working set of a compact store: the objects read by key or
//! received most recently, kept decoded (as shared `Arc<K>`s) up to a
//! bound, so that a reconciler reading the object it was just told about —
//! or one it reads on every pass — gets it for the price of an `Arc` clone
//! instead of a decode, while the store as a whole stays compact.

use std::sync::Arc;

use crate::fast_hash::HashMap;

use super::key::ObjectKey;

/// How many decoded objects a compact store keeps beside the encoded ones
/// ([`Store::compact_with`](super::Store::compact_with),
/// [`InformerConfig::working_set`](crate::informer::InformerConfig::working_set)).
///
/// A read by key of an object in the working set hands out the kept
/// `Arc<K>`; any other read decodes, and a read by key then keeps the
/// result, dropping the least recently used objects beyond the bound. An
/// object the watch delivers enters the working set too, since its handlers
/// are about to have it reconciled. Lists only use what is there, so a
/// full scan does not flush the working set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WorkingSet {
    /// A tenth of the cached objects, and at least 64 (the default): memory
    /// stays within about a tenth of a fully decoded cache above the
    /// compact bytes, and caches of a few hundred objects keep most of
    /// what their controllers touch decoded.
    #[default]
    Auto,
    /// At most this many objects, whatever the cache holds; `Fixed(0)`
    /// decodes on every read.
    Fixed(usize),
}

impl WorkingSet {
    /// The bound for a store holding `cached` objects.
    pub(super) fn capacity(self, cached: usize) -> usize {
        match self {
            WorkingSet::Auto => (cached / 10).max(64),
            WorkingSet::Fixed(n) => n,
        }
    }
}

/// The objects of a working set in two generations: an object enters the
/// young one; when that holds half the bound, the old generation is dropped
/// and the young one becomes old; a read of an old object moves it back to
/// the young one. At most the bound (rounded up to even) is held, every
/// object touched within the last half-bound insertions is among them
/// (least recently used eviction, approximated at one hash-map operation
/// per read and without a list threaded through the entries).
pub(super) struct Generations<K> {
    young: HashMap<Arc<ObjectKey>, Arc<K>>,
    old: HashMap<Arc<ObjectKey>, Arc<K>>,
    bound: WorkingSet,
}

impl<K> Generations<K> {
    pub(super) fn new(bound: WorkingSet) -> Self {
        Generations {
            young: HashMap::default(),
            old: HashMap::default(),
            bound,
        }
    }

    /// The object kept under `key`, marked as just used; `cached` is the
    /// store's object count.
    pub(super) fn get(&mut self, key: &ObjectKey, cached: usize) -> Option<Arc<K>> {
        if let Some(obj) = self.young.get(key) {
            return Some(obj.clone());
        }
        let (key, obj) = self.old.remove_entry(key)?;
        self.insert(key, obj.clone(), cached);
        Some(obj)
    }

    /// The object kept under `key`, leaving the order as it is.
    pub(super) fn peek(&self, key: &ObjectKey) -> Option<Arc<K>> {
        self.young.get(key).or_else(|| self.old.get(key)).cloned()
    }

    /// Keeps `obj` under `key` as the most recently used object, replacing
    /// what was kept there.
    pub(super) fn insert(&mut self, key: Arc<ObjectKey>, obj: Arc<K>, cached: usize) {
        let half = self.bound.capacity(cached).div_ceil(2);
        if half == 0 {
            return;
        }
        self.old.remove(&*key);
        self.young.insert(key, obj);
        if self.young.len() >= half {
            // The old generation goes; its map's allocation is reused.
            std::mem::swap(&mut self.young, &mut self.old);
            self.young.clear();
        }
    }

    /// Forgets the object under `key` (changed or deleted).
    pub(super) fn remove(&mut self, key: &ObjectKey) -> Option<Arc<K>> {
        let young = self.young.remove(key);
        let old = self.old.remove(key);
        young.or(old)
    }

    /// The bound.
    pub(super) fn bound(&self) -> WorkingSet {
        self.bound
    }

    /// The number of objects kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }
}
