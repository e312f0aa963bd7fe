//! Unit tests of the built-in table and the inliner: hand-written
//! definitions for each rule, and the real table for every type.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::*;

/// `PodTemplateSpec`'s schema, as its `KubeSchema` impl gives it.
fn pod_template_spec() -> Result<Value, SchemaError> {
    by_path("api::core::v1::PodTemplateSpec").unwrap().schema()
}

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

fn flat(d: &Map<String, Value>, name: &str) -> Value {
    inline(d, &Map::new(), name).unwrap()
}

#[test]
fn a_reference_takes_the_types_schema_with_the_fields_own_keys_and_docs() {
    let d = defs(json!({
        "A": {"type": "object", "description": "A's own", "properties": {
            "b": {"$ref": "#/components/schemas/B", "default": {"x": "y"}, "description": "the b"},
            "bs": {"type": "array", "items": r("B")},
            "plain": r("B"),
        }},
        "B": {"type": "object", "description": "B's own", "properties": {"x": {"type": "string"}}},
    }));
    let s = flat(&d, "A");
    assert_eq!(
        s["properties"]["b"],
        json!({"type": "object", "default": {"x": "y"}, "description": "the b", "properties": {"x": {"type": "string"}}})
    );
    assert_eq!(s["properties"]["bs"]["items"]["description"], "B's own");
    assert_eq!(s["properties"]["plain"]["description"], "B's own");
    assert_eq!(s["description"], "A's own");
    assert!(!s.to_string().contains("$ref") && !s.to_string().contains("allOf"));
}

/// A Go struct embedded inline (`allOf`) gives its properties, required
/// names and map type to the struct holding it, not its description.
#[test]
fn an_embedded_struct_merges_into_its_holder() {
    let d = defs(json!({
        "Env": {"type": "object", "description": "Env's own", "required": ["z"],
            "properties": {"z": {"type": "string"}, "optional": {"type": "boolean"}},
            "allOf": [{"$ref": "#/components/schemas/Ref", "description": "the embedded field"}]},
        "Ref": {"type": "object", "description": "Ref's own", "x-kubernetes-map-type": "atomic",
            "required": ["name"], "properties": {"name": {"type": "string", "default": ""}}},
    }));
    assert_eq!(
        flat(&d, "Env"),
        json!({"type": "object", "description": "Env's own", "x-kubernetes-map-type": "atomic",
            "required": ["name", "z"], "properties": {
                "z": {"type": "string"}, "optional": {"type": "boolean"},
                "name": {"type": "string", "default": ""}}})
    );
}

/// Conflicting keys are both kept, as an `allOf` (controller-gen's
/// hoisting): a field can only tighten its type's constraint. CEL rules
/// join; the field's list type wins; conflicting types are an error.
#[test]
fn conflicts_follow_controller_gen() {
    let d = defs(json!({
        "A": {"type": "object", "properties": {
            "s": {"$ref": "#/components/schemas/S", "maxLength": 5, "x-kubernetes-validations": [{"rule": "field"}]},
            "l": {"$ref": "#/components/schemas/L", "x-kubernetes-list-type": "set"},
        }},
        "S": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "type"}]},
        "L": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
        "Bad": {"type": "object", "properties": {"t": {"$ref": "#/components/schemas/S", "type": "integer"}}},
    }));
    let s = flat(&d, "A");
    assert_eq!(
        s["properties"]["s"],
        json!({"type": "string", "allOf": [{"maxLength": 10}, {"maxLength": 5}],
            "x-kubernetes-validations": [{"rule": "field"}, {"rule": "type"}]})
    );
    assert_eq!(s["properties"]["l"]["x-kubernetes-list-type"], "set");
    let e = inline(&d, &Map::new(), "Bad").unwrap_err();
    assert!(e.message.contains("conflicting types"), "{e:?}");
}

#[test]
fn int_or_string_and_quantity_take_controller_gens_shape() {
    let t = table().unwrap();
    let s = inline(&t.definitions, &t.refused, IOS).unwrap();
    assert_eq!(
        s,
        json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})
    );
    let q = inline(
        &t.definitions,
        &t.refused,
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
    )
    .unwrap();
    assert_eq!(q["x-kubernetes-int-or-string"], true);
    assert_eq!(q["pattern"], crate::schema::QUANTITY_PATTERN, "{q}");
    // Inside a property, the property's description wins.
    let d = defs(json!({
        "P": {"type": "object", "properties": {"port": {"$ref": format!("#/components/schemas/{IOS}"), "description": "the port"}}},
        IOS: t.definitions[IOS].clone(),
    }));
    let s = flat(&d, "P");
    assert_eq!(s["properties"]["port"]["description"], "the port");
    assert_eq!(s["properties"]["port"]["x-kubernetes-int-or-string"], true);
}

#[test]
fn mapped_and_known_definitions() {
    let t = table().unwrap();
    let get = |n: &str| {
        let mut s = inline(&t.definitions, &t.refused, n).unwrap();
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
    let ext = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";
    let any = json!({"x-kubernetes-preserve-unknown-fields": true});
    for n in [
        "JSON",
        "JSONSchemaPropsOrBool",
        "JSONSchemaPropsOrArray",
        "JSONSchemaPropsOrStringArray",
    ] {
        assert_eq!(get(&format!("{ext}.{n}")), any, "{n}");
    }
}

#[test]
fn recursion_is_cut_where_it_recurs() {
    let d = defs(json!({
        "N": {"type": "object", "properties": {
            "next": {"$ref": "#/components/schemas/N", "description": "the next"},
            "children": {"type": "array", "items": r("N")},
            "value": {"type": "string"},
        }},
    }));
    let s = flat(&d, "N");
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
        s["properties"]["items"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
}

/// A type controller-gen cannot generate is an error naming its reason.
#[test]
fn refused_types_are_errors_with_controller_gens_reason() {
    let d = defs(json!({"A": {"type": "object"}}));
    let refused = defs(json!({"A": ["a.go:1:2: found float"]}));
    let e = inline(&d, &refused, "A").unwrap_err();
    assert!(
        e.message.contains("controller-gen cannot embed `A`"),
        "{e:?}"
    );
    assert!(
        e.message.contains("found float") && e.message.contains("schemaless"),
        "{e:?}"
    );
}

#[test]
fn keywords_a_crd_rejects_are_errors_not_losses() {
    let d = defs(
        json!({"A": {"type": "object", "properties": {"x": {"type": "string", "readOnly": true}}}}),
    );
    let e = inline(&d, &Map::new(), "A").unwrap_err();
    assert!(e.message.contains("a CRD cannot hold"), "{e:?}");
}

/// Every `default` key in a schema, as `path: value`.
fn defaults(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "default" {
                    out.push(format!("{at}: {x}"));
                } else if k == "properties" {
                    for (p, s) in x.as_object().into_iter().flatten() {
                        defaults(s, &format!("{at}.{p}"), out);
                    }
                } else {
                    defaults(x, &format!("{at}/{k}"), out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| defaults(x, at, out)),
        _ => {}
    }
}

/// Only the defaults `k8s.io/api` declares (`+default=`) reach a CRD: 47 in
/// a `batch/v1` `JobTemplateSpec`, as controller-gen writes them. The
/// upstream OpenAPI document's Go zero values (`""`, `{}`, `0`, `false`:
/// 364 in a `PodTemplateSpec` before) are gone, so the apiserver refuses a
/// container without a name instead of storing `name: ""`.
#[test]
fn only_declared_defaults() {
    let job = schema("io.k8s.api.batch.v1.JobTemplateSpec")
        .unwrap()
        .unwrap();
    let mut found = Vec::new();
    defaults(&job, "", &mut found);
    assert_eq!(found.len(), 47, "{found:#?}");
    let pod = pod_template_spec().unwrap();
    let mut found = Vec::new();
    defaults(&pod, "", &mut found);
    // A JobTemplateSpec's defaults are all in its pod template.
    assert_eq!(found.len(), 47, "{found:#?}");
    assert!(found.iter().all(|d| !d.ends_with(": {}")), "{found:#?}");
    assert!(
        found.contains(&".spec.containers/items.ports/items.protocol: \"TCP\"".to_owned()),
        "{found:#?}"
    );
    let container = &pod["properties"]["spec"]["properties"]["containers"]["items"];
    assert!(container["properties"]["name"].get("default").is_none());
    assert!(
        pod["properties"]["spec"]["properties"]["containers"]["items"]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("name"))
    );
}

/// `+structType=atomic` types (and the structs embedding one) are
/// `x-kubernetes-map-type: atomic`, so server-side apply replaces them whole.
#[test]
fn atomic_structs_are_atomic() {
    let spec = schema("io.k8s.api.core.v1.PodSpec").unwrap().unwrap();
    let c = &spec["properties"]["containers"]["items"]["properties"];
    let env_from = &c["envFrom"]["items"]["properties"];
    assert_eq!(env_from["secretRef"]["x-kubernetes-map-type"], "atomic");
    assert_eq!(env_from["configMapRef"]["x-kubernetes-map-type"], "atomic");
    let volume = &spec["properties"]["volumes"]["items"]["properties"];
    assert_eq!(volume["configMap"]["x-kubernetes-map-type"], "atomic");
    assert_eq!(
        spec["properties"]["imagePullSecrets"]["items"]["x-kubernetes-map-type"],
        "atomic"
    );
}

/// The list semantics server-side apply merges by, on a field of type
/// `PodTemplateSpec`, as upstream has them.
#[test]
fn pod_template_spec_has_upstreams_list_semantics() {
    let s = pod_template_spec().unwrap();
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
    assert!(spec.get("default").is_none());
    assert!(s["properties"]["metadata"].get("default").is_none());
    assert!(!s.to_string().contains("x-kubernetes-patch"));
}

/// `ObjectMeta` below a CRD's root (here `spec.template.metadata`) is what
/// controller-gen writes with `crd:generateEmbeddedObjectMeta=true`: name,
/// namespace, labels, annotations and finalizers, so a template's labels
/// are kept (controller-gen's default, `{type: object}`, prunes them:
/// kubernetes #103739); the apiserver accepts it in a CRD.
#[test]
fn object_meta_inside_a_template_keeps_labels_and_annotations() {
    let template = pod_template_spec().unwrap();
    let meta = &template["properties"]["metadata"];
    let fields: BTreeSet<&str> = meta["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        BTreeSet::from(["annotations", "finalizers", "labels", "name", "namespace"])
    );
    assert_eq!(
        meta["properties"]["labels"]["additionalProperties"]["type"],
        "string"
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
    let consts = consts();
    assert_eq!(consts.len(), types().count());
    assert!(consts.len() > 600, "{}", consts.len());
    let mut refused = BTreeSet::new();
    for (definition, fields, keys, scalar) in consts {
        let s = match schema(definition).unwrap() {
            Ok(s) => s,
            Err(e)
                if e.message.starts_with("a CRD cannot hold")
                    || e.message.starts_with("controller-gen cannot embed") =>
            {
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

/// [`schema`] reads the indexed text, not the parsed table: for every
/// definition of the table, and every one controller-gen refuses, it gives
/// what [`inline`] over the parsed table gives, errors included.
#[test]
fn the_index_gives_what_the_parsed_table_gives() {
    let t = table().unwrap();
    let index = super::index().unwrap();
    // Every line, in the order the search relies on: sorted, no repeats.
    let names = index.names().unwrap();
    assert!(
        names.windows(2).all(|w| w[0] < w[1]),
        "the lines are not sorted by name"
    );
    assert_eq!(names.len(), t.definitions.len());
    assert_eq!(index.refused.len(), t.refused.len());
    assert!(t.definitions.len() > 800, "{}", t.definitions.len());
    for name in t.definitions.keys() {
        let parsed = inline(&t.definitions, &t.refused, name);
        let indexed = schema(name).expect("in the index");
        match (parsed, indexed) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
            (a, b) => panic!("{name}: parsed {a:?}, indexed {b:?}"),
        }
    }
    for absent in [
        "io.k8s.api.core.v1.NoSuchThing",
        "",
        "a",
        "zzz",
        "io.k8s.api.core.v1.Pod2",
    ] {
        assert!(schema(absent).is_none(), "{absent}");
    }
}

/// `schema` without the description of any schema in it (a property named
/// `description` stays; data such as defaults is not searched).
fn without_descriptions(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let value = match (key.as_str(), value) {
            ("description", _) => continue,
            ("items" | "additionalProperties" | "not", v) => without_descriptions(v),
            ("properties" | "patternProperties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(name, v)| (name.clone(), without_descriptions(v)))
                    .collect(),
            ),
            ("allOf" | "anyOf" | "oneOf", Value::Array(items)) => {
                Value::Array(items.iter().map(without_descriptions).collect())
            }
            (_, v) => v.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

/// [`structure`] reads the table without descriptions: for every definition
/// it gives what [`schema`] gives with the descriptions left out, errors
/// included, and it holds the same definitions in the same order.
#[test]
fn the_structure_is_the_schema_without_descriptions() {
    let t = table().unwrap();
    let names = super::structure_index().unwrap().names().unwrap();
    assert_eq!(names, super::index().unwrap().names().unwrap());
    let mut described = 0;
    for name in t.definitions.keys() {
        match (
            schema(name).expect("in the table"),
            structure(name).expect("in the structure"),
        ) {
            (Ok(full), Ok(structure)) => {
                assert_eq!(without_descriptions(&full), structure, "{name}");
                described += usize::from(full != structure);
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
            (a, b) => panic!("{name}: schema {a:?}, structure {b:?}"),
        }
    }
    // Not a table of empty descriptions: most schemas lost some.
    assert!(described > 600, "{described}");
    assert!(structure("io.k8s.api.core.v1.NoSuchThing").is_none());
    assert!(super::STRUCTURE.len() * 3 < super::TABLE.len());
}

/// The search over the table's lines finds every line of tables of one to
/// five definitions (both ends, the middle, long and short lines) and
/// nothing between or around them.
#[test]
fn the_line_search_finds_each_line_and_nothing_else() {
    const TABLES: [&str; 3] = [
        "{\"provenance\":{},\n\"refused\":{},\n\"definitions\":{\n\"b\":{\"type\":\"string\"}\n}}\n",
        "{\"provenance\":{},\n\"refused\":{\"r\":[\"no\"]},\n\"definitions\":{\n\"b\":{},\n\"d\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}\n}}\n",
        "{\"provenance\":{},\n\"refused\":{},\n\"definitions\":{\n\"b\":{\"a\":1},\n\"d\":{},\n\"f\":{\"long\":\"..........................................\"},\n\"h\":{},\n\"j\":{\"j\":true}\n}}\n",
    ];
    for text in TABLES {
        let index = super::inline::Index::new(text).unwrap();
        let names = index.names().unwrap();
        for name in &names {
            let found = index.find(name).unwrap().expect(name);
            assert!(
                text.contains(&format!("\"{name}\":{found}")),
                "{name}: {found}"
            );
            serde_json::from_str::<serde_json::Value>(found).unwrap();
        }
        for absent in ["a", "c", "e", "g", "i", "k", "", "bb"] {
            assert_eq!(index.find(absent).unwrap(), None, "{absent} in {names:?}");
        }
    }
}

/// A table not laid out as the generator writes it is an error naming the
/// table, not a wrong schema or a panic.
#[test]
fn a_table_in_another_layout_is_refused() {
    for text in [
        "",
        "{\"provenance\":{},\"refused\":{},\"definitions\":{\"b\":{}}}",
        "{\"provenance\":{},\n\"refused\":{},\n\"definitions\":{\n\"b\":{}\n}}",
        "{\"provenance\":{},\n\"refused\":[],\n\"definitions\":{\n\"b\":{}\n}}\n",
        "{\"provenance\":{},\n\"refused\":{},\n\"types\":{\n\"b\":{}\n}}\n",
    ] {
        let error = super::inline::Index::new(text).unwrap_err();
        assert!(
            error.contains("built-in schema table is corrupt"),
            "{error}"
        );
    }
    let index = super::inline::Index::new(
        "{\"provenance\":{},\n\"refused\":{},\n\"definitions\":{\nb:{}\n}}\n",
    )
    .unwrap();
    let error = index.find("b").unwrap_err();
    assert!(error.contains("a definition line reads `b:{}`"), "{error}");
}
