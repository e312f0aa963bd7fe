//! Tests of the work queue: semantics, delays, rate limits, priorities,
//! shutdown, metrics, a model check, and ports of client-go's own tests.

mod client_go;
mod delay;
mod metrics;
mod model;
mod priority;
mod queue;
mod rate_limit;
mod shutdown;

use std::time::Duration;

use super::{ItemExponentialFailure, WorkQueue};

/// A plain exponential backoff (1 ms doubling up to 8 ms), so delays are easy
/// to predict.
fn small_limiter<T>() -> ItemExponentialFailure<T> {
    ItemExponentialFailure::new(Duration::from_millis(1), Duration::from_millis(8))
}

/// A FIFO queue of small integers rate limited by [`small_limiter`].
fn small_queue() -> WorkQueue<u32> {
    WorkQueue::builder("test")
        .rate_limiter(small_limiter())
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
