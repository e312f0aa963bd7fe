//! The floor above `low`.

/// What `low` wrongly imports.
pub struct Thing;
