//! The public queue handle and its operations.

use std::fmt;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use super::item::QueueItem;
use super::shared::{Polled, Shared};

/// A work queue with client-go's semantics: duplicates collapse while queued,
/// and an item is never handed to two workers at once.
///
/// The handle is cheap to clone; all clones drive the same queue. Items are
/// handed out by [`get`](Self::get) in FIFO order; the worker must call
/// [`done`](Self::done) when it finishes an item. An item added while it is
/// being processed is handed out again after `done`.
///
/// Delayed and rate-limited adds are moved into the queue by a Tokio task that
/// the first positive delay starts; it ends when the queue shuts down or its
/// last handle is dropped.
pub struct WorkQueue<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Clone for WorkQueue<T> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T: QueueItem> fmt::Debug for WorkQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkQueue")
            .field("name", &self.name())
            .field("len", &self.len())
            .field("shutting_down", &self.is_shutting_down())
            .finish()
    }
}

impl<T: QueueItem> WorkQueue<T> {
    /// Wraps the shared state built by [`WorkQueueBuilder`].
    pub(super) fn from_shared(shared: Arc<Shared<T>>) -> Self {
        Self { shared }
    }

    /// The queue's name.
    pub fn name(&self) -> &str {
        self.shared.name()
    }

    /// Queues `item` unless it is queued already. An item being processed is
    /// queued again when its worker calls [`done`](Self::done). Ignored once
    /// the queue is shutting down.
    pub fn add(&self, item: T) {
        self.shared.add(item);
    }

    /// Queues `item` after `delay` (at once when `delay` is zero). While an
    /// item waits, only an earlier deadline replaces its pending one. Ignored
    /// once the queue is shutting down; waiting items are dropped then.
    ///
    /// # Panics
    ///
    /// The first call with a positive delay starts the queue's timer task: it
    /// panics outside a Tokio runtime.
    pub fn add_after(&self, item: T, delay: Duration) {
        self.shared.add_after(item, delay);
    }

    /// Queues `item` after the delay the queue's rate limiter gives it, and
    /// counts a retry. Ignored once the queue is shutting down.
    ///
    /// # Panics
    ///
    /// As [`add_after`](Self::add_after), when the delay is positive.
    pub fn add_rate_limited(&self, item: T) {
        self.shared.add_rate_limited(item);
    }

    /// Resets `item`'s rate-limiter history, typically after it succeeded.
    pub fn forget(&self, item: &T) {
        self.shared.limiter().forget(item);
    }

    /// How many times `item` was rate limited since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.shared.limiter().num_requeues(item)
    }

    /// Waits for the next item and marks it as being processed; the caller
    /// must call [`done`](Self::done) with it.
    ///
    /// Returns `None` once the queue is shut down: at once after
    /// [`shutdown`](Self::shutdown), and when no item is left to hand out after
    /// [`shutdown_with_drain`](Self::shutdown_with_drain). Cancel-safe.
    pub async fn get(&self) -> Option<T> {
        loop {
            let mut notified = pin!(self.shared.item_ready().notified());
            notified.as_mut().enable();
            match self.shared.poll() {
                Polled::Item(item) => return Some(item),
                Polled::Closed => return None,
                Polled::Empty => notified.await,
            }
        }
    }

    /// Takes the next item if one is ready now, as [`get`](Self::get) without
    /// waiting. `None` means nothing is ready or the queue is shut down
    /// (see [`is_shutting_down`](Self::is_shutting_down)).
    pub fn try_get(&self) -> Option<T> {
        match self.shared.poll() {
            Polled::Item(item) => Some(item),
            Polled::Empty | Polled::Closed => None,
        }
    }

    /// Marks `item` as processed. If it was added again meanwhile, it is
    /// queued again. Does nothing for an item that is not being processed.
    pub fn done(&self, item: &T) {
        self.shared.done(item);
    }

    /// Number of items ready to be handed out (not counting items being
    /// processed nor delayed ones), as client-go's `Len`.
    pub fn len(&self) -> usize {
        self.shared.lock().core.ready_len()
    }

    /// Whether no item is ready to be handed out.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Shuts the queue down now: `get` returns `None`, adds are ignored,
    /// delayed items are dropped and the timer task ends. Items being
    /// processed may still be passed to [`done`](Self::done). Unlike client-go,
    /// whose `Get` still hands out what was queued, nothing more is handed out
    /// (use [`shutdown_with_drain`](Self::shutdown_with_drain) for that).
    pub fn shutdown(&self) {
        self.shared.shutdown();
    }

    /// Stops accepting items, keeps handing out the queued ones, and waits
    /// until no item is being processed. Delayed items are dropped. Returns at
    /// once if the queue was already [`shutdown`](Self::shutdown), and early if
    /// `shutdown` is called meanwhile. Items re-added during their processing
    /// before the drain began are queued again by `done`, as in client-go.
    pub async fn shutdown_with_drain(&self) {
        self.shared.begin_drain();
        loop {
            let mut notified = pin!(self.shared.drained().notified());
            notified.as_mut().enable();
            if self.shared.drain_finished() {
                return;
            }
            notified.await;
        }
    }

    /// Whether [`shutdown`](Self::shutdown) or
    /// [`shutdown_with_drain`](Self::shutdown_with_drain) was called.
    pub fn is_shutting_down(&self) -> bool {
        self.shared.is_shutting_down()
    }

    /// The items being processed, sorted.
    #[cfg(test)]
    pub(crate) fn processing(&self) -> Vec<T>
    where
        T: Ord,
    {
        let mut items: Vec<T> = self.shared.lock().core.processing().cloned().collect();
        items.sort();
        items
    }

    /// Number of items waiting for their delay.
    #[cfg(test)]
    pub(crate) fn delayed_len(&self) -> usize {
        self.shared.lock().delayed.len()
    }
}
