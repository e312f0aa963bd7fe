//! Seeded custom resource definitions and objects for the validation
//! tests: structural schemas with bounds, patterns, enums, defaults,
//! nullable fields, list sets and maps, maps and preserved fields, and
//! objects built from them — valid, then broken as users break them.

use kubegen_core::rng::Rng;
use serde_json::{Map, Value, json};

const NAMES: &[&str] = &[
    "replicas", "name", "items", "mode", "ports", "labels", "extra", "nested",
];

/// A seeded structural schema node of `depth` levels.
pub fn gen_node(rng: &mut Rng, depth: usize) -> Value {
    let mut s = match rng.below(if depth == 0 { 6 } else { 10 }) {
        0 => json!({"type": "integer", "minimum": 0, "maximum": 10}),
        1 => json!({"type": "string", "maxLength": 5}),
        2 => json!({"type": "string", "enum": ["a", "b"]}),
        3 => json!({"type": "boolean"}),
        4 => json!({"type": "string", "pattern": "^[a-z]+$"}),
        5 => json!({"type": "number", "format": "double"}),
        6 => json!({"type": "array", "x-kubernetes-list-type": "set", "maxItems": 4,
            "items": {"type": "string"}}),
        7 => {
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "default": 80}}}})
        }
        8 => json!({"type": "object", "additionalProperties": gen_node(rng, depth - 1)}),
        _ => gen_object(rng, depth - 1),
    };
    if rng.chance(1, 6) {
        s["nullable"] = json!(true);
    }
    if rng.chance(1, 5) && s.get("default").is_none() {
        let d = match s["type"].as_str() {
            Some("integer") => Some(json!(3)),
            Some("string") if s.get("enum").is_some() => Some(json!("a")),
            Some("string") if s.get("pattern").is_some() => Some(json!("abc")),
            Some("string") => Some(json!("d")),
            Some("boolean") => Some(json!(true)),
            _ => None,
        };
        if let Some(d) = d {
            s["default"] = d;
        }
    }
    s
}

pub fn gen_object(rng: &mut Rng, depth: usize) -> Value {
    let mut props = Map::new();
    for name in NAMES.iter().take(2 + rng.below(4)) {
        props.insert((*name).to_string(), gen_node(rng, depth));
    }
    let mut s = json!({"type": "object", "properties": props});
    let required: Vec<String> = props_names(&s)
        .into_iter()
        .filter(|_| rng.chance(1, 4))
        .collect();
    if !required.is_empty() {
        s["required"] = json!(required);
    }
    if rng.chance(1, 8) {
        s["x-kubernetes-preserve-unknown-fields"] = json!(true);
    }
    s
}

fn props_names(s: &Value) -> Vec<String> {
    s["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A value the schema accepts, mostly; some fields left out.
pub fn gen_value(rng: &mut Rng, s: &Value) -> Value {
    if s.get("nullable").is_some() && rng.chance(1, 8) {
        return Value::Null;
    }
    match s["type"].as_str().unwrap_or("") {
        "integer" => json!(rng.below(11) as i64),
        "number" => json!(rng.below(100) as f64 / 4.0),
        "boolean" => json!(rng.chance(1, 2)),
        "string" => match s.get("enum").and_then(Value::as_array) {
            Some(e) => rng.pick(e).clone(),
            None => json!(["ab", "xyz", "q"][rng.below(3)]),
        },
        "array" => {
            let n = rng.below(4);
            let items = &s["items"];
            let mut out: Vec<Value> = (0..n).map(|_| gen_value(rng, items)).collect();
            if items
                .get("properties")
                .is_some_and(|p| p.get("name").is_some())
            {
                for (i, v) in out.iter_mut().enumerate() {
                    v["name"] = json!(format!("n{i}"));
                }
            } else if s.get("x-kubernetes-list-type").is_some() {
                out = (0..n).map(|i| json!(format!("s{i}"))).collect();
            }
            Value::Array(out)
        }
        "object" => {
            let mut m = Map::new();
            if let Some(values) = s.get("additionalProperties").filter(|v| v.is_object()) {
                for k in ["a", "b"].iter().take(rng.below(3)) {
                    m.insert((*k).to_string(), gen_value(rng, values));
                }
            }
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    if required.contains(&k.as_str()) || rng.chance(2, 3) {
                        m.insert(k.clone(), gen_value(rng, sub));
                    }
                }
            }
            Value::Object(m)
        }
        _ => json!({}),
    }
}

/// A random path into `v` to an object or array.
fn containers(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) => {
            out.push(at.clone());
            for (k, c) in m {
                at.push(k.clone());
                containers(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(format!("#{i}"));
                containers(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'v>(v: &'v mut Value, path: &[String]) -> &'v mut Value {
    let mut node = v;
    for p in path {
        node = match p.strip_prefix('#') {
            Some(i) => &mut node[i.parse::<usize>().unwrap()],
            None => &mut node[p.as_str()],
        };
    }
    node
}

/// Breaks `obj` the way users do.
pub fn mutate(rng: &mut Rng, obj: &mut Value) {
    let mut found = Vec::new();
    containers(obj, &mut Vec::new(), &mut found);
    // Within spec: the root's apiVersion and kind choose the CRD, and
    // metadata of the wrong types is refused while decoding, before
    // validation.
    found.retain(|p| p.first().is_some_and(|f| f == "spec"));
    if found.is_empty() {
        return;
    }
    let target = rng.pick(&found).clone();
    let node = at_path(obj, &target);
    let Some(map) = node.as_object_mut() else {
        return;
    };
    let keys: Vec<String> = map.keys().cloned().collect();
    match rng.below(9) {
        0 => {
            map.insert("unknownField".into(), json!(1));
        }
        1 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), Value::Null);
        }
        2 if !keys.is_empty() => {
            map.remove(rng.pick(&keys).as_str());
        }
        3 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!("wrong"));
        }
        4 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!(-5));
        }
        5 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!("TOOLONGVALUE"));
        }
        6 if !keys.is_empty() => {
            let k = rng.pick(&keys).clone();
            if let Some(Value::Array(a)) = map.get_mut(&k)
                && let Some(first) = a.first().cloned()
            {
                a.push(first);
            }
        }
        7 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!({"x": [1.5]}));
        }
        _ => {
            map.insert("enumish".into(), json!(true));
        }
    }
}

pub fn metadata(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!({"generateName": "web-"}),
        1 => json!({"name": "Bad_Name"}),
        2 => json!({"name": "web", "labels": {"app": "web", "bad key": "x"}}),
        3 => json!({"name": "web", "annotations": {"example.com/a": "b"}, "lables": {"typo": "x"}}),
        4 => json!({}),
        5 => json!({"name": "web", "namespace": "team-a", "finalizers": ["example.com/cleanup"]}),
        _ => json!({"name": format!("web-{}", rng.below(100))}),
    }
}

/// A CRD version's root schema with a generated `spec`.
pub fn root_schema(rng: &mut Rng) -> Value {
    json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": gen_object(rng, 2),
    }})
}

/// A `Widget` (group `example.com`, version `v1`) of `schema`, valid or
/// broken up to two times.
pub fn widget(rng: &mut Rng, schema: &Value, group: &str) -> Value {
    let mut object = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget",
        "metadata": metadata(rng), "spec": gen_value(rng, &schema["properties"]["spec"])});
    for _ in 0..rng.below(3) {
        mutate(rng, &mut object);
    }
    object
}

/// The CRD serving `schema` as `widgets.<group>` version `v1`.
pub fn widget_crd(schema: &Value, group: &str, namespaced: bool) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {"group": group, "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]},
    })
}
