//! `#[kubegen(apply)]`: apply configurations derived from Rust types.
//!
//! - every value of the type, serialized by serde, reads into its apply
//!   configuration and writes back byte for byte (generated values: the
//!   configuration has the type's JSON names and shapes — renames,
//!   `rename_all`, raw identifiers, flattened fields, skipped fields,
//!   enums, k8s-openapi types, maps and lists of derived types);
//! - an empty configuration serializes as `{}`, a set field as itself;
//! - builders append to lists and insert into maps;
//! - `extract` of a stored object reads back what one manager owns, by the
//!   CRD's schema (list-map items by key);
//! - the root's `new`, metadata builders and `ApplyConfiguration` impl.

#![allow(missing_docs)]

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use kubegen::apply::{Applicable, ApplyConfiguration};
use kubegen::{CustomResource, KubeSchema};
use kubegen_core::rng::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A shop.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "apply.example.com",
    version = "v1",
    kind = "Shop",
    namespaced,
    status = "ShopStatus",
    apply
)]
#[serde(rename_all = "camelCase")]
pub struct ShopSpec {
    /// The image.
    pub image: String,
    #[serde(
        rename = "replicaCount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[kubegen(list_type = "map", list_map_keys = ["name"])]
    pub routes: Vec<Route>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub backends: BTreeMap<String, Backend>,
    pub mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<PodTemplateSpec>,
    #[serde(flatten)]
    pub tuning: Tuning,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[kubegen(schemaless)]
    pub raw: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    #[serde(skip)]
    pub cache: u32,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<String>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
pub struct Backend {
    pub weight: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Box<Route>>,
}

/// Applied whole: enums are one value.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(apply)]
pub enum Mode {
    Fast,
    Safe,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kubegen(apply)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Tuning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<u16>,
}

#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kubegen(apply)]
#[serde(rename_all = "camelCase")]
pub struct ShopStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
}

fn word(rng: &mut Rng) -> String {
    (0..=rng.below(6))
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect()
}

fn route(rng: &mut Rng, name: String) -> Route {
    Route {
        name,
        path_prefix: rng.chance(1, 2).then(|| format!("/{}", word(rng))),
        methods: (0..rng.below(3)).map(|_| word(rng)).collect(),
    }
}

/// A random spec: each optional part present or not.
fn spec(rng: &mut Rng) -> ShopSpec {
    let template: PodTemplateSpec = serde_json::from_value(json!({
        "metadata": {"labels": {"app": word(rng)}},
        "spec": {"containers": [{"name": word(rng), "image": word(rng)}]},
    }))
    .unwrap();
    ShopSpec {
        image: word(rng),
        replicas: rng.chance(1, 2).then(|| rng.below(10) as i32),
        routes: (0..rng.below(3))
            .map(|i| route(rng, format!("r{i}")))
            .collect(),
        labels: (0..rng.below(3)).map(|_| (word(rng), word(rng))).collect(),
        backends: (0..rng.below(3))
            .map(|_| {
                let name = word(rng);
                let route = rng.chance(1, 2).then(|| Box::new(route(rng, name.clone())));
                let weight = rng.below(100) as u32;
                (name, Backend { weight, route })
            })
            .collect(),
        mode: if rng.chance(1, 2) {
            Mode::Fast
        } else {
            Mode::Safe
        },
        template: rng.chance(1, 2).then_some(template),
        tuning: Tuning {
            max_connections: rng.chance(1, 2).then(|| rng.below(1000) as u16),
        },
        raw: rng.chance(1, 2).then(|| json!({"any": [word(rng)]})),
        r#type: rng.chance(1, 2).then(|| word(rng)),
        cache: rng.below(9) as u32,
    }
}

/// How many random specs the round trip reads.
const CASES: u64 = 500;

#[test]
fn every_value_reads_into_its_apply_configuration_and_back() {
    for seed in 0..CASES {
        let mut rng = Rng::new(seed);
        let spec = spec(&mut rng);
        let written = serde_json::to_value(&spec).unwrap();
        let config: ShopSpecApply = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&config).unwrap(),
            written,
            "seed {seed}"
        );
        let mut object = Shop::new("s", spec);
        object.metadata.namespace = Some("ns".into());
        object.status = Some(ShopStatus {
            ready_replicas: Some(seed as i32),
        });
        let written = serde_json::to_value(&object).unwrap();
        let root: ShopApply = serde_json::from_value(written.clone()).unwrap();
        assert_eq!(serde_json::to_value(&root).unwrap(), written, "seed {seed}");
    }
}

#[test]
fn only_the_fields_set_are_written() {
    assert_eq!(
        serde_json::to_value(ShopSpecApply::default()).unwrap(),
        json!({})
    );
    let config = ShopSpecApply::default()
        .with_replicas(3)
        .with_type("edge")
        .with_mode(Mode::Safe)
        .with_tuning(TuningApply::default().with_max_connections(10u16))
        .with_routes([RouteApply::default().with_name("a")])
        .with_routes([RouteApply::default()
            .with_name("b")
            .with_methods(["GET".to_string()])])
        .with_labels([("x".to_string(), "1".to_string())])
        .with_labels([
            ("x".to_string(), "2".to_string()),
            ("y".to_string(), "3".to_string()),
        ])
        .with_backends([(
            "main".to_string(),
            BackendApply::default().with_route(RouteApply::default().with_path_prefix("/")),
        )]);
    assert_eq!(
        serde_json::to_value(&config).unwrap(),
        json!({
            "replicaCount": 3,
            "type": "edge",
            "mode": "Safe",
            "MAX_CONNECTIONS": 10,
            "routes": [{"name": "a"}, {"name": "b", "methods": ["GET"]}],
            "labels": {"x": "2", "y": "3"},
            "backends": {"main": {"route": {"pathPrefix": "/"}}},
        })
    );
}

fn apply_of<T: Applicable>() -> &'static str {
    std::any::type_name::<T::Apply>()
}

#[test]
fn enums_and_k8s_openapi_types_are_applied_whole() {
    assert!(apply_of::<Mode>().ends_with("::Mode"));
    assert!(apply_of::<Route>().ends_with("::RouteApply"));
    assert!(apply_of::<PodTemplateSpec>().ends_with("::PodTemplateSpec"));
}

#[test]
fn the_root_is_a_namespaced_apply_configuration() {
    let shop = ShopApply::new("web", "shops")
        .with_labels([("team", "a")])
        .with_spec(ShopSpecApply::default().with_image("nginx"))
        .with_status(ShopStatusApply::default().with_ready_replicas(1));
    assert_eq!(
        serde_json::to_value(&shop).unwrap(),
        json!({
            "apiVersion": "apply.example.com/v1",
            "kind": "Shop",
            "metadata": {"name": "web", "namespace": "shops", "labels": {"team": "a"}},
            "spec": {"image": "nginx"},
            "status": {"readyReplicas": 1},
        })
    );
    assert_eq!(shop.metadata().and_then(|m| m.name.as_deref()), Some("web"));
    let schema = ShopApply::schema().unwrap().to_value();
    assert_eq!(
        schema["properties"]["spec"]["properties"]["routes"]["x-kubernetes-list-type"],
        "map"
    );
}

/// A stored Shop two managers wrote: `a` the image and route `r0`, `b`
/// route `r1` and the replica count; the status by `a` through the
/// status subresource.
fn stored() -> Shop {
    serde_json::from_value(json!({
        "apiVersion": "apply.example.com/v1",
        "kind": "Shop",
        "metadata": {
            "name": "web", "namespace": "shops", "labels": {"team": "a"},
            "managedFields": [
                {"manager": "a", "operation": "Apply", "apiVersion": "apply.example.com/v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:labels": {"f:team": {}}},
                    "f:spec": {"f:image": {}, "f:mode": {}, "f:routes": {
                        "k:{\"name\":\"r0\"}": {".": {}, "f:name": {}, "f:pathPrefix": {}}}}}},
                {"manager": "b", "operation": "Apply", "apiVersion": "apply.example.com/v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:spec": {"f:replicaCount": {}, "f:routes": {
                        "k:{\"name\":\"r1\"}": {".": {}, "f:name": {}}}}}},
                {"manager": "a", "operation": "Apply", "apiVersion": "apply.example.com/v1",
                 "subresource": "status", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:status": {"f:readyReplicas": {}}}},
            ],
        },
        "spec": {
            "image": "nginx", "replicaCount": 2, "mode": "Fast",
            "routes": [{"name": "r0", "pathPrefix": "/a"}, {"name": "r1"}],
        },
        "status": {"readyReplicas": 2},
    }))
    .unwrap()
}

#[test]
fn extract_reads_back_what_each_manager_owns() {
    let shop = stored();
    let a = ShopApply::extract(&shop, "a").unwrap();
    assert_eq!(
        a,
        ShopApply::new("web", "shops")
            .with_labels([("team", "a")])
            .with_spec(
                ShopSpecApply::default()
                    .with_image("nginx")
                    .with_mode(Mode::Fast)
                    .with_routes([RouteApply::default().with_name("r0").with_path_prefix("/a")])
            )
    );
    let b = ShopApply::extract(&shop, "b").unwrap();
    assert_eq!(
        serde_json::to_value(&b).unwrap()["spec"],
        json!({"replicaCount": 2, "routes": [{"name": "r1"}]})
    );
    let status = ShopApply::extract_status(&shop, "a").unwrap();
    assert_eq!(
        status.status,
        Some(ShopStatusApply::default().with_ready_replicas(2))
    );
    assert_eq!(status.spec, None);
}
