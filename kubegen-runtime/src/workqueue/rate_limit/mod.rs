//! Rate limiters deciding how long a failed item waits before it is retried.

mod bucket;
mod clock;
mod exponential;
mod fast_slow;
mod max_of;

use std::sync::Arc;
use std::time::Duration;

pub use bucket::Bucket;
pub use clock::{Clock, TokioClock};
pub use exponential::ItemExponentialFailure;
pub use fast_slow::ItemFastSlow;
pub use max_of::MaxOf;

use super::QueueItem;

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

/// client-go's `DefaultControllerRateLimiter`: the larger of a per-item
/// exponential backoff (5 ms doubling up to 1000 s) and an overall token bucket
/// (10 qps, burst 100).
pub fn default_controller_rate_limiter<T: QueueItem>() -> MaxOf<T> {
    MaxOf::new(vec![
        Box::new(ItemExponentialFailure::default()),
        Box::new(Bucket::default()),
    ])
}
