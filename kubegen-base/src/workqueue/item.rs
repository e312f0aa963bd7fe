//! [`QueueItem`]: what a work queue can hold.

use std::hash::Hash;

/// What a [`WorkQueue`](super::WorkQueue) can hold: typically a
/// `namespace/name` key.
pub trait QueueItem: Clone + Eq + Hash + Send + Sync + 'static {}

impl<T: Clone + Eq + Hash + Send + Sync + 'static> QueueItem for T {}
