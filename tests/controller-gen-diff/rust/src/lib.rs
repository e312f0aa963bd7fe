//! The Rust twins of the Go types in `tests/controller-gen-diff`, read by
//! `kubegen generate` in `kubegen-cli/tests/controller_gen_diff.rs`; the
//! test adds the built-in and generated modules to a copy of this crate.

pub mod loose;
pub mod shapes;
