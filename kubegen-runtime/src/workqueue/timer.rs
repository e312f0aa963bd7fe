//! The background task that moves delayed items into the queue when due.

use std::sync::{Arc, Weak};

use tokio::sync::Notify;

use super::QueueItem;
use super::shared::{Shared, TimerStep};

/// Starts the timer task of `shared`, woken through `wake`.
///
/// The task holds the queue weakly: it ends when the queue shuts down or when
/// its last handle is dropped.
///
/// # Panics
///
/// Outside a Tokio runtime.
pub(super) fn spawn<T: QueueItem>(shared: &Arc<Shared<T>>, wake: Arc<Notify>) {
    tokio::spawn(run(Arc::downgrade(shared), wake));
}

/// The task's loop: release due items, then sleep until the next deadline.
async fn run<T: QueueItem>(queue: Weak<Shared<T>>, wake: Arc<Notify>) {
    loop {
        let step = match queue.upgrade() {
            Some(shared) => shared.release_due(),
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
