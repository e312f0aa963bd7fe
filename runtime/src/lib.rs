//! kubegen: the crate Kubernetes operators written with kubegen depend on.
//!
//! It re-exports the derive macros (feature `derive`, on by default) and the
//! runtime that generated clients, listers and informer factories stand on.

pub use k8s_openapi;
pub use kube;
/// Typed clients with every client-gen verb and Status-preserving errors.
pub mod client;
pub mod conditions;
pub mod controller;
pub mod events;
pub mod factory;
pub mod finalizer;
pub mod informer;
pub mod leader_election;
pub mod lister;
pub mod logging;
pub mod ownership;
pub mod server;
pub mod store;
/// Work queues with client-go semantics: dedup, delays, rate limiting and metrics.
pub mod workqueue;
pub use kubegen_codegen::crd::{CrdError, merge_crds};
pub use kubegen_codegen::rt::{CustomResourceExt, KubeSchema};
pub use kubegen_codegen::schema::SchemaError;
#[cfg(feature = "derive")]
pub use kubegen_derive::*;

/// Support for derive-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use kubegen_codegen::crd::CrdError;
    pub use kubegen_codegen::model::ResourceModel;
    pub use kubegen_codegen::rt::*;
    pub use kubegen_codegen::schema::SchemaError;
}
