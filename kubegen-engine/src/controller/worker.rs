//! The workers: take a key, read the object from the cache, reconcile it
//! inside a `reconcile` span, and requeue it by the outcome; and the drain
//! of in-flight work at shutdown.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use kubegen_client::Resource;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::Instrument;

use super::metrics::Series;
use super::source::{KeyQueue, Tombstones};
use super::{Action, ReconcileResult};
use crate::lister::Lister;
use crate::sharding::Shards;
use crate::store::ObjectKey;

/// The reconcile function with the user's context bound and its error
/// rendered as text.
pub(super) type ReconcileFn<K> =
    Arc<dyn Fn(Arc<K>) -> BoxFuture<'static, Result<Action, String>> + Send + Sync>;

/// Reads the object cached under a key, ready to be reconciled: the one
/// step of the workers that knows the kind, so that the workers
/// themselves are compiled once, here, not in every operator crate for
/// each of its kinds.
pub(super) type FetchFn = Arc<dyn Fn(&ObjectKey) -> Option<Fetched> + Send + Sync>;

/// An object read from the cache by a [`FetchFn`].
pub(super) struct Fetched {
    /// Its `metadata.uid`, which places it in a partition.
    pub(super) uid: Option<String>,
    /// Calls the reconcile function on it (inside the worker's panic
    /// guard).
    pub(super) reconcile: Box<dyn FnOnce() -> BoxFuture<'static, Result<Action, String>> + Send>,
}

/// The [`FetchFn`] of a controller of `K`: the object from `lister`,
/// reconciled by `reconcile`.
pub(super) fn fetch_from<K>(lister: Lister<K>, reconcile: ReconcileFn<K>) -> FetchFn
where
    K: Resource + Send + Sync + 'static,
{
    Arc::new(move |key| {
        let obj = lister.get_key(key).ok()?;
        let reconcile = reconcile.clone();
        Some(Fetched {
            uid: obj.meta().uid.clone(),
            reconcile: Box::new(move || reconcile(obj)),
        })
    })
}

/// The hook called for keys whose object is no longer cached.
pub(super) type DeletedFn = Arc<dyn Fn(ObjectKey) -> BoxFuture<'static, ()> + Send + Sync>;

/// What every worker of one controller shares.
pub(super) struct Worker {
    pub(super) name: Arc<str>,
    pub(super) queue: KeyQueue,
    pub(super) fetch: FetchFn,
    pub(super) on_deleted: Option<DeletedFn>,
    pub(super) metrics: Option<Series>,
    /// Set at shutdown: keys handed out from then on are not reconciled.
    pub(super) stopping: AtomicBool,
    /// The partitions a sharded controller may act on.
    pub(super) shards: Option<Shards>,
    /// A sharded controller's deleted keys: a key whose object is not
    /// cached calls the deleted hook only if it is one (else the object
    /// moved to another replica's partition).
    pub(super) tombstones: Option<Tombstones>,
}

impl Worker {
    /// Processes keys until the queue is shut down.
    async fn run(self: Arc<Self>) {
        while let Some((key, priority)) = self.queue.get_with_priority().await {
            if !self.stopping.load(Ordering::Acquire) {
                self.process(&key, priority).await;
            }
            self.queue.done(&key);
        }
    }

    /// Reconciles the object cached under `key` (or calls the deleted hook
    /// when it is gone) and requeues the key as the outcome asks: at the
    /// priority the action names, else at `priority`, the one the key was
    /// handed out at (as controller-runtime does).
    pub(super) async fn process(&self, key: &ObjectKey, priority: i32) {
        let span = tracing::info_span!(
            "reconcile",
            object.key = %key,
            controller = %self.name,
        );
        self.process_in_span(key, priority).instrument(span).await;
    }

    async fn process_in_span(&self, key: &ObjectKey, priority: i32) {
        let Some(obj) = (self.fetch)(key) else {
            self.queue.forget(key);
            if let Some(tombstones) = &self.tombstones
                && !tombstones.lock().remove(key)
            {
                tracing::debug!("object not in a partition held; not reconciled");
                return;
            }
            tracing::debug!("object is gone; not reconciled");
            if let Some(hook) = &self.on_deleted
                && let Err(panic) = catch_panic(hook(key.clone())).await
            {
                tracing::error!(
                    object.key = %key,
                    panic = panic_message(&*panic),
                    "the deleted-object hook panicked",
                );
            }
            return;
        };
        if let Some(tombstones) = &self.tombstones {
            tombstones.lock().remove(key);
        }
        let mut permit = match &self.shards {
            None => None,
            Some(shards) => match obj.uid.as_deref().and_then(|uid| shards.enter(uid)) {
                Some(permit) => Some(permit),
                None => {
                    tracing::debug!("not in a partition this replica acts on; not reconciled");
                    self.queue.forget(key);
                    return;
                }
            },
        };
        let _busy = self.metrics.as_ref().map(Series::busy);
        let started = Instant::now();
        let reconcile = catch_panic(async move { (obj.reconcile)().await });
        let outcome = match &mut permit {
            None => reconcile.await,
            Some(permit) => tokio::select! {
                outcome = reconcile => outcome,
                () = permit.abandoned() => {
                    tracing::warn!("partition handed over; reconcile abandoned");
                    self.queue.forget(key);
                    return;
                }
            },
        };
        drop(permit);
        let result = match outcome {
            Ok(Ok(action)) => {
                self.queue.forget(key);
                match action.requeue_delay() {
                    Some(delay) => {
                        tracing::debug!(?delay, "reconciled; requeued");
                        let priority = action.requeue_priority().unwrap_or(priority);
                        self.queue
                            .add_after_with_priority(key.clone(), delay, priority);
                        ReconcileResult::Requeue
                    }
                    None => {
                        tracing::debug!("reconciled");
                        ReconcileResult::Success
                    }
                }
            }
            Ok(Err(error)) => {
                tracing::error!(
                    object.key = %key,
                    error,
                    retries = self.queue.num_requeues(key),
                    "reconcile failed; retrying with backoff",
                );
                self.queue
                    .add_rate_limited_with_priority(key.clone(), priority);
                ReconcileResult::Error
            }
            Err(panic) => {
                tracing::error!(
                    object.key = %key,
                    panic = panic_message(&*panic),
                    retries = self.queue.num_requeues(key),
                    "reconcile panicked; retrying with backoff",
                );
                self.queue
                    .add_rate_limited_with_priority(key.clone(), priority);
                ReconcileResult::Panic
            }
        };
        if let Some(metrics) = &self.metrics {
            metrics.record(result, started.elapsed());
        }
    }
}

/// Runs `future`, turning a panic into an error carrying its payload.
async fn catch_panic<T>(
    future: impl Future<Output = T>,
) -> Result<T, Box<dyn Any + Send + 'static>> {
    AssertUnwindSafe(future).catch_unwind().await
}

/// The message of a panic payload (`panic!` gives `&str` or `String`).
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "non-string panic payload"
    }
}

/// Runs `count` workers until `shutdown` resolves (or the queue is shut
/// down), then drains: no new reconcile starts, in-flight ones get up to
/// `deadline` to finish and are cancelled after it.
pub(super) async fn run_workers(
    worker: Arc<Worker>,
    count: usize,
    deadline: Duration,
    shutdown: impl Future,
) {
    let mut workers = JoinSet::new();
    for _ in 0..count.max(1) {
        workers.spawn(worker.clone().run());
    }
    tokio::select! {
        _ = shutdown => {}
        () = join_all(&mut workers) => {
            tracing::warn!(controller = %worker.name, "the work queue was shut down");
        }
    }
    tracing::info!(controller = %worker.name, "shutting down; draining in-flight reconciles");
    worker.stopping.store(true, Ordering::Release);
    let queue = worker.queue.clone();
    if tokio::time::timeout(deadline, queue.shutdown_with_drain())
        .await
        .is_err()
    {
        tracing::warn!(
            controller = %worker.name,
            ?deadline,
            "in-flight reconciles did not finish within the shutdown deadline; cancelling them",
        );
        queue.shutdown();
        workers.abort_all();
    }
    join_all(&mut workers).await;
}

/// Waits for every worker task; a worker that panicked outside a reconcile
/// is logged.
async fn join_all(workers: &mut JoinSet<()>) {
    while let Some(joined) = workers.join_next().await {
        if let Err(e) = joined
            && e.is_panic()
        {
            tracing::error!("a controller worker panicked: {e}");
        }
    }
}
