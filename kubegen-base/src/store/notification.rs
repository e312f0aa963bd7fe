//! What a change to a [`Store`](super::Store) produces: a [`Notification`]
//! for the informer's handlers, a delete carrying a [`DeletedObject`]
//! (client-go keeps `DeletedFinalStateUnknown` beside its store too).

use std::sync::Arc;

use super::key::ObjectKey;

/// What a delete notification carries.
#[derive(Debug)]
pub enum DeletedObject<K> {
    /// The object was deleted and this is its final state, from the watch.
    Known(Arc<K>),
    /// The object vanished while the watch was down and was found missing
    /// when the informer relisted (client-go's `DeletedFinalStateUnknown`).
    /// `last_known` is the last state the cache held; the object may have
    /// changed after it before it was deleted.
    FinalStateUnknown {
        /// The key of the vanished object.
        key: ObjectKey,
        /// The last state the cache saw.
        last_known: Arc<K>,
    },
}

impl<K> Clone for DeletedObject<K> {
    fn clone(&self) -> Self {
        match self {
            DeletedObject::Known(obj) => DeletedObject::Known(obj.clone()),
            DeletedObject::FinalStateUnknown { key, last_known } => {
                DeletedObject::FinalStateUnknown {
                    key: key.clone(),
                    last_known: last_known.clone(),
                }
            }
        }
    }
}

impl<K> DeletedObject<K> {
    /// The final state, or the last known state when the final one is
    /// unknown.
    pub fn object(&self) -> &Arc<K> {
        match self {
            DeletedObject::Known(obj) => obj,
            DeletedObject::FinalStateUnknown { last_known, .. } => last_known,
        }
    }

    /// Whether the final state is unknown (the delete was found by a relist).
    pub fn is_final_state_unknown(&self) -> bool {
        matches!(self, DeletedObject::FinalStateUnknown { .. })
    }
}

impl<K: kube_core::Resource> DeletedObject<K> {
    /// The key of the deleted object.
    pub fn key(&self) -> ObjectKey {
        match self {
            DeletedObject::Known(obj) => ObjectKey::of(&**obj),
            DeletedObject::FinalStateUnknown { key, .. } => key.clone(),
        }
    }
}

/// One change to the cache, as handed to the handlers.
#[derive(Debug)]
#[doc(hidden)]
pub enum Notification<K> {
    Add(Arc<K>),
    Update(Arc<K>, Arc<K>),
    Delete(DeletedObject<K>),
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Notification::Add(obj) => Notification::Add(obj.clone()),
            Notification::Update(old, new) => Notification::Update(old.clone(), new.clone()),
            Notification::Delete(obj) => Notification::Delete(obj.clone()),
        }
    }
}
