//! Structural schemas for enums with data: variant schemas are hoisted into one
//! object (or one scalar) schema, with exclusivity expressed by `oneOf`/`anyOf`
//! branches holding only value validations.

use serde_json::{Map, Value, json};

use super::{SchemaError, cel, err};

fn ty(m: &Map<String, Value>) -> Option<&str> {
    m.get("type").and_then(Value::as_str)
}

fn is_int_or_string(m: &Map<String, Value>) -> bool {
    m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

fn required(m: &Map<String, Value>) -> Vec<Value> {
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
        return Ok(super::int_or_string());
    }
    let preserve = |m: &Map<String, Value>| {
        m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) && ty(m).is_none()
    };
    if preserve(a) || preserve(b) {
        return Ok(super::obj(
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

fn hoist(
    path: &str,
    props: &mut Map<String, Value>,
    part: &Map<String, Value>,
) -> Result<(), SchemaError> {
    if let Some(Value::Object(p)) = part.get("properties") {
        for (k, v) in p {
            let merged = match (props.get(k), v) {
                (Some(Value::Object(x)), Value::Object(y)) => Value::Object(
                    merge_schema(x, y).map_err(|m| err(path, format!("property `{k}`: {m}")))?,
                ),
                _ => v.clone(),
            };
            props.insert(k.clone(), merged);
        }
    }
    Ok(())
}

/// Guards a variant's CEL rules so they only apply when its tag is set.
fn guarded_rules(tag: &str, name: &str, part: &Map<String, Value>) -> Vec<Value> {
    let Some(Value::Array(rules)) = part.get("x-kubernetes-validations") else {
        return Vec::new();
    };
    rules
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if let Some(Value::String(rule)) = r.get("rule").cloned()
                && let Value::Object(m) = &mut r
            {
                let t = cel::ident(tag);
                let quoted = name.replace('\\', "\\\\").replace('\'', "\\'");
                m.insert(
                    "rule".into(),
                    format!("self.{t} != '{quoted}' || ({rule})").into(),
                );
            }
            r
        })
        .collect()
}

/// Internally (`content == None`) or adjacently tagged enums.
pub fn tagged_union(
    path: &str,
    tag: &str,
    content: Option<&str>,
    parts: Vec<(String, Map<String, Value>)>,
) -> Result<Map<String, Value>, SchemaError> {
    let names: Vec<Value> = parts.iter().map(|(n, _)| n.clone().into()).collect();
    let mut props = Map::new();
    let mut branches = Vec::new();
    let mut rules = Vec::new();
    let mut content_schema: Option<Map<String, Value>> = None;
    let mut any_required = false;
    for (name, part) in &parts {
        let mut branch_props = Map::new();
        branch_props.insert(tag.to_owned(), json!({"enum": [name]}));
        let mut branch = Map::new();
        match content {
            None => {
                if part
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.contains_key(tag))
                {
                    return Err(err(
                        path,
                        format!("variant `{name}` has a field named like the tag `{tag}`"),
                    ));
                }
                hoist(path, &mut props, part)?;
                let req = required(part);
                if !req.is_empty() {
                    any_required = true;
                    branch.insert("required".into(), Value::Array(req));
                }
                rules.extend(guarded_rules(tag, name, part));
            }
            Some(c) => {
                if !part.is_empty() {
                    content_schema = Some(match &content_schema {
                        None => part.clone(),
                        Some(prev) => merge_schema(prev, part)
                            .map_err(|m| err(path, format!("content of `{name}`: {m}")))?,
                    });
                    any_required = true;
                    branch.insert("required".into(), json!([c]));
                    let req = required(part);
                    if !req.is_empty() {
                        branch_props.insert(c.to_owned(), json!({"required": req}));
                    }
                }
            }
        }
        branch.insert("properties".into(), Value::Object(branch_props));
        branches.push(Value::Object(branch));
    }
    if let (Some(c), Some(mut cs)) = (content, content_schema) {
        // Exclusivity lives in the branches; the merged content keeps only
        // the required entries common to every variant.
        if cs.get("type") == Some(&Value::from("object")) {
            cs.remove("required");
        }
        props.insert(c.to_owned(), Value::Object(cs));
    }
    props.insert(tag.to_owned(), json!({"type": "string", "enum": names}));
    let mut m = super::obj(json!({"type": "object", "properties": props, "required": [tag]}));
    if any_required && branches.len() > 1 {
        m.insert("oneOf".into(), Value::Array(branches));
    } else if any_required && let Some(Value::Object(b)) = branches.pop() {
        // A single variant: its requirements are simply required.
        if let Some(Value::Array(r)) = b.get("required") {
            let mut all = vec![Value::from(tag)];
            all.extend(r.iter().cloned());
            m.insert("required".into(), Value::Array(all));
        }
    }
    super::push_rules(&mut m, rules);
    Ok(m)
}

/// `#[serde(untagged)]` enums: the union of the variants' schemas.
pub fn untagged_union(
    path: &str,
    parts: Vec<Map<String, Value>>,
) -> Result<Map<String, Value>, SchemaError> {
    let mut iter = parts.iter();
    let Some(first) = iter.next() else {
        return Err(err(path, "an untagged enum needs a variant"));
    };
    let mut merged = first.clone();
    for p in iter {
        merged = merge_schema(&merged, p).map_err(|m| err(path, m))?;
    }
    let requireds: Vec<Vec<Value>> = parts.iter().map(required).collect();
    if ty(&merged) == Some("object") && parts.len() > 1 && requireds.iter().all(|r| !r.is_empty()) {
        merged.remove("required");
        let distinct: Vec<Value> = requireds
            .into_iter()
            .map(|r| json!({"required": r}))
            .collect();
        merged.insert("anyOf".into(), Value::Array(distinct));
    }
    merged.remove("x-kubernetes-validations");
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: Value) -> Map<String, Value> {
        super::super::obj(v)
    }

    #[test]
    fn int_and_string_make_int_or_string() {
        let out = merge_schema(
            &m(json!({"type": "integer"})),
            &m(json!({"type": "string"})),
        )
        .unwrap();
        assert_eq!(
            out.get("x-kubernetes-int-or-string"),
            Some(&Value::Bool(true))
        );
    }

    #[test]
    fn objects_union_properties() {
        let a = m(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
        );
        let b = m(
            json!({"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}),
        );
        let out = merge_schema(&a, &b).unwrap();
        assert_eq!(out["properties"].as_object().unwrap().len(), 2);
        assert!(!out.contains_key("required"));
    }

    #[test]
    fn object_and_string_conflict() {
        let e =
            merge_schema(&m(json!({"type": "object"})), &m(json!({"type": "string"}))).unwrap_err();
        assert!(e.contains("object"));
    }
}
