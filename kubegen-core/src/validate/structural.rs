//! What the apiserver does to a custom resource before it validates it,
//! in its order: unknown fields pruned (their paths reported, as
//! `kubectl --validate=strict` reports them: `PruneWithOptions`), null
//! values the schema neither allows nor defaults dropped
//! (`PruneNonNullableNullsWithoutDefaults`), then defaults applied
//! (`structuraldefaulting.Default`) — all on the JSON schema of a CRD
//! version, read as the apiserver reads a structural schema.

use serde_json::Value;

/// Fields the apiserver never prunes at a resource's root or in an
/// embedded resource.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

fn flag(s: &Value, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The schema of `key` in an object of schema `s`: its property, else
/// its `additionalProperties` schema; `Some(None)` when the object accepts
/// any key without a schema (`additionalProperties: true`).
fn child<'s>(s: &'s Value, key: &str) -> Option<Option<&'s Value>> {
    if let Some(p) = s.get("properties").and_then(|p| p.get(key)) {
        return Some(Some(p));
    }
    match s.get("additionalProperties") {
        Some(v @ Value::Object(_)) => Some(Some(v)),
        Some(Value::Bool(_)) => Some(None),
        _ => None,
    }
}

/// Removes the fields of `x` the schema `s` does not declare (`s` is a
/// resource root when `resource_root`), returning their paths (`.spec.foo`
/// style without the leading dot, `[i]` for list indexes), sorted.
pub fn prune(x: &mut Value, s: &Value, resource_root: bool) -> Vec<String> {
    let mut unknown = Vec::new();
    let embedded = resource_root || flag(s, "x-kubernetes-embedded-resource");
    prune_node(x, Some(s), embedded, "", &mut unknown);
    unknown.sort();
    unknown
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn prune_node(
    x: &mut Value,
    s: Option<&Value>,
    embedded: bool,
    path: &str,
    unknown: &mut Vec<String>,
) {
    if let Some(s) = s
        && flag(s, "x-kubernetes-preserve-unknown-fields")
    {
        skip_prune(x, s, embedded, path, unknown);
        return;
    }
    match x {
        Value::Object(map) => {
            let Some(s) = s else {
                for k in map.keys() {
                    unknown.push(join(path, k));
                }
                map.clear();
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                match child(s, &k) {
                    Some(sub) => {
                        let sub_embedded =
                            sub.is_some_and(|v| flag(v, "x-kubernetes-embedded-resource"));
                        if let Some(v) = map.get_mut(&k) {
                            prune_node(v, sub, sub_embedded, &join(path, &k), unknown);
                        }
                    }
                    None => {
                        if !META_FIELDS.contains(&k.as_str()) || !path.is_empty() {
                            unknown.push(join(path, &k));
                        }
                        map.remove(&k);
                    }
                }
            }
        }
        Value::Array(items) => {
            let sub = s.and_then(|s| s.get("items"));
            let sub_embedded = sub.is_some_and(|v| flag(v, "x-kubernetes-embedded-resource"));
            for (i, v) in items.iter_mut().enumerate() {
                let p = format!("{path}[{i}]");
                prune_node(
                    v,
                    if s.is_some() { sub } else { None },
                    sub_embedded,
                    &p,
                    unknown,
                );
            }
        }
        _ => {}
    }
}

/// Below `x-kubernetes-preserve-unknown-fields`: unknown fields stay, known
/// ones are pruned by their own schemas.
fn skip_prune(x: &mut Value, s: &Value, embedded: bool, path: &str, unknown: &mut Vec<String>) {
    match x {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                if let Some(sub) = child(s, &k)
                    && let Some(v) = map.get_mut(&k)
                {
                    let sub_embedded =
                        sub.is_some_and(|v| flag(v, "x-kubernetes-embedded-resource"));
                    prune_node(v, sub, sub_embedded, &join(path, &k), unknown);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = s.get("items") {
                let sub_embedded = flag(sub, "x-kubernetes-embedded-resource");
                for (i, v) in items.iter_mut().enumerate() {
                    skip_prune(v, sub, sub_embedded, &format!("{path}[{i}]"), unknown);
                }
            }
        }
        _ => {}
    }
}

/// Drops null values whose schema is neither `nullable` nor defaulted
/// (those with a default are defaulted later).
pub fn prune_nulls(x: &mut Value, s: Option<&Value>) {
    match x {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                let sub = s.and_then(|s| child(s, &k)).flatten();
                let drop = map.get(&k).is_some_and(Value::is_null)
                    && sub
                        .is_some_and(|sub| !flag(sub, "nullable") && sub.get("default").is_none());
                if drop {
                    map.remove(&k);
                } else if let Some(v) = map.get_mut(&k) {
                    prune_nulls(v, sub);
                }
            }
        }
        Value::Array(items) => {
            let sub = s.and_then(|s| s.get("items"));
            for v in items {
                prune_nulls(v, sub);
            }
        }
        _ => {}
    }
}

/// A null the schema does not allow but defaults.
fn defaultable_null(x: Option<&Value>, s: &Value) -> bool {
    x.is_some_and(Value::is_null) && !flag(s, "nullable")
}

/// Applies the schema's defaults to `x`: a missing property, or a null one
/// the schema does not allow, gets its default (deep-copied); then every
/// present value is defaulted by its own schema.
pub fn default(x: &mut Value, s: &Value) {
    match x {
        Value::Object(map) => {
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, prop) in props {
                    let Some(d) = prop.get("default") else {
                        continue;
                    };
                    if d.is_null() {
                        continue;
                    }
                    if !map.contains_key(k) || defaultable_null(map.get(k), prop) {
                        map.insert(k.clone(), d.clone());
                    }
                }
            }
            let values = s.get("additionalProperties").filter(|v| v.is_object());
            let props = s.get("properties").and_then(Value::as_object);
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if let Some(prop) = props.and_then(|p| p.get(&k)) {
                    if let Some(v) = map.get_mut(&k) {
                        default(v, prop);
                    }
                } else if let Some(values) = values {
                    if defaultable_null(map.get(&k), values)
                        && let Some(d) = values.get("default")
                    {
                        map.insert(k.clone(), d.clone());
                    }
                    if let Some(v) = map.get_mut(&k) {
                        default(v, values);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = s.get("items") {
                for v in items.iter_mut() {
                    if defaultable_null(Some(v), sub)
                        && let Some(d) = sub.get("default")
                    {
                        *v = d.clone();
                    }
                    default(v, sub);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer", "default": 1},
                "port": {"type": "integer", "default": 80},
                "name": {"type": "string"},
                "note": {"type": "string", "nullable": true},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}},
                "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string", "default": "a"}}}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"typed": {"type": "object", "properties": {"k": {"type": "string"}}}}},
                "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "properties": {"spec": {"type": "object"}}},
            }},
        }})
    }

    #[test]
    fn unknown_fields_are_pruned_and_reported_as_the_apiserver_does() {
        let mut obj = json!({
            "apiVersion": "v1", "kind": "K", "metadata": {"name": "n", "lables": {}},
            "extra": 1,
            "spec": {"name": "n", "nope": true, "items": [{"a": "x", "b": 1}],
                "free": {"anything": 1, "typed": {"k": "v", "drop": 2}},
                "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "other": 1}},
        });
        let unknown = prune(&mut obj, &schema(), true);
        // Metadata is `object_meta`'s to decode: pruning leaves it.
        assert_eq!(obj["metadata"]["lables"], json!({}));
        assert_eq!(
            unknown,
            [
                "extra",
                "spec.free.typed.drop",
                "spec.items[0].b",
                "spec.nope",
                "spec.template.other"
            ]
        );
        assert_eq!(obj["metadata"]["name"], "n", "metadata is the apiserver's");
        assert_eq!(obj["spec"]["free"]["anything"], 1, "preserved");
        assert_eq!(
            obj["spec"]["template"]["kind"], "Pod",
            "an embedded resource's type meta stays"
        );
    }

    #[test]
    fn nulls_and_defaults() {
        let mut obj = json!({"spec": {"name": null, "note": null, "port": null, "labels": {"a": null},
            "items": [{}]}});
        let s = schema();
        prune_nulls(&mut obj, Some(&s));
        default(&mut obj, &s);
        assert_eq!(
            obj,
            json!({"spec": {"note": null, "port": 80, "replicas": 1, "labels": {"a": "x"},
                "items": [{"a": "a"}]}})
        );
    }
}
