//! `queue_test.go`: dedup, the processing set, and both shutdowns.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::super::{settle, soon};
use crate::workqueue::{QueueItem, WorkQueue};

/// The two ways client-go's table tests end a queue.
#[derive(Debug, Clone, Copy)]
enum Shutdown {
    Now,
    Drain,
}

impl Shutdown {
    const BOTH: [Shutdown; 2] = [Shutdown::Now, Shutdown::Drain];

    async fn apply<T: QueueItem>(self, q: &WorkQueue<T>) {
        match self {
            Shutdown::Now => q.shutdown(),
            Shutdown::Drain => q.shutdown_with_drain().await,
        }
    }
}

/// Added once the queue is shut down; must never be handed out.
const LATE: u32 = u32::MAX;

/// client-go: `TestBasic`. Fifty producers and ten consumers share a queue;
/// after the shutdown every consumer ends, nothing added later is handed
/// out, and the queue is empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn basic() {
    for shutdown in Shutdown::BOTH {
        let q: WorkQueue<u32> = WorkQueue::new("basic");
        let producers: Vec<_> = (0..50)
            .map(|i| {
                let q = q.clone();
                tokio::spawn(async move {
                    for _ in 0..50 {
                        q.add(i);
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                })
            })
            .collect();
        let got_late = Arc::new(AtomicBool::new(false));
        let consumers: Vec<_> = (0..10)
            .map(|_| {
                let (q, got_late) = (q.clone(), got_late.clone());
                tokio::spawn(async move {
                    while let Some(item) = q.get().await {
                        got_late.fetch_or(item == LATE, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(3)).await;
                        q.done(&item);
                    }
                })
            })
            .collect();
        for producer in producers {
            soon(producer).await.unwrap();
        }
        soon(shutdown.apply(&q)).await;
        q.add(LATE);
        for consumer in consumers {
            soon(consumer).await.unwrap();
        }
        assert!(!got_late.load(Ordering::SeqCst), "{shutdown:?}");
        assert_eq!(q.len(), 0, "{shutdown:?}");
    }
}

/// client-go: `TestAddWhileProcessing`. Every consumer re-adds each item it
/// processes up to twice while holding it; the queue still ends empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn add_while_processing() {
    for shutdown in Shutdown::BOTH {
        let q: WorkQueue<u32> = WorkQueue::new("add-while-processing");
        let producers: Vec<_> = (0..50)
            .map(|i| {
                let q = q.clone();
                tokio::spawn(async move { q.add(i) })
            })
            .collect();
        let consumers: Vec<_> = (0..10)
            .map(|_| {
                let q = q.clone();
                tokio::spawn(async move {
                    let mut counters = HashMap::<u32, u32>::new();
                    while let Some(item) = q.get().await {
                        let count = counters.entry(item).or_default();
                        *count += 1;
                        if *count < 2 {
                            q.add(item);
                        }
                        tokio::task::yield_now().await;
                        q.done(&item);
                    }
                })
            })
            .collect();
        for producer in producers {
            soon(producer).await.unwrap();
        }
        soon(shutdown.apply(&q)).await;
        for consumer in consumers {
            soon(consumer).await.unwrap();
        }
        assert_eq!(q.len(), 0, "{shutdown:?}");
    }
}

/// client-go: `TestLen`.
#[test]
fn len() {
    let q: WorkQueue<&str> = WorkQueue::new("len");
    q.add("foo");
    assert_eq!(q.len(), 1);
    q.add("bar");
    assert_eq!(q.len(), 2);
    q.add("foo");
    assert_eq!(q.len(), 2, "a duplicate does not lengthen the queue");
}

/// client-go: `TestReinsert`.
#[test]
fn reinsert() {
    let q: WorkQueue<&str> = WorkQueue::new("reinsert");
    q.add("foo");
    let item = q.try_get().unwrap();
    assert_eq!(item, "foo");
    q.add(item);
    q.done(&item);
    assert_eq!(q.try_get(), Some("foo"), "back on the queue after done");
    q.done(&"foo");
    assert_eq!(q.len(), 0);
}

/// client-go: `TestCollapse` (without its check that the queue storage's
/// `Touch` hook was called: the storage is not pluggable here).
#[test]
fn collapse() {
    let q: WorkQueue<&str> = WorkQueue::new("collapse");
    q.add("bar");
    q.add("bar");
    assert_eq!(q.try_get(), Some("bar"));
    q.done(&"bar");
    assert_eq!(q.len(), 0);
    assert_eq!(q.try_get(), None);
}

/// client-go: `TestCollapseWhileProcessing` (without the `Touch` check). A
/// second worker waiting for the item re-added twice during its processing
/// gets it once, and only after `done`.
#[tokio::test(start_paused = true)]
async fn collapse_while_processing() {
    let q: WorkQueue<&str> = WorkQueue::new("collapse-while-processing");
    q.add("foo");
    let item = q.try_get().unwrap();
    assert_eq!(item, "foo");
    q.add("foo");
    q.add("foo");
    let other = tokio::spawn({
        let q = q.clone();
        async move {
            let item = q.get().await;
            if let Some(item) = &item {
                q.done(item);
            }
            item
        }
    });
    settle().await;
    assert!(
        !other.is_finished(),
        "blocked until the first worker is done"
    );
    q.done(&item);
    assert_eq!(soon(other).await.unwrap(), Some("foo"));
    assert_eq!(q.len(), 0);
}

/// Takes items until `get` reports the shutdown (which waits for it).
async fn get_until_shut_down<T: QueueItem>(q: &WorkQueue<T>) {
    while soon(q.get()).await.is_some() {}
}

/// client-go: `TestQueueDrainageUsingShutDownWithDrain`.
#[tokio::test(start_paused = true)]
async fn queue_drainage_using_shut_down_with_drain() {
    let q: WorkQueue<&str> = WorkQueue::new("drainage");
    q.add("foo");
    q.add("bar");
    let first = q.try_get().unwrap();
    let second = q.try_get().unwrap();
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    get_until_shut_down(&q).await;
    settle().await;
    assert!(!drain.is_finished(), "two items are still in flight");
    q.done(&first);
    q.done(&second);
    soon(drain).await.unwrap();
}

/// client-go: `TestNoQueueDrainageUsingShutDown`: `shutdown` does not wait
/// for the items in flight.
#[tokio::test(start_paused = true)]
async fn no_queue_drainage_using_shut_down() {
    let q: WorkQueue<&str> = WorkQueue::new("no-drainage");
    q.add("foo");
    q.add("bar");
    let _first = q.try_get().unwrap();
    let _second = q.try_get().unwrap();
    q.shutdown();
    assert!(q.shutting_down());
    assert_eq!(soon(q.get()).await, None);
}

/// client-go: `TestForceQueueShutdownUsingShutDown`: `shutdown` makes a
/// waiting `shutdown_with_drain` return though items are still in flight.
#[tokio::test(start_paused = true)]
async fn force_queue_shutdown_using_shut_down() {
    let q: WorkQueue<&str> = WorkQueue::new("force");
    q.add("foo");
    q.add("bar");
    let _first = q.try_get().unwrap();
    let _second = q.try_get().unwrap();
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    get_until_shut_down(&q).await;
    settle().await;
    assert!(!drain.is_finished());
    q.shutdown();
    soon(drain).await.unwrap();
}

/// client-go: `TestQueueDrainageUsingShutDownWithDrainWithDirtyItem`: an
/// item re-added during its processing is handed out again after `done`,
/// even though `get` had already reported the shutdown.
#[tokio::test(start_paused = true)]
async fn queue_drainage_using_shut_down_with_drain_with_dirty_item() {
    let q: WorkQueue<&str> = WorkQueue::new("dirty-drainage");
    q.add("foo");
    let gotten = q.try_get().unwrap();
    q.add("foo");
    let drain = tokio::spawn({
        let q = q.clone();
        async move { q.shutdown_with_drain().await }
    });
    get_until_shut_down(&q).await;
    q.done(&gotten);
    let again = soon(q.get()).await;
    assert_eq!(again, Some("foo"), "queued again by done");
    q.done(&"foo");
    assert_eq!(soon(q.get()).await, None, "now really shut down");
    soon(drain).await.unwrap();
}

/// client-go: `TestGarbageCollection`: the queue keeps no reference to an
/// item once it is done.
#[test]
fn garbage_collection() {
    let q: WorkQueue<Arc<String>> = WorkQueue::new("gc");
    let object = Arc::new("hello".to_owned());
    let watcher = Arc::downgrade(&object);
    q.add(object);
    let taken = q.try_get().unwrap();
    q.done(&taken);
    drop(taken);
    assert!(
        watcher.upgrade().is_none(),
        "the queue still holds the item"
    );
    assert_eq!(q.len(), 0);
}
