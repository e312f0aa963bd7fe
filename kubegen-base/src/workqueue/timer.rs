//! The background task that moves delayed items into the queue when due.
//!
//! It knows the queue only through [`ReleaseDue`], the one operation it
//! calls. It sleeps with Tokio's timers rather than through a
//! [`Clock`](super::Clock): with Tokio's time paused, tests move every
//! deadline with `tokio::time::advance`, as client-go's tests step a fake
//! clock.

use std::sync::{Arc, Weak};

use tokio::sync::Notify;
use tokio::time::Instant;

/// What the timer task must do next.
#[derive(Debug, Clone, Copy)]
pub(super) enum TimerStep {
    /// Sleep until the deadline (or forever when `None`) or a wake-up.
    Wait(Option<Instant>),
    /// The queue is shut down: exit.
    Stop,
}

/// What the timer drives: a queue holding delayed items.
pub(super) trait ReleaseDue: Send + Sync + 'static {
    /// Moves every delayed item whose deadline has passed into the queue and
    /// tells the timer what to do next.
    fn release_due(&self) -> TimerStep;
}

/// Starts the timer task of `queue`, woken through `wake`.
///
/// The task holds the queue weakly: it ends when the queue shuts down or when
/// its last handle is dropped.
///
/// # Panics
///
/// Outside a Tokio runtime.
pub(super) fn spawn<Q: ReleaseDue>(queue: &Arc<Q>, wake: Arc<Notify>) {
    tokio::spawn(run(Arc::downgrade(queue), wake));
}

/// The task's loop: release due items, then sleep until the next deadline.
async fn run<Q: ReleaseDue>(queue: Weak<Q>, wake: Arc<Notify>) {
    loop {
        let step = match queue.upgrade() {
            Some(queue) => queue.release_due(),
            None => TimerStep::Stop,
        };
        match step {
            TimerStep::Stop => return,
            TimerStep::Wait(Some(deadline)) => {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = wake.notified() => {}
                }
            }
            TimerStep::Wait(None) => wake.notified().await,
        }
    }
}
