//! The faults: one at a time, every few seconds, in rounds that each go
//! through the three kinds in a random order (so even a short soak sees
//! every kind):
//!
//! - **apiserver**: SIGKILL kube-apiserver, start it again after 1–5 s;
//! - **etcd**: SIGKILL etcd, start it again after 1–5 s (its data stays);
//! - **leader**: SIGKILL the operator replica holding the Lease; the
//!   supervisor restarts it after 1–3 s.
//!
//! A fault is over when the component serves again (apiserver `/readyz`,
//! etcd `/health`) or, for the leader, when it was killed (the restart and
//! the Lease's expiry are what the operator has to cope with).
//!
//! Sharded ([`inject_sharded`]) there is no leader: the third kind kills
//! a random running replica (restarted after 1–3 s), and between the
//! rounds the replicas are scaled on a plan ([`scale_plan`]): from one to
//! three, then down to two — the first slot stopped by SIGTERM, so that it
//! hands its partitions over, later ones alternately by kill -9 and
//! SIGTERM — and so on for longer soaks.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use k8s_openapi::api::coordination::v1::Lease;
use kubegen::api::Api;
use kubegen_testenv::TestEnv;

use super::replicas::Replicas;
use super::rng::Rng;

/// What a fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    /// kill -9 kube-apiserver, restart it.
    ApiServer,
    /// kill -9 etcd, restart it.
    Etcd,
    /// kill -9 the leading operator replica, restart it.
    Leader,
    /// kill -9 a random running replica (sharded), restart it.
    Replica,
    /// Start stopped replica slots (sharded).
    ScaleUp,
    /// Stop replica slots for good, by SIGTERM or kill -9 (sharded).
    ScaleDown,
}

impl FaultKind {
    /// The kind's name in the report.
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::ApiServer => "kill -9 apiserver",
            FaultKind::Etcd => "kill -9 etcd",
            FaultKind::Leader => "kill -9 leader",
            FaultKind::Replica => "kill -9 replica",
            FaultKind::ScaleUp => "scale up",
            FaultKind::ScaleDown => "scale down",
        }
    }
}

/// The faults of one soak.
#[derive(Debug, Default, Clone)]
pub struct FaultStats {
    /// Faults injected, by kind.
    pub injected: BTreeMap<FaultKind, usize>,
    /// Total outage of each kind (kill until serving again).
    pub downtime: BTreeMap<FaultKind, Duration>,
    /// Leader kills skipped because no running replica held the Lease.
    pub skipped: usize,
    /// When the last fault was injected.
    pub last_injected: Option<Instant>,
    /// When the last fault was over.
    pub last_restored: Option<Instant>,
}

/// Injects faults until `until`, then returns with the plane whole again.
pub async fn inject(
    env: &TestEnv,
    ns: &str,
    replicas: &Arc<Replicas>,
    mut rng: Rng,
    until: Instant,
) -> Result<FaultStats> {
    let admin = env.client().await?;
    let leases = Api::<Lease>::namespaced(admin, ns);
    let mut stats = FaultStats::default();
    let mut round = Vec::new();
    loop {
        let pause = rng.between(Duration::from_millis(1500), Duration::from_secs(4));
        if Instant::now() + pause >= until {
            return Ok(stats);
        }
        tokio::time::sleep(pause).await;
        if round.is_empty() {
            round = vec![FaultKind::ApiServer, FaultKind::Etcd, FaultKind::Leader];
            rng.shuffle(&mut round);
        }
        let kind = round.pop().context("a fault")?;
        let begun = Instant::now();
        match kind {
            FaultKind::ApiServer | FaultKind::Etcd => kill_component(env, kind, &mut rng).await?,
            FaultKind::Replica | FaultKind::ScaleUp | FaultKind::ScaleDown => {
                unreachable!("not a fault of the leader-elected soak")
            }
            FaultKind::Leader => {
                let restart_after = rng.between(Duration::from_secs(1), Duration::from_secs(3));
                let holder = tokio::time::timeout(
                    Duration::from_secs(5),
                    leases.get_opt("my-application-controller"),
                )
                .await
                .ok()
                .and_then(Result::ok)
                .flatten()
                .and_then(|l| l.spec)
                .and_then(|s| s.holder_identity)
                .unwrap_or_default();
                match replicas.kill_holder(&holder, restart_after) {
                    Some(name) => eprintln!(
                        "chaos: leader {name} killed, restarting after {restart_after:.1?}"
                    ),
                    None => {
                        eprintln!(
                            "chaos: no running replica holds the Lease ({holder:?}); no leader to kill"
                        );
                        stats.skipped += 1;
                        continue;
                    }
                }
            }
        }
        let restored = Instant::now();
        *stats.injected.entry(kind).or_default() += 1;
        *stats.downtime.entry(kind).or_default() += restored - begun;
        stats.last_injected = Some(begun);
        stats.last_restored = Some(restored);
    }
}

/// kill -9 the apiserver or etcd, and start it again after 1–5 s.
async fn kill_component(env: &TestEnv, kind: FaultKind, rng: &mut Rng) -> Result<()> {
    let down = rng.between(Duration::from_secs(1), Duration::from_secs(5));
    if kind == FaultKind::ApiServer {
        env.kill_apiserver();
        eprintln!("chaos: apiserver killed, down for {down:.1?}");
        tokio::time::sleep(down).await;
        env.start_apiserver()
            .await
            .context("restarting the apiserver")?;
    } else {
        env.kill_etcd();
        eprintln!("chaos: etcd killed, down for {down:.1?}");
        tokio::time::sleep(down).await;
        env.start_etcd().await.context("restarting etcd")?;
    }
    Ok(())
}

/// One step of the sharded soak's scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleStep {
    /// How far into the soak (from the start of the churn).
    pub after: Duration,
    /// How many slots are to be active.
    pub target: usize,
    /// Whether slots stopped by this step get SIGTERM (else kill -9).
    pub graceful: bool,
}

/// The scaling of a sharded soak of `duration` starting with one replica:
/// a step every 25 s or so (at least two), the targets going 3, 2, 1, 3,
/// 2, 1, ...; of the steps down, the first stops by SIGTERM, the next by
/// kill -9, and so on alternately. 60 s: 3 at 20 s, 2 (SIGTERM) at 40 s.
pub fn scale_plan(duration: Duration) -> Vec<ScaleStep> {
    let steps = (duration.as_secs() / 25).max(2) as u32;
    let mut downs = 0;
    (0..steps)
        .map(|k| {
            let target = [3, 2, 1][k as usize % 3];
            let graceful = target < 3 && {
                downs += 1;
                downs % 2 == 1
            };
            ScaleStep {
                after: duration * (k + 1) / (steps + 1),
                target,
                graceful,
            }
        })
        .collect()
}

/// The sharded soak's faults until `until` (the churn began at `begun`):
/// kill -9 of the apiserver, etcd or a random replica, in shuffled rounds,
/// and the steps of [`scale_plan`] as they fall due.
pub async fn inject_sharded(
    env: &TestEnv,
    replicas: &Arc<Replicas>,
    mut rng: Rng,
    begun: Instant,
    until: Instant,
) -> Result<FaultStats> {
    let plan = scale_plan(until.duration_since(begun));
    let mut next_step = 0;
    let mut stats = FaultStats::default();
    let mut round = Vec::new();
    loop {
        let pause = rng.between(Duration::from_millis(1500), Duration::from_secs(4));
        if Instant::now() + pause >= until {
            return Ok(stats);
        }
        tokio::time::sleep(pause).await;
        let step = plan
            .get(next_step)
            .filter(|s| begun + s.after <= Instant::now())
            .copied();
        let kind = match step {
            Some(step) if step.target > replicas.active() => FaultKind::ScaleUp,
            Some(_) => FaultKind::ScaleDown,
            None => {
                if round.is_empty() {
                    round = vec![FaultKind::ApiServer, FaultKind::Etcd, FaultKind::Replica];
                    rng.shuffle(&mut round);
                }
                round.pop().context("a fault")?
            }
        };
        let started = Instant::now();
        match kind {
            FaultKind::ApiServer | FaultKind::Etcd => kill_component(env, kind, &mut rng).await?,
            FaultKind::Replica => {
                let restart_after = rng.between(Duration::from_secs(1), Duration::from_secs(3));
                let running = replicas.running();
                let killed = match running.len() {
                    0 => None,
                    n => replicas.kill_incarnation(&running[rng.below(n)].0, restart_after),
                };
                match killed {
                    Some(name) => eprintln!(
                        "chaos: replica {name} killed, restarting after {restart_after:.1?}"
                    ),
                    None => {
                        eprintln!("chaos: no running replica to kill");
                        stats.skipped += 1;
                        continue;
                    }
                }
            }
            FaultKind::ScaleUp | FaultKind::ScaleDown => {
                let step = step.context("a scaling step")?;
                next_step += 1;
                if kind == FaultKind::ScaleUp {
                    let started = replicas.scale_up(step.target);
                    eprintln!("chaos: scaled up to {}: starting {started:?}", step.target);
                } else {
                    while replicas.active() > step.target {
                        let index = rng.below(replicas.active());
                        match replicas.stop_slot(index, step.graceful).await {
                            Some((name, how)) => {
                                eprintln!("chaos: scaling down to {}: {name} {how}", step.target)
                            }
                            None => eprintln!(
                                "chaos: scaling down to {}: stopped a slot waiting for its restart",
                                step.target
                            ),
                        }
                    }
                }
            }
            FaultKind::Leader => unreachable!("no leader when sharded"),
        }
        let restored = Instant::now();
        *stats.injected.entry(kind).or_default() += 1;
        *stats.downtime.entry(kind).or_default() += restored - started;
        stats.last_injected = Some(started);
        stats.last_restored = Some(restored);
    }
}
