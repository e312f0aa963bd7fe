//! [`DurationHistogram`]: a Prometheus histogram of durations that records
//! without a lock, for the hot paths (work queue waits and work, reconciles,
//! webhook calls).
//!
//! `prometheus_client`'s own `Histogram` takes a mutex on every
//! observation, so workers that finish items at the same moment queue up
//! behind each other. Here an observation is two relaxed atomic additions:
//! one to its bucket and one to the sum, kept in whole nanoseconds so that
//! it is exact and needs no compare-and-swap loop (client_golang keeps a
//! float sum and retries). The count is the sum of the buckets, so
//! `_count` always equals the `+Inf` bucket, as Prometheus requires; a
//! scrape running beside observations may see the sum of a slightly
//! different set of them, as with client_golang's histograms.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// A histogram of durations with fixed upper bounds in seconds (plus the
/// implicit `+Inf`). Clones share their series.
#[derive(Debug, Clone)]
pub struct DurationHistogram {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Finite, strictly increasing upper bounds, in seconds.
    bounds: Box<[f64]>,
    /// Observations per bucket, not cumulative; one more than `bounds`
    /// (the last is `+Inf`).
    counts: Box<[AtomicU64]>,
    /// Sum of every observation, in nanoseconds.
    sum_nanos: AtomicU64,
}

impl DurationHistogram {
    /// A histogram with these upper bounds, in seconds. Bounds that are
    /// not finite are left out (`+Inf` is always there), as
    /// `prometheus_client` and client_golang do.
    pub fn new(bounds: impl IntoIterator<Item = f64>) -> Self {
        let bounds: Box<[f64]> = bounds.into_iter().filter(|b| b.is_finite()).collect();
        debug_assert!(
            bounds.windows(2).all(|w| w[0] < w[1]),
            "histogram bounds must increase"
        );
        let counts = (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect();
        DurationHistogram {
            inner: Arc::new(Inner {
                bounds,
                counts,
                sum_nanos: AtomicU64::new(0),
            }),
        }
    }

    /// Records one observation of `elapsed`.
    pub fn observe(&self, elapsed: Duration) {
        let inner = &*self.inner;
        inner.counts[bucket_of(&inner.bounds, elapsed)].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        inner.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// Sum in seconds, count, and per-bucket (not cumulative) counts with
    /// their upper bounds, `+Inf` last.
    fn snapshot(&self) -> (f64, u64, Vec<(f64, u64)>) {
        let inner = &*self.inner;
        let counts = inner.counts.iter().map(|c| c.load(Ordering::Relaxed));
        let sum = Duration::from_nanos(inner.sum_nanos.load(Ordering::Relaxed));
        exposition(&inner.bounds, counts, sum)
    }
}

/// The bucket `elapsed` falls in: the first whose upper bound (in seconds)
/// is at least `elapsed`, or `bounds.len()` (`+Inf`).
pub fn bucket_of(bounds: &[f64], elapsed: Duration) -> usize {
    let seconds = elapsed.as_secs_f64();
    bounds.partition_point(|&bound| bound < seconds)
}

/// What a histogram encoder takes: the sum in seconds, the count, and the
/// per-bucket counts (one per bound, then `+Inf`) beside their bounds.
/// The count is the sum of the buckets.
pub fn exposition(
    bounds: &[f64],
    counts: impl IntoIterator<Item = u64>,
    sum: Duration,
) -> (f64, u64, Vec<(f64, u64)>) {
    let buckets: Vec<(f64, u64)> = bounds
        .iter()
        .copied()
        .chain(std::iter::once(f64::INFINITY))
        .zip(counts)
        .collect();
    let count = buckets.iter().map(|&(_, n)| n).sum();
    (sum.as_secs_f64(), count, buckets)
}

/// Encodes a histogram from [`exposition`]'s parts.
pub fn encode_histogram(
    encoder: &mut MetricEncoder<'_>,
    (sum, count, buckets): (f64, u64, Vec<(f64, u64)>),
) -> Result<(), std::fmt::Error> {
    encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
}

impl TypedMetric for DurationHistogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for DurationHistogram {
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), std::fmt::Error> {
        encode_histogram(&mut encoder, self.snapshot())
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::encoding::text::encode;
    use prometheus_client::metrics::histogram::Histogram;
    use prometheus_client::registry::Registry;

    /// The text exposition of `metric` registered alone as `latency`.
    fn exposition(
        metric: impl EncodeMetric + TypedMetric + std::fmt::Debug + Send + Sync + 'static,
    ) -> String {
        let mut registry = Registry::default();
        registry.register("latency", "test", metric);
        let mut text = String::new();
        encode(&mut text, &registry).expect("encodes");
        text
    }

    /// Durations that each land exactly on a bound, just above one, below
    /// the first, and above the last.
    fn samples() -> Vec<Duration> {
        vec![
            Duration::from_nanos(1),
            Duration::from_millis(5),
            Duration::from_nanos(5_000_001),
            Duration::from_millis(10),
            Duration::from_millis(250),
            Duration::from_secs(60),
            Duration::from_secs(61),
            Duration::from_secs(3_600),
        ]
    }

    const BOUNDS: [f64; 6] = [0.005, 0.01, 0.1, 0.25, 1.0, 60.0];

    #[test]
    fn exposes_what_prometheus_clients_own_histogram_exposes() {
        let ours = DurationHistogram::new(BOUNDS);
        let theirs = Histogram::new(BOUNDS);
        for sample in samples() {
            ours.observe(sample);
            theirs.observe(sample.as_secs_f64());
        }
        // The sums differ in their last digits: ours adds whole
        // nanoseconds, theirs floats.
        let without_sum = |text: String| {
            text.lines()
                .filter(|l| !l.starts_with("latency_sum"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let text = exposition(ours);
        let sum: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("latency_sum "))
            .and_then(|v| v.parse().ok())
            .expect("a sum line");
        let exact: Duration = samples().into_iter().sum();
        assert_eq!(sum, exact.as_secs_f64(), "{text}");
        assert_eq!(without_sum(text), without_sum(exposition(theirs)));
    }

    #[test]
    fn clones_share_series_and_concurrent_observations_are_all_counted() {
        let histogram = DurationHistogram::new(BOUNDS);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                let histogram = histogram.clone();
                scope.spawn(move || {
                    for _ in 0..10_000 {
                        histogram.observe(Duration::from_millis(7));
                    }
                });
            }
        });
        let (sum, count, buckets) = histogram.snapshot();
        assert_eq!(count, 40_000);
        assert_eq!(buckets[1], (0.01, 40_000));
        assert_eq!(sum, 280.0);
    }

    #[test]
    fn non_finite_bounds_are_left_out() {
        let histogram = DurationHistogram::new([0.5, f64::NAN, f64::INFINITY]);
        histogram.observe(Duration::from_secs(1));
        let (_, _, buckets) = histogram.snapshot();
        assert_eq!(buckets, vec![(0.5, 0), (f64::INFINITY, 1)]);
    }
}
