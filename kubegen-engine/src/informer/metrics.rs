//! Prometheus metrics of informers: cache size, relists, watch restarts,
//! objects received and objects of other shards dropped, labelled by
//! resource type.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResourceLabel {
    resource: String,
}

/// Informer metrics, shared by any number of informers (each reports under
/// its own `resource` label, e.g. `resource="v1/ConfigMap"`):
///
/// - `kubegen_informer_store_objects` (gauge): objects in the cache;
/// - `kubegen_informer_relists_total` (counter): full relists after the
///   initial list (after a 410 Gone or a broken watch that could not resume);
/// - `kubegen_informer_watch_restarts_total` (counter): list or watch
///   failures after which the watcher backed off and restarted;
/// - `kubegen_informer_objects_received_total` (counter): objects received
///   from the apiserver, listed or watched (added, modified, deleted);
/// - `kubegen_informer_objects_not_held_total` (counter): of those, the
///   objects a [sharded](crate::informer::Informer::shard) informer
///   dropped because their partition is held elsewhere — none when the
///   apiserver filters.
#[derive(Clone, Debug, Default)]
pub struct InformerMetrics {
    store_objects: Family<ResourceLabel, Gauge>,
    relists: Family<ResourceLabel, Counter>,
    watch_restarts: Family<ResourceLabel, Counter>,
    received: Family<ResourceLabel, Counter>,
    not_held: Family<ResourceLabel, Counter>,
}

impl InformerMetrics {
    /// Creates the metrics and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            "kubegen_informer_store_objects",
            "Number of objects in the informer's cache",
            metrics.store_objects.clone(),
        );
        registry.register(
            "kubegen_informer_relists",
            "Full relists after the initial list",
            metrics.relists.clone(),
        );
        registry.register(
            "kubegen_informer_watch_restarts",
            "List or watch failures after which the watch was restarted",
            metrics.watch_restarts.clone(),
        );
        registry.register(
            "kubegen_informer_objects_received",
            "Objects received from the apiserver, listed or watched",
            metrics.received.clone(),
        );
        registry.register(
            "kubegen_informer_objects_not_held",
            "Objects received that a sharded informer dropped: their partition is held elsewhere",
            metrics.not_held.clone(),
        );
        metrics
    }

    /// The objects received for `resource`.
    pub fn objects_received(&self, resource: &str) -> u64 {
        self.received.get_or_create(&label(resource)).get()
    }

    /// The objects of other partitions dropped for `resource`.
    pub fn objects_not_held(&self, resource: &str) -> u64 {
        self.not_held.get_or_create(&label(resource)).get()
    }

    pub(crate) fn inc_received(&self, resource: &str) {
        self.received.get_or_create(&label(resource)).inc();
    }

    pub(crate) fn inc_not_held(&self, resource: &str) {
        self.not_held.get_or_create(&label(resource)).inc();
    }

    /// The current cache size recorded for `resource`.
    pub fn store_objects(&self, resource: &str) -> i64 {
        self.store_objects.get_or_create(&label(resource)).get()
    }

    /// The relists recorded for `resource`.
    pub fn relists(&self, resource: &str) -> u64 {
        self.relists.get_or_create(&label(resource)).get()
    }

    /// The watch restarts recorded for `resource`.
    pub fn watch_restarts(&self, resource: &str) -> u64 {
        self.watch_restarts.get_or_create(&label(resource)).get()
    }

    pub(crate) fn set_store_objects(&self, resource: &str, len: usize) {
        let len = i64::try_from(len).unwrap_or(i64::MAX);
        self.store_objects.get_or_create(&label(resource)).set(len);
    }

    pub(crate) fn inc_relists(&self, resource: &str) {
        self.relists.get_or_create(&label(resource)).inc();
    }

    pub(crate) fn inc_watch_restarts(&self, resource: &str) {
        self.watch_restarts.get_or_create(&label(resource)).inc();
    }
}

fn label(resource: &str) -> ResourceLabel {
    ResourceLabel {
        resource: resource.to_string(),
    }
}
