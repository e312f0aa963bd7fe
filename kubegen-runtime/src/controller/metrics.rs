//! [`ControllerMetrics`]: reconcile counts, errors, durations and busy
//! workers, labelled by controller, plus the controller's work queue metrics.

use std::fmt;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::duration_histogram::DurationHistogram;
use crate::workqueue::WorkQueueMetrics;

/// How one reconcile ended, the `result` label of `reconcile_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReconcileResult {
    /// Succeeded with [`Action::done`](super::Action::done).
    Success,
    /// Returned an error; the key is retried with backoff.
    Error,
    /// Succeeded with [`Action::requeue_after`](super::Action::requeue_after).
    Requeue,
    /// Panicked; the panic was caught and the key is retried with backoff.
    Panic,
}

impl ReconcileResult {
    /// The label value: `success`, `error`, `requeue` or `panic`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReconcileResult::Success => "success",
            ReconcileResult::Error => "error",
            ReconcileResult::Requeue => "requeue",
            ReconcileResult::Panic => "panic",
        }
    }
}

impl fmt::Display for ReconcileResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabel {
    controller: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

/// Bucket bounds of `reconcile_duration_seconds`, 5 ms to 60 s (as
/// controller-runtime's).
const DURATION_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0,
];

fn duration_histogram() -> DurationHistogram {
    DurationHistogram::new(DURATION_BUCKETS)
}

/// The controller metric families, registered once into the shared
/// [`Registry`] and shared by any number of controllers (each reports under
/// its own `controller` label):
///
/// | name | type | meaning |
/// |---|---|---|
/// | `reconcile_total{controller, result}` | counter | reconciles, by [`ReconcileResult`] |
/// | `reconcile_errors_total{controller}` | counter | reconciles that failed or panicked |
/// | `reconcile_duration_seconds{controller}` | histogram | time spent in the reconcile function |
/// | `active_workers{controller}` | gauge | workers reconciling right now |
///
/// Each controller's work queue is named after the controller and reports
/// into [`workqueue`](ControllerMetrics::workqueue)
/// (`workqueue_adds_total{name="<controller>"}`, ...).
#[derive(Debug, Clone)]
pub struct ControllerMetrics {
    reconciles: Family<ResultLabels, Counter>,
    errors: Family<ControllerLabel, Counter>,
    duration: Family<ControllerLabel, DurationHistogram, fn() -> DurationHistogram>,
    active_workers: Family<ControllerLabel, Gauge>,
    workqueue: WorkQueueMetrics,
}

impl ControllerMetrics {
    /// Registers the controller families and the work queue families
    /// ([`WorkQueueMetrics::register`]) into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let workqueue = WorkQueueMetrics::register(registry);
        Self::register_with_workqueue(registry, workqueue)
    }

    /// Registers the controller families into `registry` and reports the
    /// work queues into `workqueue`, already registered (a registry must
    /// hold each family once).
    pub fn register_with_workqueue(registry: &mut Registry, workqueue: WorkQueueMetrics) -> Self {
        let metrics = ControllerMetrics {
            reconciles: Family::default(),
            errors: Family::default(),
            duration: Family::new_with_constructor(duration_histogram),
            active_workers: Family::default(),
            workqueue,
        };
        registry.register(
            "reconcile",
            "Total number of reconciliations per controller and result",
            metrics.reconciles.clone(),
        );
        registry.register(
            "reconcile_errors",
            "Total number of reconciliation errors (panics included) per controller",
            metrics.errors.clone(),
        );
        registry.register(
            "reconcile_duration_seconds",
            "Time spent in the reconcile function per controller",
            metrics.duration.clone(),
        );
        registry.register(
            "active_workers",
            "Number of workers reconciling right now per controller",
            metrics.active_workers.clone(),
        );
        metrics
    }

    /// The work queue metrics the controllers' queues report into.
    pub fn workqueue(&self) -> &WorkQueueMetrics {
        &self.workqueue
    }

    /// The reconciles of `controller` that ended with `result` so far.
    pub fn reconciles(&self, controller: &str, result: ReconcileResult) -> u64 {
        self.reconciles
            .get_or_create(&result_labels(controller, result))
            .get()
    }

    /// The failed or panicked reconciles of `controller` so far.
    pub fn errors(&self, controller: &str) -> u64 {
        self.errors.get_or_create(&label(controller)).get()
    }

    /// How many workers of `controller` are reconciling right now.
    pub fn active_workers(&self, controller: &str) -> i64 {
        self.active_workers.get_or_create(&label(controller)).get()
    }

    /// The series of the controller called `controller`.
    pub(super) fn series(&self, controller: &str) -> Series {
        let counter = |result| {
            self.reconciles
                .get_or_create_owned(&result_labels(controller, result))
        };
        Series {
            success: counter(ReconcileResult::Success),
            error: counter(ReconcileResult::Error),
            requeue: counter(ReconcileResult::Requeue),
            panic: counter(ReconcileResult::Panic),
            errors: self.errors.get_or_create_owned(&label(controller)),
            duration: self.duration.get_or_create_owned(&label(controller)),
            active_workers: self.active_workers.get_or_create_owned(&label(controller)),
        }
    }
}

fn label(controller: &str) -> ControllerLabel {
    ControllerLabel {
        controller: controller.to_owned(),
    }
}

fn result_labels(controller: &str, result: ReconcileResult) -> ResultLabels {
    ResultLabels {
        controller: controller.to_owned(),
        result: result.as_str().to_owned(),
    }
}

/// One controller's handles on its series.
#[derive(Debug, Clone)]
pub(super) struct Series {
    success: Counter,
    error: Counter,
    requeue: Counter,
    panic: Counter,
    errors: Counter,
    duration: DurationHistogram,
    active_workers: Gauge,
}

impl Series {
    /// Counts one finished reconcile that took `elapsed`.
    pub(super) fn record(&self, result: ReconcileResult, elapsed: Duration) {
        let counter = match result {
            ReconcileResult::Success => &self.success,
            ReconcileResult::Error => &self.error,
            ReconcileResult::Requeue => &self.requeue,
            ReconcileResult::Panic => &self.panic,
        };
        counter.inc();
        if matches!(result, ReconcileResult::Error | ReconcileResult::Panic) {
            self.errors.inc();
        }
        self.duration.observe(elapsed);
    }

    /// Counts one more busy worker until the guard is dropped (also when
    /// the reconcile is cancelled).
    pub(super) fn busy(&self) -> BusyGuard {
        self.active_workers.inc();
        BusyGuard(self.active_workers.clone())
    }
}

/// Decrements `active_workers` when dropped.
#[derive(Debug)]
pub(super) struct BusyGuard(Gauge);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}
