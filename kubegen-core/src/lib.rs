//! kubegen-core: the run-time half of kubegen, free of any Rust parser.
//!
//! Everything here is pure data and functions over it, depending only on
//! serde and serde_json, so an operator that links kubegen links no
//! code-generation machinery, and a user's build compiles it once for the
//! derive and the operator alike (both use it with no features):
//!
//! - [`model`]: the serde-serializable resource and type model that the
//!   code generator (`kubegen-codegen`) produces and embeds in derive output;
//! - [`schema`]: the one schema builder (model → structural OpenAPI v3), the
//!   structural checker, schemars conversion and CEL helpers;
//! - [`builtin`]: the upstream schema of every k8s-openapi type, from a
//!   table generated out of the Kubernetes OpenAPI spec (kubegen-base
//!   implements `KubeSchema` with it);
//! - [`crd`]: CustomResourceDefinition assembly, version merge, size budget;
//! - [`admission`]: admission webhook paths and configurations;
//! - [`output`]: canonical JSON/YAML with the `@generated` header;
//! - [`vocabulary`]: every `#[kubegen]` key and every schema keyword, once;
//! - [`cel`]: CEL rules parsed, typed and costed as the apiserver does it
//!   (the code generator checks every rule at compile time);
//! - [`go`]: Go's value printing, IP and quantity parsing, as the
//!   apiserver's messages and validators use them;
//! - `validate` (feature `validate`): custom resources validated offline
//!   as the apiserver validates them;
//! - `patch` (feature `apiserver`): JSON, merge and strategic merge
//!   patches applied as the apiserver applies them;
//! - `defaults` (feature `apiserver`): built-in objects defaulted and
//!   written as kube-apiserver's scheme defaults and encodes them;
//! - `ssa` (feature `apiserver`): server-side apply and managed fields as
//!   kube-apiserver keeps them;
//! - [`plural`], [`suggest`]: the pluralizer and "did you mean";
//! - [`sorting`]: stable sorts compiled once for every crate above;
//! - [`rt`]: what derive-generated code calls at run time (re-exported by the
//!   `kubegen` facade as `kubegen::__private`).

pub mod admission;
pub mod builtin;
pub mod cel;
pub mod crd;
#[cfg(feature = "apiserver")]
pub mod defaults;
pub mod go;
pub mod model;
pub mod output;
#[cfg(feature = "apiserver")]
pub mod patch;
pub mod plural;
pub mod rng;
pub mod rt;
pub mod schema;
pub mod sorting;
#[cfg(feature = "apiserver")]
pub mod ssa;
pub mod suggest;
pub mod truncate;
#[cfg(feature = "validate")]
pub mod validate;
pub mod vocabulary;

pub use crd::{CrdError, crd_json, merge_crds};
pub use schema::{SchemaError, schema_for};
