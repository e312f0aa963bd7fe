//! The public queue handle and its operations.

use std::fmt;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use super::item::QueueItem;
use super::queue_state::{Polled, Shared};

/// A work queue with client-go's semantics: duplicates collapse while queued,
/// and an item is never handed to two workers at once.
///
/// The handle is cheap to clone; all clones drive the same queue. Items are
/// handed out by [`get`](Self::get) in FIFO order, or, in a queue built
/// [`priority_aware`](super::WorkQueueBuilder::priority_aware), highest
/// priority first and FIFO within a priority. The worker must call
/// [`done`](Self::done) when it finishes an item. An item added while it is
/// being processed is handed out again after `done`.
///
/// Delayed and rate-limited adds are moved into the queue by a Tokio task that
/// the first positive delay starts; it ends when the queue shuts down or its
/// last handle is dropped. Delays are measured on Tokio's clock, so tests
/// control them with paused time (`tokio::time::pause`).
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
            .field("shutting_down", &self.shutting_down())
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
    /// the queue is shutting down. In a priority-aware queue this is
    /// [`add_with_priority`](Self::add_with_priority) at priority 0.
    pub fn add(&self, item: T) {
        self.shared.add(item, 0);
    }

    /// Queues `item` at `priority` (higher is handed out first), as
    /// controller-runtime's `AddWithOpts` with a `Priority`. An item that
    /// is already queued keeps its place unless `priority` is higher than
    /// its own: it then moves behind the items queued at `priority`. A
    /// priority is never lowered. An item being processed is queued again
    /// on [`done`](Self::done) at the highest priority it was added with
    /// meanwhile.
    ///
    /// A queue not built [`priority_aware`](super::WorkQueueBuilder::priority_aware)
    /// ignores `priority`: this is then [`add`](Self::add).
    pub fn add_with_priority(&self, item: T, priority: i32) {
        self.shared.add(item, priority);
    }

    /// Queues `item` after `delay` (at once when `delay` is zero). While an
    /// item waits, only an earlier deadline replaces its pending one. Ignored
    /// once the queue is shutting down; waiting items are dropped then. The
    /// delay runs on Tokio's clock. Counts a retry
    /// (`workqueue_retries_total`), as client-go's delaying queue does.
    ///
    /// # Panics
    ///
    /// The first call with a positive delay starts the queue's timer task: it
    /// panics outside a Tokio runtime.
    pub fn add_after(&self, item: T, delay: Duration) {
        self.shared.add_after(item, delay, 0);
    }

    /// [`add_after`](Self::add_after), then queues `item` at `priority` (see
    /// [`add_with_priority`](Self::add_with_priority)). An item already
    /// waiting keeps the earlier deadline and the higher priority of the
    /// two.
    ///
    /// # Panics
    ///
    /// As [`add_after`](Self::add_after), when the delay is positive.
    pub fn add_after_with_priority(&self, item: T, delay: Duration, priority: i32) {
        self.shared.add_after(item, delay, priority);
    }

    /// Queues `item` after the delay the queue's rate limiter gives it, and
    /// counts a retry. Ignored once the queue is shutting down; unlike
    /// client-go's, which still asks its limiter (counting a requeue of an
    /// item it then drops), the limiter is not consulted then.
    ///
    /// # Panics
    ///
    /// As [`add_after`](Self::add_after), when the delay is positive.
    pub fn add_rate_limited(&self, item: T) {
        self.shared.add_rate_limited(item, 0);
    }

    /// [`add_rate_limited`](Self::add_rate_limited), then queues `item` at
    /// `priority` (see [`add_with_priority`](Self::add_with_priority)).
    ///
    /// # Panics
    ///
    /// As [`add_after`](Self::add_after), when the delay is positive.
    pub fn add_rate_limited_with_priority(&self, item: T, priority: i32) {
        self.shared.add_rate_limited(item, priority);
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
    /// Once the queue is shutting down (see [`shutdown`](Self::shutdown)),
    /// the items still queued keep being handed out, and `None` is returned
    /// when none is left, as client-go's `Get` returns `shutdown == true`.
    /// Cancel-safe.
    pub async fn get(&self) -> Option<T> {
        self.get_with_priority().await.map(|(item, _)| item)
    }

    /// [`get`](Self::get), also returning the priority the item was queued
    /// at (always 0 in a queue that is not priority-aware), as
    /// controller-runtime's `GetWithPriority`. Cancel-safe.
    pub async fn get_with_priority(&self) -> Option<(T, i32)> {
        // `Some(answer)` once the queue has one: an item, or `None` when closed.
        let answer = |polled| match polled {
            Polled::Item(item, priority) => Some(Some((item, priority))),
            Polled::Closed => Some(None),
            Polled::Empty => None,
        };
        loop {
            // An item that is ready is taken at once, without registering as
            // a waiter first (a registration locks the waiter list).
            if let Some(got) = answer(self.shared.poll()) {
                return got;
            }
            // Register, then look again, so an add between the two polls is
            // not missed.
            let mut notified = pin!(self.shared.item_ready().notified());
            notified.as_mut().enable();
            if let Some(got) = answer(self.shared.poll()) {
                return got;
            }
            notified.await;
        }
    }

    /// Takes the next item if one is ready now, as [`get`](Self::get) without
    /// waiting. `None` means nothing is ready (see
    /// [`shutting_down`](Self::shutting_down) to tell whether anything
    /// still may be).
    pub fn try_get(&self) -> Option<T> {
        match self.shared.poll() {
            Polled::Item(item, _) => Some(item),
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

    /// Shuts the queue down, as client-go's `ShutDown`: new adds (delayed and
    /// rate-limited ones included) are ignored, delayed items still waiting
    /// are dropped and the timer task ends, but [`get`](Self::get) keeps
    /// handing out the items already queued and returns `None` once none
    /// is left. An item re-added while it was being processed (before the
    /// shutdown) is still queued again by [`done`](Self::done). Returns at
    /// once; a [`shutdown_with_drain`](Self::shutdown_with_drain) under way
    /// stops waiting.
    pub fn shutdown(&self) {
        self.shared.shutdown();
    }

    /// [`shutdown`](Self::shutdown), then waits until no item is being
    /// processed, as client-go's `ShutDownWithDrain`: workers must call
    /// [`done`](Self::done) for every item they hold, or this waits forever
    /// (call `shutdown` meanwhile to stop waiting). Also waits when the queue
    /// was already shut down.
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
    /// [`shutdown_with_drain`](Self::shutdown_with_drain) was called, as
    /// client-go's `ShuttingDown`.
    pub fn shutting_down(&self) -> bool {
        self.shared.is_shutting_down()
    }

    /// The same as [`shutting_down`](Self::shutting_down), under Rust's
    /// naming convention for predicates.
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

    /// The deadline `item` waits for in the delayed set, if it waits.
    #[cfg(test)]
    pub(crate) fn deadline_of(&self, item: &T) -> Option<tokio::time::Instant> {
        self.shared.lock().delayed.deadline_of(item)
    }

    /// [`try_get`](Self::try_get) with the item's priority.
    #[cfg(test)]
    pub(crate) fn try_get_with_priority(&self) -> Option<(T, i32)> {
        match self.shared.poll() {
            Polled::Item(item, priority) => Some((item, priority)),
            Polled::Empty | Polled::Closed => None,
        }
    }
}
