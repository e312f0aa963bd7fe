//! Fast retries first, then slow ones (client-go's `ItemFastSlowRateLimiter`).

use std::collections::HashMap;
use std::time::Duration;

use parking_lot::Mutex;

use super::limiter::RateLimiter;
use crate::workqueue::QueueItem;

/// Retries an item after `fast` for its first `max_fast_attempts` retries, then
/// after `slow`.
#[derive(Debug)]
pub struct ItemFastSlow<T> {
    fast: Duration,
    slow: Duration,
    max_fast_attempts: u32,
    attempts: Mutex<HashMap<T, u32>>,
}

impl<T> ItemFastSlow<T> {
    /// `max_fast_attempts` retries after `fast`, every later one after `slow`.
    pub fn new(fast: Duration, slow: Duration, max_fast_attempts: u32) -> Self {
        Self {
            fast,
            slow,
            max_fast_attempts,
            attempts: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: QueueItem> RateLimiter<T> for ItemFastSlow<T> {
    fn when(&self, item: &T) -> Duration {
        let attempt = {
            let mut attempts = self.attempts.lock();
            let count = attempts.entry(item.clone()).or_insert(0);
            *count = count.saturating_add(1);
            *count
        };
        if attempt <= self.max_fast_attempts {
            self.fast
        } else {
            self.slow
        }
    }

    fn forget(&self, item: &T) {
        self.attempts.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.attempts.lock().get(item).copied().unwrap_or(0)
    }
}
