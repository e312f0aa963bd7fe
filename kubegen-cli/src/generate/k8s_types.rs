//! The k8s-openapi types the CLI knows without compiling the user's crate:
//! their schemas come from k8s-openapi's schemars support, exactly as the
//! derive obtains them.

use serde_json::Value;

use kubegen_core::rt::schemars_schema;
use kubegen_core::schema::SchemaError;

type SchemaFn = fn() -> Result<Value, SchemaError>;

macro_rules! table {
    ($($name:literal => $path:ty,)*) => {
        /// Type names with their schema functions, sorted by name.
        const TABLE: &[(&str, SchemaFn)] = &[$(($name, schemars_schema::<$path>),)*];
    };
}

table! {
    "Affinity" => k8s_openapi::api::core::v1::Affinity,
    "Condition" => k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition,
    "ConfigMapKeySelector" => k8s_openapi::api::core::v1::ConfigMapKeySelector,
    "Container" => k8s_openapi::api::core::v1::Container,
    "ContainerPort" => k8s_openapi::api::core::v1::ContainerPort,
    "EnvFromSource" => k8s_openapi::api::core::v1::EnvFromSource,
    "EnvVar" => k8s_openapi::api::core::v1::EnvVar,
    "EnvVarSource" => k8s_openapi::api::core::v1::EnvVarSource,
    "LabelSelector" => k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    "LabelSelectorRequirement" => k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement,
    "LocalObjectReference" => k8s_openapi::api::core::v1::LocalObjectReference,
    "NodeSelector" => k8s_openapi::api::core::v1::NodeSelector,
    "ObjectReference" => k8s_openapi::api::core::v1::ObjectReference,
    "OwnerReference" => k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
    "PersistentVolumeClaimSpec" => k8s_openapi::api::core::v1::PersistentVolumeClaimSpec,
    "PodSecurityContext" => k8s_openapi::api::core::v1::PodSecurityContext,
    "PodSpec" => k8s_openapi::api::core::v1::PodSpec,
    "PodTemplateSpec" => k8s_openapi::api::core::v1::PodTemplateSpec,
    "Probe" => k8s_openapi::api::core::v1::Probe,
    "ResourceRequirements" => k8s_openapi::api::core::v1::ResourceRequirements,
    "SecretKeySelector" => k8s_openapi::api::core::v1::SecretKeySelector,
    "SecurityContext" => k8s_openapi::api::core::v1::SecurityContext,
    "ServicePort" => k8s_openapi::api::core::v1::ServicePort,
    "Toleration" => k8s_openapi::api::core::v1::Toleration,
    "TopologySpreadConstraint" => k8s_openapi::api::core::v1::TopologySpreadConstraint,
    "TypedLocalObjectReference" => k8s_openapi::api::core::v1::TypedLocalObjectReference,
    "Volume" => k8s_openapi::api::core::v1::Volume,
    "VolumeMount" => k8s_openapi::api::core::v1::VolumeMount,
}

/// The schema function of the k8s-openapi type named `name` (last path
/// segment), if the CLI knows it.
pub fn schema_fn(name: &str) -> Option<SchemaFn> {
    TABLE
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| TABLE[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubegen_codegen::parse::K8S_OPENAPI_TYPES;

    #[test]
    fn covers_every_type_the_model_sends_to_schemars() {
        assert!(
            TABLE.windows(2).all(|w| w[0].0 < w[1].0),
            "table must stay sorted"
        );
        for name in K8S_OPENAPI_TYPES {
            assert!(
                schema_fn(name).is_some(),
                "{name} missing from the CLI's table"
            );
        }
        let condition = schema_fn("Condition").unwrap()().unwrap();
        assert_eq!(condition["type"], "object");
        assert!(condition["properties"]["lastTransitionTime"].is_object());
        assert!(schema_fn("Deployment").is_none());
    }
}
