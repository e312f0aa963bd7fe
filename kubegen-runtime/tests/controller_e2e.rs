//! End-to-end tests of `kubegen::controller` against a real control plane
//! (kubegen-testenv): owned-object events, per-key backoff, panics,
//! graceful shutdown, per-key exclusion, predicates and metrics.
//!
//! No assertion depends on wall-clock time alone: waits go through
//! `eventually` (a generous limit that only guards against hangs), and
//! timing checks compare durations with each other or with the delays the
//! rate limiter handed out (a timer never fires early).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kubegen::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubegen::controller::{
    Action, Controller, ControllerError, ControllerMetrics, Predicate, ReconcileResult,
};
use kubegen::factory::SharedInformerFactory;
use kubegen::logging::{LogFormat, init};
use kubegen::ownership::{owner_reference, set_controller_reference};
use kubegen::server::SharedRegistry;
use kubegen::store::ObjectKey;
use kubegen::workqueue::{ItemExponentialFailure, RateLimiter};
use kubegen::{Client, Resource, ResourceExt};
use kubegen_testenv::{TestEnv, eventually};
use parking_lot::Mutex;
use serde_json::json;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const WAIT: Duration = Duration::from_secs(90);
/// Every object of these tests carries it; the informers select it (and
/// so skip the namespace's `kube-root-ca.crt`).
const LABEL: &str = "kubegen-test=controller";

/// A fresh client, a fresh namespace and a factory restricted to it.
async fn setup(prefix: &str) -> Result<(Client, String, SharedInformerFactory)> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let client = env.client().await?;
    let factory = SharedInformerFactory::builder(client.clone())
        .namespace(&ns)
        .tweak_list_params(|c| c.label_selector = Some(LABEL.into()))
        .build();
    Ok((client, ns, factory))
}

fn configmap(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    let mut labels: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    labels.insert("kubegen-test".into(), "controller".into());
    serde_json::from_value(json!({
        "metadata": { "name": name, "labels": labels },
        "data": { "v": "0" },
    }))
    .unwrap()
}

fn value(cm: &ConfigMap) -> String {
    cm.data
        .as_ref()
        .and_then(|d| d.get("v"))
        .cloned()
        .unwrap_or_default()
}

async fn set_value(api: &Api<ConfigMap>, name: &str, value: &str) -> Result<()> {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "data": { "v": value } })),
    )
    .await
    .with_context(|| format!("patching {name}"))?;
    Ok(())
}

/// Runs `controller` in the background until the sender fires.
fn spawn<K>(
    controller: Controller<K>,
) -> (oneshot::Sender<()>, JoinHandle<Result<(), ControllerError>>)
where
    K: Resource<DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(controller.run(stopped));
    (stop, task)
}

async fn stop(
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), ControllerError>>,
    factory: &SharedInformerFactory,
) -> Result<()> {
    let _ = stop.send(());
    task.await??;
    factory.shutdown().await;
    Ok(())
}

/// The reconciles seen, by object name, with when they started.
#[derive(Default)]
struct Seen {
    attempts: Mutex<Vec<(String, Instant)>>,
}

impl Seen {
    /// Records an attempt of `name`; returns its number for that name (from 0).
    fn record(&self, name: &str) -> usize {
        let mut attempts = self.attempts.lock();
        attempts.push((name.to_string(), Instant::now()));
        attempts.iter().filter(|(n, _)| n == name).count() - 1
    }

    fn count(&self, name: &str) -> usize {
        self.attempts
            .lock()
            .iter()
            .filter(|(n, _)| n == name)
            .count()
    }

    fn instants(&self, name: &str) -> Vec<Instant> {
        self.attempts
            .lock()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, at)| *at)
            .collect()
    }

    fn names(&self) -> HashSet<String> {
        self.attempts
            .lock()
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }
}

fn name_of<K: Resource>(obj: &K) -> String {
    obj.meta().name.clone().unwrap_or_default()
}

/// (a) Events on owned objects reconcile their controller owner, and only
/// through a controller reference to the primary kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owned_object_events_reconcile_the_controller_owner() -> Result<()> {
    let (client, ns, factory) = setup("ctl-owns").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client.clone(), &ns);
    let secrets = Api::<Secret>::namespaced(client, &ns);
    let owners = factory
        .informer_with::<ConfigMap>(|c| c.label_selector = Some(format!("{LABEL},role=owner")));
    let children = factory
        .informer_with::<ConfigMap>(|c| c.label_selector = Some(format!("{LABEL},role=child")));
    let seen = Arc::new(Seen::default());
    let controller = Controller::builder(owners)
        .name("owner-ctl")
        .owns(children.clone())
        .reconcile(
            |cm: Arc<ConfigMap>, seen: Arc<Seen>| async move {
                seen.record(&name_of(&*cm));
                Ok::<_, String>(Action::done())
            },
            seen.clone(),
        );
    factory.start();
    let (stop_tx, task) = spawn(controller);

    let pp = PostParams::default();
    let owner = configmaps
        .create(&pp, &configmap("owner", &[("role", "owner")]))
        .await?;
    let secret: Secret = serde_json::from_value(json!({ "metadata": { "name": "owner" } }))?;
    let secret = secrets.create(&pp, &secret).await?;
    let mut controlled = configmap("controlled", &[("role", "child")]);
    controlled.metadata.namespace = Some(ns.clone());
    set_controller_reference(&owner, &mut controlled.metadata)?;
    // Two children that do not make the owner reconcile.
    let mut referenced = configmap("referenced", &[("role", "child")]);
    referenced.metadata.owner_references = Some(vec![owner_reference(&owner, false)?]);
    let mut other_kind = configmap("other-kind", &[("role", "child")]);
    other_kind.metadata.owner_references = Some(vec![owner_reference(&secret, true)?]);
    for child in [&controlled, &referenced, &other_kind] {
        configmaps.create(&pp, child).await?;
    }
    eventually(WAIT, "the owner and its children are seen", || async {
        Ok((seen.count("owner") >= 1 && children.store().len() == 3).then_some(()))
    })
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = seen.count("owner");

    // A non-controller reference and a controller reference to another
    // kind (a same-named Secret) do not reach the owner.
    set_value(&configmaps, "referenced", "1").await?;
    set_value(&configmaps, "other-kind", "1").await?;
    let lister = children.lister();
    eventually(WAIT, "the child updates are cached", || async {
        let updated = ["referenced", "other-kind"].iter().all(|n| {
            lister
                .namespace(&ns)
                .get(n)
                .is_ok_and(|cm| value(&cm) == "1")
        });
        Ok(updated.then_some(()))
    })
    .await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    ensure!(
        seen.count("owner") == baseline,
        "non-controller children reconciled the owner"
    );

    // The controlled child's update and delete each reconcile the owner.
    set_value(&configmaps, "controlled", "1").await?;
    eventually(
        WAIT,
        "the owner reconciled after the child's update",
        || async { Ok((seen.count("owner") > baseline).then_some(())) },
    )
    .await?;
    ensure!(seen.count("owner") == baseline + 1);
    configmaps
        .delete("controlled", &DeleteParams::default())
        .await?;
    eventually(
        WAIT,
        "the owner reconciled after the child's delete",
        || async { Ok((seen.count("owner") > baseline + 1).then_some(())) },
    )
    .await?;
    ensure!(seen.names() == HashSet::from(["owner".to_string()]));
    stop(stop_tx, task, &factory).await
}

/// A rate limiter recording `(key name, num_requeues before, delay)` of
/// every retry.
struct Recording {
    inner: ItemExponentialFailure<ObjectKey>,
    calls: Arc<Mutex<Vec<(String, u32, Duration)>>>,
}

impl RateLimiter<ObjectKey> for Recording {
    fn when(&self, item: &ObjectKey) -> Duration {
        let before = self.inner.num_requeues(item);
        let delay = self.inner.when(item);
        self.calls.lock().push((item.name.clone(), before, delay));
        delay
    }

    fn forget(&self, item: &ObjectKey) {
        self.inner.forget(item);
    }

    fn num_requeues(&self, item: &ObjectKey) -> u32 {
        self.inner.num_requeues(item)
    }
}

/// (b) A failing key backs off exponentially, on its own, and starts over
/// after a success.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_backoff_grows_per_key_and_resets_on_success() -> Result<()> {
    const BASE: Duration = Duration::from_millis(400);
    let (client, ns, factory) = setup("ctl-backoff").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Seen::default());
    let controller = Controller::builder(factory.informer::<ConfigMap>())
        .name("backoff-ctl")
        .rate_limiter(Recording {
            inner: ItemExponentialFailure::new(BASE, Duration::from_secs(60)),
            calls: calls.clone(),
        })
        .reconcile(
            |cm: Arc<ConfigMap>, seen: Arc<Seen>| async move {
                let name = name_of(&*cm);
                let attempt = seen.record(&name);
                let fails = match name.as_str() {
                    "a" => [0, 1, 2, 3, 5].contains(&attempt),
                    _ => attempt == 0,
                };
                if fails {
                    Err(format!("{name} fails at attempt {attempt}"))
                } else {
                    Ok(Action::done())
                }
            },
            seen.clone(),
        );
    let queue = controller.queue().clone();
    factory.start();
    let (stop_tx, task) = spawn(controller);
    let pp = PostParams::default();
    configmaps.create(&pp, &configmap("a", &[])).await?;
    eventually(WAIT, "a's second attempt", || async {
        Ok((seen.count("a") >= 2).then_some(()))
    })
    .await?;
    // b fails while a is deep in its backoff.
    configmaps.create(&pp, &configmap("b", &[])).await?;
    eventually(WAIT, "a and b succeed", || async {
        Ok((seen.count("a") == 5 && seen.count("b") == 2).then_some(()))
    })
    .await?;
    ensure!(
        queue.num_requeues(&ObjectKey::namespaced(&ns, "a")) == 0,
        "success forgets a"
    );
    // A new failure of a starts again from the first delay.
    set_value(&configmaps, "a", "1").await?;
    eventually(WAIT, "a fails once more and succeeds", || async {
        Ok((seen.count("a") == 7).then_some(()))
    })
    .await?;

    let calls = calls.lock().clone();
    let of = |name: &str| -> Vec<(u32, Duration)> {
        calls
            .iter()
            .filter(|(n, _, _)| n == name)
            .map(|(_, before, delay)| (*before, *delay))
            .collect()
    };
    ensure!(
        of("a")
            == vec![
                (0, BASE),
                (1, BASE * 2),
                (2, BASE * 4),
                (3, BASE * 8),
                (0, BASE)
            ],
        "a's retries: {:?}",
        of("a")
    );
    ensure!(of("b") == vec![(0, BASE)], "b's retries: {:?}", of("b"));

    let at = seen.instants("a");
    let gaps: Vec<Duration> = at.windows(2).map(|w| w[1] - w[0]).collect();
    // Each retry waited at least its delay, so the gaps at least double...
    for (i, gap) in gaps.iter().take(4).enumerate() {
        ensure!(
            *gap >= BASE * (1 << i),
            "gap {i} shorter than its delay: {gaps:?}"
        );
    }
    // ...and grow: each gap exceeds the previous one.
    ensure!(
        gaps[..4].windows(2).all(|w| w[1] > w[0]),
        "gaps shrink: {gaps:?}"
    );
    // After the reset the retry waits the base delay again, far less than
    // the last backed-off gap.
    ensure!(gaps[5] >= BASE && gaps[5] < gaps[3], "no reset: {gaps:?}");
    let b = seen.instants("b");
    ensure!(b[1] - b[0] >= BASE);
    stop(stop_tx, task, &factory).await
}

/// (c) A panicking reconcile is caught, counted and retried; the worker
/// survives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panicking_reconcile_is_recovered() -> Result<()> {
    let (client, ns, factory) = setup("ctl-panic").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = ControllerMetrics::register(&mut registry);
    let seen = Arc::new(Seen::default());
    let controller = Controller::builder(factory.informer::<ConfigMap>())
        .name("panic-ctl")
        .workers(1)
        .metrics(&metrics)
        .reconcile(
            |cm: Arc<ConfigMap>, seen: Arc<Seen>| async move {
                let name = name_of(&*cm);
                if seen.record(&name) < 2 && name == "boom" {
                    panic!("reconcile of {name} panics");
                }
                Ok::<_, String>(Action::done())
            },
            seen.clone(),
        );
    factory.start();
    let (stop_tx, task) = spawn(controller);
    let pp = PostParams::default();
    configmaps.create(&pp, &configmap("boom", &[])).await?;
    eventually(WAIT, "boom reconciled after two panics", || async {
        Ok((seen.count("boom") == 3).then_some(()))
    })
    .await?;
    // The single worker survived: it reconciles another object.
    configmaps.create(&pp, &configmap("after", &[])).await?;
    eventually(WAIT, "another object reconciled", || async {
        Ok((seen.count("after") == 1).then_some(()))
    })
    .await?;
    ensure!(metrics.reconciles("panic-ctl", ReconcileResult::Panic) == 2);
    ensure!(metrics.errors("panic-ctl") == 2);
    ensure!(metrics.reconciles("panic-ctl", ReconcileResult::Success) == 2);
    stop(stop_tx, task, &factory).await
}

/// (d) Shutdown lets the in-flight reconcile finish and starts no new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_drains_in_flight_work() -> Result<()> {
    let (client, ns, factory) = setup("ctl-drain").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    let informer = factory.informer::<ConfigMap>();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let controller = Controller::builder(informer.clone())
        .name("drain-ctl")
        .workers(1)
        .shutdown_deadline(Duration::from_secs(60));
    // The slow reconcile sleeps 1 s and, to be in flight whatever the
    // machine's speed, only ends once the queue is shutting down.
    let queue_slot = Arc::new(Mutex::new(None::<kubegen::workqueue::WorkQueue<ObjectKey>>));
    let slot = queue_slot.clone();
    let controller = controller.reconcile(
        move |cm: Arc<ConfigMap>, log: Arc<Mutex<Vec<String>>>| {
            let slot = slot.clone();
            async move {
                let name = name_of(&*cm);
                log.lock().push(format!("start {name}"));
                if name == "slow" {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let queue = slot.lock().clone().expect("queue set");
                    while !queue.is_shutting_down() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    log.lock().push(format!("end {name}"));
                }
                Ok::<_, String>(Action::done())
            }
        },
        log.clone(),
    );
    *queue_slot.lock() = Some(controller.queue().clone());
    factory.start();
    let (stop_tx, task) = spawn(controller);
    let pp = PostParams::default();
    configmaps.create(&pp, &configmap("slow", &[])).await?;
    eventually(WAIT, "the slow reconcile in flight", || async {
        Ok(log.lock().contains(&"start slow".to_string()).then_some(()))
    })
    .await?;
    configmaps.create(&pp, &configmap("late", &[])).await?;
    let lister = informer.lister();
    eventually(WAIT, "the late object cached", || async {
        Ok(lister.namespace(&ns).get("late").ok().map(|_| ()))
    })
    .await?;
    log.lock().push("signal".into());
    let _ = stop_tx.send(());
    task.await??;
    log.lock().push("returned".into());
    let log = log.lock().clone();
    ensure!(
        log == ["start slow", "signal", "end slow", "returned"],
        "unexpected order: {log:?}"
    );
    factory.shutdown().await;
    Ok(())
}

/// (e) With 4 workers and a flood of updates, one key is never reconciled
/// twice at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_key_is_never_reconciled_concurrently() -> Result<()> {
    #[derive(Default)]
    struct Tracker {
        in_flight: Mutex<HashSet<String>>,
        overlaps: AtomicUsize,
        reconciles: AtomicUsize,
        last_value: Mutex<HashMap<String, String>>,
    }
    let (client, ns, factory) = setup("ctl-exclusive").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    let tracker = Arc::new(Tracker::default());
    let controller = Controller::builder(factory.informer::<ConfigMap>())
        .name("exclusive-ctl")
        .workers(4)
        .reconcile(
            |cm: Arc<ConfigMap>, t: Arc<Tracker>| async move {
                let name = name_of(&*cm);
                if !t.in_flight.lock().insert(name.clone()) {
                    t.overlaps.fetch_add(1, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
                t.in_flight.lock().remove(&name);
                t.last_value.lock().insert(name, value(&cm));
                t.reconciles.fetch_add(1, Ordering::SeqCst);
                Ok::<_, String>(Action::done())
            },
            tracker.clone(),
        );
    factory.start();
    let (stop_tx, task) = spawn(controller);
    let names: Vec<String> = (0..5).map(|i| format!("cm-{i}")).collect();
    for name in &names {
        configmaps
            .create(&PostParams::default(), &configmap(name, &[]))
            .await?;
    }
    const ROUNDS: usize = 12;
    for round in 1..=ROUNDS {
        let value = round.to_string();
        let patches = names
            .iter()
            .map(|name| set_value(&configmaps, name, &value));
        futures::future::try_join_all(patches).await?;
    }
    let last = ROUNDS.to_string();
    eventually(
        WAIT,
        "every object reconciled at its last value",
        || async {
            let values = tracker.last_value.lock();
            Ok(names
                .iter()
                .all(|n| values.get(n) == Some(&last))
                .then_some(()))
        },
    )
    .await?;
    ensure!(
        tracker.overlaps.load(Ordering::SeqCst) == 0,
        "a key ran twice at once"
    );
    ensure!(tracker.reconciles.load(Ordering::SeqCst) > names.len());
    stop(stop_tx, task, &factory).await
}

/// (f) `GenerationChanged` ignores metadata- and status-only updates of a
/// Deployment and passes spec changes. The metadata update changes a label:
/// for Deployments the API server also bumps the generation when the
/// annotations change (they are copied to the ReplicaSets), so an
/// annotation change is a generation change there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generation_predicate_ignores_metadata_and_status_updates() -> Result<()> {
    let (client, ns, factory) = setup("ctl-predicate").await?;
    let deployments = Api::<Deployment>::namespaced(client, &ns);
    let informer = factory.informer::<Deployment>();
    let seen = Arc::new(Mutex::new(Vec::<(i64, bool)>::new()));
    let controller = Controller::builder(informer.clone())
        .name("predicate-ctl")
        .predicate(Predicate::GenerationChanged)
        .reconcile(
            |d: Arc<Deployment>, seen: Arc<Mutex<Vec<(i64, bool)>>>| async move {
                let labelled = d.labels().contains_key("tier");
                seen.lock()
                    .push((d.metadata.generation.unwrap_or(0), labelled));
                Ok::<_, String>(Action::done())
            },
            seen.clone(),
        );
    factory.start();
    let (stop_tx, task) = spawn(controller);
    let deployment: Deployment = serde_json::from_value(json!({
        "metadata": { "name": "web", "labels": { "kubegen-test": "controller" } },
        "spec": {
            "replicas": 0,
            "selector": { "matchLabels": { "app": "web" } },
            "template": {
                "metadata": { "labels": { "app": "web" } },
                "spec": { "containers": [{ "name": "web", "image": "example.invalid/web:1" }] },
            },
        },
    }))?;
    deployments
        .create(&PostParams::default(), &deployment)
        .await?;
    let lister = informer.lister();
    let observed = |generation: i64| {
        let lister = lister.clone();
        let ns = ns.clone();
        move || {
            let lister = lister.clone();
            let ns = ns.clone();
            async move {
                let d = lister.namespace(&ns).get("web")?;
                let status = d.status.as_ref().and_then(|s| s.observed_generation);
                Ok((status == Some(generation)).then_some(()))
            }
        }
    };
    // The deployment controller writes the status: updates that the
    // predicate drops.
    eventually(WAIT, "the status observes generation 1", observed(1)).await?;
    eventually(WAIT, "the add reconciled", || async {
        Ok((!seen.lock().is_empty()).then_some(()))
    })
    .await?;
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": { "tier": "web" } } })),
        )
        .await?;
    let generation = eventually(WAIT, "the label cached", || async {
        let d = lister.namespace(&ns).get("web")?;
        Ok(d.labels()
            .contains_key("tier")
            .then_some(d.metadata.generation))
    })
    .await?;
    ensure!(
        generation == Some(1),
        "a label change bumped the generation"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    ensure!(
        *seen.lock() == [(1, false)],
        "metadata-only update reconciled: {:?}",
        seen.lock()
    );
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "revisionHistoryLimit": 5 } })),
        )
        .await?;
    eventually(WAIT, "the spec change reconciled", || async {
        Ok((seen.lock().len() == 2).then_some(()))
    })
    .await?;
    eventually(WAIT, "the status observes generation 2", observed(2)).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    ensure!(
        *seen.lock() == [(1, false), (2, true)],
        "unexpected reconciles: {:?}",
        seen.lock()
    );
    stop(stop_tx, task, &factory).await
}

/// (g) The shared registry exposes the controller's and its queue's
/// series under the controller's name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_registry_exposes_controller_series() -> Result<()> {
    let (client, ns, factory) = setup("ctl-metrics").await?;
    let configmaps = Api::<ConfigMap>::namespaced(client, &ns);
    let registry = SharedRegistry::default();
    let metrics = registry.register(ControllerMetrics::register);
    let seen = Arc::new(Seen::default());
    let controller = Controller::builder(factory.informer::<ConfigMap>())
        .name("metrics-ctl")
        .metrics(&metrics)
        .reconcile(
            |cm: Arc<ConfigMap>, seen: Arc<Seen>| async move {
                match seen.record(&name_of(&*cm)) {
                    0 => Err("first attempt fails"),
                    _ => Ok(Action::done()),
                }
            },
            seen.clone(),
        );
    factory.start();
    let (stop_tx, task) = spawn(controller);
    configmaps
        .create(&PostParams::default(), &configmap("m", &[]))
        .await?;
    eventually(WAIT, "the retry succeeded", || async {
        Ok((metrics.reconciles("metrics-ctl", ReconcileResult::Success) == 1).then_some(()))
    })
    .await?;
    let text = registry.encode()?;
    for expected in [
        "controller_runtime_reconcile_total{controller=\"metrics-ctl\",result=\"success\"} 1",
        "controller_runtime_reconcile_total{controller=\"metrics-ctl\",result=\"error\"} 1",
        "controller_runtime_reconcile_errors_total{controller=\"metrics-ctl\"} 1",
        "controller_runtime_reconcile_time_seconds_count{controller=\"metrics-ctl\"} 2",
        "controller_runtime_active_workers{controller=\"metrics-ctl\"} 0",
        "workqueue_adds_total{name=\"metrics-ctl\",controller=\"metrics-ctl\"}",
        "workqueue_retries_total{name=\"metrics-ctl\",controller=\"metrics-ctl\"} 1",
    ] {
        ensure!(
            text.lines().any(|l| l.starts_with(expected)),
            "missing {expected:?} in\n{text}"
        );
    }
    stop(stop_tx, task, &factory).await
}

/// `run` fails when an informer stopped before its cache synced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_fails_when_caches_cannot_sync() -> Result<()> {
    let (_client, _ns, factory) = setup("ctl-nosync").await?;
    let informer = factory.informer::<ConfigMap>();
    factory.shutdown().await;
    let controller = Controller::builder(informer).reconcile(
        |_: Arc<ConfigMap>, _: Arc<()>| async { Ok::<_, String>(Action::done()) },
        Arc::new(()),
    );
    let error = controller
        .run(std::future::pending::<()>())
        .await
        .unwrap_err();
    ensure!(
        matches!(error, ControllerError::CacheSyncFailed { .. }),
        "{error}"
    );
    Ok(())
}
