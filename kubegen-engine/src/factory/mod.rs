//! [`SharedInformerFactory`]: one shared informer per resource type (and
//! namespace and selectors), started, synced and shut down together.
//!
//! ```no_run
//! # async fn demo(client: kubegen::Client) {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::factory::SharedInformerFactory;
//!
//! let factory = SharedInformerFactory::builder(client).namespace("apps").build();
//! let configmaps = factory.informer::<ConfigMap>();
//! factory.start();
//! let synced = factory.wait_for_cache_sync().await;
//! assert!(synced.values().all(|s| *s));
//! let lister = configmaps.lister();
//! factory.shutdown().await;
//! # }
//! ```

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::watcher;
use futures::future::{BoxFuture, join_all};
use kubegen_client::api::ObjectMeta;
use kubegen_client::{Client, Resource};
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use crate::informer::ApiScope;

use crate::informer::{Informer, InformerConfig, InformerMetrics, Transform, resource_name};
use crate::store::Codec;

type Tweak = Arc<dyn Fn(&mut watcher::Config) + Send + Sync>;
type MetaTransform = Arc<dyn Fn(&mut ObjectMeta) + Send + Sync>;

/// Options of a [`SharedInformerFactory`] (client-go's `WithNamespace`,
/// `WithTweakListOptions`, `WithCustomResyncConfig`, `WithTransform`).
pub struct FactoryBuilder {
    client: Client,
    namespace: Option<String>,
    tweak: Option<Tweak>,
    default_resync: Option<Duration>,
    resyncs: HashMap<TypeId, Duration>,
    meta_transform: Option<MetaTransform>,
    transforms: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    /// Per type, how its objects are kept encoded when not as the
    /// informer's default: an `Option<Codec<K>>`, the JSON codec for
    /// [`FactoryBuilder::compact_for`] or none for
    /// [`FactoryBuilder::decoded_for`].
    codecs: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    metrics: Option<InformerMetrics>,
}

impl FactoryBuilder {
    /// Restricts every informer to one namespace (cluster-scoped types are
    /// not affected).
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Adjusts the watcher options of every informer: label and field
    /// selectors, page size, streaming lists, timeouts.
    #[must_use]
    pub fn tweak_list_params(
        mut self,
        tweak: impl Fn(&mut watcher::Config) + Send + Sync + 'static,
    ) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// The resync period of informers without a per-type one.
    #[must_use]
    pub fn default_resync(mut self, period: Duration) -> Self {
        self.default_resync = Some(period);
        self
    }

    /// The resync period of the informers of type `K`.
    #[must_use]
    pub fn resync_for<K: 'static>(mut self, period: Duration) -> Self {
        self.resyncs.insert(TypeId::of::<K>(), period);
        self
    }

    /// A transform of every object's metadata, applied before caching
    /// instead of the default (which drops managed fields). Pass `|_| {}`
    /// to cache objects unchanged.
    #[must_use]
    pub fn transform(
        mut self,
        transform: impl Fn(&mut ObjectMeta) + Send + Sync + 'static,
    ) -> Self {
        self.meta_transform = Some(Arc::new(transform));
        self
    }

    /// The transform of the objects of type `K`, applied before caching
    /// instead of any other.
    #[must_use]
    pub fn transform_for<K: 'static>(
        mut self,
        transform: impl Fn(&mut K) + Send + Sync + 'static,
    ) -> Self {
        let transform: Transform<K> = Arc::new(transform);
        self.transforms
            .insert(TypeId::of::<K>(), Box::new(transform));
        self
    }

    /// Keeps the objects of type `K` compact even when they arrive without
    /// the bytes they were received as, encoding them as JSON (see
    /// [`InformerConfig::compact`]): for a type given a transform of its
    /// own. Every type is cached compactly with a decoded working set by
    /// default (see [`InformerConfig`]).
    #[must_use]
    pub fn compact_for<K: Serialize + DeserializeOwned + 'static>(mut self) -> Self {
        self.codecs
            .insert(TypeId::of::<K>(), Box::new(Some(Codec::<K>::json())));
        self
    }

    /// Keeps every cached object of type `K` decoded, as client-go does
    /// (see [`InformerConfig::decoded`]).
    #[must_use]
    pub fn decoded_for<K: 'static>(mut self) -> Self {
        self.codecs
            .insert(TypeId::of::<K>(), Box::new(None::<Codec<K>>));
        self
    }

    /// Records the metrics of every informer in `metrics`.
    #[must_use]
    pub fn metrics(mut self, metrics: InformerMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Builds the factory.
    pub fn build(self) -> SharedInformerFactory {
        SharedInformerFactory {
            inner: Arc::new(FactoryInner {
                options: self,
                state: Mutex::new(FactoryState::default()),
            }),
        }
    }
}

/// Hands out one shared informer per resource type, namespace and
/// selectors, however many callers ask for it, and starts, syncs and stops
/// them together (client-go's `SharedInformerFactory`).
///
/// Informers requested after [`start`](SharedInformerFactory::start) are
/// started by the next call to it.
///
/// This is the generic factory, keyed by type: `factory.informer::<K>()`.
/// `kubegen generate` writes a typed one of the same name into the
/// operator's crate (`generated::informers::SharedInformerFactory`), a
/// shim over this one as client-go's generated informer factories are
/// over its generic one: it wraps a factory (`new`, `from_factory`; the
/// wrapped one is `factory()`, and a [`Manager`](crate::Manager) shares
/// its own through [`Manager::factory`](crate::Manager::factory)) and
/// adds typed accessors (`factory.apps().v1().deployments()`) that ask
/// this one for the informer. Both hand out the same shared informers.
/// Where both are in scope, name the generated one by its module path.
#[derive(Clone)]
pub struct SharedInformerFactory {
    inner: Arc<FactoryInner>,
}

impl Debug for SharedInformerFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.inner.state.lock();
        f.debug_struct("SharedInformerFactory")
            .field("namespace", &self.inner.options.namespace)
            .field(
                "informers",
                &state
                    .entries
                    .iter()
                    .map(|e| e.informer.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

struct FactoryInner {
    options: FactoryBuilder,
    state: Mutex<FactoryState>,
}

#[derive(Default)]
struct FactoryState {
    entries: Vec<Entry>,
    index: HashMap<InformerKey, usize>,
    shut_down: bool,
}

struct Entry {
    informer: Box<dyn ErasedInformer>,
    display_name: String,
    started: bool,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct InformerKey {
    type_id: TypeId,
    namespace: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
}

impl SharedInformerFactory {
    /// A factory with default options.
    pub fn new(client: Client) -> Self {
        Self::builder(client).build()
    }

    /// A builder for a factory with options.
    pub fn builder(client: Client) -> FactoryBuilder {
        FactoryBuilder {
            client,
            namespace: None,
            tweak: None,
            default_resync: None,
            resyncs: HashMap::new(),
            meta_transform: None,
            transforms: HashMap::new(),
            codecs: HashMap::new(),
            metrics: None,
        }
    }

    /// The shared informer of `K`; every call returns the same one.
    pub fn informer<K>(&self) -> Informer<K>
    where
        K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::DynamicType: Default,
        K::Scope: ApiScope,
    {
        self.informer_with::<K>(|_| {})
    }

    /// The shared informer of `K` with watcher options further adjusted by
    /// `tweak` (after the factory's own). Callers whose adjustments give the
    /// same label and field selectors share one informer.
    pub fn informer_with<K>(&self, tweak: impl FnOnce(&mut watcher::Config)) -> Informer<K>
    where
        K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::DynamicType: Default,
        K::Scope: ApiScope,
    {
        let options = &self.inner.options;
        let mut base = crate::informer::default_watcher();
        if let Some(factory_tweak) = &options.tweak {
            factory_tweak(&mut base);
        }
        let mut config = base.clone();
        tweak(&mut config);
        let key = InformerKey {
            type_id: TypeId::of::<K>(),
            namespace: options.namespace.clone(),
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
        };
        let mut state = self.inner.state.lock();
        if let Some(&i) = state.index.get(&key) {
            return state.entries[i]
                .informer
                .as_any()
                .downcast_ref::<Informer<K>>()
                .expect("informer keys include the type")
                .clone();
        }
        let dyntype = K::DynamicType::default();
        let name = resource_name::<K>(&dyntype);
        let display_name = if config.label_selector == base.label_selector
            && config.field_selector == base.field_selector
        {
            name.clone()
        } else {
            format!(
                "{name}?labels={}&fields={}",
                config.label_selector.as_deref().unwrap_or(""),
                config.field_selector.as_deref().unwrap_or("")
            )
        };
        let api = K::Scope::api::<K>(
            options.client.clone(),
            options.namespace.as_deref(),
            &dyntype,
        );
        let informer = Informer::build(
            api,
            name,
            self.informer_config::<K>(config),
            crate::informer::built_in::<K>(&dyntype),
        );
        let position = state.entries.len();
        state.index.insert(key, position);
        state.entries.push(Entry {
            informer: Box::new(informer.clone()),
            display_name,
            started: false,
        });
        informer
    }

    fn informer_config<K: Resource + DeserializeOwned + 'static>(
        &self,
        watcher: watcher::Config,
    ) -> InformerConfig<K> {
        let options = &self.inner.options;
        let type_id = TypeId::of::<K>();
        let mut config = InformerConfig::<K>::default().watcher(watcher);
        config.resync = options
            .resyncs
            .get(&type_id)
            .copied()
            .or(options.default_resync);
        if let Some(transform) = options
            .transforms
            .get(&type_id)
            .and_then(|t| t.downcast_ref::<Transform<K>>())
        {
            let transform = transform.clone();
            config = config.transform(move |obj| transform(obj));
        } else if let Some(meta_transform) = &options.meta_transform {
            let meta_transform = meta_transform.clone();
            config = config.transform(move |obj: &mut K| meta_transform(obj.meta_mut()));
        }
        if let Some(metrics) = &options.metrics {
            config = config.metrics(metrics.clone());
        }
        if let Some(codec) = options
            .codecs
            .get(&type_id)
            .and_then(|codec| codec.downcast_ref::<Option<Codec<K>>>())
        {
            config.codec = *codec;
        }
        config
    }

    /// Starts every informer requested so far that is not running yet.
    /// Idempotent; does nothing after [`shutdown`](Self::shutdown).
    ///
    /// # Panics
    ///
    /// When called outside a Tokio runtime.
    pub fn start(&self) {
        let mut state = self.inner.state.lock();
        if state.shut_down {
            return;
        }
        for entry in state.entries.iter_mut().filter(|e| !e.started) {
            entry.informer.start();
            entry.started = true;
        }
    }

    /// Waits until every started informer has synced (or was shut down) and
    /// reports, per resource type, whether it synced. The future is boxed
    /// here, as [`Manager::run_until`](crate::Manager::run_until)'s is, so
    /// that a crate awaiting it does not compile its body.
    pub fn wait_for_cache_sync(&self) -> BoxFuture<'_, BTreeMap<String, bool>> {
        Box::pin(self.wait_for_cache_sync_inner())
    }

    async fn wait_for_cache_sync_inner(&self) -> BTreeMap<String, bool> {
        let waits: Vec<(String, BoxFuture<'static, bool>)> = {
            let state = self.inner.state.lock();
            state
                .entries
                .iter()
                .filter(|e| e.started)
                .map(|e| (e.display_name.clone(), e.informer.wait_for_sync()))
                .collect()
        };
        let (names, futures): (Vec<_>, Vec<_>) = waits.into_iter().unzip();
        let mut report = BTreeMap::new();
        for (name, synced) in names.into_iter().zip(join_all(futures).await) {
            let entry = report.entry(name).or_insert(true);
            *entry &= synced;
        }
        report
    }

    /// Stops every informer and waits for their watch and handler tasks.
    /// Later calls to [`start`](Self::start) do nothing. The future is
    /// boxed, as [`wait_for_cache_sync`](Self::wait_for_cache_sync)'s is.
    pub fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.shutdown_inner())
    }

    async fn shutdown_inner(&self) {
        let stops: Vec<BoxFuture<'static, ()>> = {
            let mut state = self.inner.state.lock();
            state.shut_down = true;
            state
                .entries
                .iter()
                .map(|e| e.informer.shutdown())
                .collect()
        };
        join_all(stops).await;
    }
}

/// An informer of any type, as the factory keeps it.
trait ErasedInformer: Send + Sync {
    fn name(&self) -> &str;
    fn start(&self);
    fn wait_for_sync(&self) -> BoxFuture<'static, bool>;
    fn shutdown(&self) -> BoxFuture<'static, ()>;
    fn as_any(&self) -> &dyn Any;
}

impl<K> ErasedInformer for Informer<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        Informer::name(self)
    }

    fn start(&self) {
        Informer::start(self);
    }

    fn wait_for_sync(&self) -> BoxFuture<'static, bool> {
        let informer = self.clone();
        Box::pin(async move { informer.wait_for_cache_sync().await })
    }

    fn shutdown(&self) -> BoxFuture<'static, ()> {
        let informer = self.clone();
        Box::pin(async move { informer.shutdown().await })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles only while the factory's waits return a `BoxFuture`: as
    /// `async fn`s, their bodies would be compiled again in each crate
    /// awaiting them.
    #[test]
    fn the_factorys_futures_are_boxed() {
        let _: for<'a> fn(&'a SharedInformerFactory) -> BoxFuture<'a, BTreeMap<String, bool>> =
            SharedInformerFactory::wait_for_cache_sync;
        let _: for<'a> fn(&'a SharedInformerFactory) -> BoxFuture<'a, ()> =
            SharedInformerFactory::shutdown;
    }
}
