//! [`CacheError`]: why a cache look-up or index change failed.

use super::key::ObjectKey;

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
