//! What kubegen ports of Go's standard library and of the Go libraries
//! the apiserver checks values with, for exact agreement with it: how its
//! messages print values ([`fmt`]), how it reads IP addresses ([`net`]),
//! Go's `time.ParseDuration` ([`time`]), how apimachinery reads a
//! quantity's text ([`quantity`]), and — with `validate` —
//! apimachinery's name and label checks (`names`) and kube-openapi's
//! string formats (`strfmt`).

pub mod fmt;
#[cfg(feature = "validate")]
pub mod names;
pub mod net;
pub mod quantity;
#[cfg(feature = "validate")]
pub mod strfmt;
pub mod time;
