//! The time source that time-based rate limiters read, replaceable in tests.
//!
//! Only rate limiters read a [`Clock`] (the token [`Bucket`](super::Bucket)
//! is the one that depends on time): a test can hand one a clock it moves by
//! hand. The queue's delays and metrics read Tokio's clock directly, because
//! its timer task sleeps with Tokio's timers; tests make them deterministic
//! with paused time (`tokio::time::pause`, `#[tokio::test(start_paused =
//! true)]`), which [`TokioClock`] follows too.

use std::time::Instant;

/// A monotonic time source.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// Tokio's clock: the system's monotonic clock, or the paused test clock when
/// a Tokio runtime runs with paused time (`tokio::time::pause`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
}
