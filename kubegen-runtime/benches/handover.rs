//! Leader handover with a warm and a cold standby: how long after the
//! leader dies does the new leader reconcile, and how much of that is the
//! Lease running out versus the new leader's informers syncing.
//!
//! A private control plane holds `HANDOVER_BENCH_OBJECTS` ConfigMaps (5,000
//! by default). Two managers run one controller over them; the leader is
//! killed (its task aborted: no release, as a crashed pod) and the standby
//! takes over (dropping a manager's `run` stops its elector). Measured per
//! run, from the kill: when the standby holds the
//! Lease, and when its controller's first reconcile starts. Warm (the
//! default: informers synced while standing by) and cold
//! (`warm_standby(false)`: informers start once leading) runs alternate;
//! medians of `HANDOVER_BENCH_RUNS` (3) each are printed with the ratio.
//!
//! `cargo bench -p kubegen-runtime --bench handover`

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::Client;
use kubegen::api::{Api, PostParams};
use kubegen::controller::{Action, Controller};
use kubegen::leader_election::{LeaderElectionConfig, LeaderState};
use kubegen::manager::{Manager, ManagerError};
use kubegen_testenv::{Options, TestEnv};
use parking_lot::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const LOCK: &str = "handover-bench";
/// Short, with client-go's proportions, so that a run takes seconds.
const LEASE: Duration = Duration::from_secs(3);

/// When the controller of one replica first reconciled.
#[derive(Default)]
struct FirstReconcile(Mutex<Option<Instant>>);

async fn reconcile(_: Arc<ConfigMap>, first: Arc<FirstReconcile>) -> Result<Action, Infallible> {
    first.0.lock().get_or_insert_with(Instant::now);
    Ok(Action::done())
}

struct Replica {
    first: Arc<FirstReconcile>,
    state: tokio::sync::watch::Receiver<LeaderState>,
    factory: kubegen::factory::SharedInformerFactory,
    stop: CancellationToken,
    task: JoinHandle<Result<(), ManagerError>>,
}

async fn replica(client: Client, ns: &str, identity: &str, warm: bool) -> Result<Replica> {
    let mut manager = Manager::builder(client)
        .leader_election(LeaderElectionConfig {
            identity: Some(identity.into()),
            lease_duration: LEASE,
            renew_deadline: LEASE * 2 / 3,
            retry_period: LEASE * 2 / 15,
            ..LeaderElectionConfig::new(ns, LOCK)
        })
        .warm_standby(warm)
        .informer_factory({
            let ns = ns.to_owned();
            move |factory| factory.namespace(ns)
        })
        .build()
        .await?;
    let first = Arc::new(FirstReconcile::default());
    let factory = manager.factory().clone();
    let controller = Controller::builder(factory.informer::<ConfigMap>())
        .name("handover")
        .reconcile(reconcile, first.clone());
    manager.add(controller);
    let state = manager.leader_state().context("leader election")?;
    let stop = CancellationToken::new();
    let task = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));
    Ok(Replica {
        first,
        state,
        factory,
        stop,
        task,
    })
}

/// One handover: seconds from the kill to the new leader holding the Lease,
/// and to its first reconcile.
async fn handover(env: &TestEnv, ns: &str, run: usize, warm: bool) -> Result<(f64, f64)> {
    let a = replica(env.client().await?, ns, &format!("a-{run}"), warm).await?;
    let mut a_state = a.state.clone();
    tokio::time::timeout(
        Duration::from_secs(60),
        a_state.wait_for(LeaderState::is_leader),
    )
    .await
    .context("the first replica never led")??;
    let b = replica(env.client().await?, ns, &format!("b-{run}"), warm).await?;
    // The standby has had time to warm up (or, cold, to do nothing).
    tokio::time::sleep(Duration::from_secs(5)).await;
    anyhow::ensure!(a.first.0.lock().is_some(), "the leader never reconciled");
    anyhow::ensure!(b.first.0.lock().is_none(), "the standby reconciled");

    let killed = Instant::now();
    a.task.abort();
    a.factory.shutdown().await;
    let mut b_state = b.state.clone();
    tokio::time::timeout(
        Duration::from_secs(60),
        b_state.wait_for(LeaderState::is_leader),
    )
    .await
    .context("the standby never took over")??;
    let leading = killed.elapsed().as_secs_f64();
    let first = loop {
        if let Some(at) = *b.first.0.lock() {
            break at.duration_since(killed).as_secs_f64();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    b.stop.cancel();
    b.task.await??;
    drop(a.stop);
    Ok((leading, first))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main]
async fn main() -> Result<()> {
    let objects: usize = std::env::var("HANDOVER_BENCH_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let runs: usize = std::env::var("HANDOVER_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let env = TestEnv::start_with(Options {
        nodes: 0,
        ..Options::default()
    })
    .await?;
    let ns = env.namespace("handover").await?;
    let api = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    for i in 0..objects {
        let cm: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": { "name": format!("cm-{i:05}") },
            "data": { "payload": "x".repeat(512) },
        }))?;
        api.create(&PostParams::default(), &cm).await?;
    }
    let mut results = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
    for run in 0..runs {
        for (slot, warm) in [(0, true), (1, false)] {
            let (leading, first) = handover(&env, &ns, run * 2 + slot, warm).await?;
            println!(
                "run {run} {}: lease held after {leading:.3} s, first reconcile after {first:.3} s",
                if warm { "warm" } else { "cold" }
            );
            results[slot].0.push(leading);
            results[slot].1.push(first);
        }
    }
    let [
        (mut warm_lease, mut warm_first),
        (mut cold_lease, mut cold_first),
    ] = results;
    let (wl, wf) = (median(&mut warm_lease), median(&mut warm_first));
    let (cl, cf) = (median(&mut cold_lease), median(&mut cold_first));
    println!(
        "\n{objects} ConfigMaps, lease {LEASE:?}, medians of {runs} runs, from the leader's death:"
    );
    println!("| standby | Lease held | first reconcile | acquire → first reconcile |");
    println!("|---|---|---|---|");
    println!(
        "| warm (default) | {wl:.3} s | {wf:.3} s | {:.1} ms |",
        (wf - wl).max(0.0) * 1e3
    );
    println!(
        "| cold | {cl:.3} s | {cf:.3} s | {:.1} ms |",
        (cf - cl).max(0.0) * 1e3
    );
    Ok(())
}
