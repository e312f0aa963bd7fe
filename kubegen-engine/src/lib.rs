//! kubegen-engine: the runtime of kubegen's operators — clients,
//! informers, listers, the workqueue, controllers, leader election,
//! events, finalizers, servers, conversion and storage migration.
//!
//! Operators do not depend on this crate: they depend on
//! `kubegen-runtime` (library `kubegen`), which re-exports all of it,
//! item for item, with the derive macros (feature `derive`: kubegen-base
//! re-exports them beside the traits they implement, and this crate
//! re-exports kubegen-base's). The examples in these docs name the facade,
//! as operators do: `kubegen::…`.
//!
//! Which module may use which is the floors table of the repository's
//! ARCHITECTURE.md, the one statement of the floors (`make cycles` checks
//! it).

pub mod api_errors;
// The floors that need no API client, in kubegen-base; published here at
// the paths operators name (`kubegen::store`, …), and used by this crate's
// modules as its own (`crate::store`, …).
pub use kubegen_base::{apply, conditions, logging, protobuf, store, workqueue};
pub use kubegen_base::{apply_root, apply_structs};
pub(crate) use kubegen_base::{duration_histogram, jitter, json_text, lease};
pub mod client;
pub mod controller;
pub mod conversion;
pub mod events;
pub mod factory;
pub mod finalizer;
pub mod informer;
pub mod leader_election;
pub mod lister;
pub mod manager;
pub mod ownership;
pub mod server;
pub mod sharding;
#[cfg(feature = "storage-migration")]
pub mod storage_migration;

pub use client::{Error as ClientError, ResourceClient};
pub use controller::{
    Action, Controller, ControllerBuilder, ControllerError, Predicate, shutdown_signal,
};
pub use events::{EventRecorder, EventType};
pub use factory::{FactoryBuilder, SharedInformerFactory};
pub use finalizer::{FinalizerError, FinalizerEvent, FinalizerOutcome, finalizer};
pub use leader_election::LeaderElectionConfig;
pub use lister::Lister;
pub use manager::{Manager, ManagerBuilder, ManagerError};
pub use server::{ServingCert, WebhookServer};
pub use workqueue::{RateLimiter, WorkQueue};

pub use k8s_openapi;
pub use kube_core as core;
pub use kube_core::{Resource, ResourceExt};
/// Support for derive-generated code; not a public API.
#[doc(hidden)]
pub use kubegen_base::__private;
#[cfg(feature = "derive")]
pub use kubegen_base::{CustomResource, rbac};
pub use kubegen_base::{CustomResourceExt, KubeSchema};
/// The API client ([kubegen-client](kubegen_client)) at kube-rs's paths:
/// `kubegen::Client`, `kubegen::Api`, `kubegen::api::*` (the parameters
/// and object types), `kubegen::config::*`, `kubegen::Error`,
/// `kubegen::core` (kube-core).
pub use kubegen_client::{Api, Client, Config, Error, api, config};
pub use kubegen_core::crd::{CrdError, merge_crds};
pub use kubegen_core::schema::SchemaError;
pub use kubegen_crd::to_json as crd_to_json;
