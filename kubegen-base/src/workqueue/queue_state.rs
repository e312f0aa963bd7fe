//! The state every handle of one queue shares ([`Shared`]: the bookkeeping
//! under its lock, the rate limiter, the wake-ups), and its synchronous
//! operations; `queue` is the public handle over it.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, MutexGuard};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::core::{Added, Core, Stamp};
use super::delayed::Delayed;
use super::item::QueueItem;
use super::metrics::{QueueSnapshot, QueueSource, QueueStats, WorkQueueMetrics};
use super::rate_limit::RateLimiter;
use super::timer::{self, ReleaseDue, TimerStep};

/// Where a queue is in its life: client-go's `shuttingDown` and `drain`
/// flags as one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lifecycle {
    /// Accepting and handing out items.
    Running,
    /// `shutdown`: refusing adds, handing out what is queued until empty.
    ShuttingDown,
    /// `shutdown_with_drain`: as `ShuttingDown`, and a drain waits for the
    /// items in flight.
    Draining,
}

/// What a non-blocking `get` found.
#[derive(Debug)]
pub(super) enum Polled<T> {
    /// An item and its priority, now being processed by the caller.
    Item(T, i32),
    /// Nothing is ready yet.
    Empty,
    /// Nothing is ready and the queue is shutting down: nothing ever will be
    /// (but for items re-added during their processing, queued on `done`).
    Closed,
}

/// Everything behind the lock.
#[derive(Debug)]
pub(super) struct State<T> {
    pub(super) core: Core<T>,
    pub(super) delayed: Delayed<T>,
    lifecycle: Lifecycle,
    timer_started: bool,
    /// The metric counts, when the queue records metrics.
    stats: Option<QueueStats>,
}

/// One queue, shared by its handles (and weakly by its timer task). The
/// metrics collector shares the state, to read the counts kept in it.
pub(super) struct Shared<T> {
    name: String,
    state: Arc<Mutex<State<T>>>,
    /// Wakes getters when an item is queued or the queue shuts down.
    item_ready: Notify,
    /// Wakes `shutdown_with_drain` when processing ends or `shutdown` is called.
    drained: Notify,
    /// Wakes the timer task when the earliest deadline moves or the queue ends.
    timer_wake: Arc<Notify>,
    limiter: Box<dyn RateLimiter<T>>,
    /// Whether items are stamped and counted for metrics.
    metered: bool,
}

/// How far in the future an overflowing deadline is put (about 30 years).
const FAR_FUTURE: Duration = Duration::from_secs(30 * 365 * 24 * 60 * 60);

impl<T: QueueItem> Shared<T> {
    /// A running queue, reported into `metrics` when given.
    pub(super) fn new(
        name: String,
        limiter: Box<dyn RateLimiter<T>>,
        metrics: Option<&WorkQueueMetrics>,
        prioritized: bool,
    ) -> Arc<Self> {
        let state = Arc::new(Mutex::new(State {
            core: Core::new(prioritized),
            delayed: Delayed::default(),
            lifecycle: Lifecycle::Running,
            timer_started: false,
            stats: metrics.map(|_| QueueStats::default()),
        }));
        if let Some(metrics) = metrics {
            let source: Arc<dyn QueueSource> = state.clone();
            metrics.track(&name, source);
        }
        Arc::new(Self {
            name,
            state,
            item_ready: Notify::new(),
            drained: Notify::new(),
            timer_wake: Arc::new(Notify::new()),
            limiter,
            metered: metrics.is_some(),
        })
    }

    /// The queue's name.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// The state, locked.
    pub(super) fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock()
    }

    /// The time to stamp items with: only taken when metrics are recorded,
    /// and read before the state is locked so that the lock is not held
    /// across a clock read.
    fn stamp(&self) -> Stamp {
        self.metered.then(Instant::now)
    }

    /// Adds `item` to a locked state, stamped `now`; returns whether a
    /// getter should be woken.
    fn add_locked(&self, state: &mut State<T>, item: T, priority: i32, now: Stamp) -> bool {
        if state.lifecycle != Lifecycle::Running {
            return false;
        }
        let added = state.core.add(item, priority, now);
        if added != Added::Duplicate
            && let Some(stats) = &mut state.stats
        {
            stats.adds += 1;
        }
        added == Added::Queued
    }

    /// `WorkQueue::add_with_priority`.
    pub(super) fn add(&self, item: T, priority: i32) {
        let now = self.stamp();
        let queued = self.add_locked(&mut self.lock(), item, priority, now);
        if queued {
            self.item_ready.notify_one();
        }
    }

    /// `WorkQueue::add_after_with_priority`.
    pub(super) fn add_after(self: &Arc<Self>, item: T, delay: Duration, priority: i32) {
        // client-go's delaying queue counts every `AddAfter` of a running
        // queue as a retry, a zero delay too.
        {
            let mut state = self.lock();
            if state.lifecycle != Lifecycle::Running {
                return;
            }
            if let Some(stats) = &mut state.stats {
                stats.retries += 1;
            }
        }
        if delay.is_zero() {
            self.add(item, priority);
            return;
        }
        let now = Instant::now();
        let at = now.checked_add(delay).unwrap_or_else(|| now + FAR_FUTURE);
        let (start_timer, moved) = {
            let mut state = self.lock();
            if state.lifecycle != Lifecycle::Running {
                return;
            }
            let moved = state.delayed.schedule(item, at, priority);
            let start_timer = !std::mem::replace(&mut state.timer_started, true);
            (start_timer, moved)
        };
        if start_timer {
            timer::spawn(self, Arc::clone(&self.timer_wake));
        } else if moved {
            self.timer_wake.notify_one();
        }
    }

    /// `WorkQueue::add_rate_limited_with_priority`.
    pub(super) fn add_rate_limited(self: &Arc<Self>, item: T, priority: i32) {
        if self.lock().lifecycle != Lifecycle::Running {
            return;
        }
        let delay = self.limiter.when(&item);
        self.add_after(item, delay, priority);
    }

    /// The queue's rate limiter.
    pub(super) fn limiter(&self) -> &dyn RateLimiter<T> {
        &*self.limiter
    }

    /// Takes the next ready item, if any, without waiting.
    pub(super) fn poll(&self) -> Polled<T> {
        let now = self.stamp();
        let mut state = self.lock();
        match state.core.pop(now) {
            Some(popped) => {
                if let (Some(stats), Some(waited)) = (&mut state.stats, popped.waited) {
                    stats.queue_duration.record(waited);
                }
                Polled::Item(popped.item, popped.priority)
            }
            None if state.lifecycle == Lifecycle::Running => Polled::Empty,
            None => Polled::Closed,
        }
    }

    /// The notification getters wait on.
    pub(super) fn item_ready(&self) -> &Notify {
        &self.item_ready
    }

    /// `WorkQueue::done`.
    pub(super) fn done(&self, item: &T) {
        let now = self.stamp();
        let (finished, wake_drain) = {
            let mut state = self.lock();
            let Some(finished) = state.core.done(item, now) else {
                return;
            };
            if let (Some(stats), Some(worked)) = (&mut state.stats, finished.worked) {
                stats.work_duration.record(worked);
            }
            let wake_drain = state.lifecycle == Lifecycle::Draining && state.core.idle();
            (finished, wake_drain)
        };
        if finished.requeued {
            self.item_ready.notify_one();
        }
        if wake_drain {
            self.drained.notify_waiters();
        }
    }

    /// Moves to `to` (a shutting-down state), dropping delayed items and
    /// waking everyone who waits.
    fn close(&self, to: Lifecycle) {
        {
            let mut state = self.lock();
            state.lifecycle = to;
            state.delayed.clear();
        }
        self.item_ready.notify_waiters();
        self.drained.notify_waiters();
        self.timer_wake.notify_one();
    }

    /// `WorkQueue::shutdown`: also ends a drain under way, as client-go's
    /// `ShutDown` clears `drain`.
    pub(super) fn shutdown(&self) {
        self.close(Lifecycle::ShuttingDown);
    }

    /// First half of `WorkQueue::shutdown_with_drain`: stop accepting items
    /// and ask for a drain (even after `shutdown`, as client-go does).
    pub(super) fn begin_drain(&self) {
        self.close(Lifecycle::Draining);
    }

    /// Whether `shutdown_with_drain` may return: nothing is being processed,
    /// or `shutdown` cut the drain short.
    pub(super) fn drain_finished(&self) -> bool {
        let state = self.lock();
        state.lifecycle != Lifecycle::Draining || state.core.idle()
    }

    /// The notification `shutdown_with_drain` waits on.
    pub(super) fn drained(&self) -> &Notify {
        &self.drained
    }

    /// Whether `shutdown` or `shutdown_with_drain` was called.
    pub(super) fn is_shutting_down(&self) -> bool {
        self.lock().lifecycle != Lifecycle::Running
    }
}

impl<T: QueueItem> ReleaseDue for Shared<T> {
    fn release_due(&self) -> TimerStep {
        let now = Instant::now();
        let stamp = self.metered.then_some(now);
        let mut woken = 0usize;
        let next = {
            let mut state = self.lock();
            if state.lifecycle != Lifecycle::Running {
                state.delayed.clear();
                return TimerStep::Stop;
            }
            while let Some((item, priority)) = state.delayed.pop_due(now) {
                if self.add_locked(&mut state, item, priority, stamp) {
                    woken += 1;
                }
            }
            state.delayed.next_deadline()
        };
        for _ in 0..woken {
            self.item_ready.notify_one();
        }
        TimerStep::Wait(next)
    }
}

impl<T: QueueItem> QueueSource for Mutex<State<T>> {
    fn snapshot(&self, now: Instant) -> QueueSnapshot {
        let state = self.lock();
        let (unfinished_seconds, longest_seconds) = state.core.processing_since().fold(
            (0.0, 0.0),
            |(total, longest): (f64, f64), started| {
                let age = now.saturating_duration_since(started).as_secs_f64();
                (total + age, longest.max(age))
            },
        );
        QueueSnapshot {
            depth: state.core.dirty_len() as u64,
            unfinished_seconds,
            longest_seconds,
            stats: state.stats.clone().unwrap_or_default(),
        }
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // Let a sleeping timer task notice that the queue is gone.
        self.timer_wake.notify_one();
        // The metrics collector may hold the state until its next scrape:
        // free the items now, keep only the counts. (An unmetered queue's
        // state goes with it.)
        if self.metered {
            let mut state = self.state.lock();
            state.core.clear();
            state.delayed = Delayed::default();
        }
    }
}
