//! Items waiting for a deadline before they enter the queue (`add_after`).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use tokio::time::Instant;

/// A deadline, and the order of scheduling among equal deadlines.
type Slot = (Instant, u64);

/// One waiting item's deadline and the priority it will be added with.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    slot: Slot,
    priority: i32,
}

/// The waiting set: one pending deadline per item, the earliest one winning,
/// and one priority per item, the highest one winning.
///
/// Items with equal deadlines are released in the order they were scheduled.
#[derive(Debug)]
pub(super) struct Delayed<T> {
    by_deadline: BTreeMap<Slot, T>,
    waiting: HashMap<T, Waiting>,
    next_seq: u64,
}

impl<T> Default for Delayed<T> {
    fn default() -> Self {
        Self {
            by_deadline: BTreeMap::new(),
            waiting: HashMap::new(),
            next_seq: 0,
        }
    }
}

impl<T: Clone + Eq + Hash> Delayed<T> {
    /// Schedules `item` at `at` with `priority`. An item already waiting
    /// keeps its deadline when it is earlier or equal, and takes the higher
    /// of the two priorities. Returns true when the earliest deadline of the
    /// set moved.
    pub(super) fn schedule(&mut self, item: T, at: Instant, priority: i32) -> bool {
        let priority = match self.waiting.get_mut(&item) {
            Some(waiting) => {
                waiting.priority = waiting.priority.max(priority);
                if waiting.slot.0 <= at {
                    return false;
                }
                self.by_deadline.remove(&waiting.slot);
                waiting.priority
            }
            None => priority,
        };
        let slot = (at, self.next_seq);
        self.next_seq += 1;
        self.waiting
            .insert(item.clone(), Waiting { slot, priority });
        self.by_deadline.insert(slot, item);
        self.by_deadline.first_key_value().map(|(k, _)| *k) == Some(slot)
    }

    /// Removes and returns the earliest item whose deadline is at or before
    /// `now`, with its priority.
    pub(super) fn pop_due(&mut self, now: Instant) -> Option<(T, i32)> {
        let entry = self.by_deadline.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        let item = entry.remove();
        let priority = self.waiting.remove(&item).map_or(0, |w| w.priority);
        Some((item, priority))
    }

    /// The earliest pending deadline.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.by_deadline.first_key_value().map(|((at, _), _)| *at)
    }

    /// Drops every waiting item.
    pub(super) fn clear(&mut self) {
        self.by_deadline.clear();
        self.waiting.clear();
    }

    /// Number of waiting items.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }

    /// The deadline `item` waits for, if it waits.
    #[cfg(test)]
    pub(super) fn deadline_of(&self, item: &T) -> Option<Instant> {
        self.waiting.get(item).map(|w| w.slot.0)
    }
}
