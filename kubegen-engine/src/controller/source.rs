//! Event sources: the informers a controller listens to and the handlers
//! that turn their events into keys of the primary resource on the queue,
//! at low priority for the informer's initial state and its resyncs.

use std::any::TypeId;
use std::fmt::Debug;
use std::sync::Arc;

use futures::future::BoxFuture;
use kubegen_client::Resource;
use kubegen_client::core::ClusterResourceScope;
use serde::de::DeserializeOwned;

use super::Predicate;
use crate::informer::{DeletedObject, EventHandler, HandlerRegistration, Informer};
use crate::ownership::controller_of;
use crate::store::ObjectKey;
use crate::workqueue::WorkQueue;

/// The queue of a controller: keys of its primary resource.
pub(super) type KeyQueue = WorkQueue<ObjectKey>;

/// Adds `key` to `queue` at `priority` (0: [`WorkQueue::add`]). Not
/// generic: the handlers of every kind call this one function, so the
/// queue's code for object keys is compiled here once, not in each operator
/// crate.
pub(super) fn enqueue(queue: &KeyQueue, key: ObjectKey, priority: i32) {
    queue.add_with_priority(key, priority);
}

/// An informer with the handler feeding one controller's queue, with its
/// object type erased.
pub(super) trait Source: Send + Sync {
    /// The informer's resource name, for logs and errors.
    fn name(&self) -> &str;
    /// Starts the informer unless it runs already.
    fn start(&self);
    /// Registers the handler; it receives adds for everything cached.
    fn register(&self) -> HandlerRegistration;
    /// Removes the handler again.
    fn unregister(&self, registration: &HandlerRegistration);
    /// Resolves to whether the informer synced (`false`: it was shut down).
    fn synced(&self) -> BoxFuture<'static, bool>;
}

/// The priority at which the controller's handlers enqueue the keys of
/// objects from an informer's initial state and of resyncs (updates that
/// leave the resource version alone), so that real events overtake them:
/// controller-runtime's `handler.LowPriority`. Every other event enqueues at
/// priority 0.
pub const LOW_PRIORITY: i32 = -100;

/// The priority of an update from `old` to `new`: [`LOW_PRIORITY`] for a
/// resync (the resource version did not change), 0 otherwise.
fn update_priority<K: Resource>(old: &K, new: &K) -> i32 {
    if old.meta().resource_version == new.meta().resource_version {
        LOW_PRIORITY
    } else {
        0
    }
}

/// A [`Source`] made of an informer and a handler.
pub(super) struct InformerSource<S, H> {
    informer: Informer<S>,
    handler: H,
}

impl<S, H> InformerSource<S, H> {
    pub(super) fn new(informer: Informer<S>, handler: H) -> Self {
        InformerSource { informer, handler }
    }
}

impl<S, H> Source for InformerSource<S, H>
where
    S: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    H: EventHandler<S> + Clone,
{
    fn name(&self) -> &str {
        self.informer.name()
    }

    fn start(&self) {
        self.informer.start();
    }

    fn register(&self) -> HandlerRegistration {
        self.informer.add_event_handler(self.handler.clone())
    }

    fn unregister(&self, registration: &HandlerRegistration) {
        self.informer.remove_event_handler(registration);
    }

    fn synced(&self) -> BoxFuture<'static, bool> {
        let informer = self.informer.clone();
        Box::pin(async move { informer.wait_for_cache_sync().await })
    }
}

/// Enqueues the primary objects themselves; updates pass through the
/// optional predicate.
#[derive(Clone)]
pub(super) struct PrimaryHandler {
    pub(super) queue: KeyQueue,
    pub(super) predicate: Option<Predicate>,
    /// For a sharded controller: the keys of objects deleted (not merely
    /// gone to another replica), which alone call the deleted hook.
    pub(super) tombstones: Option<Tombstones>,
}

/// Keys of deleted objects, shared by a sharded controller's primary
/// handler and its workers.
pub(super) type Tombstones = Arc<parking_lot::Mutex<std::collections::HashSet<ObjectKey>>>;

impl<K: Resource + Send + Sync + 'static> EventHandler<K> for PrimaryHandler {
    fn on_add(&self, obj: Arc<K>) {
        enqueue(&self.queue, ObjectKey::of(&*obj), 0);
    }

    fn on_initial_add(&self, obj: Arc<K>) {
        enqueue(&self.queue, ObjectKey::of(&*obj), LOW_PRIORITY);
    }

    fn on_update(&self, old: Arc<K>, new: Arc<K>) {
        if self
            .predicate
            .as_ref()
            .is_none_or(|p| p.matches(&*old, &*new))
        {
            let priority = update_priority(&*old, &*new);
            enqueue(&self.queue, ObjectKey::of(&*new), priority);
        }
    }

    fn on_delete(&self, obj: DeletedObject<K>) {
        let key = obj.key();
        if let Some(tombstones) = &self.tombstones {
            tombstones.lock().insert(key.clone());
        }
        enqueue(&self.queue, key, 0);
    }
}

/// Who a controller's primary resource is, as owner references name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OwnerType {
    group: String,
    kind: String,
    cluster_scoped: bool,
}

impl OwnerType {
    /// The owner type of `K`.
    pub(super) fn of<K>() -> Self
    where
        K: Resource<DynamicType = ()>,
        K::Scope: 'static,
    {
        OwnerType {
            group: K::group(&()).into_owned(),
            kind: K::kind(&()).into_owned(),
            cluster_scoped: TypeId::of::<K::Scope>() == TypeId::of::<ClusterResourceScope>(),
        }
    }

    /// The key of `child`'s controller when it is of this type: the
    /// reference has `controller: true`, the same kind and the same API
    /// group (any version). A namespaced owner lives in the child's
    /// namespace.
    pub(super) fn owner_key<C: Resource>(&self, child: &C) -> Option<ObjectKey> {
        let reference = controller_of(child)?;
        let group = crate::ownership::group_of(&reference.api_version);
        if group != self.group || reference.kind != self.kind {
            return None;
        }
        Some(if self.cluster_scoped {
            ObjectKey::cluster(reference.name.clone())
        } else {
            ObjectKey {
                namespace: ObjectKey::of(child).namespace,
                name: reference.name.clone(),
            }
        })
    }
}

/// Enqueues the controller owner of owned objects.
#[derive(Clone)]
pub(super) struct OwnedHandler {
    pub(super) queue: KeyQueue,
    pub(super) owner: OwnerType,
}

impl OwnedHandler {
    fn enqueue<C: Resource>(&self, child: &C, priority: i32) {
        if let Some(key) = self.owner.owner_key(child) {
            enqueue(&self.queue, key, priority);
        }
    }
}

impl<C: Resource + Send + Sync + 'static> EventHandler<C> for OwnedHandler {
    fn on_add(&self, obj: Arc<C>) {
        self.enqueue(&*obj, 0);
    }

    fn on_initial_add(&self, obj: Arc<C>) {
        self.enqueue(&*obj, LOW_PRIORITY);
    }

    /// Both owners are enqueued when the controller reference changed.
    fn on_update(&self, old: Arc<C>, new: Arc<C>) {
        let priority = update_priority(&*old, &*new);
        self.enqueue(&*old, priority);
        self.enqueue(&*new, priority);
    }

    fn on_delete(&self, obj: DeletedObject<C>) {
        self.enqueue(&**obj.object(), 0);
    }
}

/// Maps a watched object to the primary keys it concerns.
pub(super) type Mapper<O> = Arc<dyn Fn(&O) -> Vec<ObjectKey> + Send + Sync>;

/// Enqueues the keys a mapper returns for watched objects.
pub(super) struct MappedHandler<O> {
    pub(super) queue: KeyQueue,
    pub(super) mapper: Mapper<O>,
}

impl<O> Clone for MappedHandler<O> {
    fn clone(&self) -> Self {
        MappedHandler {
            queue: self.queue.clone(),
            mapper: self.mapper.clone(),
        }
    }
}

impl<O> MappedHandler<O> {
    fn enqueue(&self, obj: &O, priority: i32) {
        for key in (self.mapper)(obj) {
            enqueue(&self.queue, key, priority);
        }
    }
}

impl<O: Resource + Send + Sync + 'static> EventHandler<O> for MappedHandler<O> {
    fn on_add(&self, obj: Arc<O>) {
        self.enqueue(&obj, 0);
    }

    fn on_initial_add(&self, obj: Arc<O>) {
        self.enqueue(&obj, LOW_PRIORITY);
    }

    /// The keys of both the old and the new state are enqueued.
    fn on_update(&self, old: Arc<O>, new: Arc<O>) {
        let priority = update_priority(&*old, &*new);
        self.enqueue(&old, priority);
        self.enqueue(&new, priority);
    }

    fn on_delete(&self, obj: DeletedObject<O>) {
        self.enqueue(obj.object(), 0);
    }
}
