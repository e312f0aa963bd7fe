//! Every `#[kubegen(...)]` key: the one table in
//! [`kubegen_core::vocabulary::keys`], re-exported under the name the
//! parsers use.

pub use kubegen_core::vocabulary::keys::*;
