//! A cap on another limiter's delays (client-go's `WithMaxWaitRateLimiter`).

use std::time::Duration;

use super::limiter::RateLimiter;

/// Wraps a rate limiter so that no delay exceeds `max_delay`; `forget` and
/// `num_requeues` are the wrapped limiter's.
///
/// ```
/// use std::time::Duration;
/// use kubegen::workqueue::{Bucket, RateLimiter, WithMaxWait};
///
/// // A bucket that never refills would make the second retry wait forever.
/// let capped = WithMaxWait::new(Bucket::new(0.0, 1), Duration::from_secs(60));
/// assert_eq!(RateLimiter::<&str>::when(&capped, &"a"), Duration::ZERO);
/// assert_eq!(RateLimiter::<&str>::when(&capped, &"a"), Duration::from_secs(60));
/// ```
#[derive(Debug)]
pub struct WithMaxWait<R> {
    limiter: R,
    max_delay: Duration,
}

impl<R> WithMaxWait<R> {
    /// `limiter` with every delay capped at `max_delay`.
    pub fn new(limiter: R, max_delay: Duration) -> Self {
        Self { limiter, max_delay }
    }
}

impl<T, R: RateLimiter<T>> RateLimiter<T> for WithMaxWait<R> {
    fn when(&self, item: &T) -> Duration {
        self.limiter.when(item).min(self.max_delay)
    }

    fn forget(&self, item: &T) {
        self.limiter.forget(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.limiter.num_requeues(item)
    }
}
