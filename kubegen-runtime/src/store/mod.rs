//! The thread-safe cache informers fill and listers read: objects held as
//! `Arc<K>` under their [`ObjectKey`], with named secondary indexes.

mod cache;
mod index;
mod key;
mod selector;

pub use cache::Store;
pub use index::{
    IndexFn, NAMESPACE_INDEX, OWNER_UID_INDEX, by_field, by_label, by_namespace, by_owner_uid,
};
pub use key::ObjectKey;
pub use selector::{SelectorError, parse_selector};

/// Errors of cache look-ups.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// No object with this key is cached.
    #[error("object {key} not found")]
    NotFound {
        /// The key that was looked up.
        key: ObjectKey,
    },
    /// No index with this name exists.
    #[error("index {index:?} does not exist")]
    IndexNotFound {
        /// The index name.
        index: String,
    },
    /// An index with this name already exists.
    #[error("index {index:?} already exists")]
    IndexExists {
        /// The index name.
        index: String,
    },
}

impl CacheError {
    /// Whether this is [`CacheError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, CacheError::NotFound { .. })
    }
}
