//! The vocabulary: every `#[kubegen(...)]` key ([`keys`]) and every schema
//! keyword the apiserver accepts ([`keywords`]), one entry each, read by
//! every place that parses, checks, emits, imports or documents them.

pub mod keys;
pub mod keywords;
pub mod reference;

pub use keys::{Applies, Effect, Key, Scope, Store, Syntax};
pub use keywords::Keyword;
