//! A chaos soak of the MyApplication operator on a private control plane
//! (etcd, kube-apiserver, controller-manager, scheduler, kwok nodes): two
//! operator replicas with leader election, a churn of MyApplications
//! (create, update, delete, re-create), and faults every few seconds —
//! kill -9 of the apiserver, of etcd, of the leading replica — with the
//! invariants checked while it runs and at the end:
//!
//! - never two leaders acting: writes of different processes never
//!   overlap and are separated by a quiet gap, every write is fenced by its
//!   process's own Lease renewals, the Lease changes hands only after it
//!   expired (`audit.rs`, from the apiserver's audit log);
//! - no duplicate children, no child without a controller, at every poll
//!   (`cluster.rs`);
//! - every object converged within a bound (120 s) after the last fault:
//!   its last spec change reflected by exactly one Deployment and one
//!   Service, `status.observedGeneration` current, the status agreeing
//!   with the Deployment (`Ready=True` once its rollout completed); no
//!   children left of deleted applications (`cluster.rs`); after that, no
//!   status left behind its Deployment for more than [`STATUS_LAG`];
//!   whether every application also became Ready within [`READY_GRACE`]
//!   is reported, not failed (that is the controller-manager's and
//!   kwok's work, and they lag after faults);
//! - no panic in any operator process (its log, its exit code).
//!
//! `tests/chaos_e2e.rs` runs it for 60 s; `benches/chaos.rs` for 10
//! minutes. Both drive the example's `my-application-controller` binary
//! ([`my_application_bench::operator_binary`]). `KUBEGEN_CHAOS_SEED` replays a run's decisions;
//! `KUBEGEN_CHAOS_DURATION` (seconds) and `KUBEGEN_CHAOS_APPS` override the
//! size.
//!
//! **Sharded** ([`Mode::Sharded`]; `tests/chaos_e2e.rs` runs it too, and
//! `KUBEGEN_CHAOS_SHARDED=N` makes any soak sharded with N partitions):
//! up to three replicas run `--shard-partitions N` without leader
//! election on a plane whose apiserver has the `ShardedListAndWatch`
//! feature gate, so that their MyApplication informers may be filtered
//! on the server (the figures say whether they were). The soak starts one replica, scales to three and back down to
//! two — stopping one by SIGTERM, a graceful handover — and kills random
//! replicas instead of the leader (`faults.rs`). The invariants are the
//! same but per partition (`shard_audit.rs`): every write fenced by its
//! process's own renewal of its application's partition Lease, never two
//! processes acting on one partition, a partition changing hands only
//! after a release or expiry; also no process exiting on its own, and,
//! once converged, every replica caching exactly the objects of its
//! partitions (`shards.rs`).

pub mod audit;
pub mod churn;
mod cluster;
mod faults;
mod replicas;
mod rng;
pub mod shard_audit;
mod shards;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, Role, RoleBinding};
use kubegen::api::{Api, PostParams};
use kubegen::sharding::Partitions;
use kubegen_testenv::{TestEnv, eventually};
use tokio_util::sync::CancellationToken;

use audit::AuditFigures;
use churn::SharedBook;
use cluster::{Cluster, POLL};
use faults::{FaultKind, FaultStats};
use replicas::{LEASE_NAME, ReplicaStats, Replicas};
use shard_audit::ShardAuditFigures;
use shards::CacheCheck;

/// How long, once everything reflects its last intent, the soak waits
/// for every application to be Ready as well. Readiness needs the
/// controller-manager and kwok to bring pods up, and after etcd and
/// apiserver kills the controller-manager's ReplicaSet controller can lag
/// for minutes (a stale pod informer, then per-key exponential backoff):
/// not the operator's doing, so it is reported, not failed.
const READY_GRACE: Duration = Duration::from_secs(30);

/// How long, once everything converged, an application may go on not
/// reflecting its Deployment (whose status the controller-manager keeps
/// changing as pods come up) before the soak fails: the operator watches
/// its Deployments and follows within a reconcile.
const STATUS_LAG: Duration = Duration::from_secs(10);

/// How the replicas share the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Two replicas, one leader at a time.
    LeaderElection,
    /// One to three replicas splitting `partitions` partitions.
    Sharded {
        /// `--shard-partitions`.
        partitions: u32,
    },
}

/// The size of one soak.
#[derive(Debug, Clone)]
pub struct Config {
    /// Leader election or sharding.
    pub mode: Mode,
    /// How long the churn and the faults go on.
    pub duration: Duration,
    /// How many application names the churn uses.
    pub apps: usize,
    /// How long everything may take to converge after the last fault (or
    /// the last change, if later) before the soak fails.
    pub convergence_bound: Duration,
    /// The seed of every random decision.
    pub seed: u64,
}

impl Config {
    /// `duration` and `apps` unless `KUBEGEN_CHAOS_DURATION` (seconds) or
    /// `KUBEGEN_CHAOS_APPS` say otherwise; the seed from
    /// `KUBEGEN_CHAOS_SEED` or the clock; a 120 s convergence bound;
    /// leader election unless `KUBEGEN_CHAOS_SHARDED` gives a partition
    /// count.
    pub fn from_env(duration: Duration, apps: usize) -> Config {
        fn number<T: std::str::FromStr>(name: &str) -> Option<T> {
            std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
        }
        Config {
            mode: number("KUBEGEN_CHAOS_SHARDED").map_or(Mode::LeaderElection, |partitions| {
                Mode::Sharded { partitions }
            }),
            duration: number("KUBEGEN_CHAOS_DURATION").map_or(duration, Duration::from_secs),
            apps: number("KUBEGEN_CHAOS_APPS").map_or(apps, |n: u64| n.max(1) as usize),
            convergence_bound: Duration::from_secs(120),
            seed: rng::seed_from_env(),
        }
    }
}

/// What the soak measured, and the invariants it found broken.
#[derive(Debug)]
pub struct Report {
    config: Config,
    faults: FaultStats,
    replicas: ReplicaStats,
    changes: BTreeMap<&'static str, usize>,
    retries: usize,
    objects: usize,
    audit: AuditFigures,
    /// Per change: from its confirmation until the object was seen
    /// reflecting it, and Ready.
    samples: cluster::Samples,
    /// From the end of the last fault until everything reflected its
    /// last intent.
    settled: Option<Duration>,
    /// From the end of the last fault until every application was also
    /// Ready, if it happened within [`READY_GRACE`] after `settled`.
    all_ready: Option<Duration>,
    /// Applications not Ready when the soak stopped waiting.
    not_ready: usize,
    /// What the sharded soak saw besides.
    sharded: Option<ShardReport>,
    /// Broken invariants; empty when the soak passed.
    pub violations: Vec<String>,
    /// Where the logs were kept (when there are violations, or not every
    /// application became Ready); else the removed plane's directory.
    pub dir: std::path::PathBuf,
}

/// The sharded soak's own figures.
#[derive(Debug)]
struct ShardReport {
    partitions: u32,
    audit: ShardAuditFigures,
    /// Lease versions the watch saw.
    lease_versions: usize,
    /// `None`: not checked (no convergence).
    caches: Option<CacheCheck>,
    /// Incarnations whose MyApplication informer the apiserver filtered,
    /// and did not.
    filtering: (usize, usize),
}

/// The `q` quantile (nearest rank) of sorted `samples`.
fn quantile(samples: &[Duration], q: f64) -> Option<Duration> {
    let last = samples.len().checked_sub(1)?;
    let rank = ((q * samples.len() as f64).ceil() as usize).saturating_sub(1);
    Some(samples[rank.min(last)])
}

fn secs(d: Option<Duration>) -> String {
    d.map_or_else(|| "-".into(), |d| format!("{:.2} s", d.as_secs_f64()))
}

fn micros(m: Option<i64>) -> String {
    m.map_or_else(|| "-".into(), |m| format!("{:.3} s", m as f64 / 1e6))
}

impl Report {
    /// The figures as one table.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let mut row = |k: &str, v: String| {
            let _ = writeln!(t, "  {k:<34} {v}");
        };
        let total: usize = self.faults.injected.values().sum();
        let kinds = match self.config.mode {
            Mode::LeaderElection => &[FaultKind::ApiServer, FaultKind::Etcd, FaultKind::Leader][..],
            Mode::Sharded { .. } => &[
                FaultKind::ApiServer,
                FaultKind::Etcd,
                FaultKind::Replica,
                FaultKind::ScaleUp,
                FaultKind::ScaleDown,
            ][..],
        };
        let kinds = kinds
            .iter()
            .map(|k| {
                format!(
                    "{} {} ({:.1} s)",
                    k.label(),
                    self.faults.injected.get(k).copied().unwrap_or(0),
                    self.faults
                        .downtime
                        .get(k)
                        .copied()
                        .unwrap_or_default()
                        .as_secs_f64()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let exits = self.replicas.exits.values().sum::<usize>();
        if let Some(sharded) = &self.sharded {
            return self.sharded_table(sharded, &kinds, exits);
        }
        let writes = self.audit.total_writes();
        let mut reflected = self.samples.reflected.clone();
        reflected.sort();
        let mut ready = self.samples.ready.clone();
        ready.sort();
        let spread = |samples: &[Duration]| {
            format!(
                "p50 {}, p99 {}, max {} (n = {})",
                secs(quantile(samples, 0.5)),
                secs(quantile(samples, 0.99)),
                secs(samples.last().copied()),
                samples.len()
            )
        };
        row("seed", format!("{} (KUBEGEN_CHAOS_SEED)", self.config.seed));
        row(
            "duration, applications",
            format!(
                "{:.0} s of churn and faults, {} names",
                self.config.duration.as_secs_f64(),
                self.config.apps
            ),
        );
        row(
            "faults injected",
            format!(
                "{total}: {kinds}; leader kills skipped {}",
                self.faults.skipped
            ),
        );
        row(
            "operator processes",
            format!(
                "{} started: {} leaders killed, {} exited on their own {:?} (code: count)",
                self.replicas.starts, self.replicas.killed, exits, self.replicas.exits
            ),
        );
        row(
            "changes confirmed",
            format!("{:?}, {} requests retried", self.changes, self.retries),
        );
        row("objects ever created", self.objects.to_string());
        row(
            "operator writes (2xx)",
            format!(
                "{writes} {:?}; {} failed",
                self.audit.writes, self.audit.failed_writes
            ),
        );
        row(
            "writes per object",
            format!("{:.2}", writes as f64 / self.objects.max(1) as f64),
        );
        row(
            "writers, write handovers",
            format!(
                "{} processes wrote, {} handovers, min gap {}{}",
                self.audit.writers,
                self.audit.handovers.len(),
                micros(self.audit.min_gap().map(|h| h.gap)),
                self.audit
                    .min_gap()
                    .map_or_else(String::new, |h| format!(" ({} → {})", h.from, h.to))
            ),
        );
        row(
            "Lease",
            format!(
                "{} writes, {} changes of holder (min {} after the last renewal), writes at most {} after a renewal",
                self.audit.lease_writes,
                self.audit.lease_handovers,
                micros(self.audit.min_lease_handover),
                micros(self.audit.max_since_renew)
            ),
        );
        row("change reflected (children, status)", spread(&reflected));
        row("change Ready (or gone)", spread(&ready));
        row(
            "converged after the last fault",
            format!(
                "{} (bound {:.0} s); all Ready after {}{}",
                secs(self.settled),
                self.config.convergence_bound.as_secs_f64(),
                secs(self.all_ready),
                match self.not_ready {
                    0 => String::new(),
                    n => format!(" ({n} not Ready {READY_GRACE:?} later: control-plane lag)"),
                }
            ),
        );
        row("violations", self.violations.len().to_string());
        t
    }

    /// The figures of a sharded soak.
    fn sharded_table(&self, sharded: &ShardReport, kinds: &str, exits: usize) -> String {
        let mut t = String::new();
        let mut row = |k: &str, v: String| {
            let _ = writeln!(t, "  {k:<34} {v}");
        };
        let audit = &sharded.audit;
        let total: usize = self.faults.injected.values().sum();
        let writes = audit.total_writes();
        let mut reflected = self.samples.reflected.clone();
        reflected.sort();
        let spread = |samples: &[Duration]| {
            format!(
                "p50 {}, p99 {}, max {} (n = {})",
                secs(quantile(samples, 0.5)),
                secs(quantile(samples, 0.99)),
                secs(samples.last().copied()),
                samples.len()
            )
        };
        row("seed", format!("{} (KUBEGEN_CHAOS_SEED)", self.config.seed));
        row(
            "duration, applications, partitions",
            format!(
                "{:.0} s of churn and faults, {} names, {} partitions",
                self.config.duration.as_secs_f64(),
                self.config.apps,
                sharded.partitions
            ),
        );
        row(
            "faults injected",
            format!(
                "{total}: {kinds}; replica kills skipped {}",
                self.faults.skipped
            ),
        );
        row(
            "operator processes",
            format!(
                "{} started: {} killed -9, {} stopped by SIGTERM {:?} (code: count), {} exited on their own {:?}",
                self.replicas.starts,
                self.replicas.killed,
                self.replicas.terminated.values().sum::<usize>(),
                self.replicas.terminated,
                exits,
                self.replicas.exits
            ),
        );
        row(
            "changes confirmed",
            format!("{:?}, {} requests retried", self.changes, self.retries),
        );
        row("objects ever created", self.objects.to_string());
        row(
            "operator writes (2xx)",
            format!(
                "{writes} {:?}; {} failed; {} for an application deleted > {} s before",
                audit.writes,
                audit.failed_writes,
                audit.stale,
                shard_audit::STALE_GRACE / 1_000_000
            ),
        );
        row(
            "partition Lease writes",
            format!(
                "{}; {} Lease versions watched",
                audit.lease_writes, sharded.lease_versions
            ),
        );
        row(
            "partition handovers",
            format!(
                "{}: {} after a release (min {}), {} after expiry (min {}), {} unverified",
                audit.partition_handovers,
                audit.released,
                micros(audit.min_release_handover),
                audit.expired,
                micros(audit.min_expiry_handover),
                audit.unverified
            ),
        );
        row(
            "writers of one application",
            format!(
                "{} processes wrote; {} changes of writer, min gap {}{}",
                audit.writers,
                audit.object_handovers.len(),
                micros(audit.min_gap().map(|h| h.gap)),
                audit.min_gap().map_or_else(String::new, |h| format!(
                    " ({} → {}, {} in partition {})",
                    h.from, h.to, h.app, h.partition
                ))
            ),
        );
        row(
            "fencing",
            format!(
                "writes at most {} after their process renewed their partition",
                micros(audit.max_since_renew)
            ),
        );
        row("double-acting windows", audit.double_acting.to_string());
        row(
            "apiserver filtering",
            format!(
                "{} incarnations' MyApplication informers sent a shardSelector, {} filtered on the client",
                sharded.filtering.0, sharded.filtering.1
            ),
        );
        match &sharded.caches {
            None => row("caches", "not checked (no convergence)".into()),
            Some(caches) => {
                row(
                    "caches = own partitions",
                    if caches.matched { "yes" } else { "NO" }.to_string(),
                );
                for line in &caches.replicas {
                    row("", line.clone());
                }
            }
        }
        row("change reflected (children, status)", spread(&reflected));
        row(
            "converged after the last fault",
            format!(
                "{} (bound {:.0} s); all Ready after {}{}",
                secs(self.settled),
                self.config.convergence_bound.as_secs_f64(),
                secs(self.all_ready),
                match self.not_ready {
                    0 => String::new(),
                    n => format!(" ({n} not Ready {READY_GRACE:?} later: control-plane lag)"),
                }
            ),
        );
        row("violations", self.violations.len().to_string());
        t
    }
}

/// Copies the plane's logs (audit log included) and the operators' logs
/// out of `dir` — which `TestEnv` start-ups of other test processes
/// delete once this process is gone — into `$TMPDIR/kubegen-chaos-<pid>`.
fn keep_logs(dir: &std::path::Path) -> std::path::PathBuf {
    let kept = std::env::temp_dir().join(format!("kubegen-chaos-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&kept);
    for from in [dir.to_path_buf(), dir.join("logs")] {
        for entry in std::fs::read_dir(&from).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "log") {
                let _ = std::fs::copy(&path, kept.join(entry.file_name()));
            }
        }
    }
    kept
}

/// What kubectl shows of the namespace (pods, ReplicaSets, Deployments,
/// applications, then the pods in full), to explain a failure to converge.
fn cluster_state(env: &TestEnv, ns: &str) -> String {
    let mut out = String::new();
    for args in [
        &[
            "get",
            "pods,replicasets,deployments,myapplications",
            "-o",
            "wide",
        ][..],
        &["get", "myapplications,deployments,pods", "-o", "yaml"][..],
    ] {
        match env.kubectl().args(["-n", ns]).args(args).output() {
            Ok(o) => {
                out.push_str(&String::from_utf8_lossy(&o.stdout));
                out.push_str(&String::from_utf8_lossy(&o.stderr));
            }
            Err(e) => out.push_str(&format!("kubectl: {e}\n")),
        }
    }
    out
}

/// What the observer saw during the soak.
#[derive(Default)]
struct Observations {
    samples: cluster::Samples,
    /// Distinct always-invariant violations, with how often each was seen.
    violations: BTreeMap<String, usize>,
}

fn observe(book: &SharedBook, snapshot: &cluster::Snapshot, seen: &Mutex<Observations>) {
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    cluster::record_convergence(book, snapshot, &mut seen.samples);
    for v in snapshot.always_violations() {
        *seen.violations.entry(v).or_default() += 1;
    }
}

/// Runs one soak and returns its report; the caller fails on
/// [`Report::violations`]. An `Err` is a failure of the harness or the
/// control plane (a component that could not be restarted).
pub async fn soak(config: Config) -> Result<Report> {
    println!(
        "chaos soak: seed {} (set KUBEGEN_CHAOS_SEED to replay), {:?}, {} applications",
        config.seed, config.duration, config.apps
    );
    let mut rng = rng::Rng::new(config.seed);
    // Built before the plane starts, so that no replica waits for cargo.
    let binary = tokio::task::spawn_blocking(my_application_bench::operator_binary).await??;
    println!("operator: {}", binary.display());
    let sharding = match config.mode {
        Mode::LeaderElection => None,
        Mode::Sharded { partitions } => Some(
            Partitions::new(partitions)
                .with_context(|| format!("{partitions} partitions: 1 to 256"))?,
        ),
    };
    let env = Arc::new(match sharding {
        None => TestEnv::start().await?,
        // The apiserver filters the sharded informers' lists and watches.
        Some(_) => {
            TestEnv::start_with(kubegen_testenv::Options {
                feature_gates: vec!["ShardedListAndWatch=true".into()],
                ..kubegen_testenv::Options::default()
            })
            .await?
        }
    });
    println!(
        "control plane up in {:.1} s at {}",
        env.startup_time().as_secs_f64(),
        env.dir().display()
    );
    let admin = env.client().await?;
    my_application_bench::install(&admin).await?;
    let ns = env.namespace("chaos").await?;
    let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": { "name": format!("{ns}-operators") },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-application-controller" },
        "subjects": [{ "kind": "Group", "name": format!("system:serviceaccounts:{ns}"), "apiGroup": "rbac.authorization.k8s.io" }],
    }))?;
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&PostParams::default(), &binding)
        .await?;
    if sharding.is_some() {
        lease_role(&admin, &ns).await?;
    }
    let lease_watch = sharding.map(|_| shards::LeaseWatch::start(admin.clone(), &ns));

    // The replicas, supervised until the end.
    let replicas = Arc::new(match sharding {
        None => Replicas::new(env.clone(), &ns),
        // One at first; the faults scale them.
        Some(partitions) => Replicas::sharded(env.clone(), &ns, partitions.count(), 1),
    });
    let supervising = CancellationToken::new();
    let supervisor = {
        let (replicas, stop) = (replicas.clone(), supervising.clone());
        tokio::spawn(async move {
            while !stop.is_cancelled() {
                replicas.tick().await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let leases = Api::<Lease>::namespaced(admin.clone(), &ns);
    if let Some(partitions) = sharding {
        let holders = eventually(
            Duration::from_secs(90),
            "a replica to hold every partition",
            || async {
                Ok(shards::holders(&leases, partitions)
                    .await
                    .filter(|h| h.len() == partitions.count() as usize))
            },
        )
        .await?;
        println!(
            "partitions held: {holders:?}; churn, faults and scaling for {:?}",
            config.duration
        );
    } else {
        let leader = eventually(Duration::from_secs(90), "a replica to lead", || async {
            Ok(leases
                .get_opt("my-application-controller")
                .await?
                .and_then(|l| l.spec?.holder_identity)
                .filter(|h| !h.is_empty()))
        })
        .await?;
        println!("{leader} leads; churn and faults for {:?}", config.duration);
    }

    // Churn, observation and faults.
    let names = churn::names(config.apps);
    let book = churn::new_book(&names);
    let cluster = Cluster::new(admin.clone(), &ns);
    let seen = Arc::new(Mutex::new(Observations::default()));
    let observing = CancellationToken::new();
    let observer = {
        let (cluster, book, seen, stop) = (
            cluster.clone(),
            book.clone(),
            seen.clone(),
            observing.clone(),
        );
        tokio::spawn(async move {
            while !stop.is_cancelled() {
                if let Some(snapshot) = cluster.snapshot().await {
                    observe(&book, &snapshot, &seen);
                }
                tokio::time::sleep(POLL).await;
            }
        })
    };
    let begun = Instant::now();
    let until = begun + config.duration;
    let churning = tokio::spawn(churn::churn(
        Api::namespaced(admin.clone(), &ns),
        book.clone(),
        rng.fork(),
        until,
    ));
    let faults = match sharding {
        None => faults::inject(&env, &ns, &replicas, rng.fork(), until).await,
        Some(_) => faults::inject_sharded(&env, &replicas, rng.fork(), begun, until).await,
    };
    let churned = churning.await.context("the churn task panicked")?;
    observing.cancel();
    observer.await.context("the observer panicked")?;
    let faults = faults?;
    churned?;

    // Everything must converge within the bound after the last fault (or
    // change, if later).
    let last_fault = faults.last_restored.unwrap_or(begun);
    let quiet_from = churn::lock(&book)
        .last_change
        .map_or(last_fault, |c| c.max(last_fault));
    let deadline = quiet_from + config.convergence_bound;
    let mut violations = Vec::new();
    let mut state = String::new();
    let mut settled = None;
    let mut all_ready = None;
    let mut not_ready = 0;
    // Once settled: since when each name no longer reflects its Deployment.
    let mut lagging: BTreeMap<String, (Instant, String)> = BTreeMap::new();
    let mut last_seen = Instant::now();
    let mut next_progress = Instant::now();
    loop {
        let snapshot = cluster.snapshot().await;
        let now = Instant::now();
        if let Some(snapshot) = snapshot.as_ref().filter(|s| s.taken_at > quiet_from) {
            observe(&book, snapshot, &seen);
            let (unconverged, waiting) = cluster::unconverged(&book, snapshot);
            let orphans = snapshot.orphans();
            not_ready = waiting;
            if settled.is_none() && unconverged.is_empty() && orphans.is_empty() {
                settled = Some(snapshot.done_at - last_fault);
            }
            if now >= next_progress {
                next_progress = now + Duration::from_secs(10);
                println!(
                    "chaos: +{:.0?} after the last fault: {} not converged {:?}, {} children to collect, {waiting} not Ready",
                    now - last_fault,
                    unconverged.len(),
                    unconverged.first(),
                    orphans.len()
                );
            }
            if settled.is_some() {
                last_seen = snapshot.taken_at;
                lagging.retain(|name, _| unconverged.iter().any(|(n, _)| n == name));
                for (name, why) in &unconverged {
                    let entry = lagging
                        .entry(name.clone())
                        .or_insert((snapshot.taken_at, String::new()));
                    entry.1.clone_from(why);
                }
            }
            if settled.is_some() && not_ready == 0 && unconverged.is_empty() {
                all_ready = Some(snapshot.done_at - last_fault);
                break;
            }
            if settled.is_none() && now > deadline {
                violations.push(format!(
                    "not converged {:?} after the last fault: {unconverged:?}; children of no live application: {orphans:?}",
                    config.convergence_bound
                ));
                state = cluster_state(&env, &ns);
                break;
            }
        } else if settled.is_none() && now > deadline {
            violations.push("the apiserver did not answer after the last fault".into());
            break;
        }
        if settled.is_some_and(|s| now > last_fault + s + READY_GRACE) {
            state = cluster_state(&env, &ns);
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    for (name, (since, why)) in lagging {
        let lag = last_seen.duration_since(since);
        if lag >= STATUS_LAG {
            violations.push(format!(
                "{name} stopped reflecting its last intent after converging, for {lag:.1?}: {why}"
            ));
        }
    }
    // Sharded: each replica caches its partitions' objects only.
    let caches = match sharding {
        Some(partitions) if settled.is_some() => Some(
            shards::check_caches(&admin, &ns, &replicas, partitions, Duration::from_secs(30)).await,
        ),
        _ => None,
    };
    supervising.cancel();
    supervisor.await.context("the supervisor panicked")?;
    replicas.kill_all();

    // The leader invariants, or the sharded ones, from the audit log.
    let (audit, sharded) = match (sharding, lease_watch) {
        (Some(partitions), Some(watch)) => {
            let states = watch.finish().await;
            let incarnations = churn::lock(&book).incarnations.clone();
            let audit = shard_audit::analyze(
                &env.audit_log(),
                &ns,
                LEASE_NAME,
                partitions,
                &incarnations,
                &states,
            )?;
            violations.extend(audit.violations.iter().cloned());
            if let Some(caches) = &caches {
                violations.extend(caches.violations.iter().cloned());
            }
            // The plane has ShardedListAndWatch: the runtime's probe must
            // find it for the MyApplication informers (custom resources,
            // whose lists 1.36 filters without echoing shardInfo).
            let filtering = shards::filtering(&replicas.stats().logs);
            if filtering.1 > 0 || filtering.0 == 0 {
                violations.push(format!(
                    "the apiserver has ShardedListAndWatch, but {} incarnations' MyApplication informers filtered on the client ({} on the server)",
                    filtering.1, filtering.0
                ));
            }
            let report = ShardReport {
                partitions: partitions.count(),
                audit,
                lease_versions: states.len(),
                caches,
                filtering,
            };
            (AuditFigures::default(), Some(report))
        }
        _ => {
            let audit = audit::analyze(&env.audit_log(), &ns)?;
            violations.extend(audit.violations.iter().cloned());
            (audit, None)
        }
    };
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|p| p.into_inner()));
    for (violation, polls) in seen.violations {
        violations.push(format!("{violation} (seen in {polls} polls)"));
    }

    // No panic: not in any log, not as an exit code (101).
    let stats = replicas.stats();
    for log in &stats.logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("panicked")) {
            violations.push(format!("{}: {line}", log.display()));
        }
    }
    if sharded.is_some() {
        // Without leader election nothing makes a replica exit.
        for (code, count) in &stats.exits {
            violations.push(format!(
                "{count} operator processes exited on their own with code {code}"
            ));
        }
        for (code, count) in &stats.terminated {
            if *code != 0 {
                violations.push(format!(
                    "{count} operator processes exited with code {code} after SIGTERM (expected 0)"
                ));
            }
        }
        if stats.stop_timeouts > 0 {
            violations.push(format!(
                "{} operator processes did not exit within the grace period after SIGTERM",
                stats.stop_timeouts
            ));
        }
    } else {
        for (code, count) in &stats.exits {
            if *code != 1 {
                violations.push(format!(
                    "{count} operator processes exited with code {code} (expected 1: lost leadership)"
                ));
            }
        }
    }

    let book = churn::lock(&book);
    let mut report = Report {
        config,
        faults,
        replicas: stats,
        changes: book.changes.clone(),
        retries: book.retries,
        objects: book.uids.len(),
        audit,
        sharded,
        samples: seen.samples,
        settled,
        all_ready,
        not_ready,
        violations,
        dir: env.dir().to_path_buf(),
    };
    drop(book);
    println!("chaos soak figures:\n{}", report.table());
    for v in &report.violations {
        println!("VIOLATION: {v}");
    }
    if report.violations.is_empty() && state.is_empty() {
        drop(replicas);
        drop(env);
    } else {
        // Keep the logs (the plane's, the audit log, every operator's)
        // where the next control plane's start-up does not clean them up;
        // also when only the control plane lagged, to show how.
        report.dir = keep_logs(env.dir());
        if !state.is_empty() {
            let _ = std::fs::write(report.dir.join("cluster-state.txt"), &state);
        }
        println!("logs kept in {}", report.dir.display());
    }
    Ok(report)
}

/// Grants the namespace's ServiceAccounts what a sharded replica needs
/// besides the operator's ClusterRole: get, list, create, update and
/// delete of the Leases in `ns` (its partition and member Leases).
async fn lease_role(admin: &kubegen::Client, ns: &str) -> Result<()> {
    let role: Role = serde_json::from_value(serde_json::json!({
        "metadata": { "name": "shard-leases" },
        "rules": [{
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "verbs": ["get", "list", "create", "update", "delete"],
        }],
    }))?;
    let binding: RoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": { "name": "shard-leases" },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "shard-leases" },
        "subjects": [{ "kind": "Group", "name": format!("system:serviceaccounts:{ns}"), "apiGroup": "rbac.authorization.k8s.io" }],
    }))?;
    Api::<Role>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &role)
        .await?;
    Api::<RoleBinding>::namespaced(admin.clone(), ns)
        .create(&PostParams::default(), &binding)
        .await?;
    Ok(())
}
