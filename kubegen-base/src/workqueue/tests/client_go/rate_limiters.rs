//! `default_rate_limiters_test.go`: the rate limiters on their own.

use std::time::Duration;

use parking_lot::Mutex;

use crate::workqueue::{ItemExponentialFailure, ItemFastSlow, MaxOf, RateLimiter, WithMaxWait};

const MS: Duration = Duration::from_millis(1);
const SECOND: Duration = Duration::from_secs(1);
const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

/// The delays of `n` retries of `item`.
fn whens<R: RateLimiter<&'static str>>(limiter: &R, item: &'static str, n: usize) -> Vec<Duration> {
    (0..n).map(|_| limiter.when(&item)).collect()
}

/// client-go: `TestItemExponentialFailureRateLimiter`.
#[test]
fn item_exponential_failure_rate_limiter() {
    let limiter = ItemExponentialFailure::new(MS, SECOND);
    assert_eq!(
        whens(&limiter, "one", 5),
        [1, 2, 4, 8, 16].map(|ms| ms * MS)
    );
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(whens(&limiter, "two", 2), [MS, 2 * MS]);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), MS);
}

/// client-go: `TestItemExponentialFailureRateLimiterOverFlow`.
#[test]
fn item_exponential_failure_rate_limiter_over_flow() {
    let limiter = ItemExponentialFailure::new(MS, 1000 * SECOND);
    whens(&limiter, "one", 5);
    assert_eq!(limiter.when(&"one"), 32 * MS);
    whens(&limiter, "overflow1", 1000);
    assert_eq!(limiter.when(&"overflow1"), 1000 * SECOND);

    let limiter = ItemExponentialFailure::new(MINUTE, 1000 * HOUR);
    whens(&limiter, "two", 2);
    assert_eq!(limiter.when(&"two"), 4 * MINUTE);
    whens(&limiter, "overflow2", 1000);
    assert_eq!(limiter.when(&"overflow2"), 1000 * HOUR);
}

/// client-go: `TestItemFastSlowRateLimiter`.
#[test]
fn item_fast_slow_rate_limiter() {
    let limiter = ItemFastSlow::new(5 * MS, 10 * SECOND, 3);
    assert_eq!(
        whens(&limiter, "one", 5),
        [5 * MS, 5 * MS, 5 * MS, 10 * SECOND, 10 * SECOND]
    );
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(whens(&limiter, "two", 2), [5 * MS, 5 * MS]);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

/// client-go: `TestMaxOfRateLimiter`.
#[test]
fn max_of_rate_limiter() {
    let limiter: MaxOf<&str> = MaxOf::new(vec![
        Box::new(ItemFastSlow::new(5 * MS, 3 * SECOND, 3)),
        Box::new(ItemExponentialFailure::new(MS, SECOND)),
    ]);
    assert_eq!(
        whens(&limiter, "one", 5),
        [5 * MS, 5 * MS, 5 * MS, 3 * SECOND, 3 * SECOND]
    );
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(whens(&limiter, "two", 2), [5 * MS, 5 * MS]);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

/// client-go's `StepRateLimiter` test double: `base` for the first
/// `threshold` calls over all items, `max` after.
struct Step {
    calls: Mutex<u32>,
    threshold: u32,
    base: Duration,
    max: Duration,
}

impl<T> RateLimiter<T> for Step {
    fn when(&self, _item: &T) -> Duration {
        let mut calls = self.calls.lock();
        *calls += 1;
        if *calls <= self.threshold {
            self.base
        } else {
            self.max
        }
    }

    fn forget(&self, _item: &T) {}

    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}

/// client-go: `TestWithMaxWaitRateLimiter`.
#[test]
fn with_max_wait_rate_limiter() {
    let step = Step {
        calls: Mutex::new(0),
        threshold: 100,
        base: 5 * MS,
        max: 1000 * SECOND,
    };
    let limiter = WithMaxWait::new(step, 500 * SECOND);
    for item in 0..100u32 {
        assert_eq!(limiter.when(&item), 5 * MS, "item {item}");
    }
    for item in 100..200u32 {
        assert_eq!(limiter.when(&item), 500 * SECOND, "item {item}");
    }
}
