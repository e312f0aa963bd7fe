//! Node-for-node comparison of an original CRD with the one kubegen
//! regenerates: versions matched by name, schemas walked through
//! `properties`, `items` and `additionalProperties`, every other keyword
//! compared as a value, after normalising what the apiserver itself
//! defaults or injects (`normalised`). Key order never matters.

use serde_json::{Map, Value};

/// One difference, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The version whose schema differs (`None`: outside the schemas).
    pub version: Option<String>,
    /// Where: inside the version's `openAPIV3Schema` when `version` is
    /// set, else inside the CRD.
    pub pointer: String,
    /// What differs.
    pub message: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{v} schema {}: {}", self.pointer, self.message),
            None => write!(f, "{}: {}", self.pointer, self.message),
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn short(v: Option<&Value>) -> String {
    match v {
        None => "absent".into(),
        Some(v) => {
            let s = kubegen_core::output::to_json(v);
            if s.len() > 80 {
                format!(
                    "{}…",
                    &s[..s.char_indices().nth(80).map_or(s.len(), |(i, _)| i)]
                )
            } else {
                s
            }
        }
    }
}

/// Every difference between `original` and `regenerated`.
pub fn compare(original: &Value, regenerated: &Value) -> Vec<Difference> {
    let a = normalised(original);
    let b = normalised(regenerated);
    let mut out = Vec::new();
    values(&a, &b, "", &mut out, None);
    out
}

fn values(a: &Value, b: &Value, ptr: &str, out: &mut Vec<Difference>, version: Option<&str>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in keys(x, y) {
                let p = format!("{ptr}/{}", escape(k));
                match (x.get(k), y.get(k)) {
                    (Some(Value::Array(va)), Some(Value::Array(vb)))
                        if k == "versions" && version.is_none() && ptr == "/spec" =>
                    {
                        versions(va, vb, out)
                    }
                    (Some(va), Some(vb)) => values(va, vb, &p, out, version),
                    (va, vb) => out.push(Difference {
                        version: version.map(str::to_owned),
                        pointer: p,
                        message: format!("{} vs {}", short(va), short(vb)),
                    }),
                }
            }
        }
        _ if a == b => {}
        _ => out.push(Difference {
            version: version.map(str::to_owned),
            pointer: ptr.to_owned(),
            message: format!("{} vs {}", short(Some(a)), short(Some(b))),
        }),
    }
}

fn keys<'a>(x: &'a Map<String, Value>, y: &'a Map<String, Value>) -> Vec<&'a String> {
    let mut k: Vec<&String> = x.keys().chain(y.keys()).collect();
    k.sort();
    k.dedup();
    k
}

fn versions(a: &[Value], b: &[Value], out: &mut Vec<Difference>) {
    let name = |v: &Value| {
        v.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    for va in a {
        let n = name(va);
        let Some(vb) = b.iter().find(|v| name(v) == n) else {
            out.push(Difference {
                version: None,
                pointer: format!("/spec/versions/{n}"),
                message: "version not regenerated".into(),
            });
            continue;
        };
        let (mut xa, mut xb) = (va.clone(), vb.clone());
        let sa = take_schema(&mut xa);
        let sb = take_schema(&mut xb);
        values(&xa, &xb, &format!("/spec/versions/{n}"), out, None);
        schema(&sa, &sb, "", out, &n);
    }
    for vb in b {
        if !a.iter().any(|v| name(v) == name(vb)) {
            out.push(Difference {
                version: None,
                pointer: format!("/spec/versions/{}", name(vb)),
                message: "version not in the original".into(),
            });
        }
    }
}

fn take_schema(v: &mut Value) -> Value {
    v.pointer_mut("/schema/openAPIV3Schema")
        .map(Value::take)
        .unwrap_or_default()
}

/// Schema nodes: recurse through the keywords that hold schemas.
fn schema(a: &Value, b: &Value, ptr: &str, out: &mut Vec<Difference>, version: &str) {
    let (Value::Object(x), Value::Object(y)) = (a, b) else {
        if a != b {
            out.push(Difference {
                version: Some(version.to_owned()),
                pointer: ptr.to_owned(),
                message: format!("{} vs {}", short(Some(a)), short(Some(b))),
            });
        }
        return;
    };
    for k in keys(x, y) {
        let p = format!("{ptr}/{}", escape(k));
        match (k.as_str(), x.get(k), y.get(k)) {
            ("properties", Some(Value::Object(pa)), Some(Value::Object(pb))) => {
                for name in keys(pa, pb) {
                    let pp = format!("{p}/{}", escape(name));
                    match (pa.get(name), pb.get(name)) {
                        (Some(na), Some(nb)) => schema(na, nb, &pp, out, version),
                        (na, nb) => out.push(Difference {
                            version: Some(version.to_owned()),
                            pointer: pp,
                            message: format!("{} vs {}", short(na), short(nb)),
                        }),
                    }
                }
            }
            (
                "items" | "additionalProperties",
                Some(na @ Value::Object(_)),
                Some(nb @ Value::Object(_)),
            ) => schema(na, nb, &p, out, version),
            (_, va, vb) if va != vb => out.push(Difference {
                version: Some(version.to_owned()),
                pointer: p,
                message: format!("{} vs {}", short(va), short(vb)),
            }),
            _ => {}
        }
    }
}

/// The deepest slot (property, items or map value) containing `pointer`.
pub fn slot_of(pointer: &str) -> Option<String> {
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let mut cur = String::new();
    let mut last = None;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            "properties" if i + 1 < tokens.len() => {
                cur.push_str("/properties/");
                cur.push_str(tokens[i + 1]);
                last = Some(cur.clone());
                i += 2;
            }
            t @ ("items" | "additionalProperties") => {
                cur.push('/');
                cur.push_str(t);
                last = Some(cur.clone());
                i += 1;
            }
            _ => break,
        }
    }
    last
}

/// A CRD's parts that kubegen writes, for the comparison: everything but
/// `status`, server-set metadata and the apiserver's own defaults.
pub fn normalised(crd: &Value) -> Value {
    let mut out = Map::new();
    for key in ["apiVersion", "kind"] {
        if let Some(v) = crd.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut meta = Map::new();
    for key in ["name", "labels", "annotations"] {
        if let Some(v) = crd.pointer(&format!("/metadata/{key}"))
            && v.as_object().is_none_or(|m| !m.is_empty())
        {
            meta.insert(key.into(), v.clone());
        }
    }
    out.insert("metadata".into(), Value::Object(meta));
    let mut spec = crd.get("spec").cloned().unwrap_or_default();
    if let Some(s) = spec.as_object_mut() {
        if s.get("preserveUnknownFields") == Some(&Value::Bool(false)) {
            s.remove("preserveUnknownFields");
        }
        if s.get("conversion").and_then(|c| c.get("strategy")) == Some(&Value::from("None")) {
            s.remove("conversion");
        }
        // The CA bundle is injected where the CRD is deployed.
        if let Some(Value::Object(config)) = s
            .get_mut("conversion")
            .and_then(|c| c.pointer_mut("/webhook/clientConfig"))
        {
            config.remove("caBundle");
        }
        if let Some(Value::Object(names)) = s.get_mut("names")
            && let Some(kind) = names.get("kind").and_then(Value::as_str)
        {
            let kind = kind.to_owned();
            names
                .entry("listKind")
                .or_insert_with(|| Value::from(format!("{kind}List")));
            names
                .entry("singular")
                .or_insert_with(|| Value::from(kind.to_ascii_lowercase()));
        }
        if let Some(Value::Array(versions)) = s.get_mut("versions") {
            for v in versions.iter_mut() {
                if let Some(v) = v.as_object_mut()
                    && v.get("subresources")
                        .and_then(Value::as_object)
                        .is_some_and(Map::is_empty)
                {
                    v.remove("subresources");
                }
            }
            versions.sort_by(|a, b| {
                a.get("name")
                    .and_then(Value::as_str)
                    .cmp(&b.get("name").and_then(Value::as_str))
            });
        }
    }
    out.insert("spec".into(), spec);
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slots_are_the_deepest_property_items_or_value() {
        assert_eq!(
            slot_of("/properties/spec/properties/a/items/minLength").as_deref(),
            Some("/properties/spec/properties/a/items")
        );
        assert_eq!(
            slot_of("/properties/spec/properties/properties").as_deref(),
            Some("/properties/spec/properties/properties")
        );
        assert_eq!(slot_of("/description"), None);
        assert_eq!(
            slot_of("/properties/spec/x-kubernetes-validations").as_deref(),
            Some("/properties/spec")
        );
    }

    #[test]
    fn schema_differences_are_located() {
        let crd = |min: u64| {
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": "a.b.c"},
                   "spec": {"group": "b.c", "names": {"kind": "A", "plural": "a"}, "scope": "Namespaced",
                            "versions": [{"name": "v1", "served": true, "storage": true,
                                          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                              "spec": {"type": "object", "properties": {"x": {"type": "string", "minLength": min}}}}}}}]}})
        };
        assert!(compare(&crd(1), &crd(1)).is_empty());
        let d = compare(&crd(1), &crd(2));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].version.as_deref(), Some("v1"));
        assert_eq!(d[0].pointer, "/properties/spec/properties/x/minLength");
    }
}
