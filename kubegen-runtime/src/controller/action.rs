//! [`Action`]: what a successful reconcile asks the controller to do next.

use std::time::Duration;

/// What the controller does with a key after its reconcile succeeded.
///
/// Either way the key's backoff history is forgotten, so a later failure
/// starts again from the rate limiter's first delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    requeue_after: Option<Duration>,
}

impl Action {
    /// Nothing more to do until the next event about the object.
    pub fn done() -> Self {
        Action {
            requeue_after: None,
        }
    }

    /// Reconcile the object again after `delay`, even without an event
    /// (for example to poll an external system). An event arriving earlier
    /// reconciles it earlier.
    pub fn requeue_after(delay: Duration) -> Self {
        Action {
            requeue_after: Some(delay),
        }
    }

    /// The delay before the next reconcile asked for, if any.
    pub fn requeue_delay(&self) -> Option<Duration> {
        self.requeue_after
    }
}
