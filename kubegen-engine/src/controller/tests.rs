//! Unit tests of the controller machinery without an API server: handlers,
//! predicates, priorities, workers, retries, panics, drain, spans, metrics
//! and signals.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kubegen_client::api::ObjectMeta;
use parking_lot::Mutex;
use prometheus_client::registry::Registry;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::metrics::Series;
use super::source::{MappedHandler, OwnedHandler, OwnerType, PrimaryHandler};
use super::worker::{Worker, fetch_from, run_workers};
use super::*;
use crate::informer::{DeletedObject, EventHandler};
use crate::lister::Lister;
use crate::logging::LogFormat;
use crate::store::ObjectKey;
use crate::workqueue::{ItemExponentialFailure, WorkQueue};

fn cm(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("ns".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn key(name: &str) -> ObjectKey {
    ObjectKey::namespaced("ns", name)
}

fn owner_ref(
    api_version: &str,
    kind: &str,
    name: &str,
    controller: Option<bool>,
) -> OwnerReference {
    OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: name.into(),
        uid: "uid".into(),
        controller,
        block_owner_deletion: None,
    }
}

fn owned(name: &str, references: Vec<OwnerReference>) -> ConfigMap {
    let mut child = cm(name);
    child.metadata.owner_references = Some(references);
    child
}

/// The keys ready on `queue`, taken and marked done.
fn drain(queue: &WorkQueue<ObjectKey>) -> Vec<ObjectKey> {
    let mut keys = Vec::new();
    while let Some(key) = queue.try_get() {
        queue.done(&key);
        keys.push(key);
    }
    keys.sort();
    keys
}

#[test]
fn predicates_compare_metadata() {
    let old = cm("a");
    let mut new = old.clone();
    new.metadata.resource_version = Some("2".into());
    new.metadata.annotations = Some(BTreeMap::from([("a".into(), "1".into())]));
    assert!(Predicate::AnnotationsChanged.matches(&old, &new));
    assert!(Predicate::ResourceVersionChanged.matches(&old, &new));
    assert!(!Predicate::GenerationChanged.matches(&old, &new));
    assert!(!Predicate::LabelsChanged.matches(&old, &new));
    assert!(!Predicate::ResourceVersionChanged.matches(&old, &old));
    let mut empty_labels = old.clone();
    empty_labels.metadata.labels = Some(BTreeMap::new());
    assert!(!Predicate::LabelsChanged.matches(&old, &empty_labels));
    let mut bumped = old.clone();
    bumped.metadata.generation = Some(2);
    assert!(Predicate::GenerationChanged.matches(&old, &bumped));
    let either = Predicate::GenerationChanged | Predicate::LabelsChanged;
    assert!(either.matches(&old, &bumped));
    assert!(!either.matches(&old, &new));
    assert!(
        either
            .clone()
            .or(Predicate::AnnotationsChanged)
            .matches(&old, &new)
    );
    assert!(!Predicate::Any(vec![]).matches(&old, &bumped));
}

#[test]
fn primary_handler_filters_updates_only() {
    let queue = WorkQueue::new("t");
    let handler = PrimaryHandler {
        queue: queue.clone(),
        predicate: Some(Predicate::GenerationChanged),
        tombstones: None,
    };
    let a = Arc::new(cm("a"));
    EventHandler::on_add(&handler, a.clone());
    assert_eq!(drain(&queue), vec![key("a")]);
    let mut changed = cm("a");
    changed.metadata.annotations = Some(BTreeMap::from([("x".into(), "y".into())]));
    handler.on_update(a.clone(), Arc::new(changed));
    assert!(drain(&queue).is_empty());
    let mut bumped = cm("a");
    bumped.metadata.generation = Some(3);
    handler.on_update(a.clone(), Arc::new(bumped));
    assert_eq!(drain(&queue), vec![key("a")]);
    handler.on_delete(DeletedObject::Known(a));
    assert_eq!(drain(&queue), vec![key("a")]);
}

#[test]
fn owner_keys_need_a_controller_reference_of_the_primary_type() {
    let configmaps = OwnerType::of::<ConfigMap>();
    let controlled = owned("c", vec![owner_ref("v1", "ConfigMap", "owner", Some(true))]);
    assert_eq!(configmaps.owner_key(&controlled), Some(key("owner")));
    let not_controller = owned(
        "c",
        vec![owner_ref("v1", "ConfigMap", "owner", Some(false))],
    );
    assert_eq!(configmaps.owner_key(&not_controller), None);
    let unset = owned("c", vec![owner_ref("v1", "ConfigMap", "owner", None)]);
    assert_eq!(configmaps.owner_key(&unset), None);
    let other_kind = owned("c", vec![owner_ref("v1", "Secret", "owner", Some(true))]);
    assert_eq!(configmaps.owner_key(&other_kind), None);
    let other_group = owned(
        "c",
        vec![owner_ref("example.com/v1", "ConfigMap", "o", Some(true))],
    );
    assert_eq!(configmaps.owner_key(&other_group), None);

    let deployments = OwnerType::of::<Deployment>();
    let old_version = owned(
        "c",
        vec![owner_ref("apps/v1beta2", "Deployment", "web", Some(true))],
    );
    assert_eq!(deployments.owner_key(&old_version), Some(key("web")));
    let core_deployment = owned("c", vec![owner_ref("v1", "Deployment", "web", Some(true))]);
    assert_eq!(deployments.owner_key(&core_deployment), None);

    let namespaces = OwnerType::of::<Namespace>();
    let in_namespace = owned("c", vec![owner_ref("v1", "Namespace", "team", Some(true))]);
    assert_eq!(
        namespaces.owner_key(&in_namespace),
        Some(ObjectKey::cluster("team"))
    );
}

#[test]
fn owned_handler_enqueues_owners_on_every_event() {
    let queue = WorkQueue::new("t");
    let handler = OwnedHandler {
        queue: queue.clone(),
        owner: OwnerType::of::<ConfigMap>(),
    };
    let first = Arc::new(owned(
        "c",
        vec![owner_ref("v1", "ConfigMap", "one", Some(true))],
    ));
    let second = Arc::new(owned(
        "c",
        vec![owner_ref("v1", "ConfigMap", "two", Some(true))],
    ));
    handler.on_add(first.clone());
    assert_eq!(drain(&queue), vec![key("one")]);
    handler.on_update(first.clone(), second.clone());
    assert_eq!(drain(&queue), vec![key("one"), key("two")]);
    handler.on_delete(DeletedObject::FinalStateUnknown {
        key: key("c"),
        last_known: second,
    });
    assert_eq!(drain(&queue), vec![key("two")]);
    handler.on_add(Arc::new(cm("orphan")));
    assert!(drain(&queue).is_empty());
}

#[test]
fn mapped_handler_enqueues_mapped_keys_of_old_and_new() {
    let queue = WorkQueue::new("t");
    let handler = MappedHandler::<ConfigMap> {
        queue: queue.clone(),
        mapper: Arc::new(|cm: &ConfigMap| {
            let name = cm.metadata.name.clone().unwrap_or_default();
            vec![key(&format!("{name}-x")), key(&format!("{name}-y"))]
        }),
    };
    handler.on_update(Arc::new(cm("a")), Arc::new(cm("b")));
    assert_eq!(
        drain(&queue),
        vec![key("a-x"), key("a-y"), key("b-x"), key("b-y")]
    );
    handler.on_delete(DeletedObject::Known(Arc::new(cm("c"))));
    assert_eq!(drain(&queue), vec![key("c-x"), key("c-y")]);
}

/// `cm(name)` at resource version `rv`.
fn cm_at(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut object = cm(name);
    object.metadata.resource_version = Some(rv.into());
    Arc::new(object)
}

/// Everything ready on `queue` with its priority, in hand-out order.
async fn take_all(queue: &WorkQueue<ObjectKey>) -> Vec<(ObjectKey, i32)> {
    let mut taken = Vec::new();
    while !queue.is_empty() {
        let (key, priority) = queue.get_with_priority().await.unwrap();
        queue.done(&key);
        taken.push((key, priority));
    }
    taken
}

/// controller-runtime's `WithLowPriorityWhenUnchanged`: keys from the
/// initial state and from resyncs wait behind keys from watch events.
#[tokio::test]
async fn watch_events_overtake_the_initial_list_and_resyncs() {
    let queue: WorkQueue<ObjectKey> = WorkQueue::builder("t").priority_aware().build();
    let handler = PrimaryHandler {
        queue: queue.clone(),
        predicate: None,
        tombstones: None,
    };
    handler.on_initial_add(cm_at("a", "1"));
    handler.on_initial_add(cm_at("b", "1"));
    handler.on_update(cm_at("b", "1"), cm_at("b", "1")); // resync
    handler.on_update(cm_at("e", "1"), cm_at("e", "1")); // resync
    handler.on_update(cm_at("c", "1"), cm_at("c", "2")); // watch: changed
    handler.on_add(cm_at("d", "3")); // watch: created
    assert_eq!(
        take_all(&queue).await,
        vec![
            (key("c"), 0),
            (key("d"), 0),
            (key("a"), LOW_PRIORITY),
            (key("b"), LOW_PRIORITY),
            (key("e"), LOW_PRIORITY),
        ]
    );
    // A watch event raises a key queued by the initial list.
    handler.on_initial_add(cm_at("x", "1"));
    handler.on_initial_add(cm_at("y", "1"));
    handler.on_update(cm_at("x", "1"), cm_at("x", "1"));
    queue.add(key("x"));
    assert_eq!(
        take_all(&queue).await,
        vec![(key("x"), 0), (key("y"), LOW_PRIORITY)]
    );
}

#[tokio::test]
async fn secondary_handlers_lower_the_initial_state_and_resyncs() {
    let queue: WorkQueue<ObjectKey> = WorkQueue::builder("t").priority_aware().build();
    let owned_by = |owner: &str, rv: &str| {
        let mut child = owned("c", vec![owner_ref("v1", "ConfigMap", owner, Some(true))]);
        child.metadata.resource_version = Some(rv.into());
        Arc::new(child)
    };
    let owners = OwnedHandler {
        queue: queue.clone(),
        owner: OwnerType::of::<ConfigMap>(),
    };
    owners.on_initial_add(owned_by("listed", "1"));
    owners.on_update(owned_by("resynced", "1"), owned_by("resynced", "1"));
    owners.on_add(owned_by("created", "2"));
    let mapped = MappedHandler::<ConfigMap> {
        queue: queue.clone(),
        mapper: Arc::new(|cm: &ConfigMap| vec![key(&format!("m-{}", rv_of(cm)))]),
    };
    mapped.on_initial_add(cm_at("any", "1"));
    mapped.on_update(cm_at("any", "2"), cm_at("any", "3"));
    assert_eq!(
        take_all(&queue).await,
        vec![
            (key("created"), 0),
            (key("m-2"), 0),
            (key("m-3"), 0),
            (key("listed"), LOW_PRIORITY),
            (key("resynced"), LOW_PRIORITY),
            (key("m-1"), LOW_PRIORITY),
        ]
    );
}

fn rv_of(cm: &ConfigMap) -> String {
    cm.metadata.resource_version.clone().unwrap_or_default()
}

/// A script of reconcile outcomes and a log of the attempts.
#[derive(Default)]
struct Script {
    attempts: Mutex<Vec<(String, Instant)>>,
    /// Attempts (counted over all keys, from 0) that fail.
    failing: Mutex<Vec<usize>>,
    /// Attempts that panic.
    panicking: Mutex<Vec<usize>>,
    /// How long each reconcile takes.
    sleep: Mutex<Duration>,
    /// The action of a successful reconcile.
    requeue: Mutex<Option<Duration>>,
    /// The priority that action sets.
    requeue_priority: Mutex<Option<i32>>,
}

impl Script {
    fn count(&self) -> usize {
        self.attempts.lock().len()
    }

    fn instants(&self) -> Vec<Instant> {
        self.attempts.lock().iter().map(|(_, at)| *at).collect()
    }

    fn names(&self) -> Vec<String> {
        self.attempts
            .lock()
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    async fn reconcile(self: Arc<Self>, cm: Arc<ConfigMap>) -> Result<Action, String> {
        let attempt = {
            let mut attempts = self.attempts.lock();
            attempts.push((cm.metadata.name.clone().unwrap_or_default(), Instant::now()));
            attempts.len() - 1
        };
        let sleep = *self.sleep.lock();
        if !sleep.is_zero() {
            tokio::time::sleep(sleep).await;
        }
        if self.panicking.lock().contains(&attempt) {
            panic!("scripted panic at attempt {attempt}");
        }
        if self.failing.lock().contains(&attempt) {
            return Err(format!("scripted failure at attempt {attempt}"));
        }
        let action = match *self.requeue.lock() {
            Some(delay) => Action::requeue_after(delay),
            None => Action::done(),
        };
        Ok(match *self.requeue_priority.lock() {
            Some(priority) => action.with_priority(priority),
            None => action,
        })
    }
}

const BASE: Duration = Duration::from_millis(100);

/// A worker over ConfigMaps `names` in namespace `ns`, with a
/// priority-aware queue (as the builder makes) and a backoff starting at
/// [`BASE`], reconciling through `script`.
fn worker(
    names: &[&str],
    script: &Arc<Script>,
    metrics: Option<&ControllerMetrics>,
) -> Arc<Worker> {
    let mut queue = WorkQueue::builder("demo")
        .priority_aware()
        .rate_limiter(ItemExponentialFailure::new(BASE, Duration::from_secs(60)));
    if let Some(metrics) = metrics {
        queue = queue.metrics(metrics.workqueue());
    }
    let script = script.clone();
    Arc::new(Worker {
        name: "demo".into(),
        queue: queue.build(),
        fetch: fetch_from(
            Lister::from_objects(names.iter().map(|n| cm(n))),
            Arc::new(move |obj| Box::pin(script.clone().reconcile(obj))),
        ),
        on_deleted: None,
        metrics: metrics.map(|m| m.series("demo", 1)),
        stopping: AtomicBool::new(false),
        shards: None,
        tombstones: None,
    })
}

/// Runs `count` workers in the background; send on the sender to stop.
fn spawn_workers(
    worker: &Arc<Worker>,
    count: usize,
    deadline: Duration,
) -> (oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(run_workers(worker.clone(), count, deadline, stopped));
    (stop, task)
}

async fn until(mut condition: impl FnMut() -> bool) {
    while !condition() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn failures_back_off_per_key_and_success_resets() {
    let script = Arc::new(Script::default());
    *script.failing.lock() = vec![0, 1, 2, 4];
    let worker = worker(&["a", "b"], &script, None);
    let (stop, task) = spawn_workers(&worker, 2, Duration::from_secs(1));
    worker.queue.add(key("a"));
    until(|| script.count() == 4).await;
    assert_eq!(worker.queue.num_requeues(&key("a")), 0, "success forgets");
    let at = script.instants();
    let gaps: Vec<Duration> = at.windows(2).map(|w| w[1] - w[0]).collect();
    for (gap, expected) in gaps.iter().zip([BASE, BASE * 2, BASE * 4]) {
        assert!(*gap >= expected && *gap < expected + BASE / 2, "{gaps:?}");
    }
    // A new failure starts again from the first delay; another key's
    // backoff is its own.
    worker.queue.add(key("a"));
    until(|| script.count() == 6).await;
    let at = script.instants();
    assert!(at[5] - at[4] >= BASE && at[5] - at[4] < BASE * 2);
    worker.queue.add(key("b"));
    until(|| script.count() == 7).await;
    assert_eq!(worker.queue.num_requeues(&key("b")), 0);
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn requeue_after_schedules_the_next_reconcile() {
    let script = Arc::new(Script::default());
    *script.requeue.lock() = Some(Duration::from_secs(30));
    let metrics = ControllerMetrics::register(&mut Registry::default());
    let worker = worker(&["a"], &script, Some(&metrics));
    let (stop, task) = spawn_workers(&worker, 1, Duration::from_secs(1));
    worker.queue.add(key("a"));
    until(|| script.count() == 2).await;
    let at = script.instants();
    assert!(at[1] - at[0] >= Duration::from_secs(30));
    assert_eq!(metrics.reconciles("demo", ReconcileResult::Requeue), 2);
    assert_eq!(metrics.errors("demo"), 0);
    stop.send(()).unwrap();
    task.await.unwrap();
}

/// controller-runtime requeues at the priority the key was handed out at,
/// unless the result names one.
#[tokio::test(start_paused = true)]
async fn requeues_keep_the_key_priority_unless_the_action_names_one() {
    let script = Arc::new(Script::default());
    *script.failing.lock() = vec![0];
    *script.requeue.lock() = Some(Duration::from_secs(1));
    let worker = worker(&["a", "b"], &script, None);
    worker.process(&key("a"), LOW_PRIORITY).await; // fails: retried after BASE
    worker.process(&key("b"), 7).await; // requeued after 1 s
    tokio::time::advance(Duration::from_secs(1)).await;
    // Both are due; the key handed out at 7 comes first.
    assert_eq!(
        take_all(&worker.queue).await,
        vec![(key("b"), 7), (key("a"), LOW_PRIORITY)]
    );
    *script.requeue_priority.lock() = Some(3);
    worker.process(&key("a"), LOW_PRIORITY).await;
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(take_all(&worker.queue).await, vec![(key("a"), 3)]);
}

#[tokio::test(start_paused = true)]
async fn panics_are_caught_counted_and_retried() {
    let script = Arc::new(Script::default());
    *script.panicking.lock() = vec![0, 1];
    let metrics = ControllerMetrics::register(&mut Registry::default());
    let worker = worker(&["a", "b"], &script, Some(&metrics));
    let (stop, task) = spawn_workers(&worker, 1, Duration::from_secs(1));
    worker.queue.add(key("a"));
    until(|| metrics.reconciles("demo", ReconcileResult::Success) == 1).await;
    // The single worker survived and serves other keys.
    worker.queue.add(key("b"));
    until(|| metrics.reconciles("demo", ReconcileResult::Success) == 2).await;
    assert_eq!(script.names(), ["a", "a", "a", "b"]);
    assert_eq!(metrics.reconciles("demo", ReconcileResult::Panic), 2);
    assert_eq!(metrics.errors("demo"), 2);
    assert_eq!(metrics.active_workers("demo"), 0);
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn deleted_objects_call_the_hook_instead_of_reconciling() {
    let script = Arc::new(Script::default());
    let deleted = Arc::new(Mutex::new(Vec::new()));
    let mut worker = Arc::into_inner(worker(&["a"], &script, None)).unwrap();
    let seen = deleted.clone();
    worker.on_deleted = Some(Arc::new(move |key| {
        seen.lock().push(key);
        Box::pin(async {})
    }));
    worker.process(&key("gone"), 0).await;
    worker.process(&key("a"), 0).await;
    assert_eq!(*deleted.lock(), vec![key("gone")]);
    assert_eq!(script.names(), ["a"]);
}

#[tokio::test(start_paused = true)]
async fn shutdown_lets_in_flight_work_finish_and_starts_nothing_new() {
    let script = Arc::new(Script::default());
    *script.sleep.lock() = Duration::from_secs(1);
    let worker = worker(&["a", "b"], &script, None);
    let (stop, task) = spawn_workers(&worker, 1, Duration::from_secs(30));
    worker.queue.add(key("a"));
    until(|| script.count() == 1).await;
    worker.queue.add(key("b"));
    let signalled = Instant::now();
    stop.send(()).unwrap();
    task.await.unwrap();
    assert!(
        signalled.elapsed() >= Duration::from_millis(999),
        "a finished"
    );
    assert_eq!(script.names(), ["a"], "b was not started");
    assert!(worker.queue.is_shutting_down());
}

#[tokio::test(start_paused = true)]
async fn shutdown_cancels_work_past_the_deadline() {
    let script = Arc::new(Script::default());
    *script.sleep.lock() = Duration::from_secs(3600);
    let metrics = ControllerMetrics::register(&mut Registry::default());
    let worker = worker(&["a"], &script, Some(&metrics));
    let (stop, task) = spawn_workers(&worker, 2, Duration::from_secs(5));
    worker.queue.add(key("a"));
    until(|| script.count() == 1).await;
    assert_eq!(metrics.active_workers("demo"), 1);
    let signalled = Instant::now();
    stop.send(()).unwrap();
    task.await.unwrap();
    let waited = signalled.elapsed();
    assert!(waited >= Duration::from_secs(5) && waited < Duration::from_secs(3600));
    assert_eq!(
        metrics.active_workers("demo"),
        0,
        "the cancelled reconcile is not busy"
    );
}

#[tokio::test(start_paused = true)]
async fn one_key_is_never_reconciled_twice_at_once() {
    struct Tracker {
        in_flight: Mutex<std::collections::HashSet<String>>,
        overlaps: AtomicUsize,
        done: AtomicUsize,
    }
    let tracker = Arc::new(Tracker {
        in_flight: Mutex::default(),
        overlaps: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
    });
    let names = ["a", "b", "c"];
    let t = tracker.clone();
    let worker = Arc::new(Worker {
        name: "demo".into(),
        queue: WorkQueue::new("demo"),
        fetch: fetch_from(
            Lister::from_objects(names.iter().map(|n| cm(n))),
            Arc::new(move |obj: Arc<ConfigMap>| {
                let t = t.clone();
                Box::pin(async move {
                    let name = obj.metadata.name.clone().unwrap_or_default();
                    if !t.in_flight.lock().insert(name.clone()) {
                        t.overlaps.fetch_add(1, Ordering::SeqCst);
                    }
                    tokio::time::sleep(Duration::from_millis(7)).await;
                    t.in_flight.lock().remove(&name);
                    t.done.fetch_add(1, Ordering::SeqCst);
                    Ok(Action::done())
                })
            }),
        ),
        on_deleted: None,
        metrics: None,
        stopping: AtomicBool::new(false),
        shards: None,
        tombstones: None,
    });
    let (stop, task) = spawn_workers(&worker, 4, Duration::from_secs(1));
    for round in 0..200 {
        worker.queue.add(key(names[round % names.len()]));
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    until(|| worker.queue.is_empty() && tracker.in_flight.lock().is_empty()).await;
    assert_eq!(tracker.overlaps.load(Ordering::SeqCst), 0);
    assert!(tracker.done.load(Ordering::SeqCst) > names.len());
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[test]
fn reconciles_run_in_a_span_with_key_and_controller() {
    let script = Arc::new(Script::default());
    *script.failing.lock() = vec![0];
    let text = crate::logging::capture::capture(LogFormat::Json, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(worker(&["a"], &script, None).process(&key("a"), 0));
    });
    let failure = text
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|line| line["level"] == "ERROR")
        .unwrap_or_else(|| panic!("no error logged: {text}"));
    assert_eq!(failure["span"]["name"], "reconcile");
    assert_eq!(failure["span"]["object.key"], "ns/a");
    assert_eq!(failure["span"]["controller"], "demo");
    assert_eq!(failure["object.key"], "ns/a");
    assert_eq!(failure["error"], "scripted failure at attempt 0");
}

#[tokio::test]
async fn metrics_are_encoded_with_the_controller_name() {
    let mut registry = Registry::default();
    let metrics = ControllerMetrics::register(&mut registry);
    let script = Arc::new(Script::default());
    *script.failing.lock() = vec![0];
    let worker = worker(&["a"], &script, Some(&metrics));
    worker.queue.add(key("a"));
    let taken = worker.queue.get().await.unwrap();
    worker.process(&taken, 0).await;
    worker.queue.done(&taken);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    for expected in [
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"error\"} 1",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"requeue\"} 0",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"requeue_after\"} 0",
        "controller_runtime_reconcile_total{controller=\"demo\",result=\"success\"} 0",
        "controller_runtime_reconcile_errors_total{controller=\"demo\"} 1",
        "controller_runtime_terminal_reconcile_errors_total{controller=\"demo\"} 0",
        "controller_runtime_reconcile_panics_total{controller=\"demo\"} 0",
        "controller_runtime_reconcile_time_seconds_count{controller=\"demo\"} 1",
        "controller_runtime_max_concurrent_reconciles{controller=\"demo\"} 1",
        "controller_runtime_active_workers{controller=\"demo\"} 0",
        "workqueue_adds_total{name=\"demo\",controller=\"demo\"} 1",
        "workqueue_retries_total{name=\"demo\",controller=\"demo\"} 1",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let series: Series = metrics.series("other", 1);
    series.record(ReconcileResult::Success, Duration::from_millis(500));
    assert_eq!(metrics.reconciles("other", ReconcileResult::Success), 1);
}

#[tokio::test]
async fn shutdown_signal_resolves_on_sigterm() {
    let signal = shutdown_signal();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    expect_within(Duration::from_secs(30), signal).await;
}

/// Awaits `future`, failing the test if it hangs (a guard, not a timing
/// assertion).
async fn expect_within(limit: Duration, future: impl Future<Output = ()>) {
    tokio::time::timeout(limit, future)
        .await
        .expect("the future never resolved");
}

/// `Controller::run` returns a future boxed in the runtime: a crate
/// awaiting it compiles none of the controller's loop (this fails to
/// compile if `run` becomes an `async fn` again).
#[test]
fn the_controllers_future_is_boxed() {
    type Run = futures::future::BoxFuture<'static, Result<(), ControllerError>>;
    let _: fn(Controller<ConfigMap>, std::future::Pending<()>) -> Run = Controller::run;
}
