//! kubegen-cli: the `kubegen` command as a library, a thin layer over
//! `kubegen-codegen` (parse, check, emit) and `kubegen-core` (schemas, CRDs).
//!
//! - [`source`] reads a crate without compiling it: manifest settings, the
//!   module tree, `file:line:col` diagnostics;
//! - [`generate`] evaluates every annotated type into CRD and RBAC YAML and
//!   the generated Rust modules, as a pure [`files::FileSet`];
//! - [`files`] writes that set (only what changed) or checks it (`--check`);
//! - [`import`] writes Rust types for existing CRDs (`kubegen import`),
//!   proven to regenerate them;
//! - [`scaffold`] creates new operator crates (`kubegen new`);
//! - [`check`] classifies every change of the CRDs since an earlier
//!   release as breaking or safe (`kubegen check`);
//! - [`json`] holds the small CRD JSON readers `check` and `docs` share;
//! - [`docs`] writes the API reference and editor JSON Schemas
//!   (`kubegen docs`, and `generate` with `docs-dir`);
//! - [`explain`] prints a kind's fields (`kubegen explain`) and the key
//!   reference (`--keys`);
//! - [`validate`] checks custom resources offline as the apiserver does
//!   (`kubegen validate`);
//! - [`cli`] is the clap front end and the one place errors become exit codes.

pub mod chart;
pub mod check;
pub mod cli;
pub mod docs;
pub mod explain;
pub mod files;
pub mod generate;
pub mod import;
pub mod json;
pub mod scaffold;
pub mod source;
pub mod validate;
