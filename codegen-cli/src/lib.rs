//! The kubegen code generator as a library: the single implementation of
//! parsing, modelling and emitting that both the `kubegen` CLI and the
//! `kubegen-derive` proc macros call.

/// Generated files, written only when changed, and `--check`.
pub mod files;
/// Reading a crate's sources and settings without compiling it.
pub mod source;
