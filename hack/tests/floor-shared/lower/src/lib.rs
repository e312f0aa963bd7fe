//! The lower crate: the ground floor and a module of a higher floor.
pub mod ground;
pub mod queue;
