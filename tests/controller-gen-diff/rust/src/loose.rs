//! Twins of `../loose/v1/types.go`: controller-gen's package-level
//! `+kubebuilder:validation:Optional` as kubegen's type-level `optional` on
//! each type, plus `optional_spec` (the marker makes the root's `spec`
//! optional too).

use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// Loose has optional fields by default.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "loose.cgdiff.example.com",
    version = "v1",
    kind = "Loose",
    optional,
    optional_spec
)]
pub struct LooseSpec {
    /// Optional by the package's marker.
    pub name: String,
    /// Optional by the package's marker.
    pub count: i32,
    /// Required all the same.
    #[kubegen(required)]
    pub key: String,
    /// A nested type of the package.
    pub part: LoosePart,
}

/// A nested type of the package.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
#[kubegen(optional)]
pub struct LoosePart {
    /// Optional by the package's marker.
    pub label: String,
}
