//! `add_after`: deadlines, ordering, earliest-wins, and the timer task's life.

use std::time::Duration;

use tokio::time::{Instant, advance};

use super::{settle, small_queue};

const MS: Duration = Duration::from_millis(1);

#[tokio::test(start_paused = true)]
async fn zero_delay_adds_at_once() {
    let q = small_queue();
    q.add_after(1, Duration::ZERO);
    assert_eq!(q.try_get(), Some(1));
    assert_eq!(q.delayed_len(), 0);
}

#[tokio::test(start_paused = true)]
async fn delayed_items_arrive_in_deadline_order() {
    let q = small_queue();
    let start = Instant::now();
    q.add_after(1, 30 * MS);
    q.add_after(2, 10 * MS);
    q.add_after(3, 20 * MS);
    q.add_after(4, 20 * MS);
    settle().await;
    assert_eq!(q.try_get(), None);
    let mut arrivals = Vec::new();
    for _ in 0..4 {
        let item = q.get().await.unwrap();
        arrivals.push((item, start.elapsed()));
    }
    assert_eq!(
        arrivals,
        vec![(2, 10 * MS), (3, 20 * MS), (4, 20 * MS), (1, 30 * MS)]
    );
}

#[tokio::test(start_paused = true)]
async fn item_is_not_ready_before_its_deadline() {
    let q = small_queue();
    q.add_after(5, 10 * MS);
    settle().await;
    advance(9 * MS).await;
    settle().await;
    assert_eq!(q.try_get(), None);
    advance(MS).await;
    settle().await;
    assert_eq!(q.try_get(), Some(5));
}

#[tokio::test(start_paused = true)]
async fn earlier_deadline_wins_later_one_is_ignored() {
    let q = small_queue();
    let start = Instant::now();
    q.add_after(1, 50 * MS);
    q.add_after(1, 10 * MS);
    q.add_after(1, 40 * MS);
    assert_eq!(q.delayed_len(), 1);
    assert_eq!(q.get().await, Some(1));
    assert_eq!(start.elapsed(), 10 * MS);
    q.done(&1);
    // The replaced deadlines do not deliver the item again.
    advance(100 * MS).await;
    settle().await;
    assert_eq!(q.try_get(), None);
}

#[tokio::test(start_paused = true)]
async fn delayed_add_of_a_queued_item_collapses() {
    let q = small_queue();
    q.add(1);
    q.add_after(1, 5 * MS);
    advance(5 * MS).await;
    settle().await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some(1));
    assert_eq!(q.try_get(), None);
}

/// Number of tasks alive on the current runtime.
fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

#[tokio::test(start_paused = true)]
async fn shutdown_ends_the_timer_task_and_drops_waiting_items() {
    let q = small_queue();
    assert_eq!(alive_tasks(), 0);
    q.add_after(1, 10 * MS);
    settle().await;
    assert_eq!(alive_tasks(), 1);
    q.shutdown();
    settle().await;
    assert_eq!(alive_tasks(), 0);
    assert_eq!(q.delayed_len(), 0);
    q.add_after(2, 10 * MS);
    assert_eq!(q.delayed_len(), 0);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_queue_ends_the_timer_task() {
    let q = small_queue();
    q.add_after(1, 10 * MS);
    settle().await;
    advance(10 * MS).await;
    settle().await;
    // The task now waits with nothing scheduled.
    assert_eq!(q.delayed_len(), 0);
    assert_eq!(alive_tasks(), 1);
    drop(q);
    settle().await;
    assert_eq!(alive_tasks(), 0);
}
