//! Shared informers: a cache of one resource type kept current by a
//! [`watcher`] (kube's protocol; in protobuf for built-in kinds, see
//! [`protobuf_watcher`]), with event handlers, resync and relist diffing.
//!
//! ```no_run
//! # async fn demo(client: kubegen::Client) {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::informer::{HandlerFns, Informer, InformerConfig};
//!
//! let informer = Informer::new(kubegen::Api::<ConfigMap>::all(client), InformerConfig::default());
//! informer.add_event_handler(HandlerFns::new().on_add(|cm: std::sync::Arc<ConfigMap>| {
//!     println!("{:?}", cm.metadata.name);
//! }));
//! informer.start();
//! informer.wait_for_cache_sync().await;
//! let lister = informer.lister();
//! # }
//! ```

mod config;
mod handle_state;
mod handler;
mod metrics;
mod processor;
mod received;
mod scope;
mod sharded;
#[cfg(test)]
mod tests;
mod watch;
pub mod watcher;

use std::fmt::Debug;
use std::sync::Arc;

use kubegen_client::core::PartialObjectMeta;
use kubegen_client::{Api, Resource};
use parking_lot::Mutex;
use serde::de::DeserializeOwned;
use tokio::sync::{oneshot, watch as state_channel};

pub use crate::store::DeletedObject;
pub(crate) use config::default_watcher;
pub use config::{InformerConfig, Transform, strip_managed_fields};
pub use handler::{EventHandler, HandlerFns, HandlerRegistration};
pub use metrics::InformerMetrics;
pub use scope::ApiScope;
pub use sharded::ShardError;
pub use watcher::protobuf_watcher;

use crate::lister::Lister;
use crate::sharding::{ShardBy, Shards};
use crate::store::{CacheError, IndexFn, Store};
use handle_state::{Control, Lifecycle, Shared};
use processor::Processor;
use sharded::InformerShard;

/// A metadata-only informer: it lists and watches `PartialObjectMetadata`
/// (name, labels, owner references, ...) instead of whole objects, which
/// keeps the cache small when only metadata is needed (for example to track
/// owned objects). kube builds metadata-only requests for any
/// `Api<PartialObjectMeta<K>>` (this replaces kube's deprecated
/// `metadata_watcher`):
///
/// ```no_run
/// # fn demo(client: kubegen::Client) {
/// use k8s_openapi::api::core::v1::Pod;
/// use kubegen::{Api, core::PartialObjectMeta};
/// use kubegen::informer::{InformerConfig, MetadataInformer};
/// let pods: MetadataInformer<Pod> =
///     MetadataInformer::new(Api::<PartialObjectMeta<Pod>>::all(client), InformerConfig::default());
/// # }
/// ```
pub type MetadataInformer<K> = Informer<PartialObjectMeta<K>>;

/// The resource type name used in metrics and sync reports, such as
/// `v1/ConfigMap`, `apps/v1/Deployment` or `v1/Pod#metadata` for a
/// metadata-only informer.
pub fn resource_name<K: Resource>(dyntype: &K::DynamicType) -> String {
    let name = format!("{}/{}", K::api_version(dyntype), K::kind(dyntype));
    if K::metadata_api() {
        format!("{name}#metadata")
    } else {
        name
    }
}

/// Whether the apiserver serves `K` as protobuf: a built-in kind of the
/// Kubernetes version whose protobuf field table kubegen carries (see
/// [`crate::protobuf`]), read whole rather than as metadata.
pub(crate) fn built_in<K: Resource>(dyntype: &K::DynamicType) -> bool {
    !K::metadata_api() && crate::protobuf::knows(&K::api_version(dyntype), &K::kind(dyntype))
}

/// Keeps a cache of one resource type current and tells handlers about
/// every change (client-go's `SharedIndexInformer`).
///
/// It lists then watches with kube's watcher protocol and client-go's
/// reflector backoff ([`watcher`]) — in protobuf for a built-in kind
/// ([`protobuf_watcher`]), in JSON otherwise; the watcher resumes a
/// broken watch and relists after `410 Gone`. After every relist the new
/// list is compared with the cache: changed objects give updates, new ones
/// adds, and missing ones deletes with [`DeletedObject::FinalStateUnknown`].
///
/// `Informer` is a cheap handle: clones share one watch and one cache.
/// When the last clone is dropped the watch task is aborted; prefer
/// [`Informer::shutdown`], which stops it cleanly and waits for handlers.
pub struct Informer<K> {
    owner: Arc<Owner<K>>,
}

impl<K> Clone for Informer<K> {
    fn clone(&self) -> Self {
        Informer {
            owner: self.owner.clone(),
        }
    }
}

impl<K> Debug for Informer<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Informer")
            .field("resource", &self.owner.shared.name)
            .field("synced", &self.owner.shared.state.borrow().synced)
            .finish()
    }
}

/// Dropping the last handle aborts the watch task.
struct Owner<K> {
    shared: Arc<Shared<K>>,
}

impl<K> Drop for Owner<K> {
    fn drop(&mut self) {
        let mut control = self.shared.control.lock();
        if let Some(task) = control.task.take() {
            task.abort();
        }
        control.stop = None;
    }
}

impl<K> Informer<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// An informer over `api` (which fixes the namespace: `Api::all` or
    /// `Api::namespaced`). Call [`Informer::start`] to begin watching.
    pub fn new(api: Api<K>, config: InformerConfig<K>) -> Self
    where
        K::DynamicType: Default,
    {
        let dyntype = K::DynamicType::default();
        let protobuf = built_in::<K>(&dyntype);
        Self::build(api, resource_name::<K>(&dyntype), config, protobuf)
    }

    /// An informer whose resource type is reported as `name` in metrics
    /// (for dynamic types, see [`resource_name`]). It lists and watches in
    /// JSON: without `K`'s dynamic type it cannot tell a built-in kind.
    pub fn with_name(api: Api<K>, name: impl Into<String>, config: InformerConfig<K>) -> Self {
        Self::build(api, name, config, false)
    }

    /// An informer that lists and watches in protobuf when `built_in` (see
    /// [`built_in`]) and the configuration allows it.
    pub(crate) fn build(
        api: Api<K>,
        name: impl Into<String>,
        config: InformerConfig<K>,
        built_in: bool,
    ) -> Self {
        let store = Arc::new(Store::with_codec(config.codec, config.working_set));
        for (index, index_fn) in &config.indexers {
            if let Err(e) = store.add_indexer(index.clone(), index_fn.clone()) {
                tracing::warn!("informer index ignored: {e}");
            }
        }
        let (state, _) = state_channel::channel(Lifecycle::default());
        let shared = Arc::new(Shared {
            name: name.into(),
            protobuf: built_in && config.protobuf,
            api,
            config,
            store,
            processor: Mutex::new(Processor::new()),
            state,
            control: Mutex::new(Control::default()),
            shard: Mutex::new(None),
            server_side: Mutex::new(None),
        });
        Informer {
            owner: Arc::new(Owner { shared }),
        }
    }

    fn shared(&self) -> &Arc<Shared<K>> {
        &self.owner.shared
    }

    /// The resource type name (see [`resource_name`]).
    pub fn name(&self) -> &str {
        &self.shared().name
    }

    /// The cache (client-go's indexer). Readers get `Arc<K>`.
    pub fn store(&self) -> Arc<Store<K>> {
        self.shared().store.clone()
    }

    /// A lister over the cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.store())
    }

    /// Adds a named index (also possible after start).
    pub fn add_indexer(
        &self,
        name: impl Into<String>,
        index_fn: IndexFn<K>,
    ) -> Result<(), CacheError> {
        self.shared().store.add_indexer(name, index_fn)
    }

    /// Registers a handler. It first receives an add for every object
    /// already cached, then every later change, with nothing lost or
    /// repeated in between. Handlers can be added before or after start.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) -> HandlerRegistration {
        let shared = self.shared();
        shared
            .processor
            .lock()
            .add(Box::new(handler), &shared.store)
    }

    /// Unregisters a handler; returns whether it was registered.
    pub fn remove_event_handler(&self, registration: &HandlerRegistration) -> bool {
        self.shared().processor.lock().remove(registration.id)
    }

    /// Whether the first complete list has been cached.
    pub fn has_synced(&self) -> bool {
        self.shared().state.borrow().synced
    }

    /// Waits until the first complete list has been cached. Returns `false`
    /// when the informer was shut down before that.
    pub async fn wait_for_cache_sync(&self) -> bool {
        let mut state = self.shared().state.subscribe();
        match state.wait_for(|s| s.synced || s.stopped).await {
            Ok(s) => s.synced,
            Err(_) => false,
        }
    }

    /// Whether [`Informer::start`] was called.
    pub fn is_started(&self) -> bool {
        self.shared().control.lock().started
    }

    /// Caches only the objects of the partitions `shards` holds, placed by
    /// `by`, and lists again whenever they change (see
    /// [`crate::sharding`]). With [`ShardBy::Uid`]
    /// the lists and watches carry the apiserver's `shardSelector` when it
    /// filters ([`ServerSideFiltering`](crate::sharding::ServerSideFiltering));
    /// with [`ShardBy::OwnerLabel`] they select the owner partition label;
    /// otherwise every event is received and those of other partitions are
    /// dropped. While no partition is held the informer watches nothing and
    /// counts as synced. [`ControllerBuilder::shards`](crate::controller::ControllerBuilder::shards)
    /// calls it for a controller's informers.
    ///
    /// Fails once the informer has started, or when it is already sharded
    /// by other shards or another key (sharding it again the same way does
    /// nothing).
    pub fn shard(&self, shards: &Shards, by: ShardBy) -> Result<(), ShardError>
    where
        K::DynamicType: Default,
        K::Scope: ApiScope,
    {
        let namespace = self.shared().api.namespace().map(str::to_string);
        let rebuild: sharded::Rebuild<K> = Arc::new(move |client| {
            K::Scope::api::<K>(client, namespace.as_deref(), &K::DynamicType::default())
        });
        self.set_shard(shards, by, Some(rebuild))
    }

    /// For a [sharded](Informer::shard) informer whose watch has started:
    /// whether the apiserver filters its lists and watches by shard
    /// (`false`: the informer drops other partitions' events itself).
    /// `None` before the watch has found out, and for an unsharded
    /// informer.
    pub fn filtered_by_server(&self) -> Option<bool> {
        *self.shared().server_side.lock()
    }

    /// [`Informer::shard`] by an owner key ([`ShardBy::ControllerOwner`]
    /// or [`ShardBy::OwnerLabel`]), which send no `shardSelector` and so
    /// need no way to rebuild the `Api`.
    pub(crate) fn shard_by_owner(&self, shards: &Shards, by: ShardBy) -> Result<(), ShardError> {
        debug_assert_ne!(by, ShardBy::Uid);
        self.set_shard(shards, by, None)
    }

    fn set_shard(
        &self,
        shards: &Shards,
        by: ShardBy,
        rebuild: Option<sharded::Rebuild<K>>,
    ) -> Result<(), ShardError> {
        let shared = self.shared();
        let control = shared.control.lock();
        let mut slot = shared.shard.lock();
        if let Some(current) = &*slot {
            return if current.by == by && current.shards.same(shards) {
                Ok(())
            } else {
                Err(ShardError::Conflict(shared.name.clone(), current.by))
            };
        }
        if control.started || control.stopped {
            return Err(ShardError::Started(shared.name.clone()));
        }
        *slot = Some(InformerShard {
            shards: shards.clone(),
            by,
            rebuild,
        });
        Ok(())
    }

    /// Starts the watch task (and the handler tasks) on the current Tokio
    /// runtime. Calling it again, or after shutdown, does nothing.
    ///
    /// # Panics
    ///
    /// When called outside a Tokio runtime.
    pub fn start(&self) {
        let shared = self.shared();
        let mut control = shared.control.lock();
        if control.started || control.stopped {
            return;
        }
        control.started = true;
        let runtime = tokio::runtime::Handle::current();
        shared.processor.lock().start(runtime.clone());
        let (stop_tx, stop_rx) = oneshot::channel();
        control.stop = Some(stop_tx);
        control.task = Some(runtime.spawn(watch::run(shared.clone(), stop_rx)));
    }

    /// Stops the watch task and waits for it, then lets every handler
    /// finish the notifications already queued and waits for them too.
    pub async fn shutdown(&self) {
        let shared = self.shared();
        let (stop, task) = {
            let mut control = shared.control.lock();
            control.stopped = true;
            (control.stop.take(), control.task.take())
        };
        if let Some(stop) = stop {
            let _ = stop.send(());
        }
        if let Some(task) = task {
            let _ = task.await;
        }
        let handler_tasks = shared.processor.lock().stop();
        for task in handler_tasks {
            let _ = task.await;
        }
        shared.state.send_modify(|s| s.stopped = true);
    }
}
