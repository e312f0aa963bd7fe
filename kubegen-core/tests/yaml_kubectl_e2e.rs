//! The YAML emitter against kubectl's parser and the real apiserver: a CRD
//! whose enum, default and descriptions are hostile strings, and a custom
//! resource carrying arbitrary nested values with hostile keys, are written
//! by `to_yaml`, created with `kubectl create -f`, read back as JSON through
//! the API and compared with the values we meant.

use std::time::Duration;

use kubegen_client::api::{Api, DynamicObject};
use kubegen_client::core::{ApiResource, GroupVersionKind};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_core::output::to_yaml;
use kubegen_testenv::{TestEnv, eventually};

#[path = "support/differences.rs"]
mod differences;
mod support;
use support::hostile::{SPECIAL, any_string, any_value};

/// `count` values drawn from `strategy` with a fixed seed (reproducible).
fn sample<S: Strategy>(strategy: S, count: usize) -> Vec<S::Value> {
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// Drops what the apiserver cannot hold exactly: integers beyond `i64`
/// (stored as floats by every Kubernetes JSON decoder).
fn storable(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_u64() && n.as_i64().is_none() => Value::Null,
        Value::Array(a) => Value::Array(a.into_iter().map(storable).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, storable(v))).collect()),
        other => other,
    }
}

fn kubectl_create(env: &TestEnv, yaml: &str, name: &str) {
    let path = env.dir().join(format!("{name}.yaml"));
    std::fs::write(&path, yaml).unwrap();
    let out = env
        .kubectl()
        .arg("create")
        .arg("-f")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl create -f {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn kubectl_reads_our_yaml_as_we_meant_it() {
    let env = TestEnv::shared().await.unwrap();
    let client = env.client().await.unwrap();

    // Hostile strings in the places users put them: enum values, the
    // default, descriptions.
    let mut strings: Vec<String> = SPECIAL.iter().map(|s| s.to_string()).collect();
    strings.extend(sample(any_string(), 300));
    strings.sort();
    strings.dedup();
    let description = strings.join("|");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "hostiles.yaml.kubegen.dev"},
        "spec": {
            "group": "yaml.kubegen.dev",
            "names": {"kind": "Hostile", "plural": "hostiles", "singular": "hostile", "listKind": "HostileList"},
            "scope": "Cluster",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": description,
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "mode": {
                                    "type": "string",
                                    "enum": strings,
                                    "default": strings[strings.len() / 2],
                                    "description": strings[1],
                                },
                                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                            },
                        },
                    },
                }},
            }],
        },
    });
    kubectl_create(env, &to_yaml(&crd), "crd");
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let stored =
        serde_json::to_value(crds.get("hostiles.yaml.kubegen.dev").await.unwrap()).unwrap();
    let schema = &stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(schema["description"], description);
    let mode = &schema["properties"]["spec"]["properties"]["mode"];
    assert_eq!(mode["enum"], json!(strings));
    assert_eq!(mode["default"], json!(strings[strings.len() / 2]));
    assert_eq!(mode["description"], json!(strings[1]));
    eprintln!(
        "kubectl read {} hostile enum strings exactly",
        strings.len()
    );

    // Arbitrary nested values with hostile keys, through a custom resource.
    eventually(Duration::from_secs(60), "CRD established", || async {
        let crd = crds.get("hostiles.yaml.kubegen.dev").await?;
        let established = crd
            .status
            .and_then(|s| s.conditions)
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True");
        Ok(established.then_some(()))
    })
    .await
    .unwrap();
    let gvk = GroupVersionKind::gvk("yaml.kubegen.dev", "v1", "Hostile");
    let hostiles: Api<DynamicObject> = Api::all_with(client, &ApiResource::from_gvk(&gvk));
    let values: Vec<Value> = sample(any_value(), 40).into_iter().map(storable).collect();
    for (i, value) in values.iter().enumerate() {
        let name = format!("h{i}");
        let object = json!({
            "apiVersion": "yaml.kubegen.dev/v1",
            "kind": "Hostile",
            "metadata": {"name": name},
            "spec": {"mode": strings[0], "free": {"value": value}},
        });
        kubectl_create(env, &to_yaml(&object), &name);
        let back = hostiles.get(&name).await.unwrap();
        let got = &back.data["spec"]["free"]["value"];
        assert!(
            differences::same(got, value),
            "{name}: sent\n{value}\nread back\n{got}"
        );
    }
    eprintln!(
        "kubectl read {} arbitrary nested values exactly",
        values.len()
    );
}
