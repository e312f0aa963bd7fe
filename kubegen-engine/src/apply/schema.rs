//! The structural schema an apply configuration's resource is merged by:
//! a custom kind's `openAPIV3Schema` (from its CRD), a built-in kind's from
//! kubegen's built-in table (the markers `k8s.io/api` declares, as
//! controller-gen reads them) — in both, every `metadata` an object carries
//! is the apiserver's `ObjectMeta` ([`object_meta_schema`]) rather than the
//! stub a CRD holds, as the apiserver merges it.
//!
//! What a cell keeps is the schema's structure only ([`structure`]): the
//! types, properties, items, additional properties, the `x-kubernetes-*`
//! markers that decide how server-side apply owns and merges a field, and
//! the defaults of list-map keys. Descriptions, validations, other defaults
//! and CEL rules do not change who owns what. The Deployment's schema, with
//! its pod template inlined, took 1.4 MB of heap kept for the process's
//! life; its structure takes 1.1 MB (most of it the maps' nodes, one per
//! schema node).
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

/// The structure (see the module's docs) of version `version` of the
/// custom resource `K`'s schema, from `K::crd_json()`, built once into
/// `cell`.
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
        Ok(structure(with_object_meta(schema, false)))
    })
    .as_ref()
    .map_err(|message| ApplyError::Schema {
        what: what(),
        message: message.clone(),
    })
}

/// The structure (see the module's docs) of the built-in type
/// `definition`'s schema (`io.k8s.api.apps.v1.Deployment`), from kubegen's
/// built-in table, built once into `cell`.
pub fn builtin_schema(
    cell: &'static SchemaCell,
    definition: &str,
) -> Result<&'static Value, ApplyError> {
    cell.get_or_init(|| match kubegen_core::builtin::schema(definition) {
        Some(Ok(schema)) => Ok(structure(with_object_meta(schema, true))),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("not in kubegen's built-in table".into()),
    })
    .as_ref()
    .map_err(|message| ApplyError::Schema {
        what: definition.to_string(),
        message: message.clone(),
    })
}

/// The keys of a schema node that server-side apply merges by (besides the
/// `x-kubernetes-*` markers, all kept): everything else describes or
/// validates a value, which does not change who owns it.
const STRUCTURAL: [&str; 4] = ["type", "properties", "items", "additionalProperties"];

/// `schema` with only the keys apply merges by, at every node: the
/// structural keys, the `x-kubernetes-*` markers except CEL rules
/// (`x-kubernetes-validations`), and the `default` of a list-map's key
/// fields (an item without a key field is keyed by its default, as
/// structured-merge-diff keys it).
pub(crate) fn structure(mut schema: Value) -> Value {
    prune(&mut schema, false, &[]);
    schema
}

/// Whether `key` is kept at a node whose `default` counts (`key_field`).
fn merges_by(key: &str, key_field: bool) -> bool {
    STRUCTURAL.contains(&key)
        || (key.starts_with("x-kubernetes-") && key != "x-kubernetes-validations")
        || (key_field && key == "default")
}

/// Prunes `node`; `key_field`: it is a key field of a list-map's items;
/// `keys`: it is a list-map's items, these its key fields.
fn prune(node: &mut Value, key_field: bool, keys: &[String]) {
    let Value::Object(map) = node else { return };
    map.retain(|key, _| merges_by(key, key_field));
    let item_keys: Vec<String> = map
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (name, child) in props.iter_mut() {
            prune(child, keys.contains(name), &[]);
        }
    }
    if let Some(child) = map.get_mut("additionalProperties") {
        prune(child, false, &[]);
    }
    if let Some(items) = map.get_mut("items") {
        prune(items, false, &item_keys);
    }
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

    /// Everything [`Node::of`](super::super::extract) reads at a node, and
    /// the names of the node's properties.
    fn merge_view(node: &Value) -> Value {
        serde_json::json!([
            node["type"],
            node["x-kubernetes-int-or-string"],
            node["x-kubernetes-list-type"],
            node["x-kubernetes-list-map-keys"],
            node["x-kubernetes-map-type"],
            node["x-kubernetes-embedded-resource"],
            node["x-kubernetes-preserve-unknown-fields"],
            node.get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect::<Vec<_>>()),
            node.get("items").is_some(),
            node.get("additionalProperties").map(Value::is_object),
            // What an item without a key field is keyed by.
            node["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|key| node["items"]["properties"][key].get("default"))
                .collect::<Vec<_>>(),
        ])
    }

    /// Where a node sits: its path, whether it is a list-map's key field,
    /// and the key fields of its properties when it is a list-map's items.
    struct At<'a> {
        path: String,
        key_field: bool,
        keys: Vec<&'a str>,
    }

    /// `pruned` merges as `full` at every node, and keeps nothing else:
    /// `default` only at a list-map's key field.
    fn same_merge_view(full: &Value, pruned: &Value, at: At<'_>, seen: &mut usize) {
        let path = &at.path;
        assert_eq!(merge_view(full), merge_view(pruned), "at {path}");
        for key in pruned.as_object().into_iter().flat_map(|m| m.keys()) {
            let structural = STRUCTURAL.contains(&key.as_str())
                || key.starts_with("x-kubernetes-") && key != "x-kubernetes-validations";
            assert!(
                structural || at.key_field && key == "default",
                "{path}: {key} kept"
            );
        }
        *seen += 1;
        for (name, child) in full["properties"].as_object().into_iter().flatten() {
            let at = At {
                path: format!("{path}.{name}"),
                key_field: at.keys.contains(&name.as_str()),
                keys: vec![],
            };
            same_merge_view(child, &pruned["properties"][name], at, seen);
        }
        if let Some(child) = full.get("additionalProperties").filter(|c| c.is_object()) {
            let at = At {
                path: format!("{path}[values]"),
                key_field: false,
                keys: vec![],
            };
            same_merge_view(child, &pruned["additionalProperties"], at, seen);
        }
        if let Some(child) = full.get("items").filter(|c| c.is_object()) {
            let keys = full["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten();
            let at = At {
                path: format!("{path}[items]"),
                key_field: false,
                keys: keys.filter_map(Value::as_str).collect(),
            };
            same_merge_view(child, &pruned["items"], at, seen);
        }
    }

    #[test]
    fn the_structure_keeps_what_apply_merges_by_for_every_built_in_kind() {
        let mut nodes = 0;
        for t in kubegen_core::builtin::types() {
            // Some types cannot be held by a CRD; their schemas are errors.
            let Ok(full) = t.schema() else { continue };
            let full = with_object_meta(full, true);
            let pruned = structure(full.clone());
            let at = At {
                path: t.definition().to_string(),
                key_field: false,
                keys: vec![],
            };
            same_merge_view(&full, &pruned, at, &mut nodes);
        }
        assert!(nodes > 10_000, "only {nodes} nodes compared");
    }

    #[test]
    fn a_crd_schema_loses_descriptions_and_rules_but_not_markers_nor_key_defaults() {
        let schema = structure(serde_json::json!({
            "type": "object",
            "description": "a thing",
            "x-kubernetes-validations": [{"rule": "self.a > 0"}],
            "required": ["a"],
            "properties": {
                "a": {"type": "integer", "minimum": 1, "default": 1},
                "ports": {
                    "type": "array",
                    "maxItems": 4,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port", "protocol"],
                    "items": {"type": "object", "description": "a port",
                              "properties": {"port": {"type": "integer", "format": "int32"},
                                             "protocol": {"type": "string", "default": "TCP"},
                                             "name": {"type": "string", "default": "x"}}}
                },
                "labels": {"type": "object", "x-kubernetes-map-type": "atomic",
                           "additionalProperties": {"type": "string", "maxLength": 63}},
                "raw": {"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-int-or-string": true,
                        "anyOf": [{"type": "integer"}, {"type": "string"}]}
            }
        }));
        assert_eq!(
            schema,
            serde_json::json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "ports": {
                        "type": "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["port", "protocol"],
                        "items": {"type": "object", "properties": {
                            "port": {"type": "integer"},
                            "protocol": {"type": "string", "default": "TCP"},
                            "name": {"type": "string"}
                        }}
                    },
                    "labels": {"type": "object", "x-kubernetes-map-type": "atomic",
                               "additionalProperties": {"type": "string"}},
                    "raw": {"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-int-or-string": true}
                }
            })
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
