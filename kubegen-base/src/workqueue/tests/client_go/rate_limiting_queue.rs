//! `rate_limiting_queue_test.go`: `add_rate_limited` delays by the limiter.

use std::time::Duration;

use tokio::time::{Instant, advance};

use super::super::settle;
use crate::workqueue::{ItemExponentialFailure, WorkQueue};

const MS: Duration = Duration::from_millis(1);

/// How long `item` still waits in the delayed set.
fn wait_left(q: &WorkQueue<&'static str>, item: &'static str) -> Option<Duration> {
    q.deadline_of(&item).map(|at| at - Instant::now())
}

/// Lets every waiting item become due and takes it.
async fn release_all(q: &WorkQueue<&'static str>) {
    advance(Duration::from_secs(1)).await;
    settle().await;
    while let Some(item) = q.try_get() {
        q.done(&item);
    }
}

/// client-go: `TestRateLimitingQueue`. client-go reads each delay off the
/// channel feeding its waiting loop; here the delayed set keeps only an
/// item's earliest deadline, so each delay is read from the deadline while
/// no earlier one is pending.
#[tokio::test(start_paused = true)]
async fn rate_limiting_queue() {
    let q: WorkQueue<&str> = WorkQueue::builder("rate-limiting")
        .rate_limiter(ItemExponentialFailure::new(MS, Duration::from_secs(1)))
        .build();

    q.add_rate_limited("one");
    assert_eq!(wait_left(&q, "one"), Some(MS));
    release_all(&q).await;
    q.add_rate_limited("one");
    assert_eq!(wait_left(&q, "one"), Some(2 * MS));
    assert_eq!(q.num_requeues(&"one"), 2);

    q.add_rate_limited("two");
    assert_eq!(wait_left(&q, "two"), Some(MS));
    release_all(&q).await;
    q.add_rate_limited("two");
    assert_eq!(wait_left(&q, "two"), Some(2 * MS));

    q.forget(&"one");
    assert_eq!(q.num_requeues(&"one"), 0);
    q.add_rate_limited("one");
    assert_eq!(wait_left(&q, "one"), Some(MS));
}
