//! An in-process Kubernetes API server for operator unit tests: a
//! [`kubegen_client::Client`] with no cluster, no sockets and no Go toolchain,
//! answering as kube-apiserver v1.36 answers for what an operator
//! touches. Generated clients, informers, listers, the controller, leader
//! election and the Manager run against it unchanged.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> anyhow::Result<()> {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen_client::api::{Api, PostParams};
//!
//! let server = kubegen_fake::ApiServer::new();
//! let configmaps: Api<ConfigMap> = Api::namespaced(server.client(), "default");
//! let mut cm = ConfigMap::default();
//! cm.metadata.name = Some("settings".into());
//! let created = configmaps.create(&PostParams::default(), &cm).await?;
//! assert!(created.metadata.uid.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! # What it does as the apiserver does
//! - Create, get, list, watch, update, patch, delete and deletecollection
//!   of the built-in kinds an operator touches ([`resources`]) and of the
//!   custom resources of every CRD created (or [`ApiServer::install_crd`]).
//! - `resourceVersion`s: optimistic concurrency (409 on a stale one),
//!   lists at a revision, watches from a revision, `410 Gone` after
//!   compaction ([`ApiServer::compact`], [`Builder::history`]), bookmarks
//!   and streaming lists (`sendInitialEvents`).
//! - `generation` (custom resources: any change but metadata and status;
//!   built-in kinds as their strategies count), the `status` subresource
//!   (the main resource keeps the stored status; `/status` changes only
//!   the status), the `scale` subresource, `generateName`, label and
//!   field selectors (custom
//!   resources' `selectableFields` too), pagination with `continue`.
//! - Deletion: finalizers and `deletionTimestamp`, preconditions,
//!   propagation (background, foreground, orphan) and the garbage
//!   collector, namespace deletion, CRD deletion.
//! - Custom resources are pruned, defaulted and validated (OpenAPI
//!   keywords, formats, RE2 patterns, CEL rules with their cost limits) by
//!   `kubegen_core::validate`, the engine `kubegen validate` uses, which is
//!   proven against the apiserver's own code. A rule it cannot evaluate
//!   exactly (the quantity, URL and format libraries, a cost it cannot
//!   bound) refuses the request with a 500 naming the rule: never a
//!   silent pass.
//! - Errors are `Status` objects with the apiserver's codes, reasons,
//!   messages and causes.
//! - Faults on demand: [`ApiServer::fail_next_writes`],
//!   [`ApiServer::fail_next_reads`], [`ApiServer::set_delay`],
//!   [`ApiServer::drop_watches`]. Timestamps follow tokio's clock, so a
//!   test with paused time controls them.
//!
//! # What it does not do
//! - No built-in controllers but the garbage collector and the namespace
//!   and CRD controllers: no Deployment → ReplicaSet → Pod, no scheduler,
//!   no kubelet (a pod is deleted at once). A test plays those
//!   controllers with [`ApiServer::play`] (the status a Deployment,
//!   StatefulSet, ReplicaSet or Job controller writes once its pods are up
//!   or done), or by writing the status itself.
//! - No admission plugins but namespace lifecycle, no authentication or
//!   RBAC, no webhooks (admission or conversion: custom resources are
//!   served in every version as the `None` conversion strategy serves
//!   them).
//! - Built-in kinds are defaulted and written as Go writes them
//!   (`kubegen_core::defaults`: 24 kinds, proven against the apiserver's
//!   defaulting functions; a Pod's pod-level resources are not filled
//!   from its containers), and the Service storage hands out cluster IPs
//!   and node ports; but built-in kinds are not validated beyond their
//!   metadata, and other kinds are served as written.
//! - `events.k8s.io/v1` and core `v1` events are stored apart (the
//!   apiserver serves one storage in both).
//!
//! Every end-to-end claim of kubegen stays on the real control plane
//! (`kubegen-testenv`); this server is for unit tests.

pub mod clock;
pub mod controllers;
pub mod discovery;
pub mod faults;
pub mod play;
pub mod request;
pub mod resources;
pub mod selector;
mod server;
pub mod state;
pub mod status;
pub mod store;
pub mod verbs;

pub use play::Rollout;
pub use server::{ApiServer, Body, Builder, Service};
pub use status::ApiError;
