//! One try to acquire or renew: client-go's `TestTryAcquireOrRenewLeases`
//! case by case, and the expiry of records without a positive duration.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::LeaseSpec;
use tokio::time::{Instant, advance};

use super::fake_lock::{FakeLock, Verb};
use super::{Events, ME, OTHER, builder, config, record};
use crate::leader_election::LeaderElector;
use crate::leader_election::elector::Attempt;
use crate::lease::Observation;

/// An elector for [`ME`] with client-go's test lease duration (10 s).
fn elector(lock: &FakeLock, events: &Events) -> LeaderElector {
    builder(lock, config(10, 5, 1), events).build().unwrap()
}

/// Tries once; whether this candidate leads afterwards.
async fn try_once(elector: &mut LeaderElector) -> bool {
    match elector.try_acquire_or_renew().await.unwrap() {
        Attempt::Leading { .. } => true,
        Attempt::Standby { .. } => false,
    }
}

/// The holder and transitions of the record the elector last observed.
fn observed(elector: &LeaderElector) -> (Option<String>, i32) {
    let observation = elector.observed.as_ref().expect("a record was observed");
    (
        observation.holder().map(str::to_string),
        observation.spec.lease_transitions.unwrap_or(0),
    )
}

/// Presets the elector's observation of `spec`, made now, as client-go's
/// test presets `observedRecord` and `observedTime`.
fn preset_observation(elector: &mut LeaderElector, spec: LeaseSpec) {
    elector.observed = Some(Observation {
        spec,
        at: Instant::now().into_std(),
    });
}

fn new_leader(identity: &str) -> String {
    format!("new leader {identity}")
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from no object`.
#[tokio::test(start_paused = true)]
async fn acquires_by_creating_a_missing_lease() {
    let (lock, events) = (FakeLock::new(), Events::default());
    let mut elector = elector(&lock, &events);
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Create]);
    assert_eq!(observed(&elector), (Some(ME.into()), 0));
    assert_eq!(lock.holder().as_deref(), Some(ME));
    assert_eq!(events.all(), [new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from object without
/// annotations` (for a Lease: an empty spec).
#[tokio::test(start_paused = true)]
async fn acquires_a_lease_without_a_record() {
    let (lock, events) = (FakeLock::holding(LeaseSpec::default()), Events::default());
    let mut elector = elector(&lock, &events);
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 1));
    assert_eq!(events.all(), [new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from led object with the
/// lease duration seconds`: refused while the holder's 3 s run, taken over
/// once they have passed without a change of the record.
#[tokio::test(start_paused = true)]
async fn acquires_a_led_lease_once_its_own_duration_passed() {
    let (lock, events) = (FakeLock::holding(record(OTHER, 3)), Events::default());
    let mut elector = elector(&lock, &events);
    let started = Instant::now();
    assert_eq!(
        elector.try_acquire_or_renew().await.unwrap(),
        Attempt::Standby {
            until: Some(started + Duration::from_secs(3))
        }
    );
    assert_eq!(observed(&elector), (Some(OTHER.into()), 0));
    advance(Duration::from_secs(3)).await;
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 1));
    assert_eq!(events.all(), [new_leader(OTHER), new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from unled object`.
#[tokio::test(start_paused = true)]
async fn acquires_a_lease_naming_nobody() {
    let (lock, events) = (FakeLock::holding(record("", 0)), Events::default());
    let mut elector = elector(&lock, &events);
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 1));
    assert_eq!(events.all(), [new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from led, unacked object`:
/// the record read is the one observed a lease duration ago, so its holder
/// stopped renewing. (The Go case's record has no duration, which alone
/// makes it expired; here it has one, so that the observation time is
/// what is tested.)
#[tokio::test(start_paused = true)]
async fn acquires_a_led_lease_unchanged_for_its_duration() {
    let (lock, events) = (FakeLock::holding(record(OTHER, 10)), Events::default());
    let mut elector = elector(&lock, &events);
    preset_observation(&mut elector, record(OTHER, 10));
    advance(Duration::from_secs(10)).await;
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 1));
    assert_eq!(events.all(), [new_leader(OTHER), new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/acquire from empty led, acked
/// object`: a record naming nobody is taken over however fresh.
#[tokio::test(start_paused = true)]
async fn acquires_a_freshly_observed_lease_naming_nobody() {
    let (lock, events) = (FakeLock::holding(record("", 10)), Events::default());
    let mut elector = elector(&lock, &events);
    preset_observation(&mut elector, record("", 10));
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 1));
    assert_eq!(events.all(), [new_leader(ME)]);
}

/// Ports `TestTryAcquireOrRenewLeases/don't acquire from led, acked
/// object`. The Go case's record has no duration and passes only because
/// `tryAcquireOrRenew` takes `now` before the read that sets the
/// observation time; with a zero duration kubegen takes over (see
/// [`takes_over_a_lease_without_a_positive_duration`]), so the record here
/// has one.
#[tokio::test(start_paused = true)]
async fn does_not_acquire_a_freshly_renewed_lease() {
    let (lock, events) = (FakeLock::holding(record(OTHER, 10)), Events::default());
    let mut elector = elector(&lock, &events);
    assert!(!try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get]);
    assert_eq!(observed(&elector), (Some(OTHER.into()), 0));
    assert_eq!(lock.holder().as_deref(), Some(OTHER));
    assert_eq!(events.all(), [new_leader(OTHER)]);
}

/// Ports `TestTryAcquireOrRenewLeases/renew already acquired object`.
#[tokio::test(start_paused = true)]
async fn renews_its_own_lease() {
    let (lock, events) = (FakeLock::holding(record(ME, 0)), Events::default());
    let mut elector = elector(&lock, &events);
    preset_observation(&mut elector, record(ME, 0));
    assert!(try_once(&mut elector).await);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_eq!(observed(&elector), (Some(ME.into()), 0));
    assert_eq!(events.all(), [new_leader(ME)]);
}

/// Regression (issue item 3): a foreign record's `leaseDurationSeconds`
/// is taken as is, as client-go's `isLeaseValid` does — missing, zero or
/// negative means expired when observed — never replaced by this
/// candidate's configured 10 s.
#[tokio::test(start_paused = true)]
async fn takes_over_a_lease_without_a_positive_duration() {
    for seconds in [None, Some(0), Some(-1)] {
        let mut spec = record(OTHER, 0);
        spec.lease_duration_seconds = seconds;
        let (lock, events) = (FakeLock::holding(spec), Events::default());
        let mut elector = elector(&lock, &events);
        assert!(
            try_once(&mut elector).await,
            "leaseDurationSeconds {seconds:?}"
        );
        assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
        assert_eq!(lock.holder().as_deref(), Some(ME));
    }
}
