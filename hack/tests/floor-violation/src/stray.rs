//! A module on no floor.

/// Nothing.
pub struct Stray;
