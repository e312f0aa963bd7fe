//! [`QueueStats`]: what one queue counts for its metrics. It lives beside
//! the queue's state, under the queue's own lock, so recording is a few
//! plain additions inside a critical section the queue takes anyway — no
//! atomics shared between threads on the hot path — and the collector
//! reads it at scrape time.

use std::time::Duration;

use prometheus_client::encoding::MetricEncoder;

use crate::duration_histogram::{bucket_of, encode_histogram, exposition};

/// Bucket bounds of the duration histograms: 10 ns to 1,000 s, one per
/// decade, as controller-runtime's `ExponentialBuckets(10e-9, 10, 12)`.
const DURATION_BUCKETS: [f64; 12] = [
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0,
];

/// One duration histogram's counts with [`DURATION_BUCKETS`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::workqueue) struct Tally {
    /// Per bucket, not cumulative; the last is `+Inf`.
    counts: [u64; DURATION_BUCKETS.len() + 1],
    /// Exact sum of the observations.
    sum: Duration,
}

impl Tally {
    /// Records one observation.
    pub(in crate::workqueue) fn record(&mut self, elapsed: Duration) {
        self.counts[bucket_of(&DURATION_BUCKETS, elapsed)] += 1;
        self.sum = self.sum.saturating_add(elapsed);
    }

    /// Adds `other`'s observations to these.
    fn merge(&mut self, other: &Tally) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
        self.sum = self.sum.saturating_add(other.sum);
    }

    /// Writes the histogram.
    pub(super) fn encode(&self, encoder: &mut MetricEncoder<'_>) -> std::fmt::Result {
        encode_histogram(
            encoder,
            exposition(&DURATION_BUCKETS, self.counts, self.sum),
        )
    }
}

/// The cumulative counts of one queue: counters and histograms, which
/// outlive the queue in the exposition (gauges do not).
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::workqueue) struct QueueStats {
    /// `workqueue_adds_total`: adds that were not duplicates.
    pub(in crate::workqueue) adds: u64,
    /// `workqueue_retries_total`: calls to `add_after` (and so
    /// `add_rate_limited`) of a running queue, as client-go's delaying
    /// queue counts them.
    pub(in crate::workqueue) retries: u64,
    /// `workqueue_queue_duration_seconds`: add to `get`.
    pub(in crate::workqueue) queue_duration: Tally,
    /// `workqueue_work_duration_seconds`: `get` to `done`.
    pub(in crate::workqueue) work_duration: Tally,
}

impl QueueStats {
    /// Adds `other`'s counts to these (queues sharing a name share series).
    pub(super) fn merge(&mut self, other: &QueueStats) {
        self.adds += other.adds;
        self.retries += other.retries;
        self.queue_duration.merge(&other.queue_duration);
        self.work_duration.merge(&other.work_duration);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_that_holds_them_and_sum_exactly() {
        let mut tally = Tally::default();
        tally.record(Duration::from_nanos(10)); // on the first bound
        tally.record(Duration::from_nanos(11));
        tally.record(Duration::from_secs(1001)); // beyond the last: +Inf
        assert_eq!(tally.counts[0], 1);
        assert_eq!(tally.counts[1], 1);
        assert_eq!(tally.counts[DURATION_BUCKETS.len()], 1);
        assert_eq!(tally.sum, Duration::from_nanos(1_001_000_000_021));

        let mut merged = tally.clone();
        merged.merge(&tally);
        assert_eq!(merged.counts[1], 2);
        assert_eq!(merged.sum, tally.sum * 2);
    }
}
