//! [`Store`]: the indexed object map and its change computations.

use crate::fast_hash::{HashMap, HashSet};
use std::cell::OnceCell;
use std::sync::Arc;

use kube_core::Resource;
use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::entry::{Codec, Entry, load};
use super::error::CacheError;
use super::index::{IndexFn, NAMESPACE_INDEX, by_namespace};
use super::key::ObjectKey;
use super::notification::{DeletedObject, Notification};
use super::working_set::{Clock, WorkingSet};

/// One index: index value to the keys of the objects listed under it.
type Index = HashMap<String, HashSet<Arc<ObjectKey>>>;

/// A thread-safe, indexed cache of objects keyed by [`ObjectKey`] (the
/// indexer of client-go). Readers get `Arc<K>` handles and cannot change
/// cached objects; only the informer that owns the store writes it.
///
/// A store made with [`Store::new`] keeps each object decoded and hands out
/// the same shared `Arc<K>` on every read. One made with [`Store::compact`]
/// keeps each object's JSON instead, and decoded only the objects of a
/// bounded working set (those read by key or received most recently): a
/// read of one of those hands out the kept `Arc<K>`, any other decodes.
///
/// Every store has the [`NAMESPACE_INDEX`]; more indexes can be added at any
/// time with [`Store::add_indexer`]. Indexes stay consistent through updates
/// and deletes.
pub struct Store<K> {
    inner: RwLock<Inner<K>>,
    /// Set for compact stores.
    codec: Option<Codec<K>>,
    /// A compact store's decoded working set (none when its bound is 0).
    hot: Option<Mutex<Clock<K>>>,
}

struct Inner<K> {
    items: HashMap<Arc<ObjectKey>, Entry<K>>,
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
            .field("compact", &self.codec.is_some())
            .field(
                "working_set",
                &self.hot.as_ref().map(|hot| hot.lock().bound()),
            )
            .field("indexes", &inner.indexers.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<K: Resource + Serialize + DeserializeOwned> Store<K> {
    /// An empty compact store with the namespace index: it keeps every
    /// object as its JSON — or, filled by an informer reading a built-in
    /// kind, as the protobuf envelope received — (without the decoded
    /// form's per-field allocations and map nodes, often a half or less of
    /// the memory), and decoded only the objects of its working set
    /// ([`WorkingSet::Auto`]: a tenth of the objects, at least 64), those
    /// read by key or applied most recently. A `get` of one of those hands
    /// out the kept `Arc<K>`; any other read decodes (a few microseconds
    /// per kilobyte) and hands out a fresh one.
    ///
    /// An object is kept as JSON only when that JSON decodes back into a
    /// `K`, as for every Kubernetes type and serde-derived resource; one
    /// that would not (a type whose `Serialize` output its own `Deserialize`
    /// refuses) is kept decoded, so reads never fail. Secondary indexes,
    /// resourceVersion checks and relist diffs work as in [`Store::new`];
    /// label-selector lists decode every object they look at.
    pub fn compact() -> Self {
        Store::compact_with(WorkingSet::Auto)
    }

    /// [`Store::compact`] with the working set bounded by `working_set`
    /// (`WorkingSet::Fixed(0)`: every read decodes).
    pub fn compact_with(working_set: WorkingSet) -> Self {
        Store::with_codec(Some(Codec::json()), working_set)
    }
}

impl<K: Resource> Store<K> {
    /// An empty store with the namespace index.
    pub fn new() -> Self {
        Store::with_codec(None, WorkingSet::Auto)
    }

    /// An empty store; compact, with a decoded working set bounded by
    /// `working_set`, when `codec` is set.
    #[doc(hidden)]
    pub fn with_codec(codec: Option<Codec<K>>, working_set: WorkingSet) -> Self {
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
            hot: codec
                .filter(|_| working_set != WorkingSet::Fixed(0))
                .map(|_| Mutex::new(Clock::new(working_set))),
            codec,
        }
    }

    /// Whether objects are kept as JSON ([`Store::compact`]).
    pub fn is_compact(&self) -> bool {
        self.codec.is_some()
    }

    /// How `obj` is kept.
    fn entry(&self, obj: &Arc<K>, received: Option<Box<[u8]>>) -> Entry<K> {
        match &self.codec {
            Some(codec) => codec.entry(obj, received),
            None => Entry::Shared(obj.clone()),
        }
    }

    /// The object `entry` holds.
    fn load(&self, entry: &Entry<K>) -> Arc<K> {
        load(self.codec.as_ref(), entry)
    }

    /// The object `entry`, cached under `key` in a store of `cached`
    /// objects, holds: from the working set when it is there; otherwise
    /// decoded, and kept in the working set when `remember` (a read by
    /// key). Called with the store's lock held, so that nothing replaces
    /// the entry between the decode and the keeping.
    fn read(
        &self,
        key: &Arc<ObjectKey>,
        entry: &Entry<K>,
        cached: usize,
        remember: bool,
    ) -> Arc<K> {
        let (Entry::Encoded { .. }, Some(hot)) = (entry, &self.hot) else {
            return self.load(entry);
        };
        let kept = if remember {
            hot.lock().get(key)
        } else {
            hot.lock().peek(key)
        };
        if let Some(obj) = kept {
            return obj;
        }
        let obj = self.load(entry);
        if remember {
            hot.lock().insert(key.clone(), obj.clone(), cached);
        }
        obj
    }

    /// Keeps `obj`, just applied under `key` as `entry`, in the working
    /// set (an object kept decoded anyway takes no place there).
    fn remember(&self, key: &Arc<ObjectKey>, obj: &Arc<K>, entry: &Entry<K>, cached: usize) {
        if let (Some(hot), Entry::Encoded { .. }) = (&self.hot, entry) {
            hot.lock().insert(key.clone(), obj.clone(), cached);
        }
    }

    /// Drops the working set's copy of the object under `key`, which
    /// changed or went, and returns how to get its last state, `entry`:
    /// that copy, or else `entry` decoded.
    fn leaving<'a>(&'a self, key: &ObjectKey, entry: &'a Entry<K>) -> impl Fn() -> Arc<K> + 'a {
        let kept = self.hot.as_ref().and_then(|hot| hot.lock().remove(key));
        move || kept.clone().unwrap_or_else(|| self.load(entry))
    }

    /// The number of objects the working set holds decoded.
    #[cfg(test)]
    pub(crate) fn working_set_len(&self) -> usize {
        self.hot.as_ref().map_or(0, |hot| hot.lock().len())
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
        for (key, entry) in &inner.items {
            let load = || self.load(entry);
            for value in Lazy::new(key, &load).values(&name, &index_fn) {
                index.entry(value).or_default().insert(key.clone());
            }
        }
        inner.indices.insert(name.clone(), index);
        inner.indexers.insert(name, index_fn);
        Ok(())
    }

    /// The object cached under `key`.
    pub fn get(&self, key: &ObjectKey) -> Option<Arc<K>> {
        let inner = self.inner.read();
        let (key, entry) = inner.items.get_key_value(key)?;
        Some(self.read(key, entry, inner.items.len(), true))
    }

    /// All cached objects, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        let inner = self.inner.read();
        let cached = inner.items.len();
        inner
            .items
            .iter()
            .map(|(key, entry)| self.read(key, entry, cached, false))
            .collect()
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
    #[doc(hidden)]
    pub fn select_by_index(
        &self,
        index: &str,
        value: &str,
        filter: impl Fn(&K) -> bool,
    ) -> Result<Vec<Arc<K>>, CacheError> {
        let inner = self.inner.read();
        let cached = inner.items.len();
        Ok(inner
            .index(index)?
            .get(value)
            .into_iter()
            .flatten()
            .filter_map(|key| Some((key, inner.items.get(key)?)))
            .map(|(key, entry)| self.read(key, entry, cached, false))
            .filter(|obj| filter(obj))
            .collect())
    }

    /// All objects that satisfy `filter`.
    #[doc(hidden)]
    pub fn select(&self, filter: impl Fn(&K) -> bool) -> Vec<Arc<K>> {
        let inner = self.inner.read();
        let cached = inner.items.len();
        inner
            .items
            .iter()
            .map(|(key, entry)| self.read(key, entry, cached, false))
            .filter(|obj| filter(obj))
            .collect()
    }

    /// Readies `obj` to enter the store without taking its lock: its key,
    /// and for a compact store its JSON.
    #[doc(hidden)]
    pub fn stage(&self, obj: &Arc<K>) -> Staged<K> {
        self.stage_received(obj, None)
    }

    /// [`Store::stage`] for an object decoded from `received` (JSON or a
    /// protobuf envelope): a compact store keeps those bytes instead of
    /// encoding the object. The caller vouches that `received` decodes into
    /// exactly `obj`.
    #[doc(hidden)]
    pub fn stage_received(&self, obj: &Arc<K>, received: Option<Box<[u8]>>) -> Staged<K> {
        Staged {
            key: ObjectKey::of(&**obj),
            entry: self.entry(obj, received),
        }
    }

    /// [`Store::apply_received`] without received bytes.
    #[cfg(test)]
    #[doc(hidden)]
    pub fn apply(&self, obj: Arc<K>) -> Option<Notification<K>> {
        self.apply_received(obj, None)
    }

    /// Inserts or replaces an object (decoded from `received`, when given:
    /// see [`Store::stage_received`]). An object whose resourceVersion
    /// equals the cached one's is a repeat and changes nothing.
    #[doc(hidden)]
    pub fn apply_received(
        &self,
        obj: Arc<K>,
        received: Option<Box<[u8]>>,
    ) -> Option<Notification<K>> {
        let Staged { key, entry } = self.stage_received(&obj, received);
        let new = || obj.clone();
        let mut inner = self.inner.write();
        let inner = &mut *inner;
        match inner.items.get_key_value(&key) {
            Some((shared_key, old)) => {
                if same_version(old.resource_version(), entry.resource_version()) {
                    return None;
                }
                let shared_key = shared_key.clone();
                let old = self.leaving(&shared_key, old)();
                let old_obj = || old.clone();
                update_indices(
                    inner,
                    &shared_key,
                    Some(&Lazy::new(&shared_key, &old_obj)),
                    Some(&Lazy::new(&shared_key, &new)),
                );
                self.remember(&shared_key, &obj, &entry, inner.items.len());
                inner.items.insert(shared_key, entry);
                Some(Notification::Update(old, obj))
            }
            None => {
                let shared_key = Arc::new(key);
                update_indices(
                    inner,
                    &shared_key,
                    None,
                    Some(&Lazy::new(&shared_key, &new)),
                );
                self.remember(&shared_key, &obj, &entry, inner.items.len() + 1);
                inner.items.insert(shared_key, entry);
                Some(Notification::Add(obj))
            }
        }
    }

    /// Removes the object `obj` names, reporting `obj` (its final state) as
    /// deleted; nothing when it was not cached.
    #[doc(hidden)]
    pub fn delete(&self, obj: Arc<K>) -> Option<Notification<K>> {
        let key = ObjectKey::of(&*obj);
        let mut inner = self.inner.write();
        let (shared_key, old) = inner.items.remove_entry(&key)?;
        let old = self.leaving(&shared_key, &old);
        update_indices(
            &mut inner,
            &shared_key,
            Some(&Lazy::new(&shared_key, &old)),
            None,
        );
        Some(Notification::Delete(DeletedObject::Known(obj)))
    }

    /// Replaces the whole contents with a fresh list, returning the
    /// difference when `notify` is set (nothing otherwise): adds for new
    /// objects, updates for objects whose resourceVersion changed, and
    /// [`DeletedObject::FinalStateUnknown`] for cached objects missing from
    /// the list. Unchanged objects keep their cached entry and produce
    /// nothing. A compact store decodes an object here only for a
    /// notification or an index other than the namespace one, and drops it
    /// at once, so a relist never holds the whole list decoded.
    #[doc(hidden)]
    pub fn replace(&self, objects: Vec<Staged<K>>, notify: bool) -> Vec<Notification<K>> {
        let mut guard = self.inner.write();
        let inner = &mut *guard;
        let mut old_items = std::mem::take(&mut inner.items);
        inner.items.reserve(objects.len());
        let mut changes = Vec::new();
        for Staged { key, entry } in objects {
            // A key listed twice: the later entry wins.
            let previous = match inner.items.remove_entry(&key) {
                Some(entry) => Some(entry),
                None => old_items.remove_entry(&key),
            };
            let load_new = || self.load(&entry);
            let new = Lazy::new(&key, &load_new);
            match previous {
                Some((shared_key, old))
                    if same_version(old.resource_version(), entry.resource_version()) =>
                {
                    inner.items.insert(shared_key, old);
                }
                Some((shared_key, old)) => {
                    let load_old = self.leaving(&shared_key, &old);
                    let old = Lazy::new(&shared_key, &load_old);
                    update_indices(inner, &shared_key, Some(&old), Some(&new));
                    if notify {
                        changes.push(Notification::Update(old.get().clone(), new.get().clone()));
                    }
                    drop((old, new));
                    inner.items.insert(shared_key, entry);
                }
                None => {
                    let shared_key = Arc::new(key.clone());
                    update_indices(inner, &shared_key, None, Some(&new));
                    if notify {
                        changes.push(Notification::Add(new.get().clone()));
                    }
                    drop(new);
                    inner.items.insert(shared_key, entry);
                }
            }
        }
        let mut gone: Vec<_> = old_items.into_iter().collect();
        gone.sort_by(|a, b| a.0.cmp(&b.0));
        for (shared_key, old) in gone {
            let load_old = self.leaving(&shared_key, &old);
            let old = Lazy::new(&shared_key, &load_old);
            update_indices(inner, &shared_key, Some(&old), None);
            if notify {
                changes.push(Notification::Delete(DeletedObject::FinalStateUnknown {
                    key: (*shared_key).clone(),
                    last_known: old.get().clone(),
                }));
            }
        }
        changes
    }
}

/// An object ready to enter a store ([`Store::stage`]).
#[doc(hidden)]
pub struct Staged<K> {
    key: ObjectKey,
    entry: Entry<K>,
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

/// An object as the index functions see it: loaded (for a compact store,
/// decoded) at most once, and only when an index other than the namespace
/// index, which reads the namespace from the key, asks for it.
struct Lazy<'a, K> {
    key: &'a ObjectKey,
    load: &'a dyn Fn() -> Arc<K>,
    loaded: OnceCell<Arc<K>>,
}

impl<'a, K> Lazy<'a, K> {
    fn new(key: &'a ObjectKey, load: &'a dyn Fn() -> Arc<K>) -> Self {
        Lazy {
            key,
            load,
            loaded: OnceCell::new(),
        }
    }

    fn get(&self) -> &Arc<K> {
        self.loaded.get_or_init(self.load)
    }

    /// The values `index_fn`, the index called `name`, lists the object
    /// under, without duplicates.
    fn values(&self, name: &str, index_fn: &IndexFn<K>) -> Vec<String> {
        if name == NAMESPACE_INDEX {
            // What `by_namespace` gives: the key's namespace is the object's,
            // empty ones already dropped.
            return self.key.namespace.iter().cloned().collect();
        }
        dedup(index_fn(self.get()))
    }
}

/// Moves `key` from the index values of `old` to those of `new`.
fn update_indices<K>(
    inner: &mut Inner<K>,
    key: &Arc<ObjectKey>,
    old: Option<&Lazy<'_, K>>,
    new: Option<&Lazy<'_, K>>,
) {
    for (name, index_fn) in &inner.indexers {
        let old_values = old.map(|o| o.values(name, index_fn)).unwrap_or_default();
        let new_values = new.map(|n| n.values(name, index_fn)).unwrap_or_default();
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

/// Whether a cached resourceVersion and a new one are the same and not
/// empty.
fn same_version(cached: Option<&str>, new: Option<&str>) -> bool {
    match (cached, new) {
        (Some(x), Some(y)) => !x.is_empty() && x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
