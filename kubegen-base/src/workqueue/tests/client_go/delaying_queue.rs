//! `delaying_queue_test.go`: `add_after` on a stepped clock (here Tokio's
//! paused clock, moved with `advance`).

use std::time::Duration;

use tokio::time::advance;

use super::super::settle;
use crate::workqueue::WorkQueue;

const MS: Duration = Duration::from_millis(1);
const SECOND: Duration = Duration::from_secs(1);

fn delaying_queue() -> WorkQueue<&'static str> {
    WorkQueue::new("delaying")
}

/// Moves the paused clock by `by` and lets the timer task release what is due.
async fn step(by: Duration) {
    advance(by).await;
    settle().await;
}

/// client-go: `TestSimpleQueue`.
#[tokio::test(start_paused = true)]
async fn simple_queue() {
    let q = delaying_queue();
    q.add_after("foo", 50 * MS);
    settle().await;
    assert_eq!(q.len(), 0, "not added before its deadline");
    step(60 * MS).await;
    assert_eq!(q.len(), 1);
    let item = q.try_get().unwrap();
    q.done(&item);
    // Past client-go's ten-second heartbeat: nothing comes back.
    step(10 * SECOND).await;
    assert_eq!(q.len(), 0);
}

/// client-go: `TestDeduping`: an item waits once, for its earliest deadline.
#[tokio::test(start_paused = true)]
async fn deduping() {
    let q = delaying_queue();
    q.add_after("foo", 50 * MS);
    q.add_after("foo", 70 * MS);
    settle().await;
    assert_eq!(q.len(), 0);
    step(60 * MS).await;
    assert_eq!(q.len(), 1, "added at the first deadline");
    let item = q.try_get().unwrap();
    q.done(&item);
    step(20 * MS).await;
    assert_eq!(q.len(), 0, "the later deadline was dropped");

    // The earlier of two deadlines wins also when it comes second.
    q.add_after("foo", 50 * MS);
    q.add_after("foo", 30 * MS);
    settle().await;
    assert_eq!(q.len(), 0);
    step(40 * MS).await;
    assert_eq!(q.len(), 1);
    let item = q.try_get().unwrap();
    q.done(&item);
    step(20 * MS).await;
    assert_eq!(q.len(), 0);
}

/// client-go: `TestAddTwoFireEarly`.
#[tokio::test(start_paused = true)]
async fn add_two_fire_early() {
    let q = delaying_queue();
    q.add_after("foo", SECOND);
    q.add_after("bar", 50 * MS);
    settle().await;
    assert_eq!(q.len(), 0);
    step(60 * MS).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some("bar"));
    q.add_after("baz", 2 * SECOND);
    step(SECOND).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some("foo"));
    step(2 * SECOND).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some("baz"));
}

/// client-go: `TestCopyShifting`: items due together come out in deadline
/// order, not in the order they were added.
#[tokio::test(start_paused = true)]
async fn copy_shifting() {
    let q = delaying_queue();
    q.add_after("foo", SECOND);
    q.add_after("bar", 500 * MS);
    q.add_after("baz", 250 * MS);
    settle().await;
    assert_eq!(q.len(), 0);
    step(2 * SECOND).await;
    assert_eq!(q.len(), 3);
    assert_eq!(q.try_get(), Some("baz"));
    assert_eq!(q.try_get(), Some("bar"));
    assert_eq!(q.try_get(), Some("foo"));
}
