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

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kubegen::kube;
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
}

impl FaultKind {
    /// The kind's name in the report.
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::ApiServer => "kill -9 apiserver",
            FaultKind::Etcd => "kill -9 etcd",
            FaultKind::Leader => "kill -9 leader",
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
            FaultKind::ApiServer => {
                let down = rng.between(Duration::from_secs(1), Duration::from_secs(5));
                env.kill_apiserver();
                eprintln!("chaos: apiserver killed, down for {down:.1?}");
                tokio::time::sleep(down).await;
                env.start_apiserver()
                    .await
                    .context("restarting the apiserver")?;
            }
            FaultKind::Etcd => {
                let down = rng.between(Duration::from_secs(1), Duration::from_secs(5));
                env.kill_etcd();
                eprintln!("chaos: etcd killed, down for {down:.1?}");
                tokio::time::sleep(down).await;
                env.start_etcd().await.context("restarting etcd")?;
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
