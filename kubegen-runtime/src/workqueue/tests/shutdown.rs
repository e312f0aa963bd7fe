//! `shutdown` and `shutdown_with_drain`.

use super::{settle, small_queue, soon};

#[tokio::test(start_paused = true)]
async fn shutdown_stops_handing_out_and_ignores_adds() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    assert!(!q.is_shutting_down());
    q.shutdown();
    assert!(q.is_shutting_down());
    assert_eq!(soon(q.get()).await, None);
    assert_eq!(q.try_get(), None);
    q.add(3);
    q.add_rate_limited(4);
    assert_eq!(q.num_requeues(&4), 0);
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
    assert!(q.is_shutting_down());
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
