//! A crate whose modules keep their floors: `high` builds on `low`.

mod high;
mod low;

pub use high::Thing;

/// The crate root may use any floor.
pub fn thing() -> Thing {
    crate::high::Thing::new(crate::low::Base(1))
}
