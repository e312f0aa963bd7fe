//! Found at `api/inline/deep.rs` through `#[path]` inside `mod inline`.

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// Deep inside.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Deep {
    /// At least one.
    #[cfg_attr(unix, kubegen(minimum = 1))]
    pub n: i32,
    /// The mode.
    pub mode: Mode,
}

/// A mode whose variants depend on the configuration.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub enum Mode {
    /// Fast.
    Fast,
    /// Never offered.
    #[cfg(any())]
    Hidden,
    /// Slow.
    Slow,
}
