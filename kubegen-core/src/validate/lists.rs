//! `x-kubernetes-list-type` enforced as the apiserver enforces it
//! (`listtype.ValidateListSetsAndMaps`): no item twice in a `set`, no key
//! twice in a `map` (its `x-kubernetes-list-map-keys`), each map item an
//! object.

use serde_json::{Map, Value};

use super::field::{ErrorType, FieldError};

/// The list-type errors in `obj` (an object of schema `s`) below `path`.
pub fn validate(path: &str, s: &Value, obj: &Value, out: &mut Vec<FieldError>) {
    let Some(map) = obj.as_object() else {
        return;
    };
    // Additional properties first, then properties, as the apiserver.
    if let Some(values) = s.get("additionalProperties").filter(|v| v.is_object()) {
        for (k, v) in map {
            node(&format!("{path}[{k}]"), values, v, out);
        }
    }
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        for (k, v) in map {
            if let Some(sub) = props.get(k) {
                node(&child(path, k), sub, v, out);
            }
        }
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn node(path: &str, s: &Value, v: &Value, out: &mut Vec<FieldError>) {
    match v {
        Value::Array(items) => array(path, s, items, out),
        Value::Object(_) => validate(path, s, v, out),
        _ => {}
    }
}

fn array(path: &str, s: &Value, items: &[Value], out: &mut Vec<FieldError>) {
    match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => {
            for i in duplicates(items) {
                out.push(FieldError::new(
                    ErrorType::Duplicate,
                    format!("{path}[{i}]"),
                    Some(items[i].clone()),
                    "",
                ));
            }
        }
        Some("map") => map_list(path, s, items, out),
        _ => {}
    }
    if let Some(sub) = s.get("items") {
        for (i, v) in items.iter().enumerate() {
            node(&format!("{path}[{i}]"), sub, v, out);
        }
    }
}

/// The indexes of the second occurrence of each repeated value.
fn duplicates(items: &[Value]) -> Vec<usize> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        let key = canonical(x);
        match seen.iter_mut().find(|(k, _)| *k == key) {
            None => seen.push((key, 1)),
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    out.push(i);
                }
            }
        }
    }
    out
}

/// A value's identity for duplicate detection: Go compares scalars by
/// value (an int64 1 and a float64 1 differ) and compounds by their JSON.
fn canonical(x: &Value) -> String {
    match x {
        Value::Number(n) if n.as_i64().is_some() => format!("i:{n}"),
        Value::Number(n) => format!("f:{}", n.as_f64().unwrap_or_default()),
        other => format!("v:{}", crate::go::fmt::go_json(other)),
    }
}

fn map_list(path: &str, s: &Value, items: &[Value], out: &mut Vec<FieldError>) {
    for (i, x) in items.iter().enumerate() {
        if !x.is_null() && !x.is_object() {
            out.push(FieldError::invalid(
                format!("{path}[{i}]"),
                x.clone(),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if items.len() <= 1 {
        return;
    }
    let keys: Vec<String> = s
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    // Each item's key: the map of its key fields present (a missing single
    // key, or a null item, is the "unspecified" key).
    let key_of = |x: &Value| -> Value {
        let mut m = Map::new();
        if let Some(obj) = x.as_object() {
            for k in &keys {
                if let Some(v) = obj.get(k) {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
        Value::Object(m)
    };
    let item_keys: Vec<Value> = items.iter().map(key_of).collect();
    let single = keys.len() == 1;
    let identities: Vec<String> = item_keys
        .iter()
        .map(
            |k| match (single, k.as_object().and_then(|m| m.values().next())) {
                // One key: its value is compared as a scalar or compound.
                (true, Some(v)) => canonical(v),
                (true, None) => "unspecified".to_string(),
                (false, _) => canonical(k),
            },
        )
        .collect();
    let mut seen: Vec<(&String, usize)> = Vec::new();
    for (i, id) in identities.iter().enumerate() {
        match seen.iter_mut().find(|(k, _)| *k == id) {
            None => seen.push((id, 1)),
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    out.push(FieldError::new(
                        ErrorType::Duplicate,
                        format!("{path}[{i}]"),
                        Some(item_keys[i].clone()),
                        "",
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sets_and_maps_refuse_repeats() {
        let s = json!({"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object"}},
        }});
        let obj = json!({"tags": ["a", "b", "a", "a"], "ports": [{"name": "x"}, {"name": "y"}, {"name": "x", "p": 1}, {}, {}]});
        let mut out = Vec::new();
        validate("spec", &s, &obj, &mut out);
        let texts: Vec<String> = out.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec.ports[2]: Duplicate value: {\"name\":\"x\"}",
                "spec.ports[4]: Duplicate value: {}",
                "spec.tags[2]: Duplicate value: \"a\"",
            ]
        );
    }
}
