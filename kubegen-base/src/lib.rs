//! kubegen-base: the floors of kubegen's runtime that need no API client —
//! the traits derived code implements (`KubeSchema`, `CustomResourceExt`)
//! with the derives beside them (feature `derive`),
//! typed server-side apply configurations, Kubernetes protobuf decoding,
//! the informer's cache, the workqueue, logging, and the small shared
//! pieces below them (backoff jitter, Lease records, duration histograms,
//! fast hash maps, the one JSON reader).
//!
//! Operators do not depend on this crate: they depend on
//! `kubegen-runtime` (library `kubegen`), which re-exports all of it
//! through kubegen-engine, item for item, at the same paths
//! (`kubegen::store`, `kubegen::apply`, `kubegen::workqueue`, …). It is
//! apart from the engine for the first build's sake: it needs kube-core's
//! types but not the API client, so Cargo compiles it beside
//! kubegen-client, and the engine, which must wait for both, has that much
//! less to compile at the end of the build. The examples in
//! these docs name the facade, as operators do: `kubegen::…`.
//!
//! Which module may use which is the floors table of the repository's
//! ARCHITECTURE.md (this crate holds the lowest floors; `make cycles`
//! checks it). Modules marked hidden are shared with kubegen-engine and
//! are not a public API.

pub mod apply;
pub mod conditions;
#[doc(hidden)]
pub mod duration_histogram;
mod fast_hash;
#[doc(hidden)]
pub mod jitter;
#[doc(hidden)]
pub mod json_text;
#[doc(hidden)]
pub mod kube_schema;
#[doc(hidden)]
pub mod lease;
pub mod logging;
pub mod protobuf;
pub mod store;
pub mod workqueue;

pub use kube_schema::{CustomResourceExt, KubeSchema};

/// The derive macros (feature `derive`), beside the traits they implement
/// as serde's are beside its traits: `#[derive(KubeSchema)]`,
/// `#[derive(CustomResource)]` and `#[rbac]` (see `kubegen-derive`).
/// Operators name them through the facade (`kubegen::CustomResource`).
/// Being here also orders the first build: this crate waits for the
/// derive, so Cargo builds the derive early, and the engine, which waits
/// for kubegen-client, does not then queue behind it.
#[cfg(feature = "derive")]
pub use kubegen_derive::{CustomResource, KubeSchema, rbac};

/// Support for the macros of this crate (`apply_structs!`, `apply_root!`,
/// …) and derive-generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use ::serde;
    pub use ::serde_json;
    pub use kubegen_core::crd::CrdError;
    pub use kubegen_core::model::ResourceModel;
    pub use kubegen_core::rt::*;
    pub use kubegen_core::schema::SchemaError;

    #[cfg(not(feature = "schemars"))]
    pub use crate::kube_schema::SchemarsFeatureOff;
    pub use crate::kube_schema::{crd_decode, schemars_schema};
}
