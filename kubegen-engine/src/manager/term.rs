//! A [`Term`]: the leader-only runnables, started when this replica begins
//! to lead (at once without leader election), drained when the manager
//! stops, aborted when leadership is lost.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::group::{Failure, Group};
use super::runnable::Runnable;
use crate::leader_election::Leadership;

/// What a term tells the manager.
#[derive(Debug)]
pub(super) enum Report {
    /// A leader-only runnable failed.
    Failed(Failure),
    /// Leadership ended while the manager was not stopping; the runnables
    /// were aborted.
    LeadershipLost,
    /// These runnables did not return within the drain timeout and were
    /// aborted.
    DrainTimedOut(Vec<String>),
}

/// The leader-only runnables and what their term needs from the manager.
pub(super) struct Term {
    pub(super) runnables: Vec<Box<dyn Runnable>>,
    /// The manager's stop token: cancelled when the manager stops, and by
    /// the term when leadership is lost (which stops the elector).
    pub(super) stop: CancellationToken,
    pub(super) drain_timeout: Duration,
    pub(super) reports: UnboundedSender<Report>,
    /// With a cold standby: starting the informers and waiting for their
    /// caches, done once leading, before the runnables start.
    pub(super) warm_up: Option<BoxFuture<'static, Result<(), Failure>>>,
}

/// Where the term waits for the elector's first term of leadership.
pub(super) type TermSlot = Arc<Mutex<Option<Term>>>;

/// The elector's `on_started_leading` work: runs the term in `slot` until
/// leadership ends.
pub(super) fn leader_work(
    slot: TermSlot,
) -> impl FnMut(Leadership) -> BoxFuture<'static, ()> + Send {
    move |leadership| {
        let term = slot.lock().take();
        Box::pin(async move {
            // Only the first term has runnables: its end stops the
            // elector, so no other follows (one would lead, idle, until
            // the manager stops).
            if let Some(term) = term {
                tracing::info!(
                    identity = leadership.identity(),
                    "leading: starting the leader-only runnables"
                );
                run(term, async move { leadership.lost().await }).await;
            }
        })
    }
}

/// Runs the term's runnables until `end` resolves. If the manager is
/// stopping then, they are drained within the drain timeout; otherwise
/// leadership was lost: they are aborted at once and the stop token is
/// cancelled, so that the elector does not campaign again.
pub(super) async fn run(term: Term, end: impl Future<Output = ()>) {
    let Term {
        runnables,
        stop,
        drain_timeout,
        reports,
        warm_up,
    } = term;
    let mut end = pin!(end);
    let mut ended = false;
    let runnables = match warm_up {
        None => runnables,
        Some(warm_up) => tokio::select! {
            () = &mut end => {
                ended = true;
                Vec::new()
            }
            synced = warm_up => match synced {
                Ok(()) => runnables,
                Err(failure) => {
                    let _ = reports.send(Report::Failed(failure));
                    Vec::new()
                }
            },
        },
    };
    let mut group = Group::start(runnables);
    while !ended {
        tokio::select! {
            () = &mut end => ended = true,
            failure = group.failure() => {
                let _ = reports.send(Report::Failed(failure));
            }
        }
    }
    if stop.is_cancelled() {
        let aborted = group.drain(Instant::now() + drain_timeout).await;
        if !aborted.is_empty() {
            let _ = reports.send(Report::DrainTimedOut(aborted));
        }
    } else {
        tracing::error!("leadership lost: aborting the leader-only runnables");
        group.abort().await;
        stop.cancel();
        let _ = reports.send(Report::LeadershipLost);
    }
}
