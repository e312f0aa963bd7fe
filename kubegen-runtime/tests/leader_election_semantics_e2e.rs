//! Leader election semantics taken from client-go, against a real API
//! server: a term outlasts the `on_started_leading` work, and a foreign
//! Lease without a duration has expired as soon as it is seen. (The fault
//! injection for the release is unit-tested, over a fake Lease.)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use kubegen::api::{Api, ObjectMeta, PostParams};
use kubegen::leader_election::{LeaderElector, LeaderState};
use kubegen_testenv::{TestEnv, eventually};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

const LOCK: &str = "semantics-lock";

/// How long a state change may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

async fn wait_for(
    state: &mut watch::Receiver<LeaderState>,
    what: &str,
    wanted: impl FnMut(&LeaderState) -> bool,
) -> Result<()> {
    tokio::time::timeout(PATIENCE, state.wait_for(wanted))
        .await
        .with_context(|| format!("waiting for {what}"))??;
    Ok(())
}

/// As in client-go, the work returning does not end the term: the elector
/// keeps leading and renewing the Lease until shutdown, then releases it.
#[tokio::test]
async fn lease_stays_held_and_renewed_after_the_work_returned() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("le-work-returns").await?;
    let leases = Api::<Lease>::namespaced(env.client().await?, &ns);
    let returned = Arc::new(AtomicBool::new(false));
    let work_returned = returned.clone();
    let elector = LeaderElector::builder(env.client().await?, &ns, LOCK)
        .identity("returns-early")
        .lease_duration(Duration::from_secs(3))
        .renew_deadline(Duration::from_secs(2))
        .retry_period(Duration::from_millis(400))
        .on_started_leading(move |_leadership| {
            let returned = work_returned.clone();
            async move { returned.store(true, Ordering::SeqCst) }
        })
        .build()?;
    let mut state = elector.state();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(elector.run(shutdown.clone().cancelled_owned()));
    wait_for(&mut state, "leadership", LeaderState::is_leader).await?;
    eventually(PATIENCE, "the work to return", || async {
        Ok(returned.load(Ordering::SeqCst).then_some(()))
    })
    .await?;

    let renew_time = |lease: Lease| lease.spec.and_then(|s| s.renew_time);
    let before = renew_time(leases.get(LOCK).await?);
    let after = eventually(PATIENCE, "a renewal after the work returned", || async {
        let now = renew_time(leases.get(LOCK).await?);
        Ok((now != before).then_some(now))
    })
    .await?;
    assert!(after > before, "{after:?} after {before:?}");
    assert_eq!(*state.borrow(), LeaderState::Leader);
    let spec = leases.get(LOCK).await?.spec.context("lease spec")?;
    assert_eq!(spec.holder_identity.as_deref(), Some("returns-early"));

    shutdown.cancel();
    task.await?;
    assert_eq!(*state.borrow(), LeaderState::Stopped);
    let spec = leases.get(LOCK).await?.spec.context("lease spec")?;
    assert_eq!(spec.holder_identity, None, "released at shutdown");
    Ok(())
}

/// A Lease whose holder wrote no `leaseDurationSeconds` has expired as
/// soon as it is seen (client-go's `isLeaseValid` reads it as 0): a
/// candidate configured with an hour-long lease takes it over at its first
/// try rather than after its own duration. The API server itself refuses
/// zero and negative durations, so a missing one is the case that occurs.
#[tokio::test]
async fn lease_without_a_duration_is_taken_over_at_once() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("le-no-duration").await?;
    let leases = Api::<Lease>::namespaced(env.client().await?, &ns);
    let lease = |seconds: Option<i32>| Lease {
        metadata: ObjectMeta {
            name: Some(LOCK.into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some("ghost".into()),
            lease_duration_seconds: seconds,
            ..LeaseSpec::default()
        }),
    };
    for seconds in [0, -1] {
        let refused = leases
            .create(&PostParams::default(), &lease(Some(seconds)))
            .await;
        assert!(
            matches!(&refused, Err(kubegen::Error::Api(s)) if s.code == 422),
            "leaseDurationSeconds {seconds}: {refused:?}"
        );
    }
    leases.create(&PostParams::default(), &lease(None)).await?;

    let elector = LeaderElector::builder(env.client().await?, &ns, LOCK)
        .identity("successor")
        .lease_duration(Duration::from_secs(3600))
        .renew_deadline(Duration::from_secs(20))
        .retry_period(Duration::from_secs(5))
        .build()?;
    let mut state = elector.state();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(elector.run(shutdown.clone().cancelled_owned()));
    wait_for(&mut state, "the takeover", LeaderState::is_leader).await?;
    let spec = leases.get(LOCK).await?.spec.context("lease spec")?;
    assert_eq!(spec.holder_identity.as_deref(), Some("successor"));
    assert_eq!(spec.lease_transitions, Some(1));
    assert_eq!(spec.lease_duration_seconds, Some(3600));
    shutdown.cancel();
    task.await?;
    Ok(())
}
