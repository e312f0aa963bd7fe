//! Leader election against a real API server: one leader among candidates,
//! failover after a crash within lease duration + retry period (measured
//! over ten failovers and once with client-go's defaults), immediate
//! handover on release, and no moment with two acting leaders — checked
//! through a counter in a ConfigMap that each leader increments with
//! optimistic concurrency while it believes it leads.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::Client;
use kubegen::api::{Api, ObjectMeta, PostParams};
use kubegen::leader_election::{LeaderElectionMetrics, LeaderElector, LeaderState, Leadership};
use kubegen::server::{MetricsServer, ProbeServer, ReadyFlag, SharedRegistry};
use kubegen_testenv::{TestEnv, eventually, http_get};
use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

const LOCK: &str = "operator-lock";
const COUNTER: &str = "counter";

/// Durations scaled down from client-go's 15 s / 10 s / 2 s, same ratios.
#[derive(Debug, Clone, Copy)]
struct Timing {
    lease: Duration,
    renew: Duration,
    retry: Duration,
}

const SCALED: Timing = Timing {
    lease: Duration::from_millis(3000),
    renew: Duration::from_millis(2000),
    retry: Duration::from_millis(400),
};

const DEFAULTS: Timing = Timing {
    lease: Duration::from_secs(15),
    renew: Duration::from_secs(10),
    retry: Duration::from_secs(2),
};

/// What the candidates share: the counter ConfigMap's API, the number of
/// terms started (to name each term uniquely), conflicts seen on the
/// counter, and a log of leadership events in order.
#[derive(Clone)]
struct Shared {
    counters: Api<ConfigMap>,
    terms: Arc<AtomicUsize>,
    conflicts: Arc<AtomicUsize>,
    events: Arc<Mutex<Vec<String>>>,
}

struct Candidate {
    identity: String,
    state: watch::Receiver<LeaderState>,
    shutdown: CancellationToken,
    task: JoinHandle<()>,
}

fn spawn_candidate(
    client: Client,
    ns: &str,
    identity: &str,
    timing: Timing,
    shared: &Shared,
) -> Result<Candidate> {
    let work_shared = shared.clone();
    let stop_events = shared.events.clone();
    let stop_identity = identity.to_string();
    let elector = LeaderElector::builder(client, ns, LOCK)
        .identity(identity)
        .lease_duration(timing.lease)
        .renew_deadline(timing.renew)
        .retry_period(timing.retry)
        .on_started_leading(move |leadership| count_while_leading(leadership, work_shared.clone()))
        .on_stopped_leading(move || stop_events.lock().push(format!("stopped {stop_identity}")))
        .build()?;
    let state = elector.state();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(elector.run(shutdown.clone().cancelled_owned()));
    Ok(Candidate {
        identity: identity.to_string(),
        state,
        shutdown,
        task,
    })
}

/// The leader's work: increment the counter, recording this term, with a
/// write conditioned on the resourceVersion read, while leading.
async fn count_while_leading(leadership: Leadership, shared: Shared) {
    let term = format!(
        "{}#{}",
        leadership.identity(),
        shared.terms.fetch_add(1, Ordering::SeqCst)
    );
    shared
        .events
        .lock()
        .push(format!("started {}", leadership.identity()));
    while leadership.is_leading() {
        if let Ok(mut cm) = shared.counters.get(COUNTER).await {
            let data = cm.data.get_or_insert_default();
            let count: u64 = data.get("count").and_then(|c| c.parse().ok()).unwrap_or(0);
            append_run(data.entry("log".into()).or_default(), &term);
            data.insert("count".into(), (count + 1).to_string());
            if leadership.is_leading() {
                match shared
                    .counters
                    .replace(COUNTER, &PostParams::default(), &cm)
                    .await
                {
                    Err(kubegen::Error::Api(status)) if status.code == 409 => {
                        shared.conflicts.fetch_add(1, Ordering::SeqCst);
                    }
                    _ => {}
                }
            }
        }
        tokio::select! {
            () = leadership.lost() => {}
            () = tokio::time::sleep(Duration::from_millis(30)) => {}
        }
    }
    shared
        .events
        .lock()
        .push(format!("work ended {}", leadership.identity()));
}

/// Appends one write by `term` to a run-length log `term:n,term:n,...`.
fn append_run(log: &mut String, term: &str) {
    let mut runs: Vec<(String, u64)> = parse_runs(log);
    match runs.last_mut() {
        Some((last, n)) if last == term => *n += 1,
        _ => runs.push((term.to_string(), 1)),
    }
    *log = runs
        .iter()
        .map(|(t, n)| format!("{t}:{n}"))
        .collect::<Vec<_>>()
        .join(",");
}

fn parse_runs(log: &str) -> Vec<(String, u64)> {
    log.split(',')
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let (t, n) = r.rsplit_once(':')?;
            Some((t.to_string(), n.parse().ok()?))
        })
        .collect()
}

/// Checks the counter's history: every term wrote one contiguous run
/// (terms never interleave), the runs add up to the count, and no write
/// ever conflicted (there was never a second writer). Returns the runs.
async fn verify_no_overlap(shared: &Shared) -> Result<Vec<(String, u64)>> {
    let cm = shared.counters.get(COUNTER).await?;
    let data = cm.data.unwrap_or_default();
    let count: u64 = data.get("count").context("count")?.parse()?;
    let runs = parse_runs(data.get("log").map_or("", String::as_str));
    let mut seen = HashSet::new();
    for (term, _) in &runs {
        ensure!(
            seen.insert(term.clone()),
            "term {term} wrote again after another term: {runs:?}"
        );
    }
    ensure!(
        runs.iter().map(|(_, n)| n).sum::<u64>() == count,
        "runs {runs:?} do not add up to {count}"
    );
    let conflicts = shared.conflicts.load(Ordering::SeqCst);
    ensure!(
        conflicts == 0,
        "{conflicts} counter writes conflicted: two writers at once"
    );
    Ok(runs)
}

async fn setup(prefix: &str) -> Result<(String, Shared)> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let counters = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(COUNTER.into()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("count".to_string(), "0".to_string())])),
        ..ConfigMap::default()
    };
    counters.create(&PostParams::default(), &cm).await?;
    let shared = Shared {
        counters,
        terms: Arc::default(),
        conflicts: Arc::default(),
        events: Arc::default(),
    };
    Ok((ns, shared))
}

/// Waits until exactly one candidate leads and the others stand by naming
/// it; returns the leader's index.
async fn sole_leader(candidates: &[Candidate]) -> Result<usize> {
    eventually(
        Duration::from_secs(60),
        "exactly one leader, seen by all",
        || async {
            let states: Vec<LeaderState> = candidates
                .iter()
                .map(|c| c.state.borrow().clone())
                .collect();
            let leaders: Vec<usize> = (0..states.len())
                .filter(|&i| states[i].is_leader())
                .collect();
            if leaders.len() > 1 {
                bail!("two leaders at once: {states:?}");
            }
            let Some(&leader) = leaders.first() else {
                return Ok(None);
            };
            let all_agree = states.iter().enumerate().all(|(i, s)| {
                i == leader
                    || *s
                        == LeaderState::Standby {
                            leader: Some(candidates[leader].identity.clone()),
                        }
            });
            Ok(all_agree.then_some(leader))
        },
    )
    .await
}

async fn wait_leader(candidate: &Candidate) -> Result<()> {
    let mut state = candidate.state.clone();
    tokio::time::timeout(
        Duration::from_secs(90),
        state.wait_for(LeaderState::is_leader),
    )
    .await
    .context("the standby never took over")??;
    Ok(())
}

async fn lease(client: Client, ns: &str) -> Result<Lease> {
    Ok(Api::<Lease>::namespaced(client, ns).get(LOCK).await?)
}

/// Crashes (aborts) the leader `rounds` times and measures how long the
/// standby takes to lead; a fresh candidate replaces each crashed one.
async fn failovers(prefix: &str, timing: Timing, rounds: usize) -> Result<Vec<Duration>> {
    let env = TestEnv::shared().await?;
    let (ns, shared) = setup(prefix).await?;
    let mut candidates = vec![
        spawn_candidate(env.client().await?, &ns, "candidate-0", timing, &shared)?,
        spawn_candidate(env.client().await?, &ns, "candidate-1", timing, &shared)?,
    ];
    let mut times = Vec::new();
    for round in 0..rounds {
        let leader = sole_leader(&candidates).await?;
        // Let the leader renew a few times and do some work first.
        tokio::time::sleep(timing.retry * 2).await;
        let standby = 1 - leader;
        let crashed_at = Instant::now();
        candidates[leader].task.abort();
        ensure!(
            (&mut candidates[leader].task)
                .await
                .is_err_and(|e| e.is_cancelled())
        );
        // An aborted elector reports itself stopped (readiness fails).
        ensure!(*candidates[leader].state.borrow() == LeaderState::Stopped);
        wait_leader(&candidates[standby]).await?;
        let took = crashed_at.elapsed();
        times.push(took);
        println!(
            "{prefix}: failover {} took {:.3} s (bound: lease + retry = {:.1} s)",
            round + 1,
            took.as_secs_f64(),
            (timing.lease + timing.retry).as_secs_f64()
        );
        let identity = format!("candidate-{}", round + 2);
        candidates[leader] = spawn_candidate(env.client().await?, &ns, &identity, timing, &shared)?;
    }
    let leader = sole_leader(&candidates).await?;
    let record = lease(env.client().await?, &ns)
        .await?
        .spec
        .context("lease spec")?;
    assert_eq!(
        record.holder_identity.as_deref(),
        Some(candidates[leader].identity.as_str())
    );
    // Created once, then taken over at least once per crash.
    assert!(
        record.lease_transitions >= Some(i32::try_from(rounds)?),
        "{record:?}"
    );
    for candidate in &candidates {
        candidate.shutdown.cancel();
    }
    for candidate in candidates {
        candidate.task.await?;
    }
    let runs = verify_no_overlap(&shared).await?;
    // Every crashed leader and the final one wrote, one run per term.
    assert!(runs.len() > rounds, "{runs:?}");
    Ok(times)
}

fn summary(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let n = times.len();
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2
    };
    (median, times[n - 1])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashed_leader_is_replaced_within_lease_plus_retry_ten_times() -> Result<()> {
    let mut times = failovers("le-failover", SCALED, 10).await?;
    let (median, worst) = summary(&mut times);
    println!(
        "failover over 10 crashes (lease {:?}, renew {:?}, retry {:?}): median {:.3} s, worst {:.3} s, bound {:.1} s",
        SCALED.lease,
        SCALED.renew,
        SCALED.retry,
        median.as_secs_f64(),
        worst.as_secs_f64(),
        (SCALED.lease + SCALED.retry).as_secs_f64()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashed_leader_is_replaced_with_client_go_defaults() -> Result<()> {
    let times = failovers("le-defaults", DEFAULTS, 1).await?;
    println!(
        "failover with client-go defaults took {:.3} s (bound {:.0} s)",
        times[0].as_secs_f64(),
        (DEFAULTS.lease + DEFAULTS.retry).as_secs_f64()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn released_lease_is_taken_over_at_once() -> Result<()> {
    let env = TestEnv::shared().await?;
    let (ns, shared) = setup("le-release").await?;
    // A long lease: only a release explains a quick handover.
    let timing = Timing {
        lease: Duration::from_secs(30),
        renew: Duration::from_secs(20),
        retry: Duration::from_millis(500),
    };
    let candidates = vec![
        spawn_candidate(env.client().await?, &ns, "first", timing, &shared)?,
        spawn_candidate(env.client().await?, &ns, "second", timing, &shared)?,
    ];
    let leader = sole_leader(&candidates).await?;
    let standby = 1 - leader;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let released_at = Instant::now();
    candidates[leader].shutdown.cancel();
    wait_leader(&candidates[standby]).await?;
    let took = released_at.elapsed();
    println!(
        "handover after release took {:.3} s (retry period {:?}, lease {:?})",
        took.as_secs_f64(),
        timing.retry,
        timing.lease
    );
    let mut old_state = candidates[leader].state.clone();
    old_state.wait_for(|s| *s == LeaderState::Stopped).await?;

    let (old, new) = (&candidates[leader].identity, &candidates[standby].identity);
    let started_new = format!("started {new}");
    let events = eventually(Duration::from_secs(10), "the new leader's work", || async {
        let events = shared.events.lock().clone();
        Ok(events.contains(&started_new).then_some(events))
    })
    .await?;
    let position = |what: &str| events.iter().position(|e| e == what);
    let work_ended = position(&format!("work ended {old}")).context("old work ended")?;
    let stopped = position(&format!("stopped {old}")).context("old stopped")?;
    let started = position(&format!("started {new}")).context("new started")?;
    assert!(work_ended < stopped && stopped < started, "{events:?}");

    let record = lease(env.client().await?, &ns)
        .await?
        .spec
        .context("lease spec")?;
    assert_eq!(record.holder_identity.as_deref(), Some(new.as_str()));
    assert_eq!(record.lease_transitions, Some(1));
    for candidate in &candidates {
        candidate.shutdown.cancel();
    }
    for candidate in candidates {
        candidate.task.await?;
    }
    // After the final release the Lease names nobody.
    let record = lease(env.client().await?, &ns)
        .await?
        .spec
        .context("lease spec")?;
    assert_eq!(record.holder_identity, None);
    assert_eq!(record.lease_duration_seconds, Some(1));
    let runs = verify_no_overlap(&shared).await?;
    assert!(runs.len() >= 2, "{runs:?}");
    Ok(())
}

/// Regression: a renewal written but not seen (cancelled by the shutdown)
/// left the elector's copy of the Lease stale, and the release failed with a
/// 409, leaving the Lease held until it expired. Here a third party changes
/// the Lease before the shutdown; the release must still go through.
#[tokio::test]
async fn release_survives_a_stale_lease_copy() -> Result<()> {
    let env = TestEnv::shared().await?;
    let (ns, shared) = setup("le-stale").await?;
    let timing = Timing {
        lease: Duration::from_secs(30),
        renew: Duration::from_secs(20),
        retry: Duration::from_secs(5),
    };
    let candidate = spawn_candidate(env.client().await?, &ns, "only", timing, &shared)?;
    wait_leader(&candidate).await?;
    let leases = Api::<Lease>::namespaced(env.client().await?, &ns);
    leases
        .patch(
            LOCK,
            &kubegen::api::PatchParams::default(),
            &kubegen::api::Patch::Merge(
                serde_json::json!({ "metadata": { "annotations": { "touched": "yes" } } }),
            ),
        )
        .await?;
    candidate.shutdown.cancel();
    candidate.task.await?;
    let record = lease(env.client().await?, &ns)
        .await?
        .spec
        .context("lease spec")?;
    assert_eq!(record.holder_identity, None, "the Lease must be released");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_that_cannot_renew_steps_down_before_the_standby_takes_over() -> Result<()> {
    use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
    let env = TestEnv::shared().await?;
    let (ns, shared) = setup("le-revoke").await?;
    let admin = env.client().await?;
    let role = Role {
        metadata: ObjectMeta {
            name: Some("lease-user".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec!["coordination.k8s.io".into()]),
            resources: Some(vec!["leases".into()]),
            verbs: vec!["get".into(), "create".into(), "update".into()],
            ..PolicyRule::default()
        }]),
    };
    Api::<Role>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &role)
        .await?;
    let binding = RoleBinding {
        metadata: ObjectMeta {
            name: Some("lease-user".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "Role".into(),
            name: "lease-user".into(),
        },
        subjects: Some(vec![Subject {
            kind: "User".into(),
            name: "le-revoked".into(),
            ..Subject::default()
        }]),
    };
    let bindings = Api::<RoleBinding>::namespaced(admin.clone(), &ns);
    bindings.create(&PostParams::default(), &binding).await?;

    // The first candidate leads through the permitted user; the standby
    // comes only once it leads.
    let restricted = env.client_for_user("le-revoked", None).await?;
    let first = spawn_candidate(restricted, &ns, "revoked", SCALED, &shared)?;
    wait_leader(&first).await?;
    let second = spawn_candidate(admin, &ns, "standby", SCALED, &shared)?;
    let candidates = [first, second];
    sole_leader(&candidates).await?;
    tokio::time::sleep(SCALED.retry * 2).await;

    // Revoke: every renewal now fails with 403 Forbidden.
    let revoked_at = Instant::now();
    bindings.delete("lease-user", &Default::default()).await?;
    let mut old_state = candidates[0].state.clone();
    tokio::time::timeout(
        Duration::from_secs(60),
        old_state.wait_for(|s| !s.is_leader()),
    )
    .await??;
    let stepped_down = revoked_at.elapsed();
    wait_leader(&candidates[1]).await?;
    let taken_over = revoked_at.elapsed();
    println!(
        "renewals refused: leader stepped down after {:.3} s (renew deadline {:?}), standby took over after {:.3} s (lease {:?})",
        stepped_down.as_secs_f64(),
        SCALED.renew,
        taken_over.as_secs_f64(),
        SCALED.lease
    );
    let started = "started standby".to_string();
    let events = eventually(Duration::from_secs(10), "the standby's work", || async {
        let events = shared.events.lock().clone();
        Ok(events.contains(&started).then_some(events))
    })
    .await?;
    let position = |what: &str| events.iter().position(|e| e == what);
    let work_ended = position("work ended revoked").context("old work ended")?;
    let new_started = position(&started).context("new started")?;
    assert!(work_ended < new_started, "{events:?}");
    for candidate in &candidates {
        candidate.shutdown.cancel();
    }
    for candidate in candidates {
        candidate.task.await?;
    }
    verify_no_overlap(&shared).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_reports_leadership_metrics_and_readiness() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("le-server").await?;
    let registry = SharedRegistry::default();
    let metrics = registry.register(LeaderElectionMetrics::register);
    let elector = LeaderElector::builder(env.client().await?, &ns, LOCK)
        .lease_duration(SCALED.lease)
        .renew_deadline(SCALED.renew)
        .retry_period(SCALED.retry)
        .metrics(metrics)
        .build()?;
    let identity = elector.identity().to_string();
    let synced = ReadyFlag::default();
    let probes = ProbeServer::builder()
        .readiness_flag("caches-synced", &synced)
        .leader_state(elector.state())
        .bind("127.0.0.1:0")
        .await?;
    let addr = probes.local_addr()?;
    let metrics_server = MetricsServer::insecure(registry.clone())
        .bind("127.0.0.1:0")
        .await?;
    let metrics_addr = metrics_server.local_addr()?;
    let stop_server = CancellationToken::new();
    let serving = tokio::spawn(probes.serve(stop_server.clone().cancelled_owned()));
    let serving_metrics = tokio::spawn(metrics_server.serve(stop_server.clone().cancelled_owned()));

    assert_eq!(http_get(addr, "/healthz").await?, (200, "ok".into()));
    let (status, body) = http_get(addr, "/readyz").await?;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("[-]caches-synced failed"), "{body}");
    synced.set(true);
    assert_eq!(http_get(addr, "/readyz").await?, (200, "ok".into()));

    let (_, metrics) = http_get(metrics_addr, "/metrics").await?;
    assert!(
        metrics.contains(&format!(
            "leader_election_master_status{{name=\"{LOCK}\"}} 0"
        )),
        "{metrics}"
    );

    let mut state = elector.state();
    let stop_elector = CancellationToken::new();
    let electing = tokio::spawn(elector.run(stop_elector.clone().cancelled_owned()));
    state.wait_for(LeaderState::is_leader).await?;
    let (_, metrics) = http_get(metrics_addr, "/metrics").await?;
    assert!(
        metrics.contains(&format!(
            "leader_election_master_status{{name=\"{LOCK}\"}} 1"
        )),
        "{metrics}"
    );
    for name in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_start_time_seconds",
        "process_open_fds",
    ] {
        assert!(
            metrics.contains(&format!("\n{name} ")),
            "{name} missing: {metrics}"
        );
    }
    let record = lease(env.client().await?, &ns)
        .await?
        .spec
        .context("lease spec")?;
    assert_eq!(record.holder_identity.as_deref(), Some(identity.as_str()));
    assert_eq!(http_get(addr, "/readyz").await?, (200, "ok".into()));

    // A stopped elector makes the replica unready and the gauge 0.
    stop_elector.cancel();
    electing.await?;
    let (status, body) = http_get(addr, "/readyz?verbose").await?;
    assert_eq!(status, 503);
    assert!(
        body.contains("[-]leader-election failed") && body.contains("[+]caches-synced ok"),
        "{body}"
    );
    let (_, metrics) = http_get(metrics_addr, "/metrics").await?;
    assert!(
        metrics.contains(&format!(
            "leader_election_master_status{{name=\"{LOCK}\"}} 0"
        )),
        "{metrics}"
    );

    stop_server.cancel();
    serving.await??;
    serving_metrics.await??;
    for addr in [addr, metrics_addr] {
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "still listening after shutdown"
        );
    }
    Ok(())
}
