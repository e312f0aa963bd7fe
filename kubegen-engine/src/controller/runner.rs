//! [`Controller`]: waits for the caches, runs the workers until shutdown,
//! then drains in-flight reconciles.

use std::fmt::{self, Debug};
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, join_all};
use kubegen_client::Resource;
use serde::de::DeserializeOwned;

use super::source::Source;
use super::worker::{Worker, run_workers};
use crate::informer::ShardError;
use crate::store::ObjectKey;
use crate::workqueue::WorkQueue;

/// Why [`Controller::run`] gave up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControllerError {
    /// Informers were shut down before their caches synced.
    #[error(
        "controller {controller}: informers shut down before their caches synced: {resources:?}"
    )]
    CacheSyncFailed {
        /// The controller's name.
        controller: String,
        /// The resource names of the informers that did not sync.
        resources: Vec<String>,
    },
    /// An informer of a [sharded](super::ControllerBuilder::shards)
    /// controller could not be sharded.
    #[error("controller {controller}: {source}")]
    Sharding {
        /// The controller's name.
        controller: String,
        /// Why.
        source: ShardError,
    },
}

/// A controller: keys of the primary resource `K` flow from informer
/// events into a rate-limited [`WorkQueue`] and are reconciled by a pool of
/// workers, one key never by two workers at once (client-go's
/// sample-controller loop).
///
/// Build it with [`Controller::builder`], then [`run`](Controller::run) it.
///
/// Only building it knows the kind: the running controller (its workers,
/// sources and shutdown) is the same for every kind, compiled once in the
/// runtime rather than in each operator crate for each kind.
pub struct Controller<K> {
    parts: Parts,
    kind: PhantomData<fn() -> K>,
}

/// A controller without its kind.
struct Parts {
    worker: Arc<Worker>,
    sources: Vec<Box<dyn Source>>,
    workers: usize,
    shutdown_deadline: Duration,
    /// Why an informer could not be sharded, reported by `run`.
    sharding_error: Option<ShardError>,
}

impl<K> Debug for Controller<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = &self.parts;
        f.debug_struct("Controller")
            .field("name", &parts.worker.name)
            .field(
                "sources",
                &parts.sources.iter().map(|s| s.name()).collect::<Vec<_>>(),
            )
            .field("workers", &parts.workers)
            .field("shutdown_deadline", &parts.shutdown_deadline)
            .finish_non_exhaustive()
    }
}

impl<K> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    pub(super) fn new(
        worker: Arc<Worker>,
        sources: Vec<Box<dyn Source>>,
        workers: usize,
        shutdown_deadline: Duration,
        sharding_error: Option<ShardError>,
    ) -> Self {
        Controller {
            parts: Parts {
                worker,
                sources,
                workers,
                shutdown_deadline,
                sharding_error,
            },
            kind: PhantomData,
        }
    }

    /// Whether it reconciles only the partitions its shards act on (see
    /// [`ControllerBuilder::shards`](super::ControllerBuilder::shards)).
    pub fn is_sharded(&self) -> bool {
        self.parts.worker.shards.is_some()
    }

    /// The controller's name.
    pub fn name(&self) -> &str {
        &self.parts.worker.name
    }

    /// The controller's work queue, named after it: add keys by hand to
    /// have them reconciled, or read a key's
    /// [`num_requeues`](WorkQueue::num_requeues).
    pub fn queue(&self) -> &WorkQueue<ObjectKey> {
        &self.parts.worker.queue
    }

    /// Starts the informers the controller reads, without registering its
    /// handlers, and resolves to whether all their caches synced (`false`:
    /// one was shut down first). [`run`](Controller::run) does the same
    /// before it registers; doing it earlier warms the caches up.
    pub(crate) fn warm_up(&self) -> BoxFuture<'static, bool> {
        self.parts.warm_up()
    }

    /// Runs the controller until `shutdown` resolves.
    ///
    /// It starts the informers that are not running yet, registers its
    /// event handlers (which first enqueue every cached object), waits for
    /// every informer's cache to sync, then runs the workers. Once
    /// `shutdown` resolves no new reconcile starts; in-flight reconciles
    /// get the [shutdown deadline](super::ControllerBuilder::shutdown_deadline) to
    /// finish (they are cancelled after it); the event handlers are removed
    /// and `run` returns. `shutdown` may be [`shutdown_signal`](super::shutdown_signal),
    /// a [`Leadership::lost`](crate::leader_election::Leadership::lost), or
    /// any `Send` future.
    ///
    /// Fails when an informer is shut down before its cache synced, or
    /// could not be sharded.
    ///
    /// The future is boxed in the runtime, where the controller's loop is
    /// compiled (once, for every kind), so a crate awaiting it compiles
    /// none of it.
    pub fn run<'a>(
        self,
        shutdown: impl Future + Send + 'a,
    ) -> BoxFuture<'a, Result<(), ControllerError>> {
        self.parts.run(Box::pin(async move {
            shutdown.await;
        }))
    }
}

impl Parts {
    fn warm_up(&self) -> BoxFuture<'static, bool> {
        for source in &self.sources {
            source.start();
        }
        let synced = join_all(self.sources.iter().map(|s| s.synced()));
        Box::pin(async move { synced.await.into_iter().all(|synced| synced) })
    }

    fn run(self, shutdown: BoxFuture<'_, ()>) -> BoxFuture<'_, Result<(), ControllerError>> {
        Box::pin(self.run_until(shutdown))
    }

    async fn run_until(self, mut shutdown: BoxFuture<'_, ()>) -> Result<(), ControllerError> {
        let name = self.worker.name.clone();
        if let Some(source) = self.sharding_error {
            self.worker.queue.shutdown();
            return Err(ControllerError::Sharding {
                controller: name.to_string(),
                source,
            });
        }
        for source in &self.sources {
            source.start();
        }
        let registrations: Vec<_> = self.sources.iter().map(|s| s.register()).collect();
        tracing::info!(controller = %name, "waiting for informer caches to sync");
        let synced = join_all(self.sources.iter().map(|s| s.synced()));
        let synced = tokio::select! {
            synced = synced => Some(synced),
            _ = &mut shutdown => None,
        };
        let result = match synced {
            None => {
                tracing::info!(controller = %name, "shut down before the caches synced");
                self.worker.queue.shutdown();
                Ok(())
            }
            Some(synced) if synced.iter().all(|s| *s) => {
                tracing::info!(controller = %name, workers = self.workers, "caches synced; starting workers");
                run_workers(
                    self.worker.clone(),
                    self.workers,
                    self.shutdown_deadline,
                    shutdown,
                )
                .await;
                tracing::info!(controller = %name, "controller stopped");
                Ok(())
            }
            Some(synced) => {
                self.worker.queue.shutdown();
                let resources = self
                    .sources
                    .iter()
                    .zip(synced)
                    .filter(|(_, synced)| !synced)
                    .map(|(source, _)| source.name().to_owned())
                    .collect();
                Err(ControllerError::CacheSyncFailed {
                    controller: name.to_string(),
                    resources,
                })
            }
        };
        for (source, registration) in self.sources.iter().zip(&registrations) {
            source.unregister(registration);
        }
        result
    }
}
