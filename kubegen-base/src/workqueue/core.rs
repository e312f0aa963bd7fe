//! The queue's bookkeeping: the ready items, the dirty set and the processing set.

use crate::fast_hash::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::time::Duration;

use tokio::time::Instant;

use super::ready::Ready;

/// A timestamp kept only when the queue records metrics.
pub(super) type Stamp = Option<Instant>;

/// What [`Core::add`] did with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Added {
    /// The item was already dirty: nothing changed but, in a priority
    /// queue, possibly its priority.
    Duplicate,
    /// The item is being processed: it is marked dirty and queued on `done`.
    Deferred,
    /// The item was added to the ready items.
    Queued,
}

/// An item [`Core::pop`] handed out.
#[derive(Debug)]
pub(super) struct Popped<T> {
    pub(super) item: T,
    /// The priority it was queued at (0 in a FIFO queue).
    pub(super) priority: i32,
    /// Time between its add and now, when both are stamped.
    pub(super) waited: Option<Duration>,
}

/// What [`Core::done`] did with an item that was being processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Finished {
    /// The item had been added during processing and is queued again.
    pub(super) requeued: bool,
    /// Time between the item being handed out and `done`, when stamped.
    pub(super) worked: Option<Duration>,
}

/// A dirty item: when it was first added and the highest priority it was
/// added with since.
#[derive(Debug, Clone, Copy)]
struct Pending {
    added: Stamp,
    priority: i32,
}

/// Dirty set + processing set + ready items, exactly as client-go keeps them.
///
/// Invariants: every ready item is in `dirty` (at the same priority) and not
/// in `processing`, and is ready once.
#[derive(Debug)]
pub(super) struct Core<T> {
    ready: Ready<T>,
    /// Items waiting to be handed out.
    dirty: HashMap<T, Pending>,
    /// Items handed out and not yet done, with the time they were handed out.
    processing: HashMap<T, Stamp>,
}

/// Time elapsed from `from` to `to`, when both are known.
fn elapsed(from: Stamp, to: Stamp) -> Option<Duration> {
    Some(to?.saturating_duration_since(from?))
}

impl<T> Core<T> {
    /// Forgets every item.
    pub(super) fn clear(&mut self) {
        self.ready.clear();
        self.dirty.clear();
        self.processing.clear();
    }
}

impl<T: Clone + Eq + Hash> Core<T> {
    /// An empty core handing items out in FIFO order, or by priority when
    /// `prioritized`.
    pub(super) fn new(prioritized: bool) -> Self {
        Self {
            ready: Ready::new(prioritized),
            dirty: HashMap::default(),
            processing: HashMap::default(),
        }
    }

    /// Marks `item` dirty and queues it unless it is queued or processed
    /// already. A dirty item keeps the highest priority it was added with.
    pub(super) fn add(&mut self, item: T, priority: i32, now: Stamp) -> Added {
        let priority = self.ready.effective(priority);
        match self.dirty.entry(item) {
            Entry::Occupied(mut slot) => {
                if priority > slot.get().priority {
                    if !self.processing.contains_key(slot.key()) {
                        self.ready.raise(slot.key(), priority);
                    }
                    slot.get_mut().priority = priority;
                }
                Added::Duplicate
            }
            Entry::Vacant(slot) => {
                let outcome = if self.processing.contains_key(slot.key()) {
                    Added::Deferred
                } else {
                    self.ready.push(slot.key().clone(), priority);
                    Added::Queued
                };
                slot.insert(Pending {
                    added: now,
                    priority,
                });
                outcome
            }
        }
    }

    /// Hands out the next ready item, moving it from dirty to processing.
    pub(super) fn pop(&mut self, now: Stamp) -> Option<Popped<T>> {
        let item = self.ready.pop()?;
        let pending = self.dirty.remove(&item);
        self.processing.insert(item.clone(), now);
        Some(Popped {
            item,
            priority: pending.map_or(0, |p| p.priority),
            waited: elapsed(pending.and_then(|p| p.added), now),
        })
    }

    /// Ends the processing of `item`; `None` when it was not being processed.
    pub(super) fn done(&mut self, item: &T, now: Stamp) -> Option<Finished> {
        let started = self.processing.remove(item)?;
        let requeue = self.dirty.get(item).map(|pending| pending.priority);
        if let Some(priority) = requeue {
            self.ready.push(item.clone(), priority);
        }
        Some(Finished {
            requeued: requeue.is_some(),
            worked: elapsed(started, now),
        })
    }

    /// Number of dirty items: added and not yet handed out, including those
    /// queued again on `done` (client-go's depth).
    pub(super) fn dirty_len(&self) -> usize {
        self.dirty.len()
    }

    /// Number of items ready to be handed out.
    pub(super) fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// Whether no item is being processed.
    pub(super) fn idle(&self) -> bool {
        self.processing.is_empty()
    }

    /// Start times of the items being processed (stamped ones only).
    pub(super) fn processing_since(&self) -> impl Iterator<Item = Instant> + '_ {
        self.processing.values().filter_map(|stamp| *stamp)
    }

    /// The items being processed, in no particular order.
    #[cfg(test)]
    pub(super) fn processing(&self) -> impl Iterator<Item = &T> + '_ {
        self.processing.keys()
    }
}
