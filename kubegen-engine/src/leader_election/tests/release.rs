//! Releasing the Lease: client-go's `TestReleaseLeaseLeases`,
//! `TestReleaseMethodCallsGet` and `TestReleaseOnCancellation_Leases`, and
//! the regression of a release claimed without reading the Lease.

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::fake_lock::{FakeLock, Reaction, Verb, status};
use super::{Events, ME, OTHER, builder, config, record};
use crate::leader_election::LeaderElector;
use crate::leader_election::LeaderState;
use crate::leader_election::elector::{Attempt, Release};
use crate::lease::Observation;

/// An elector for [`ME`] with the timings of client-go's release tests.
fn elector(lock: &FakeLock, events: &Events) -> LeaderElector {
    builder(lock, config(15, 2, 1), events).build().unwrap()
}

/// Asserts that the stored Lease is released: no holder, one second.
fn assert_released(lock: &FakeLock) {
    let spec = lock.spec().expect("the Lease exists");
    assert_eq!(spec.holder_identity, None, "{spec:?}");
    assert_eq!(spec.lease_duration_seconds, Some(1));
}

/// Ports `TestReleaseLeaseLeases/release acquired lock from no object`:
/// acquire, then release. client-go reads the Lease again before the
/// release (get, update, get, update); kubegen writes the copy it has just
/// written, whose resourceVersion makes the write fail if it is stale.
#[tokio::test(start_paused = true)]
async fn releases_an_acquired_lease() {
    let (lock, events) = (FakeLock::holding(record(ME, 10)), Events::default());
    let mut elector = elector(&lock, &events);
    assert!(matches!(
        elector.try_acquire_or_renew().await.unwrap(),
        Attempt::Leading { .. }
    ));
    assert_eq!(elector.release().await.unwrap(), Release::Released);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update, Verb::Update]);
    assert_released(&lock);
    let observed = elector.observed.as_ref().unwrap();
    assert_eq!(observed.holder(), None);
    assert_eq!(observed.spec.lease_transitions, Some(0));
    assert_eq!(events.all(), [format!("new leader {ME}")]);
}

/// Ports `TestReleaseMethodCallsGet`, and is the regression of issue item
/// 1 at the level of `release`: the record observed names this candidate
/// but no copy of the Lease is cached (a renewal's conflict cleared it), so
/// the release reads the Lease before writing. It used to return at once,
/// reporting success without a request.
#[tokio::test(start_paused = true)]
async fn release_reads_the_lease_when_no_copy_is_cached() {
    let (lock, events) = (FakeLock::holding(record(ME, 10)), Events::default());
    let mut elector = elector(&lock, &events);
    elector.observed = Some(Observation {
        spec: record(ME, 10),
        at: Instant::now().into_std(),
    });
    assert_eq!(elector.release().await.unwrap(), Release::Released);
    assert_eq!(lock.log(), [Verb::Get, Verb::Update]);
    assert_released(&lock);
}

/// A leader whose renewals run on the fake, shut down by the test.
struct Running {
    shutdown: CancellationToken,
    state: tokio::sync::watch::Receiver<LeaderState>,
    task: tokio::task::JoinHandle<()>,
}

/// Starts `elector` and waits until it leads.
async fn lead(elector: LeaderElector) -> Running {
    let shutdown = CancellationToken::new();
    let mut state = elector.state();
    let task = tokio::spawn(elector.run(shutdown.clone().cancelled_owned()));
    state.wait_for(LeaderState::is_leader).await.unwrap();
    Running {
        shutdown,
        state,
        task,
    }
}

impl Running {
    /// Requests shutdown and waits for the elector to stop.
    async fn shut_down(self) {
        self.shutdown.cancel();
        self.task.await.unwrap();
        assert_eq!(*self.state.borrow(), LeaderState::Stopped);
    }
}

/// Ports `TestReleaseOnCancellation_Leases/release acquired lock on
/// cancellation of update`: shutdown comes while a renewal's update is in
/// flight; the update is abandoned and the Lease released.
#[tokio::test(start_paused = true)]
async fn releases_when_shut_down_during_a_renewal_update() {
    let (lock, events) = (FakeLock::new(), Events::default());
    lock.on(Verb::Update, 2, Reaction::Hang);
    let running = lead(elector(&lock, &events)).await;
    lock.requested(Verb::Update, 2).await;
    running.shut_down().await;
    assert_eq!(
        lock.log(),
        [
            Verb::Get,
            Verb::Create,
            Verb::Update,
            Verb::Update,
            Verb::Update
        ]
    );
    assert_released(&lock);
    assert_eq!(
        events.all(),
        [
            format!("new leader {ME}"),
            format!("started {ME}"),
            "stopped".into()
        ]
    );
}

/// Ports `TestReleaseOnCancellation_Leases/release acquired lock on
/// cancellation of get`, and is the regression of issue item 1: a renewal
/// conflicts (409), which clears the cached Lease, and shutdown comes
/// while its re-read is in flight. The release used to find no cached
/// record and report success without a request, leaving the Lease held
/// for a full lease duration; now it reads the Lease and releases it.
#[tokio::test(start_paused = true)]
async fn releases_when_shut_down_during_the_re_read_after_a_conflict() {
    let (lock, events) = (FakeLock::new(), Events::default());
    lock.on(Verb::Update, 1, Reaction::Fail(status(409, "Conflict")));
    lock.on(Verb::Get, 2, Reaction::Hang);
    let running = lead(elector(&lock, &events)).await;
    lock.requested(Verb::Get, 2).await;
    running.shut_down().await;
    assert_eq!(
        lock.log(),
        [
            Verb::Get,
            Verb::Create,
            Verb::Update,
            Verb::Get,
            Verb::Get,
            Verb::Update
        ]
    );
    assert_released(&lock);
}

/// A renewal is written but its answer never arrives (shutdown cuts it
/// short), so the cached copy is stale: the release conflicts, reads the
/// Lease again, and releases it.
#[tokio::test(start_paused = true)]
async fn releases_after_a_renewal_written_but_not_answered() {
    let (lock, events) = (FakeLock::new(), Events::default());
    lock.on(Verb::Update, 1, Reaction::WriteThenHang);
    let running = lead(elector(&lock, &events)).await;
    lock.requested(Verb::Update, 1).await;
    running.shut_down().await;
    assert_eq!(
        lock.log(),
        [
            Verb::Get,
            Verb::Create,
            Verb::Update,
            Verb::Update,
            Verb::Get,
            Verb::Update
        ]
    );
    assert_released(&lock);
}

/// The release goes by the Lease read from the server, not by the record
/// observed before: a Lease another candidate took over meanwhile is left
/// alone, and the release reports that it was not held.
#[tokio::test(start_paused = true)]
async fn release_leaves_a_lease_taken_over_meanwhile() {
    let (lock, events) = (FakeLock::new(), Events::default());
    let mut elector = elector(&lock, &events);
    elector.try_acquire_or_renew().await.unwrap();
    lock.put(record(OTHER, 15));
    assert_eq!(
        elector.release().await.unwrap(),
        Release::NotHeld {
            holder: Some(OTHER.into())
        }
    );
    assert_eq!(
        lock.log(),
        [Verb::Get, Verb::Create, Verb::Update, Verb::Get]
    );
    assert_eq!(lock.holder().as_deref(), Some(OTHER));
}

/// A release that keeps conflicting gives up after three writes with the
/// conflict, never claiming success.
#[tokio::test(start_paused = true)]
async fn release_gives_up_after_three_conflicts() {
    let (lock, events) = (FakeLock::new(), Events::default());
    let mut elector = elector(&lock, &events);
    elector.try_acquire_or_renew().await.unwrap();
    for nth in 1..=3 {
        lock.on(Verb::Update, nth, Reaction::Fail(status(409, "Conflict")));
    }
    let error = elector.release().await.unwrap_err();
    assert!(matches!(error, kubegen_client::Error::Api(s) if s.code == 409));
    assert_eq!(
        lock.log(),
        [
            Verb::Get,
            Verb::Create,
            Verb::Update,
            Verb::Get,
            Verb::Update,
            Verb::Get,
            Verb::Update
        ]
    );
    assert_eq!(lock.holder().as_deref(), Some(ME));
}

/// A release answered `404 Not Found` (the Lease was deleted) has nothing
/// to release, and recreates nothing.
#[tokio::test(start_paused = true)]
async fn release_of_a_deleted_lease_recreates_nothing() {
    let (lock, events) = (FakeLock::new(), Events::default());
    let mut elector = elector(&lock, &events);
    elector.try_acquire_or_renew().await.unwrap();
    lock.on(Verb::Update, 1, Reaction::Fail(status(404, "NotFound")));
    assert_eq!(
        elector.release().await.unwrap(),
        Release::NotHeld { holder: None }
    );
    assert_eq!(lock.log(), [Verb::Get, Verb::Create, Verb::Update]);
}
