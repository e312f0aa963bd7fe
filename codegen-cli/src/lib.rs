//! The kubegen code generator as a library: the single implementation of
//! parsing, modelling and emitting that both the `kubegen` CLI and the
//! `kubegen-derive` proc macros call.
//!
//! Phases: `attr` (syn attributes → typed values) → `model` (the
//! serde-serializable resource and type model) → `check` (cross-field rules)
//! → `schema` (structural OpenAPI schema) → `crd` (CustomResourceDefinition).
//! `expand` turns a model into derive output; `rt` is what that output calls.
//!
//! The CLI side (feature `cli`): `source` reads a crate without compiling it,
//! `generate` evaluates the same model into CRD/RBAC YAML and Rust modules
//! (a pure `FileSet`), `files` writes or checks it, `cli` is the front end,
//! `scaffold` creates new operator crates. `rbac` is shared by the `#[rbac]`
//! attribute and the generator.

pub mod attr;
pub mod check;
/// The `kubegen` command line (feature `cli`).
#[cfg(feature = "cli")]
pub mod cli;
pub mod crd;
pub mod ctxt;
pub mod expand;
/// Generated files, written only when changed, and `--check`.
pub mod files;
/// `kubegen generate`: crate sources → CRDs, RBAC and Rust modules (feature `cli`).
#[cfg(feature = "cli")]
pub mod generate;
pub mod model;
pub mod output;
pub mod plural;
pub mod rbac;
pub mod rt;
/// `kubegen new`: a compiling operator crate, generated from the start (feature `cli`).
#[cfg(feature = "cli")]
pub mod scaffold;
pub mod schema;
/// Reading a crate's sources and settings without compiling it.
pub mod source;

pub use crd::{CrdError, crd_json, merge_crds};
pub use schema::{SchemaError, schema_for};
