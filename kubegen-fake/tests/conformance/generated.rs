//! Generated scenarios: random Widgets from the scenarios' CRD schema
//! (valid and not: bad enums, bounds, patterns, duplicate set and map
//! keys, unknown fields, the CEL rule broken) and random sequences of
//! what clients do to them: server-side applies by several managers
//! (forced or not), merge patches of spec, labels and status,
//! replacements at the current revision and at a stale one, selected
//! lists, deletions with and without finalizers. A step's code is not
//! known in advance (expect 0): the real apiserver's answer is the
//! expectation.

use kubegen_core::rng::Rng;
use serde_json::{Value, json};

use super::scenarios::widget;
use super::script::{Scenario, apply, patch, req};

const W: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/widgets";
const MERGE: &str = "application/merge-patch+json";

fn spec(rng: &mut Rng) -> Value {
    // Mostly valid; each way of being invalid now and then.
    let mut s = serde_json::Map::new();
    if !rng.chance(1, 15) {
        let colors = [
            "red", "green", "blue", "green", "blue", "red", "blue", "purple",
        ];
        s.insert("color".into(), json!(rng.pick(&colors)));
    }
    if rng.chance(2, 3) {
        let size = if rng.chance(1, 8) {
            *rng.pick(&[0, 11])
        } else {
            1 + rng.below(10)
        };
        s.insert("size".into(), json!(size));
    }
    if rng.chance(1, 2) {
        let labels = ["abc", "web", "db", "cache", "UPPER", "waytoolongforit"];
        s.insert("label".into(), json!(rng.pick(&labels)));
    }
    if rng.chance(1, 3) {
        let mut tags: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .filter(|_| rng.chance(1, 2))
            .collect();
        if rng.chance(1, 6) {
            tags.push("a");
        }
        s.insert("tags".into(), json!(tags));
    }
    if rng.chance(1, 3) {
        let mut ports = Vec::new();
        for n in ["http", "grpc"] {
            if rng.chance(1, 2) {
                ports.push(json!({"name": n, "port": rng.below(70000)}));
            }
        }
        if rng.chance(1, 6) {
            ports.push(json!({"name": "http", "port": 80}));
        }
        s.insert("ports".into(), json!(ports));
    }
    if rng.chance(1, 5) {
        s.insert("extra".into(), json!({"any": {"thing": rng.below(3)}}));
    }
    if rng.chance(1, 8) {
        s.insert("unknownField".into(), json!(true));
    }
    Value::Object(s)
}

fn partial_spec(rng: &mut Rng) -> Value {
    let mut s = spec(rng);
    if let Some(o) = s.as_object_mut() {
        let keys: Vec<String> = o.keys().cloned().collect();
        for k in keys {
            if rng.chance(1, 2) {
                o.remove(&k);
            } else if rng.chance(1, 6) {
                o.insert(k, Value::Null);
            }
        }
    }
    s
}

/// `n` generated scenarios from `seed`.
pub fn scenarios(seed: u64, n: usize) -> Vec<Scenario> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let mut steps = Vec::new();
            let names: Vec<String> = (0..1 + rng.below(3)).map(|k| format!("g{k}")).collect();
            for name in &names {
                let mut w = widget(name, spec(&mut rng));
                w["metadata"]["labels"] = json!({"gen": "y", "k": rng.pick(&["a", "b"])});
                if rng.chance(1, 3) {
                    w["metadata"]["finalizers"] = json!(["example.com/keep"]);
                }
                steps.push(req("POST", W, Some(w), 0));
            }
            for _ in 0..3 + rng.below(6) {
                let name = rng.pick(&names).clone();
                let one = format!("{W}/{name}");
                match rng.below(10) {
                    8 | 9 => {
                        let mut config = widget(&name, partial_spec(&mut rng));
                        if let Some(spec) = config["spec"].as_object_mut() {
                            spec.retain(|_, v| !v.is_null());
                        }
                        if rng.chance(1, 2) {
                            config["metadata"]["labels"] = json!({"gen": "y", "m": rng.pick(&["a", "b"])});
                        }
                        let manager = *rng.pick(&["alice", "bob", "carol"]);
                        steps.push(apply(&one, manager, rng.chance(1, 3), config, 0));
                    }
                    0 | 1 => steps.push(patch(&one, MERGE, json!({"spec": partial_spec(&mut rng)}), 0)),
                    2 => steps.push(patch(&one, MERGE, json!({"metadata": {"labels": {"k": rng.pick(&["a", "b", "c"])}}}), 0)),
                    3 => steps.push(patch(
                        &format!("{one}/status"),
                        MERGE,
                        json!({"status": {"phase": rng.pick(&["Ready", "Pending"]), "observedGeneration": rng.below(4)}}),
                        0,
                    )),
                    4 => {
                        let get = steps.len();
                        steps.push(req("GET", &one, None, 0));
                        let mut w = widget(&name, spec(&mut rng));
                        w["metadata"]["resourceVersion"] = json!(format!("${{{get}:/metadata/resourceVersion}}"));
                        w["metadata"]["labels"] = json!({"gen": "y"});
                        steps.push(req("PUT", &one, Some(w), 0));
                        if rng.chance(1, 3) {
                            // The same revision again: stale now, if the
                            // first one wrote.
                            let mut stale = widget(&name, spec(&mut rng));
                            stale["metadata"]["resourceVersion"] = json!(format!("${{{get}:/metadata/resourceVersion}}"));
                            steps.push(req("PUT", &one, Some(stale), 0));
                        }
                    }
                    5 => steps.push(req("GET", &format!("{W}?labelSelector=gen%2Ck%3D{}", rng.pick(&["a", "b"])), None, 0)),
                    6 => steps.push(req("DELETE", &one, None, 0)),
                    _ => steps.push(patch(&one, MERGE, json!({"metadata": {"finalizers": null}}), 0)),
                }
            }
            steps.push(req("GET", &format!("{W}?labelSelector=gen"), None, 0));
            Scenario {
                name: format!("generated {seed}/{i}"),
                steps,
            }
        })
        .collect()
}
