//! The refusal of served versions that hold different data without a
//! conversion: each version's data shape (types, fields, items, map
//! values, shape markers) compared, the differences named as field paths.

use serde_json::{Map, Value};

use super::CrdError;

/// Without a conversion webhook the apiserver converts by rewriting
/// `apiVersion` only, so a field one version has and another lacks is
/// pruned whenever an object crosses versions. Two versions the apiserver
/// may convert between (the served ones and the storage version) must
/// therefore hold the same data: the same fields with the same types.
/// Validations, defaults and descriptions may differ — they never drop data.
pub(super) fn refuse_lossy_versions(
    name: &Value,
    crd: &Value,
    versions: &[Value],
) -> Result<(), CrdError> {
    let reachable: Vec<(&str, Value)> = versions
        .iter()
        .filter(|v| {
            v.get("served") == Some(&Value::Bool(true))
                || v.get("storage") == Some(&Value::Bool(true))
        })
        .map(|v| {
            let schema = v
                .pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or(Value::Null);
            (
                v.get("name").and_then(Value::as_str).unwrap_or(""),
                data_shape(&schema),
            )
        })
        .collect();
    let Some((base_name, base)) = reachable.first() else {
        return Ok(());
    };
    for (other_name, other) in &reachable[1..] {
        if base == other {
            continue;
        }
        let kind = crd
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let name = name.as_str().unwrap_or("");
        let mut differences = Vec::new();
        shape_differences("", base, other, base_name, other_name, &mut differences);
        differences.truncate(5);
        return Err(CrdError::Merge(format!(
            "CRD {name}: kind {kind} serves versions {base_name} and {other_name} with different fields ({}) but declares no conversion, so the apiserver would drop those fields whenever an object is read or written at the other version. Declare `conversion(service = \"...\", namespace = \"...\")` on one version of the kind and implement the conversions to and from the hub version, give both versions the same fields, or stop serving the old version (`served = false`)",
            differences.join("; ")
        )));
    }
    Ok(())
}

/// The part of a schema that decides which data survives: types, fields,
/// items, map values and the `x-kubernetes-*` shape markers.
fn data_shape(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return Value::Null;
    };
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "type"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-int-or-string"
            | "x-kubernetes-embedded-resource" => {
                out.insert(k.clone(), v.clone());
            }
            "items" => {
                out.insert(k.clone(), data_shape(v));
            }
            "additionalProperties" => {
                let shape = if v.is_object() {
                    data_shape(v)
                } else {
                    v.clone()
                };
                out.insert(k.clone(), shape);
            }
            "properties" => {
                let props: Map<String, Value> = crate::sorting::collect_map(
                    v.as_object()
                        .into_iter()
                        .flatten()
                        .map(|(name, s)| (name.clone(), data_shape(s))),
                );
                out.insert(k.clone(), Value::Object(props));
            }
            _ => {}
        }
    }
    Value::Object(out)
}

/// Human descriptions of where two data shapes differ, as field paths.
fn shape_differences(
    path: &str,
    a: &Value,
    b: &Value,
    a_name: &str,
    b_name: &str,
    out: &mut Vec<String>,
) {
    if a == b {
        return;
    }
    let shown = if path.is_empty() { "the root" } else { path };
    let props = |v: &Value| v.get("properties").and_then(Value::as_object).cloned();
    let rest = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("properties");
            m.remove("items");
            m.remove("additionalProperties");
        }
        v
    };
    if rest(a) != rest(b) {
        out.push(format!(
            "`{shown}` is {} in {a_name} but {} in {b_name}",
            describe_shape(a),
            describe_shape(b)
        ));
        return;
    }
    let (pa, pb) = (props(a).unwrap_or_default(), props(b).unwrap_or_default());
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    for (name, sa) in &pa {
        match pb.get(name) {
            Some(sb) => shape_differences(&join(name), sa, sb, a_name, b_name, out),
            None => out.push(format!("{a_name} has `{}`, {b_name} does not", join(name))),
        }
    }
    for name in pb.keys().filter(|n| !pa.contains_key(*n)) {
        out.push(format!("{b_name} has `{}`, {a_name} does not", join(name)));
    }
    for key in ["items", "additionalProperties"] {
        let (ia, ib) = (
            a.get(key).unwrap_or(&Value::Null),
            b.get(key).unwrap_or(&Value::Null),
        );
        let suffix = if key == "items" { "[]" } else { "{}" };
        shape_differences(&format!("{shown}{suffix}"), ia, ib, a_name, b_name, out);
    }
}

/// How a shape reads in a message: an int-or-string, free-form, or its
/// type.
fn describe_shape(v: &Value) -> String {
    if v.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return "an int-or-string".into();
    }
    if v.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return "free-form (unknown fields kept)".into();
    }
    match v.get("type").and_then(Value::as_str) {
        Some(t) => format!("of type {t}"),
        None => "untyped".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::crd::fixtures::{res, spec};
    use crate::crd::{crd_json, merge_crds};
    use crate::model::Conversion;

    fn webhook() -> Conversion {
        Conversion {
            hub: None,
            webhook: crate::model::WebhookTarget::Service {
                name: "shop-webhook".into(),
                namespace: "shop-system".into(),
                path: Some("/convert".into()),
                port: Some(443),
            },
            external: false,
            review_versions: Vec::new(),
        }
    }

    fn other_spec() -> Value {
        json!({"type": "object", "properties": {"size": {"type": "string"}, "lines": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}})
    }

    #[test]
    fn versions_with_different_fields_need_a_conversion() {
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), other_spec(), None).unwrap();
        let e = merge_crds(&[v1.clone(), v2.clone()])
            .unwrap_err()
            .to_string();
        for part in [
            "CRD foos.example.com: kind Foo serves versions v2 and v1",
            "`spec.size` is of type string in v2 but of type integer in v1",
            "v2 has `spec.lines`, v1 does not",
            "v1 has `spec.items`, v2 does not",
            "declares no conversion",
            "conversion(service",
            "served = false",
        ] {
            assert!(e.contains(part), "missing {part:?} in: {e}");
        }

        // A version nobody reads or writes cannot lose data.
        let mut hidden = res("v1", false);
        hidden.served = false;
        let hidden = crd_json(&hidden, spec(), None).unwrap();
        assert!(merge_crds(&[hidden, v2.clone()]).is_ok());

        // A conversion written on one version serves the whole kind.
        let mut hub = res("v2", true);
        hub.conversion = Some(webhook());
        let hub = crd_json(&hub, other_spec(), None).unwrap();
        let merged = merge_crds(&[v1.clone(), hub.clone()]).unwrap();
        assert_eq!(
            merged["spec"]["conversion"],
            json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"name": "shop-webhook", "namespace": "shop-system", "path": "/convert", "port": 443}},
                "conversionReviewVersions": ["v1"],
            }})
        );

        // Two different declarations are refused.
        let mut other = res("v1", false);
        let mut c = webhook();
        c.webhook = crate::model::WebhookTarget::Url("https://example.com/convert".into());
        other.conversion = Some(c);
        let other = crd_json(&other, spec(), None).unwrap();
        let e = merge_crds(&[other, hub]).unwrap_err().to_string();
        assert!(e.contains("different `conversion(...)` settings"), "{e}");
    }

    #[test]
    fn versions_differing_only_in_validation_need_no_conversion() {
        let strict = json!({"type": "object", "description": "d", "properties": {"size": {"type": "integer", "minimum": 1, "default": 3}, "items": {"type": "array", "maxItems": 4, "items": {"type": "object", "properties": {"name": {"type": "string", "pattern": "^a"}}}}}});
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), strict, None).unwrap();
        let merged = merge_crds(&[v1, v2]).unwrap();
        assert!(merged["spec"].get("conversion").is_none());
        // A field that keeps unknown fields in one version only does lose
        // data in the other.
        let loose = json!({"type": "object", "properties": {"size": {"type": "integer"}, "items": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"name": {"type": "string"}}}}}});
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), loose, None).unwrap();
        let e = merge_crds(&[v1, v2]).unwrap_err().to_string();
        assert!(
            e.contains(
                "`spec.items[]` is free-form (unknown fields kept) in v2 but of type object in v1"
            ),
            "{e}"
        );
    }
}
