//! [`Manager`]: owns the client, the shared informers, the runnables,
//! leader election and the probe and metrics servers, and runs them from
//! start-up to a drained shutdown.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::time::Duration;

use futures::future::{BoxFuture, join, join_all};
use kubegen_client::Client;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::error::ManagerError;
use super::group::{Failure, Group};
use super::runnable::Runnable;
use super::term::{self, Report, Term, TermSlot};
use crate::controller::{ControllerMetrics, shutdown_signal};
use crate::factory::SharedInformerFactory;
use crate::leader_election::{LeaderElector, LeaderState};
use crate::server::{MetricsServer, ProbeServer, ReadyFlag, SharedRegistry, WebhookServer};
use crate::sharding::{Coordinator, ShardingError, Shards};

/// The name of the readiness check that passes once the caches synced.
pub(super) const CACHES_SYNCED: &str = "caches-synced";

/// One wiring object for an operator process (controller-runtime's
/// `Manager`): build it with [`Manager::builder`], [`add`](Manager::add)
/// controllers and other [runnables](super::Runnable), then
/// [`run`](Manager::run) it.
///
/// [`run`](Manager::run) goes through these steps:
///
/// 1. serves the probes, `/metrics` and the webhooks (where addresses were given; see
///    [`ManagerBuilder`](super::ManagerBuilder)); `/readyz` fails until
///    step 2 is done, and while leader election has stopped;
/// 2. starts the shared informers and every runnable's
///    [warm-up](super::Runnable::warm_up), whether or not this replica
///    leads (a *warm standby*, controller-runtime's `EnableWarmup`: a new
///    leader acts at once), and waits until all caches have synced — with
///    [`warm_standby(false)`](super::ManagerBuilder::warm_standby), only
///    once this replica leads;
/// 3. starts the runnables that do not need leader election; starts the
///    leader-only ones (controllers) at once without leader election, else
///    campaigns for the Lease and starts them once this replica leads;
/// 4. stops on SIGTERM/SIGINT (or the future given to
///    [`run_until`](Manager::run_until)): no new work is taken, every
///    runnable gets the [drain timeout](super::ManagerBuilder::drain_timeout)
///    to return and is aborted after it, the Lease is released (still
///    renewed during the drain), the informers and the server stop, and
///    `run` returns `Ok` (or [`ManagerError::DrainTimeout`] naming the
///    runnables that had to be aborted);
/// 5. stops early when a runnable fails ([`ManagerError::Runnable`], after
///    draining the others).
///
/// **Lost leadership.** When this replica stops leading without being asked
/// to stop (renewals failed for the renew deadline, or another candidate
/// took the Lease), the leader-only runnables are aborted at once, without
/// a drain — another replica may already be acting — everything else
/// stops, and `run` returns [`ManagerError::LeadershipLost`]. Controllers
/// are not restarted in the same process: like controller-runtime, which
/// exits then, the process is expected to exit non-zero and be restarted
/// (the kubelet restarts the container), coming back as a fresh candidate.
pub struct Manager {
    pub(super) client: Client,
    pub(super) factory: SharedInformerFactory,
    pub(super) registry: SharedRegistry,
    pub(super) controller_metrics: ControllerMetrics,
    pub(super) probes: Option<ProbeServer>,
    pub(super) health_probe_addr: Option<SocketAddr>,
    pub(super) metrics: Option<MetricsServer>,
    pub(super) metrics_addr: Option<SocketAddr>,
    pub(super) webhooks: Option<WebhookServer>,
    pub(super) webhook_addr: Option<SocketAddr>,
    pub(super) caches_synced: ReadyFlag,
    /// The elector, and where its first term of leadership finds the
    /// leader-only runnables.
    pub(super) elector: Option<(LeaderElector, TermSlot)>,
    pub(super) drain_timeout: Duration,
    /// Whether informers sync before this replica leads (else once it
    /// leads).
    pub(super) warm_standby: bool,
    pub(super) runnables: Vec<Box<dyn Runnable>>,
    /// This replica's shards and what keeps them current.
    pub(super) sharding: Option<(Shards, Coordinator)>,
}

impl fmt::Debug for Manager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Manager")
            .field("health_probe_addr", &self.health_probe_addr)
            .field("metrics_addr", &self.metrics_addr)
            .field("webhook_addr", &self.webhook_addr)
            .field(
                "elector",
                &self.elector.as_ref().map(|(elector, _)| elector),
            )
            .field("drain_timeout", &self.drain_timeout)
            .field(
                "runnables",
                &self.runnables.iter().map(|r| r.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Why the manager began to stop.
enum Cause {
    /// Shutdown was requested.
    Shutdown,
    /// A runnable failed.
    Failed(Failure),
    /// Leadership was lost.
    Lost,
}

impl Manager {
    /// The client everything is built with.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The shared informer factory: take controllers' informers from it, so
    /// that they start before leadership and count toward readiness.
    pub fn factory(&self) -> &SharedInformerFactory {
        &self.factory
    }

    /// The registry served on `/metrics`, for the operator's own metrics.
    pub fn registry(&self) -> &SharedRegistry {
        &self.registry
    }

    /// The controller metrics registered in [`registry`](Manager::registry),
    /// to pass to [`ControllerBuilder::metrics`](crate::controller::ControllerBuilder::metrics).
    pub fn controller_metrics(&self) -> &ControllerMetrics {
        &self.controller_metrics
    }

    /// Where `/healthz`, `/livez` and `/readyz` are served, if anywhere.
    pub fn health_probe_addr(&self) -> Option<SocketAddr> {
        self.health_probe_addr
    }

    /// Where the webhooks are served, if anywhere.
    pub fn webhook_addr(&self) -> Option<SocketAddr> {
        self.webhook_addr
    }

    /// Where `/metrics` is served, if anywhere.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// This replica's leader election state, when leader election is on.
    pub fn leader_state(&self) -> Option<watch::Receiver<LeaderState>> {
        self.elector.as_ref().map(|(elector, _)| elector.state())
    }

    /// The partitions this replica holds, when the manager
    /// [shards](super::ManagerBuilder::sharding): pass them to
    /// [`ControllerBuilder::shards`](crate::controller::ControllerBuilder::shards).
    pub fn shards(&self) -> Option<&Shards> {
        self.sharding.as_ref().map(|(shards, _)| shards)
    }

    /// Adds a runnable: a [`Controller`](crate::controller::Controller), or
    /// a closure through [`runnable`](super::runnable).
    pub fn add(&mut self, runnable: impl Runnable) {
        self.runnables.push(Box::new(runnable));
    }

    /// Runs until SIGTERM or SIGINT (see [`shutdown_signal`]), then stops
    /// gracefully; see [`Manager`] for the steps and what an error means.
    /// The future is boxed, as [`run_until`](Self::run_until)'s is.
    ///
    /// # Panics
    ///
    /// Polled outside a Tokio runtime.
    pub fn run(self) -> BoxFuture<'static, Result<(), ManagerError>> {
        // The signal handlers are installed on the first poll, inside the
        // runtime.
        Box::pin(async move { self.run_until(shutdown_signal()).await })
    }

    /// Runs until `shutdown` resolves, then stops gracefully; see
    /// [`Manager`].
    ///
    /// The future is boxed, unlike an `async fn`'s, on purpose: a crate that
    /// awaits an `async fn` of another crate compiles that function's body
    /// (and every `async fn` body it awaits in turn) itself, since rustc
    /// shares no compiled future bodies between crates. Boxed here, the
    /// manager's machinery (leader election, servers, runnables) is compiled
    /// once, in kubegen, instead of again in each operator crate and on
    /// each of its rebuilds. `manager.run_until(stop).await` reads the same.
    ///
    /// # Panics
    ///
    /// Polled outside a Tokio runtime.
    pub fn run_until<'a>(
        self,
        shutdown: impl Future<Output = ()> + Send + 'a,
    ) -> BoxFuture<'a, Result<(), ManagerError>> {
        self.run_until_boxed(Box::pin(shutdown))
    }

    /// [`run_until`](Self::run_until) past its one generic step: compiled
    /// here, so the future it boxes is too.
    fn run_until_boxed(
        self,
        shutdown: BoxFuture<'_, ()>,
    ) -> BoxFuture<'_, Result<(), ManagerError>> {
        Box::pin(self.run_until_inner(shutdown))
    }

    async fn run_until_inner(self, shutdown: BoxFuture<'_, ()>) -> Result<(), ManagerError> {
        let Manager {
            factory,
            probes,
            metrics,
            webhooks,
            caches_synced,
            elector,
            drain_timeout,
            warm_standby,
            runnables,
            sharding,
            ..
        } = self;
        if sharding.is_some()
            && elector.is_none()
            && let Some(runnable) = runnables.iter().find(|r| r.need_leader_election())
        {
            return Err(ManagerError::UnshardedRunnable(runnable.name().to_owned()));
        }
        // The coordinator runs from the start (so that the first lists are
        // already scoped to the partitions held) until the runnables have
        // drained; its failure stops the manager.
        let coordination = sharding.map(|(_, coordinator)| Coordination::start(coordinator));
        let failed = coordination.as_ref().map(|c| c.failed.clone());
        let shutdown = async move {
            match failed {
                Some(failed) => tokio::select! {
                    () = shutdown => {}
                    () = failed.cancelled() => {}
                },
                None => shutdown.await,
            }
        };
        let server_stop = CancellationToken::new();
        let stopped = || server_stop.clone().cancelled_owned();
        let serving = [
            probes.map(|probes| tokio::spawn(probes.serve(stopped()))),
            metrics.map(|metrics| tokio::spawn(metrics.serve(stopped()))),
            webhooks.map(|webhooks| tokio::spawn(webhooks.serve(stopped()))),
        ];
        let mut shutdown = pin!(shutdown);
        let result = if warm_standby || elector.is_none() {
            // Warming up a runnable starts its informers: only here.
            let warm_ups = runnables
                .iter()
                .map(|runnable| (runnable.name().to_owned(), runnable.warm_up()))
                .collect();
            match warm_up(&factory, warm_ups, shutdown.as_mut()).await {
                Ok(true) => {
                    caches_synced.set(true);
                    run_synced(runnables, elector, drain_timeout, shutdown, None).await
                }
                Ok(false) => Ok(()),
                Err(error) => Err(error),
            }
        } else {
            let synced = caches_synced.clone();
            let factory = factory.clone();
            // Controllers start and sync their own sources when they run.
            let sync_when_leading = Box::pin(async move {
                sync_caches(&factory, Vec::new())
                    .await
                    .map_err(|resources| Failure {
                        name: "informers".into(),
                        error: Box::new(ManagerError::CacheSyncFailed { resources }),
                    })?;
                synced.set(true);
                Ok(())
            });
            run_synced(
                runnables,
                elector,
                drain_timeout,
                shutdown,
                Some(sync_when_leading),
            )
            .await
        };
        caches_synced.set(false);
        let result = match coordination {
            Some(coordination) => coordination.stop(result).await,
            None => result,
        };
        factory.shutdown().await;
        server_stop.cancel();
        let mut served = Ok(());
        for task in serving.into_iter().flatten() {
            let result = match task.await {
                Ok(result) => result.map_err(ManagerError::Server),
                Err(join) => Err(ManagerError::Server(std::io::Error::other(
                    join.to_string(),
                ))),
            };
            served = served.and(result);
        }
        tracing::info!("manager stopped");
        result.and(served)
    }
}

/// The shard coordinator's task.
struct Coordination {
    stop: CancellationToken,
    /// Cancelled when the coordinator failed.
    failed: CancellationToken,
    task: JoinHandle<Result<(), ShardingError>>,
}

/// Dropping the manager's `run` future (instead of driving it to its end)
/// aborts the coordinator: it must not go on renewing partitions for
/// controllers that no longer run — their Leases then expire and the other
/// replicas take over.
impl Drop for Coordination {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Coordination {
    fn start(coordinator: Coordinator) -> Self {
        let (stop, failed) = (CancellationToken::new(), CancellationToken::new());
        let (until, on_failure) = (stop.clone(), failed.clone());
        let task = tokio::spawn(async move {
            let result = coordinator.run(until).await;
            if result.is_err() {
                on_failure.cancel();
            }
            result
        });
        Coordination { stop, failed, task }
    }

    /// Stops the coordinator (it releases the partitions) and returns
    /// `result`, or the coordinator's failure.
    async fn stop(mut self, result: Result<(), ManagerError>) -> Result<(), ManagerError> {
        self.stop.cancel();
        match (&mut self.task).await {
            Ok(Ok(())) => result,
            Ok(Err(error)) => Err(ManagerError::Sharding(error)),
            Err(join) => {
                tracing::error!(error = %join, "the shard coordinator panicked");
                result
            }
        }
    }
}

/// Starts the informers and waits for them and the runnables' warm-ups,
/// by name; `Ok(true)` once all caches synced, `Ok(false)` when `shutdown`
/// came first.
async fn warm_up(
    factory: &SharedInformerFactory,
    warm_ups: Vec<(String, BoxFuture<'static, bool>)>,
    shutdown: Pin<&mut impl Future<Output = ()>>,
) -> Result<bool, ManagerError> {
    tokio::select! {
        () = shutdown => {
            tracing::info!("shut down before the caches synced");
            Ok(false)
        }
        synced = sync_caches(factory, warm_ups) => match synced {
            Ok(()) => Ok(true),
            Err(resources) => Err(ManagerError::CacheSyncFailed { resources }),
        },
    }
}

/// Starts the informers and waits for them and the runnables' warm-ups;
/// the names of those that did not sync, if any.
async fn sync_caches(
    factory: &SharedInformerFactory,
    warm_ups: Vec<(String, BoxFuture<'static, bool>)>,
) -> Result<(), Vec<String>> {
    factory.start();
    let warm_ups = warm_ups
        .into_iter()
        .map(|(name, synced)| async move { (name, synced.await) });
    tracing::info!("waiting for the informer caches to sync");
    let (informers, runnables) = join(factory.wait_for_cache_sync(), join_all(warm_ups)).await;
    let resources: Vec<String> = informers
        .into_iter()
        .chain(runnables)
        .filter(|(_, synced)| !synced)
        .map(|(name, _)| name)
        .collect();
    if !resources.is_empty() {
        return Err(resources);
    }
    tracing::info!("caches synced");
    Ok(())
}

/// Once the caches synced (with a cold standby: the leader-only runnables
/// wait for `warm_up`, run when leading): starts the runnables (the leader-only ones
/// through the elector, with leader election), waits for a reason to stop,
/// and stops them within `drain_timeout` (at once on lost leadership).
async fn run_synced(
    runnables: Vec<Box<dyn Runnable>>,
    leader_election: Option<(LeaderElector, TermSlot)>,
    drain_timeout: Duration,
    shutdown: Pin<&mut impl Future<Output = ()>>,
    warm_up: Option<BoxFuture<'static, Result<(), Failure>>>,
) -> Result<(), ManagerError> {
    // Cancelled when the manager stops, or by the term when leadership is
    // lost; the elector stops on it.
    let stop = CancellationToken::new();
    let (leader_only, others): (Vec<_>, Vec<_>) = runnables
        .into_iter()
        .partition(|runnable| runnable.need_leader_election());
    let (reports_tx, mut reports) = unbounded_channel();
    let term = Term {
        runnables: leader_only,
        stop: stop.clone(),
        drain_timeout,
        reports: reports_tx,
        warm_up,
    };
    let mut leading = AbortOnDrop(match leader_election {
        Some((elector, slot)) => {
            *slot.lock() = Some(term);
            tokio::spawn(elector.run(stop.clone().cancelled_owned()))
        }
        None => tokio::spawn(term::run(term, stop.clone().cancelled_owned())),
    });
    let mut others = Group::start(others);
    let cause = first_cause(shutdown, &mut others, &mut reports).await;
    tracing::info!("stopping: draining the runnables");
    stop.cancel();
    let mut aborted = match cause {
        Cause::Lost => {
            others.abort().await;
            Vec::new()
        }
        Cause::Shutdown | Cause::Failed(_) => others.drain(Instant::now() + drain_timeout).await,
    };
    // The elector returns after the leader-only runnables returned and the
    // Lease was released; the term has sent everything by then.
    if let Err(error) = (&mut leading.0).await {
        tracing::error!(%error, "the leader election task failed");
    }
    while let Ok(report) = reports.try_recv() {
        match report {
            Report::DrainTimedOut(names) => aborted.extend(names),
            Report::Failed(Failure { name, error }) => {
                tracing::error!(runnable = %name, %error, "failed while stopping");
            }
            Report::LeadershipLost => tracing::warn!("leadership was lost while stopping"),
        }
    }
    kubegen_core::sorting::sort(&mut aborted);
    match cause {
        Cause::Lost => Err(ManagerError::LeadershipLost),
        Cause::Failed(Failure { name, error }) => Err(ManagerError::Runnable {
            name,
            source: error,
        }),
        Cause::Shutdown if aborted.is_empty() => Ok(()),
        Cause::Shutdown => Err(ManagerError::DrainTimeout {
            timeout: drain_timeout,
            runnables: aborted,
        }),
    }
}

/// The elector's (or the term's) task, aborted when dropped: if the
/// manager's `run` future is dropped instead of being driven to its end,
/// the elector must not go on renewing a Lease for controllers that no
/// longer run — the Lease then expires and a standby takes over.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Waits for the first reason to stop: `shutdown`, a failed runnable, or
/// lost leadership.
async fn first_cause(
    mut shutdown: Pin<&mut impl Future<Output = ()>>,
    others: &mut Group,
    reports: &mut UnboundedReceiver<Report>,
) -> Cause {
    loop {
        tokio::select! {
            () = &mut shutdown => return Cause::Shutdown,
            failure = others.failure() => return Cause::Failed(failure),
            Some(report) = reports.recv() => match report {
                Report::Failed(failure) => return Cause::Failed(failure),
                Report::LeadershipLost => return Cause::Lost,
                // Only sent while stopping.
                Report::DrainTimedOut(_) => {}
            },
        }
    }
}
