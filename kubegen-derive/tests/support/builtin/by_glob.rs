//! `JobTemplateSpec` brought in by a glob import of its k8s-openapi module,
//! a local type by a glob of a local module, and both again in a child
//! module through `use super::*`.

use k8s_openapi::api::batch::v1::*;
use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

use super::shared::*;

/// `use k8s_openapi::api::batch::v1::*;` and `use super::shared::*;`
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ByGlob {
    pub job: JobTemplateSpec,
    pub budget: Budget,
    /// The local `Condition`, not k8s-openapi's.
    pub condition: Condition,
}

pub mod inner {
    //! `use super::*;` re-reaches both globs.

    use super::*;

    /// Through the parent's globs.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
    pub struct ByParentGlob {
        pub job: JobTemplateSpec,
        pub budget: Budget,
    }
}
