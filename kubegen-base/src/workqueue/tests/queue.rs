//! Dirty set, processing set and FIFO semantics.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use super::{settle, small_queue, soon};
use crate::workqueue::WorkQueue;

#[test]
fn duplicates_collapse_while_queued() {
    let q = small_queue();
    q.add(1);
    q.add(2);
    q.add(1);
    q.add(1);
    assert_eq!(q.len(), 2);
    assert_eq!(q.try_get(), Some(1));
    assert_eq!(q.try_get(), Some(2));
    assert_eq!(q.try_get(), None);
    assert!(q.is_empty());
}

#[test]
fn items_come_out_in_fifo_order() {
    let q = small_queue();
    for i in [5, 3, 9, 1] {
        q.add(i);
    }
    let got: Vec<u32> = std::iter::from_fn(|| q.try_get()).collect();
    assert_eq!(got, vec![5, 3, 9, 1]);
}

#[test]
fn item_added_while_processing_is_requeued_on_done() {
    let q = small_queue();
    q.add(7);
    assert_eq!(q.try_get(), Some(7));
    q.add(7);
    q.add(7);
    // Not handed out while its worker holds it.
    assert_eq!(q.len(), 0);
    assert_eq!(q.try_get(), None);
    assert_eq!(q.processing(), vec![7]);
    q.done(&7);
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some(7));
    q.done(&7);
    // Done without a new add: gone for good.
    assert_eq!(q.try_get(), None);
    assert!(q.processing().is_empty());
}

#[test]
fn requeued_item_goes_behind_items_queued_meanwhile() {
    let q = small_queue();
    q.add(1);
    assert_eq!(q.try_get(), Some(1));
    q.add(1);
    q.add(2);
    q.done(&1);
    assert_eq!(q.try_get(), Some(2));
    assert_eq!(q.try_get(), Some(1));
}

#[test]
fn done_of_an_item_not_processed_does_nothing() {
    let q = small_queue();
    q.add(1);
    q.done(&1);
    q.done(&2);
    assert_eq!(q.len(), 1);
    assert_eq!(q.try_get(), Some(1));
    assert_eq!(q.processing(), vec![1]);
}

#[test]
fn clones_share_the_queue() {
    let q = small_queue();
    let other = q.clone();
    q.add(4);
    assert_eq!(other.try_get(), Some(4));
    assert_eq!(q.processing(), vec![4]);
    assert_eq!(other.name(), "test");
}

#[tokio::test]
async fn get_waits_for_an_add() {
    let q = small_queue();
    let getter = tokio::spawn({
        let q = q.clone();
        async move { q.get().await }
    });
    settle().await;
    assert!(!getter.is_finished());
    q.add(3);
    assert_eq!(getter.await.unwrap(), Some(3));
}

#[tokio::test]
async fn cancelled_get_loses_no_item() {
    let q = small_queue();
    let timed_out = tokio::time::timeout(Duration::from_millis(5), q.get()).await;
    assert!(timed_out.is_err());
    q.add(8);
    assert_eq!(q.get().await, Some(8));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_two_workers_hold_the_same_item() {
    const KEYS: u32 = 8;
    const ROUNDS: usize = 300;
    let q: WorkQueue<u32> = WorkQueue::new("concurrency");
    let busy: Arc<Vec<AtomicBool>> = Arc::new((0..KEYS).map(|_| AtomicBool::new(false)).collect());
    let overlaps = Arc::new(AtomicUsize::new(0));
    let handled = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let (q, busy, overlaps, handled) =
            (q.clone(), busy.clone(), overlaps.clone(), handled.clone());
        workers.push(tokio::spawn(async move {
            while let Some(key) = q.get().await {
                let slot = &busy[key as usize];
                if slot.swap(true, Ordering::SeqCst) {
                    overlaps.fetch_add(1, Ordering::SeqCst);
                }
                tokio::task::yield_now().await;
                // Re-adding while holding the item must not hand it to another worker.
                if key % 2 == 0 {
                    q.add(key);
                }
                tokio::task::yield_now().await;
                slot.store(false, Ordering::SeqCst);
                handled.fetch_add(1, Ordering::SeqCst);
                q.done(&key);
            }
        }));
    }
    let mut producers = Vec::new();
    for p in 0..4 {
        let q = q.clone();
        producers.push(tokio::spawn(async move {
            for round in 0..ROUNDS {
                q.add(((round + p) % KEYS as usize) as u32);
                if round % 16 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        }));
    }
    for producer in producers {
        producer.await.unwrap();
    }
    // Let the workers catch up, then stop them (re-adds of even keys never end).
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A hang here (a worker never told to stop) fails the test after a minute.
    soon(q.shutdown_with_drain()).await;
    for worker in workers {
        soon(worker).await.unwrap();
    }
    assert_eq!(overlaps.load(Ordering::SeqCst), 0);
    assert!(handled.load(Ordering::SeqCst) >= KEYS as usize);
    assert!(q.processing().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_distinct_item_is_processed_exactly_once() {
    let q: WorkQueue<u32> = WorkQueue::new("once");
    let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for _ in 0..4 {
        let (q, seen) = (q.clone(), seen.clone());
        workers.push(tokio::spawn(async move {
            while let Some(item) = q.get().await {
                seen.lock().push(item);
                q.done(&item);
            }
        }));
    }
    for i in 0..2000 {
        q.add(i);
    }
    soon(q.shutdown_with_drain()).await;
    for worker in workers {
        soon(worker).await.unwrap();
    }
    let seen = seen.lock();
    let distinct: HashSet<u32> = seen.iter().copied().collect();
    assert_eq!(seen.len(), 2000);
    assert_eq!(distinct.len(), 2000);
}
