//! Derive macros for kubegen. Every macro converts `proc_macro` tokens to
//! `proc_macro2`, calls the shared library in `kubegen-cli` and converts back;
//! no logic lives here.
