//! `shutdown` and `shutdown_with_drain`, against client-go's `ShutDown` and
//! `ShutDownWithDrain`.

use std::time::Duration;

use tokio::time::advance;

use super::{settle, small_queue, soon};

const MS: Duration = Duration::from_millis(1);

/// Regression: `shutdown` used to make `get` return `None` at once, stranding
/// the queued items; client-go's workers keep getting them until empty.
#[tokio::test(start_paused = true)]
async fn shutdown_hands_out_what_is_queued_then_none() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    assert!(!q.shutting_down());
    q.shutdown();
    assert!(q.shutting_down());
    assert_eq!(q.len(), 2);
    assert_eq!(soon(q.get()).await, Some(1));
    assert_eq!(q.try_get(), Some(2));
    assert_eq!(soon(q.get()).await, None);
    assert!(q.is_empty());
}

#[tokio::test(start_paused = true)]
async fn shutdown_ignores_every_kind_of_add() {
    let q = small_queue();
    q.shutdown();
    q.add(1);
    q.add_with_priority(2, 5);
    q.add_after(3, Duration::ZERO);
    q.add_after(4, MS);
    q.add_rate_limited(5);
    assert_eq!(q.num_requeues(&5), 0);
    assert_eq!(q.delayed_len(), 0);
    advance(10 * MS).await;
    settle().await;
    assert_eq!(soon(q.get()).await, None);
}

#[tokio::test(start_paused = true)]
async fn delayed_items_are_dropped_by_either_shutdown() {
    for drain in [false, true] {
        let q = small_queue();
        q.add_after(1, 10 * MS);
        settle().await;
        if drain {
            soon(q.shutdown_with_drain()).await;
        } else {
            q.shutdown();
        }
        assert_eq!(q.delayed_len(), 0);
        advance(20 * MS).await;
        settle().await;
        assert_eq!(soon(q.get()).await, None, "drain: {drain}");
    }
}

#[tokio::test(start_paused = true)]
async fn item_re_added_during_processing_is_handed_out_after_shutdown() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    let one = soon(q.get()).await.unwrap();
    let two = soon(q.get()).await.unwrap();
    q.add(1); // before the shutdown: kept
    q.shutdown();
    q.add(2); // after: ignored
    // Nothing is ready while 1 is held.
    assert_eq!(soon(q.get()).await, None);
    q.done(&one);
    q.done(&two);
    assert_eq!(soon(q.get()).await, Some(1));
    q.done(&1);
    assert_eq!(soon(q.get()).await, None);
}

#[tokio::test(start_paused = true)]
async fn shutdown_wakes_every_waiting_getter() {
    let q = small_queue();
    let getters: Vec<_> = (0..3)
        .map(|_| {
            let q = q.clone();
            tokio::spawn(async move { soon(q.get()).await })
        })
        .collect();
    settle().await;
    q.shutdown();
    for getter in getters {
        assert_eq!(soon(getter).await.unwrap(), None);
    }
}

#[tokio::test(start_paused = true)]
async fn drain_hands_out_queued_items_then_none() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    q.shutdown_with_drain().await; // nothing in flight: returns at once
    assert!(q.shutting_down());
    q.add(3);
    assert_eq!(soon(q.get()).await, Some(1));
    assert_eq!(soon(q.get()).await, Some(2));
    assert_eq!(soon(q.get()).await, None);
}

#[tokio::test(start_paused = true)]
async fn drain_waits_for_items_in_flight() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    let one = soon(q.get()).await.unwrap();
    let two = soon(q.get()).await.unwrap();
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished());
    q.done(&one);
    settle().await;
    assert!(!drain.is_finished());
    q.done(&two);
    soon(drain).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn drain_requeues_items_added_before_it_began() {
    let q = small_queue();
    q.add(1);
    let one = soon(q.get()).await.unwrap();
    q.add(1);
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    settle().await;
    q.done(&one);
    settle().await;
    assert!(drain.is_finished());
    assert_eq!(soon(q.get()).await, Some(1));
    q.done(&1);
    assert_eq!(soon(q.get()).await, None);
}

#[tokio::test(start_paused = true)]
async fn shutdown_cuts_a_drain_short() {
    let q = small_queue();
    q.add(1);
    let _held = soon(q.get()).await.unwrap();
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished());
    q.shutdown();
    settle().await;
    assert!(drain.is_finished());
}

/// client-go's `ShutDownWithDrain` sets `drain` again after a `ShutDown`.
#[tokio::test(start_paused = true)]
async fn drain_after_shutdown_still_waits_for_items_in_flight() {
    let q = small_queue();
    q.add(1);
    let one = soon(q.get()).await.unwrap();
    q.shutdown();
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    settle().await;
    assert!(!drain.is_finished());
    q.done(&one);
    soon(drain).await.unwrap();
}
