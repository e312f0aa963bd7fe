//! Construction of a [`WorkQueue`]: [`WorkQueue::new`], and
//! [`WorkQueue::builder`] with its rate limiter, metrics and priorities.

use std::fmt;

use super::item::QueueItem;
use super::metrics::WorkQueueMetrics;
use super::queue::WorkQueue;
use super::queue_state::Shared;
use super::rate_limit::{RateLimiter, default_controller_rate_limiter};

/// Builds a [`WorkQueue`]; see [`WorkQueue::builder`].
pub struct WorkQueueBuilder<T> {
    name: String,
    limiter: Option<Box<dyn RateLimiter<T>>>,
    metrics: Option<WorkQueueMetrics>,
    prioritized: bool,
}

impl<T> fmt::Debug for WorkQueueBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkQueueBuilder")
            .field("name", &self.name)
            .field("custom_rate_limiter", &self.limiter.is_some())
            .field("metrics", &self.metrics.is_some())
            .field("priority_aware", &self.prioritized)
            .finish()
    }
}

impl<T: QueueItem> WorkQueue<T> {
    /// A queue called `name` with the default controller rate limiter and no
    /// metrics.
    pub fn new(name: impl Into<String>) -> Self {
        Self::builder(name).build()
    }

    /// Starts configuring a queue called `name` (the metrics label).
    pub fn builder(name: impl Into<String>) -> WorkQueueBuilder<T> {
        WorkQueueBuilder {
            name: name.into(),
            limiter: None,
            metrics: None,
            prioritized: false,
        }
    }
}

impl<T: QueueItem> WorkQueueBuilder<T> {
    /// The limiter behind [`WorkQueue::add_rate_limited`]; the default is
    /// [`default_controller_rate_limiter`].
    pub fn rate_limiter(mut self, limiter: impl RateLimiter<T> + 'static) -> Self {
        self.limiter = Some(Box::new(limiter));
        self
    }

    /// Records the queue's metrics in `metrics`, labelled with its name.
    pub fn metrics(mut self, metrics: &WorkQueueMetrics) -> Self {
        self.metrics = Some(metrics.clone());
        self
    }

    /// Makes the queue hand out items by priority, as controller-runtime's
    /// `priorityqueue`: highest priority first, FIFO within a priority (see
    /// [`WorkQueue::add_with_priority`]). Without it the queue is client-go's
    /// FIFO and ignores priorities.
    ///
    /// Only the order changes: dedup, the processing set, delays and
    /// shutdown keep client-go's semantics. That differs from
    /// controller-runtime's queue, which keeps one entry per item: there an
    /// immediate add cancels the item's pending delay and a delayed add of
    /// a queued item is dropped, while here a delayed add stays pending on
    /// its own and is added (again) when due.
    pub fn priority_aware(mut self) -> Self {
        self.prioritized = true;
        self
    }

    /// Creates the queue.
    pub fn build(self) -> WorkQueue<T> {
        let limiter = self
            .limiter
            .unwrap_or_else(|| Box::new(default_controller_rate_limiter()));
        WorkQueue::from_shared(Shared::new(
            self.name,
            limiter,
            self.metrics.as_ref(),
            self.prioritized,
        ))
    }
}
