//! [`ControllerMetrics`]: reconcile counts, errors, panics, durations and
//! workers under controller-runtime's names, labelled by controller, plus
//! the controller's work queue metrics.

use std::fmt;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::duration_histogram::DurationHistogram;
use crate::workqueue::WorkQueueMetrics;

/// How one reconcile ended.
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
    /// The `result` label of `controller_runtime_reconcile_total`, as
    /// controller-runtime labels the same outcome: `success`, `error`,
    /// `requeue_after` (kubegen's requeues always name a delay), and
    /// `error` for a panic too (a recovered panic is an error there; it is
    /// also counted in `controller_runtime_reconcile_panics_total`).
    pub fn as_str(self) -> &'static str {
        match self {
            ReconcileResult::Success => "success",
            ReconcileResult::Error | ReconcileResult::Panic => "error",
            ReconcileResult::Requeue => "requeue_after",
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

/// Bucket bounds of `controller_runtime_reconcile_time_seconds`, 5 ms to
/// 60 s, controller-runtime's.
const DURATION_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

/// The `result` labels controller-runtime gives every controller a
/// series of from its start.
const RESULTS: [&str; 4] = ["error", "requeue_after", "requeue", "success"];

fn duration_histogram() -> DurationHistogram {
    DurationHistogram::new(DURATION_BUCKETS)
}

/// The controller metric families, under controller-runtime's names,
/// types, labels and buckets (so its dashboards and alerts read them),
/// registered once into the shared [`Registry`] and shared by any number of
/// controllers (each reports under its own `controller` label):
///
/// | name | type | meaning |
/// |---|---|---|
/// | `controller_runtime_reconcile_total{controller, result}` | counter | reconciles, by result (see [`ReconcileResult::as_str`]) |
/// | `controller_runtime_reconcile_errors_total{controller}` | counter | reconciles that failed or panicked |
/// | `controller_runtime_terminal_reconcile_errors_total{controller}` | counter | always 0: kubegen retries every error |
/// | `controller_runtime_reconcile_panics_total{controller}` | counter | reconciles that panicked |
/// | `controller_runtime_reconcile_time_seconds{controller}` | histogram | time spent in the reconcile function |
/// | `controller_runtime_max_concurrent_reconciles{controller}` | gauge | the controller's workers |
/// | `controller_runtime_active_workers{controller}` | gauge | workers reconciling right now |
///
/// As controller-runtime, each series exists from the controller's start
/// (counters at 0). Each controller's work queue is named after the
/// controller and reports into [`workqueue`](ControllerMetrics::workqueue)
/// (`workqueue_adds_total{name="<controller>",controller="<controller>"}`,
/// ...). Not kept from controller-runtime:
/// `controller_runtime_reconcile_timeouts_total`, as kubegen puts no
/// timeout around a reconcile.
#[derive(Debug, Clone)]
pub struct ControllerMetrics {
    reconciles: Family<ResultLabels, Counter>,
    errors: Family<ControllerLabel, Counter>,
    terminal_errors: Family<ControllerLabel, Counter>,
    panics: Family<ControllerLabel, Counter>,
    duration: Family<ControllerLabel, DurationHistogram, fn() -> DurationHistogram>,
    max_concurrent: Family<ControllerLabel, Gauge>,
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
            terminal_errors: Family::default(),
            panics: Family::default(),
            duration: Family::new_with_constructor(duration_histogram),
            max_concurrent: Family::default(),
            active_workers: Family::default(),
            workqueue,
        };
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            metrics.reconciles.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            metrics.errors.clone(),
        );
        registry.register(
            "controller_runtime_terminal_reconcile_errors",
            "Total number of terminal reconciliation errors per controller",
            metrics.terminal_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            metrics.panics.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            metrics.duration.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            metrics.max_concurrent.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            metrics.active_workers.clone(),
        );
        metrics
    }

    /// The work queue metrics the controllers' queues report into.
    pub fn workqueue(&self) -> &WorkQueueMetrics {
        &self.workqueue
    }

    /// The reconciles of `controller` that ended with `result` so far
    /// (for [`ReconcileResult::Error`], panics included, as the `error`
    /// label counts them; for [`ReconcileResult::Panic`], panics only).
    pub fn reconciles(&self, controller: &str, result: ReconcileResult) -> u64 {
        match result {
            ReconcileResult::Panic => self.panics.get_or_create(&label(controller)).get(),
            _ => self
                .reconciles
                .get_or_create(&result_labels(controller, result.as_str()))
                .get(),
        }
    }

    /// The failed or panicked reconciles of `controller` so far.
    pub fn errors(&self, controller: &str) -> u64 {
        self.errors.get_or_create(&label(controller)).get()
    }

    /// How many workers of `controller` are reconciling right now.
    pub fn active_workers(&self, controller: &str) -> i64 {
        self.active_workers.get_or_create(&label(controller)).get()
    }

    /// The series of the controller called `controller`, which runs
    /// `workers` workers; every one exists from now on.
    pub(super) fn series(&self, controller: &str, workers: usize) -> Series {
        let counter = |result| {
            self.reconciles
                .get_or_create_owned(&result_labels(controller, result))
        };
        for result in RESULTS {
            counter(result);
        }
        let _ = self.terminal_errors.get_or_create(&label(controller));
        self.max_concurrent
            .get_or_create(&label(controller))
            .set(i64::try_from(workers).unwrap_or(i64::MAX));
        Series {
            success: counter("success"),
            error: counter("error"),
            requeue_after: counter("requeue_after"),
            panics: self.panics.get_or_create_owned(&label(controller)),
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

fn result_labels(controller: &str, result: &str) -> ResultLabels {
    ResultLabels {
        controller: controller.to_owned(),
        result: result.to_owned(),
    }
}

/// One controller's handles on its series.
#[derive(Debug, Clone)]
pub(super) struct Series {
    success: Counter,
    error: Counter,
    requeue_after: Counter,
    panics: Counter,
    errors: Counter,
    duration: DurationHistogram,
    active_workers: Gauge,
}

impl Series {
    /// Counts one finished reconcile that took `elapsed`.
    pub(super) fn record(&self, result: ReconcileResult, elapsed: Duration) {
        let counters: &[&Counter] = match result {
            ReconcileResult::Success => &[&self.success],
            ReconcileResult::Requeue => &[&self.requeue_after],
            ReconcileResult::Error => &[&self.error, &self.errors],
            ReconcileResult::Panic => &[&self.error, &self.errors, &self.panics],
        };
        for counter in counters {
            counter.inc();
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
