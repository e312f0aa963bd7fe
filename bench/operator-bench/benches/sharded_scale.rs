//! Sharded scale run (a benchmark, not a test): what splitting the example
//! operator's MyApplications between replicas saves each replica, and what
//! a replica's death costs. Each scenario runs on a fresh private control
//! plane (kwok nodes, kube-apiserver with the `ShardedListAndWatch` feature
//! gate on) with the same settings as the scale bench (4 workers, the
//! generated ClusterRole, a ServiceAccount's kubeconfig):
//!
//! - `single`: one replica, unsharded, with leader election (a 15 s Lease);
//! - `required`: `SHARDED_SCALE_REPLICAS` replicas (default 3) sharing
//!   `SHARDED_SCALE_PARTITIONS` partitions (default 8 per replica),
//!   `--shard-filtering required`: the apiserver sends each replica only
//!   the MyApplications of the partitions it holds (`shardSelector`);
//! - `off`: the same with `--shard-filtering off`: every replica receives
//!   every MyApplication and drops the other partitions'.
//!
//! Owned Deployments and Services carry their owner's partition label
//! (`kubegen.io/owner-partition`) and are selected by it in both sharded
//! scenarios: the apiserver sends each replica only its children.
//!
//! Once the replicas are up (the Lease led, or every partition Lease held
//! and the partitions balanced) and a warm-up application is Ready,
//! `SHARDED_SCALE_APPS` applications (default 10,000) across
//! `SHARDED_SCALE_NAMESPACES` namespaces (default 10) are created 16 at a
//! time. Per replica: peak RSS (`VmHWM`), peak anonymous memory (`RssAnon`
//! sampled every 50 ms), CPU seconds until all Ready (since the replica
//! started), partitions held, and from its Prometheus metrics 5 s after
//! all Ready the objects its informers received, dropped as not held, and
//! cached, by resource; per scenario, the time from the first create to
//! all Ready. Replicas are ordered by the partitions they hold, most
//! first. The ratios divide each replica's peak by the single replica's.
//!
//! Then, in each sharded scenario, the replica holding the most partitions
//! is killed with SIGKILL, one application in each partition it held gets
//! `spec.replicas: 2` right after, and the bench times the handover from
//! the kill: until every partition Lease names a live replica, and until
//! those applications' Deployments say 2 replicas.
//!
//! `SHARDED_SCALE_RUNS` (default 1) runs of each scenario; medians are
//! printed. `SHARDED_SCALE_SCENARIOS` (default `single,required,off`)
//! picks scenarios, `SHARDED_SCALE_LOG` the replicas' `RUST_LOG` (default
//! `warn`), `SHARDED_SCALE_WRAPPER` a command to run the first replica
//! under (`bench/layout/order.py` traces it with valgrind). Progress and the replicas' log paths go to stderr;
//! stdout holds the table and the command that reproduces it. Nothing
//! fails on time.
//!
//! `cargo bench -p my-application-bench --bench sharded_scale`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::net::SocketAddr;
use std::process::Child;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, Role, RoleBinding};
use kubegen::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kubegen::informer::watcher::{self, watcher};
use kubegen::sharding::{Partitions, SHARD_ROLE_LABEL};
use kubegen_testenv::{Options, TestEnv};
use my_application::api::MyApplication;
use my_application::controller::desired::deployment_name;
use my_application_bench::application;

/// The namespace of the operator's ServiceAccount and Leases.
const SYSTEM: &str = "sharded-system";
/// The operator's ServiceAccount.
const ACCOUNT: &str = "operator";
/// The operator's Lease name: the leader Lease, or the shard set's name
/// (partition Leases `<LEASE>-NNN`).
const LEASE: &str = "my-application-controller";
/// The warm-up application, created before the clock starts.
const WARM_UP: &str = "warm-up";
/// `spec.replicas` given to the applications changed after the kill.
const CHANGED_REPLICAS: i32 = 2;

#[path = "scale/proc_stats.rs"]
mod proc_stats;

use proc_stats::{cpu_seconds, env_usize, sample_peak_anon, status_kib, wrapped_command};

/// One way of running the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    /// One replica, unsharded, leader election on.
    Single,
    /// Sharded, the apiserver filtering the MyApplications.
    Required,
    /// Sharded, every replica filtering for itself.
    Off,
}

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Scenario::Single => "single",
            Scenario::Required => "required",
            Scenario::Off => "off",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        [Scenario::Single, Scenario::Required, Scenario::Off]
            .into_iter()
            .find(|s| s.name() == name.trim())
    }

    /// The column heading of its group.
    fn heading(self, replicas: usize) -> String {
        match self {
            Scenario::Single => "1 replica".into(),
            Scenario::Required => format!("{replicas} shards, server-side"),
            Scenario::Off => format!("{replicas} shards, client-side"),
        }
    }
}

/// The settings every run shares.
#[derive(Debug, Clone, Copy)]
struct Settings {
    apps: usize,
    namespaces: usize,
    replicas: usize,
    partitions: u32,
}

/// What one replica measured.
#[derive(Debug, Clone, Default)]
struct Replica {
    partitions: usize,
    peak_rss_kib: u64,
    peak_anon_kib: u64,
    cpu: f64,
    /// By metric (`received`, `not held`, `cached`), then by resource kind.
    informers: BTreeMap<&'static str, BTreeMap<String, f64>>,
}

/// What one run of one scenario measured.
#[derive(Debug, Clone, Default)]
struct Run {
    /// First create → all Ready.
    ready: Duration,
    /// Ordered by partitions held, most first.
    replicas: Vec<Replica>,
    handover: Option<Handover>,
}

/// A replica killed and its partitions taken over.
#[derive(Debug, Clone, Copy)]
struct Handover {
    /// Partitions the killed replica held.
    partitions: usize,
    /// Kill → every partition Lease names a live replica.
    leases: Duration,
    /// Kill → the Deployments of the applications changed after the kill
    /// updated.
    reflected: Duration,
}

/// A running replica.
struct Process {
    child: Child,
    pid: u32,
    /// `POD_NAME`: the identity's prefix (before `_`).
    name: String,
    metrics: SocketAddr,
    peak_anon: Arc<AtomicU64>,
    sampler: tokio::task::JoinHandle<()>,
}

impl Process {
    fn spawn(
        env: &TestEnv,
        kubeconfig: &std::path::Path,
        scenario: Scenario,
        index: usize,
        partitions: u32,
    ) -> Result<Self> {
        let binary = my_application_bench::operator_binary()?;
        let metrics: SocketAddr =
            format!("127.0.0.1:{}", kubegen_testenv::free_loopback_port()?).parse()?;
        let name = format!("replica-{index}");
        let log_path = env.dir().join(format!("{}-{name}.log", scenario.name()));
        eprintln!("  {name}: log {}", log_path.display());
        let log = std::fs::File::create(&log_path)?;
        // The first replica of a scenario may run under a wrapper
        // (`bench/layout/order.py` traces the sharded code paths with it).
        let mut command = if index == 0 {
            wrapped_command("SHARDED_SCALE_WRAPPER", &binary)
        } else {
            std::process::Command::new(&binary)
        };
        command
            .args(["--insecure-metrics", "--health-probe-bind-address"])
            .arg("127.0.0.1:0")
            .args(["--metrics-bind-address", &metrics.to_string()])
            .args(["--lease-namespace", SYSTEM, "--workers", "4"]);
        match scenario {
            Scenario::Single => {}
            Scenario::Required | Scenario::Off => {
                command
                    .args(["--shard-partitions", &partitions.to_string()])
                    .args(["--shard-filtering", scenario.name()]);
            }
        }
        let child = command
            .env("KUBECONFIG", kubeconfig)
            .env("POD_NAME", &name)
            .env(
                "RUST_LOG",
                std::env::var("SHARDED_SCALE_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        let pid = child.id();
        let peak_anon = Arc::new(AtomicU64::new(0));
        let sampler = sample_peak_anon(pid, peak_anon.clone());
        Ok(Process {
            child,
            pid,
            name,
            metrics,
            peak_anon,
            sampler,
        })
    }

    /// SIGKILL, reaped.
    fn kill(&mut self) {
        self.sampler.abort();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `(metric, resource) → value` of the informer metrics in a Prometheus
/// text exposition.
fn informer_metrics(text: &str) -> BTreeMap<&'static str, BTreeMap<String, f64>> {
    const NAMES: [(&str, &str); 3] = [
        ("kubegen_informer_objects_received_total{", "received"),
        ("kubegen_informer_objects_not_held_total{", "not held"),
        ("kubegen_informer_store_objects{", "cached"),
    ];
    let mut out: BTreeMap<&'static str, BTreeMap<String, f64>> = BTreeMap::new();
    for line in text.lines() {
        let Some((_, metric)) = NAMES.iter().find(|(prefix, _)| line.starts_with(prefix)) else {
            continue;
        };
        let resource = line
            .split_once("resource=\"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(resource, _)| resource.to_string());
        let value = line
            .rsplit_once(' ')
            .and_then(|(_, v)| v.trim().parse::<f64>().ok());
        if let (Some(resource), Some(value)) = (resource, value) {
            out.entry(metric).or_default().insert(resource, value);
        }
    }
    out
}

async fn scrape(addr: SocketAddr) -> Result<BTreeMap<&'static str, BTreeMap<String, f64>>> {
    let (status, body) = kubegen_testenv::http_get(addr, "/metrics").await?;
    if status != 200 {
        bail!("GET http://{addr}/metrics: {status}");
    }
    Ok(informer_metrics(&body))
}

/// The holder of every held partition Lease (an empty holder is none).
async fn partition_holders(leases: &Api<Lease>) -> Result<BTreeMap<u32, String>> {
    let list = leases
        .list(&ListParams::default().labels(&format!("{SHARD_ROLE_LABEL}=partition")))
        .await?;
    Ok(list
        .items
        .into_iter()
        .filter_map(|lease| {
            let index = lease
                .metadata
                .name
                .as_deref()?
                .strip_prefix(LEASE)?
                .strip_prefix('-')?
                .parse()
                .ok()?;
            let holder = lease.spec?.holder_identity.filter(|h| !h.is_empty())?;
            Some((index, holder))
        })
        .collect())
}

/// The `POD_NAME` part of an identity (`<name>_<random>`).
fn base_name(identity: &str) -> &str {
    identity.split_once('_').map_or(identity, |(name, _)| name)
}

/// How many partitions each of `names` holds, when every one of the
/// `partitions` is held by one of `names`; `None` otherwise.
fn held_by(holders: &BTreeMap<u32, String>, partitions: u32, names: &[&str]) -> Option<Vec<usize>> {
    if holders.len() != partitions as usize
        || holders.values().any(|h| !names.contains(&base_name(h)))
    {
        return None;
    }
    Some(
        names
            .iter()
            .map(|name| holders.values().filter(|h| base_name(h) == *name).count())
            .collect(),
    )
}

/// Watches every MyApplication; records the names (`namespace/name`) of
/// those seen Ready.
fn watch_ready(
    admin: kubegen::Client,
    ready: Arc<Mutex<HashSet<String>>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let events = watcher(Api::<MyApplication>::all(admin), watcher::Config::default());
        let mut events = std::pin::pin!(events);
        while let Ok(Some(event)) = events.try_next().await {
            let (watcher::Event::Apply(app) | watcher::Event::InitApply(app)) = event else {
                continue;
            };
            let is_ready = app
                .status
                .as_ref()
                .is_some_and(|s| kubegen::conditions::is_condition_true(&s.conditions, "Ready"));
            if is_ready {
                let name = format!(
                    "{}/{}",
                    app.metadata.namespace.unwrap_or_default(),
                    app.metadata.name.unwrap_or_default()
                );
                ready.lock().unwrap().insert(name);
            }
        }
    })
}

/// The CRD, the ClusterRole bound to the operator's ServiceAccount, a Role
/// for the shard set's Leases, the namespaces; returns the operator's
/// kubeconfig.
async fn prepare(
    env: &TestEnv,
    admin: &kubegen::Client,
    names: &[String],
) -> Result<std::path::PathBuf> {
    my_application_bench::install(admin).await?;
    my_application_bench::wait_out_create_hold(admin).await?;
    let namespace_api = Api::<Namespace>::all(admin.clone());
    let new_namespace = |name: &str| {
        serde_json::from_value::<Namespace>(serde_json::json!({ "metadata": { "name": name } }))
    };
    namespace_api
        .create(&PostParams::default(), &new_namespace(SYSTEM)?)
        .await?;
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
            "metadata": { "name": "sharded-scale-operator" },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-application-controller" },
            "subjects": [{ "kind": "ServiceAccount", "name": ACCOUNT, "namespace": SYSTEM }],
        }))?)
        .await?;
    // A sharded replica also lists and deletes Leases (the shard set's).
    Api::<Role>::namespaced(admin.clone(), SYSTEM)
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": { "name": "shard-leases" },
                "rules": [{
                    "apiGroups": ["coordination.k8s.io"],
                    "resources": ["leases"],
                    "verbs": ["get", "list", "create", "update", "delete"],
                }],
            }))?,
        )
        .await?;
    Api::<RoleBinding>::namespaced(admin.clone(), SYSTEM)
        .create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
            "metadata": { "name": "shard-leases" },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "shard-leases" },
            "subjects": [{ "kind": "ServiceAccount", "name": ACCOUNT, "namespace": SYSTEM }],
        }))?)
        .await?;
    let kubeconfig = env.kubeconfig_for_service_account(SYSTEM, ACCOUNT).await?;
    for ns in names {
        namespace_api
            .create(&PostParams::default(), &new_namespace(ns)?)
            .await?;
    }
    Ok(kubeconfig)
}

/// One scenario on a fresh plane.
async fn run(scenario: Scenario, settings: Settings) -> Result<Run> {
    let sharded = scenario != Scenario::Single;
    let count = if sharded { settings.replicas } else { 1 };
    let env = TestEnv::start_with(Options {
        // 110 pods per kwok node; one pod per application.
        nodes: settings.apps.div_ceil(100).max(3),
        feature_gates: vec!["ShardedListAndWatch=true".into()],
        ..Options::default()
    })
    .await?;
    let admin = env.client().await?;
    let names: Vec<String> = (0..settings.namespaces)
        .map(|i| format!("sharded-{i}"))
        .collect();
    let kubeconfig = prepare(&env, &admin, &names).await?;
    let mut processes = (0..count)
        .map(|i| Process::spawn(&env, &kubeconfig, scenario, i, settings.partitions))
        .collect::<Result<Vec<_>>>()?;
    let result = measure(&admin, &mut processes, &names, scenario, settings).await;
    for process in &mut processes {
        process.kill();
    }
    result.with_context(|| {
        format!(
            "scenario {} (logs in {})",
            scenario.name(),
            env.dir().display()
        )
    })
}

async fn measure(
    admin: &kubegen::Client,
    processes: &mut [Process],
    names: &[String],
    scenario: Scenario,
    settings: Settings,
) -> Result<Run> {
    let leases = Api::<Lease>::namespaced(admin.clone(), SYSTEM);
    let replica_names: Vec<String> = processes.iter().map(|p| p.name.clone()).collect();
    let replica_names: Vec<&str> = replica_names.iter().map(String::as_str).collect();
    // Up: the Lease led, or every partition held and the partitions
    // balanced (each replica holds at least ⌊P/N⌋).
    if scenario == Scenario::Single {
        kubegen_testenv::eventually(Duration::from_secs(120), "the operator to lead", || {
            let leases = leases.clone();
            async move {
                let lease = leases.get_opt(LEASE).await?;
                Ok(lease
                    .and_then(|l| l.spec?.holder_identity)
                    .filter(|h| !h.is_empty())
                    .map(|_| ()))
            }
        })
        .await?;
    } else {
        let fair = settings.partitions as usize / processes.len();
        kubegen_testenv::eventually(
            Duration::from_secs(180),
            "every partition held, balanced",
            || {
                let leases = leases.clone();
                let replica_names = &replica_names;
                async move {
                    let holders = partition_holders(&leases).await?;
                    Ok(held_by(&holders, settings.partitions, replica_names)
                        .filter(|counts| counts.iter().all(|c| *c >= fair))
                        .map(|_| ()))
                }
            },
        )
        .await?;
    }
    eprintln!("  up");

    let ready = Arc::new(Mutex::new(HashSet::new()));
    let watch = watch_ready(admin.clone(), ready.clone());
    Api::<MyApplication>::namespaced(admin.clone(), &names[0])
        .create(&PostParams::default(), &application(WARM_UP))
        .await?;
    let warm_up = format!("{}/{WARM_UP}", names[0]);
    kubegen_testenv::eventually(
        Duration::from_secs(120),
        "the warm-up application to be Ready",
        || {
            let seen = ready.lock().unwrap().contains(&warm_up);
            async move { Ok(seen.then_some(())) }
        },
    )
    .await?;

    let begun = Instant::now();
    let creates = futures::stream::iter(0..settings.apps)
        .map(|i| {
            let api = Api::<MyApplication>::namespaced(admin.clone(), &names[i % names.len()]);
            async move {
                api.create(&PostParams::default(), &application(&format!("app-{i}")))
                    .await
            }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    if let Some(Err(e)) = creates.into_iter().find(Result::is_err) {
        bail!("creating applications: {e}");
    }
    eprintln!("  created {} in {:.1?}", settings.apps, begun.elapsed());
    loop {
        let seen = ready.lock().unwrap().len();
        if seen > settings.apps {
            break;
        }
        if begun.elapsed() > Duration::from_secs(3600) {
            bail!(
                "only {}/{} Ready after an hour",
                seen.saturating_sub(1),
                settings.apps
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let all_ready = begun.elapsed();
    watch.abort();
    let cpu: Vec<f64> = processes.iter().map(|p| cpu_seconds(p.pid)).collect();
    eprintln!("  all Ready after {all_ready:.1?}");

    // Let the last status writes and events land, then read the counters.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let holders = if scenario == Scenario::Single {
        BTreeMap::new()
    } else {
        partition_holders(&leases).await?
    };
    let mut replicas = Vec::new();
    for (process, cpu) in processes.iter().zip(cpu) {
        let informers = scrape(process.metrics)
            .await
            .with_context(|| format!("scraping {}", process.name))?;
        replicas.push((
            process.name.clone(),
            Replica {
                partitions: if scenario == Scenario::Single {
                    settings.partitions as usize
                } else {
                    holders
                        .values()
                        .filter(|h| base_name(h) == process.name)
                        .count()
                },
                peak_rss_kib: status_kib(process.pid, "VmHWM:"),
                peak_anon_kib: process.peak_anon.load(Ordering::Relaxed),
                cpu,
                informers,
            },
        ));
    }
    replicas.sort_by(|(_, a), (_, b)| {
        (b.partitions, b.peak_rss_kib).cmp(&(a.partitions, a.peak_rss_kib))
    });
    let handover = if scenario == Scenario::Single {
        None
    } else {
        let victim = replicas[0].0.clone();
        Some(handover(admin, processes, &victim, settings).await?)
    };
    Ok(Run {
        ready: all_ready,
        replicas: replicas.into_iter().map(|(_, r)| r).collect(),
        handover,
    })
}

/// Kills `victim` (SIGKILL), changes one application in each partition it
/// held, and times the takeover.
async fn handover(
    admin: &kubegen::Client,
    processes: &mut [Process],
    victim: &str,
    settings: Settings,
) -> Result<Handover> {
    let leases = Api::<Lease>::namespaced(admin.clone(), SYSTEM);
    let partitions = Partitions::new(settings.partitions).context("partition count")?;
    let theirs: BTreeSet<u32> = partition_holders(&leases)
        .await?
        .into_iter()
        .filter(|(_, holder)| base_name(holder) == victim)
        .map(|(p, _)| p)
        .collect();
    // One application of each of those partitions (by the uid's shard hash).
    let mut chosen: BTreeMap<u32, (String, String)> = BTreeMap::new();
    for app in Api::<MyApplication>::all(admin.clone())
        .list_metadata(&ListParams::default())
        .await?
        .items
    {
        let meta = app.metadata;
        let (Some(uid), Some(ns), Some(name)) = (meta.uid, meta.namespace, meta.name) else {
            continue;
        };
        let p = partitions.of_uid(&uid);
        if theirs.contains(&p) {
            chosen.entry(p).or_insert((ns, name));
        }
    }

    let process = processes
        .iter_mut()
        .find(|p| p.name == victim)
        .context("the victim")?;
    let killed = Instant::now();
    process.kill();
    eprintln!(
        "  killed {victim} (partitions {theirs:?}); changing {} applications",
        chosen.len()
    );
    let patch = serde_json::json!({ "spec": { "replicas": CHANGED_REPLICAS } });
    for (ns, name) in chosen.values() {
        Api::<MyApplication>::namespaced(admin.clone(), ns)
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
    }
    let live: Vec<String> = processes
        .iter()
        .filter(|p| p.name != victim)
        .map(|p| p.name.clone())
        .collect();
    let live: Vec<&str> = live.iter().map(String::as_str).collect();
    let (mut leases_at, mut reflected_at) = (None, None);
    let mut pending: Vec<(String, String)> = chosen.into_values().collect();
    while leases_at.is_none() || reflected_at.is_none() {
        if killed.elapsed() > Duration::from_secs(600) {
            bail!(
                "handover unfinished after 10 minutes: leases {leases_at:?}, {} Deployments not updated",
                pending.len()
            );
        }
        if leases_at.is_none()
            && held_by(
                &partition_holders(&leases).await?,
                settings.partitions,
                &live,
            )
            .is_some()
        {
            leases_at = Some(killed.elapsed());
        }
        if reflected_at.is_none() {
            let mut left = Vec::new();
            for (ns, name) in pending {
                let deployment = Api::<Deployment>::namespaced(admin.clone(), &ns)
                    .get_opt(&deployment_name(&name))
                    .await?;
                let replicas = deployment.and_then(|d| d.spec?.replicas);
                if replicas != Some(CHANGED_REPLICAS) {
                    left.push((ns, name));
                }
            }
            pending = left;
            if pending.is_empty() {
                reflected_at = Some(killed.elapsed());
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (leases, reflected) = (
        leases_at.unwrap_or_default(),
        reflected_at.unwrap_or_default(),
    );
    eprintln!("  handover: leases {leases:.1?}, reflected {reflected:.1?}");
    Ok(Handover {
        partitions: theirs.len(),
        leases,
        reflected,
    })
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// A row of the table.
#[derive(Clone)]
enum Metric {
    Partitions,
    Rss,
    Anon,
    RssRatio,
    AnonRatio,
    Cpu,
    Ready,
    Informer(&'static str, String),
    HandoverPartitions,
    HandoverLeases,
    HandoverReflected,
}

impl Metric {
    fn label(&self, partitions: u32) -> String {
        match self {
            Metric::Partitions => format!("partitions held (of {partitions})"),
            Metric::Rss => "peak RSS (VmHWM), MiB".into(),
            Metric::Anon => "peak RssAnon, MiB".into(),
            Metric::RssRatio => "peak RSS ÷ single replica's".into(),
            Metric::AnonRatio => "peak RssAnon ÷ single replica's".into(),
            Metric::Cpu => "CPU until all Ready, s".into(),
            Metric::Ready => "first create → all Ready, s".into(),
            Metric::Informer(metric, kind) => format!("{kind}: objects {metric}"),
            Metric::HandoverPartitions => "handover: partitions of the killed replica".into(),
            Metric::HandoverLeases => "handover: kill → all Leases on live replicas, s".into(),
            Metric::HandoverReflected => "handover: kill → changed apps' Deployments, s".into(),
        }
    }

    fn format(&self, value: f64) -> String {
        match self {
            Metric::Partitions | Metric::Informer(..) | Metric::HandoverPartitions => {
                format!("{value:.0}")
            }
            Metric::RssRatio | Metric::AnonRatio => format!("{value:.2}×"),
            Metric::Rss | Metric::Anon | Metric::Ready => format!("{value:.1}"),
            Metric::Cpu | Metric::HandoverLeases | Metric::HandoverReflected => {
                format!("{value:.2}")
            }
        }
    }

    /// The value of one replica (`None`: a per-scenario metric).
    fn of_replica(&self, replica: &Replica, single: Option<&Replica>) -> Option<f64> {
        match self {
            Metric::Partitions => Some(replica.partitions as f64),
            Metric::Rss => Some(mib(replica.peak_rss_kib)),
            Metric::Anon => Some(mib(replica.peak_anon_kib)),
            Metric::RssRatio => {
                Some(replica.peak_rss_kib as f64 / single?.peak_rss_kib.max(1) as f64)
            }
            Metric::AnonRatio => {
                Some(replica.peak_anon_kib as f64 / single?.peak_anon_kib.max(1) as f64)
            }
            Metric::Cpu => Some(replica.cpu),
            Metric::Informer(metric, kind) => Some(
                replica
                    .informers
                    .get(metric)
                    .and_then(|by| {
                        by.iter()
                            .find(|(resource, _)| resource.rsplit('/').next() == Some(kind))
                    })
                    .map_or(0.0, |(_, v)| *v),
            ),
            _ => None,
        }
    }

    /// The value of a whole run (sums over replicas, or the run's own).
    fn of_run(&self, run: &Run, single: Option<&Replica>) -> Option<f64> {
        match self {
            Metric::Ready => Some(run.ready.as_secs_f64()),
            Metric::HandoverPartitions => run.handover.map(|h| h.partitions as f64),
            Metric::HandoverLeases => run.handover.map(|h| h.leases.as_secs_f64()),
            Metric::HandoverReflected => run.handover.map(|h| h.reflected.as_secs_f64()),
            _ => run
                .replicas
                .iter()
                .map(|r| self.of_replica(r, single))
                .sum(),
        }
    }
}

/// Prints the table: one group of columns per scenario (each replica, and
/// Σ — totals and per-scenario figures — for several), medians over runs.
fn print_table(settings: Settings, runs: usize, results: &[(Scenario, Vec<Run>)]) {
    let singles: Vec<Option<Replica>> = results
        .iter()
        .find(|(s, _)| *s == Scenario::Single)
        .map(|(_, runs)| runs.iter().map(|r| r.replicas.first().cloned()).collect())
        .unwrap_or_default();
    let single = |i: usize| singles.get(i).and_then(Option::as_ref);
    // Columns: (scenario index, Some(replica) | None for Σ).
    let mut columns: Vec<(usize, Option<usize>, String)> = Vec::new();
    for (s, (scenario, scenario_runs)) in results.iter().enumerate() {
        let n = scenario_runs
            .iter()
            .map(|r| r.replicas.len())
            .max()
            .unwrap_or(0);
        if *scenario == Scenario::Single || n == 1 {
            columns.push((s, Some(0), "r1".into()));
        } else {
            columns.extend((0..n).map(|r| (s, Some(r), format!("r{}", r + 1))));
            columns.push((s, None, "Σ".into()));
        }
    }
    let mut kinds: BTreeMap<(&'static str, String), ()> = BTreeMap::new();
    for (_, scenario_runs) in results {
        for run in scenario_runs {
            for replica in &run.replicas {
                for (metric, by) in &replica.informers {
                    for resource in by.keys() {
                        let kind = resource.rsplit('/').next().unwrap_or(resource);
                        kinds.insert((metric, kind.to_string()), ());
                    }
                }
            }
        }
    }
    let mut metrics = vec![
        Metric::Partitions,
        Metric::Rss,
        Metric::Anon,
        Metric::RssRatio,
        Metric::AnonRatio,
        Metric::Cpu,
        Metric::Ready,
    ];
    for metric in ["received", "not held", "cached"] {
        for ((m, kind), ()) in &kinds {
            if *m == metric {
                metrics.push(Metric::Informer(metric, kind.clone()));
            }
        }
    }
    metrics.extend([
        Metric::HandoverPartitions,
        Metric::HandoverLeases,
        Metric::HandoverReflected,
    ]);

    let cell = |metric: &Metric, (s, replica): (usize, Option<usize>)| -> String {
        let (scenario, scenario_runs) = &results[s];
        let values: Vec<f64> = scenario_runs
            .iter()
            .enumerate()
            .filter_map(|(i, run)| match replica {
                Some(r) => {
                    let own = run.replicas.get(r);
                    own.and_then(|rep| metric.of_replica(rep, single(i)))
                        .or_else(|| {
                            // The one column of a single replica holds its
                            // run's figures too.
                            (*scenario == Scenario::Single || run.replicas.len() == 1)
                                .then(|| metric.of_run(run, single(i)))
                                .flatten()
                        })
                }
                None => metric.of_run(run, single(i)),
            })
            .collect();
        median(values).map_or(String::new(), |v| metric.format(v))
    };

    let label_width = metrics
        .iter()
        .map(|m| m.label(settings.partitions).chars().count())
        .max()
        .unwrap_or(0);
    let width = 9;
    println!(
        "sharded scale: {} applications in {} namespaces, {} partitions, kube-apiserver with ShardedListAndWatch, {} run(s){}; replicas ordered by partitions held",
        settings.apps,
        settings.namespaces,
        settings.partitions,
        runs,
        if runs > 1 { ", medians" } else { "" }
    );
    // Heading: each scenario's name over its first column.
    let mut heading = format!("{:label_width$}", "");
    for (s, (scenario, scenario_runs)) in results.iter().enumerate() {
        let span = columns.iter().filter(|(c, _, _)| *c == s).count() * (width + 3);
        let n = scenario_runs
            .iter()
            .map(|r| r.replicas.len())
            .max()
            .unwrap_or(0);
        let text = format!(" | {}", scenario.heading(n));
        heading.push_str(&format!("{text:span$}"));
    }
    println!("{}", heading.trim_end());
    let mut sub = format!("{:label_width$}", "metric");
    for (_, _, name) in &columns {
        sub.push_str(&format!(" | {name:>width$}"));
    }
    println!("{sub}");
    println!("{}", "-".repeat(sub.chars().count()));
    for metric in &metrics {
        let cells: Vec<String> = columns
            .iter()
            .map(|(s, r, _)| cell(metric, (*s, *r)))
            .collect();
        if cells.iter().all(String::is_empty) {
            continue;
        }
        let mut line = format!("{:label_width$}", metric.label(settings.partitions));
        for c in cells {
            line.push_str(&format!(" | {c:>width$}"));
        }
        println!("{line}");
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let replicas = env_usize("SHARDED_SCALE_REPLICAS", 3).max(1);
    let settings = Settings {
        apps: env_usize("SHARDED_SCALE_APPS", 10_000).max(1),
        namespaces: env_usize("SHARDED_SCALE_NAMESPACES", 10).max(1),
        replicas,
        // By default 8 partitions per replica: a count the replicas
        // divide, so that each holds an equal share (16 over 3 is 6/5/5).
        partitions: env_usize("SHARDED_SCALE_PARTITIONS", replicas * 8).clamp(1, 256) as u32,
    };
    let runs = env_usize("SHARDED_SCALE_RUNS", 1).max(1);
    let scenario_names =
        std::env::var("SHARDED_SCALE_SCENARIOS").unwrap_or_else(|_| "single,required,off".into());
    let mut scenarios = Vec::new();
    for name in scenario_names.split(',').filter(|n| !n.trim().is_empty()) {
        scenarios.push(Scenario::parse(name).with_context(|| {
            format!("SHARDED_SCALE_SCENARIOS: {name:?} is not single, required or off")
        })?);
    }
    // Built (in release, laid out) before any plane starts.
    let binary = my_application_bench::operator_binary()?;
    eprintln!("operator: {}", binary.display());

    let mut results: Vec<(Scenario, Vec<Run>)> =
        scenarios.iter().map(|s| (*s, Vec::new())).collect();
    for i in 0..runs {
        for (scenario, scenario_runs) in &mut results {
            eprintln!("run {}/{runs}: {}", i + 1, scenario.name());
            let figures = run(*scenario, settings).await?;
            eprintln!("  {figures:?}");
            scenario_runs.push(figures);
        }
    }
    print_table(settings, runs, &results);
    println!(
        "reproduce: SHARDED_SCALE_APPS={} SHARDED_SCALE_RUNS={runs} SHARDED_SCALE_NAMESPACES={} SHARDED_SCALE_REPLICAS={} SHARDED_SCALE_PARTITIONS={} SHARDED_SCALE_SCENARIOS={} cargo bench -p my-application-bench --bench sharded_scale",
        settings.apps,
        settings.namespaces,
        settings.replicas,
        settings.partitions,
        scenarios
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(","),
    );
    Ok(())
}
