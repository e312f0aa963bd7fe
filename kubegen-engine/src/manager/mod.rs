//! [`Manager`]: the one wiring object of an operator process
//! (controller-runtime's `Manager`). It owns the client, the shared
//! informer factory, the controllers and other [`Runnable`]s, optional
//! Lease-based leader election, the health probes (plain HTTP) and
//! `/metrics` (HTTPS, callers authenticated and authorized by the
//! apiserver), signal handling and a graceful drain with a deadline; `main`
//! only adds what is its own.
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use k8s_openapi::api::apps::v1::Deployment;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::{Action, Controller, LeaderElectionConfig, Manager};
//!
//! async fn reconcile(cm: Arc<ConfigMap>, client: Arc<kubegen::Client>) -> Result<Action, kubegen::Error> {
//!     # let _ = (cm, client);
//!     Ok(Action::done())
//! }
//!
//! # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
//! let mut manager = Manager::builder(client.clone())
//!     .leader_election(LeaderElectionConfig::new("operators", "my-operator-lock"))
//!     .health_probe_addr(([0, 0, 0, 0], 8081).into())
//!     .metrics_addr(([0, 0, 0, 0], 8443).into())
//!     .drain_timeout(Duration::from_secs(10))
//!     .informer_factory(|factory| factory.namespace("apps"))
//!     .build()
//!     .await?;
//! let factory = manager.factory().clone();
//! let controller = Controller::builder(factory.informer::<ConfigMap>())
//!     .owns(factory.informer::<Deployment>())
//!     .metrics(manager.controller_metrics())
//!     .reconcile(reconcile, Arc::new(client));
//! manager.add(controller);
//! // Until SIGTERM or SIGINT; an error (lost leadership included) should
//! // end the process with a non-zero status so that it is restarted.
//! manager.run().await?;
//! # Ok(()) }
//! ```

mod builder;
mod error;
mod group;
mod runnable;
mod runner;
mod term;
#[cfg(test)]
mod tests;

pub use builder::{DEFAULT_DRAIN_TIMEOUT, ManagerBuilder};
pub use error::ManagerError;
pub use runnable::{BoxError, Runnable, RunnableFn, runnable};
pub use runner::Manager;
