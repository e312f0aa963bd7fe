//! The structural schema an apply configuration's resource is merged by:
//! a custom kind's `openAPIV3Schema` (from its CRD), a built-in kind's from
//! kubegen's built-in table (the markers `k8s.io/api` declares, as
//! controller-gen reads them) — in both, every `metadata` an object carries
//! is the apiserver's `ObjectMeta` ([`object_meta_schema`]) rather than the
//! stub a CRD holds, as the apiserver merges it.
//!
//! Each generated apply configuration keeps its schema in a [`SchemaCell`]
//! of its own, built on first use.

use std::sync::OnceLock;

use serde_json::Value;

use super::ApplyError;
use super::meta::object_meta_schema;
use crate::CustomResourceExt;

/// Where a generated apply configuration keeps its resource's schema.
pub type SchemaCell = OnceLock<Result<Value, String>>;

/// The schema of version `version` of the custom resource `K`, from
/// `K::crd_json()`, built once into `cell`.
pub fn crd_schema<K: CustomResourceExt>(
    cell: &'static SchemaCell,
    version: &str,
) -> Result<&'static Value, ApplyError> {
    let what = || format!("{} version {version}", std::any::type_name::<K>());
    cell.get_or_init(|| {
        let mut crd = K::crd_json().map_err(|e| e.to_string())?;
        let schema = crd["spec"]["versions"]
            .as_array_mut()
            .and_then(|versions| versions.iter_mut().find(|v| v["name"] == version))
            .and_then(|v| v["schema"].get_mut("openAPIV3Schema"))
            .map(Value::take)
            .ok_or_else(|| format!("the CRD has no schema for version {version}"))?;
        Ok(with_object_meta(schema, false))
    })
    .as_ref()
    .map_err(|message| ApplyError::Schema {
        what: what(),
        message: message.clone(),
    })
}

/// The schema of the built-in type `definition`
/// (`io.k8s.api.apps.v1.Deployment`), from kubegen's built-in table,
/// built once into `cell`.
pub fn builtin_schema(
    cell: &'static SchemaCell,
    definition: &str,
) -> Result<&'static Value, ApplyError> {
    cell.get_or_init(|| match kubegen_core::builtin::schema(definition) {
        Some(Ok(schema)) => Ok(with_object_meta(schema, true)),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("not in kubegen's built-in table".into()),
    })
    .as_ref()
    .map_err(|message| ApplyError::Schema {
        what: definition.to_string(),
        message: message.clone(),
    })
}

/// `schema` with the apiserver's `ObjectMeta` as the root's `metadata`,
/// as every embedded resource's, and — for built-in types (`everywhere`),
/// whose every `metadata` field is an `ObjectMeta` — as every object's.
fn with_object_meta(mut schema: Value, everywhere: bool) -> Value {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert("metadata".into(), object_meta_schema());
    }
    replace_nested(&mut schema, everywhere);
    schema
}

fn replace_nested(node: &mut Value, everywhere: bool) {
    let embedded = node["x-kubernetes-embedded-resource"] == Value::Bool(true);
    if let Some(props) = node.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, child) in props.iter_mut() {
            if name == "metadata" && (everywhere || embedded) && child.get("properties").is_some() {
                *child = object_meta_schema();
            } else {
                replace_nested(child, everywhere);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = node.get_mut(key).filter(|c| c.is_object()) {
            replace_nested(child, everywhere);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static DEPLOYMENT: SchemaCell = OnceLock::new();

    #[test]
    fn a_builtin_schema_has_object_meta_everywhere() {
        let schema = builtin_schema(&DEPLOYMENT, "io.k8s.api.apps.v1.Deployment").unwrap();
        let template_meta =
            &schema["properties"]["spec"]["properties"]["template"]["properties"]["metadata"];
        assert_eq!(
            template_meta["properties"]["ownerReferences"]["x-kubernetes-list-map-keys"],
            serde_json::json!(["uid"])
        );
        assert_eq!(
            schema["properties"]["metadata"]["properties"]["finalizers"]["x-kubernetes-list-type"],
            "set"
        );
        let containers = &schema["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
            ["properties"]["containers"];
        assert_eq!(
            containers["x-kubernetes-list-map-keys"],
            serde_json::json!(["name"])
        );
    }

    #[test]
    fn an_unknown_definition_is_an_error_naming_it() {
        static NONE: SchemaCell = OnceLock::new();
        let error = builtin_schema(&NONE, "io.k8s.api.apps.v1.Nothing").unwrap_err();
        assert!(
            error.to_string().contains("io.k8s.api.apps.v1.Nothing"),
            "{error}"
        );
    }
}
