//! Leader election on `coordination.k8s.io/v1` Leases, with client-go's
//! semantics and defaults.
//!
//! Every candidate runs a [`LeaderElector`] on the same Lease. One of them
//! creates the Lease, or takes it over once its holder stopped renewing it,
//! and leads; the others stand by and watch the record.
//!
//! * **Defaults** are client-go's: lease duration 15 s, renew deadline 10 s,
//!   retry period 2 s, release on cancel.
//! * **Writes are optimistic**: every update carries the `resourceVersion`
//!   that was read, so of two candidates racing for the Lease exactly one
//!   wins and the other gets `409 Conflict`.
//! * **Expiry is judged on the observer's clock**, counted from when it saw
//!   the record change (client-go's `observedTime`), never from the
//!   `renewTime` written by another machine.
//! * **A leader stops before its lease can expire**: when no renewal has
//!   succeeded within the renew deadline (counted from when the last
//!   successful renewal was *sent*), it cancels its [`Leadership`] token and
//!   steps down. Since the renew deadline is shorter than the lease
//!   duration, a standby only takes over after the old leader stopped.
//! * **Release on shutdown**: the leader cancels its token, waits for its
//!   work to finish (still renewing meanwhile), then writes an empty holder
//!   with a one-second duration, so a standby takes over at its next try.
//!
//! ```no_run
//! use std::time::Duration;
//! use kubegen::leader_election::{LeaderElector, LeaderElectionMetrics};
//!
//! # async fn demo(client: kube::Client) -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = prometheus_client::registry::Registry::default();
//! let metrics = LeaderElectionMetrics::register(&mut registry);
//! let elector = LeaderElector::builder(client, "my-namespace", "my-operator-lock")
//!     .metrics(metrics)
//!     .on_started_leading(|leadership| async move {
//!         // Run the controllers until leadership is lost.
//!         while leadership.is_leading() {
//!             tokio::select! {
//!                 () = leadership.lost() => {}
//!                 () = tokio::time::sleep(Duration::from_secs(1)) => { /* work */ }
//!             }
//!         }
//!     })
//!     .on_new_leader(|identity| tracing::info!(%identity, "new leader"))
//!     .build()?;
//! let readiness = elector.state();
//! # drop(readiness);
//! elector.run(async { let _ = tokio::signal::ctrl_c().await; }).await;
//! # Ok(()) }
//! ```

mod identity;
mod metrics;
mod record;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use kube::Client;
use kube::api::{Api, ObjectMeta, PostParams};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use metrics::LeaderElectionMetrics;

pub use identity::default_identity;
pub(crate) use identity::random_fraction;
use record::{Decision, Observation};

/// client-go's default lease duration: how long a standby waits, after it
/// last saw the record change, before it takes the Lease over.
pub const DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(15);
/// client-go's default renew deadline: how long a leader keeps leading
/// without a successful renewal.
pub const DEFAULT_RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// client-go's default retry period: how often candidates try to acquire
/// and leaders renew.
pub const DEFAULT_RETRY_PERIOD: Duration = Duration::from_secs(2);

/// client-go's jitter factor: the renew deadline must exceed this many
/// retry periods.
const JITTER_FACTOR: f64 = 1.2;

/// What an elector knows about leadership, for readiness and dashboards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderState {
    /// This candidate leads.
    Leader,
    /// This candidate stands by; `leader` is the holder it last saw, if any.
    Standby {
        /// The identity of the current leader, if known.
        leader: Option<String>,
    },
    /// The elector has stopped (shut down, or its work returned).
    Stopped,
}

impl LeaderState {
    /// Whether this candidate leads.
    pub fn is_leader(&self) -> bool {
        matches!(self, LeaderState::Leader)
    }

    /// Whether the process is ready to serve: leaders and standbys are;
    /// a stopped elector is not.
    pub fn is_ready(&self) -> bool {
        !matches!(self, LeaderState::Stopped)
    }
}

/// One term of leadership, handed to the `on_started_leading` callback.
///
/// Its token is cancelled when leadership ends: when renewal failed for the
/// renew deadline, when another candidate took the Lease over, or at
/// shutdown. Work done as leader must stop promptly then.
#[derive(Debug, Clone)]
pub struct Leadership {
    token: CancellationToken,
    identity: Arc<str>,
    transitions: i32,
}

impl Leadership {
    /// A token cancelled when this term of leadership ends.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// Whether this term of leadership is still on.
    pub fn is_leading(&self) -> bool {
        !self.token.is_cancelled()
    }

    /// Resolves when this term of leadership ends.
    pub async fn lost(&self) {
        self.token.cancelled().await;
    }

    /// The leader's identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The Lease's `leaseTransitions` when this term began: it grows with
    /// every change of holder, so it can serve as a fencing number.
    pub fn transitions(&self) -> i32 {
        self.transitions
    }
}

/// A leader election configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid leader election configuration: {0}")]
pub struct ConfigError(String);

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
type StartedCallback = Box<dyn FnMut(Leadership) -> BoxFuture + Send>;
type StoppedCallback = Box<dyn Fn() + Send + Sync>;
type NewLeaderCallback = Box<dyn Fn(&str) + Send + Sync>;

/// Builds a [`LeaderElector`]; see [`LeaderElector::builder`].
pub struct LeaderElectorBuilder {
    client: Client,
    namespace: String,
    lease_name: String,
    identity: Option<String>,
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
    release_on_cancel: bool,
    metrics: Option<LeaderElectionMetrics>,
    on_started: Option<StartedCallback>,
    on_stopped: Option<StoppedCallback>,
    on_new_leader: Option<NewLeaderCallback>,
}

impl fmt::Debug for LeaderElectorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElectorBuilder")
            .field("namespace", &self.namespace)
            .field("lease_name", &self.lease_name)
            .field("identity", &self.identity)
            .field("lease_duration", &self.lease_duration)
            .field("renew_deadline", &self.renew_deadline)
            .field("retry_period", &self.retry_period)
            .field("release_on_cancel", &self.release_on_cancel)
            .finish_non_exhaustive()
    }
}

impl LeaderElectorBuilder {
    /// This candidate's identity (default: `$POD_NAME` or the host name,
    /// plus `_` and a random suffix). Identities must be unique among the
    /// candidates.
    pub fn identity(mut self, identity: impl Into<String>) -> Self {
        self.identity = Some(identity.into());
        self
    }

    /// How long a standby waits after the record last changed before taking
    /// the Lease over (default 15 s; stored in whole seconds, rounded up).
    pub fn lease_duration(mut self, duration: Duration) -> Self {
        self.lease_duration = duration;
        self
    }

    /// How long a leader keeps leading without a successful renewal
    /// (default 10 s). Must be shorter than the lease duration.
    pub fn renew_deadline(mut self, deadline: Duration) -> Self {
        self.renew_deadline = deadline;
        self
    }

    /// How often to try to acquire or renew (default 2 s). The renew
    /// deadline must exceed 1.2 retry periods.
    pub fn retry_period(mut self, period: Duration) -> Self {
        self.retry_period = period;
        self
    }

    /// Whether to release the Lease at shutdown (default true), so that a
    /// standby takes over at once instead of after the lease duration.
    pub fn release_on_cancel(mut self, release: bool) -> Self {
        self.release_on_cancel = release;
        self
    }

    /// Reports leadership in `leader_election_master_status{name}`.
    pub fn metrics(mut self, metrics: LeaderElectionMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Runs `work` at the start of each term of leadership, inside the
    /// elector's task. The elector waits for it to return after the term
    /// ends before it campaigns again or releases the Lease; if it returns
    /// while still leading, the elector releases the Lease and stops.
    pub fn on_started_leading<F, Fut>(mut self, mut work: F) -> Self
    where
        F: FnMut(Leadership) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_started = Some(Box::new(move |leadership| Box::pin(work(leadership))));
        self
    }

    /// Called after each term of leadership ends.
    pub fn on_stopped_leading(mut self, callback: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_stopped = Some(Box::new(callback));
        self
    }

    /// Called with the holder's identity whenever this candidate sees the
    /// Lease change hands (itself included).
    pub fn on_new_leader(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_new_leader = Some(Box::new(callback));
        self
    }

    /// Checks the configuration (client-go's rules) and builds the elector.
    pub fn build(self) -> Result<LeaderElector, ConfigError> {
        if self.lease_name.is_empty() {
            return Err(ConfigError("the lease name is empty".into()));
        }
        if self.retry_period.is_zero() {
            return Err(ConfigError("the retry period must be positive".into()));
        }
        if self.lease_duration <= self.renew_deadline {
            return Err(ConfigError(format!(
                "the lease duration ({:?}) must exceed the renew deadline ({:?})",
                self.lease_duration, self.renew_deadline
            )));
        }
        if self.renew_deadline.as_secs_f64() <= JITTER_FACTOR * self.retry_period.as_secs_f64() {
            return Err(ConfigError(format!(
                "the renew deadline ({:?}) must exceed {JITTER_FACTOR} retry periods ({:?})",
                self.renew_deadline, self.retry_period
            )));
        }
        let identity = match self.identity {
            Some(identity) if identity.is_empty() => {
                return Err(ConfigError("the identity is empty".into()));
            }
            Some(identity) => identity,
            None => identity::default_identity(),
        };
        let (state, _) = watch::channel(LeaderState::Standby { leader: None });
        if let Some(metrics) = &self.metrics {
            metrics.set_leading(&self.lease_name, false);
        }
        Ok(LeaderElector {
            api: Api::namespaced(self.client, &self.namespace),
            lease_name: self.lease_name,
            identity: identity.into(),
            lease_duration: self.lease_duration,
            renew_deadline: self.renew_deadline,
            retry_period: self.retry_period,
            release_on_cancel: self.release_on_cancel,
            metrics: self.metrics,
            on_started: self.on_started,
            on_stopped: self.on_stopped,
            on_new_leader: self.on_new_leader,
            state,
            observed: None,
            lease: None,
            reported_leader: None,
        })
    }
}

/// A candidate for leadership of one Lease. Build it with
/// [`LeaderElector::builder`], take a [`LeaderElector::state`] receiver for
/// readiness, then [`LeaderElector::run`] it.
pub struct LeaderElector {
    api: Api<Lease>,
    lease_name: String,
    identity: Arc<str>,
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
    release_on_cancel: bool,
    metrics: Option<LeaderElectionMetrics>,
    on_started: Option<StartedCallback>,
    on_stopped: Option<StoppedCallback>,
    on_new_leader: Option<NewLeaderCallback>,
    state: watch::Sender<LeaderState>,
    /// The record as last seen, and when (local clock).
    observed: Option<Observation>,
    /// The Lease object as last read or written (for its resourceVersion).
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
enum Attempt {
    /// This candidate holds the Lease; the write was sent at `sent_at`.
    Leading { sent_at: Instant, transitions: i32 },
    /// Another candidate holds it, valid until `until` if known.
    Standby { until: Option<Instant> },
}

/// How a term of leadership ended.
enum TermEnd {
    /// Renewal failed or the Lease was taken over: campaign again.
    Lost,
    /// Shutdown or the work returned: stop.
    Finished,
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

impl LeaderElector {
    /// Starts building an elector for the Lease `namespace/lease_name`.
    pub fn builder(
        client: Client,
        namespace: impl Into<String>,
        lease_name: impl Into<String>,
    ) -> LeaderElectorBuilder {
        LeaderElectorBuilder {
            client,
            namespace: namespace.into(),
            lease_name: lease_name.into(),
            identity: None,
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            release_on_cancel: true,
            metrics: None,
            on_started: None,
            on_stopped: None,
            on_new_leader: None,
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
    /// `shutdown` resolves (then releases the Lease if leading and so
    /// configured) or the `on_started_leading` work returns by itself.
    ///
    /// Everything happens inside this future: dropping or aborting it
    /// (a crash, as far as the others can tell) stops the leader's work
    /// too, without releasing the Lease; the state then reads
    /// [`LeaderState::Stopped`].
    pub async fn run(mut self, shutdown: impl Future<Output = ()> + Send + 'static) {
        let mut shutdown = Shutdown {
            future: Box::pin(shutdown),
            requested: false,
        };
        while let Some((sent_at, transitions)) = self.campaign(&mut shutdown).await {
            match self.lead(sent_at, transitions, &mut shutdown).await {
                TermEnd::Lost if !shutdown.requested => {}
                TermEnd::Lost | TermEnd::Finished => break,
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

    /// Leads one term, from a successful acquisition sent at `acquired_at`.
    async fn lead(
        &mut self,
        acquired_at: Instant,
        transitions: i32,
        shutdown: &mut Shutdown,
    ) -> TermEnd {
        let token = CancellationToken::new();
        let leadership = Leadership {
            token: token.clone(),
            identity: self.identity.clone(),
            transitions,
        };
        tracing::info!(lease = %self.lease_name, identity = %self.identity, "started leading");
        self.set_state(LeaderState::Leader);
        let mut work: BoxFuture = match &mut self.on_started {
            Some(start) => start(leadership),
            None => Box::pin(token.clone().cancelled_owned()),
        };
        let mut last_renew = acquired_at;
        let mut next = acquired_at + self.retry_period;
        let mut draining = false;
        let mut work_done = false;
        let lost = loop {
            let deadline = last_renew + self.renew_deadline;
            tokio::select! {
                biased;
                () = shutdown.requested(), if !draining => {
                    // Stop the work but keep renewing until it has finished,
                    // so the Lease is not released under running work.
                    draining = true;
                    token.cancel();
                }
                () = &mut work => {
                    work_done = true;
                    break false;
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
            if !work_done {
                work.await;
            }
            return TermEnd::Lost;
        }
        if self.release_on_cancel {
            let release_deadline = last_renew + self.renew_deadline;
            match tokio::time::timeout_at(release_deadline, self.release()).await {
                Ok(Ok(())) => tracing::info!(lease = %self.lease_name, "released the lease"),
                Ok(Err(error)) => {
                    tracing::warn!(lease = %self.lease_name, %error, "failed to release the lease");
                }
                Err(_) => tracing::warn!(lease = %self.lease_name, "releasing the lease timed out"),
            }
        }
        self.set_state(LeaderState::Standby { leader: None });
        self.stopped_leading();
        TermEnd::Finished
    }

    fn stopped_leading(&self) {
        tracing::info!(lease = %self.lease_name, identity = %self.identity, "stopped leading");
        if let Some(callback) = &self.on_stopped {
            callback();
        }
    }

    /// Sleeps until `at`, then tries once to acquire or renew, for at most
    /// one renew deadline.
    async fn attempt_at(&mut self, at: Instant) -> Result<Attempt, kube::Error> {
        tokio::time::sleep_until(at).await;
        let limit = self.renew_deadline;
        match tokio::time::timeout(limit, self.try_acquire_or_renew()).await {
            Ok(result) => result,
            Err(_) => Ok(Attempt::Standby { until: None }),
        }
    }

    /// One try: renew directly when the cached record names this candidate,
    /// else read the Lease, decide, and write.
    async fn try_acquire_or_renew(&mut self) -> Result<Attempt, kube::Error> {
        let sent_at = Instant::now();
        let holds = self
            .lease
            .as_ref()
            .and_then(|l| l.spec.as_ref())
            .and_then(record::holder_of)
            .is_some_and(|h| h == &*self.identity);
        if holds && let Some(attempt) = self.write(&Decision::Renew, sent_at).await? {
            return Ok(attempt);
        }
        let current = self.api.get_opt(&self.lease_name).await?;
        let now = Instant::now();
        match &current {
            Some(lease) => {
                record::observe(
                    &mut self.observed,
                    &lease.spec.clone().unwrap_or_default(),
                    now.into_std(),
                );
            }
            None => self.observed = None,
        }
        self.lease = current;
        self.report_leader();
        let decision = record::decide(
            &self.identity,
            self.observed.as_ref(),
            self.lease_duration,
            now.into_std(),
        );
        match decision {
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
    ) -> Result<Option<Attempt>, kube::Error> {
        let old = self.lease.as_ref().and_then(|l| l.spec.as_ref());
        let spec = record::next_record(
            decision,
            &self.identity,
            old,
            self.lease_duration,
            Timestamp::now(),
        );
        let result = match (decision, &self.lease) {
            (Decision::Create, _) | (_, None) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.lease_name.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(spec),
                };
                self.api.create(&PostParams::default(), &lease).await
            }
            (_, Some(current)) => {
                let mut lease = current.clone();
                lease.spec = Some(spec);
                self.api
                    .replace(&self.lease_name, &PostParams::default(), &lease)
                    .await
            }
        };
        match result {
            Ok(written) => {
                let spec = written.spec.clone().unwrap_or_default();
                let transitions = spec.lease_transitions.unwrap_or(0);
                self.observed = Some(Observation {
                    spec,
                    at: Instant::now().into_std(),
                });
                self.lease = Some(written);
                self.report_leader();
                Ok(Some(Attempt::Leading {
                    sent_at,
                    transitions,
                }))
            }
            Err(kube::Error::Api(status))
                if status.is_conflict() || status.is_already_exists() || status.is_not_found() =>
            {
                tracing::debug!(lease = %self.lease_name, reason = %status.reason, "lost a race for the lease");
                self.lease = None;
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// Releases the Lease if the cached record still names this candidate.
    async fn release(&mut self) -> Result<(), kube::Error> {
        // A renewal cancelled by the shutdown may have been written without
        // its answer being seen, making the cached record stale: on a
        // conflict, re-read and release again while the Lease is still ours.
        for attempt in 0..3 {
            let current = if attempt == 0 {
                self.lease.clone()
            } else {
                self.api.get_opt(&self.lease_name).await?
            };
            let Some(current) = current else {
                return Ok(());
            };
            let Some(spec) = current.spec.as_ref() else {
                return Ok(());
            };
            if record::holder_of(spec) != Some(&*self.identity) {
                return Ok(());
            }
            let mut lease = current.clone();
            lease.spec = Some(record::released_record(spec, Timestamp::now()));
            match self
                .api
                .replace(&self.lease_name, &PostParams::default(), &lease)
                .await
            {
                Ok(written) => {
                    self.lease = Some(written);
                    return Ok(());
                }
                Err(kube::Error::Api(status))
                    if crate::ownership::is_conflict_status(&status) && attempt < 2 =>
                {
                    continue;
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
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
        if let (Some(holder), Some(callback)) = (&holder, &self.on_new_leader) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        // A client that is never used: building one needs no server.
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        Client::try_from(config).unwrap()
    }

    #[tokio::test]
    async fn defaults_are_client_go_s_and_bad_ratios_are_refused() {
        let elector = LeaderElector::builder(client(), "ns", "lock")
            .build()
            .unwrap();
        assert_eq!(elector.lease_duration, Duration::from_secs(15));
        assert_eq!(elector.renew_deadline, Duration::from_secs(10));
        assert_eq!(elector.retry_period, Duration::from_secs(2));
        assert!(elector.release_on_cancel);
        assert_eq!(
            *elector.state().borrow(),
            LeaderState::Standby { leader: None }
        );

        let too_long = LeaderElector::builder(client(), "ns", "lock")
            .renew_deadline(Duration::from_secs(15))
            .build();
        assert!(too_long.is_err());
        let too_fast = LeaderElector::builder(client(), "ns", "lock")
            .retry_period(Duration::from_secs(9))
            .build();
        assert!(too_fast.is_err());
        let empty = LeaderElector::builder(client(), "ns", "lock")
            .identity("")
            .build();
        assert!(empty.is_err());
        let scaled = LeaderElector::builder(client(), "ns", "lock")
            .identity("me")
            .lease_duration(Duration::from_millis(3000))
            .renew_deadline(Duration::from_millis(2000))
            .retry_period(Duration::from_millis(400))
            .build()
            .unwrap();
        assert_eq!(scaled.identity(), "me");
    }

    #[test]
    fn readiness_of_states() {
        assert!(LeaderState::Leader.is_ready());
        assert!(LeaderState::Standby { leader: None }.is_ready());
        assert!(!LeaderState::Stopped.is_ready());
        assert!(LeaderState::Leader.is_leader());
        assert!(
            !LeaderState::Standby {
                leader: Some("x".into())
            }
            .is_leader()
        );
    }
}
