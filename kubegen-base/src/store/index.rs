//! Index functions: named projections of an object to index values.

use std::sync::Arc;

use kube_core::Resource;

/// An index function: the values under which an object is listed in one
/// index. An object may have no, one or several values.
pub type IndexFn<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// Name of the index every [`Store`](super::Store) has: objects by namespace.
pub const NAMESPACE_INDEX: &str = "namespace";

/// Conventional name for the [`by_owner_uid`] index.
pub const OWNER_UID_INDEX: &str = "owner-uid";

/// Indexes objects by namespace (cluster-scoped objects get no value).
pub fn by_namespace<K: Resource>() -> IndexFn<K> {
    Arc::new(|obj: &K| {
        obj.meta()
            .namespace
            .iter()
            .filter(|ns| !ns.is_empty())
            .cloned()
            .collect()
    })
}

/// Indexes objects by the UIDs of their owner references, so that the
/// objects a given owner owns can be looked up.
pub fn by_owner_uid<K: Resource>() -> IndexFn<K> {
    Arc::new(|obj: &K| {
        obj.meta()
            .owner_references
            .iter()
            .flatten()
            .map(|owner| owner.uid.clone())
            .collect()
    })
}

/// Indexes objects by the value of the label `key` (objects without that
/// label get no value).
pub fn by_label<K: Resource>(key: impl Into<String>) -> IndexFn<K> {
    let key = key.into();
    Arc::new(move |obj: &K| {
        obj.meta()
            .labels
            .as_ref()
            .and_then(|labels| labels.get(&key))
            .cloned()
            .into_iter()
            .collect()
    })
}

/// Indexes objects by any values a closure extracts, for example a field of
/// the spec. The closure may return an `Option<String>`, a `Vec<String>` or
/// any other iterable of strings.
pub fn by_field<K, F, I>(extract: F) -> IndexFn<K>
where
    F: Fn(&K) -> I + Send + Sync + 'static,
    I: IntoIterator<Item = String>,
{
    Arc::new(move |obj: &K| extract(obj).into_iter().collect())
}
