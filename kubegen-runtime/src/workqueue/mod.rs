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
//! * [`WorkQueueMetrics`] exports client-go's `workqueue_*` metric families
//!   through `prometheus-client`.
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
mod rate_limit;
mod shared;
mod timer;

#[cfg(test)]
mod tests;

pub use builder::WorkQueueBuilder;
pub use item::QueueItem;
pub use metrics::WorkQueueMetrics;
pub use queue::WorkQueue;
pub use rate_limit::{
    Bucket, Clock, ItemExponentialFailure, ItemFastSlow, MaxOf, RateLimiter, TokioClock,
    default_controller_rate_limiter,
};
