//! The resource, with configured fields.

use kubegen::CustomResource;
use serde::{Deserialize, Serialize};

/// A gadget whose fields depend on the configuration.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "layout.kubegen.dev",
    version = "v1",
    kind = "Gadget",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    /// Always there.
    pub name: String,
    /// Never there.
    #[cfg(all(unix, not(unix)))]
    pub never: String,
    /// There when `any(unix, not(unix))` holds, which it always does.
    #[cfg(any(unix, not(unix)))]
    pub always: Option<String>,
    /// There on Unix hosts.
    #[cfg(unix)]
    pub on_unix: Option<u8>,
    /// There elsewhere.
    #[cfg(not(unix))]
    pub off_unix: Option<u8>,
    /// Constrained only through `cfg_attr`.
    #[cfg_attr(any(unix, not(unix)), kubegen(min_length = 2))]
    #[cfg_attr(all(unix, not(unix)), kubegen(max_length = 1))]
    pub code: String,
    /// Renamed on 64-bit hosts.
    #[cfg_attr(target_pointer_width = "64", serde(rename = "wide"))]
    #[serde(default)]
    pub width: Option<u8>,
    /// A type from a sibling module with CRLF line endings.
    pub part: super::nested::Part,
    /// A type from a module found through `#[path]` in an inline module.
    pub deep: super::inline::deep::Deep,
}
