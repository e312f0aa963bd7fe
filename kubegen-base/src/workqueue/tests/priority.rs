//! Priority-aware queues: order, raises, and priorities through processing,
//! delays and rate limits (controller-runtime's `priorityqueue` order).

use std::time::Duration;

use tokio::time::advance;

use super::{settle, small_limiter, small_queue};
use crate::workqueue::WorkQueue;

const MS: Duration = Duration::from_millis(1);

fn priority_queue() -> WorkQueue<u32> {
    WorkQueue::builder("priorities")
        .priority_aware()
        .rate_limiter(small_limiter())
        .build()
}

/// Everything ready, with priorities, in hand-out order (each marked done).
fn take_all(q: &WorkQueue<u32>) -> Vec<(u32, i32)> {
    std::iter::from_fn(|| {
        let taken = q.try_get_with_priority()?;
        q.done(&taken.0);
        Some(taken)
    })
    .collect()
}

#[test]
fn highest_priority_first_fifo_within_a_priority() {
    let q = priority_queue();
    for (item, priority) in [(1, 0), (2, 5), (3, 0), (4, 5), (5, -100), (6, 0)] {
        q.add_with_priority(item, priority);
    }
    assert_eq!(q.len(), 6);
    assert_eq!(
        take_all(&q),
        vec![(2, 5), (4, 5), (1, 0), (3, 0), (6, 0), (5, -100)]
    );
}

#[test]
fn re_adding_raises_a_priority_and_never_lowers_it() {
    let q = priority_queue();
    q.add(1);
    q.add(2);
    q.add(3);
    q.add_with_priority(1, -5); // lower: ignored, 1 keeps its place
    q.add_with_priority(3, 10); // raised: now first
    q.add_with_priority(2, 10); // raised: behind 3, already at 10
    q.add(3); // 0 < 10: ignored
    assert_eq!(q.len(), 3);
    assert_eq!(take_all(&q), vec![(3, 10), (2, 10), (1, 0)]);
}

#[test]
fn item_added_while_processing_is_queued_on_done_at_its_highest_priority() {
    let q = priority_queue();
    q.add(1);
    assert_eq!(q.try_get_with_priority(), Some((1, 0)));
    q.add_with_priority(1, -3);
    q.add_with_priority(1, 4);
    q.add_with_priority(1, 2);
    q.add_with_priority(2, 1);
    // Still held by its worker: not handed out.
    assert_eq!(q.try_get_with_priority(), Some((2, 1)));
    assert_eq!(q.try_get(), None);
    q.done(&1);
    assert_eq!(take_all(&q), vec![(1, 4)]);
    q.done(&2);
    assert!(q.processing().is_empty());
}

#[tokio::test(start_paused = true)]
async fn delayed_adds_keep_their_priority() {
    let q = priority_queue();
    let start = tokio::time::Instant::now();
    q.add_with_priority(9, 1);
    q.add(8);
    q.add_after_with_priority(1, 10 * MS, 5);
    q.add_after_with_priority(2, 10 * MS, -1);
    // Later deadline, higher priority: the deadline stays, the priority rises.
    q.add_after_with_priority(1, 20 * MS, 7);
    // A delayed add of a queued item raises it when due.
    q.add_after_with_priority(8, 10 * MS, 3);
    settle().await;
    assert_eq!(q.deadline_of(&1), Some(start + 10 * MS));
    advance(10 * MS).await;
    settle().await;
    assert_eq!(take_all(&q), vec![(1, 7), (8, 3), (9, 1), (2, -1)]);
}

#[tokio::test(start_paused = true)]
async fn rate_limited_adds_keep_their_priority() {
    let q = priority_queue();
    q.add(1);
    q.add_rate_limited_with_priority(2, 3);
    q.add_rate_limited(3);
    assert_eq!(q.num_requeues(&2), 1);
    advance(MS).await;
    settle().await;
    assert_eq!(take_all(&q), vec![(2, 3), (1, 0), (3, 0)]);
}

#[tokio::test(start_paused = true)]
async fn get_with_priority_waits_like_get() {
    let q = priority_queue();
    let getter = tokio::spawn({
        let q = q.clone();
        async move { q.get_with_priority().await }
    });
    settle().await;
    assert!(!getter.is_finished());
    q.add_with_priority(4, -2);
    assert_eq!(getter.await.unwrap(), Some((4, -2)));
    q.shutdown();
    assert_eq!(q.get_with_priority().await, None);
}

#[test]
fn fifo_queue_ignores_priorities() {
    let q = small_queue();
    q.add_with_priority(1, 0);
    q.add_with_priority(2, 9);
    q.add_with_priority(1, 20);
    assert_eq!(take_all(&q), vec![(1, 0), (2, 0)]);
}
