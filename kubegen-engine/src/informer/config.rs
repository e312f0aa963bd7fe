//! [`InformerConfig`]: watch options, resync period, transform, indexes
//! and metrics of one informer.

use std::sync::Arc;
use std::time::Duration;

use super::watcher;
use kubegen_client::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::metrics::InformerMetrics;
use crate::store::{Codec, IndexFn, WorkingSet};

/// A function applied to every object before it is cached (and before
/// handlers see it), typically to drop fields that are not needed.
pub type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync>;

/// The default [`Transform`]: drops `metadata.managedFields`, which is
/// often the largest part of an object and rarely needed by controllers.
pub fn strip_managed_fields<K: Resource>(obj: &mut K) {
    obj.meta_mut().managed_fields = None;
}

/// The watcher options informers start from: kube's defaults with a
/// streaming initial list.
pub(crate) fn default_watcher() -> watcher::Config {
    watcher::Config::default().streaming_lists()
}

/// How an [`Informer`](super::Informer) lists and watches, resyncs and
/// transforms objects.
///
/// The defaults follow client-go 1.35+: the initial state comes from a
/// streaming list (a watch with `sendInitialEvents=true`, KEP-3157), which
/// falls back to paginated lists of 500 when the apiserver rejects it;
/// bookmarks on; client-go's reflector backoff (800 ms doubling to 30 s,
/// with jitter, see [`watcher::Backoff`]); no resync. Built-in kinds are read in protobuf, as client-go's
/// typed clients read them ([`InformerConfig::json`] opts out); custom
/// resources in JSON. Unlike client-go, managed fields are dropped by
/// default (see [`strip_managed_fields`]): with this default they are cut
/// from the received protobuf message or JSON before the object is
/// decoded, so they cost no decoding either.
/// [`InformerConfig::no_transform`] keeps them, and
/// [`InformerConfig::transform`] replaces the default with a function run
/// on each decoded object.
///
/// The cache is compact by default, unlike client-go's: each object is kept
/// as the bytes it was received as (JSON with managed fields cut, or the
/// protobuf envelope), and only a bounded working set — the objects read
/// by key or delivered most recently, [`WorkingSet::Auto`] — is also kept
/// decoded, so a reconciler's reads of the objects it was just told about
/// cost an `Arc` clone and the cache as a whole about half of a decoded
/// one (`kubegen-runtime`'s `informer_memory` benchmark gives the curve).
/// [`InformerConfig::working_set`] changes the bound,
/// [`InformerConfig::decoded`] keeps every object decoded as client-go
/// does, and [`InformerConfig::compact`] also encodes objects that arrive
/// without their bytes (after a transform of the user's).
pub struct InformerConfig<K> {
    /// Options of the underlying [`watcher`] (selectors, page size, list
    /// strategy, bookmarks, timeout).
    pub watcher: watcher::Config,
    /// When set, every cached object is re-delivered as `on_update(obj, obj)`
    /// at this period.
    pub resync: Option<Duration>,
    pub(crate) transform: Option<Transform<K>>,
    /// Whether `transform` is the default [`strip_managed_fields`], which
    /// the watch then applies to the received bytes before decoding (see
    /// `received` and `watcher::protocol`).
    pub(crate) strips_managed_fields: bool,
    pub(crate) indexers: Vec<(String, IndexFn<K>)>,
    pub(crate) metrics: Option<InformerMetrics>,
    /// How objects are kept encoded; none for [`InformerConfig::decoded`].
    pub(crate) codec: Option<Codec<K>>,
    /// The bound of the decoded working set of a compact cache.
    pub(crate) working_set: WorkingSet,
    /// Whether built-in kinds are listed and watched in protobuf; cleared
    /// by [`InformerConfig::json`].
    pub(crate) protobuf: bool,
}

impl<K: Resource + DeserializeOwned + 'static> Default for InformerConfig<K> {
    fn default() -> Self {
        InformerConfig {
            watcher: default_watcher(),
            resync: None,
            transform: Some(Arc::new(strip_managed_fields::<K>)),
            strips_managed_fields: true,
            indexers: Vec::new(),
            metrics: None,
            codec: Some(Codec::received()),
            working_set: WorkingSet::Auto,
            protobuf: true,
        }
    }
}

impl<K> Clone for InformerConfig<K> {
    fn clone(&self) -> Self {
        InformerConfig {
            watcher: self.watcher.clone(),
            resync: self.resync,
            transform: self.transform.clone(),
            strips_managed_fields: self.strips_managed_fields,
            indexers: self.indexers.clone(),
            metrics: self.metrics.clone(),
            codec: self.codec,
            working_set: self.working_set,
            protobuf: self.protobuf,
        }
    }
}

impl<K> std::fmt::Debug for InformerConfig<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InformerConfig")
            .field("watcher", &self.watcher)
            .field("resync", &self.resync)
            .field("transform", &self.transform.is_some())
            .field(
                "indexers",
                &self.indexers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("compact", &self.codec.is_some())
            .field("working_set", &self.working_set)
            .field("protobuf", &self.protobuf)
            .finish()
    }
}

impl<K: Resource + DeserializeOwned + 'static> InformerConfig<K> {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<K: Serialize + DeserializeOwned> InformerConfig<K> {
    /// Keeps every object compact, even one that arrives without the bytes
    /// it was received as (after a transform of the user's, or with
    /// managed fields kept from a JSON watch): such an object is encoded as
    /// JSON, where the default keeps it decoded. See
    /// [`Store::compact`](crate::store::Store::compact). Handlers still
    /// receive the decoded objects of the watch.
    ///
    /// In `kubegen-runtime`'s `informer_memory` benchmark a ConfigMap of
    /// 1 KB of JSON takes 1.3 KB compact against 2.6 KB decoded, and
    /// managed fields, when kept, stay bytes rather than a JSON tree (1.6 KB
    /// against 5.9 KB).
    #[must_use]
    pub fn compact(mut self) -> Self {
        self.codec = Some(Codec::json());
        self
    }
}

impl<K> InformerConfig<K> {
    /// Replaces the watcher options.
    #[must_use]
    pub fn watcher(mut self, config: watcher::Config) -> Self {
        self.watcher = config;
        self
    }

    /// Restricts the informer to objects matching a label selector.
    #[must_use]
    pub fn labels(mut self, selector: &str) -> Self {
        self.watcher = self.watcher.labels(selector);
        self
    }

    /// Restricts the informer to objects matching a field selector.
    #[must_use]
    pub fn fields(mut self, selector: &str) -> Self {
        self.watcher = self.watcher.fields(selector);
        self
    }

    /// Uses a streaming list (a watch with `sendInitialEvents`, KEP-3157)
    /// for the initial state and relists — the default. The informer falls
    /// back to paginated lists if the apiserver rejects it.
    #[must_use]
    pub fn streaming_list(mut self) -> Self {
        self.watcher = self.watcher.streaming_lists();
        self
    }

    /// Uses paginated LIST requests (then a watch) for the initial state and
    /// relists, as client-go did before 1.35 — for apiservers behind proxies
    /// that mishandle long watches, say.
    #[must_use]
    pub fn paginated_list(mut self) -> Self {
        self.watcher.initial_list_strategy = watcher::InitialListStrategy::ListWatch;
        self
    }

    /// Sets the page size of paginated lists (`None` lists everything in one
    /// page); it applies when lists are paginated
    /// ([`InformerConfig::paginated_list`], or the fallback).
    #[must_use]
    pub fn page_size(mut self, size: Option<u32>) -> Self {
        self.watcher.page_size = size;
        self
    }

    /// Lists and watches in JSON even for a built-in kind, which is
    /// otherwise read in protobuf (as client-go's typed clients read it):
    /// the apiserver encodes protobuf for a fraction of JSON's CPU cost,
    /// and `kubegen` decodes it into the same value (see
    /// [`crate::protobuf`]). Custom resources are always JSON.
    #[must_use]
    pub fn json(mut self) -> Self {
        self.protobuf = false;
        self
    }

    /// Re-delivers every cached object as an update at this period.
    #[must_use]
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period);
        self
    }

    /// Replaces the transform applied to objects before they are cached.
    #[must_use]
    pub fn transform(mut self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Self {
        self.transform = Some(Arc::new(transform));
        self.strips_managed_fields = false;
        self
    }

    /// Caches objects exactly as received (managed fields included).
    #[must_use]
    pub fn no_transform(mut self) -> Self {
        self.transform = None;
        self.strips_managed_fields = false;
        self
    }

    /// Bounds the decoded working set of the compact cache (see
    /// [`WorkingSet`]); `WorkingSet::Fixed(0)` decodes on every read.
    #[must_use]
    pub fn working_set(mut self, working_set: WorkingSet) -> Self {
        self.working_set = working_set;
        self
    }

    /// Keeps every cached object decoded, as client-go does: every read
    /// shares the one `Arc<K>`, at about twice the memory of the default
    /// compact cache.
    #[must_use]
    pub fn decoded(mut self) -> Self {
        self.codec = None;
        self
    }

    /// Adds a named index to the informer's store.
    #[must_use]
    pub fn index(mut self, name: impl Into<String>, index_fn: IndexFn<K>) -> Self {
        self.indexers.push((name.into(), index_fn));
        self
    }

    /// Records the informer's metrics in `metrics`.
    #[must_use]
    pub fn metrics(mut self, metrics: InformerMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }
}
