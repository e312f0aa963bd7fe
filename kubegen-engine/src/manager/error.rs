//! [`ManagerError`]: why building or running a [`Manager`](super::Manager)
//! failed.

use std::net::SocketAddr;
use std::time::Duration;

use super::runnable::BoxError;
use crate::leader_election::ConfigError;

/// Why [`ManagerBuilder::build`](super::ManagerBuilder::build) or
/// [`Manager::run`](super::Manager::run) failed.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The leader election configuration cannot work.
    #[error(transparent)]
    LeaderElection(#[from] ConfigError),
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
