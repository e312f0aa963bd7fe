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
    /// The mode when none is given: `Mode::default()`, so `Fast`.
    #[serde(default)]
    pub fallback: Mode,
}

/// A mode whose variants depend on the configuration.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub enum Mode {
    /// Fast.
    #[default]
    Fast,
    /// Never offered.
    #[cfg(all(unix, not(unix)))]
    Hidden,
    /// Slow.
    Slow,
}
