//! The `openAPIV3Schema` of one version: type meta, `metadata`, the spec
//! (nested or flattened into the root), the status, the kind's description
//! and the CEL rules on `metadata.name`.

use serde_json::{Map, Value, json};

use crate::model::ResourceModel;
use crate::truncate::truncate_descriptions;

/// The description of `apiVersion` in every kind's schema: the text of
/// apimachinery's `TypeMeta`, as Kubernetes' own tools write it.
pub const API_VERSION_DESCRIPTION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";

/// The description of `kind` in every kind's schema (apimachinery's `TypeMeta`).
pub const KIND_DESCRIPTION: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// The `openAPIV3Schema` of one version.
pub fn root_schema(res: &ResourceModel, spec: Value, status: Option<Value>) -> Value {
    let description = match res.kind_description.as_deref() {
        Some("") => None,
        Some(d) => Some(Value::from(d)),
        None => spec.get("description").cloned(),
    };
    let mut props = type_meta_properties(res);
    let mut root = json!({"type": "object"});
    let mut required: Vec<Value> = Vec::new();
    if res.required_metadata {
        required.push("metadata".into());
    }
    if res.flatten_spec {
        // The spec's own properties, rules and requirements are the root's.
        if let Value::Object(mut m) = spec {
            if let Some(Value::Object(p)) = m.remove("properties") {
                props.extend(p);
            }
            if let Some(Value::Array(r)) = m.remove("required") {
                required.extend(r);
            }
            m.remove("description");
            m.remove("type");
            if let Value::Object(r) = &mut root {
                r.extend(m);
            }
        }
    } else {
        props.insert("spec".into(), spec);
        if !res.optional_spec {
            required.push("spec".into());
        }
    }
    if let Some(s) = status {
        props.insert("status".into(), s);
    }
    // A hand-written schema may leave out even the type meta: `{type: object}`.
    if !props.is_empty() {
        root["properties"] = Value::Object(props);
    }
    if !required.is_empty() {
        root["required"] = Value::Array(required);
    }
    if let (Some(d), Value::Object(m)) = (description, &mut root) {
        m.insert("description".into(), d);
    }
    add_name_rules(res, &mut root);
    if let Some(max) = res.max_description_len {
        truncate_descriptions(&mut root, max);
    }
    root
}

/// The root's `apiVersion`, `kind` and `metadata`: the resource's own
/// `type_meta_schema` when it gives one, else apimachinery's.
fn type_meta_properties(res: &ResourceModel) -> Map<String, Value> {
    let mut props = Map::new();
    match &res.type_meta_schema {
        Some(given) => props.extend(given.clone()),
        None => {
            props.insert(
                "apiVersion".into(),
                json!({"type": "string", "description": API_VERSION_DESCRIPTION}),
            );
            props.insert(
                "kind".into(),
                json!({"type": "string", "description": KIND_DESCRIPTION}),
            );
            props.insert("metadata".into(), json!({"type": "object"}));
        }
    }
    props
}

/// Appends the resource's [`name_rules`] to the root's
/// `x-kubernetes-validations`, after the flattened spec's own rules, which
/// are the root's too.
fn add_name_rules(res: &ResourceModel, root: &mut Value) {
    let name_rules = name_rules(res);
    if !name_rules.is_empty() {
        match &mut root["x-kubernetes-validations"] {
            Value::Array(rules) => rules.extend(name_rules),
            slot => *slot = Value::Array(name_rules),
        }
    }
}

/// The CEL rules on `metadata.name` the resource asks for: at the root,
/// the only place where a rule can see the name.
fn name_rules(res: &ResourceModel) -> Vec<Value> {
    let mut rules = Vec::new();
    if let Some(max) = res.max_name_length {
        rules.push(json!({
            "rule": format!("size(self.metadata.name) <= {max}"),
            "message": format!("metadata.name must be at most {max} characters long"),
        }));
    }
    if let Some(pattern) = &res.name_pattern {
        // A CEL string literal: backslashes doubled (quotes cannot occur).
        let literal = pattern.replace('\\', "\\\\");
        rules.push(json!({
            "rule": format!("self.metadata.name.matches('{literal}')"),
            "message": format!("metadata.name must match {pattern}"),
        }));
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::fixtures;

    fn spec() -> Value {
        json!({"type": "object", "description": "The spec.", "required": ["a"],
               "properties": {"a": {"type": "string"}, "status": {"type": "object"}}})
    }

    #[test]
    fn the_root_follows_the_resource_options() {
        let res = fixtures::bare_res;
        let plain = root_schema(&res(), spec(), None);
        assert_eq!(plain["required"], json!(["spec"]));
        assert_eq!(plain["description"], "The spec.");
        assert_eq!(
            plain["properties"]["apiVersion"]["description"],
            API_VERSION_DESCRIPTION
        );

        let mut r = res();
        r.optional_spec = true;
        r.required_metadata = true;
        r.kind_description = Some(String::new());
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["required"], json!(["metadata"]));
        assert!(root.get("description").is_none());

        let mut r = res();
        r.flatten_spec = true;
        r.kind_description = Some("A Foo.".into());
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["required"], json!(["a"]));
        assert_eq!(root["description"], "A Foo.");
        assert!(root["properties"].get("spec").is_none());
        assert_eq!(root["properties"]["a"]["type"], "string");
        assert_eq!(root["properties"]["metadata"]["type"], "object");

        let mut r = res();
        r.type_meta_schema = json!({"kind": {"type": "string"}}).as_object().cloned();
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["properties"]["kind"], json!({"type": "string"}));
        assert!(root["properties"].get("apiVersion").is_none());
        assert!(root["properties"].get("metadata").is_none());

        let mut r = res();
        r.max_description_len = Some(0);
        let root = root_schema(&r, spec(), None);
        assert!(root.get("description").is_none());
        assert!(root["properties"]["kind"].get("description").is_none());
    }

    #[test]
    fn name_rules_sit_at_the_root() {
        let mut r = fixtures::res("v1", true);
        let plain = root_schema(&r, fixtures::spec(), None);
        assert!(plain.get("x-kubernetes-validations").is_none());
        r.max_name_length = Some(55);
        r.name_pattern = Some(r"^[a-z]\d*$".into());
        let root = root_schema(&r, fixtures::spec(), None);
        assert_eq!(
            root["x-kubernetes-validations"],
            json!([
                {
                    "rule": "size(self.metadata.name) <= 55",
                    "message": "metadata.name must be at most 55 characters long",
                },
                {
                    "rule": r"self.metadata.name.matches('^[a-z]\\d*$')",
                    "message": r"metadata.name must match ^[a-z]\d*$",
                },
            ])
        );
        assert!(
            root["properties"]["spec"]
                .get("x-kubernetes-validations")
                .is_none()
        );
    }
}
