//! The ground floor, reaching up.

use crate::high::Thing;

/// Holds a [`Thing`] from the floor above: the violation.
pub struct Base(pub Thing);
