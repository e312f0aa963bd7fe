//! Prometheus metrics of work queues under client-go's `workqueue_*` names.
//!
//! Counters, the depth gauge and the histograms are updated as the queue
//! works. `workqueue_unfinished_work_seconds` and
//! `workqueue_longest_running_processor_seconds` are computed when the registry
//! is encoded (a custom collector reads the start times of the items being
//! processed), so they are exact at every scrape with no refresh task.

mod in_flight;
mod labels;

use std::sync::{Arc, Weak};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use in_flight::InFlightCollector;
pub(super) use in_flight::{InFlight, InFlightSource};
use labels::QueueLabels;

/// Bucket bounds of the duration histograms: 10 ns to 10 s, one per decade,
/// as client-go's `ExponentialBuckets(10e-9, 10, 10)`.
const DURATION_BUCKETS: [f64; 10] = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// A histogram with [`DURATION_BUCKETS`].
fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// Histogram families built with [`duration_histogram`].
type DurationFamily = Family<QueueLabels, Histogram, fn() -> Histogram>;

/// The work queue metric families, registered once into a
/// [`Registry`] and shared by any number of queues (each labelled `name`).
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
/// | `workqueue_retries_total` | counter | calls to `add_rate_limited` |
///
/// Durations are read from Tokio's clock, so tests with paused time see exact
/// values. Queues sharing a name share their series (the two in-progress
/// gauges are then summed, respectively maxed, over those queues).
#[derive(Debug, Clone)]
pub struct WorkQueueMetrics {
    depth: Family<QueueLabels, Gauge>,
    adds: Family<QueueLabels, Counter>,
    queue_duration: DurationFamily,
    work_duration: DurationFamily,
    retries: Family<QueueLabels, Counter>,
    in_flight: Arc<InFlightCollector>,
}

impl WorkQueueMetrics {
    /// Creates the families and registers them into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self {
            depth: Family::default(),
            adds: Family::default(),
            queue_duration: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
            retries: Family::default(),
            in_flight: Arc::default(),
        };
        registry.register(
            "workqueue_depth",
            "Current depth of workqueue",
            metrics.depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            metrics.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            metrics.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            metrics.work_duration.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            metrics.retries.clone(),
        );
        registry.register_collector(Box::new(metrics.in_flight.clone()));
        metrics
    }

    /// The series of the queue called `name`; its in-progress work is read
    /// through `source` at every scrape, for as long as `source` lives.
    pub(super) fn for_queue(&self, name: &str, source: Weak<dyn InFlightSource>) -> QueueMetrics {
        let labels = QueueLabels {
            name: name.to_owned(),
        };
        self.in_flight.track(labels.clone(), source);
        QueueMetrics {
            depth: self.depth.get_or_create_owned(&labels),
            adds: self.adds.get_or_create_owned(&labels),
            queue_duration: self.queue_duration.get_or_create_owned(&labels),
            work_duration: self.work_duration.get_or_create_owned(&labels),
            retries: self.retries.get_or_create_owned(&labels),
        }
    }
}

/// One queue's handles on its series.
#[derive(Debug)]
pub(super) struct QueueMetrics {
    /// `workqueue_depth`.
    pub(super) depth: Gauge,
    /// `workqueue_adds_total`.
    pub(super) adds: Counter,
    /// `workqueue_queue_duration_seconds`.
    pub(super) queue_duration: Histogram,
    /// `workqueue_work_duration_seconds`.
    pub(super) work_duration: Histogram,
    /// `workqueue_retries_total`.
    pub(super) retries: Counter,
}
