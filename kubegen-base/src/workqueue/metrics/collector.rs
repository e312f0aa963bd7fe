//! [`QueueCollector`]: writes every `workqueue_*` family at scrape time
//! from the queues' own counts, read under each queue's lock.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use tokio::time::Instant;

use super::labels::QueueLabels;
use super::stats::QueueStats;

/// One queue at one instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::workqueue) struct QueueSnapshot {
    /// Items added and not yet handed out (client-go's dirty set).
    pub(in crate::workqueue) depth: u64,
    /// Sum of the ages of the items being processed, in seconds.
    pub(in crate::workqueue) unfinished_seconds: f64,
    /// Age of the oldest item being processed, in seconds.
    pub(in crate::workqueue) longest_seconds: f64,
    /// The cumulative counts.
    pub(in crate::workqueue) stats: QueueStats,
}

impl QueueSnapshot {
    /// Folds another queue of the same name into this one: gauges and
    /// counts are summed, the longest processor is the longer one.
    fn merge(&mut self, other: &QueueSnapshot) {
        self.depth += other.depth;
        self.unfinished_seconds += other.unfinished_seconds;
        self.longest_seconds = self.longest_seconds.max(other.longest_seconds);
        self.stats.merge(&other.stats);
    }
}

/// Something that can tell its state: a queue's locked state.
pub(in crate::workqueue) trait QueueSource: Send + Sync {
    /// The queue as of `now`.
    fn snapshot(&self, now: Instant) -> QueueSnapshot;
}

/// The queues reported, and the counts of those that are gone.
#[derive(Default)]
pub(super) struct QueueCollector {
    inner: Mutex<Tracked>,
}

#[derive(Default)]
struct Tracked {
    /// Live queues. The collector shares each queue's state; once it is
    /// the only holder the queue is gone (its handles dropped).
    live: Vec<(QueueLabels, Arc<dyn QueueSource>)>,
    /// Counts of queues that are gone, so that counters and histograms
    /// never go back when a queue is dropped (its gauges do leave).
    retired: BTreeMap<QueueLabels, QueueStats>,
}

impl Tracked {
    /// Moves the counts of queues nobody else holds to `retired`.
    fn retire_gone(&mut self, now: Instant) {
        let retired = &mut self.retired;
        self.live.retain(|(labels, source)| {
            if Arc::strong_count(source) > 1 {
                return true;
            }
            let last = source.snapshot(now);
            retired
                .entry(labels.clone())
                .or_default()
                .merge(&last.stats);
            false
        });
    }
}

impl fmt::Debug for QueueCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.inner.lock();
        f.debug_struct("QueueCollector")
            .field("live", &inner.live.len())
            .field("retired", &inner.retired.len())
            .finish()
    }
}

impl QueueCollector {
    /// Reports `source` under `labels` for as long as anyone else holds it.
    pub(super) fn track(&self, labels: QueueLabels, source: Arc<dyn QueueSource>) {
        let mut inner = self.inner.lock();
        inner.retire_gone(Instant::now());
        inner.live.push((labels, source));
    }

    /// Every queue name's values: live queues of that name summed, plus
    /// the counts of those gone.
    fn snapshot(&self) -> BTreeMap<QueueLabels, (QueueSnapshot, bool)> {
        let now = Instant::now();
        let mut inner = self.inner.lock();
        inner.retire_gone(now);
        let mut per_queue = BTreeMap::<QueueLabels, (QueueSnapshot, bool)>::new();
        for (labels, stats) in &inner.retired {
            per_queue
                .entry(labels.clone())
                .or_default()
                .0
                .stats
                .merge(stats);
        }
        for (labels, source) in &inner.live {
            let (entry, live) = per_queue.entry(labels.clone()).or_default();
            entry.merge(&source.snapshot(now));
            *live = true;
        }
        per_queue
    }
}

/// Writes one family with a value per queue, through `encode`.
fn encode_family<'a>(
    encoder: &mut DescriptorEncoder<'_>,
    (name, help, kind): (&str, &str, MetricType),
    values: impl Iterator<Item = (&'a QueueLabels, &'a QueueSnapshot)>,
    encode: impl Fn(&QueueSnapshot, MetricEncoder<'_>) -> fmt::Result,
) -> fmt::Result {
    let mut family = encoder.encode_descriptor(name, help, None, kind)?;
    for (labels, snapshot) in values {
        encode(snapshot, family.encode_family(labels)?)?;
    }
    Ok(())
}

impl Collector for QueueCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        let all = || snapshot.iter().map(|(labels, (s, _))| (labels, s));
        // Gauges describe queues that exist; a gone queue has none.
        let live = || {
            snapshot
                .iter()
                .filter(|(_, (_, live))| *live)
                .map(|(labels, (s, _))| (labels, s))
        };
        let mut depth = encoder.encode_descriptor(
            "workqueue_depth",
            "Current depth of workqueue by workqueue and priority",
            None,
            MetricType::Gauge,
        )?;
        for (labels, s) in live() {
            let depth_now = i64::try_from(s.depth).unwrap_or(i64::MAX);
            ConstGauge::new(depth_now).encode(depth.encode_family(&labels.depth())?)?;
        }
        encode_family(
            &mut encoder,
            (
                "workqueue_adds",
                "Total number of adds handled by workqueue",
                MetricType::Counter,
            ),
            all(),
            |s, e| ConstCounter::new(s.stats.adds).encode(e),
        )?;
        encode_family(
            &mut encoder,
            (
                "workqueue_queue_duration_seconds",
                "How long in seconds an item stays in workqueue before being requested",
                MetricType::Histogram,
            ),
            all(),
            |s, mut e| s.stats.queue_duration.encode(&mut e),
        )?;
        encode_family(
            &mut encoder,
            (
                "workqueue_work_duration_seconds",
                "How long in seconds processing an item from workqueue takes",
                MetricType::Histogram,
            ),
            all(),
            |s, mut e| s.stats.work_duration.encode(&mut e),
        )?;
        encode_family(
            &mut encoder,
            (
                "workqueue_retries",
                "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
                MetricType::Counter,
            ),
            all(),
            |s, e| ConstCounter::new(s.stats.retries).encode(e),
        )?;
        encode_family(
            &mut encoder,
            (
                "workqueue_unfinished_work_seconds",
                "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
                MetricType::Gauge,
            ),
            live(),
            |s, e| ConstGauge::new(s.unfinished_seconds).encode(e),
        )?;
        encode_family(
            &mut encoder,
            (
                "workqueue_longest_running_processor_seconds",
                "How many seconds has the longest running processor for workqueue been running.",
                MetricType::Gauge,
            ),
            live(),
            |s, e| ConstGauge::new(s.longest_seconds).encode(e),
        )
    }
}
