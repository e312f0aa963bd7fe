//! [`ManagerError`]: why building or running a [`Manager`](super::Manager)
//! failed.

use std::net::SocketAddr;
use std::time::Duration;

use super::runnable::BoxError;
use crate::leader_election::ConfigError;
use crate::sharding::{ShardingConfigError, ShardingError};

/// Why [`ManagerBuilder::build`](super::ManagerBuilder::build) or
/// [`Manager::run`](super::Manager::run) failed.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The leader election configuration cannot work.
    #[error(transparent)]
    LeaderElection(#[from] ConfigError),
    /// The sharding configuration cannot work.
    #[error(transparent)]
    ShardingConfig(#[from] ShardingConfigError),
    /// The shard set's coordination failed; the manager stopped.
    #[error(transparent)]
    Sharding(#[from] ShardingError),
    /// A runnable needs leader election, but the manager shards without
    /// it: every replica would run it.
    #[error(
        "runnable {0} needs leader election, but the manager shards without it and would run it on every replica; \
         shard it (ControllerBuilder::shards), mark it without_leader_election(), or add leader_election(..)"
    )]
    UnshardedRunnable(String),
    /// The probe or metrics server could not listen (or its certificate
    /// could not be loaded).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why binding failed.
        source: std::io::Error,
    },
    /// The probe or metrics server failed.
    #[error("the probe or metrics server failed: {0}")]
    Server(std::io::Error),
    /// Informers were shut down before their caches synced.
    #[error("informer caches were shut down before they synced: {resources:?}")]
    CacheSyncFailed {
        /// The informers (and runnables, by name) that did not sync.
        resources: Vec<String>,
    },
    /// A runnable returned an error or panicked; the manager stopped.
    #[error("runnable {name} failed: {source}")]
    Runnable {
        /// The runnable's name.
        name: String,
        /// Its error.
        source: BoxError,
    },
    /// This replica stopped leading while it was not shutting down; the
    /// leader-only runnables were stopped at once.
    #[error("leader election lost")]
    LeadershipLost,
    /// Runnables were still running when the drain timeout ran out at
    /// shutdown and were aborted; everything else stopped cleanly.
    #[error(
        "runnables still running after the drain timeout ({timeout:?}) were aborted: {runnables:?}"
    )]
    DrainTimeout {
        /// The drain timeout.
        timeout: Duration,
        /// The runnables that were aborted.
        runnables: Vec<String>,
    },
}
