//! A crate whose ground floor reaches up: `low` imports from `high`, and
//! `high` from `low` through the root's re-export of `Base` (a cycle);
//! `stray` is on no floor, and the table names `gone`, which is no module.

mod high;
mod low;
mod stray;

pub use low::Base;
pub use stray::Stray;
