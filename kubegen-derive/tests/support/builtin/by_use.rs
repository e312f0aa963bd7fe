//! `JobTemplateSpec` and friends named through `use`: by name, renamed, in
//! a group, through a module alias, through the runtime's re-export, and
//! through a type alias of this module.

use ::k8s_openapi::api::core::v1::{Container, Toleration as Tol};
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::batch::v1::JobTemplateSpec as Renamed;
use kubegen::k8s_openapi::api::core::v1 as corev1;
use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

use crate::shared::Budget;

/// A type alias of this module.
type Alias = k8s_openapi::api::batch::v1::JobTemplateSpec;

/// `use k8s_openapi::…::JobTemplateSpec;`
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ByUse {
    pub job: JobTemplateSpec,
}

/// `use k8s_openapi::…::JobTemplateSpec as Renamed;`
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ByRename {
    pub job: Renamed,
}

/// `type Alias = k8s_openapi::…::JobTemplateSpec;`
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ByAlias {
    pub job: Alias,
}

/// An alias in another module, by path.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ByOtherAlias {
    pub job: crate::shared::Template,
}

/// Built-in types inside a resource: its CRD is compared too.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "builtin.kubegen.dev",
    version = "v1",
    kind = "Runner",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct RunnerSpec {
    /// Merged by name on server-side apply, as in a Pod (`name` is one of
    /// `Container`'s `KEY_FIELDS`, checked at compile time).
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub containers: Vec<Container>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Tol>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<corev1::Affinity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<kubegen::k8s_openapi::api::core::v1::ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<k8s_openapi::api::core::v1::ResourceRequirements>,
    pub budget: Budget,
}

/// Another alias of this module, of a type with a schema of its own.
type Amount = k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// `Quantity` written out (kubegen's own int-or-string) and through an
/// alias (the built-in table's): one shape.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Amounts {
    pub direct: k8s_openapi::apimachinery::pkg::api::resource::Quantity,
    pub aliased: Amount,
}
