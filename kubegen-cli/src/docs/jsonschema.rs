//! A CRD version's schema as a JSON Schema (draft 7) for editors
//! (yaml-language-server, VS Code) and offline checkers: OpenAPI v3's
//! `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum` and the
//! Kubernetes extensions rewritten to what JSON Schema says, unknown fields
//! refused where the apiserver would prune them (as `kubectl
//! --validate=strict` reports them), `apiVersion` and `kind` fixed. CEL
//! rules have no JSON Schema form; `kubegen validate` is their checker.

use serde_json::{Map, Value, json};

/// The JSON Schema of one kind at one version.
pub fn for_version(group: &str, version: &str, kind: &str, schema: &Value) -> Value {
    let mut root = convert(schema);
    let api_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    if let Some(props) = root.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert(
            "apiVersion".into(),
            json!({"type": "string", "enum": [api_version]}),
        );
        props.insert("kind".into(), json!({"type": "string", "enum": [kind]}));
        // The apiserver checks metadata itself; its schema here is a stub.
        props.insert("metadata".into(), json!({"type": "object"}));
    }
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-07/schema#"),
    );
    out.insert("title".into(), json!(format!("{kind} ({api_version})")));
    if let Value::Object(o) = root {
        for (k, v) in o {
            out.entry(k).or_insert(v);
        }
    }
    let required = out
        .entry("required")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    let mut required: Vec<Value> = required;
    for k in ["apiVersion", "kind"] {
        if !required.contains(&json!(k)) {
            required.push(json!(k));
        }
    }
    out.insert("required".into(), Value::Array(required));
    Value::Object(out)
}

/// One schema node, converted.
fn convert(s: &Value) -> Value {
    let Some(obj) = s.as_object() else {
        return json!({});
    };
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mut out = Map::new();
    for key in [
        "description",
        "format",
        "default",
        "enum",
        "minimum",
        "maximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "required",
    ] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    // OpenAPI v3.0's boolean exclusive bounds are numbers in draft 7.
    for (flag_key, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if flag(flag_key)
            && let Some(b) = out.remove(bound)
        {
            out.insert(flag_key.into(), b);
        }
    }
    if obj.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("set") {
        out.insert("uniqueItems".into(), json!(true));
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        let converted: Map<String, Value> =
            props.iter().map(|(k, v)| (k.clone(), convert(v))).collect();
        out.insert("properties".into(), Value::Object(converted));
    }
    if let Some(items) = obj.get("items") {
        out.insert("items".into(), convert(items));
    }
    match obj.get("additionalProperties") {
        Some(v @ Value::Object(_)) => {
            out.insert("additionalProperties".into(), convert(v));
        }
        Some(Value::Bool(b)) => {
            out.insert("additionalProperties".into(), json!(b));
        }
        _ => {
            let is_object = obj.get("type").and_then(Value::as_str) == Some("object");
            if is_object
                && !flag("x-kubernetes-preserve-unknown-fields")
                && !flag("x-kubernetes-embedded-resource")
            {
                // The apiserver prunes what the schema does not declare.
                out.insert("additionalProperties".into(), json!(false));
            }
        }
    }
    if flag("x-kubernetes-embedded-resource") {
        let props = out
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        let mut props = props;
        for (k, v) in [
            ("apiVersion", json!({"type": "string"})),
            ("kind", json!({"type": "string"})),
            ("metadata", json!({"type": "object"})),
        ] {
            props.entry(k).or_insert(v);
        }
        out.insert("properties".into(), Value::Object(props));
    }
    let nullable = flag("nullable");
    if flag("x-kubernetes-int-or-string") {
        out.insert(
            "anyOf".into(),
            json!([{"type": "integer"}, {"type": "string"}]),
        );
        if nullable {
            out.insert(
                "anyOf".into(),
                json!([{"type": "integer"}, {"type": "string"}, {"type": "null"}]),
            );
        }
    } else if let Some(t) = obj.get("type").and_then(Value::as_str) {
        out.insert(
            "type".into(),
            if nullable {
                json!([t, "null"])
            } else {
                json!(t)
            },
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_becomes_json_schema() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "required": ["port"], "properties": {
                "port": {"x-kubernetes-int-or-string": true},
                "replicas": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "nullable": true},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "template": {"type": "object", "x-kubernetes-embedded-resource": true},
            }},
        }});
        let out = for_version("example.com", "v1", "Widget", &schema);
        assert_eq!(out["$schema"], "http://json-schema.org/draft-07/schema#");
        assert_eq!(
            out["properties"]["apiVersion"]["enum"],
            json!(["example.com/v1"])
        );
        assert_eq!(out["properties"]["kind"]["enum"], json!(["Widget"]));
        assert_eq!(out["required"], json!(["apiVersion", "kind"]));
        assert_eq!(
            out["additionalProperties"], false,
            "unknown fields are pruned"
        );
        assert_eq!(out["properties"]["metadata"], json!({"type": "object"}));
        let spec = &out["properties"]["spec"];
        assert_eq!(spec["required"], json!(["port"]));
        assert_eq!(spec["additionalProperties"], false);
        let p = &spec["properties"];
        assert_eq!(
            p["port"]["anyOf"],
            json!([{"type": "integer"}, {"type": "string"}])
        );
        assert_eq!(p["replicas"]["exclusiveMinimum"], 0);
        assert!(p["replicas"].get("minimum").is_none());
        assert_eq!(p["replicas"]["type"], json!(["integer", "null"]));
        assert_eq!(p["tags"]["uniqueItems"], true);
        assert!(
            p["extra"].get("additionalProperties").is_none(),
            "kept as is"
        );
        assert_eq!(p["labels"]["additionalProperties"]["type"], "string");
        assert_eq!(p["template"]["properties"]["kind"]["type"], "string");
        assert!(p["template"].get("additionalProperties").is_none());
    }
}
