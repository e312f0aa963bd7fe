//! Unit tests of the built-in table and the inliner: hand-written
//! definitions for each rule, and the real table for every type.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::*;
use crate::rt::KubeSchema;
use k8s_openapi::api::core::v1::PodTemplateSpec;

fn defs(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("definitions are an object"),
    }
}

fn r(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

const IOS: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

#[test]
fn refs_are_inlined_with_the_outer_default_and_description() {
    let d = defs(json!({
        "A": {"type": "object", "description": "A's own", "properties": {
            "b": {"allOf": [r("B")], "default": {}, "description": "the b"},
            "bs": {"type": "array", "items": {"allOf": [r("B")], "default": {}}},
            "plain": r("B"),
        }},
        "B": {"type": "object", "description": "B's own", "properties": {"x": {"type": "string"}}},
    }));
    let s = inline(&d, "A").unwrap();
    assert_eq!(
        s["properties"]["b"],
        json!({"type": "object", "default": {}, "description": "the b", "properties": {"x": {"type": "string"}}})
    );
    assert_eq!(s["properties"]["bs"]["items"]["default"], json!({}));
    assert_eq!(s["properties"]["plain"]["description"], "B's own");
    assert_eq!(s["description"], "A's own");
    assert!(!s.to_string().contains("$ref") && !s.to_string().contains("allOf"));
}

#[test]
fn int_or_string_and_quantity_take_the_apiserver_shape_and_keep_their_description() {
    let table = &table().unwrap().definitions;
    for name in [IOS, "io.k8s.apimachinery.pkg.api.resource.Quantity"] {
        let s = inline(table, name).unwrap();
        let mut expected = json!({
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}],
        });
        expected["description"] = table[name]["description"].clone();
        assert_eq!(s, expected, "{name}");
    }
    // Inside a property, the property's description wins.
    let d = defs(json!({
        "P": {"type": "object", "properties": {"port": {"allOf": [r(IOS)], "description": "the port"}}},
        IOS: table[IOS].clone(),
    }));
    let s = inline(&d, "P").unwrap();
    assert_eq!(s["properties"]["port"]["description"], "the port");
    assert_eq!(s["properties"]["port"]["x-kubernetes-int-or-string"], true);
    assert!(s["properties"]["port"].get("oneOf").is_none());
    assert!(s["properties"]["port"].get("format").is_none());
}

#[test]
fn mapped_definitions() {
    let table = &table().unwrap().definitions;
    let get = |n: &str| {
        let mut s = inline(table, n).unwrap();
        assert!(s["description"].is_string(), "{n} keeps its description");
        s.as_object_mut().unwrap().remove("description");
        s
    };
    let meta = "io.k8s.apimachinery.pkg.apis.meta.v1";
    let date_time = json!({"type": "string", "format": "date-time"});
    assert_eq!(get(&format!("{meta}.Time")), date_time);
    assert_eq!(get(&format!("{meta}.MicroTime")), date_time);
    let object = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    assert_eq!(get("io.k8s.apimachinery.pkg.runtime.RawExtension"), object);
    assert_eq!(get(&format!("{meta}.FieldsV1")), object);
    let json_def = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON";
    assert_eq!(
        get(json_def),
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
}

#[test]
fn recursion_is_cut_where_it_recurs() {
    let d = defs(json!({
        "N": {"type": "object", "properties": {
            "next": {"allOf": [r("N")], "description": "the next"},
            "children": {"type": "array", "items": r("N")},
            "value": {"type": "string"},
        }},
    }));
    let s = inline(&d, "N").unwrap();
    let cut: Value = serde_json::from_str(RECURSION).unwrap();
    assert_eq!(s["properties"]["children"]["items"], cut);
    let mut next = cut.clone();
    next["description"] = "the next".into();
    assert_eq!(s["properties"]["next"], next);
    assert_eq!(s["properties"]["value"]["type"], "string");
    // The real recursive definition.
    let props = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
    let s = schema(props).unwrap().unwrap();
    assert_eq!(
        s["properties"]["not"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert_eq!(
        s["properties"]["properties"]["additionalProperties"]["type"],
        "object"
    );
    assert_eq!(
        s["properties"]["items"],
        json!({"x-kubernetes-preserve-unknown-fields": true, "description": s["properties"]["items"]["description"]})
    );
}

#[test]
fn keys_a_crd_cannot_hold_are_dropped_but_property_names_are_data() {
    let d = defs(json!({
        "A": {
            "type": "object",
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "A", "version": "v1"}],
            "x-kubernetes-unions": [{"discriminator": "type"}],
            "properties": {
                "list": {"type": "array", "items": {"type": "string"},
                    "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name",
                    "x-kubernetes-list-type": "set"},
                "readOnly": {"type": "boolean", "readOnly": true},
            },
        },
    }));
    let s = inline(&d, "A").unwrap();
    assert_eq!(
        s,
        json!({"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "readOnly": {"type": "boolean"},
        }})
    );
}

#[test]
fn keywords_a_crd_rejects_are_errors_not_losses() {
    let d = defs(json!({
        "A": {"type": "object", "properties": {"a": {"type": "string", "discriminator": "x"}}},
        "U": {"description": "no type"},
        "R": {"type": "object", "properties": {"a": r("Missing")}},
    }));
    let e = inline(&d, "A").unwrap_err();
    assert!(
        e.message.contains("unknown schema keyword `discriminator`"),
        "{e}"
    );
    let e = inline(&d, "U").unwrap_err();
    assert!(e.message.contains("type must not be empty"), "{e}");
    let e = inline(&d, "R").unwrap_err();
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("R.a", "no definition `Missing`")
    );
}

#[test]
fn object_defaults_missing_a_required_property_are_dropped() {
    let d = defs(json!({
        "A": {"type": "object", "properties": {
            "strict": {"allOf": [r("B")], "default": {}},
            "filled": {"allOf": [r("B")], "default": {"name": "x"}},
            "loose": {"allOf": [r("C")], "default": {}},
        }},
        "B": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "C": {"type": "object", "properties": {"name": {"type": "string"}}},
    }));
    let s = inline(&d, "A").unwrap();
    assert!(s["properties"]["strict"].get("default").is_none());
    assert_eq!(s["properties"]["filled"]["default"], json!({"name": "x"}));
    assert_eq!(s["properties"]["loose"]["default"], json!({}));
}

/// The list semantics server-side apply merges by, on a field of type
/// `PodTemplateSpec`, as upstream has them.
#[test]
fn pod_template_spec_has_upstreams_list_semantics() {
    let s = PodTemplateSpec::kube_schema().unwrap();
    assert_eq!(
        s,
        schema("io.k8s.api.core.v1.PodTemplateSpec")
            .unwrap()
            .unwrap()
    );
    let spec = &s["properties"]["spec"];
    let containers = &spec["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-list-type"], "map");
    assert_eq!(containers["x-kubernetes-list-map-keys"], json!(["name"]));
    let container = &containers["items"]["properties"];
    assert_eq!(container["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(
        container["ports"]["x-kubernetes-list-map-keys"],
        json!(["containerPort", "protocol"])
    );
    assert_eq!(
        container["ports"]["items"]["properties"]["protocol"]["default"],
        "TCP"
    );
    assert_eq!(
        container["env"]["x-kubernetes-list-map-keys"],
        json!(["name"])
    );
    assert_eq!(
        container["resources"]["properties"]["limits"]["additionalProperties"]["x-kubernetes-int-or-string"],
        true
    );
    assert_eq!(
        spec["properties"]["volumes"]["x-kubernetes-list-map-keys"],
        json!(["name"])
    );
    assert_eq!(
        spec["properties"]["nodeSelector"]["x-kubernetes-map-type"],
        "atomic"
    );
    assert_eq!(spec["required"], json!(["containers"]));
    // `spec` requires containers: its upstream `default: {}` would be refused.
    assert!(spec.get("default").is_none());
    assert_eq!(s["properties"]["metadata"]["default"], json!({}));
    assert!(!s.to_string().contains("x-kubernetes-patch"));
}

/// Upstream's whole `ObjectMeta` below a CRD's root (here
/// `spec.template.metadata`) is what the apiserver accepts: only the root's
/// `metadata` (and an embedded resource's) is limited to name and
/// generateName.
#[test]
fn object_meta_inside_a_template_is_accepted_in_a_crd() {
    let template = PodTemplateSpec::kube_schema().unwrap();
    let meta = &template["properties"]["metadata"]["properties"];
    for f in [
        "name",
        "labels",
        "annotations",
        "ownerReferences",
        "managedFields",
    ] {
        assert!(meta[f].is_object(), "{f}");
    }
    assert_eq!(
        meta["ownerReferences"]["x-kubernetes-list-map-keys"],
        json!(["uid"])
    );
    assert_eq!(
        meta["managedFields"]["items"]["properties"]["fieldsV1"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    let res = crate::model::ResourceModel {
        group: "example.com".into(),
        version: "v1".into(),
        kind: "Tmpl".into(),
        plural: "tmpls".into(),
        singular: "tmpl".into(),
        served: true,
        storage: true,
        ..Default::default()
    };
    let spec = json!({"type": "object", "properties": {"template": template}});
    crate::crd::crd_json(&res, spec, None).unwrap();
}

/// Every type's schema builds and is structural, and the consts the
/// generator wrote agree with it.
#[test]
fn every_type_builds_and_its_consts_match_its_schema() {
    let consts = impls::consts();
    assert_eq!(consts.len(), types().count());
    assert!(consts.len() > 600, "{}", consts.len());
    let mut refused = BTreeSet::new();
    for (definition, fields, keys, scalar) in consts {
        let s = match schema(definition).unwrap() {
            Ok(s) => s,
            Err(e) if e.message.starts_with("a CRD cannot hold") => {
                refused.insert(definition.trim_start_matches("io.k8s.api."));
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let is_scalar = |v: &Value| {
            matches!(
                v.get("type").and_then(Value::as_str),
                Some("string" | "integer" | "number" | "boolean")
            ) || v.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        };
        let empty = Map::new();
        let props = s["properties"].as_object().unwrap_or(&empty);
        let required: BTreeSet<&str> = s["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let expect_fields: BTreeSet<&str> = props.keys().map(String::as_str).collect();
        let expect_keys: BTreeSet<&str> = props
            .iter()
            .filter(|(n, p)| {
                is_scalar(p) && (required.contains(n.as_str()) || p.get("default").is_some())
            })
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(
            fields.iter().copied().collect::<BTreeSet<_>>(),
            expect_fields,
            "{definition} FIELDS"
        );
        assert_eq!(
            keys.iter().copied().collect::<BTreeSet<_>>(),
            expect_keys,
            "{definition} KEY_FIELDS"
        );
        assert_eq!(scalar, is_scalar(&s), "{definition} SCALAR");
    }
    // The apiserver refuses these upstream schemas in a CRD: list-map keys
    // that are optional ("must have a default or be a required property"),
    // and `x-kubernetes-list-type` on the string `APIServiceSpec.caBundle`
    // ("must be array if x-kubernetes-list-type is specified").
    let mut expected = BTreeSet::from([
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec",
        "core.v1.ServiceAccount",
        "flowcontrol.v1.FlowSchema",
        "flowcontrol.v1.FlowSchemaStatus",
        "flowcontrol.v1.PriorityLevelConfiguration",
        "flowcontrol.v1.PriorityLevelConfigurationStatus",
    ]);
    for v in ["v1", "v1beta1", "v1beta2"] {
        for t in ["ResourceClaim", "ResourceClaimStatus"] {
            expected.insert(format!("resource.{v}.{t}").leak());
        }
    }
    assert_eq!(refused, expected);
}

#[test]
fn types_by_path_and_name() {
    let job = by_path("api::batch::v1::JobTemplateSpec").unwrap();
    assert_eq!(job.definition(), "io.k8s.api.batch.v1.JobTemplateSpec");
    assert_eq!(job.name(), "JobTemplateSpec");
    assert_eq!(by_name("JobTemplateSpec"), vec![job]);
    let crd =
        by_path("apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps").unwrap();
    assert_eq!(
        crd.definition(),
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"
    );
    assert!(by_path("api::core::v1::PodList").is_none());
    let refs: Vec<String> = by_name("ServiceReference")
        .iter()
        .map(|t| t.path())
        .collect();
    assert!(refs.len() >= 3, "{refs:?}");
    assert!(refs.contains(
        &"kube_aggregator::pkg::apis::apiregistration::v1::ServiceReference".to_string()
    ));
    let provenance = &table().unwrap().provenance;
    assert!(
        provenance["kubernetes"]
            .as_str()
            .unwrap()
            .starts_with("v1."),
        "{provenance}"
    );
}
