//! Configuration of a new [`WorkQueue`]: rate limiter and metrics.

use std::fmt;

use super::{QueueItem, RateLimiter, WorkQueue, WorkQueueMetrics};
use super::{default_controller_rate_limiter, shared::Shared};

/// Builds a [`WorkQueue`]; see [`WorkQueue::builder`].
pub struct WorkQueueBuilder<T> {
    name: String,
    limiter: Option<Box<dyn RateLimiter<T>>>,
    metrics: Option<WorkQueueMetrics>,
}

impl<T> fmt::Debug for WorkQueueBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkQueueBuilder")
            .field("name", &self.name)
            .field("custom_rate_limiter", &self.limiter.is_some())
            .field("metrics", &self.metrics.is_some())
            .finish()
    }
}

impl<T: QueueItem> WorkQueueBuilder<T> {
    /// A builder for a queue called `name`.
    pub(super) fn new(name: String) -> Self {
        Self {
            name,
            limiter: None,
            metrics: None,
        }
    }

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

    /// Creates the queue.
    pub fn build(self) -> WorkQueue<T> {
        let limiter = self
            .limiter
            .unwrap_or_else(|| Box::new(default_controller_rate_limiter()));
        WorkQueue::from_shared(Shared::new(self.name, limiter, self.metrics.as_ref()))
    }
}
