//! The thread-safe cache informers fill and listers read: objects held as
//! `Arc<K>` under their [`ObjectKey`], with named secondary indexes, and
//! the notifications its changes produce.

mod cache;
mod error;
mod index;
mod key;
mod notification;
mod selector;

pub use cache::Store;
pub use error::CacheError;
pub use index::{
    IndexFn, NAMESPACE_INDEX, OWNER_UID_INDEX, by_field, by_label, by_namespace, by_owner_uid,
};
pub use key::ObjectKey;
pub use notification::DeletedObject;
pub(crate) use notification::Notification;
pub use selector::{SelectorError, parse_selector};
