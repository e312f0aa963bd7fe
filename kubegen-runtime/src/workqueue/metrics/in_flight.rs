//! The scrape-time collector of the two in-progress gauges.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Weak;

use parking_lot::Mutex;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use tokio::time::Instant;

use super::labels::QueueLabels;

/// Work in progress in one queue at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(in crate::workqueue) struct InFlight {
    /// Sum of the ages of the items being processed, in seconds.
    pub(in crate::workqueue) total_seconds: f64,
    /// Age of the oldest item being processed, in seconds.
    pub(in crate::workqueue) longest_seconds: f64,
}

/// Something that can tell its work in progress: a queue.
pub(in crate::workqueue) trait InFlightSource: Send + Sync {
    /// The work in progress as of `now`.
    fn in_flight(&self, now: Instant) -> InFlight;
}

/// Computes `workqueue_unfinished_work_seconds` and
/// `workqueue_longest_running_processor_seconds` from the live queues.
#[derive(Default)]
pub(super) struct InFlightCollector {
    sources: Mutex<Vec<(QueueLabels, Weak<dyn InFlightSource>)>>,
}

impl fmt::Debug for InFlightCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InFlightCollector")
            .field("sources", &self.sources.lock().len())
            .finish()
    }
}

impl InFlightCollector {
    /// Reports `source` under `labels` until it is dropped.
    pub(super) fn track(&self, labels: QueueLabels, source: Weak<dyn InFlightSource>) {
        self.sources.lock().push((labels, source));
    }

    /// Current values per queue name, forgetting dropped queues.
    fn snapshot(&self) -> BTreeMap<QueueLabels, InFlight> {
        let now = Instant::now();
        let mut per_queue = BTreeMap::<QueueLabels, InFlight>::new();
        self.sources.lock().retain(|(labels, source)| {
            let Some(source) = source.upgrade() else {
                return false;
            };
            let work = source.in_flight(now);
            let entry = per_queue.entry(labels.clone()).or_default();
            entry.total_seconds += work.total_seconds;
            entry.longest_seconds = entry.longest_seconds.max(work.longest_seconds);
            true
        });
        per_queue
    }
}

/// Writes one gauge family with a value per queue.
fn encode_gauges(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    values: impl Iterator<Item = (QueueLabels, f64)>,
) -> fmt::Result {
    let mut family = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in values {
        ConstGauge::new(value).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

impl Collector for InFlightCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        encode_gauges(
            &mut encoder,
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
            snapshot
                .iter()
                .map(|(labels, work)| (labels.clone(), work.total_seconds)),
        )?;
        encode_gauges(
            &mut encoder,
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running.",
            snapshot
                .into_iter()
                .map(|(labels, work)| (labels, work.longest_seconds)),
        )
    }
}
