//! Renewing optimistically from the cached Lease: client-go's
//! `TestFastPathLeaderElection`, through the whole election loop.

use tokio_util::sync::CancellationToken;

use super::fake_lock::{FakeLock, Reaction, Verb, status};
use super::{Events, builder, config};

/// Runs an elector (no release, as in the Go test) on `lock` until
/// `shutdown` is cancelled; returns the requests it made.
async fn run(lock: &FakeLock, shutdown: CancellationToken) -> Vec<Verb> {
    let elector = builder(lock, config(15, 2, 1), &Events::default())
        .release_on_cancel(false)
        .build()
        .unwrap();
    elector.run(shutdown.cancelled_owned()).await;
    lock.log()
}

/// Cancels `shutdown` when the `nth` update is requested.
fn cancel_on_update(lock: &FakeLock, nth: usize, shutdown: &CancellationToken) {
    let shutdown = shutdown.clone();
    lock.on(
        Verb::Update,
        nth,
        Reaction::Before(Box::new(move || shutdown.cancel())),
    );
}

/// Ports `TestFastPathLeaderElection/Exercise fast path after lock
/// acquired`: after the creation, renewals update the cached Lease without
/// reading it first.
#[tokio::test(start_paused = true)]
async fn renewals_update_the_cached_lease_without_reading() {
    let (lock, shutdown) = (FakeLock::new(), CancellationToken::new());
    cancel_on_update(&lock, 2, &shutdown);
    assert_eq!(
        run(&lock, shutdown).await,
        [Verb::Get, Verb::Create, Verb::Update, Verb::Update]
    );
}

/// Ports `TestFastPathLeaderElection/Fallback to slow path after fast path
/// fails`: a renewal that conflicts reads the Lease and renews from it,
/// then renewals go back to the fast path.
#[tokio::test(start_paused = true)]
async fn a_conflicting_renewal_falls_back_to_reading_the_lease() {
    let (lock, shutdown) = (FakeLock::new(), CancellationToken::new());
    lock.on(Verb::Update, 2, Reaction::Fail(status(409, "Conflict")));
    cancel_on_update(&lock, 4, &shutdown);
    assert_eq!(
        run(&lock, shutdown).await,
        [
            Verb::Get,
            Verb::Create,
            Verb::Update,
            Verb::Update,
            Verb::Get,
            Verb::Update,
            Verb::Update
        ]
    );
}
