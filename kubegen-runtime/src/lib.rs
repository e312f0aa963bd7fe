//! kubegen: the crate Kubernetes operators written with kubegen depend on.
//!
//! It re-exports the derive macros (`CustomResource`, `KubeSchema`, `rbac`;
//! feature `derive`, on by default), `kube` and `k8s_openapi`, and holds the
//! runtime that generated clientsets, listers and informer factories are thin
//! typed shims over:
//!
//! - reading: [`client`] (typed verbs), [`store`], [`informer`], [`lister`],
//!   [`factory`] (one shared watch and cache per kind);
//! - acting: [`workqueue`], [`controller`], [`leader_election`], [`events`],
//!   [`ownership`], [`finalizer`], [`conditions`];
//! - operating: [`manager`] (one object wiring all of the above into a
//!   process), [`server`] (/healthz, /readyz, /metrics, webhooks),
//!   [`logging`];
//! - evolving an API: [`conversion`] (hub and spoke versions, lossless);
//! - maintaining: [`storage_migration`] (rewrite a CRD's objects at its
//!   storage version, then trim `status.storedVersions`);
//! - ground floor: [`api_errors`] (the apiserver's failure predicates).

pub mod api_errors;
pub mod client;
pub mod conditions;
pub mod controller;
pub mod conversion;
mod duration_histogram;
pub mod events;
pub mod factory;
mod fast_hash;
pub mod finalizer;
pub mod informer;
mod jitter;
pub mod leader_election;
pub mod lister;
pub mod logging;
pub mod manager;
pub mod ownership;
pub mod protobuf;
pub mod server;
pub mod storage_migration;
pub mod store;
pub mod workqueue;

pub use k8s_openapi;
pub use kube;
pub use kubegen_core::crd::{CrdError, merge_crds};
pub use kubegen_core::rt::{CustomResourceExt, KubeSchema};
pub use kubegen_core::schema::SchemaError;
#[cfg(feature = "derive")]
pub use kubegen_derive::*;

/// Support for derive-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use kubegen_core::crd::CrdError;
    pub use kubegen_core::model::ResourceModel;
    pub use kubegen_core::rt::*;
    pub use kubegen_core::schema::SchemaError;
}
