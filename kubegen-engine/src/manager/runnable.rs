//! [`Runnable`]: what a [`Manager`](super::Manager) runs — controllers, and
//! any task given as a closure through [`runnable`].

use std::fmt::{self, Debug};
use std::future::Future;

use futures::future::BoxFuture;
use kubegen_client::Resource;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::controller::Controller;

/// The error a [`Runnable`] fails with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Something a [`Manager`](super::Manager) runs until it stops.
///
/// One trait for three of controller-runtime's interfaces: `Runnable`
/// ([`run`](Runnable::run), its `Start`), `LeaderElectionRunnable`
/// ([`need_leader_election`](Runnable::need_leader_election)) and
/// `WarmupRunnable` ([`warm_up`](Runnable::warm_up), its `Warmup` and
/// `WaitForWarmupComplete` together).
pub trait Runnable: Send + 'static {
    /// The name in logs and errors.
    fn name(&self) -> &str;

    /// Whether it may run only while this replica leads (the default, as
    /// for controller-runtime's controllers); `false` runs it on every
    /// replica once the caches have synced (controller-runtime's
    /// `NeedLeaderElection`).
    fn need_leader_election(&self) -> bool {
        true
    }

    /// Starts what it reads (informers) ahead of leadership and resolves to
    /// whether their caches synced; `false` means they were shut down
    /// first. The manager is not ready, and does not campaign, until every
    /// warm-up has resolved. The default starts nothing and resolves to
    /// `true`.
    fn warm_up(&self) -> BoxFuture<'static, bool> {
        Box::pin(std::future::ready(true))
    }

    /// Runs until `shutdown` is cancelled, then stops promptly and returns.
    /// An error (or a panic) stops the manager, which returns it.
    fn run(
        self: Box<Self>,
        shutdown: CancellationToken,
    ) -> BoxFuture<'static, Result<(), BoxError>>;
}

/// A controller is a leader-only runnable whose warm-up starts its
/// informers; [`Controller::run`] stops it (draining in-flight reconciles
/// within its own shutdown deadline) when the manager's token is
/// cancelled.
impl<K> Runnable for Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        Controller::name(self)
    }

    /// A [sharded](crate::controller::ControllerBuilder::shards) controller
    /// runs on every replica; others only while this replica leads.
    fn need_leader_election(&self) -> bool {
        !self.is_sharded()
    }

    fn warm_up(&self) -> BoxFuture<'static, bool> {
        Controller::warm_up(self)
    }

    fn run(
        self: Box<Self>,
        shutdown: CancellationToken,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        Box::pin(async move {
            (*self).run(shutdown.cancelled_owned()).await?;
            Ok(())
        })
    }
}

/// A [`Runnable`] made of a name and a closure; see [`runnable`].
pub struct RunnableFn<F> {
    name: String,
    need_leader_election: bool,
    run: F,
}

impl<F> Debug for RunnableFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunnableFn")
            .field("name", &self.name)
            .field("need_leader_election", &self.need_leader_election)
            .finish_non_exhaustive()
    }
}

/// A leader-only runnable named `name` that runs `run(shutdown)`
/// (controller-runtime's `RunnableFunc`); the closure must return soon
/// after the token is cancelled.
///
/// ```
/// use kubegen::manager::runnable;
///
/// let heartbeat = runnable("heartbeat", |shutdown| async move {
///     shutdown.cancelled().await;
///     Ok::<_, std::io::Error>(())
/// })
/// .without_leader_election();
/// # drop(heartbeat);
/// ```
pub fn runnable<F, Fut, E>(name: impl Into<String>, run: F) -> RunnableFn<F>
where
    F: FnOnce(CancellationToken) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    RunnableFn {
        name: name.into(),
        need_leader_election: true,
        run,
    }
}

impl<F> RunnableFn<F> {
    /// Runs it on every replica, leader or not, once the caches synced.
    pub fn without_leader_election(mut self) -> Self {
        self.need_leader_election = false;
        self
    }
}

impl<F, Fut, E> Runnable for RunnableFn<F>
where
    F: FnOnce(CancellationToken) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn need_leader_election(&self) -> bool {
        self.need_leader_election
    }

    fn run(
        self: Box<Self>,
        shutdown: CancellationToken,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let run = self.run;
        Box::pin(async move { run(shutdown).await.map_err(Into::into) })
    }
}
