//! Model-based property test: random operation sequences against a plain model.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::time::Duration;

use proptest::prelude::*;
use tokio::task::JoinHandle;

use super::{settle, small_queue};

/// Items are drawn from a small set so that duplicates and re-adds are common.
const KEYS: u32 = 5;

#[derive(Debug, Clone, Copy)]
enum Op {
    Add(u32),
    Get,
    Done(u32),
    AddAfter(u32, u64),
    AddRateLimited(u32),
    Forget(u32),
    Advance(u64),
    Shutdown,
    Drain,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..KEYS;
    prop_oneof![
        4 => key.clone().prop_map(Op::Add),
        4 => Just(Op::Get),
        3 => key.clone().prop_map(Op::Done),
        2 => (key.clone(), 0..4u64).prop_map(|(k, ms)| Op::AddAfter(k, ms)),
        2 => key.clone().prop_map(Op::AddRateLimited),
        1 => key.prop_map(Op::Forget),
        2 => (1..6u64).prop_map(Op::Advance),
        1 => Just(Op::Shutdown),
        1 => Just(Op::Drain),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Draining,
    Stopped,
}

/// The obviously-correct queue: client-go's rules written out naively.
#[derive(Debug)]
struct Model {
    ready: VecDeque<u32>,
    dirty: HashSet<u32>,
    processing: BTreeSet<u32>,
    /// (item, deadline in ms, order of scheduling)
    waiting: Vec<(u32, u64, u64)>,
    failures: HashMap<u32, u32>,
    phase: Phase,
    now_ms: u64,
    seq: u64,
}

impl Model {
    fn new() -> Self {
        Self {
            ready: VecDeque::new(),
            dirty: HashSet::new(),
            processing: BTreeSet::new(),
            waiting: Vec::new(),
            failures: HashMap::new(),
            phase: Phase::Running,
            now_ms: 0,
            seq: 0,
        }
    }

    fn add(&mut self, k: u32) {
        if self.phase != Phase::Running || self.dirty.contains(&k) {
            return;
        }
        self.dirty.insert(k);
        if !self.processing.contains(&k) {
            self.ready.push_back(k);
        }
    }

    fn get(&mut self) -> Option<u32> {
        if self.phase == Phase::Stopped {
            return None;
        }
        let k = self.ready.pop_front()?;
        self.dirty.remove(&k);
        self.processing.insert(k);
        Some(k)
    }

    fn done(&mut self, k: u32) {
        if self.processing.remove(&k) && self.dirty.contains(&k) {
            self.ready.push_back(k);
        }
    }

    fn add_after(&mut self, k: u32, ms: u64) {
        if self.phase != Phase::Running {
            return;
        }
        if ms == 0 {
            self.add(k);
            return;
        }
        let deadline = self.now_ms + ms;
        if let Some(pos) = self.waiting.iter().position(|w| w.0 == k) {
            if self.waiting[pos].1 <= deadline {
                return;
            }
            self.waiting.remove(pos);
        }
        self.waiting.push((k, deadline, self.seq));
        self.seq += 1;
    }

    fn add_rate_limited(&mut self, k: u32) {
        if self.phase != Phase::Running {
            return;
        }
        let failures = self.failures.entry(k).or_insert(0);
        let delay = (1u64 << (*failures).min(10)).min(8);
        *failures += 1;
        self.add_after(k, delay);
    }

    fn advance(&mut self, ms: u64) {
        self.now_ms += ms;
        let now = self.now_ms;
        let (mut due, later): (Vec<_>, Vec<_>) = self.waiting.drain(..).partition(|w| w.1 <= now);
        self.waiting = later;
        due.sort_by_key(|w| (w.1, w.2));
        for (k, _, _) in due {
            self.add(k);
        }
    }

    fn close(&mut self, to: Phase) {
        if self.phase != Phase::Stopped {
            self.phase = to;
            self.waiting.clear();
        }
    }
}

/// Runs `ops` against a real queue and the model, comparing after each step.
async fn check(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let q = small_queue();
    let mut model = Model::new();
    // Each drain with whether the model says it has returned: once nothing is
    // in flight (or the queue is stopped) it returns, and stays returned.
    let mut drains: Vec<(JoinHandle<()>, bool)> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        match op {
            Op::Add(k) => {
                q.add(k);
                model.add(k);
            }
            Op::Get => {
                let got = q.try_get();
                let want = model.get();
                prop_assert_eq!(got, want, "step {} get", step);
            }
            Op::Done(k) => {
                q.done(&k);
                model.done(k);
            }
            Op::AddAfter(k, ms) => {
                q.add_after(k, Duration::from_millis(ms));
                model.add_after(k, ms);
            }
            Op::AddRateLimited(k) => {
                q.add_rate_limited(k);
                model.add_rate_limited(k);
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
                model.close(Phase::Stopped);
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
            q.is_shutting_down(),
            model.phase != Phase::Running,
            "step {}",
            step
        );
        for k in 0..KEYS {
            let want = model.failures.get(&k).copied().unwrap_or(0);
            prop_assert_eq!(q.num_requeues(&k), want, "step {} requeues of {}", step, k);
        }
        let drained = model.phase == Phase::Stopped || model.processing.is_empty();
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
    // Whatever is left comes out in the model's order, until the queue closes.
    loop {
        let (got, want) = (q.try_get(), model.get());
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
    fn queue_behaves_like_the_model(ops in prop::collection::vec(op(), 1..80)) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(check(ops))?;
    }
}
