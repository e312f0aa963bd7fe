//! Listers: read-only, selector-aware views of an informer's cache
//! (client-go's generated listers, as generic types).

use std::sync::Arc;

use kubegen_client::Resource;
use kubegen_client::core::{Selector, SelectorExt};

use crate::store::{CacheError, NAMESPACE_INDEX, ObjectKey, Store};

pub use crate::store::{SelectorError, parse_selector};

/// Lists and gets cached objects of one type. Objects are `Arc<K>` (shared
/// with the cache, or freshly decoded from a compact one) and cannot be
/// changed through the lister.
///
/// ```
/// # use k8s_openapi::api::core::v1::ConfigMap;
/// use kubegen::lister::{Lister, parse_selector};
/// let lister: Lister<ConfigMap> = Lister::from_objects([]);
/// let web = lister.namespace("default").list(&parse_selector("app=web").unwrap());
/// assert!(web.is_empty());
/// assert!(lister.namespace("default").get("missing").unwrap_err().is_not_found());
/// ```
pub struct Lister<K> {
    store: Arc<Store<K>>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Lister {
            store: self.store.clone(),
        }
    }
}

impl<K> std::fmt::Debug for Lister<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lister")
            .field("store", &self.store)
            .finish()
    }
}

impl<K: Resource> Lister<K> {
    /// A lister over `store`.
    pub fn new(store: Arc<Store<K>>) -> Self {
        Lister { store }
    }

    /// A lister over a standalone store holding `objects` (for tests of code
    /// that reads listers).
    pub fn from_objects(objects: impl IntoIterator<Item = K>) -> Self {
        let store = Store::new();
        let staged = objects
            .into_iter()
            .map(|obj| store.stage(&Arc::new(obj)))
            .collect();
        store.replace(staged, false);
        Lister::new(Arc::new(store))
    }

    /// The underlying cache.
    pub fn store(&self) -> &Arc<Store<K>> {
        &self.store
    }

    /// All cached objects whose labels match `selector`
    /// (`&Selector::default()` matches all).
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.store.select(|obj| selected(selector, obj))
    }

    /// The cluster-scoped object called `name`.
    pub fn get(&self, name: &str) -> Result<Arc<K>, CacheError> {
        self.get_key(&ObjectKey::cluster(name))
    }

    /// The object with this key.
    pub fn get_key(&self, key: &ObjectKey) -> Result<Arc<K>, CacheError> {
        self.store
            .get(key)
            .ok_or_else(|| CacheError::NotFound { key: key.clone() })
    }

    /// A lister of one namespace.
    pub fn namespace(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister {
            store: self.store.clone(),
            namespace: namespace.to_string(),
        }
    }

    /// The objects listed under `value` in the index `index`.
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<Arc<K>>, CacheError> {
        self.store.by_index(index, value)
    }

    /// The keys listed under `value` in the index `index`, sorted.
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<ObjectKey>, CacheError> {
        self.store.index_keys(index, value)
    }
}

/// Lists and gets the cached objects of one namespace; it reads only that
/// namespace's objects, through the namespace index.
pub struct NamespaceLister<K> {
    store: Arc<Store<K>>,
    namespace: String,
}

impl<K> std::fmt::Debug for NamespaceLister<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NamespaceLister")
            .field("namespace", &self.namespace)
            .finish()
    }
}

impl<K: Resource> NamespaceLister<K> {
    /// The objects of this namespace whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.store
            .select_by_index(NAMESPACE_INDEX, &self.namespace, |obj| {
                selected(selector, obj)
            })
            .unwrap_or_default()
    }

    /// The object called `name` in this namespace.
    pub fn get(&self, name: &str) -> Result<Arc<K>, CacheError> {
        let key = ObjectKey::namespaced(self.namespace.clone(), name);
        self.store.get(&key).ok_or(CacheError::NotFound { key })
    }
}

fn selected<K: Resource>(selector: &Selector, obj: &K) -> bool {
    if selector.selects_all() {
        return true;
    }
    match &obj.meta().labels {
        Some(labels) => selector.matches(labels),
        None => selector.matches(&Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
    use kubegen_client::api::ObjectMeta;

    use super::*;

    fn cm(ns: &str, name: &str, labels: &[(&str, &str)]) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                namespace: Some(ns.into()),
                name: Some(name.into()),
                resource_version: Some("1".into()),
                labels: (!labels.is_empty()).then(|| {
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect()
                }),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn names(objects: Vec<Arc<ConfigMap>>) -> Vec<String> {
        let mut names: Vec<String> = objects
            .iter()
            .map(|o| ObjectKey::of(&**o).to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn lists_with_selectors_across_and_within_namespaces() {
        let lister = Lister::from_objects([
            cm("a", "web1", &[("app", "web"), ("env", "prod")]),
            cm("a", "web2", &[("app", "web"), ("env", "dev")]),
            cm("a", "plain", &[]),
            cm("b", "web3", &[("app", "web"), ("env", "prod")]),
        ]);
        let all = Selector::default();
        assert_eq!(
            names(lister.list(&all)),
            ["a/plain", "a/web1", "a/web2", "b/web3"]
        );
        let prod = parse_selector("app=web,env in (prod)").unwrap();
        assert_eq!(names(lister.list(&prod)), ["a/web1", "b/web3"]);
        assert_eq!(names(lister.namespace("a").list(&prod)), ["a/web1"]);
        assert_eq!(
            names(lister.namespace("a").list(&all)),
            ["a/plain", "a/web1", "a/web2"]
        );
        let unlabelled = parse_selector("!app").unwrap();
        assert_eq!(names(lister.list(&unlabelled)), ["a/plain"]);
        let not_prod = parse_selector("env!=prod").unwrap();
        assert_eq!(
            names(lister.namespace("a").list(&not_prod)),
            ["a/plain", "a/web2"]
        );
        assert!(lister.namespace("zzz").list(&all).is_empty());
    }

    #[test]
    fn get_distinguishes_not_found() {
        let lister = Lister::from_objects([cm("a", "x", &[])]);
        assert_eq!(
            lister
                .namespace("a")
                .get("x")
                .unwrap()
                .metadata
                .name
                .as_deref(),
            Some("x")
        );
        let missing = lister.namespace("b").get("x").unwrap_err();
        assert!(missing.is_not_found());
        assert_eq!(
            missing,
            CacheError::NotFound {
                key: ObjectKey::namespaced("b", "x")
            }
        );
        assert_eq!(missing.to_string(), "object b/x not found");
        assert!(
            lister.get("x").unwrap_err().is_not_found(),
            "x is not cluster-scoped"
        );
        assert!(!lister.by_index("nope", "x").unwrap_err().is_not_found());
        assert_eq!(lister.by_index(NAMESPACE_INDEX, "a").unwrap().len(), 1);
    }

    #[test]
    fn cluster_scoped_get() {
        let ns = Namespace {
            metadata: ObjectMeta {
                name: Some("kube-system".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let lister = Lister::from_objects([ns]);
        assert!(lister.get("kube-system").is_ok());
        assert!(
            lister
                .get_key(&ObjectKey::cluster("default"))
                .unwrap_err()
                .is_not_found()
        );
        assert!(
            lister
                .namespace("kube-system")
                .list(&Selector::default())
                .is_empty()
        );
    }
}
