//! The queue's bookkeeping: the FIFO of ready items, the dirty set and the processing set.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::Duration;

use tokio::time::Instant;

/// A timestamp kept only when the queue records metrics.
pub(super) type Stamp = Option<Instant>;

/// What [`Core::add`] did with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Added {
    /// The item was already dirty: nothing changed.
    Duplicate,
    /// The item is being processed: it is marked dirty and queued on `done`.
    Deferred,
    /// The item was appended to the ready FIFO.
    Queued,
}

/// What [`Core::done`] did with an item that was being processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Finished {
    /// The item had been added during processing and is queued again.
    pub(super) requeued: bool,
    /// Time between the item being handed out and `done`, when stamped.
    pub(super) worked: Option<Duration>,
}

/// Dirty set + processing set + FIFO, exactly as client-go keeps them.
///
/// Invariants: every item in `ready` is in `dirty` and not in `processing`, and
/// appears in `ready` once.
#[derive(Debug)]
pub(super) struct Core<T> {
    ready: VecDeque<T>,
    /// Items waiting to be handed out, with the time they were first added.
    dirty: HashMap<T, Stamp>,
    /// Items handed out and not yet done, with the time they were handed out.
    processing: HashMap<T, Stamp>,
}

impl<T> Default for Core<T> {
    fn default() -> Self {
        Self {
            ready: VecDeque::new(),
            dirty: HashMap::new(),
            processing: HashMap::new(),
        }
    }
}

/// Time elapsed from `from` to `to`, when both are known.
fn elapsed(from: Stamp, to: Stamp) -> Option<Duration> {
    Some(to?.saturating_duration_since(from?))
}

impl<T: Clone + Eq + Hash> Core<T> {
    /// Marks `item` dirty and queues it unless it is queued or processed already.
    pub(super) fn add(&mut self, item: T, now: Stamp) -> Added {
        match self.dirty.entry(item) {
            Entry::Occupied(_) => Added::Duplicate,
            Entry::Vacant(slot) => {
                let outcome = if self.processing.contains_key(slot.key()) {
                    Added::Deferred
                } else {
                    self.ready.push_back(slot.key().clone());
                    Added::Queued
                };
                slot.insert(now);
                outcome
            }
        }
    }

    /// Hands out the oldest ready item, moving it from dirty to processing.
    ///
    /// Returns the item and how long it waited since it was added.
    pub(super) fn pop(&mut self, now: Stamp) -> Option<(T, Option<Duration>)> {
        let item = self.ready.pop_front()?;
        let added = self.dirty.remove(&item).flatten();
        self.processing.insert(item.clone(), now);
        Some((item, elapsed(added, now)))
    }

    /// Ends the processing of `item`; `None` when it was not being processed.
    pub(super) fn done(&mut self, item: &T, now: Stamp) -> Option<Finished> {
        let started = self.processing.remove(item)?;
        let requeued = self.dirty.contains_key(item);
        if requeued {
            self.ready.push_back(item.clone());
        }
        Some(Finished {
            requeued,
            worked: elapsed(started, now),
        })
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
