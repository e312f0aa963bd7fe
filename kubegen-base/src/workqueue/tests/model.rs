//! Model-based property test: random operation sequences against a plain model,
//! for FIFO and priority-aware queues.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use proptest::prelude::*;
use tokio::task::JoinHandle;

use super::{settle, small_limiter};
use crate::workqueue::WorkQueue;

/// Items are drawn from a small set so that duplicates and re-adds are common.
const KEYS: u32 = 5;

#[derive(Debug, Clone, Copy)]
enum Op {
    Add(u32, i32),
    Get,
    Done(u32),
    AddAfter(u32, u64, i32),
    AddRateLimited(u32, i32),
    Forget(u32),
    Advance(u64),
    Shutdown,
    Drain,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..KEYS;
    let priority = -1..3i32;
    prop_oneof![
        4 => (key.clone(), priority.clone()).prop_map(|(k, p)| Op::Add(k, p)),
        4 => Just(Op::Get),
        3 => key.clone().prop_map(Op::Done),
        2 => (key.clone(), 0..4u64, priority.clone()).prop_map(|(k, ms, p)| Op::AddAfter(k, ms, p)),
        2 => (key.clone(), priority).prop_map(|(k, p)| Op::AddRateLimited(k, p)),
        1 => key.prop_map(Op::Forget),
        2 => (1..6u64).prop_map(Op::Advance),
        1 => Just(Op::Shutdown),
        1 => Just(Op::Drain),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    ShuttingDown,
    Draining,
}

/// An item waiting for its deadline.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    key: u32,
    deadline_ms: u64,
    seq: u64,
    priority: i32,
}

/// The obviously-correct queue: client-go's rules (and controller-runtime's
/// order when `prioritized`) written out naively.
#[derive(Debug)]
struct Model {
    prioritized: bool,
    /// (item, priority, arrival at that priority)
    ready: Vec<(u32, i32, u64)>,
    /// Dirty items with their priority.
    dirty: HashMap<u32, i32>,
    processing: BTreeSet<u32>,
    waiting: Vec<Waiting>,
    failures: HashMap<u32, u32>,
    phase: Phase,
    now_ms: u64,
    seq: u64,
}

impl Model {
    fn new(prioritized: bool) -> Self {
        Self {
            prioritized,
            ready: Vec::new(),
            dirty: HashMap::new(),
            processing: BTreeSet::new(),
            waiting: Vec::new(),
            failures: HashMap::new(),
            phase: Phase::Running,
            now_ms: 0,
            seq: 0,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn add(&mut self, k: u32, p: i32) {
        if self.phase != Phase::Running {
            return;
        }
        let p = if self.prioritized { p } else { 0 };
        if let Some(&old) = self.dirty.get(&k) {
            if p > old {
                self.dirty.insert(k, p);
                let seq = self.next_seq();
                if let Some(entry) = self.ready.iter_mut().find(|r| r.0 == k) {
                    *entry = (k, p, seq);
                }
            }
            return;
        }
        self.dirty.insert(k, p);
        if !self.processing.contains(&k) {
            let seq = self.next_seq();
            self.ready.push((k, p, seq));
        }
    }

    fn get(&mut self) -> Option<(u32, i32)> {
        let next = (0..self.ready.len()).min_by_key(|&i| {
            let (_, p, seq) = self.ready[i];
            (std::cmp::Reverse(p), seq)
        })?;
        let (k, p, _) = self.ready.remove(next);
        self.dirty.remove(&k);
        self.processing.insert(k);
        Some((k, p))
    }

    fn done(&mut self, k: u32) {
        if self.processing.remove(&k)
            && let Some(&p) = self.dirty.get(&k)
        {
            let seq = self.next_seq();
            self.ready.push((k, p, seq));
        }
    }

    fn add_after(&mut self, k: u32, ms: u64, p: i32) {
        if self.phase != Phase::Running {
            return;
        }
        if ms == 0 {
            self.add(k, p);
            return;
        }
        let deadline_ms = self.now_ms + ms;
        let seq = self.next_seq();
        match self.waiting.iter_mut().find(|w| w.key == k) {
            Some(w) => {
                w.priority = w.priority.max(p);
                if w.deadline_ms > deadline_ms {
                    w.deadline_ms = deadline_ms;
                    w.seq = seq;
                }
            }
            None => self.waiting.push(Waiting {
                key: k,
                deadline_ms,
                seq,
                priority: p,
            }),
        }
    }

    fn add_rate_limited(&mut self, k: u32, p: i32) {
        if self.phase != Phase::Running {
            return;
        }
        let failures = self.failures.entry(k).or_insert(0);
        let delay = (1u64 << (*failures).min(10)).min(8);
        *failures += 1;
        self.add_after(k, delay, p);
    }

    fn advance(&mut self, ms: u64) {
        self.now_ms += ms;
        let now = self.now_ms;
        let (mut due, later): (Vec<_>, Vec<_>) =
            self.waiting.drain(..).partition(|w| w.deadline_ms <= now);
        self.waiting = later;
        due.sort_by_key(|w| (w.deadline_ms, w.seq));
        for w in due {
            self.add(w.key, w.priority);
        }
    }

    fn close(&mut self, to: Phase) {
        self.phase = to;
        self.waiting.clear();
    }
}

/// Runs `ops` against a real queue and the model, comparing after each step.
async fn check(prioritized: bool, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut builder = WorkQueue::builder("model").rate_limiter(small_limiter());
    if prioritized {
        builder = builder.priority_aware();
    }
    let q: WorkQueue<u32> = builder.build();
    let mut model = Model::new(prioritized);
    // Each drain with whether the model says it has returned: once nothing is
    // in flight or no drain is asked for any more, and it stays returned.
    let mut drains: Vec<(JoinHandle<()>, bool)> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        match op {
            Op::Add(k, p) => {
                q.add_with_priority(k, p);
                model.add(k, p);
            }
            Op::Get => {
                let got = q.try_get_with_priority();
                let want = model.get();
                prop_assert_eq!(got, want, "step {} get", step);
            }
            Op::Done(k) => {
                q.done(&k);
                model.done(k);
            }
            Op::AddAfter(k, ms, p) => {
                q.add_after_with_priority(k, Duration::from_millis(ms), p);
                model.add_after(k, ms, p);
            }
            Op::AddRateLimited(k, p) => {
                q.add_rate_limited_with_priority(k, p);
                model.add_rate_limited(k, p);
            }
            Op::Forget(k) => {
                q.forget(&k);
                model.failures.remove(&k);
            }
            Op::Advance(ms) => {
                tokio::time::advance(Duration::from_millis(ms)).await;
                model.advance(ms);
            }
            Op::Shutdown => {
                q.shutdown();
                model.close(Phase::ShuttingDown);
            }
            Op::Drain => {
                let q = q.clone();
                drains.push((
                    tokio::spawn(async move { q.shutdown_with_drain().await }),
                    false,
                ));
                model.close(Phase::Draining);
            }
        }
        settle().await;

        prop_assert_eq!(
            q.len(),
            model.ready.len(),
            "step {} len after {:?}",
            step,
            op
        );
        let processing: Vec<u32> = model.processing.iter().copied().collect();
        prop_assert_eq!(
            q.processing(),
            processing,
            "step {} processing after {:?}",
            step,
            op
        );
        prop_assert_eq!(
            q.delayed_len(),
            model.waiting.len(),
            "step {} delayed after {:?}",
            step,
            op
        );
        prop_assert_eq!(
            q.shutting_down(),
            model.phase != Phase::Running,
            "step {}",
            step
        );
        for k in 0..KEYS {
            let want = model.failures.get(&k).copied().unwrap_or(0);
            prop_assert_eq!(q.num_requeues(&k), want, "step {} requeues of {}", step, k);
        }
        let drained = model.phase != Phase::Draining || model.processing.is_empty();
        for (drain, returned) in &mut drains {
            *returned |= drained;
            prop_assert_eq!(
                drain.is_finished(),
                *returned,
                "step {} drain after {:?}",
                step,
                op
            );
        }
    }
    // Whatever is left comes out in the model's order.
    loop {
        let (got, want) = (q.try_get_with_priority(), model.get());
        prop_assert_eq!(got, want, "final drain");
        if want.is_none() {
            break;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn queue_behaves_like_the_model(
        prioritized in any::<bool>(),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(check(prioritized, ops))?;
    }
}
