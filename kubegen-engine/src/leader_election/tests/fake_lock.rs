//! [`FakeLock`]: an in-memory Lease behind the elector's `LeaseLock`, with
//! the API server's optimistic concurrency and scripted faults: errors,
//! requests that never answer, writes whose answer is lost.

use std::future::pending;
use std::sync::Arc;

use futures::future::BoxFuture;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use kubegen_client::api::ObjectMeta;
use kubegen_client::core::Status;
use parking_lot::Mutex;
use tokio::sync::watch;

use crate::leader_election::lock::LeaseLock;

/// The Lease's name in every fake.
const NAME: &str = "bar";

/// A request the elector made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verb {
    /// [`LeaseLock::get`].
    Get,
    /// [`LeaseLock::create`].
    Create,
    /// [`LeaseLock::update`].
    Update,
}

/// How the fake answers one scripted request instead of normally.
pub(super) enum Reaction {
    /// Fails with this error; nothing is written.
    Fail(kubegen_client::Error),
    /// Never answers; nothing is written (a request cut short).
    Hang,
    /// Writes, then never answers (a write whose answer was lost).
    WriteThenHang,
    /// Runs this first, then answers normally.
    Before(Box<dyn FnOnce() + Send>),
}

/// A Lease held in memory. Clones share it.
#[derive(Clone, Default)]
pub(super) struct FakeLock {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// The number of requests made so far.
    requests: watch::Sender<usize>,
}

#[derive(Default)]
struct State {
    lease: Option<Lease>,
    /// The last resourceVersion handed out.
    revision: u64,
    log: Vec<Verb>,
    /// Reactions for the `n`th request (1-based) of a verb.
    script: Vec<(Verb, usize, Reaction)>,
}

impl State {
    /// Stores `spec` under a fresh resourceVersion, keeping `lease`'s
    /// other metadata; returns the stored Lease.
    fn store(&mut self, mut lease: Lease, spec: LeaseSpec) -> Lease {
        self.revision += 1;
        lease.metadata.name = Some(NAME.to_string());
        lease.metadata.resource_version = Some(self.revision.to_string());
        lease.spec = Some(spec);
        self.lease = Some(lease.clone());
        lease
    }

    fn create(&mut self, spec: LeaseSpec) -> Result<Lease, kubegen_client::Error> {
        if self.lease.is_some() {
            return Err(status(409, "AlreadyExists"));
        }
        Ok(self.store(Lease::default(), spec))
    }

    fn update(&mut self, lease: Lease) -> Result<Lease, kubegen_client::Error> {
        let Some(stored) = &self.lease else {
            return Err(status(404, "NotFound"));
        };
        if stored.metadata.resource_version != lease.metadata.resource_version {
            return Err(status(409, "Conflict"));
        }
        let spec = lease.spec.clone().unwrap_or_default();
        Ok(self.store(lease, spec))
    }
}

/// An API error with `code` and `reason`.
pub(super) fn status(code: u16, reason: &str) -> kubegen_client::Error {
    kubegen_client::Error::Api(Status::failure(reason, reason).with_code(code).boxed())
}

impl FakeLock {
    /// A fake whose Lease does not exist yet.
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// A fake whose Lease exists with `spec`.
    pub(super) fn holding(spec: LeaseSpec) -> Self {
        let lock = Self::new();
        lock.put(spec);
        lock
    }

    /// Another writer stores `spec` (a new resourceVersion).
    pub(super) fn put(&self, spec: LeaseSpec) {
        let mut state = self.shared.state.lock();
        let lease = state.lease.clone().unwrap_or_else(|| Lease {
            metadata: ObjectMeta::default(),
            spec: None,
        });
        state.store(lease, spec);
    }

    /// The Lease's spec as stored, if it exists.
    pub(super) fn spec(&self) -> Option<LeaseSpec> {
        let state = self.shared.state.lock();
        state
            .lease
            .as_ref()
            .map(|l| l.spec.clone().unwrap_or_default())
    }

    /// The holder named by the stored Lease, if any.
    pub(super) fn holder(&self) -> Option<String> {
        self.spec()
            .and_then(|s| s.holder_identity)
            .filter(|h| !h.is_empty())
    }

    /// Answers the `nth` request (1-based) of `verb` with `reaction`.
    pub(super) fn on(&self, verb: Verb, nth: usize, reaction: Reaction) {
        self.shared.state.lock().script.push((verb, nth, reaction));
    }

    /// The requests made so far, in order.
    pub(super) fn log(&self) -> Vec<Verb> {
        self.shared.state.lock().log.clone()
    }

    /// Resolves once `verb` has been requested `nth` times.
    pub(super) async fn requested(&self, verb: Verb, nth: usize) {
        let mut requests = self.shared.requests.subscribe();
        requests
            .wait_for(|_| self.log().iter().filter(|v| **v == verb).count() >= nth)
            .await
            .expect("the fake owns the sender");
    }

    /// Logs a request of `verb` and takes its scripted reaction, if any.
    fn begin(&self, verb: Verb) -> Option<Reaction> {
        let mut state = self.shared.state.lock();
        state.log.push(verb);
        let nth = state.log.iter().filter(|v| **v == verb).count();
        let scripted = state
            .script
            .iter()
            .position(|(v, n, _)| *v == verb && *n == nth)
            .map(|i| state.script.remove(i).2);
        let requests = state.log.len();
        drop(state);
        self.shared.requests.send_replace(requests);
        scripted
    }

    /// Answers a request of `verb`: its scripted reaction, else `apply`.
    async fn answer<T>(
        &self,
        verb: Verb,
        apply: impl FnOnce(&mut State) -> Result<T, kubegen_client::Error>,
    ) -> Result<T, kubegen_client::Error> {
        match self.begin(verb) {
            None => {}
            Some(Reaction::Fail(error)) => return Err(error),
            Some(Reaction::Hang) => return pending().await,
            Some(Reaction::WriteThenHang) => {
                let _ = apply(&mut self.shared.state.lock());
                return pending().await;
            }
            Some(Reaction::Before(run)) => run(),
        }
        apply(&mut self.shared.state.lock())
    }
}

impl LeaseLock for FakeLock {
    fn get(&self) -> BoxFuture<'_, Result<Option<Lease>, kubegen_client::Error>> {
        Box::pin(self.answer(Verb::Get, |state| Ok(state.lease.clone())))
    }

    fn create(&self, spec: LeaseSpec) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>> {
        Box::pin(self.answer(Verb::Create, |state| state.create(spec)))
    }

    fn update(&self, lease: Lease) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>> {
        Box::pin(self.answer(Verb::Update, |state| state.update(lease)))
    }
}
