//! Items waiting for a deadline before they enter the queue (`add_after`).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use tokio::time::Instant;

/// The waiting set: one pending deadline per item, the earliest one winning.
///
/// Items with equal deadlines are released in the order they were scheduled.
#[derive(Debug)]
pub(super) struct Delayed<T> {
    by_deadline: BTreeMap<(Instant, u64), T>,
    deadline_of: HashMap<T, (Instant, u64)>,
    next_seq: u64,
}

impl<T> Default for Delayed<T> {
    fn default() -> Self {
        Self {
            by_deadline: BTreeMap::new(),
            deadline_of: HashMap::new(),
            next_seq: 0,
        }
    }
}

impl<T: Clone + Eq + Hash> Delayed<T> {
    /// Schedules `item` at `at`, unless it already waits for an earlier or equal
    /// deadline. Returns true when the earliest deadline of the set moved.
    pub(super) fn schedule(&mut self, item: T, at: Instant) -> bool {
        if let Some(&(current, seq)) = self.deadline_of.get(&item) {
            if current <= at {
                return false;
            }
            self.by_deadline.remove(&(current, seq));
        }
        let key = (at, self.next_seq);
        self.next_seq += 1;
        self.deadline_of.insert(item.clone(), key);
        self.by_deadline.insert(key, item);
        self.by_deadline.first_key_value().map(|(k, _)| *k) == Some(key)
    }

    /// Removes and returns the earliest item whose deadline is at or before `now`.
    pub(super) fn pop_due(&mut self, now: Instant) -> Option<T> {
        let entry = self.by_deadline.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        let item = entry.remove();
        self.deadline_of.remove(&item);
        Some(item)
    }

    /// The earliest pending deadline.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.by_deadline.first_key_value().map(|((at, _), _)| *at)
    }

    /// Drops every waiting item.
    pub(super) fn clear(&mut self) {
        self.by_deadline.clear();
        self.deadline_of.clear();
    }

    /// Number of waiting items.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.deadline_of.len()
    }
}
