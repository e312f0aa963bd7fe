//! The ground floor.

/// What `high` builds on.
pub struct Base(pub u32);

/// A re-export publishes a name and is no import: allowed from any floor.
#[allow(unused_imports)]
pub use crate::high::Thing as Above;

#[cfg(test)]
mod tests {
    // Test-only code is left out of the check.
    #[allow(unused_imports)]
    use crate::high::Thing;
}
