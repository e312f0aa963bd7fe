//! Per-item exponential backoff (client-go's `ItemExponentialFailureRateLimiter`).

use std::collections::HashMap;
use std::time::Duration;

use parking_lot::Mutex;

use super::limiter::RateLimiter;
use crate::workqueue::QueueItem;

/// Per-item exponential backoff: the n-th retry (from 0) of an item waits
/// `base * 2^n`, capped at `max`.
///
/// The default is client-go's: base 5 ms, max 1000 s.
#[derive(Debug)]
pub struct ItemExponentialFailure<T> {
    base: Duration,
    max: Duration,
    failures: Mutex<HashMap<T, u32>>,
}

impl<T> ItemExponentialFailure<T> {
    /// A backoff starting at `base` and doubling up to `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// The delay of retry number `exponent` (from 0), without overflow.
    fn delay(&self, exponent: u32) -> Duration {
        2u32.checked_pow(exponent)
            .and_then(|factor| self.base.checked_mul(factor))
            .map_or(self.max, |delay| delay.min(self.max))
    }
}

impl<T> Default for ItemExponentialFailure<T> {
    fn default() -> Self {
        Self::new(Duration::from_millis(5), Duration::from_secs(1000))
    }
}

impl<T: QueueItem> RateLimiter<T> for ItemExponentialFailure<T> {
    fn when(&self, item: &T) -> Duration {
        let exponent = {
            let mut failures = self.failures.lock();
            let count = failures.entry(item.clone()).or_insert(0);
            let exponent = *count;
            *count = count.saturating_add(1);
            exponent
        };
        self.delay(exponent)
    }

    fn forget(&self, item: &T) {
        self.failures.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.lock().get(item).copied().unwrap_or(0)
    }
}
