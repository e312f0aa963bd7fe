//! Event handlers: the [`EventHandler`] trait, closure-based [`HandlerFns`],
//! the registration handle, and the delivery of a store's notifications.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::store::{DeletedObject, Notification};

/// Receives an informer's notifications. Each handler gets every change in
/// order, from a task of its own, so a slow handler delays only itself.
/// Keep handlers quick (typically: put a key on a work queue); they run on
/// a Tokio worker thread. A panic in a handler is caught and logged.
pub trait EventHandler<K>: Send + Sync + 'static {
    /// An object was added (or was already cached when the handler was
    /// registered; see [`on_initial_add`](Self::on_initial_add)).
    fn on_add(&self, obj: Arc<K>) {
        let _ = obj;
    }

    /// An object of the informer's initial state: its first list, or the
    /// cache's contents replayed to a handler registered late — client-go's
    /// `OnAdd(obj, isInInitialList = true)`. Every such add comes before
    /// the handler's registration [has synced](HandlerRegistration::has_synced),
    /// every later one goes to [`on_add`](Self::on_add). Calls `on_add`
    /// unless overridden.
    fn on_initial_add(&self, obj: Arc<K>) {
        self.on_add(obj);
    }

    /// An object changed from `old` to `new`. Resyncs deliver
    /// `on_update(obj, obj)` for every cached object.
    fn on_update(&self, old: Arc<K>, new: Arc<K>) {
        let _ = (old, new);
    }

    /// An object was deleted.
    fn on_delete(&self, obj: DeletedObject<K>) {
        let _ = obj;
    }
}

type AddFn<K> = Box<dyn Fn(Arc<K>) + Send + Sync>;
type UpdateFn<K> = Box<dyn Fn(Arc<K>, Arc<K>) + Send + Sync>;
type DeleteFn<K> = Box<dyn Fn(DeletedObject<K>) + Send + Sync>;

/// An [`EventHandler`] made of closures; unset ones ignore their events.
///
/// ```
/// # use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::informer::HandlerFns;
/// let handler = HandlerFns::<ConfigMap>::new()
///     .on_add(|cm| println!("added {:?}", cm.metadata.name))
///     .on_delete(|gone| println!("deleted {:?}", gone.object().metadata.name));
/// ```
pub struct HandlerFns<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        HandlerFns {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> HandlerFns<K> {
    /// A handler that ignores everything until closures are set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the closure called for adds.
    pub fn on_add(mut self, f: impl Fn(Arc<K>) + Send + Sync + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Sets the closure called for updates, with the old and new object.
    pub fn on_update(mut self, f: impl Fn(Arc<K>, Arc<K>) + Send + Sync + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Sets the closure called for deletes.
    pub fn on_delete(mut self, f: impl Fn(DeletedObject<K>) + Send + Sync + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> EventHandler<K> for HandlerFns<K> {
    fn on_add(&self, obj: Arc<K>) {
        if let Some(f) = &self.add {
            f(obj);
        }
    }

    fn on_update(&self, old: Arc<K>, new: Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new);
        }
    }

    fn on_delete(&self, obj: DeletedObject<K>) {
        if let Some(f) = &self.delete {
            f(obj);
        }
    }
}

/// Hands `change` to `handler`; `initial` while the handler is being given
/// the informer's initial state.
pub(super) fn deliver<K: 'static>(
    change: Notification<K>,
    handler: &dyn EventHandler<K>,
    initial: bool,
) {
    match change {
        Notification::Add(obj) if initial => handler.on_initial_add(obj),
        Notification::Add(obj) => handler.on_add(obj),
        Notification::Update(old, new) => handler.on_update(old, new),
        Notification::Delete(obj) => handler.on_delete(obj),
    }
}

/// The handle [`Informer::add_event_handler`](super::Informer::add_event_handler)
/// returns, to check that the handler has seen the initial state or to
/// remove it again.
#[derive(Debug, Clone)]
pub struct HandlerRegistration {
    pub(crate) id: u64,
    pub(crate) synced: Arc<AtomicBool>,
}

impl HandlerRegistration {
    /// Whether the handler has been given the informer's complete initial
    /// state (all adds of the first list, or of the cache when it was
    /// registered late).
    pub fn has_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }
}
