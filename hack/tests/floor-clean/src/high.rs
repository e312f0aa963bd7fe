//! The floor above `low`.

use crate::low::Base;

/// Built on [`Base`].
pub struct Thing(pub Base);

impl Thing {
    /// A thing on `base`.
    pub fn new(base: Base) -> Self {
        Thing(base)
    }
}
