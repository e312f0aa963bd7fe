//! kubegen: the crate Kubernetes operators written with kubegen depend on.
//!
//! It re-exports the derive macros (feature `derive`, on by default) and the
//! runtime that generated clients, listers and informer factories stand on.

pub use k8s_openapi;
pub use kube;
/// Work queues with client-go semantics: dedup, delays, rate limiting and metrics.
pub mod workqueue;
#[cfg(feature = "derive")]
pub use kubegen_derive::*;
