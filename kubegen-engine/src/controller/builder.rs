//! [`Controller::builder`] and [`ControllerBuilder`]: the informers a
//! controller listens to, its workers, rate limiter, metrics, predicate and
//! reconcile function.

use std::fmt::{self, Debug, Display};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kubegen_client::Resource;
use serde::de::DeserializeOwned;

use super::action::Action;
use super::metrics::ControllerMetrics;
use super::predicate::Predicate;
use super::runner::Controller;
use super::source::{
    InformerSource, KeyQueue, MappedHandler, OwnedHandler, OwnerType, PrimaryHandler, Source,
    Tombstones,
};
use super::worker::{DeletedFn, ReconcileFn, Worker, fetch_from};
use crate::informer::{ApiScope, Informer, ShardError};
use crate::sharding::{ShardBy, Shards};
use crate::store::ObjectKey;
use crate::workqueue::{RateLimiter, WorkQueue};

/// The default number of workers (as sample-controller's).
pub const DEFAULT_WORKERS: usize = 2;

/// How long in-flight reconciles may run on at shutdown by default.
pub const DEFAULT_SHUTDOWN_DEADLINE: Duration = Duration::from_secs(30);

/// Builds the source of a secondary informer once the queue exists.
type SourceFn = Box<dyn FnOnce(&KeyQueue) -> Box<dyn Source> + Send>;

/// Shards an owned informer by its objects' controller owner.
type ShardFn = Box<dyn FnOnce(&Shards) -> Result<(), ShardError> + Send>;

/// Configures a [`Controller`]; see [`Controller::builder`]. Finish with
/// [`reconcile`](ControllerBuilder::reconcile).
pub struct ControllerBuilder<K> {
    name: String,
    primary: Informer<K>,
    predicate: Option<Predicate>,
    secondaries: Vec<SourceFn>,
    workers: usize,
    rate_limiter: Option<Box<dyn RateLimiter<ObjectKey>>>,
    metrics: Option<ControllerMetrics>,
    shutdown_deadline: Duration,
    on_deleted: Option<DeletedFn>,
    shards: Option<Shards>,
    /// Shards the owned informers by their controller owner.
    owned: Vec<ShardFn>,
    sharding_error: Option<ShardError>,
}

impl<K> Debug for ControllerBuilder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControllerBuilder")
            .field("name", &self.name)
            .field("primary", &self.primary)
            .field("predicate", &self.predicate)
            .field("secondaries", &self.secondaries.len())
            .field("workers", &self.workers)
            .field("shutdown_deadline", &self.shutdown_deadline)
            .finish_non_exhaustive()
    }
}

impl<K> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// Starts configuring a controller of the objects of `primary`
    /// (typically `factory.informer::<K>()` of a
    /// [`SharedInformerFactory`](crate::factory::SharedInformerFactory)).
    pub fn builder(primary: Informer<K>) -> ControllerBuilder<K> {
        ControllerBuilder {
            name: K::kind(&()).to_lowercase(),
            primary,
            predicate: None,
            secondaries: Vec::new(),
            workers: DEFAULT_WORKERS,
            rate_limiter: None,
            metrics: None,
            shutdown_deadline: DEFAULT_SHUTDOWN_DEADLINE,
            on_deleted: None,
            shards: None,
            owned: Vec::new(),
            sharding_error: None,
        }
    }
}

impl<K> ControllerBuilder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// The controller's name: the `controller` label of its metrics and
    /// logs and the name of its work queue (default: the primary kind in
    /// lower case, such as `configmap`).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Reconciles the controller owner of every object of `informer`
    /// whenever such an object is added, changed or deleted (tombstones
    /// included): the owner reference with `controller: true`, when it names
    /// the primary kind in the primary's API group (any version). Objects
    /// without such a reference are ignored. When the controller is
    /// [sharded](Self::shards), the informer caches only the objects whose
    /// owner is in a partition held, filtering on the client
    /// ([`ShardBy::ControllerOwner`]); see [`owns_labelled`](Self::owns_labelled)
    /// to have the apiserver filter them.
    #[must_use]
    pub fn owns<C>(self, informer: Informer<C>) -> Self
    where
        C: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: 'static,
    {
        self.owns_by(informer, ShardBy::ControllerOwner)
    }

    /// [`owns`](Self::owns), for children that the reconciler labels with
    /// their owner's partition
    /// ([`Shards::owner_partition_label`](crate::sharding::Shards::owner_partition_label)):
    /// when the controller is [sharded](Self::shards), the informer's lists
    /// and watches select that label for the partitions held
    /// ([`ShardBy::OwnerLabel`]), so each replica receives only its
    /// children's events instead of every one — on any apiserver. A child
    /// without the label is not seen, so label every child in the same
    /// write that creates it; a server-side apply of the desired child,
    /// label included, also adopts children written before the label was.
    /// Unsharded, it is [`owns`](Self::owns).
    ///
    /// ```no_run
    /// # use kubegen::controller::Controller;
    /// # use kubegen::informer::Informer;
    /// # use k8s_openapi::api::{apps::v1::Deployment, core::v1::ConfigMap};
    /// # fn demo(primary: Informer<ConfigMap>, deployments: Informer<Deployment>) {
    /// let builder = Controller::builder(primary).owns_labelled(deployments);
    /// # }
    /// ```
    #[must_use]
    pub fn owns_labelled<C>(self, informer: Informer<C>) -> Self
    where
        C: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: 'static,
    {
        self.owns_by(informer, ShardBy::OwnerLabel)
    }

    fn owns_by<C>(mut self, informer: Informer<C>, by: ShardBy) -> Self
    where
        C: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: 'static,
    {
        let owner = OwnerType::of::<K>();
        let owned = informer.clone();
        self.owned.push(Box::new(move |shards: &Shards| {
            owned.shard_by_owner(shards, by)
        }));
        self.secondaries.push(Box::new(move |queue: &KeyQueue| {
            let handler = OwnedHandler {
                queue: queue.clone(),
                owner,
            };
            Box::new(InformerSource::new(informer, handler)) as Box<dyn Source>
        }));
        self
    }

    /// Reconciles the primary objects `mapper` names whenever an object of
    /// `informer` is added, changed (the keys of the old and the new state)
    /// or deleted.
    #[must_use]
    pub fn watches<O, F>(mut self, informer: Informer<O>, mapper: F) -> Self
    where
        O: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        F: Fn(&O) -> Vec<ObjectKey> + Send + Sync + 'static,
    {
        let mapper = Arc::new(mapper);
        self.secondaries.push(Box::new(move |queue: &KeyQueue| {
            let handler = MappedHandler {
                queue: queue.clone(),
                mapper,
            };
            Box::new(InformerSource::new(informer, handler)) as Box<dyn Source>
        }));
        self
    }

    /// Shards the controller (see [`crate::sharding`]): its primary
    /// informer caches only the objects of the partitions `shards` holds
    /// (filtered by the apiserver when it can), its
    /// [owned](Self::owns) informers only the objects whose controller
    /// owner is in them, and a key is reconciled only while its partition
    /// is acted on — under a permit that a handover waits for (or abandons
    /// after its timeout). A sharded controller runs on every replica, not
    /// only the leader. Informers given to [`watches`](Self::watches) are
    /// not sharded: they see every object, and the keys they map to are
    /// reconciled where their partition is held.
    ///
    /// The informers must not have started; [`Controller::run`] fails if
    /// they have.
    #[must_use]
    pub fn shards(mut self, shards: &Shards) -> Self
    where
        K::Scope: ApiScope,
    {
        if let Err(error) = self.primary.shard(shards, ShardBy::Uid) {
            self.sharding_error.get_or_insert(error);
        }
        self.shards = Some(shards.clone());
        self
    }

    /// How many keys are reconciled concurrently (default
    /// [`DEFAULT_WORKERS`]; at least 1). One key is never reconciled by two
    /// workers at once.
    #[must_use]
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers.max(1);
        self
    }

    /// The rate limiter that spaces the retries of failed keys (default:
    /// client-go's [`default_controller_rate_limiter`](crate::workqueue::default_controller_rate_limiter),
    /// per-key backoff from 5 ms to 1000 s and 10 qps overall).
    #[must_use]
    pub fn rate_limiter(mut self, limiter: impl RateLimiter<ObjectKey> + 'static) -> Self {
        self.rate_limiter = Some(Box::new(limiter));
        self
    }

    /// Records the controller's and its work queue's metrics.
    #[must_use]
    pub fn metrics(mut self, metrics: &ControllerMetrics) -> Self {
        self.metrics = Some(metrics.clone());
        self
    }

    /// Reconciles on an update of a primary object only when `predicate`
    /// passes (default: every update, resyncs included). Replaces an
    /// earlier predicate; combine several with [`Predicate::or`].
    #[must_use]
    pub fn predicate(mut self, predicate: Predicate) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// How long in-flight reconciles may run on once shutdown begins
    /// (default [`DEFAULT_SHUTDOWN_DEADLINE`]); they are cancelled after it.
    #[must_use]
    pub fn shutdown_deadline(mut self, deadline: Duration) -> Self {
        self.shutdown_deadline = deadline;
        self
    }

    /// Calls `hook` with the key of a queued object that is no longer in the
    /// cache (it was deleted), instead of reconciling it. The hook runs on a
    /// worker, never concurrently with a reconcile of the same key; a panic
    /// in it is caught and logged.
    #[must_use]
    pub fn on_deleted<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(ObjectKey) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_deleted = Some(Arc::new(move |key| Box::pin(hook(key))));
        self
    }

    /// Finishes the controller with its reconcile function and the context
    /// passed to every call.
    ///
    /// `reconcile` gets the cached object (read from the primary informer's
    /// lister when its key is processed) and `ctx`. On `Ok`, the key's
    /// backoff is forgotten and, for [`Action::requeue_after`], the key is
    /// queued again after the delay. On `Err` (logged with the key) or a
    /// panic (caught, logged, counted), the key is retried after the rate
    /// limiter's delay, which grows with each consecutive failure of that
    /// key.
    pub fn reconcile<Ctx, F, Fut, E>(self, reconcile: F, ctx: Arc<Ctx>) -> Controller<K>
    where
        Ctx: Send + Sync + 'static,
        F: Fn(Arc<K>, Arc<Ctx>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: Display + Send + 'static,
    {
        let reconcile = Arc::new(reconcile);
        let reconcile: ReconcileFn<K> = Arc::new(move |obj| {
            let (reconcile, ctx) = (reconcile.clone(), ctx.clone());
            Box::pin(async move { reconcile(obj, ctx).await.map_err(|e| format!("{e:#}")) })
        });
        let queue = key_queue(&self.name, self.rate_limiter, self.metrics.as_ref());
        let tombstones = self.shards.as_ref().map(|_| Tombstones::default());
        let primary = PrimaryHandler {
            queue: queue.clone(),
            predicate: self.predicate,
            tombstones: tombstones.clone(),
        };
        let mut sources: Vec<Box<dyn Source>> =
            vec![Box::new(InformerSource::new(self.primary.clone(), primary))];
        sources.extend(self.secondaries.into_iter().map(|source| source(&queue)));
        let mut sharding_error = self.sharding_error;
        if let Some(shards) = &self.shards {
            for shard in self.owned {
                if let Err(error) = shard(shards) {
                    sharding_error.get_or_insert(error);
                }
            }
        }
        let name: Arc<str> = self.name.into();
        let worker = Worker {
            metrics: self.metrics.as_ref().map(|m| m.series(&name, self.workers)),
            name,
            queue,
            fetch: fetch_from(self.primary.lister(), reconcile),
            on_deleted: self.on_deleted,
            stopping: AtomicBool::new(false),
            shards: self.shards,
            tombstones,
        };
        Controller::new(
            Arc::new(worker),
            sources,
            self.workers,
            self.shutdown_deadline,
            sharding_error,
        )
    }
}

/// A controller's queue. Not generic, as the workers and the handlers'
/// `enqueue`: the queue of object keys is compiled here once, not in each
/// operator crate.
fn key_queue(
    name: &str,
    rate_limiter: Option<Box<dyn RateLimiter<ObjectKey>>>,
    metrics: Option<&ControllerMetrics>,
) -> KeyQueue {
    let mut queue = WorkQueue::builder(name.to_owned()).priority_aware();
    if let Some(limiter) = rate_limiter {
        queue = queue.rate_limiter(limiter);
    }
    if let Some(metrics) = metrics {
        queue = queue.metrics(metrics.workqueue());
    }
    queue.build()
}
