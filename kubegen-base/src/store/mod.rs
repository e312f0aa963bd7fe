//! The thread-safe cache informers fill and listers read: objects held as
//! `Arc<K>` (or, in a compact store, as JSON with a bounded working set
//! decoded) under their [`ObjectKey`], with named secondary indexes, and
//! the notifications its changes produce.

mod cache;
mod entry;
mod error;
mod index;
mod key;
mod notification;
mod selector;
mod working_set;

#[doc(hidden)]
pub use cache::Staged;
pub use cache::Store;
#[doc(hidden)]
pub use entry::Codec;
pub use error::CacheError;
pub use index::{
    IndexFn, NAMESPACE_INDEX, OWNER_UID_INDEX, by_field, by_label, by_namespace, by_owner_uid,
};
pub use key::ObjectKey;
pub use notification::DeletedObject;
#[doc(hidden)]
pub use notification::Notification;
pub use selector::{SelectorError, parse_selector};
pub use working_set::WorkingSet;
