//! Names other modules reach through `crate::…`, `super::…` and globs: a
//! local type, and an alias of a k8s-openapi type.

use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// A local type.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub struct Budget {
    /// At most this many at once.
    pub max: i32,
}

/// An alias of a k8s-openapi type, in another module than its uses.
pub type Template = k8s_openapi::api::batch::v1::JobTemplateSpec;

/// A local type named like a k8s-openapi one (`meta::v1::Condition`): a
/// name is resolved, never guessed from a list of k8s-openapi names.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub struct Condition {
    /// Whether it holds.
    pub ok: bool,
}
