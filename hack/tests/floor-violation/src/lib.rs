//! A crate whose ground floor reaches up: `low` imports from `high`; `stray`
//! is on no floor, and the table names `gone`, which is no module.

mod high;
mod low;
mod stray;

pub use low::Base;
pub use stray::Stray;
