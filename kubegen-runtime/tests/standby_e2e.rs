//! Warm and cold standbys against a real API server, observed through the
//! apiserver's audit log: a warm standby (the default) lists and watches
//! before it leads; a cold one (`warm_standby(false)`) makes no list or
//! watch until it leads, then syncs and reconciles everything.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kubegen::api::{Api, ObjectMeta, PostParams};
use kubegen::controller::{Action, Controller};
use kubegen::leader_election::{LeaderElectionConfig, LeaderState};
use kubegen::logging::{LogFormat, init};
use kubegen::manager::{Manager, ManagerError};
use kubegen::{Client, ResourceExt};
use kubegen_testenv::{TestEnv, eventually};
use parking_lot::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

async fn reconcile(
    cm: Arc<ConfigMap>,
    seen: Arc<Mutex<BTreeSet<String>>>,
) -> Result<Action, Infallible> {
    seen.lock().insert(cm.name_any());
    Ok(Action::done())
}

struct Replica {
    seen: Arc<Mutex<BTreeSet<String>>>,
    state: tokio::sync::watch::Receiver<LeaderState>,
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
}

impl Replica {
    async fn start(client: Client, ns: &str, lock: &str, warm: bool) -> Result<Replica> {
        let mut manager = Manager::builder(client)
            .leader_election(LeaderElectionConfig {
                lease_duration: Duration::from_secs(3),
                renew_deadline: Duration::from_secs(2),
                retry_period: Duration::from_millis(400),
                ..LeaderElectionConfig::new(ns, lock)
            })
            .warm_standby(warm)
            .informer_factory({
                let ns = ns.to_owned();
                move |factory| factory.namespace(ns)
            })
            .build()
            .await?;
        let seen = Arc::new(Mutex::new(BTreeSet::new()));
        let controller = Controller::builder(manager.factory().informer::<ConfigMap>())
            .name("standby")
            .reconcile(reconcile, seen.clone());
        manager.add(controller);
        let state = manager.leader_state().context("leader election")?;
        let stop = CancellationToken::new();
        let task = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));
        Ok(Replica {
            seen,
            state,
            stop,
            task,
        })
    }

    async fn stop(self) -> Result<()> {
        self.stop.cancel();
        tokio::time::timeout(WAIT, self.task).await???;
        Ok(())
    }
}

/// Lets every ServiceAccount of `ns` read ConfigMaps and use Leases there.
async fn grant(admin: &Client, ns: &str) -> Result<()> {
    let role = Role {
        metadata: ObjectMeta {
            name: Some("standby".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![
            PolicyRule {
                api_groups: Some(vec![String::new()]),
                resources: Some(vec!["configmaps".into()]),
                verbs: vec!["list".into(), "watch".into()],
                ..PolicyRule::default()
            },
            PolicyRule {
                api_groups: Some(vec!["coordination.k8s.io".into()]),
                resources: Some(vec!["leases".into()]),
                verbs: vec!["get".into(), "create".into(), "update".into()],
                ..PolicyRule::default()
            },
        ]),
    };
    Api::<Role>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &role)
        .await?;
    let binding = RoleBinding {
        metadata: ObjectMeta {
            name: Some("standby".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "Role".into(),
            name: "standby".into(),
        },
        subjects: Some(vec![Subject {
            kind: "Group".into(),
            name: format!("system:serviceaccounts:{ns}"),
            ..Subject::default()
        }]),
    };
    Api::<RoleBinding>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &binding)
        .await?;
    Ok(())
}

/// Whether `account` has listed or watched ConfigMaps.
fn read_configmaps(env: &TestEnv, ns: &str, account: &str) -> Result<bool> {
    Ok(env
        .audit_records(ns, account)?
        .iter()
        .any(|r| r.resource == "configmaps" && matches!(r.verb.as_str(), "list" | "watch")))
}

async fn scenario(warm: bool) -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let mode = if warm { "warm" } else { "cold" };
    let ns = env.namespace(&format!("standby-{mode}")).await?;
    let admin = env.client().await?;
    grant(&admin, &ns).await?;
    let configmaps = Api::<ConfigMap>::namespaced(admin, &ns);
    let names: BTreeSet<String> = (0..5).map(|i| format!("cm-{i}")).collect();
    for name in &names {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        configmaps.create(&PostParams::default(), &cm).await?;
    }

    let leader = Replica::start(
        env.client_for_service_account(&ns, "leader").await?,
        &ns,
        "lock",
        warm,
    )
    .await?;
    let mut state = leader.state.clone();
    tokio::time::timeout(WAIT, state.wait_for(LeaderState::is_leader)).await??;
    let standby = Replica::start(
        env.client_for_service_account(&ns, "standby").await?,
        &ns,
        "lock",
        warm,
    )
    .await?;
    let mut state = standby.state.clone();
    tokio::time::timeout(
        WAIT,
        state.wait_for(|s| matches!(s, LeaderState::Standby { .. })),
    )
    .await??;
    if warm {
        eventually(WAIT, "the warm standby to list and watch", || async {
            Ok(read_configmaps(env, &ns, "standby")?.then_some(()))
        })
        .await?;
    } else {
        // Several retry periods of standing by.
        tokio::time::sleep(Duration::from_secs(3)).await;
        ensure!(
            !read_configmaps(env, &ns, "standby")?,
            "the cold standby listed or watched before leading"
        );
    }
    ensure!(standby.seen.lock().is_empty(), "the standby reconciled");

    // A graceful stop releases the Lease: the standby leads, syncs (cold:
    // only now) and reconciles everything.
    leader.stop().await?;
    eventually(WAIT, "the new leader to reconcile everything", || async {
        // The namespace also holds kube-root-ca.crt.
        Ok(names.is_subset(&standby.seen.lock()).then_some(()))
    })
    .await?;
    ensure!(read_configmaps(env, &ns, "standby")?);
    standby.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_standby_syncs_before_it_leads() -> Result<()> {
    scenario(true).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_standby_syncs_only_once_it_leads() -> Result<()> {
    scenario(false).await
}

/// A manager whose `run` future is dropped (its task aborted, as in a
/// `select!` that took another branch) stops renewing its Lease: the
/// standby takes over once the Lease expires, and reconciles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_manager_lets_its_lease_expire() -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace("standby-dropped").await?;
    let admin = env.client().await?;
    let leader = Replica::start(admin.clone(), &ns, "lock", true).await?;
    let mut state = leader.state.clone();
    tokio::time::timeout(WAIT, state.wait_for(LeaderState::is_leader)).await??;
    let standby = Replica::start(admin, &ns, "lock", true).await?;
    leader.task.abort();
    let mut state = standby.state.clone();
    tokio::time::timeout(WAIT, state.wait_for(LeaderState::is_leader))
        .await
        .context("the dropped manager kept the Lease")??;
    eventually(WAIT, "the new leader to reconcile", || async {
        Ok(standby
            .seen
            .lock()
            .contains("kube-root-ca.crt")
            .then_some(()))
    })
    .await?;
    standby.stop().await
}
