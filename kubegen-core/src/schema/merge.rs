//! Merging two schemas that describe values at the same place into one
//! that accepts both (the hoisting step of enum schemas).

use serde_json::{Map, Value, json};

pub(crate) fn ty(m: &Map<String, Value>) -> Option<&str> {
    m.get("type").and_then(Value::as_str)
}

pub(crate) fn is_int_or_string(m: &Map<String, Value>) -> bool {
    m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

pub(crate) fn required(m: &Map<String, Value>) -> Vec<Value> {
    match m.get("required") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// Merges two schemas describing values at the same place into one schema
/// accepting both (value validations that differ are dropped).
pub fn merge_schema(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    if a == b {
        return Ok(a.clone());
    }
    let scalar_is =
        |m: &Map<String, Value>| is_int_or_string(m) || matches!(ty(m), Some("integer" | "string"));
    if (is_int_or_string(a) || is_int_or_string(b) || ty(a) != ty(b))
        && scalar_is(a)
        && scalar_is(b)
    {
        return Ok(crate::schema::int_or_string());
    }
    let preserve = |m: &Map<String, Value>| {
        m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) && ty(m).is_none()
    };
    if preserve(a) || preserve(b) {
        return Ok(crate::schema::obj(
            json!({"x-kubernetes-preserve-unknown-fields": true}),
        ));
    }
    if ty(a) != ty(b) {
        return Err(format!(
            "cannot describe both a {} and a {} in one structural schema",
            ty(a).unwrap_or("value"),
            ty(b).unwrap_or("value")
        ));
    }
    let mut out = Map::new();
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (va, vb) = (a.get(k), b.get(k));
        match k.as_str() {
            "properties" => {
                let mut props = match va {
                    Some(Value::Object(p)) => p.clone(),
                    _ => Map::new(),
                };
                if let Some(Value::Object(pb)) = vb {
                    for (name, s) in pb {
                        let merged = match (props.get(name), s) {
                            (Some(Value::Object(x)), Value::Object(y)) => Value::Object(
                                merge_schema(x, y)
                                    .map_err(|e| format!("property `{name}`: {e}"))?,
                            ),
                            _ => s.clone(),
                        };
                        props.insert(name.clone(), merged);
                    }
                }
                out.insert(k.clone(), Value::Object(props));
            }
            "items" | "additionalProperties" => match (va, vb) {
                (Some(Value::Object(x)), Some(Value::Object(y))) => {
                    out.insert(k.clone(), Value::Object(merge_schema(x, y)?));
                }
                (Some(v), None) | (None, Some(v)) => {
                    out.insert(k.clone(), v.clone());
                }
                _ => {}
            },
            "required" => {
                let rb = required(b);
                let both: Vec<Value> = required(a).into_iter().filter(|r| rb.contains(r)).collect();
                if !both.is_empty() {
                    out.insert(k.clone(), Value::Array(both));
                }
            }
            "enum" => {
                if let (Some(Value::Array(x)), Some(Value::Array(y))) = (va, vb) {
                    let mut all = x.clone();
                    all.extend(y.iter().filter(|v| !x.contains(v)).cloned());
                    out.insert(k.clone(), Value::Array(all));
                }
            }
            "description" => {
                if let Some(v) = va.or(vb) {
                    out.insert(k.clone(), v.clone());
                }
            }
            // Rules and the enum rules recorded for them stay together:
            // both only when equal on both sides.
            _ => {
                if va == vb
                    && let Some(v) = va
                {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Ok(out)
}
