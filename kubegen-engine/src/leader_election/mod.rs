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
//! * **A term lasts until shutdown or lost leadership**, as in client-go:
//!   the `on_started_leading` work returning early does not end it.
//! * **Release on shutdown**: the leader cancels its token, waits for its
//!   work to finish (still renewing meanwhile), then writes an empty holder
//!   with a one-second duration, so a standby takes over at its next try.
//!   The release is only reported done once written, or once the Lease read
//!   from the API server no longer names this candidate.
//! * **A foreign record's duration is taken as is**, as client-go does: a
//!   Lease whose `leaseDurationSeconds` is missing, zero or negative has
//!   expired as soon as it is seen.
//!
//! ```no_run
//! use std::time::Duration;
//! use kubegen::leader_election::{LeaderElector, LeaderElectionMetrics};
//!
//! # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
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

mod builder;
mod config;
mod elector;
mod identity;
mod lock;
mod metrics;
mod state;
#[cfg(test)]
mod tests;

pub use builder::LeaderElectorBuilder;
pub use config::{
    ConfigError, DEFAULT_LEASE_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD,
    LeaderElectionConfig,
};
pub use elector::LeaderElector;
pub use identity::default_identity;
pub use metrics::LeaderElectionMetrics;
pub use state::{LeaderState, Leadership};
