//! The structural schema an apply configuration's resource is merged by:
//! a custom kind's `openAPIV3Schema` (from its CRD), a built-in kind's from
//! kubegen's built-in table (the markers `k8s.io/api` declares, as
//! controller-gen reads them) — in both, every `metadata` an object carries
//! is the apiserver's `ObjectMeta` ([`object_meta_schema`]) rather than the
//! stub a CRD holds, as the apiserver merges it.
//!
//! What a cell keeps is the schema compiled to its merge structure
//! ([`MergeShape`]): an operator keeps one for each kind it applies, for
//! its life.
//!
//! Each generated apply configuration keeps its schema in a [`SchemaCell`]
//! of its own, built on first use.

use std::sync::OnceLock;

use serde_json::Value;

use super::ApplyError;
use super::meta::object_meta_schema;
use super::shape::MergeShape;

/// Where a generated apply configuration keeps its resource's merge
/// structure.
pub type SchemaCell = OnceLock<Result<MergeShape, String>>;

/// The merge structure of version `version` of the custom resource `K`'s
/// schema, from its CRD (`crd_json`: `K`'s
/// [`CustomResourceExt::crd_json`](crate::CustomResourceExt::crd_json),
/// which the generated code passes), built once into `cell`.
pub fn crd_schema<K, E: std::fmt::Display>(
    cell: &'static SchemaCell,
    version: &str,
    crd_json: impl FnOnce() -> Result<Value, E>,
) -> Result<&'static MergeShape, ApplyError> {
    let what = || format!("{} version {version}", std::any::type_name::<K>());
    cell.get_or_init(|| {
        let mut crd = crd_json().map_err(|e| e.to_string())?;
        let schema = crd["spec"]["versions"]
            .as_array_mut()
            .and_then(|versions| versions.iter_mut().find(|v| v["name"] == version))
            .and_then(|v| v["schema"].get_mut("openAPIV3Schema"))
            .map(Value::take)
            .ok_or_else(|| format!("the CRD has no schema for version {version}"))?;
        Ok(MergeShape::of(&with_object_meta(schema, false)))
    })
    .as_ref()
    .map_err(|message| ApplyError::Schema {
        what: what(),
        message: message.clone(),
    })
}

/// The merge structure of the built-in type `definition`'s schema
/// (`io.k8s.api.apps.v1.Deployment`), from kubegen's built-in table without
/// descriptions (`kubegen_core::builtin::structure`), built once into
/// `cell`.
pub fn builtin_schema(
    cell: &'static SchemaCell,
    definition: &str,
) -> Result<&'static MergeShape, ApplyError> {
    cell.get_or_init(|| match kubegen_core::builtin::structure(definition) {
        Some(Ok(schema)) => Ok(MergeShape::of(&with_object_meta(schema, true))),
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
        let schema = builtin_schema(&DEPLOYMENT, "io.k8s.api.apps.v1.Deployment")
            .unwrap()
            .to_value();
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

    /// What apply reads at a node (the extraction walk's `Node::of`), the
    /// names of the node's properties, and the defaults of its list-map
    /// keys.
    fn merge_view(node: &Value) -> Value {
        let kind = if node["x-kubernetes-int-or-string"] == Value::Bool(true) {
            Value::from("int-or-string")
        } else {
            node["type"].clone()
        };
        let list_type = node["x-kubernetes-list-type"]
            .as_str()
            .filter(|t| matches!(*t, "map" | "set"))
            .unwrap_or("atomic");
        let keys = if list_type == "map" {
            node["x-kubernetes-list-map-keys"].clone()
        } else {
            Value::Null
        };
        serde_json::json!([
            kind,
            list_type,
            keys,
            node["x-kubernetes-map-type"] == "atomic",
            node.get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect::<Vec<_>>()),
            node.get("items").is_some_and(Value::is_object),
            node.get("additionalProperties")
                .is_some_and(Value::is_object),
            node["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|key| node["items"]["properties"][key].get("default"))
                .collect::<Vec<_>>(),
        ])
    }

    /// `compiled` reads as `full` at every node of `full` (below a typed
    /// scalar or an untyped node nothing is read).
    fn same_merge_view(full: &Value, compiled: &Value, path: &str, seen: &mut usize) {
        assert_eq!(merge_view(full), merge_view(compiled), "at {path}");
        *seen += 1;
        if !matches!(full["type"].as_str(), Some("object" | "array"))
            || full["x-kubernetes-int-or-string"] == Value::Bool(true)
        {
            return;
        }
        for (name, child) in full["properties"].as_object().into_iter().flatten() {
            let path = format!("{path}.{name}");
            same_merge_view(child, &compiled["properties"][name], &path, seen);
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child) = full.get(key).filter(|c| c.is_object()) {
                same_merge_view(child, &compiled[key], &format!("{path}[{key}]"), seen);
            }
        }
    }

    #[test]
    fn every_built_in_kind_compiles_to_what_apply_merges_by() {
        let mut nodes = 0;
        for t in kubegen_core::builtin::types() {
            // Some types cannot be held by a CRD; their schemas are errors.
            let Ok(full) = t.schema() else { continue };
            let full = with_object_meta(full, true);
            let shape = MergeShape::of(&full);
            let compiled = shape.to_value();
            same_merge_view(&full, &compiled, t.definition(), &mut nodes);
            assert_eq!(MergeShape::of(&compiled), shape, "{}", t.definition());
        }
        assert!(nodes > 10_000, "only {nodes} nodes compared");
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
