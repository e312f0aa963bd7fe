//! The term outlasts its work (issue item 2): as in client-go, where
//! `Run` starts `OnStartedLeading` in a goroutine and renews until the
//! context is done, the `on_started_leading` work returning does not end
//! leadership.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::fake_lock::{FakeLock, Verb};
use super::{Events, ME, builder, config};
use crate::leader_election::LeaderState;

/// Regression: the work returns at once, and the elector goes on leading
/// and renewing (it used to release the Lease and stop); only shutdown
/// ends the term, with the release and `on_stopped_leading`.
#[tokio::test(start_paused = true)]
async fn leading_goes_on_after_the_work_returned() {
    let (lock, events) = (FakeLock::new(), Events::default());
    let elector = builder(&lock, config(15, 2, 1), &events).build().unwrap();
    let state = elector.state();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(elector.run(shutdown.clone().cancelled_owned()));

    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(*state.borrow(), LeaderState::Leader);
    assert_eq!(lock.holder().as_deref(), Some(ME));
    let renewals = lock.log().iter().filter(|v| **v == Verb::Update).count();
    assert!(renewals >= 9, "{:?}", lock.log());
    assert_eq!(
        events.all(),
        [format!("new leader {ME}"), format!("started {ME}")]
    );

    shutdown.cancel();
    task.await.unwrap();
    assert_eq!(*state.borrow(), LeaderState::Stopped);
    assert_eq!(lock.holder(), None);
    assert_eq!(events.all().last().map(String::as_str), Some("stopped"));
}
