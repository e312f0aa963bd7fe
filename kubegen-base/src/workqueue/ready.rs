//! The order in which queued items are handed out: plain FIFO, or highest
//! priority first and FIFO within a priority.

use std::cmp::Reverse;
use std::collections::{BTreeMap, VecDeque};

use crate::fast_hash::HashMap;
use std::hash::Hash;

/// The items ready to be handed out, each at most once, in hand-out order.
#[derive(Debug)]
pub(super) enum Ready<T> {
    /// client-go's slice queue: priorities are ignored.
    Fifo(VecDeque<T>),
    /// controller-runtime's priority queue order.
    ByPriority(ByPriority<T>),
}

impl<T> Ready<T> {
    /// Forgets every item.
    pub(super) fn clear(&mut self) {
        match self {
            Ready::Fifo(fifo) => fifo.clear(),
            Ready::ByPriority(order) => {
                order.order.clear();
                order.position.clear();
            }
        }
    }
}

impl<T: Clone + Eq + Hash> Ready<T> {
    /// An empty FIFO, or an empty priority order when `prioritized`.
    pub(super) fn new(prioritized: bool) -> Self {
        if prioritized {
            Ready::ByPriority(ByPriority::default())
        } else {
            Ready::Fifo(VecDeque::new())
        }
    }

    /// The priority an item added with `priority` gets: always 0 in a FIFO.
    pub(super) fn effective(&self, priority: i32) -> i32 {
        match self {
            Ready::Fifo(_) => 0,
            Ready::ByPriority(_) => priority,
        }
    }

    /// Appends `item`, which is not in the order yet, at `priority`.
    pub(super) fn push(&mut self, item: T, priority: i32) {
        match self {
            Ready::Fifo(fifo) => fifo.push_back(item),
            Ready::ByPriority(order) => order.push(item, priority),
        }
    }

    /// Moves the queued `item` up to `priority` when that is higher than
    /// its current one.
    pub(super) fn raise(&mut self, item: &T, priority: i32) {
        if let Ready::ByPriority(order) = self {
            order.raise(item, priority);
        }
    }

    /// Removes and returns the next item to hand out.
    pub(super) fn pop(&mut self) -> Option<T> {
        match self {
            Ready::Fifo(fifo) => fifo.pop_front(),
            Ready::ByPriority(order) => order.pop(),
        }
    }

    /// Number of items.
    pub(super) fn len(&self) -> usize {
        match self {
            Ready::Fifo(fifo) => fifo.len(),
            Ready::ByPriority(order) => order.position.len(),
        }
    }
}

/// Where an item sits: higher priorities first, then the order of arrival
/// at that priority.
type Slot = (Reverse<i32>, u64);

/// Items sorted by descending priority, then by arrival.
///
/// An item raised to a higher priority goes behind the items already at
/// that priority, as in controller-runtime's `priorityqueue`.
#[derive(Debug)]
pub(super) struct ByPriority<T> {
    order: BTreeMap<Slot, T>,
    position: HashMap<T, Slot>,
    next_arrival: u64,
}

impl<T> Default for ByPriority<T> {
    fn default() -> Self {
        Self {
            order: BTreeMap::new(),
            position: HashMap::default(),
            next_arrival: 0,
        }
    }
}

impl<T: Clone + Eq + Hash> ByPriority<T> {
    /// A fresh slot at `priority`, behind every item already there.
    fn slot(&mut self, priority: i32) -> Slot {
        let slot = (Reverse(priority), self.next_arrival);
        self.next_arrival += 1;
        slot
    }

    fn push(&mut self, item: T, priority: i32) {
        let slot = self.slot(priority);
        self.position.insert(item.clone(), slot);
        self.order.insert(slot, item);
    }

    fn raise(&mut self, item: &T, priority: i32) {
        let Some(&old) = self.position.get(item) else {
            return;
        };
        if priority <= old.0.0 {
            return;
        }
        let new = self.slot(priority);
        if let Some(item) = self.order.remove(&old) {
            self.position.insert(item.clone(), new);
            self.order.insert(new, item);
        }
    }

    fn pop(&mut self) -> Option<T> {
        let (_, item) = self.order.pop_first()?;
        self.position.remove(&item);
        Some(item)
    }
}
