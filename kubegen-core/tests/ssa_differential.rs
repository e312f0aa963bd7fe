//! `kubegen_core::ssa` against kube-apiserver's own field manager for
//! custom resources, run from k8s.io/apiextensions-apiserver and
//! apimachinery v0.36.3 (`go run ./tests/ssa`: the CRD handler's type
//! converter and `managedfields.NewDefaultCRDFieldManager` for the main
//! resource and for `status`): seeded random schemas (structs, granular
//! and atomic maps, atomic, set and map lists with one or two keys,
//! nesting, preserve-unknown-fields, int-or-string, embedded resources),
//! random objects from them, and random sequences of two to six updates
//! and applies by one to three managers (forced or not, on the main
//! resource or on `status`, some with `managedFields: []`, some
//! configurations of the wrong kind or with unknown fields), plus
//! hand-picked cases for every rule (conflict messages with several
//! conflicts and managers, removal of fields no longer applied, shared
//! ownership, force, the cap on update managers, the last-applied
//! annotation, before-first-apply). Every step is compared: the object
//! with its managedFields (times are logical: the helper gives the
//! entries a step writes the time the Rust side was given), each entry's
//! fieldsV1 byte for byte as structured-merge-diff writes it, and the
//! error `Status` (code, reason, message, causes).
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_SSA_CASES` sets the number of
//! random sequences (default 300), `KUBEGEN_SSA_SEED` the seed;
//! `KUBEGEN_SSA_SHOW=<part of a case name>` prints the cases named so
//! with both answers.

use kubegen_core::rng::Rng;
use kubegen_core::ssa::{
    ApplyError, FieldManager, FieldSet, ObjectType, ResetFields, Timestamp, empty_object,
};
use serde_json::{Map, Value, json};

#[path = "support/differences.rs"]
mod differences;
#[path = "support/go_helper.rs"]
mod go_helper;

const GROUP: &str = "example.com";
const VERSION: &str = "v1";
const KIND: &str = "Widget";
const API_VERSION: &str = "example.com/v1";

// ---------------------------------------------------------------- schemas

const WORDS: &[&str] = &["a", "b", "c"];

fn scalar_schema(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 | 1 => json!({"type": "string"}),
        2 | 3 => json!({"type": "integer"}),
        4 => json!({"type": "boolean"}),
        5 => json!({"type": "string", "format": "date-time"}),
        _ => json!({"x-kubernetes-int-or-string": true}),
    }
}

fn node_schema(rng: &mut Rng, depth: usize) -> Value {
    if depth >= 3 {
        return scalar_schema(rng);
    }
    match rng.below(14) {
        0..=3 => scalar_schema(rng),
        4..=6 => struct_schema(rng, depth),
        7 => {
            let mut s =
                json!({"type": "object", "additionalProperties": node_schema(rng, depth + 1)});
            if rng.chance(1, 3) {
                s["x-kubernetes-map-type"] = json!(*rng.pick(&["atomic", "granular"]));
            }
            s
        }
        8 => {
            let mut s = json!({"type": "array", "items": node_schema(rng, depth + 1)});
            if rng.chance(1, 2) {
                s["x-kubernetes-list-type"] = json!("atomic");
            }
            s
        }
        9 => json!({"type": "array", "x-kubernetes-list-type": "set",
                    "items": {"type": *rng.pick(&["string", "integer"])}}),
        10 | 11 => map_list_schema(rng, depth),
        12 => {
            let mut s = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
            if rng.chance(1, 2) {
                s["properties"] = json!({"known": scalar_schema(rng)});
            }
            s
        }
        _ => json!({"type": "object", "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true}),
    }
}

fn struct_schema(rng: &mut Rng, depth: usize) -> Value {
    let mut props = Map::new();
    for name in ["p", "q", "r", "s"].iter().take(1 + rng.below(4)) {
        props.insert((*name).into(), node_schema(rng, depth + 1));
    }
    let mut s = json!({"type": "object", "properties": props});
    if rng.chance(1, 6) {
        s["x-kubernetes-map-type"] = json!("atomic");
    }
    s
}

fn map_list_schema(rng: &mut Rng, depth: usize) -> Value {
    let two = rng.chance(1, 3);
    let mut props = Map::new();
    props.insert("name".into(), json!({"type": "string"}));
    let mut keys = vec!["name"];
    if two {
        props.insert("port".into(), json!({"type": "integer"}));
        keys.push("port");
    }
    props.insert("v".into(), node_schema(rng, depth + 1));
    if rng.chance(1, 2) {
        props.insert("w".into(), scalar_schema(rng));
    }
    json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys,
           "items": {"type": "object", "required": keys, "properties": props}})
}

fn root_schema(rng: &mut Rng, status: bool) -> Value {
    let mut props = Map::new();
    props.insert("spec".into(), struct_schema(rng, 0));
    if status {
        props.insert("status".into(), struct_schema(rng, 1));
    }
    json!({"type": "object", "properties": props})
}

// ---------------------------------------------------------------- values

fn scalar_value(rng: &mut Rng, schema: &Value) -> Value {
    if schema.get("x-kubernetes-int-or-string").is_some() {
        return if rng.chance(1, 2) {
            json!(rng.below(3))
        } else {
            json!(*rng.pick(&["x", "y"]))
        };
    }
    match schema["type"].as_str() {
        Some("integer") => json!(rng.below(3)),
        Some("boolean") => json!(rng.chance(1, 2)),
        Some("string") if schema.get("format").is_some() => {
            json!(*rng.pick(&["2024-01-01T00:00:00Z", "2024-02-02T00:00:00Z"]))
        }
        _ => json!(*rng.pick(&["x", "y", "z"])),
    }
}

fn value(rng: &mut Rng, schema: &Value) -> Value {
    match rng.below(30) {
        0 => return Value::Null,
        1 if schema["type"] == "object" => return json!({}),
        2 if schema["type"] == "array" => return json!([]),
        _ => {}
    }
    if schema.get("x-kubernetes-embedded-resource").is_some() {
        let mut v = json!({"apiVersion": "v1", "kind": *rng.pick(&["ConfigMap", "Secret"])});
        if rng.chance(1, 2) {
            v["metadata"] = json!({"name": *rng.pick(WORDS)});
        }
        if rng.chance(1, 2) {
            v["data"] = json!({*rng.pick(WORDS): *rng.pick(&["x", "y"])});
        }
        return v;
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut m = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, s) in props {
                    if rng.chance(2, 3) {
                        m.insert(k.clone(), value(rng, s));
                    }
                }
            }
            if let Some(ap) = schema.get("additionalProperties") {
                for _ in 0..rng.below(3) {
                    m.insert((*rng.pick(WORDS)).into(), value(rng, ap));
                }
            }
            if schema.get("x-kubernetes-preserve-unknown-fields").is_some() {
                for _ in 0..rng.below(3) {
                    let v = match rng.below(3) {
                        0 => json!(*rng.pick(&["x", "y"])),
                        1 => json!({*rng.pick(WORDS): rng.below(2)}),
                        _ => json!([rng.below(2)]),
                    };
                    m.insert(format!("u{}", rng.pick(WORDS)), v);
                }
            }
            Value::Object(m)
        }
        Some("array") => {
            let items = &schema["items"];
            let n = rng.below(6);
            match schema["x-kubernetes-list-type"].as_str() {
                Some("set") => {
                    let mut out: Vec<Value> = Vec::new();
                    for _ in 0..n {
                        let v = scalar_value(rng, items);
                        if !out.contains(&v) || rng.chance(1, 25) {
                            out.push(v);
                        }
                    }
                    Value::Array(out)
                }
                Some("map") => {
                    let two = items["properties"].get("port").is_some();
                    let mut out: Vec<Value> = Vec::new();
                    let mut keys = Vec::new();
                    for _ in 0..n {
                        let mut item = value(rng, items);
                        item["name"] = json!(*rng.pick(WORDS));
                        if two {
                            item["port"] = json!(rng.below(2));
                        }
                        let key = (item["name"].clone(), item.get("port").cloned());
                        if !keys.contains(&key) || rng.chance(1, 25) {
                            keys.push(key);
                            out.push(item);
                        }
                    }
                    Value::Array(out)
                }
                _ => Value::Array((0..n).map(|_| value(rng, items)).collect()),
            }
        }
        _ => scalar_value(rng, schema),
    }
}

fn object(rng: &mut Rng, schema: &Value, status: bool) -> Value {
    let mut o = json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "w", "namespace": "default"}});
    o["spec"] = value(rng, &schema["properties"]["spec"]);
    if status && rng.chance(1, 2) {
        o["status"] = value(rng, &schema["properties"]["status"]);
    }
    if rng.chance(1, 4) {
        o["metadata"]["labels"] = json!({*rng.pick(WORDS): *rng.pick(&["x", "y"])});
    }
    if rng.chance(1, 6) {
        o["metadata"]["finalizers"] = json!([*rng.pick(&["f1", "f2"])]);
    }
    if rng.chance(1, 8) {
        o["metadata"]["annotations"] = json!({*rng.pick(WORDS): "v"});
    }
    if rng.chance(1, 10) {
        o["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap",
            "name": *rng.pick(WORDS), "uid": *rng.pick(&["u1", "u2"])}]);
    }
    o
}

/// A random change of an object: values replaced, fields dropped or
/// added, as a client's update makes them.
fn mutate(rng: &mut Rng, v: &Value, schema: &Value, fresh: &Value) -> Value {
    match (v, fresh) {
        (Value::Object(m), Value::Object(f)) if schema["type"] == "object" => {
            let mut out = m.clone();
            for (k, fv) in f {
                let sub = schema["properties"]
                    .get(k)
                    .or_else(|| schema.get("additionalProperties"))
                    .cloned()
                    .unwrap_or(Value::Null);
                match (m.get(k), rng.below(4)) {
                    (Some(old), 0 | 1) if !sub.is_null() => {
                        out.insert(k.clone(), mutate(rng, old, &sub, fv));
                    }
                    (_, 2) => {
                        out.insert(k.clone(), fv.clone());
                    }
                    _ => {}
                }
            }
            for k in m.keys() {
                if rng.chance(1, 6) {
                    out.remove(k);
                }
            }
            Value::Object(out)
        }
        (Value::Array(items), _) if rng.chance(1, 3) => {
            // Reordered, and maybe one item dropped.
            let mut items: Vec<Value> = items.iter().rev().cloned().collect();
            if !items.is_empty() && rng.chance(1, 2) {
                items.remove(rng.below(items.len()));
            }
            Value::Array(items)
        }
        _ => {
            if rng.chance(1, 2) {
                fresh.clone()
            } else {
                v.clone()
            }
        }
    }
}

// ---------------------------------------------------------------- cases

/// One case: a CRD schema, the stored object (absent: a create), steps.
#[derive(Clone)]
struct Case {
    schema: Value,
    status: bool,
    live: Option<Value>,
    steps: Vec<Value>,
}

impl Case {
    fn line(&self) -> String {
        json!({"schema": self.schema, "group": GROUP, "version": VERSION, "kind": KIND,
               "statusSubresource": self.status, "live": self.live, "steps": self.steps})
        .to_string()
    }
}

fn step(op: &str, manager: &str, object: Value) -> Value {
    json!({"op": op, "manager": manager, "object": object, "force": false, "subresource": ""})
}

fn random_case(rng: &mut Rng) -> Case {
    let status = rng.chance(1, 3);
    let schema = root_schema(rng, status);
    let managers = ["alpha", "beta", "kubectl"];
    let nmanagers = 1 + rng.below(3);
    let live = if rng.chance(1, 2) {
        None
    } else {
        let mut o = object(rng, &schema, status);
        o["metadata"]["uid"] = json!("7d1a4e9c");
        Some(o)
    };
    // What the client side believes the object is, to base updates on.
    let mut current = live.clone().unwrap_or_else(|| object(rng, &schema, status));
    let mut steps = Vec::new();
    let mut applied: std::collections::BTreeMap<&str, Value> = Default::default();
    for _ in 0..2 + rng.below(5) {
        let manager = managers[rng.below(nmanagers)];
        let sub = if status && rng.chance(1, 4) {
            "status"
        } else {
            ""
        };
        if rng.chance(1, 2) {
            let fresh = object(rng, &schema, status);
            let mut config = match applied.get(manager) {
                Some(previous) if rng.chance(2, 3) => {
                    let mut c = mutate(rng, previous, &schema, &fresh);
                    for k in ["apiVersion", "kind", "metadata"] {
                        c[k] = previous[k].clone();
                    }
                    c
                }
                _ => fresh,
            };
            if manager == "kubectl" && rng.chance(1, 2) {
                let mut last = config.clone();
                if let Some(m) = last["metadata"].as_object_mut() {
                    m.remove("annotations");
                }
                config["metadata"]["annotations"] =
                    json!({"kubectl.kubernetes.io/last-applied-configuration": last.to_string()});
            }
            applied.insert(manager, config.clone());
            if sub == "status" {
                config.as_object_mut().unwrap().remove("spec");
            }
            match rng.below(40) {
                0 => config["kind"] = json!("Gadget"),
                // Alone: Go stops at an undeclared field after the errors
                // of the entries its random map order visited first.
                1 => config["spec"] = json!({"zz": 1}),
                2 => config["metadata"]["managedFields"] = json!([]),
                _ => {}
            }
            let mut s = step("apply", manager, config);
            s["force"] = json!(rng.chance(1, 4));
            s["subresource"] = json!(sub);
            steps.push(s);
        } else {
            let fresh = object(rng, &schema, status);
            let mut new = mutate(rng, &current, &schema, &fresh);
            for k in ["apiVersion", "kind", "metadata"] {
                new[k] = current[k].clone();
            }
            match rng.below(12) {
                0 => new["metadata"]["managedFields"] = json!([]),
                1 => {
                    if let Some(m) = new["metadata"].as_object_mut() {
                        m.remove("managedFields");
                    }
                }
                _ => {}
            }
            current = new.clone();
            let mut s = step("update", manager, new);
            s["subresource"] = json!(sub);
            steps.push(s);
        }
    }
    Case {
        schema,
        status,
        live,
        steps,
    }
}

/// Cases for every rule, by hand.
fn hand_picked() -> Vec<(&'static str, Case)> {
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name", "protocol"],
                      "items": {"type": "object", "required": ["name"], "properties": {
                          "name": {"type": "string"},
                          "protocol": {"type": "string", "default": "TCP"},
                          "port": {"type": "integer"}}}},
            "atomic": {"type": "object", "x-kubernetes-map-type": "atomic",
                       "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
            "list": {"type": "array", "items": {"type": "string"}}}},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}});
    let obj = |spec: Value| {
        json!({"apiVersion": API_VERSION, "kind": KIND,
               "metadata": {"name": "w", "namespace": "default"}, "spec": spec})
    };
    let case = |live: Option<Value>, steps: Vec<Value>| Case {
        schema: schema.clone(),
        status: true,
        live,
        steps,
    };
    let forced = |mut s: Value| {
        s["force"] = json!(true);
        s
    };
    let mut cases = vec![
        (
            "several conflicts with several managers",
            case(
                None,
                vec![
                    step("apply", "one", obj(json!({"a": "1", "b": "1"}))),
                    step("update", "two", obj(json!({"a": "1", "b": "1", "c": 1}))),
                    step("apply", "three", obj(json!({"a": "3", "b": "3", "c": 3}))),
                    step("apply", "three", obj(json!({"a": "3"}))),
                ],
            ),
        ),
        (
            "fields no longer applied are removed",
            case(
                None,
                vec![
                    step(
                        "apply",
                        "one",
                        obj(json!({"a": "1", "b": "1", "tags": ["x", "y"],
                        "ports": [{"name": "http", "port": 80}, {"name": "dns", "protocol": "UDP", "port": 53}]})),
                    ),
                    step(
                        "apply",
                        "one",
                        obj(json!({"a": "1", "tags": ["y"],
                        "ports": [{"name": "dns", "protocol": "UDP", "port": 53}]})),
                    ),
                ],
            ),
        ),
        (
            "shared ownership keeps a field",
            case(
                None,
                vec![
                    step("apply", "one", obj(json!({"a": "1", "b": "2"}))),
                    step("apply", "two", obj(json!({"a": "1"}))),
                    step("apply", "one", obj(json!({"b": "2"}))),
                    step("apply", "two", obj(json!({}))),
                ],
            ),
        ),
        (
            "force takes ownership",
            case(
                None,
                vec![
                    step("apply", "one", obj(json!({"a": "1", "atomic": {"x": "1"}}))),
                    forced(step(
                        "apply",
                        "two",
                        obj(json!({"a": "2", "atomic": {"y": "2"}})),
                    )),
                    step("apply", "one", obj(json!({"a": "1"}))),
                ],
            ),
        ),
        (
            "an update of an object without managed fields does not track them; the first apply credits before-first-apply",
            case(
                Some(json!({"apiVersion": API_VERSION, "kind": KIND,
                    "metadata": {"name": "w", "namespace": "default", "uid": "u1"},
                    "spec": {"a": "0", "b": "0"}})),
                vec![
                    step(
                        "update",
                        "one",
                        json!({"apiVersion": API_VERSION, "kind": KIND,
                        "metadata": {"name": "w", "namespace": "default", "uid": "u1"},
                        "spec": {"a": "1", "b": "0"}}),
                    ),
                    step("apply", "two", obj(json!({"a": "2"}))),
                    step("apply", "three", obj(json!({"b": "3"}))),
                ],
            ),
        ),
        (
            "managedFields: [] resets",
            case(
                None,
                vec![
                    step("apply", "one", obj(json!({"a": "1"}))),
                    step("update", "two", {
                        let mut o = obj(json!({"a": "1", "b": "2"}));
                        o["metadata"]["managedFields"] = json!([]);
                        o
                    }),
                ],
            ),
        ),
        (
            "bad configurations",
            case(
                None,
                vec![
                    step(
                        "apply",
                        "one",
                        json!({"apiVersion": API_VERSION, "kind": "Gadget", "metadata": {"name": "w"}}),
                    ),
                    step(
                        "apply",
                        "one",
                        json!({"apiVersion": "example.com/v2", "kind": KIND, "metadata": {"name": "w"}}),
                    ),
                    step(
                        "apply",
                        "one",
                        json!({"kind": KIND, "metadata": {"name": "w"}}),
                    ),
                    step(
                        "apply",
                        "one",
                        json!({"apiVersion": API_VERSION, "kind": KIND,
                        "metadata": {"name": "w", "managedFields": [{"manager": "x"}]}}),
                    ),
                    step("apply", "one", obj(json!({"zz": 1}))),
                    step("apply", "one", obj(json!({"tags": ["x", "x"]}))),
                    step("apply", "one", obj(json!({"c": "three"}))),
                    step("apply", "one", obj(json!({"a": 3}))),
                    step("apply", "one", obj(json!({"ports": [{"port": 1}]}))),
                    step(
                        "apply",
                        "one",
                        obj(json!({"ports": [{"name": "a"}, {"name": "a", "protocol": "TCP"}]})),
                    ),
                    step("apply", "", obj(json!({"a": "unknown manager"}))),
                ],
            ),
        ),
        (
            "status subresource",
            case(
                None,
                vec![
                    step("apply", "one", obj(json!({"a": "1"}))),
                    {
                        let mut s = step(
                            "apply",
                            "ctrl",
                            json!({"apiVersion": API_VERSION, "kind": KIND,
                            "metadata": {"name": "w"}, "status": {"phase": "Ready"}, "spec": {"a": "9"}}),
                        );
                        s["subresource"] = json!("status");
                        s
                    },
                    {
                        let mut o = obj(json!({"a": "1"}));
                        o["status"] = json!({"phase": "Done"});
                        let mut s = step("update", "ctrl", o);
                        s["subresource"] = json!("status");
                        s
                    },
                    step("apply", "one", {
                        let mut o = obj(json!({"a": "1"}));
                        o["status"] = json!({"phase": "Main"});
                        o
                    }),
                ],
            ),
        ),
    ];
    // Twelve update managers: the oldest fold into ancient-changes.
    let mut steps = vec![step("apply", "applier", obj(json!({"a": "0"})))];
    for i in 0..12 {
        steps.push(step(
            "update",
            [
                "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10", "m11",
            ][i],
            obj(json!({"a": "0", "labels": {format!("k{i}"): "v"}})),
        ));
    }
    cases.push(("update managers capped at ten", case(None, steps)));
    // kubectl upgrading from client-side apply: conflicts with fields the
    // last-applied annotation shows it set are allowed.
    let last = json!({"apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": "w", "namespace": "default"}, "spec": {"a": "1", "b": "1"}});
    let mut live = obj(json!({"a": "1", "b": "1", "c": 5}));
    live["metadata"]["annotations"] =
        json!({"kubectl.kubernetes.io/last-applied-configuration": last.to_string()});
    live["metadata"]["uid"] = json!("u2");
    live["metadata"]["managedFields"] = json!([{"manager": "kubectl-client-side-apply",
        "operation": "Update", "apiVersion": API_VERSION, "time": "2019-01-01T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {},
        "f:kubectl.kubernetes.io/last-applied-configuration": {}}}, "f:spec": {".": {}, "f:a": {}, "f:b": {}, "f:c": {}}}}]);
    cases.push((
        "kubectl's last-applied annotation",
        case(
            Some(live.clone()),
            vec![
                step("apply", "kubectl", obj(json!({"a": "2", "b": "1"}))),
                step("apply", "kubectl", obj(json!({"a": "2", "c": 6}))),
                step("apply", "kubectl", {
                    let mut o = obj(json!({"a": "2"}));
                    o["metadata"]["annotations"] = json!({"note": "<x>"});
                    o
                }),
            ],
        ),
    ));
    cases.push((
        "another manager gets no last-applied allowance",
        case(
            Some(live),
            vec![step("apply", "other", obj(json!({"a": "2"})))],
        ),
    ));
    cases
}

// ---------------------------------------------------------------- running

/// The Rust side's answers to a case, as the helper writes them.
fn run(case: &Case) -> Vec<Value> {
    let ty = ObjectType::for_custom_resource(&case.schema, false).expect("schema converts");
    let main = FieldManager::new(&ty, API_VERSION, KIND).with_reset_fields(if case.status {
        ResetFields::Status
    } else {
        ResetFields::None
    });
    let status = FieldManager::new(&ty, API_VERSION, KIND)
        .with_subresource("status")
        .with_reset_fields(ResetFields::MetadataAndSpec);
    let mut live = case
        .live
        .clone()
        .unwrap_or_else(|| empty_object(API_VERSION, KIND));
    let mut out = Vec::new();
    for (k, s) in case.steps.iter().enumerate() {
        let fm = if s["subresource"] == "status" {
            &status
        } else {
            &main
        };
        let now = Timestamp::parse(&format!("2020-01-01T00:{:02}:00Z", k + 1)).unwrap();
        let manager = s["manager"].as_str().unwrap();
        let result = match s["op"].as_str() {
            Some("update") => Ok(fm.update(&live, s["object"].clone(), manager, now)),
            _ => fm.apply(&live, &s["object"], manager, s["force"] == true, now),
        };
        match result {
            Ok(obj) => {
                let fields: Vec<Value> = obj["metadata"]["managedFields"]
                    .as_array()
                    .map(|entries| {
                        entries
                            .iter()
                            .map(|e| {
                                json!(FieldSet::from_fields_v1(&e["fieldsV1"]).unwrap().to_json())
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let mut answer = json!({"object": obj});
                if !fields.is_empty() {
                    answer["fields"] = Value::Array(fields);
                }
                out.push(answer);
                live = obj;
            }
            Err(e) => out.push(json!({"error": error_json(&e)})),
        }
    }
    out
}

fn error_json(e: &ApplyError) -> Value {
    let causes: Vec<Value> = e
        .causes
        .iter()
        .map(|c| json!({"type": c.kind, "message": c.message, "field": c.field}))
        .collect();
    json!({"code": e.code, "reason": e.reason, "message": e.message, "causes": causes})
}

/// An error with the lines of a several-error message sorted: Go lists
/// the errors of a map's entries in its map's random order.
fn sorted_errors(e: &Value) -> Value {
    let mut e = e.clone();
    if let Some(msg) = e["message"].as_str()
        && let Some((head, rest)) = msg.split_once("errors:\n")
    {
        let mut lines: Vec<&str> = rest.split('\n').collect();
        lines.sort();
        e["message"] = json!(format!("{head}errors:\n{}", lines.join("\n")));
    }
    e
}

/// The differences between the Go answer and the Rust one, step by step.
fn differences(
    name: &str,
    case: &Case,
    go: &Value,
    rust: &[Value],
    out: &mut Vec<String>,
) -> usize {
    if let Some(setup) = go.get("setup") {
        out.push(format!(
            "{name}: the helper failed: {setup}\n  case: {}",
            case.line()
        ));
        return 0;
    }
    let go_steps = go["steps"].as_array().cloned().unwrap_or_default();
    let mut compared = 0;
    for (i, (g, r)) in go_steps.iter().zip(rust).enumerate() {
        compared += 1;
        let same_step = match (g.get("error"), r.get("error")) {
            (Some(ge), Some(re)) => sorted_errors(ge) == sorted_errors(re),
            (None, None) => {
                differences::same(&g["object"], &r["object"]) && g.get("fields") == r.get("fields")
            }
            _ => false,
        };
        if !same_step {
            out.push(format!(
                "{name}: step {} ({}) differs\n  go:   {g}\n  rust: {r}\n  case: {}",
                i + 1,
                case.steps[i]["op"],
                case.line()
            ));
            return compared;
        }
    }
    if go_steps.len() != rust.len() {
        out.push(format!(
            "{name}: {} steps from go, {} from rust",
            go_steps.len(),
            rust.len()
        ));
    }
    compared
}

#[test]
fn field_management_agrees_with_the_apiservers() {
    let cases: usize = std::env::var("KUBEGEN_SSA_CASES").map_or(300, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_SSA_SEED").map_or(7, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0x55a);
    let mut all: Vec<(String, Case)> = hand_picked()
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    for i in 0..cases {
        all.push((format!("random #{i} (seed {seed})"), random_case(&mut rng)));
    }
    let lines: Vec<String> = all.iter().map(|(_, c)| c.line()).collect();
    let answers = go_helper::run("ssa", &[], &lines);
    let mut diffs = Vec::new();
    let (mut steps, mut errors, mut conflicts) = (0, 0, 0);
    let show = std::env::var("KUBEGEN_SSA_SHOW").ok();
    for ((name, case), go) in all.iter().zip(&answers) {
        let rust = run(case);
        if show.as_deref().is_some_and(|s| name.contains(s)) {
            println!(
                "{name}\n  case: {}\n  go:   {go}\n  rust: {}",
                case.line(),
                json!(rust)
            );
        }
        for r in &rust {
            if let Some(e) = r.get("error") {
                errors += 1;
                if e["code"] == 409 {
                    conflicts += 1;
                }
            }
        }
        steps += differences(name, case, go, &rust, &mut diffs);
    }
    println!(
        "{} sequences ({} hand-picked), {steps} steps compared, {errors} errors ({conflicts} conflicts), {} differences",
        all.len(),
        all.len() - cases,
        diffs.len()
    );
    differences::assert_none(&diffs, 5);
}
