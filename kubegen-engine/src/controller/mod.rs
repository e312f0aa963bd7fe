//! The controller loop: informer events become keys on a rate-limited work
//! queue, and a pool of workers reconciles them (client-go's
//! sample-controller, as a reusable type).
//!
//! * **Sources**: the primary informer enqueues its own objects (updates
//!   optionally filtered by a [`Predicate`]);
//!   [`owns`](ControllerBuilder::owns) enqueues the controller owner of
//!   owned objects; [`watches`](ControllerBuilder::watches) enqueues the keys
//!   a mapper returns.
//! * **Reconcile**: the object is read from the primary informer's cache by
//!   key; a key whose object is gone is not reconciled (see
//!   [`on_deleted`](ControllerBuilder::on_deleted)). Every reconcile runs in
//!   a `tracing` span `reconcile` with fields `object.key` and `controller`.
//! * **Retries**: an error or a panic requeues the key with per-key
//!   exponential backoff; success forgets the key's history;
//!   [`Action::requeue_after`] schedules the next reconcile.
//! * **Priorities**: the queue is priority-aware, as controller-runtime's
//!   default: keys from an informer's initial state and from resyncs are
//!   queued at [`LOW_PRIORITY`], those of other events at 0, so that fresh
//!   events overtake a large initial list. A requeue keeps the priority the
//!   key was handed out at unless the [`Action`] sets another
//!   ([`Action::with_priority`]).
//! * **Shutdown**: [`Controller::run`] stops taking keys when its shutdown
//!   future resolves and lets in-flight reconciles finish within a
//!   deadline.
//! * **Metrics**: [`ControllerMetrics`], plus the work queue's
//!   `workqueue_*` series under the controller's name.
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use k8s_openapi::api::apps::v1::Deployment;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::controller::ControllerMetrics;
//! use kubegen::{Action, Controller, SharedInformerFactory, shutdown_signal};
//!
//! struct Ctx {
//!     client: kubegen::Client,
//! }
//!
//! async fn reconcile(cm: Arc<ConfigMap>, ctx: Arc<Ctx>) -> Result<Action, kubegen::Error> {
//!     // Make the world match `cm`, with `ctx.client`.
//!     # let _ = (cm, &ctx.client);
//!     Ok(Action::requeue_after(Duration::from_secs(300)))
//! }
//!
//! # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
//! kubegen::logging::init(kubegen::logging::LogFormat::Json);
//! let mut registry = prometheus_client::registry::Registry::default();
//! let metrics = ControllerMetrics::register(&mut registry);
//! let factory = SharedInformerFactory::new(client.clone());
//! let controller = Controller::builder(factory.informer::<ConfigMap>())
//!     .name("configmap-controller")
//!     .owns(factory.informer::<Deployment>())
//!     .workers(4)
//!     .metrics(&metrics)
//!     .reconcile(reconcile, Arc::new(Ctx { client }));
//! factory.start();
//! controller.run(shutdown_signal()).await?;
//! factory.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! A [`Manager`](crate::Manager) runs controllers in a process:
//! informers before leadership, controllers only while leading, a drain
//! and the Lease release at shutdown. By hand, under leader election, run
//! the controller in `on_started_leading` until the term ends: losing
//! leadership stops reconciling (in-flight reconciles finish within the
//! shutdown deadline, which should stay below the elector's renew
//! deadline) before the elector campaigns again. A fresh controller is
//! built for each term, sharing the factory's informers. The replica keeps
//! leading after the work returns (client-go's semantics): if the
//! controller fails, stop the process (resolve the elector's shutdown
//! future) so that a standby takes over:
//!
//! ```no_run
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::leader_election::LeaderElector;
//! use kubegen::{Action, Controller, SharedInformerFactory, shutdown_signal};
//!
//! async fn reconcile(cm: Arc<ConfigMap>, _ctx: Arc<()>) -> Result<Action, kubegen::Error> {
//!     # let _ = cm;
//!     Ok(Action::done())
//! }
//!
//! # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
//! let factory = SharedInformerFactory::new(client.clone());
//! let elector = LeaderElector::builder(client, "operators", "my-operator-lock")
//!     .on_started_leading(move |leadership| {
//!         let controller = Controller::builder(factory.informer::<ConfigMap>())
//!             .shutdown_deadline(std::time::Duration::from_secs(5))
//!             .reconcile(reconcile, Arc::new(()));
//!         factory.start();
//!         async move {
//!             if let Err(e) = controller.run(leadership.lost()).await {
//!                 tracing::error!("controller failed: {e}");
//!             }
//!         }
//!     })
//!     .build()?;
//! elector.run(shutdown_signal()).await;
//! # Ok(()) }
//! ```

mod action;
mod builder;
mod metrics;
mod predicate;
mod runner;
mod signal;
mod source;
#[cfg(test)]
mod tests;
mod worker;

pub use action::Action;
pub use builder::{ControllerBuilder, DEFAULT_SHUTDOWN_DEADLINE, DEFAULT_WORKERS};
pub use metrics::{ControllerMetrics, ReconcileResult};
pub use predicate::Predicate;
pub use runner::{Controller, ControllerError};
pub use signal::shutdown_signal;
pub use source::LOW_PRIORITY;
