//! The floor above `low`.

/// What `low` wrongly imports.
pub struct Thing;

/// Built on `low`'s `Base`, named through the crate root's re-export: an
/// edge, which with `low`'s import of `Thing` closes a cycle.
pub struct Above(pub crate::Base);
