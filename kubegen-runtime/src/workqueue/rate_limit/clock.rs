//! The time source that time-based rate limiters read, replaceable in tests.

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
