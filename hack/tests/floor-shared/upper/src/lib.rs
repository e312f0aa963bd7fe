//! The upper crate: the lower crate's modules used as its own.
pub use lower::{ground, queue};
pub mod watch;
