//! Scale run (a benchmark, not a test): kubegen's example operator against
//! its controller-runtime peer (`bench/peer-go`: the same MyApplication
//! controller written with controller-runtime, built from the Go module
//! proxy), one after the other, each on a fresh private control plane with
//! kwok nodes and identical settings (4 workers, leader election with a
//! 15 s Lease, managedFields stripped from the caches, no client-side
//! throttling, the same generated ClusterRole); which goes first alternates
//! from one pair of runs to the next. `SCALE_RUNS` pairs per size (default
//! one) and `SCALE_PACED_RUNS` pairs of the paced run (default three) are
//! run and each metric's median is reported.
//!
//! Every run measures a running operator: once it leads, the bench creates
//! a first, warm-up application and starts its clock when that one is
//! Ready; the time from leading to that first Ready is its own row
//! (start-up). The warm-up application is left out of the latencies and
//! counted in the requests per object. No application is created sooner
//! than 2 s after the CRD became Established: the apiserver holds creates
//! of custom resources for 2 s until then (see
//! `my_application_bench::wait_out_create_hold`).
//!
//! For every size in `SCALE_APPS` (default `1000,5000`) N MyApplications
//! across `SCALE_NAMESPACES` namespaces (default 10) are created 16 at a
//! time; then, per operator:
//!
//! - time until every application is Ready, and the median and p99 of each
//!   application's creation → Ready latency;
//! - how long the bench took to create them all: the apiserver's pace,
//!   which each operator's load on it changes (latencies count from each
//!   application's own creation);
//! - the median and p99 of the operator's own part of that latency, timed
//!   by the apiserver (audit log): the application's create answered → the
//!   operator's Deployment create received, plus the Deployment's last
//!   status write → the operator's Ready patch received (the plane's part
//!   between and the apiserver's answers are left out; see
//!   [`reaction`]);
//! - operator peak RSS (`VmHWM`) and CPU seconds (user + system);
//! - from the first create to all Ready: the control plane's CPU seconds
//!   (etcd, apiserver, controller-manager, scheduler, kwok) and how busy
//!   the machine's CPUs were — near 100 % the plane, not the operator,
//!   sets the pace, and an operator can gain at most the CPU it leaves the
//!   plane;
//! - operator peak anonymous memory (`RssAnon`, sampled every 50 ms): the
//!   memory the operator holds of its own — heap, stacks, runtime — which
//!   `VmHWM` adds to the pages of its executable's code it has mapped
//!   (shared page cache, mapped 64 KiB at a time around each first touch);
//! - API requests by verb per object, from the apiserver's audit log (the
//!   operator runs as a ServiceAccount, whose every request is logged);
//! - writes (excluding Lease renewals) during `SCALE_STEADY_SECS` (default
//!   30) of steady state, which begins once no write was made for 3 s
//!   (events recorded in the background trail the last status) — should
//!   be 0;
//! - RSS once every application is deleted and its children collected.
//!
//! `SCALE_PACED=N` (default 200, 0 skips) adds a run that creates N
//! applications at `SCALE_RATE` per second (default 10), so the plane is
//! not the bottleneck and the per-object latency shows the operator's own.
//!
//! `SCALE_PEER_ARGS` passes extra flags to the peer (`--priority-queue=false`:
//! client-go's workqueue instead of controller-runtime's default queue),
//! `SCALE_KUBEGEN_ARGS` to kubegen's operator (`--decoded-caches`: objects
//! cached decoded instead of as JSON); `SCALE_KUBEGEN_WRAPPER` names a
//! command to run kubegen's operator under (`bench/layout/order.py` traces
//! it with valgrind).
//!
//! `cargo bench -p my-application-bench --bench scale`. Without Go, or with
//! `SCALE_PEER=0` (for quick A/B runs of kubegen's side alone), the peer is
//! skipped and kubegen's figures are printed alone. Lines starting with
//! `BENCH` (kubegen, peer) feed `bench/run_all.py`. Nothing fails on time.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Namespace, Service};
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kubegen::api::{Api, DeleteParams, ListParams, PostParams};
use kubegen::informer::watcher::{self, watcher};
use kubegen_testenv::{Options, TestEnv};
use my_application::api::MyApplication;
use my_application_bench::application;

#[path = "scale/proc_stats.rs"]
mod proc_stats;
#[path = "scale/reaction.rs"]
mod reaction;

use proc_stats::{cpu_seconds, env_usize, sample_peak_anon, status_kib};

/// The namespace of the operator's ServiceAccount and Lease.
const SYSTEM: &str = "scale-system";
/// The operator's ServiceAccount (its requests are audited).
const ACCOUNT: &str = "operator";

/// CPU time of all CPUs, busy and in total, in ticks (`/proc/stat`'s first
/// line: idle and iowait are not busy).
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("cpu "))
        .map(|rest| {
            rest.split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let total = ticks.iter().sum::<u64>();
    let idle = ticks.get(3).copied().unwrap_or(0) + ticks.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// CPU seconds the control plane's processes have used.
fn plane_cpu_seconds(env: &TestEnv) -> f64 {
    env.pids()
        .into_iter()
        .map(|(_, pid)| cpu_seconds(pid))
        .sum()
}

/// Which operator a run measures.
enum Side {
    Kubegen,
    /// The controller-runtime peer's binary.
    ControllerRuntime(PathBuf),
}

impl Side {
    fn name(&self) -> &'static str {
        match self {
            Side::Kubegen => "kubegen",
            Side::ControllerRuntime(_) => "controller-runtime",
        }
    }

    fn spawn(&self, kubeconfig: &Path, log: &Path) -> Result<std::process::Child> {
        let metrics = format!("127.0.0.1:{}", kubegen_testenv::free_loopback_port()?);
        let mut command = match self {
            Side::Kubegen => {
                let binary = my_application_bench::operator_binary()?;
                let mut c = proc_stats::wrapped_command("SCALE_KUBEGEN_WRAPPER", &binary);
                c.args([
                    "--insecure-metrics",
                    "--health-probe-bind-address",
                    "127.0.0.1:0",
                ]);
                c.env("RUST_LOG", "warn");
                // Extra flags of kubegen's operator, e.g. `--decoded-caches`.
                let extra = std::env::var("SCALE_KUBEGEN_ARGS").unwrap_or_default();
                c.args(extra.split_whitespace());
                c
            }
            Side::ControllerRuntime(binary) => {
                let mut c = std::process::Command::new(binary);
                c.args(["--health-probe-bind-address", "0"]);
                // Extra flags of the peer, e.g. `--priority-queue=false`.
                let extra = std::env::var("SCALE_PEER_ARGS").unwrap_or_default();
                c.args(extra.split_whitespace());
                c
            }
        };
        let log = std::fs::File::create(log)?;
        Ok(command
            .args(["--lease-namespace", SYSTEM, "--workers", "4"])
            .args(["--metrics-bind-address", &metrics])
            .env("KUBECONFIG", kubeconfig)
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?)
    }
}

/// What one run measured.
#[derive(Debug)]
struct Figures {
    ready: Duration,
    latency_p50: Duration,
    latency_p99: Duration,
    /// Percentiles of the operator's own part of creation → Ready (see
    /// [`reaction`]).
    operator_p50: Duration,
    operator_p99: Duration,
    peak_rss_kib: u64,
    /// The highest `RssAnon` sampled (see [`sample_peak_anon`]).
    peak_anon_kib: u64,
    cpu_at_ready: f64,
    /// The control plane's CPU seconds from the first create to all Ready.
    plane_cpu: f64,
    /// The share of all CPUs' time busy over the same span (0 to 1).
    machine_busy: f64,
    /// Leading → the warm-up application Ready.
    startup: Duration,
    /// How long the bench took to create every application (runs without
    /// a rate only): the apiserver's pace, which the operator's load on it
    /// slows, so latencies of runs whose creates took longer are measured
    /// from later creations.
    creating: Option<Duration>,
    /// Applications created, the warm-up one included.
    objects: usize,
    requests: BTreeMap<String, usize>,
    /// The steady-state writes (Lease renewals aside) by
    /// `verb resource[/subresource]`.
    steady_by_kind: BTreeMap<String, usize>,
    rss_after_delete_kib: u64,
}

/// How long without a write (Lease renewals aside) counts as settled.
const SETTLE: Duration = Duration::from_secs(3);
/// The longest wait for the operator to settle before the steady window.
const SETTLE_LIMIT: Duration = Duration::from_secs(60);

/// Requests by verb.
fn by_verb(records: &[kubegen_testenv::AuditRecord]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for r in records {
        *counts.entry(r.verb.clone()).or_default() += 1;
    }
    counts
}

/// Writes other than Lease renewals, by `verb resource[/subresource]`.
fn writes_by_kind(records: &[kubegen_testenv::AuditRecord]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for r in records {
        if r.is_write() && r.resource != "leases" {
            let (_, _, resource) = r.permission();
            *counts.entry(format!("{} {resource}", r.verb)).or_default() += 1;
        }
    }
    counts
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// What the bench saw of every application, by `namespace/name`: when it
/// was created and first Ready.
#[derive(Default)]
struct Timeline {
    created: HashMap<String, Instant>,
    ready: HashMap<String, Instant>,
}

impl Timeline {
    /// Creation → Ready of every application Ready.
    fn latencies(&self) -> Vec<Duration> {
        self.ready
            .iter()
            .filter_map(|(name, at)| Some(at.saturating_duration_since(*self.created.get(name)?)))
            .collect()
    }
}

/// Watches every MyApplication and records when each is first Ready.
fn watch_ready(
    admin: kubegen::Client,
    timeline: Arc<Mutex<Timeline>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let events = watcher(Api::<MyApplication>::all(admin), watcher::Config::default());
        let mut events = std::pin::pin!(events);
        while let Ok(Some(event)) = events.try_next().await {
            let apps: Vec<MyApplication> = match event {
                watcher::Event::Apply(app) | watcher::Event::InitApply(app) => vec![app],
                _ => continue,
            };
            let now = Instant::now();
            let mut timeline = timeline.lock().unwrap();
            for app in apps {
                let ready = app.status.as_ref().is_some_and(|s| {
                    kubegen::conditions::is_condition_true(&s.conditions, "Ready")
                });
                if ready {
                    let name = format!(
                        "{}/{}",
                        app.metadata.namespace.unwrap_or_default(),
                        app.metadata.name.unwrap_or_default()
                    );
                    timeline.ready.entry(name).or_insert(now);
                }
            }
        }
    })
}

/// One operator, `apps` applications created `rate` per second (`None`:
/// 16 at a time as fast as the apiserver takes them), on a fresh plane.
async fn run(
    side: &Side,
    apps: usize,
    namespaces: usize,
    rate: Option<f64>,
    steady: Duration,
) -> Result<Figures> {
    // 110 pods per kwok node; one pod per application.
    let nodes = apps.div_ceil(100).max(3);
    let env = TestEnv::start_with(Options {
        nodes,
        audited_writes: reaction::audited(),
        ..Options::default()
    })
    .await?;
    let admin = env.client().await?;

    // The CRD (awaited until Established) and the generated ClusterRole.
    my_application_bench::install(&admin).await?;
    my_application_bench::wait_out_create_hold(&admin).await?;
    let namespace_api = Api::<Namespace>::all(admin.clone());
    let new_namespace = |name: &str| {
        serde_json::from_value::<Namespace>(serde_json::json!({ "metadata": { "name": name } }))
    };
    namespace_api
        .create(&PostParams::default(), &new_namespace(SYSTEM)?)
        .await?;
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&PostParams::default(), &serde_json::from_value(serde_json::json!({
            "metadata": { "name": "scale-operator" },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-application-controller" },
            "subjects": [{ "kind": "ServiceAccount", "name": ACCOUNT, "namespace": SYSTEM }],
        }))?)
        .await?;
    // Creates the ServiceAccount the binding names.
    let kubeconfig = env.kubeconfig_for_service_account(SYSTEM, ACCOUNT).await?;
    let names: Vec<String> = (0..namespaces).map(|i| format!("scale-{i}")).collect();
    for ns in &names {
        namespace_api
            .create(&PostParams::default(), &new_namespace(ns)?)
            .await?;
    }

    let log = env.dir().join(format!("{}.log", side.name()));
    let mut operator = side.spawn(&kubeconfig, &log)?;
    let pid = operator.id();
    let result = measure(&env, &admin, pid, &names, apps, rate, steady).await;
    let _ = operator.kill();
    let _ = operator.wait();
    result.with_context(|| format!("{} (log: {})", side.name(), log.display()))
}

/// Applications every run creates before its clock starts: the one
/// [`warm_up`] creates.
const WARM_UP: usize = 1;
/// The name of that application.
const WARM_UP_NAME: &str = "warm-up";

/// Creates application `warm-up` in `namespace` and waits until it is
/// Ready; returns when it was seen Ready. It is left out of the latencies
/// (they count only applications the clock saw created).
async fn warm_up(
    admin: &kubegen::Client,
    namespace: &str,
    timeline: &Mutex<Timeline>,
) -> Result<Instant> {
    Api::<MyApplication>::namespaced(admin.clone(), namespace)
        .create(&PostParams::default(), &application(WARM_UP_NAME))
        .await?;
    let key = format!("{namespace}/{WARM_UP_NAME}");
    kubegen_testenv::eventually(
        Duration::from_secs(120),
        "the warm-up application to be Ready",
        || {
            let ready = timeline.lock().unwrap().ready.get(&key).copied();
            async move { Ok(ready) }
        },
    )
    .await
}

async fn measure(
    env: &TestEnv,
    admin: &kubegen::Client,
    pid: u32,
    names: &[String],
    apps: usize,
    rate: Option<f64>,
    steady: Duration,
) -> Result<Figures> {
    let peak_anon = Arc::new(AtomicU64::new(0));
    let anon_sampler = sample_peak_anon(pid, peak_anon.clone());
    // Wait until the operator leads.
    let leases = Api::<Lease>::namespaced(admin.clone(), SYSTEM);
    kubegen_testenv::eventually(Duration::from_secs(120), "the operator to lead", || {
        let leases = leases.clone();
        async move {
            let lease = leases.get_opt("my-application-controller").await?;
            let holder = lease.and_then(|l| l.spec).and_then(|s| s.holder_identity);
            Ok(holder.map(|_| ()))
        }
    })
    .await?;

    let timeline = Arc::new(Mutex::new(Timeline::default()));
    let watch = watch_ready(admin.clone(), timeline.clone());
    let led = Instant::now();
    // Every run measures a running operator: one application first, and
    // the clock starts once it is Ready. (An operator that starts its
    // informers only once it leads, as controller-runtime does without
    // `EnableWarmup`, would otherwise get a burst created right after it
    // leads in its initial list, which both operators' queues serve at low
    // priority, and the runs would compare different queue orders.)
    let startup = warm_up(admin, &names[0], &timeline).await? - led;
    let begun = Instant::now();
    let (plane_cpu_begun, machine_begun) = (plane_cpu_seconds(env), machine_ticks());
    let creates = futures::stream::iter(0..apps)
        .map(|i| {
            let ns = &names[i % names.len()];
            let api = Api::<MyApplication>::namespaced(admin.clone(), ns);
            let timeline = timeline.clone();
            let key = format!("{ns}/app-{i}");
            async move {
                if let Some(rate) = rate {
                    let due = begun + Duration::from_secs_f64(i as f64 / rate);
                    tokio::time::sleep_until(due.into()).await;
                }
                let app = application(&format!("app-{i}"));
                timeline.lock().unwrap().created.insert(key, Instant::now());
                api.create(&PostParams::default(), &app).await
            }
        })
        .buffer_unordered(if rate.is_some() { apps.max(1) } else { 16 })
        .collect::<Vec<_>>()
        .await;
    let creating = rate.is_none().then(|| begun.elapsed());
    if let Some(Err(e)) = creates.into_iter().find(Result::is_err) {
        bail!("creating applications: {e}");
    }
    loop {
        if timeline.lock().unwrap().ready.len() >= apps + WARM_UP {
            break;
        }
        if begun.elapsed() > Duration::from_secs(1800) {
            let ready = timeline.lock().unwrap().ready.len() - WARM_UP;
            bail!("only {ready}/{apps} Ready after 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let ready = begun.elapsed();
    let cpu_at_ready = cpu_seconds(pid);
    let plane_cpu = plane_cpu_seconds(env) - plane_cpu_begun;
    let machine_busy = {
        let (busy, total) = machine_ticks();
        (busy - machine_begun.0) as f64 / (total - machine_begun.1).max(1) as f64
    };
    watch.abort();
    let mut latencies = timeline.lock().unwrap().latencies();
    latencies.sort();

    // Steady state: nothing changes, so nothing should be written. It
    // starts once the operator has settled — no write for SETTLE, so that
    // the last applications' events, recorded in the background after
    // their status (both operators do so), count as work, not as steady
    // writes — or after SETTLE_LIMIT at most, whichever comes first.
    let settle_begun = Instant::now();
    let mut seen = env.audit_requests(SYSTEM, ACCOUNT)?;
    while settle_begun.elapsed() < SETTLE_LIMIT {
        tokio::time::sleep(SETTLE).await;
        let now = env.audit_requests(SYSTEM, ACCOUNT)?;
        let settled = writes_by_kind(&now) == writes_by_kind(&seen);
        seen = now;
        if settled {
            break;
        }
    }
    let before = seen.len();
    tokio::time::sleep(steady).await;
    let records = env.audit_requests(SYSTEM, ACCOUNT)?;
    let requests = by_verb(&records);
    let operator = format!("system:serviceaccount:{SYSTEM}:{ACCOUNT}");
    let mut operator_latencies = reaction::reactions(&env.audit_writes()?, &operator, WARM_UP_NAME);
    operator_latencies.sort();
    let steady_by_kind = writes_by_kind(records.get(before..).unwrap_or_default());
    let peak_rss_kib = status_kib(pid, "VmHWM:");
    anon_sampler.abort();
    let peak_anon_kib = peak_anon.load(Ordering::Relaxed);

    // Delete everything; the garbage collector removes the children.
    for ns in names {
        Api::<MyApplication>::namespaced(admin.clone(), ns)
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await?;
    }
    let children = ListParams::default().labels("app=my-application").limit(1);
    kubegen_testenv::eventually(Duration::from_secs(600), "every child collected", || {
        let (deployments, services, all) = (
            Api::<Deployment>::all(admin.clone()),
            Api::<Service>::all(admin.clone()),
            Api::<MyApplication>::all(admin.clone()),
        );
        let children = children.clone();
        async move {
            let left = deployments.list_metadata(&children).await?.items.len()
                + services.list_metadata(&children).await?.items.len()
                + all
                    .list_metadata(&ListParams::default().limit(1))
                    .await?
                    .items
                    .len();
            Ok((left == 0).then_some(()))
        }
    })
    .await?;
    // Let the operator's caches and queues settle.
    tokio::time::sleep(Duration::from_secs(5)).await;
    Ok(Figures {
        ready,
        latency_p50: percentile(&latencies, 0.5),
        latency_p99: percentile(&latencies, 0.99),
        operator_p50: percentile(&operator_latencies, 0.5),
        operator_p99: percentile(&operator_latencies, 0.99),
        peak_rss_kib,
        peak_anon_kib,
        cpu_at_ready,
        plane_cpu,
        machine_busy,
        startup,
        creating,
        objects: apps + WARM_UP,
        requests,
        steady_by_kind,
        rss_after_delete_kib: status_kib(pid, "VmRSS:"),
    })
}

/// Builds the controller-runtime peer (cached); `None` without Go.
fn peer_binary() -> Option<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../peer-go");
    let out = std::process::Command::new("bash")
        .arg(root.join("build.sh"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("the controller-runtime peer could not be built; its rows are skipped");
        return None;
    }
    let path = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()?
        .trim()
        .to_string();
    let go_mod = std::fs::read_to_string(root.join("go.mod")).unwrap_or_default();
    let version = |module: &str| {
        go_mod
            .lines()
            .find_map(|l| l.trim().strip_prefix(module))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    let versions = format!(
        "controller-runtime {}, client-go {}",
        version("sigs.k8s.io/controller-runtime "),
        version("k8s.io/client-go ")
    );
    Some((PathBuf::from(path), versions))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The figures of one run by metric: (metric, value, unit), requests by
/// verb per object included.
fn metrics(f: &Figures) -> Vec<(String, f64, &'static str)> {
    let mut rows = vec![
        ("time to all Ready".to_string(), f.ready.as_secs_f64(), "s"),
        (
            "create→Ready p50".to_string(),
            f.latency_p50.as_secs_f64(),
            "s",
        ),
        (
            "create→Ready p99".to_string(),
            f.latency_p99.as_secs_f64(),
            "s",
        ),
        (
            "operator's own latency p50 (create→its Deployment create + Deployment status→its Ready patch, at the apiserver)".to_string(),
            f.operator_p50.as_secs_f64() * 1e3,
            "ms",
        ),
        (
            "operator's own latency p99".to_string(),
            f.operator_p99.as_secs_f64() * 1e3,
            "ms",
        ),
        ("operator peak RSS".to_string(), mib(f.peak_rss_kib), "MiB"),
        (
            "operator peak anonymous memory (RssAnon)".to_string(),
            mib(f.peak_anon_kib),
            "MiB",
        ),
        ("operator CPU until Ready".to_string(), f.cpu_at_ready, "s"),
        (
            "control plane CPU, first create → all Ready".to_string(),
            f.plane_cpu,
            "s",
        ),
        (
            "machine CPUs busy, first create → all Ready".to_string(),
            f.machine_busy * 100.0,
            "%",
        ),
        (
            "start-up: leading → first application Ready".to_string(),
            f.startup.as_secs_f64() * 1e3,
            "ms",
        ),
    ];
    if let Some(creating) = f.creating {
        rows.push((
            "the bench creating every application (16 at a time)".to_string(),
            creating.as_secs_f64(),
            "s",
        ));
    }
    rows.extend([
        (
            "steady-state writes".to_string(),
            f.steady_by_kind.values().sum::<usize>() as f64,
            "requests",
        ),
        (
            "RSS after deleting everything".to_string(),
            mib(f.rss_after_delete_kib),
            "MiB",
        ),
    ]);
    for (verb, n) in &f.requests {
        rows.push((
            format!("{verb} requests per object"),
            *n as f64 / f.objects as f64,
            "requests",
        ));
    }
    rows
}

/// Each metric's median over several runs of one side (none for a side
/// that did not run).
fn medians(runs: &[Figures]) -> Vec<(String, f64, &'static str)> {
    let mut by_name: BTreeMap<String, (Vec<f64>, &'static str)> = BTreeMap::new();
    let mut order = Vec::new();
    for figures in runs {
        for (name, value, unit) in metrics(figures) {
            let entry = by_name.entry(name.clone()).or_insert_with(|| {
                order.push(name);
                (Vec::new(), unit)
            });
            entry.0.push(value);
        }
    }
    order
        .into_iter()
        .map(|name| {
            let (mut values, unit) = by_name.remove(&name).unwrap_or_default();
            // A run that made no request of a verb made 0 of them.
            values.resize(runs.len(), 0.0);
            values.sort_by(f64::total_cmp);
            (name, values[values.len() / 2], unit)
        })
        .collect()
}

/// One `BENCH` line per metric either side has (medians over the runs).
fn print(label: &str, ours: &[Figures], peer: &[Figures], peer_versions: &str) {
    let ours = medians(ours);
    let peer = medians(peer);
    let mut seen = std::collections::BTreeSet::new();
    for (name, _, _) in ours.iter().chain(&peer) {
        if !seen.insert(name) {
            continue;
        }
        let find = |rows: &[(String, f64, &'static str)]| {
            rows.iter()
                .find(|(n, _, _)| n == name)
                .map(|(_, v, u)| (*v, *u))
        };
        // A side that ran and made no request of a verb made 0 of them.
        let zero = name.ends_with("per object").then_some((0.0, "requests"));
        let a = find(&ours).or(zero);
        let b = find(&peer).or(zero.filter(|_| !peer.is_empty()));
        let unit = a.or(b).map_or("", |(_, u)| u);
        let shown = |v: Option<(f64, &str)>| v.map_or("-".to_string(), |(v, _)| format!("{v:.3}"));
        println!(
            "BENCH\t{name}, {label} (kubegen 0.1.0, kube 5 vs {peer_versions})\t{}\t{}\t{unit}",
            shown(a),
            shown(b)
        );
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let sizes: Vec<usize> = std::env::var("SCALE_APPS")
        .unwrap_or_else(|_| "1000,5000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|&n| n > 0)
        .collect();
    let namespaces = env_usize("SCALE_NAMESPACES", 10);
    let steady = Duration::from_secs(env_usize("SCALE_STEADY_SECS", 30) as u64);
    let runs = env_usize("SCALE_RUNS", 1).max(1);
    let paced = env_usize("SCALE_PACED", 200);
    let paced_runs = env_usize("SCALE_PACED_RUNS", 3).max(1);
    let rate = std::env::var("SCALE_RATE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(10.0);
    let peer = if env_usize("SCALE_PEER", 1) == 0 {
        None
    } else {
        peer_binary()
    };
    let peer_versions = peer.as_ref().map_or("-".to_string(), |(_, v)| v.clone());
    // kubegen's operator, built (in release, laid out) before any plane starts.
    let binary = my_application_bench::operator_binary()?;
    println!("operator: {}", binary.display());

    let mut scenarios: Vec<(String, usize, Option<f64>, usize)> = sizes
        .iter()
        .map(|&n| (format!("{n} apps"), n, None, runs))
        .collect();
    if paced > 0 {
        scenarios.push((
            format!("{paced} apps at {rate}/s"),
            paced,
            Some(rate),
            paced_runs,
        ));
    }
    let mut turn = 0;
    for (label, apps, pace, runs) in scenarios {
        println!("scale run: {label} in {namespaces} namespaces, {runs} run(s) each");
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            // Which operator goes first alternates from one pair of runs to
            // the next, so neither always meets the fresher machine.
            let mut sides = vec![Side::Kubegen];
            sides.extend(
                peer.as_ref()
                    .map(|(b, _)| Side::ControllerRuntime(b.clone())),
            );
            if turn % 2 == 1 {
                sides.reverse();
            }
            turn += 1;
            for side in sides {
                let figures = run(&side, apps, namespaces, pace, steady).await?;
                println!("  {}: {figures:?}", side.name());
                if !figures.steady_by_kind.is_empty() {
                    println!(
                        "  {} wrote in steady state: {:?}",
                        side.name(),
                        figures.steady_by_kind
                    );
                }
                match side {
                    Side::Kubegen => ours.push(figures),
                    Side::ControllerRuntime(_) => theirs.push(figures),
                }
            }
        }
        print(&label, &ours, &theirs, &peer_versions);
    }
    Ok(())
}
