//! [`RateLimiter`]: the interface every rate limiter implements.

use std::sync::Arc;
use std::time::Duration;

/// Decides the delay before an item is retried, as client-go's `RateLimiter`.
pub trait RateLimiter<T>: Send + Sync {
    /// Records one more retry of `item` and returns how long it must wait.
    fn when(&self, item: &T) -> Duration;
    /// Forgets `item`'s history: its next retry starts from the first delay.
    fn forget(&self, item: &T);
    /// How many times `item` was retried since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

impl<T, R: RateLimiter<T> + ?Sized> RateLimiter<T> for Box<R> {
    fn when(&self, item: &T) -> Duration {
        (**self).when(item)
    }

    fn forget(&self, item: &T) {
        (**self).forget(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        (**self).num_requeues(item)
    }
}

impl<T, R: RateLimiter<T> + ?Sized> RateLimiter<T> for Arc<R> {
    fn when(&self, item: &T) -> Duration {
        (**self).when(item)
    }

    fn forget(&self, item: &T) {
        (**self).forget(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        (**self).num_requeues(item)
    }
}
