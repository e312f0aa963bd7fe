//! The kubegen code generator as a library: the single implementation of
//! parsing, modelling and emitting that both the `kubegen` CLI and the
//! `kubegen-derive` proc macros call.
