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
/// `kubegen::informer::InformerConfig::working_set`).
///
/// A read by key of an object in the working set hands out the kept
/// `Arc<K>`; any other read decodes, and a read by key then keeps the
/// result, evicting an object not read lately when the bound is reached. An
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

/// The objects of a working set, evicted by the CLOCK algorithm (second
/// chance): the objects sit in a ring of slots, each with a bit set when it
/// is read; when the set is full, a hand sweeps the ring, clearing set bits
/// and evicting the first object whose bit was clear. So the working set
/// holds up to its bound — a reader cycling through exactly that many
/// objects always finds them — and what is read again outlives what was
/// only delivered, at one hash lookup per read.
pub(super) struct Clock<K> {
    slots: Vec<Option<Slot<K>>>,
    /// Where each kept object's slot is.
    index: HashMap<Arc<ObjectKey>, usize>,
    /// Empty slots, reused before the ring grows.
    free: Vec<usize>,
    hand: usize,
    bound: WorkingSet,
}

struct Slot<K> {
    key: Arc<ObjectKey>,
    obj: Arc<K>,
    /// Read since the hand last passed.
    referenced: bool,
}

impl<K> Clock<K> {
    pub(super) fn new(bound: WorkingSet) -> Self {
        Clock {
            slots: Vec::new(),
            index: HashMap::default(),
            free: Vec::new(),
            hand: 0,
            bound,
        }
    }

    /// The bound.
    pub(super) fn bound(&self) -> WorkingSet {
        self.bound
    }

    /// The object kept under `key`, marked as read.
    pub(super) fn get(&mut self, key: &ObjectKey) -> Option<Arc<K>> {
        let slot = self.slots[*self.index.get(key)?].as_mut()?;
        slot.referenced = true;
        Some(slot.obj.clone())
    }

    /// The object kept under `key`, not marked.
    pub(super) fn peek(&self, key: &ObjectKey) -> Option<Arc<K>> {
        let slot = self.slots[*self.index.get(key)?].as_ref()?;
        Some(slot.obj.clone())
    }

    /// Keeps `obj` under `key`, replacing what was kept there; `cached` is
    /// the store's object count, which an automatic bound follows.
    pub(super) fn insert(&mut self, key: Arc<ObjectKey>, obj: Arc<K>, cached: usize) {
        let bound = self.bound.capacity(cached);
        if let Some(&at) = self.index.get(&key) {
            self.slots[at] = Some(Slot {
                key,
                obj,
                referenced: true,
            });
            return;
        }
        if bound == 0 {
            return;
        }
        while self.index.len() >= bound {
            self.evict();
        }
        let slot = Some(Slot {
            key: key.clone(),
            obj,
            referenced: false,
        });
        let at = match self.free.pop() {
            Some(at) => {
                self.slots[at] = slot;
                at
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        self.index.insert(key, at);
    }

    /// Evicts one object: the first at or after the hand whose bit is
    /// clear, clearing the bits it passes.
    fn evict(&mut self) {
        loop {
            let at = self.hand;
            self.hand = (self.hand + 1) % self.slots.len();
            match &mut self.slots[at] {
                Some(slot) if slot.referenced => slot.referenced = false,
                Some(_) => {
                    if let Some(slot) = self.slots[at].take() {
                        self.index.remove(&slot.key);
                    }
                    self.free.push(at);
                    return;
                }
                None => {}
            }
        }
    }

    /// Forgets the object under `key` (changed or deleted), returning it.
    pub(super) fn remove(&mut self, key: &ObjectKey) -> Option<Arc<K>> {
        let at = self.index.remove(key)?;
        self.free.push(at);
        self.slots[at].take().map(|slot| slot.obj)
    }

    /// The number of objects kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.index.len()
    }
}
