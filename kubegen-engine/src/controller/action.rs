//! [`Action`]: what a successful reconcile asks the controller to do next.

use std::time::Duration;

/// What the controller does with a key after its reconcile succeeded.
///
/// Either way the key's backoff history is forgotten, so a later failure
/// starts again from the rate limiter's first delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    requeue_after: Option<Duration>,
    priority: Option<i32>,
}

impl Action {
    /// Nothing more to do until the next event about the object.
    pub fn done() -> Self {
        Action {
            requeue_after: None,
            priority: None,
        }
    }

    /// Reconcile the object again after `delay`, even without an event
    /// (for example to poll an external system). An event arriving earlier
    /// reconciles it earlier.
    pub fn requeue_after(delay: Duration) -> Self {
        Action {
            requeue_after: Some(delay),
            priority: None,
        }
    }

    /// Requeues at `priority` instead of the priority the key was handed
    /// out at (controller-runtime's `Result.Priority`): higher priorities
    /// are reconciled first, [`LOW_PRIORITY`](super::LOW_PRIORITY) is what
    /// initial lists and resyncs get, 0 what events get. Only a requeue
    /// ([`requeue_after`](Self::requeue_after)) uses it.
    #[must_use]
    pub fn with_priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// The delay before the next reconcile asked for, if any.
    pub fn requeue_delay(&self) -> Option<Duration> {
        self.requeue_after
    }

    /// The priority of the requeue, if one was set with
    /// [`with_priority`](Self::with_priority).
    pub fn requeue_priority(&self) -> Option<i32> {
        self.priority
    }
}
