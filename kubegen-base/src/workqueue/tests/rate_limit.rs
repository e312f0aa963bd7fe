//! Rate limiters on their own and behind `add_rate_limited`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::{settle, small_queue};
use crate::workqueue::{
    Bucket, Clock, ItemExponentialFailure, ItemFastSlow, MaxOf, RateLimiter, WithMaxWait,
    default_controller_rate_limiter,
};

const MS: Duration = Duration::from_millis(1);

/// A clock that only moves when told to.
#[derive(Debug)]
struct ManualClock {
    now: Mutex<Instant>,
}

impl ManualClock {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            now: Mutex::new(Instant::now()),
        })
    }

    fn advance(&self, by: Duration) {
        *self.now.lock() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock()
    }
}

fn whens<R: RateLimiter<&'static str>>(limiter: &R, item: &'static str, n: usize) -> Vec<Duration> {
    (0..n).map(|_| limiter.when(&item)).collect()
}

#[test]
fn exponential_doubles_per_item_and_caps() {
    let limiter = ItemExponentialFailure::new(5 * MS, 100 * MS);
    assert_eq!(
        whens(&limiter, "a", 7),
        vec![
            5 * MS,
            10 * MS,
            20 * MS,
            40 * MS,
            80 * MS,
            100 * MS,
            100 * MS
        ]
    );
    assert_eq!(limiter.num_requeues(&"a"), 7);
    // Other items keep their own count.
    assert_eq!(limiter.when(&"b"), 5 * MS);
    assert_eq!(limiter.num_requeues(&"b"), 1);
}

#[test]
fn exponential_forget_resets_the_backoff() {
    let limiter = ItemExponentialFailure::new(5 * MS, Duration::from_secs(1000));
    whens(&limiter, "a", 3);
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(whens(&limiter, "a", 2), vec![5 * MS, 10 * MS]);
}

#[test]
fn exponential_never_overflows() {
    let limiter = ItemExponentialFailure::new(Duration::from_secs(1), Duration::MAX);
    let delays = whens(&limiter, "a", 100);
    assert_eq!(delays[10], Duration::from_secs(1024));
    assert_eq!(delays[31], Duration::from_secs(1 << 31));
    // 2^32 no longer fits the multiplier: the cap applies.
    assert_eq!(delays[32], Duration::MAX);
    assert_eq!(delays[99], Duration::MAX);
}

#[test]
fn exponential_default_is_client_go_s() {
    let limiter = ItemExponentialFailure::default();
    let delays = whens(&limiter, "a", 30);
    assert_eq!(&delays[..3], &[5 * MS, 10 * MS, 20 * MS]);
    assert_eq!(delays[17], 5 * MS * (1 << 17));
    assert_eq!(delays[18], Duration::from_secs(1000));
    assert_eq!(delays[29], Duration::from_secs(1000));
}

#[test]
fn bucket_allows_a_burst_then_spaces_tokens() {
    let clock = ManualClock::new();
    let bucket = Bucket::with_clock(10.0, 3, clock.clone());
    let delays = whens(&bucket, "x", 6);
    let expected = [0, 0, 0, 100, 200, 300].map(|ms| ms * MS);
    for (got, want) in delays.iter().zip(expected) {
        assert!(got.abs_diff(want) < Duration::from_micros(1), "{delays:?}");
    }
    // Tokens are shared by all items and never per-item counted.
    assert_eq!(RateLimiter::<&str>::num_requeues(&bucket, &"x"), 0);
}

#[test]
fn bucket_refills_with_time_up_to_the_burst() {
    let clock = ManualClock::new();
    let bucket = Bucket::with_clock(10.0, 2, clock.clone());
    whens(&bucket, "x", 2);
    // 250 ms refill 2.5 tokens, capped at the burst of 2.
    clock.advance(250 * MS);
    assert_eq!(whens(&bucket, "x", 2), vec![Duration::ZERO; 2]);
    let next = bucket.when(&"x");
    assert!(
        next.abs_diff(100 * MS) < Duration::from_micros(1),
        "{next:?}"
    );
    // Debt is repaid as time passes: 100 ms later the reserved token exists.
    clock.advance(100 * MS);
    let after = bucket.when(&"x");
    assert!(
        after.abs_diff(100 * MS) < Duration::from_micros(1),
        "{after:?}"
    );
}

#[test]
fn bucket_default_is_ten_qps_burst_hundred() {
    let clock = ManualClock::new();
    let bucket = Bucket::with_clock(10.0, 100, clock);
    let delays = whens(&bucket, "x", 101);
    assert!(delays[..100].iter().all(Duration::is_zero));
    assert!(delays[100].abs_diff(100 * MS) < Duration::from_micros(1));
    let default = Bucket::default();
    assert!(whens(&default, "x", 100).iter().all(Duration::is_zero));
    assert!(!RateLimiter::<&str>::when(&default, &"x").is_zero());
}

#[test]
fn bucket_edge_rates() {
    let unlimited = Bucket::new(f64::INFINITY, 1);
    assert!(whens(&unlimited, "x", 10).iter().all(Duration::is_zero));
    let frozen = Bucket::new(0.0, 1);
    assert_eq!(whens(&frozen, "x", 2), vec![Duration::ZERO, Duration::MAX]);
}

#[test]
fn fast_slow_switches_after_the_fast_attempts() {
    let limiter = ItemFastSlow::new(5 * MS, 10 * MS * 1000, 3);
    assert_eq!(
        whens(&limiter, "a", 5),
        vec![5 * MS, 5 * MS, 5 * MS, 10_000 * MS, 10_000 * MS]
    );
    assert_eq!(limiter.num_requeues(&"a"), 5);
    assert_eq!(limiter.when(&"b"), 5 * MS);
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), 5 * MS);
}

#[test]
fn max_of_takes_the_longest_delay_and_forwards() {
    let fast_slow = Arc::new(ItemFastSlow::new(MS, 50 * MS, 2));
    let expo = Arc::new(ItemExponentialFailure::new(4 * MS, Duration::from_secs(1)));
    let limiter: MaxOf<&str> =
        MaxOf::new(vec![Box::new(fast_slow.clone()), Box::new(expo.clone())]);
    assert_eq!(
        whens(&limiter, "a", 6),
        vec![4 * MS, 8 * MS, 50 * MS, 50 * MS, 64 * MS, 128 * MS]
    );
    assert_eq!(limiter.num_requeues(&"a"), 6);
    limiter.forget(&"a");
    assert_eq!(fast_slow.num_requeues(&"a"), 0);
    assert_eq!(expo.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), 4 * MS);
    let empty: MaxOf<&str> = MaxOf::new(Vec::new());
    assert_eq!(empty.when(&"a"), Duration::ZERO);
    assert_eq!(empty.num_requeues(&"a"), 0);
}

#[test]
fn max_wait_caps_delays_and_forwards_the_history() {
    let limiter = WithMaxWait::new(
        ItemExponentialFailure::new(5 * MS, Duration::from_secs(1000)),
        12 * MS,
    );
    assert_eq!(
        whens(&limiter, "a", 4),
        vec![5 * MS, 10 * MS, 12 * MS, 12 * MS]
    );
    assert_eq!(limiter.num_requeues(&"a"), 4);
    limiter.forget(&"a");
    assert_eq!(limiter.num_requeues(&"a"), 0);
    assert_eq!(limiter.when(&"a"), 5 * MS);
    // A bucket that ran dry (on a clock that does not move) is capped too.
    let dry = WithMaxWait::new(Bucket::with_clock(1.0, 1, ManualClock::new()), 12 * MS);
    assert_eq!(whens(&dry, "a", 3), vec![Duration::ZERO, 12 * MS, 12 * MS]);
}

#[tokio::test(start_paused = true)]
async fn default_controller_rate_limiter_combines_backoff_and_bucket() {
    let limiter = default_controller_rate_limiter::<String>();
    let a = "a".to_owned();
    let delays: Vec<Duration> = (0..3).map(|_| limiter.when(&a)).collect();
    assert_eq!(delays, vec![5 * MS, 10 * MS, 20 * MS]);
    assert_eq!(limiter.num_requeues(&a), 3);
    limiter.forget(&a);
    assert_eq!(limiter.num_requeues(&a), 0);
    assert_eq!(limiter.when(&a), 5 * MS);
    // 4 tokens of the burst of 100 are spent; with time paused, fresh items
    // get 5 ms until the bucket runs dry, then the bucket's spacing.
    for i in 0..100u32 {
        let delay = limiter.when(&i.to_string());
        let want = if i < 96 { 5 * MS } else { (i - 95) * 100 * MS };
        assert!(
            delay.abs_diff(want) < Duration::from_micros(1),
            "item {i}: {delay:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn queue_rate_limits_with_its_limiter() {
    let q = small_queue();
    let start = tokio::time::Instant::now();
    let mut gaps = Vec::new();
    for _ in 0..5 {
        let before = start.elapsed();
        q.add_rate_limited(9);
        assert_eq!(q.get().await, Some(9));
        gaps.push(start.elapsed() - before);
        q.done(&9);
    }
    assert_eq!(gaps, vec![MS, 2 * MS, 4 * MS, 8 * MS, 8 * MS]);
    assert_eq!(q.num_requeues(&9), 5);
    q.forget(&9);
    assert_eq!(q.num_requeues(&9), 0);
    q.add_rate_limited(9);
    settle().await;
    assert_eq!(q.delayed_len(), 1);
    assert_eq!(q.get().await, Some(9));
    assert_eq!(start.elapsed() - gaps.iter().sum::<Duration>(), MS);
}
