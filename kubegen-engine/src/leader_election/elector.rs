//! [`LeaderElector`]: the election loop — campaign, lead while renewing,
//! step down or release — deciding by `record` and reaching the Lease
//! through a `lock`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::config::LeaderElectionConfig;
use super::lock::LeaseLock;
use super::metrics::LeaderElectionMetrics;
use super::state::{LeaderState, Leadership};
use crate::api_errors::{is_already_exists, is_conflict, is_not_found};
use crate::jitter::random_fraction;
use crate::lease::{self as record, Decision, Observation};

/// A future the elector runs or awaits.
type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
type StartedCallback = Box<dyn FnMut(Leadership) -> BoxFuture + Send>;
type StoppedCallback = Box<dyn Fn() + Send + Sync>;
type NewLeaderCallback = Box<dyn Fn(&str) + Send + Sync>;

/// What the elector calls as leadership changes; set through the
/// [`LeaderElectorBuilder`](super::LeaderElectorBuilder).
#[derive(Default)]
pub(super) struct Callbacks {
    /// Runs each term of leadership.
    on_started: Option<StartedCallback>,
    /// Called after each term ends.
    on_stopped: Option<StoppedCallback>,
    /// Called with each new holder seen.
    on_new_leader: Option<NewLeaderCallback>,
}

impl Callbacks {
    /// Sets the work of each term.
    pub(super) fn on_started<F, Fut>(&mut self, mut work: F)
    where
        F: FnMut(Leadership) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_started = Some(Box::new(move |leadership| Box::pin(work(leadership))));
    }

    /// Sets the callback after each term.
    pub(super) fn on_stopped(&mut self, callback: impl Fn() + Send + Sync + 'static) {
        self.on_stopped = Some(Box::new(callback));
    }

    /// Sets the callback for each new holder.
    pub(super) fn on_new_leader(&mut self, callback: impl Fn(&str) + Send + Sync + 'static) {
        self.on_new_leader = Some(Box::new(callback));
    }
}

/// How many times [`LeaderElector::release`] writes the release before it
/// gives up on a Lease that keeps changing under it.
const RELEASE_WRITES: usize = 3;

/// A candidate for leadership of one Lease. Build it with
/// [`LeaderElector::builder`], take a [`LeaderElector::state`] receiver for
/// readiness, then [`LeaderElector::run`] it.
pub struct LeaderElector {
    lock: Box<dyn LeaseLock>,
    lease_name: String,
    identity: Arc<str>,
    pub(super) lease_duration: Duration,
    pub(super) renew_deadline: Duration,
    pub(super) retry_period: Duration,
    pub(super) release_on_cancel: bool,
    metrics: Option<LeaderElectionMetrics>,
    callbacks: Callbacks,
    state: watch::Sender<LeaderState>,
    /// The record as last seen, and when (local clock).
    pub(super) observed: Option<Observation>,
    /// The Lease object as last read or written (for its resourceVersion);
    /// `None` when unknown, e.g. after a write lost a race.
    lease: Option<Lease>,
    /// The holder last reported to `on_new_leader`.
    reported_leader: Option<String>,
}

impl fmt::Debug for LeaderElector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElector")
            .field("lease_name", &self.lease_name)
            .field("identity", &self.identity)
            .field("lease_duration", &self.lease_duration)
            .field("renew_deadline", &self.renew_deadline)
            .field("retry_period", &self.retry_period)
            .field("state", &*self.state.borrow())
            .finish_non_exhaustive()
    }
}

/// However the elector ends — `run` returned, or its future was dropped or
/// aborted — it reports itself stopped and no longer leading.
impl Drop for LeaderElector {
    fn drop(&mut self) {
        self.set_state(LeaderState::Stopped);
    }
}

/// The result of one try to acquire or renew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Attempt {
    /// This candidate holds the Lease; the write was sent at `sent_at`.
    Leading { sent_at: Instant, transitions: i32 },
    /// Another candidate holds it, valid until `until` if known.
    Standby { until: Option<Instant> },
}

/// What [`LeaderElector::release`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Release {
    /// The release was written: the Lease names nobody.
    Released,
    /// The API server's Lease does not name this candidate (it names
    /// `holder`, or does not exist): there was nothing to release.
    NotHeld { holder: Option<String> },
}

/// How a term of leadership ended.
enum TermEnd {
    /// Renewal failed or the Lease was taken over: campaign again.
    Lost,
    /// Shutdown: the work has returned and the Lease was released (if so
    /// configured); stop.
    ShutDown,
}

/// The shutdown future, polled from several places and remembered once it
/// resolved.
struct Shutdown {
    future: BoxFuture,
    requested: bool,
}

impl Shutdown {
    /// Resolves when shutdown is requested (at once if it already was).
    async fn requested(&mut self) {
        if !self.requested {
            (&mut self.future).await;
            self.requested = true;
        }
    }
}

/// Resolves when the term's work returns; never once it has (`None`).
async fn work_returned(work: &mut Option<BoxFuture>) {
    match work {
        Some(work) => work.await,
        None => std::future::pending().await,
    }
}

impl LeaderElector {
    /// An elector for `config` (already validated) as `identity`, reaching
    /// its Lease through `lock`.
    pub(super) fn new(
        lock: Box<dyn LeaseLock>,
        config: LeaderElectionConfig,
        identity: String,
        metrics: Option<LeaderElectionMetrics>,
        callbacks: Callbacks,
    ) -> Self {
        let (state, _) = watch::channel(LeaderState::Standby { leader: None });
        if let Some(metrics) = &metrics {
            metrics.set_leading(&config.lease_name, false);
        }
        LeaderElector {
            lock,
            lease_name: config.lease_name,
            identity: identity.into(),
            lease_duration: config.lease_duration,
            renew_deadline: config.renew_deadline,
            retry_period: config.retry_period,
            release_on_cancel: config.release_on_cancel,
            metrics,
            callbacks,
            state,
            observed: None,
            lease: None,
            reported_leader: None,
        }
    }

    /// This candidate's identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// A receiver of this candidate's [`LeaderState`], starting as a standby
    /// that has seen no leader yet.
    pub fn state(&self) -> watch::Receiver<LeaderState> {
        self.state.subscribe()
    }

    /// Campaigns, leads, and campaigns again after a lost term, until
    /// `shutdown` resolves; a leader then cancels its [`Leadership`], waits
    /// for the `on_started_leading` work to return (still renewing) and
    /// releases the Lease if so configured.
    ///
    /// As in client-go, a term lasts until shutdown or lost leadership: the
    /// work returning early does not end it (see
    /// [`on_started_leading`](super::LeaderElectorBuilder::on_started_leading)).
    /// Unlike client-go's `Run`, which returns after one term, `run` goes
    /// on campaigning after a lost term.
    ///
    /// Everything happens inside this future: dropping or aborting it
    /// (a crash, as far as the others can tell) stops the leader's work
    /// too, without releasing the Lease; the state then reads
    /// [`LeaderState::Stopped`].
    ///
    /// The future is boxed, as [`Manager::run_until`](crate::Manager::run_until)'s
    /// is, so that a crate awaiting it does not compile its body.
    pub fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> BoxFuture {
        self.run_boxed(Box::pin(shutdown))
    }

    /// [`run`](Self::run) past its one generic step.
    fn run_boxed(self, shutdown: BoxFuture) -> BoxFuture {
        Box::pin(self.run_inner(shutdown))
    }

    async fn run_inner(mut self, shutdown: BoxFuture) {
        let mut shutdown = Shutdown {
            future: shutdown,
            requested: false,
        };
        while let Some((sent_at, transitions)) = self.campaign(&mut shutdown).await {
            match self.lead(sent_at, transitions, &mut shutdown).await {
                TermEnd::Lost if !shutdown.requested => {}
                TermEnd::Lost | TermEnd::ShutDown => break,
            }
        }
        self.set_state(LeaderState::Stopped);
    }

    /// Tries until this candidate leads; `None` when shutdown comes first.
    async fn campaign(&mut self, shutdown: &mut Shutdown) -> Option<(Instant, i32)> {
        let mut next = Instant::now();
        loop {
            tokio::select! {
                biased;
                () = shutdown.requested() => return None,
                attempt = self.attempt_at(next) => match attempt {
                    Ok(Attempt::Leading { sent_at, transitions }) => {
                        return Some((sent_at, transitions));
                    }
                    Ok(Attempt::Standby { until }) => next = self.next_campaign_try(until),
                    Err(error) => {
                        tracing::debug!(lease = %self.lease_name, %error, "failed to acquire the lease");
                        next = self.next_campaign_try(None);
                    }
                },
            }
        }
    }

    /// When a standby tries next: after about one retry period, or exactly
    /// when the holder's lease expires if that is sooner.
    fn next_campaign_try(&self, until: Option<Instant>) -> Instant {
        // Jitter within the period (90–100 %) spreads candidates out without
        // ever waiting longer than one retry period.
        let period = self.retry_period.mul_f64(0.9 + 0.1 * random_fraction());
        let regular = Instant::now() + period;
        match until {
            Some(until) if until > Instant::now() => regular.min(until),
            _ => regular,
        }
    }

    /// Leads one term, from a successful acquisition sent at `acquired_at`,
    /// until shutdown (once the work has returned) or lost leadership.
    async fn lead(
        &mut self,
        acquired_at: Instant,
        transitions: i32,
        shutdown: &mut Shutdown,
    ) -> TermEnd {
        let token = CancellationToken::new();
        let leadership = Leadership::new(token.clone(), self.identity.clone(), transitions);
        tracing::info!(lease = %self.lease_name, identity = %self.identity, "started leading");
        self.set_state(LeaderState::Leader);
        // The work until it returns; its return does not end the term.
        let mut work: Option<BoxFuture> = self
            .callbacks
            .on_started
            .as_mut()
            .map(|start| start(leadership));
        let mut last_renew = acquired_at;
        let mut next = acquired_at + self.retry_period;
        let mut stopping = false;
        let lost = loop {
            if stopping && work.is_none() {
                break false;
            }
            let deadline = last_renew + self.renew_deadline;
            tokio::select! {
                biased;
                () = shutdown.requested(), if !stopping => {
                    // Stop the work but keep renewing until it has returned,
                    // so the Lease is not released under running work.
                    stopping = true;
                    token.cancel();
                }
                () = work_returned(&mut work) => {
                    work = None;
                    if !stopping {
                        tracing::info!(lease = %self.lease_name, "the leader's work returned; leading until shutdown");
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    tracing::warn!(lease = %self.lease_name, "failed to renew the lease within the renew deadline");
                    break true;
                }
                attempt = self.attempt_at(next) => match attempt {
                    Ok(Attempt::Leading { sent_at, .. }) => {
                        last_renew = sent_at;
                        next = sent_at + self.retry_period;
                    }
                    Ok(Attempt::Standby { .. }) => {
                        tracing::warn!(lease = %self.lease_name, "the lease was taken over");
                        break true;
                    }
                    Err(error) => {
                        tracing::debug!(lease = %self.lease_name, %error, "failed to renew the lease");
                        next = Instant::now() + self.retry_period;
                    }
                },
            }
        };
        token.cancel();
        if lost {
            // Step down before anything else; the work was told through the
            // token and is awaited before this candidate campaigns again.
            self.set_state(LeaderState::Standby {
                leader: self
                    .observed
                    .as_ref()
                    .and_then(|o| o.holder())
                    .map(str::to_string),
            });
            self.stopped_leading();
            if let Some(work) = work {
                work.await;
            }
            return TermEnd::Lost;
        }
        if self.release_on_cancel {
            let release_deadline = last_renew + self.renew_deadline;
            match tokio::time::timeout_at(release_deadline, self.release()).await {
                Ok(Ok(Release::Released)) => {
                    tracing::info!(lease = %self.lease_name, "released the lease");
                }
                Ok(Ok(Release::NotHeld { holder })) => tracing::info!(
                    lease = %self.lease_name,
                    holder = holder.as_deref().unwrap_or(""),
                    "the lease no longer names this candidate: nothing to release"
                ),
                Ok(Err(error)) => {
                    tracing::warn!(lease = %self.lease_name, %error, "failed to release the lease");
                }
                Err(_) => tracing::warn!(lease = %self.lease_name, "releasing the lease timed out"),
            }
        }
        self.set_state(LeaderState::Standby { leader: None });
        self.stopped_leading();
        TermEnd::ShutDown
    }

    fn stopped_leading(&self) {
        tracing::info!(lease = %self.lease_name, identity = %self.identity, "stopped leading");
        if let Some(callback) = &self.callbacks.on_stopped {
            callback();
        }
    }

    /// Sleeps until `at`, then tries once to acquire or renew, for at most
    /// one renew deadline.
    async fn attempt_at(&mut self, at: Instant) -> Result<Attempt, kubegen_client::Error> {
        tokio::time::sleep_until(at).await;
        let limit = self.renew_deadline;
        match tokio::time::timeout(limit, self.try_acquire_or_renew()).await {
            Ok(result) => result,
            Err(_) => Ok(Attempt::Standby { until: None }),
        }
    }

    /// One try (client-go's `tryAcquireOrRenew`): renew directly when the
    /// cached Lease names this candidate, else read the Lease, decide, and
    /// write.
    pub(super) async fn try_acquire_or_renew(&mut self) -> Result<Attempt, kubegen_client::Error> {
        let sent_at = Instant::now();
        let holds = self.lease.as_ref().is_some_and(|l| self.names_me(l));
        if holds && let Some(attempt) = self.write(&Decision::Renew, sent_at).await? {
            return Ok(attempt);
        }
        let current = self.lock.get().await?;
        let now = Instant::now().into_std();
        self.remember(current, now);
        match record::decide(&self.identity, self.observed.as_ref(), now) {
            Decision::Wait { until, .. } => Ok(Attempt::Standby {
                until: Some(Instant::from_std(until)),
            }),
            decision => Ok(self
                .write(&decision, sent_at)
                .await?
                .unwrap_or(Attempt::Standby { until: None })),
        }
    }

    /// Writes the record for `decision` with optimistic concurrency.
    /// `None` when another writer won the race (conflict, already exists,
    /// or the Lease vanished).
    async fn write(
        &mut self,
        decision: &Decision,
        sent_at: Instant,
    ) -> Result<Option<Attempt>, kubegen_client::Error> {
        let old = self.lease.as_ref().and_then(|l| l.spec.as_ref());
        let spec = record::next_record(
            decision,
            &self.identity,
            old,
            self.lease_duration,
            Timestamp::now(),
        );
        let result = match (decision, &self.lease) {
            (Decision::Create, _) | (_, None) => self.lock.create(spec).await,
            (_, Some(current)) => {
                let mut lease = current.clone();
                lease.spec = Some(spec);
                self.lock.update(lease).await
            }
        };
        match result {
            Ok(written) => {
                let transitions = written
                    .spec
                    .as_ref()
                    .and_then(|s| s.lease_transitions)
                    .unwrap_or(0);
                self.remember_written(written);
                Ok(Some(Attempt::Leading {
                    sent_at,
                    transitions,
                }))
            }
            Err(kubegen_client::Error::Api(status))
                if is_conflict(&status) || is_already_exists(&status) || is_not_found(&status) =>
            {
                tracing::debug!(lease = %self.lease_name, reason = %status.reason, "lost a race for the lease");
                self.lease = None;
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// Releases the Lease (client-go's `release`): writes an empty holder
    /// with a one-second duration if the Lease names this candidate.
    ///
    /// It never reports success without having either written the release
    /// or read from the API server a Lease that does not name this
    /// candidate. A cached copy naming this candidate is written at once
    /// (the write is conditioned on its resourceVersion, so a stale copy
    /// only costs a conflict); without one — e.g. a renewal just lost a
    /// race and its re-read was cut short by the shutdown — the Lease is
    /// read first. A conflict means the Lease changed since it was read (a
    /// renewal written but not seen, another writer): read it again and
    /// retry, at most [`RELEASE_WRITES`] writes in all.
    ///
    /// Unlike client-go, the decision goes by the Lease just read, not by
    /// the record observed before, so a Lease taken over meanwhile is not
    /// overwritten.
    pub(super) async fn release(&mut self) -> Result<Release, kubegen_client::Error> {
        let mut copy = self.lease.clone().filter(|l| self.names_me(l));
        let mut writes = 0;
        loop {
            let lease = match copy.take() {
                Some(lease) => lease,
                None => {
                    let current = self.lock.get().await?;
                    self.remember(current.clone(), Instant::now().into_std());
                    match current {
                        Some(lease) if self.names_me(&lease) => lease,
                        other => {
                            let holder = other
                                .as_ref()
                                .and_then(|l| l.spec.as_ref())
                                .and_then(record::holder_of)
                                .map(str::to_string);
                            return Ok(Release::NotHeld { holder });
                        }
                    }
                }
            };
            let old = lease.spec.clone().unwrap_or_default();
            let mut released = lease;
            released.spec = Some(record::released_record(&old, Timestamp::now()));
            writes += 1;
            match self.lock.update(released).await {
                Ok(written) => {
                    self.remember_written(written);
                    return Ok(Release::Released);
                }
                Err(kubegen_client::Error::Api(status)) if is_not_found(&status) => {
                    self.remember(None, Instant::now().into_std());
                    return Ok(Release::NotHeld { holder: None });
                }
                Err(kubegen_client::Error::Api(status))
                    if is_conflict(&status) && writes < RELEASE_WRITES =>
                {
                    tracing::debug!(lease = %self.lease_name, "the lease changed before its release: reading it again");
                    self.lease = None;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Whether `lease` names this candidate as its holder.
    fn names_me(&self, lease: &Lease) -> bool {
        lease
            .spec
            .as_ref()
            .and_then(record::holder_of)
            .is_some_and(|holder| holder == &*self.identity)
    }

    /// Keeps `current` as read at `now` (`None`: no Lease): the object for
    /// its resourceVersion, the record as observed.
    fn remember(&mut self, current: Option<Lease>, now: std::time::Instant) {
        match &current {
            Some(lease) => {
                record::observe(
                    &mut self.observed,
                    &lease.spec.clone().unwrap_or_default(),
                    now,
                );
            }
            None => self.observed = None,
        }
        self.lease = current;
        self.report_leader();
    }

    /// Keeps `written`, just written by this candidate, observed now.
    fn remember_written(&mut self, written: Lease) {
        self.observed = Some(Observation {
            spec: written.spec.clone().unwrap_or_default(),
            at: Instant::now().into_std(),
        });
        self.lease = Some(written);
        self.report_leader();
    }

    /// Calls `on_new_leader` and updates the standby state when the observed
    /// holder changed.
    fn report_leader(&mut self) {
        let holder = self
            .observed
            .as_ref()
            .and_then(|o| o.holder())
            .map(str::to_string);
        if holder == self.reported_leader {
            return;
        }
        self.reported_leader = holder.clone();
        if let (Some(holder), Some(callback)) = (&holder, &self.callbacks.on_new_leader) {
            callback(holder);
        }
        if !self.state.borrow().is_leader() {
            self.set_state(LeaderState::Standby { leader: holder });
        }
    }

    fn set_state(&self, state: LeaderState) {
        if let Some(metrics) = &self.metrics {
            metrics.set_leading(&self.lease_name, state.is_leader());
        }
        self.state.send_if_modified(|current| {
            let changed = *current != state;
            *current = state;
            changed
        });
    }
}
