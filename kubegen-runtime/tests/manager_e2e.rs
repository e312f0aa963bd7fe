//! `kubegen::manager::Manager` against a real control plane
//! (kubegen-testenv): controllers run only on the leader and start on the
//! standby once the leader releases the Lease; a stolen Lease aborts them
//! at once and `run` returns `LeadershipLost`; shutdown drains in-flight
//! reconciles, releases the Lease, and aborts a stuck reconcile at the
//! drain deadline; `/readyz` fails until the informer caches synced (here:
//! until RBAC lets the informer list).
//!
//! Lease timings are client-go's ratios scaled down (3 s / 2 s / 0.4 s).
//! Waits go through `eventually` or `wait_for` with generous limits that
//! only guard against hangs.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kubegen::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use kubegen::controller::{Action, Controller};
use kubegen::leader_election::{LeaderElectionConfig, LeaderState};
use kubegen::logging::{LogFormat, init};
use kubegen::manager::{Manager, ManagerError, runnable};
use kubegen::{Client, ResourceExt};
use kubegen_testenv::{TestEnv, eventually, http_get};
use parking_lot::Mutex;
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const LOCK: &str = "manager-lock";
const WAIT: Duration = Duration::from_secs(90);
/// Every ConfigMap of these tests carries it; the informers select it (and
/// so skip the namespace's `kube-root-ca.crt`).
const LABEL: &str = "kubegen-test=manager";
/// How long a `slow-*` object's reconcile takes.
const SLOW: Duration = Duration::from_secs(2);

/// What the reconciles of one manager saw, in order: `started <name>` and
/// `finished <name>`. A `stuck-*` object's reconcile never finishes; it
/// sets `stuck_dropped` when it is cancelled.
#[derive(Default)]
struct Seen {
    events: Mutex<Vec<String>>,
    stuck_dropped: Arc<AtomicBool>,
}

impl Seen {
    fn has(&self, event: &str) -> bool {
        self.events.lock().iter().any(|e| e == event)
    }

    fn count(&self) -> usize {
        self.events.lock().len()
    }
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

async fn reconcile(cm: Arc<ConfigMap>, seen: Arc<Seen>) -> Result<Action, Infallible> {
    let name = cm.name_any();
    seen.events.lock().push(format!("started {name}"));
    if name.starts_with("slow") {
        tokio::time::sleep(SLOW).await;
    }
    if name.starts_with("stuck") {
        let _flag = DropFlag(seen.stuck_dropped.clone());
        std::future::pending::<()>().await;
    }
    seen.events.lock().push(format!("finished {name}"));
    Ok(Action::done())
}

/// How a test manager is set up.
struct Options<'a> {
    /// Elect on the Lease `LOCK` as this identity; no leader election when
    /// `None`.
    identity: Option<&'a str>,
    drain_timeout: Duration,
    serve: bool,
}

/// A manager running in the background, with its controller's record.
struct Running {
    seen: Arc<Seen>,
    state: Option<watch::Receiver<LeaderState>>,
    probe_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
}

impl Running {
    /// Waits until this manager leads.
    async fn leading(&self) -> Result<()> {
        let mut state = self.state.clone().context("no leader election")?;
        tokio::time::timeout(WAIT, state.wait_for(LeaderState::is_leader))
            .await
            .context("never led")??;
        Ok(())
    }

    /// Stops it and returns what `run_until` returned, and how long after
    /// the stop it did.
    async fn stop(self) -> Result<(Result<(), ManagerError>, Duration)> {
        let stopped_at = Instant::now();
        self.stop.cancel();
        let result = tokio::time::timeout(WAIT, self.task)
            .await
            .context("the manager did not stop")??;
        Ok((result, stopped_at.elapsed()))
    }
}

/// A manager over the labelled ConfigMaps of `ns`, with one controller
/// (named `configmaps`) recording its reconciles, running until stopped.
async fn spawn_manager(client: Client, ns: &str, options: Options<'_>) -> Result<Running> {
    let mut builder = Manager::builder(client.clone())
        .drain_timeout(options.drain_timeout)
        .informer_factory({
            let ns = ns.to_string();
            move |factory| {
                factory
                    .namespace(ns)
                    .tweak_list_params(|c| c.label_selector = Some(LABEL.into()))
            }
        });
    if let Some(identity) = options.identity {
        builder = builder.leader_election(LeaderElectionConfig {
            identity: Some(identity.into()),
            lease_duration: Duration::from_millis(3000),
            renew_deadline: Duration::from_millis(2000),
            retry_period: Duration::from_millis(400),
            ..LeaderElectionConfig::new(ns, LOCK)
        });
    }
    if options.serve {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        builder = builder
            .health_probe_addr(loopback)
            .metrics_addr(loopback)
            .insecure_metrics();
    }
    let mut manager = builder.build().await?;
    let seen = Arc::new(Seen::default());
    let controller = Controller::builder(manager.factory().informer::<ConfigMap>())
        .name("configmaps")
        // Longer than any drain timeout here: the manager's deadline is
        // the one that bites.
        .shutdown_deadline(Duration::from_secs(600))
        .metrics(manager.controller_metrics())
        .reconcile(reconcile, seen.clone());
    manager.add(controller);
    let stop = CancellationToken::new();
    Ok(Running {
        seen,
        state: manager.leader_state(),
        probe_addr: manager.health_probe_addr(),
        metrics_addr: manager.metrics_addr(),
        task: tokio::spawn(manager.run_until(stop.clone().cancelled_owned())),
        stop,
    })
}

async fn setup(prefix: &str) -> Result<(&'static TestEnv, String, Client)> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let client = env.client().await?;
    Ok((env, ns, client))
}

async fn create_configmap(client: &Client, ns: &str, name: &str) -> Result<()> {
    let cm: ConfigMap = serde_json::from_value(json!({
        "metadata": { "name": name, "labels": { "kubegen-test": "manager" } },
    }))?;
    Api::<ConfigMap>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &cm)
        .await?;
    Ok(())
}

async fn lease_holder(client: &Client, ns: &str) -> Result<Option<String>> {
    let lease = Api::<Lease>::namespaced(client.clone(), ns)
        .get(LOCK)
        .await?;
    Ok(lease
        .spec
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty()))
}

async fn wait_for(seen: &Seen, event: &str) -> Result<()> {
    eventually(WAIT, event, || async { Ok(seen.has(event).then_some(())) }).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_leader_runs_its_controllers_and_the_standby_takes_over_on_release() -> Result<()>
{
    let (_, ns, client) = setup("mgr-leader").await?;
    let options = |identity| Options {
        identity: Some(identity),
        drain_timeout: Duration::from_secs(10),
        serve: false,
    };
    let first = spawn_manager(client.clone(), &ns, options("first")).await?;
    first.leading().await?;
    let second = spawn_manager(client.clone(), &ns, options("second")).await?;
    // The second campaigns only once its caches synced: seeing the first as
    // leader means its informers are up.
    let mut state = second.state.clone().context("leader election")?;
    tokio::time::timeout(
        WAIT,
        state.wait_for(|s| {
            *s == LeaderState::Standby {
                leader: Some("first".into()),
            }
        }),
    )
    .await
    .context("the second never stood by")??;

    create_configmap(&client, &ns, "shared").await?;
    wait_for(&first.seen, "finished shared").await?;
    // The standby's informer has the object too; an ungated controller
    // would have reconciled it by now.
    tokio::time::sleep(Duration::from_secs(2)).await;
    ensure!(
        second.seen.count() == 0,
        "the standby reconciled: {:?}",
        second.seen.events.lock()
    );
    ensure!(!second.state.as_ref().unwrap().borrow().is_leader());

    // The leader stops: drained, the Lease released, and the standby's
    // controller starts and reconciles what its cache holds.
    let (result, _) = first.stop().await?;
    result?;
    second.leading().await?;
    wait_for(&second.seen, "finished shared").await?;
    ensure!(lease_holder(&client, &ns).await?.as_deref() == Some("second"));
    let (result, _) = second.stop().await?;
    result?;
    ensure!(lease_holder(&client, &ns).await?.is_none(), "not released");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stolen_lease_aborts_the_controllers_at_once_and_run_returns_leadership_lost()
-> Result<()> {
    let (_, ns, client) = setup("mgr-lost").await?;
    // A long drain: only the abort on lost leadership explains a quick end.
    let drain_timeout = Duration::from_secs(120);
    let options = Options {
        identity: Some("victim"),
        drain_timeout,
        serve: false,
    };
    let mut victim = spawn_manager(client.clone(), &ns, options).await?;
    victim.leading().await?;
    create_configmap(&client, &ns, "stuck-reconcile").await?;
    wait_for(&victim.seen, "started stuck-reconcile").await?;

    // Another writer takes the Lease over, valid for an hour.
    let stolen_at = Instant::now();
    Api::<Lease>::namespaced(client.clone(), &ns)
        .patch(
            LOCK,
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": {
                "holderIdentity": "thief",
                "leaseDurationSeconds": 3600,
            }})),
        )
        .await?;
    let result = tokio::time::timeout(WAIT, &mut victim.task)
        .await
        .context("run did not return after the Lease was stolen")??;
    let took = stolen_at.elapsed();
    ensure!(
        matches!(result, Err(ManagerError::LeadershipLost)),
        "expected LeadershipLost, got {result:?}"
    );
    ensure!(
        took < drain_timeout / 4,
        "took {took:?}: the controller was drained, not aborted"
    );
    ensure!(
        victim.seen.stuck_dropped.load(Ordering::SeqCst),
        "the in-flight reconcile was not cancelled"
    );
    println!(
        "lost leadership: run returned {:.3} s after the Lease was stolen",
        took.as_secs_f64()
    );
    // Not ours any more: not released.
    ensure!(lease_holder(&client, &ns).await?.as_deref() == Some("thief"));
    ensure!(*victim.state.as_ref().unwrap().borrow() == LeaderState::Stopped);
    // Nothing reconciles any more.
    let before = victim.seen.count();
    create_configmap(&client, &ns, "after").await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    ensure!(victim.seen.count() == before);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_in_flight_reconciles_then_releases_the_lease() -> Result<()> {
    let (_, ns, client) = setup("mgr-drain").await?;
    let options = Options {
        identity: Some("drainer"),
        drain_timeout: Duration::from_secs(30),
        serve: false,
    };
    let manager = spawn_manager(client.clone(), &ns, options).await?;
    manager.leading().await?;
    create_configmap(&client, &ns, "slow-one").await?;
    wait_for(&manager.seen, "started slow-one").await?;
    ensure!(!manager.seen.has("finished slow-one"));
    let seen = manager.seen.clone();
    let (result, took) = manager.stop().await?;
    result?;
    // Stopping waited for the reconcile in flight to finish its sleep.
    ensure!(
        seen.has("finished slow-one"),
        "the in-flight reconcile did not finish: {:?}",
        seen.events.lock()
    );
    println!("drained in {:.3} s", took.as_secs_f64());
    let lease = Api::<Lease>::namespaced(client.clone(), &ns)
        .get(LOCK)
        .await?
        .spec
        .context("lease spec")?;
    ensure!(lease.holder_identity.is_none(), "not released: {lease:?}");
    ensure!(lease.lease_duration_seconds == Some(1));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_aborts_a_stuck_reconcile_at_the_drain_deadline() -> Result<()> {
    let (_, ns, client) = setup("mgr-stuck").await?;
    let drain_timeout = Duration::from_secs(2);
    let options = Options {
        identity: Some("stuck"),
        drain_timeout,
        serve: false,
    };
    let manager = spawn_manager(client.clone(), &ns, options).await?;
    manager.leading().await?;
    create_configmap(&client, &ns, "stuck-forever").await?;
    wait_for(&manager.seen, "started stuck-forever").await?;
    let seen = manager.seen.clone();
    let (result, took) = manager.stop().await?;
    match result {
        Err(ManagerError::DrainTimeout { timeout, runnables }) => {
            ensure!(timeout == drain_timeout);
            ensure!(runnables == ["configmaps"], "{runnables:?}");
        }
        other => bail!("expected a drain timeout, got {other:?}"),
    }
    ensure!(took >= drain_timeout, "returned after {took:?}");
    // The deadline, the Lease release and stopping the informers.
    ensure!(
        took < drain_timeout + Duration::from_secs(10),
        "returned after {took:?}"
    );
    ensure!(
        seen.stuck_dropped.load(Ordering::SeqCst),
        "the reconcile was not cancelled"
    );
    ensure!(!seen.has("finished stuck-forever"));
    ensure!(lease_holder(&client, &ns).await?.is_none(), "not released");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_waits_until_the_informer_caches_synced() -> Result<()> {
    let (env, ns, admin) = setup("mgr-ready").await?;
    create_configmap(&admin, &ns, "present").await?;
    // A ServiceAccount that may not list ConfigMaps yet.
    let operator = env.client_for_service_account(&ns, "operator").await?;
    let options = Options {
        identity: None,
        drain_timeout: Duration::from_secs(10),
        serve: true,
    };
    let manager = spawn_manager(operator, &ns, options).await?;
    let addr = manager.probe_addr.context("probe address")?;

    assert_eq!(http_get(addr, "/healthz").await?, (200, "ok".into()));
    // Give the informer time to fail its list a few times.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (status, body) = http_get(addr, "/readyz").await?;
    ensure!(status == 503, "ready before the caches synced: {body}");
    ensure!(body.contains("[-]caches-synced failed"), "{body}");
    ensure!(
        manager.seen.count() == 0,
        "reconciled before the caches synced"
    );

    let role = Role {
        metadata: ObjectMeta {
            name: Some("configmap-reader".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["configmaps".into()]),
            verbs: vec!["get".into(), "list".into(), "watch".into()],
            ..PolicyRule::default()
        }]),
    };
    Api::<Role>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &role)
        .await?;
    let binding = RoleBinding {
        metadata: ObjectMeta {
            name: Some("configmap-reader".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "Role".into(),
            name: "configmap-reader".into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: "operator".into(),
            namespace: Some(ns.clone()),
            ..Subject::default()
        }]),
    };
    let granted_at = Instant::now();
    Api::<RoleBinding>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &binding)
        .await?;

    eventually(WAIT, "/readyz to pass", || async {
        Ok((http_get(addr, "/readyz").await? == (200, "ok".to_string())).then_some(()))
    })
    .await?;
    println!(
        "ready {:.3} s after the Role was granted",
        granted_at.elapsed().as_secs_f64()
    );
    wait_for(&manager.seen, "finished present").await?;
    let metrics_addr = manager.metrics_addr.context("metrics address")?;
    let (_, metrics) = http_get(metrics_addr, "/metrics").await?;
    ensure!(
        metrics.contains("kubegen_informer_store_objects{resource=\"v1/ConfigMap\"} 1\n"),
        "{metrics}"
    );
    ensure!(
        metrics.contains(
            "\ncontroller_runtime_reconcile_total{controller=\"configmaps\",result=\"success\"} 1\n"
        ),
        "{metrics}"
    );
    let (result, _) = manager.stop().await?;
    result?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runnables_that_opt_out_of_leader_election_run_on_the_standby() -> Result<()> {
    let (_, ns, client) = setup("mgr-everywhere").await?;
    let mut leader = Manager::builder(client.clone())
        .leader_election(LeaderElectionConfig {
            identity: Some("holder".into()),
            ..LeaderElectionConfig::new(&ns, LOCK)
        })
        .build()
        .await?;
    let mut standby = Manager::builder(client.clone())
        .leader_election(LeaderElectionConfig {
            identity: Some("waiting".into()),
            ..LeaderElectionConfig::new(&ns, LOCK)
        })
        .build()
        .await?;
    let (leader_ran, standby_everywhere, standby_leader_only) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let flag = |f: &Arc<AtomicBool>| {
        let f = f.clone();
        move |shutdown: CancellationToken| async move {
            f.store(true, Ordering::SeqCst);
            shutdown.cancelled().await;
            Ok::<_, Infallible>(())
        }
    };
    leader.add(runnable("leader-only", flag(&leader_ran)));
    standby.add(runnable("everywhere", flag(&standby_everywhere)).without_leader_election());
    standby.add(runnable("leader-only", flag(&standby_leader_only)));
    let mut leader_state = leader.leader_state().context("leader election")?;
    let mut standby_state = standby.leader_state().context("leader election")?;
    let stop = CancellationToken::new();
    let leading = tokio::spawn(leader.run_until(stop.clone().cancelled_owned()));
    tokio::time::timeout(WAIT, leader_state.wait_for(LeaderState::is_leader)).await??;
    let standing_by = tokio::spawn(standby.run_until(stop.clone().cancelled_owned()));
    tokio::time::timeout(
        WAIT,
        standby_state.wait_for(|s| {
            *s == LeaderState::Standby {
                leader: Some("holder".into()),
            }
        }),
    )
    .await??;
    eventually(WAIT, "the opted-out runnable on the standby", || async {
        Ok(standby_everywhere.load(Ordering::SeqCst).then_some(()))
    })
    .await?;
    eventually(WAIT, "the leader-only runnable on the leader", || async {
        Ok(leader_ran.load(Ordering::SeqCst).then_some(()))
    })
    .await?;
    ensure!(
        !standby_leader_only.load(Ordering::SeqCst),
        "a leader-only runnable ran on the standby"
    );
    stop.cancel();
    leading.await??;
    standing_by.await??;
    Ok(())
}
