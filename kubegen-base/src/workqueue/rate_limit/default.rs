//! [`default_controller_rate_limiter`]: client-go's combination of per-item
//! backoff and an overall bucket.

use super::bucket::Bucket;
use super::exponential::ItemExponentialFailure;
use super::max_of::MaxOf;
use crate::workqueue::QueueItem;

/// client-go's `DefaultControllerRateLimiter`: the larger of a per-item
/// exponential backoff (5 ms doubling up to 1000 s) and an overall token bucket
/// (10 qps, burst 100).
pub fn default_controller_rate_limiter<T: QueueItem>() -> MaxOf<T> {
    MaxOf::new(vec![
        Box::new(ItemExponentialFailure::default()),
        Box::new(Bucket::default()),
    ])
}
