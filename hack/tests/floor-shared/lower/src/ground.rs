//! The ground floor.
pub struct Base;
