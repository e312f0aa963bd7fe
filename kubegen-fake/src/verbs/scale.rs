//! The `scale` subresource: the object seen as an `autoscaling/v1`
//! `Scale` (desired and observed replicas, the label selector), and a
//! `Scale` written back as a change of the desired replicas, which is an
//! update of the object (its generation moves as the spec's does).

use kubegen_core::ssa::FieldSet;
use serde_json::{Value, json};

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::State;
use crate::status::ApiError;

use super::{key, meta_str, write};

fn pointer(path: &str) -> String {
    path.trim_start_matches('.')
        .split('.')
        .map(|p| format!("/{p}"))
        .collect()
}

/// A label selector (`matchLabels`, `matchExpressions`) as the string
/// `metav1.LabelSelectorAsSelector` prints.
fn selector_string(s: &Value) -> String {
    let mut parts: Vec<String> = s
        .get("matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    for e in s
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let k = e["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> = e["values"]
            .as_array()
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        values.sort_unstable();
        parts.push(match e["operator"].as_str().unwrap_or_default() {
            "In" => format!("{k} in ({})", values.join(",")),
            "NotIn" => format!("{k} notin ({})", values.join(",")),
            "Exists" => k.to_string(),
            _ => format!("!{k}"),
        });
    }
    parts.sort();
    parts.join(",")
}

/// `object` as a `Scale`.
pub fn scale_of(r: &Resource, object: &Value) -> Value {
    let Some(paths) = &r.scale else {
        return Value::Null;
    };
    let int = |p: &str| {
        object
            .pointer(&pointer(p))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let mut status = json!({"replicas": int(&paths.status_replicas)});
    let selector = if r.crd.is_some() {
        paths
            .label_selector
            .as_deref()
            .and_then(|p| object.pointer(&pointer(p)))
            .and_then(Value::as_str)
            .map(String::from)
    } else {
        object.pointer("/spec/selector").map(selector_string)
    };
    if let Some(s) = selector.filter(|s| !s.is_empty()) {
        status["selector"] = json!(s);
    }
    let meta = &object["metadata"];
    let mut m = json!({
        "name": meta["name"],
        "uid": meta["uid"],
        "resourceVersion": meta["resourceVersion"],
        "creationTimestamp": meta["creationTimestamp"],
    });
    if !meta_str(object, "namespace").is_empty() {
        m["namespace"] = meta["namespace"].clone();
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": m,
        "spec": {"replicas": int(&paths.spec_replicas)},
        "status": status,
    })
}

/// The managed fields of a write through `scale` (the apiserver's scale
/// handler): the writer owns the desired replicas, as an `Update` entry of
/// subresource `scale` (without a time), and every other entry gives them
/// up; entries left empty go.
fn scale_managed_fields(r: &Resource, spec_replicas: &str, object: &mut Value, manager: &str) {
    let mut owned = json!({});
    let mut at = &mut owned;
    for part in spec_replicas.trim_start_matches('.').split('.') {
        at = &mut at[format!("f:{part}")];
        *at = json!({});
    }
    let Ok(replicas) = FieldSet::from_fields_v1(&owned) else {
        return;
    };
    let entries = object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut kept = Vec::new();
    let mut mine = replicas.clone();
    for mut e in entries {
        let Ok(fields) = FieldSet::from_fields_v1(&e["fieldsV1"]) else {
            kept.push(e);
            continue;
        };
        if e["manager"] == manager && e["operation"] == "Update" && e["subresource"] == "scale" {
            mine = mine.union(&fields);
            continue;
        }
        let left = fields.difference(&replicas);
        if left.is_empty() {
            continue;
        }
        e["fieldsV1"] = left.to_fields_v1();
        kept.push(e);
    }
    let entry = json!({
        "manager": manager,
        "operation": "Update",
        "apiVersion": r.api_version(),
        "fieldsType": "FieldsV1",
        "fieldsV1": mine.to_fields_v1(),
        "subresource": "scale",
    });
    kept.insert(0, entry);
    object["metadata"]["managedFields"] = Value::Array(kept);
}

/// `GET …/scale`.
pub fn get(state: &State, r: &Resource, call: &ResourceCall) -> Result<Value, ApiError> {
    let name = call.name.clone().unwrap_or_default();
    let object = state
        .store
        .get(&key(r, call.namespace.as_deref(), &name))
        .ok_or_else(|| ApiError::not_found(&r.qualified(), &r.group, &r.plural, &name))?;
    Ok(scale_of(r, object))
}

/// Writes `scale` (a `Scale`) to the object: its replicas into the
/// desired replicas path, its `resourceVersion` as the update's
/// precondition.
pub fn update(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    scale: &Value,
    manager: &str,
) -> Result<(u16, Value), ApiError> {
    let name = call.name.clone().unwrap_or_default();
    let Some(paths) = r.scale.clone() else {
        return Err(ApiError::no_route());
    };
    let current = state
        .store
        .get(&key(r, call.namespace.as_deref(), &name))
        .map(|o| (**o).clone())
        .ok_or_else(|| ApiError::not_found(&r.qualified(), &r.group, &r.plural, &name))?;
    let replicas = scale
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if replicas < 0 {
        return Err(ApiError::invalid(
            "Scale",
            "autoscaling",
            &name,
            &[kubegen_core::validate::field::FieldError::invalid(
                "spec.replicas",
                json!(replicas),
                "must be greater than or equal to 0",
            )],
        ));
    }
    let mut object = current.clone();
    let p = pointer(&paths.spec_replicas);
    let (parent, leaf) = p.rsplit_once('/').unwrap_or(("", &p));
    if object.pointer(parent).is_none()
        && let Some((_, field)) = parent.rsplit_once('/')
    {
        object[field] = json!({});
    }
    if let Some(obj) = object.pointer_mut(parent).and_then(Value::as_object_mut) {
        obj.insert(leaf.to_string(), json!(replicas));
    }
    let rv = meta_str(scale, "resourceVersion");
    object["metadata"]["resourceVersion"] = if rv.is_empty() {
        current["metadata"]["resourceVersion"].clone()
    } else {
        json!(rv)
    };
    scale_managed_fields(r, &paths.spec_replicas, &mut object, manager);
    let mut main = call.clone();
    main.subresource = None;
    let (code, written) = write::update(state, r, &main, object, write::Fields::Applied)?;
    Ok((code, scale_of(r, &written)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_print_as_label_selector_as_selector_prints_them() {
        let s = json!({"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
            {"key": "t", "operator": "In", "values": ["y", "x"]},
            {"key": "e", "operator": "Exists"}]});
        assert_eq!(selector_string(&s), "a=1,b=2,e,t in (x,y)");
    }
}
