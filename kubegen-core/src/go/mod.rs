//! What kubegen ports of Go's standard library for exact agreement with
//! the apiserver: how its messages print values ([`fmt`]) and how it reads
//! IP addresses ([`net`]).

pub mod fmt;
pub mod net;
