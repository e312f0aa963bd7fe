//! A client-go-grade work queue for controllers: dedup, delays, rate limits and metrics.
//!
//! The queue follows the semantics of client-go's `workqueue` package:
//!
//! * a **dirty set** collapses duplicates: an item added again while it waits in
//!   the queue is stored once;
//! * a **processing set** guarantees that no two workers hold the same item: an
//!   item added while a worker processes it is parked and re-queued when the
//!   worker calls [`WorkQueue::done`];
//! * [`WorkQueue::add_after`] delays an item (the earliest pending deadline of an
//!   item wins), and [`WorkQueue::add_rate_limited`] asks the queue's
//!   [`RateLimiter`] how long to wait, [`default_controller_rate_limiter`] being
//!   client-go's `DefaultControllerRateLimiter`;
//! * [`WorkQueue::shutdown`] stops new adds and lets workers take what is
//!   queued before [`WorkQueue::get`] returns `None`;
//!   [`WorkQueue::shutdown_with_drain`] also waits for the items in flight;
//! * [`WorkQueueMetrics`] exports client-go's `workqueue_*` metric families
//!   through `prometheus-client`.
//!
//! A queue built [`priority_aware`](WorkQueueBuilder::priority_aware) hands
//! items out as controller-runtime's `priorityqueue` does: highest priority
//! first ([`WorkQueue::add_with_priority`]), FIFO within a priority.
//!
//! **Time.** Delays (and the metrics' durations) run on Tokio's clock: tests
//! pause it (`#[tokio::test(start_paused = true)]`) and move it with
//! `tokio::time::advance`, where client-go's tests inject a fake clock. Rate
//! limiters that read the time take a [`Clock`] instead (see
//! [`Bucket::with_clock`]); the default, [`TokioClock`], follows paused time.
//!
//! ```no_run
//! use kubegen::workqueue::{WorkQueue, default_controller_rate_limiter};
//!
//! # async fn run() {
//! let queue: WorkQueue<String> = WorkQueue::builder("foos")
//!     .rate_limiter(default_controller_rate_limiter())
//!     .build();
//! queue.add("default/foo".to_owned());
//! while let Some(key) = queue.get().await {
//!     let failed = key.is_empty(); // reconcile `key` here
//!     if failed {
//!         queue.add_rate_limited(key.clone());
//!     } else {
//!         queue.forget(&key);
//!     }
//!     queue.done(&key);
//! }
//! # }
//! ```

mod builder;
mod core;
mod delayed;
mod item;
mod metrics;
mod queue;
mod queue_state;
mod rate_limit;
mod ready;
mod timer;

#[cfg(test)]
mod tests;

pub use builder::WorkQueueBuilder;
pub use item::QueueItem;
pub use metrics::WorkQueueMetrics;
pub use queue::WorkQueue;
pub use rate_limit::{
    Bucket, Clock, ItemExponentialFailure, ItemFastSlow, MaxOf, RateLimiter, TokioClock,
    WithMaxWait, default_controller_rate_limiter,
};
