//! Tests of the work queue: semantics, delays, rate limits, metrics and a model check.

mod delay;
mod metrics;
mod model;
mod queue;
mod rate_limit;
mod shutdown;

use std::time::Duration;

use super::{ItemExponentialFailure, WorkQueue};

/// A queue of small integers whose rate limiter is a plain exponential backoff
/// (1 ms doubling up to 8 ms), so delays are easy to predict.
fn small_queue() -> WorkQueue<u32> {
    WorkQueue::builder("test")
        .rate_limiter(ItemExponentialFailure::new(
            Duration::from_millis(1),
            Duration::from_millis(8),
        ))
        .build()
}

/// Awaits `future`, failing the test instead of hanging if it never completes
/// (in a paused-time test the minute passes as soon as everything is idle).
#[track_caller]
fn soon<F: std::future::Future>(future: F) -> impl std::future::Future<Output = F::Output> {
    let caller = std::panic::Location::caller();
    async move {
        tokio::time::timeout(Duration::from_secs(60), future)
            .await
            .unwrap_or_else(|_| panic!("future at {caller} never completed"))
    }
}

/// Lets spawned tasks (the timer task, drain waiters) run on a current-thread
/// runtime.
async fn settle() {
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
}
