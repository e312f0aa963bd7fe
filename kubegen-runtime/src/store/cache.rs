//! [`Store`]: the indexed object map and its change computations.

use crate::fast_hash::{HashMap, HashSet};
use std::sync::Arc;

use kube::Resource;
use parking_lot::RwLock;

use super::error::CacheError;
use super::index::{IndexFn, NAMESPACE_INDEX, by_namespace};
use super::key::ObjectKey;
use super::notification::{DeletedObject, Notification};

/// One index: index value to the keys of the objects listed under it.
type Index = HashMap<String, HashSet<Arc<ObjectKey>>>;

/// A thread-safe, indexed cache of `Arc<K>` keyed by [`ObjectKey`] (the
/// indexer of client-go). Readers get shared `Arc<K>` handles and cannot
/// change cached objects; only the informer that owns the store writes it.
///
/// Every store has the [`NAMESPACE_INDEX`]; more indexes can be added at any
/// time with [`Store::add_indexer`]. Indexes stay consistent through updates
/// and deletes.
pub struct Store<K> {
    inner: RwLock<Inner<K>>,
}

struct Inner<K> {
    items: HashMap<Arc<ObjectKey>, Arc<K>>,
    indexers: HashMap<String, IndexFn<K>>,
    indices: HashMap<String, Index>,
}

impl<K: Resource> Default for Store<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> std::fmt::Debug for Store<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.read();
        f.debug_struct("Store")
            .field("len", &inner.items.len())
            .field("indexes", &inner.indexers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<K: Resource> Store<K> {
    /// An empty store with the namespace index.
    pub fn new() -> Self {
        let mut indexers = HashMap::default();
        indexers.insert(NAMESPACE_INDEX.to_string(), by_namespace::<K>());
        let mut indices = HashMap::default();
        indices.insert(NAMESPACE_INDEX.to_string(), Index::default());
        Store {
            inner: RwLock::new(Inner {
                items: HashMap::default(),
                indexers,
                indices,
            }),
        }
    }

    /// Adds a named index and indexes the objects already cached. Fails when
    /// the name is taken.
    pub fn add_indexer(
        &self,
        name: impl Into<String>,
        index_fn: IndexFn<K>,
    ) -> Result<(), CacheError> {
        let name = name.into();
        let mut inner = self.inner.write();
        if inner.indexers.contains_key(&name) {
            return Err(CacheError::IndexExists { index: name });
        }
        let mut index = Index::default();
        for (key, obj) in &inner.items {
            for value in dedup(index_fn(obj)) {
                index.entry(value).or_default().insert(key.clone());
            }
        }
        inner.indices.insert(name.clone(), index);
        inner.indexers.insert(name, index_fn);
        Ok(())
    }

    /// The object cached under `key`.
    pub fn get(&self, key: &ObjectKey) -> Option<Arc<K>> {
        self.inner.read().items.get(key).cloned()
    }

    /// All cached objects, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.inner.read().items.values().cloned().collect()
    }

    /// The keys of all cached objects, in no particular order.
    pub fn keys(&self) -> Vec<ObjectKey> {
        self.inner
            .read()
            .items
            .keys()
            .map(|k| (**k).clone())
            .collect()
    }

    /// The number of cached objects.
    pub fn len(&self) -> usize {
        self.inner.read().items.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The names of all indexes.
    pub fn index_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.read().indexers.keys().cloned().collect();
        names.sort();
        names
    }

    /// The objects listed under `value` in the index `index`.
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<Arc<K>>, CacheError> {
        self.select_by_index(index, value, |_| true)
    }

    /// The keys listed under `value` in the index `index`, sorted.
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<ObjectKey>, CacheError> {
        let inner = self.inner.read();
        let mut keys: Vec<ObjectKey> = inner
            .index(index)?
            .get(value)
            .into_iter()
            .flatten()
            .map(|k| (**k).clone())
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// The values that have at least one object in the index `index`, sorted.
    pub fn index_values(&self, index: &str) -> Result<Vec<String>, CacheError> {
        let inner = self.inner.read();
        let mut values: Vec<String> = inner.index(index)?.keys().cloned().collect();
        values.sort();
        Ok(values)
    }

    /// The objects under `value` in `index` that satisfy `filter`; only
    /// those objects are visited.
    pub(crate) fn select_by_index(
        &self,
        index: &str,
        value: &str,
        filter: impl Fn(&K) -> bool,
    ) -> Result<Vec<Arc<K>>, CacheError> {
        let inner = self.inner.read();
        Ok(inner
            .index(index)?
            .get(value)
            .into_iter()
            .flatten()
            .filter_map(|key| inner.items.get(key))
            .filter(|obj| filter(obj))
            .cloned()
            .collect())
    }

    /// All objects that satisfy `filter`.
    pub(crate) fn select(&self, filter: impl Fn(&K) -> bool) -> Vec<Arc<K>> {
        let inner = self.inner.read();
        inner
            .items
            .values()
            .filter(|obj| filter(obj))
            .cloned()
            .collect()
    }

    /// Inserts or replaces an object. An object whose resourceVersion equals
    /// the cached one's is a repeat and changes nothing.
    pub(crate) fn apply(&self, obj: Arc<K>) -> Option<Notification<K>> {
        let key = ObjectKey::of(&*obj);
        let mut inner = self.inner.write();
        let inner = &mut *inner;
        match inner.items.get_key_value(&key) {
            Some((shared_key, old)) => {
                if same_version(old.as_ref(), obj.as_ref()) {
                    return None;
                }
                let (shared_key, old) = (shared_key.clone(), old.clone());
                update_indices(inner, &shared_key, Some(&old), Some(&obj));
                inner.items.insert(shared_key, obj.clone());
                Some(Notification::Update(old, obj))
            }
            None => {
                let shared_key = Arc::new(key);
                update_indices(inner, &shared_key, None, Some(&obj));
                inner.items.insert(shared_key, obj.clone());
                Some(Notification::Add(obj))
            }
        }
    }

    /// Removes the object `obj` names, reporting `obj` (its final state) as
    /// deleted; nothing when it was not cached.
    pub(crate) fn delete(&self, obj: Arc<K>) -> Option<Notification<K>> {
        let key = ObjectKey::of(&*obj);
        let mut inner = self.inner.write();
        let (shared_key, old) = inner.items.remove_entry(&key)?;
        update_indices(&mut inner, &shared_key, Some(&old), None);
        Some(Notification::Delete(DeletedObject::Known(obj)))
    }

    /// Replaces the whole contents with a fresh list, returning the
    /// difference: adds for new objects, updates for objects whose
    /// resourceVersion changed, and [`DeletedObject::FinalStateUnknown`]
    /// for cached objects missing from the list. Unchanged objects keep
    /// their cached `Arc` and produce nothing.
    pub(crate) fn replace(&self, objects: Vec<Arc<K>>) -> Vec<Notification<K>> {
        let mut guard = self.inner.write();
        let inner = &mut *guard;
        let mut old_items = std::mem::take(&mut inner.items);
        inner.items.reserve(objects.len());
        let mut changes = Vec::new();
        for obj in objects {
            let key = ObjectKey::of(&*obj);
            // A key listed twice: the later entry wins.
            let previous = match inner.items.remove_entry(&key) {
                Some(entry) => Some(entry),
                None => old_items.remove_entry(&key),
            };
            match previous {
                Some((shared_key, old)) if same_version(old.as_ref(), obj.as_ref()) => {
                    inner.items.insert(shared_key, old);
                }
                Some((shared_key, old)) => {
                    update_indices(inner, &shared_key, Some(&old), Some(&obj));
                    inner.items.insert(shared_key, obj.clone());
                    changes.push(Notification::Update(old, obj));
                }
                None => {
                    let shared_key = Arc::new(key);
                    update_indices(inner, &shared_key, None, Some(&obj));
                    inner.items.insert(shared_key, obj.clone());
                    changes.push(Notification::Add(obj));
                }
            }
        }
        let mut gone: Vec<_> = old_items.into_iter().collect();
        gone.sort_by(|a, b| a.0.cmp(&b.0));
        for (shared_key, old) in gone {
            update_indices(inner, &shared_key, Some(&old), None);
            changes.push(Notification::Delete(DeletedObject::FinalStateUnknown {
                key: (*shared_key).clone(),
                last_known: old,
            }));
        }
        changes
    }
}

impl<K> Inner<K> {
    fn index(&self, name: &str) -> Result<&Index, CacheError> {
        self.indices
            .get(name)
            .ok_or_else(|| CacheError::IndexNotFound {
                index: name.to_string(),
            })
    }
}

/// Moves `key` from the index values of `old` to those of `new`.
fn update_indices<K>(inner: &mut Inner<K>, key: &Arc<ObjectKey>, old: Option<&K>, new: Option<&K>) {
    for (name, index_fn) in &inner.indexers {
        let old_values = old.map(|o| dedup(index_fn(o))).unwrap_or_default();
        let new_values = new.map(|n| dedup(index_fn(n))).unwrap_or_default();
        if old.is_some() && new.is_some() && old_values == new_values {
            continue;
        }
        // Every indexer's index is created with it (in `new`/`add_indexer`).
        let Some(index) = inner.indices.get_mut(name) else {
            continue;
        };
        for value in old_values.iter().filter(|v| !new_values.contains(v)) {
            if let Some(set) = index.get_mut(value) {
                set.remove(key);
                if set.is_empty() {
                    index.remove(value);
                }
            }
        }
        for value in new_values {
            index.entry(value).or_default().insert(key.clone());
        }
    }
}

fn dedup(mut values: Vec<String>) -> Vec<String> {
    if values.len() > 1 {
        values.sort();
        values.dedup();
    }
    values
}

/// Whether two versions of an object carry the same, non-empty
/// resourceVersion.
fn same_version<K: Resource>(a: &K, b: &K) -> bool {
    match (&a.meta().resource_version, &b.meta().resource_version) {
        (Some(x), Some(y)) => !x.is_empty() && x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;
    use crate::store::{by_label, by_owner_uid};

    fn cm(ns: &str, name: &str, rv: &str, labels: &[(&str, &str)]) -> Arc<ConfigMap> {
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                namespace: Some(ns.into()),
                name: Some(name.into()),
                resource_version: Some(rv.into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect::<BTreeMap<_, _>>(),
                ),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    /// A compact rendering of changes: `+ns/name@rv`, `~ns/name@old->new`,
    /// `-ns/name@rv` (known) or `?ns/name@rv` (final state unknown).
    fn render(changes: &[Notification<ConfigMap>]) -> Vec<String> {
        let rv = |c: &ConfigMap| c.metadata.resource_version.clone().unwrap_or_default();
        changes
            .iter()
            .map(|c| match c {
                Notification::Add(o) => format!("+{}@{}", ObjectKey::of(&**o), rv(o)),
                Notification::Update(a, b) => {
                    format!("~{}@{}->{}", ObjectKey::of(&**b), rv(a), rv(b))
                }
                Notification::Delete(DeletedObject::Known(o)) => {
                    format!("-{}@{}", ObjectKey::of(&**o), rv(o))
                }
                Notification::Delete(DeletedObject::FinalStateUnknown { key, last_known }) => {
                    format!("?{key}@{}", rv(last_known))
                }
            })
            .collect()
    }

    #[test]
    fn apply_adds_then_updates_and_skips_repeats() {
        let store = Store::<ConfigMap>::new();
        let add = store.apply(cm("a", "x", "1", &[]));
        assert_eq!(render(&[add.unwrap()]), ["+a/x@1"]);
        assert!(
            store.apply(cm("a", "x", "1", &[])).is_none(),
            "same resourceVersion is a repeat"
        );
        let update = store.apply(cm("a", "x", "2", &[]));
        assert_eq!(render(&[update.unwrap()]), ["~a/x@1->2"]);
        assert_eq!(store.len(), 1);
        assert_eq!(
            store
                .get(&ObjectKey::namespaced("a", "x"))
                .unwrap()
                .metadata
                .resource_version
                .as_deref(),
            Some("2")
        );
    }

    #[test]
    fn delete_reports_final_state_once() {
        let store = Store::<ConfigMap>::new();
        store.apply(cm("a", "x", "1", &[]));
        let gone = store.delete(cm("a", "x", "5", &[]));
        assert_eq!(render(&[gone.unwrap()]), ["-a/x@5"]);
        assert!(
            store.delete(cm("a", "x", "5", &[])).is_none(),
            "no second delete"
        );
        assert!(store.is_empty());
        assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
    }

    #[test]
    fn replace_diffs_against_the_cache() {
        let store = Store::<ConfigMap>::new();
        let initial = store.replace(vec![
            cm("a", "same", "1", &[]),
            cm("a", "changed", "1", &[]),
            cm("b", "gone", "1", &[]),
        ]);
        assert_eq!(render(&initial), ["+a/same@1", "+a/changed@1", "+b/gone@1"]);
        let cached_same = store.get(&ObjectKey::namespaced("a", "same")).unwrap();

        let changes = store.replace(vec![
            cm("a", "changed", "7", &[]),
            cm("a", "same", "1", &[]),
            cm("c", "new", "8", &[]),
        ]);
        assert_eq!(
            render(&changes),
            ["~a/changed@1->7", "+c/new@8", "?b/gone@1"]
        );
        let mut keys = store.keys();
        keys.sort();
        assert_eq!(
            keys,
            [
                ObjectKey::namespaced("a", "changed"),
                ObjectKey::namespaced("a", "same"),
                ObjectKey::namespaced("c", "new")
            ]
        );
        // An unchanged object keeps its cached Arc (no copy, no event).
        assert!(Arc::ptr_eq(
            &cached_same,
            &store.get(&ObjectKey::namespaced("a", "same")).unwrap()
        ));
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "c"]);
        assert!(
            store
                .replace(Vec::new())
                .iter()
                .all(|c| matches!(c, Notification::Delete(d) if d.is_final_state_unknown()))
        );
        assert!(store.is_empty());
        assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
    }

    #[test]
    fn replace_with_a_key_listed_twice_keeps_the_later_entry() {
        let store = Store::<ConfigMap>::new();
        let changes = store.replace(vec![cm("a", "x", "1", &[]), cm("a", "x", "2", &[])]);
        assert_eq!(render(&changes), ["+a/x@1", "~a/x@1->2"]);
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn indexes_follow_updates_and_deletes() {
        let store = Store::<ConfigMap>::new();
        store.add_indexer("app", by_label("app")).unwrap();
        assert!(
            store.add_indexer("app", by_label("app")).unwrap_err()
                == CacheError::IndexExists {
                    index: "app".into()
                }
        );
        store.apply(cm("a", "x", "1", &[("app", "web")]));
        store.apply(cm("b", "y", "1", &[("app", "web")]));
        store.apply(cm("b", "z", "1", &[("app", "db")]));
        assert_eq!(
            store.index_keys("app", "web").unwrap(),
            [
                ObjectKey::namespaced("a", "x"),
                ObjectKey::namespaced("b", "y")
            ]
        );
        assert_eq!(store.by_index(NAMESPACE_INDEX, "b").unwrap().len(), 2);

        // Relabelling moves the object out of its old index value.
        store.apply(cm("a", "x", "2", &[("app", "db")]));
        assert_eq!(
            store.index_keys("app", "web").unwrap(),
            [ObjectKey::namespaced("b", "y")]
        );
        assert_eq!(store.index_values("app").unwrap(), ["db", "web"]);
        // Dropping the label removes it from the index entirely.
        store.apply(cm("b", "y", "2", &[]));
        assert_eq!(store.index_values("app").unwrap(), ["db"]);
        store.delete(cm("b", "z", "2", &[]));
        assert_eq!(
            store.index_keys("app", "db").unwrap(),
            [ObjectKey::namespaced("a", "x")]
        );
        assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), ["a", "b"]);
        assert!(
            store.by_index("nope", "x").unwrap_err()
                == CacheError::IndexNotFound {
                    index: "nope".into()
                }
        );
    }

    #[test]
    fn indexer_added_late_indexes_cached_objects() {
        let store = Store::<ConfigMap>::new();
        let mut owned = (*cm("a", "x", "1", &[])).clone();
        owned.metadata.owner_references = Some(vec![
            k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                uid: "u-1".into(),
                ..Default::default()
            },
        ]);
        store.apply(Arc::new(owned));
        store.apply(cm("a", "y", "1", &[]));
        store.add_indexer("owner", by_owner_uid()).unwrap();
        assert_eq!(
            store.index_keys("owner", "u-1").unwrap(),
            [ObjectKey::namespaced("a", "x")]
        );
        assert_eq!(store.index_names(), ["namespace", "owner"]);
    }

    #[test]
    fn multi_valued_indexes_deduplicate() {
        let store = Store::<ConfigMap>::new();
        let keys = crate::store::by_field(|c: &ConfigMap| {
            c.data
                .iter()
                .flat_map(|d| d.values().cloned())
                .collect::<Vec<_>>()
        });
        store.add_indexer("values", keys).unwrap();
        let mut obj = (*cm("a", "x", "1", &[])).clone();
        obj.data = Some(BTreeMap::from([
            ("k1".into(), "v".into()),
            ("k2".into(), "v".into()),
            ("k3".into(), "w".into()),
        ]));
        store.apply(Arc::new(obj.clone()));
        assert_eq!(store.index_values("values").unwrap(), ["v", "w"]);
        obj.metadata.resource_version = Some("2".into());
        obj.data = Some(BTreeMap::from([("k1".into(), "w".into())]));
        store.apply(Arc::new(obj));
        assert_eq!(store.index_values("values").unwrap(), ["w"]);
    }
}
