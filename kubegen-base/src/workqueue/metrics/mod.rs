//! Prometheus metrics of work queues under client-go's `workqueue_*` names,
//! with controller-runtime's labels and buckets.
//!
//! Each queue counts under its own lock, beside its state ([`QueueStats`]):
//! recording is a few plain additions in a critical section the queue
//! enters anyway, so workers on different threads share no metric atomics.
//! A collector reads every queue when the registry is encoded, so every
//! family — the in-progress gauges included — is exact at each scrape with
//! no refresh task.

mod collector;
mod labels;
mod stats;

use std::sync::Arc;

use prometheus_client::registry::Registry;

use collector::QueueCollector;
pub(super) use collector::{QueueSnapshot, QueueSource};
use labels::QueueLabels;
pub(super) use stats::QueueStats;

/// The work queue metric families, registered once into a
/// [`Registry`] and shared by any number of queues, under
/// controller-runtime's names and labels: each series is labelled `name`
/// and `controller` (both the queue's name, as controller-runtime labels a
/// controller's queue), `workqueue_depth` also `priority` (empty).
///
/// Families (text names as exposed):
///
/// | name | type | meaning |
/// |---|---|---|
/// | `workqueue_depth` | gauge | items added and not yet handed out |
/// | `workqueue_adds_total` | counter | adds that were not duplicates |
/// | `workqueue_queue_duration_seconds` | histogram | time from add to `get` |
/// | `workqueue_work_duration_seconds` | histogram | time from `get` to `done` |
/// | `workqueue_unfinished_work_seconds` | gauge | summed age of work in progress |
/// | `workqueue_longest_running_processor_seconds` | gauge | age of the oldest work in progress |
/// | `workqueue_retries_total` | counter | calls to `add_after` (and so `add_rate_limited`), as client-go counts them |
///
/// Durations are read from Tokio's clock, so tests with paused time see exact
/// values. Queues sharing a name share their series (gauges and counts are
/// summed, the longest processor is the longest of them). When a queue is
/// dropped its gauges leave the exposition and its counters and histograms
/// stay, so they never go back.
#[derive(Debug, Clone)]
pub struct WorkQueueMetrics {
    collector: Arc<QueueCollector>,
}

impl WorkQueueMetrics {
    /// Creates the families and registers them into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let collector = Arc::<QueueCollector>::default();
        registry.register_collector(Box::new(Arc::clone(&collector)));
        Self { collector }
    }

    /// Reports the queue called `name`, read through `source` at every
    /// scrape for as long as the queue holds `source` too.
    pub(super) fn track(&self, name: &str, source: Arc<dyn QueueSource>) {
        let labels = QueueLabels::of(name);
        self.collector.track(labels, source);
    }
}
