//! Built-in Kubernetes types inside CRDs, against a real kube-apiserver
//! (kubegen-testenv):
//!
//! - the schema kubegen emits for a field of a k8s-openapi type has the
//!   structure and list semantics of the apiserver's own published schema of
//!   that type (`/openapi/v3/api/v1`, `/openapi/v3/apis/batch/v1`): the same
//!   properties, types, formats, list types and keys, map types where the
//!   apiserver publishes one; and its defaults are some of the published
//!   ones (those `k8s.io/api` declares with `+default`; the published
//!   document also lists Go's zero values, which on a CRD the apiserver
//!   would apply). Exact equality is with controller-gen's CRDs
//!   (`kubegen-cli/tests/controller_gen_diff.rs`);
//! - a CRD embedding a `PodTemplateSpec` is Established, stores a minimal
//!   object byte for byte as written, refuses a container without a name,
//!   and server-side apply merges `containers` by name across field
//!   managers, as for Pods;
//! - every type of the built-in table is accepted inside a CRD, except the
//!   few whose upstream schema the apiserver refuses there, which kubegen
//!   refuses with an error first.
//!
//! Run with `cargo test -p kubegen-derive --test builtin_types_e2e`.

#![allow(missing_docs)]

#[path = "support/cluster.rs"]
mod cluster;

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::{
    Affinity, Container, ObjectReference, PodTemplateSpec, ResourceRequirements, Toleration, Volume,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::{CustomResource, CustomResourceExt};
use kubegen_client::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kubegen_core::builtin;
use kubegen_testenv::TestEnv;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use cluster::{check_rejection, describe, dynamic_api, install_crd, object, wait_served};

/// One field per compared type, undocumented so each keeps its type's
/// upstream description.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "builtin.kubegen.dev",
    version = "v1",
    kind = "Carrier",
    namespaced
)]
pub struct CarrierSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_reference: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_requirements: Option<ResourceRequirements>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<Volume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration: Option<Toleration>,
}

/// The batch type, in a CRD of its own (the size budget).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "builtin.kubegen.dev",
    version = "v1",
    kind = "JobCarrier",
    namespaced
)]
pub struct JobCarrierSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_template_spec: Option<JobTemplateSpec>,
}

/// A workload embedding a Pod template.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(
    group = "builtin.kubegen.dev",
    version = "v1",
    kind = "Workload",
    namespaced
)]
pub struct WorkloadSpec {
    pub template: PodTemplateSpec,
}

/// `(field, definition, API document)` of every compared type.
const COMPARED: &[(&str, &str, &str)] = &[
    (
        "object_reference",
        "io.k8s.api.core.v1.ObjectReference",
        CORE,
    ),
    ("affinity", "io.k8s.api.core.v1.Affinity", CORE),
    (
        "resource_requirements",
        "io.k8s.api.core.v1.ResourceRequirements",
        CORE,
    ),
    ("volume", "io.k8s.api.core.v1.Volume", CORE),
    ("container", "io.k8s.api.core.v1.Container", CORE),
    ("toleration", "io.k8s.api.core.v1.Toleration", CORE),
    (
        "job_template_spec",
        "io.k8s.api.batch.v1.JobTemplateSpec",
        BATCH,
    ),
    ("template", "io.k8s.api.core.v1.PodTemplateSpec", CORE),
];
const CORE: &str = "/openapi/v3/api/v1";
const BATCH: &str = "/openapi/v3/apis/batch/v1";

async fn setup(prefix: &str) -> Result<(&'static TestEnv, String, kubegen_client::Client)> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let client = env.client().await?;
    Ok((env, ns, client))
}

/// Installs the CRD of `K` and returns a dynamic client once it is served.
async fn served<K>(
    client: &kubegen_client::Client,
    ns: &str,
) -> Result<(ApiResource, Api<DynamicObject>)>
where
    K: CustomResourceExt + kubegen_client::Resource<DynamicType = ()>,
{
    let crd: CustomResourceDefinition = serde_json::from_value(K::crd_json()?)?;
    install_crd(client, &crd).await?;
    let resource = ApiResource::erase::<K>(&());
    let api = dynamic_api(client, &resource, Some(ns));
    wait_served(&api).await?;
    Ok((resource, api))
}

/// The `components.schemas` the apiserver publishes at `path`.
async fn published(client: &kubegen_client::Client, path: &str) -> Result<Map<String, Value>> {
    let request = http::Request::get(path).body(Vec::new())?;
    let text = client.request_text(request).await?;
    let mut doc: Value = serde_json::from_str(&text)?;
    match doc["components"]["schemas"].take() {
        Value::Object(m) => Ok(m),
        _ => bail!("{path} publishes no components.schemas"),
    }
}

/// The live apiserver serves its types with the `OpenAPIEnums` annotations
/// (an `enum` on enum-typed strings) and keys a CRD cannot hold
/// (strategic-merge-patch directives, `readOnly`, ...), and publishes the
/// types with custom JSON (`IntOrString`, `Quantity`, `Time`, ...) as the
/// strings they marshal to. Removes the former and takes the latter from
/// kubegen's table, as controller-gen overrides them, so the published
/// definitions can be inlined and compared.
fn comparable(published: &mut Map<String, Value>) {
    let table = builtin::table().unwrap();
    for name in [
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    ] {
        if published.contains_key(name) {
            published.insert(name.into(), table.definitions[name].clone());
        }
    }
    published.values_mut().for_each(without_published_only_keys);
}

fn without_published_only_keys(schema: &mut Value) {
    let Value::Object(m) = schema else {
        return;
    };
    for k in [
        "enum",
        "x-kubernetes-patch-strategy",
        "x-kubernetes-patch-merge-key",
        "x-kubernetes-unions",
        "x-kubernetes-group-version-kind",
        "readOnly",
        "writeOnly",
        "deprecated",
    ] {
        m.remove(k);
    }
    for (k, sub) in m.iter_mut() {
        match (k.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                props.values_mut().for_each(without_published_only_keys)
            }
            ("allOf" | "anyOf" | "oneOf", Value::Array(all)) => {
                all.iter_mut().for_each(without_published_only_keys)
            }
            ("items" | "additionalProperties" | "not", sub) => without_published_only_keys(sub),
            _ => {}
        }
    }
}

/// Where `emitted` departs from the `published` schema: a different
/// structure (properties, type, format, int-or-string, items,
/// additionalProperties), list semantics (list type and keys), a map type
/// the apiserver publishes that kubegen lacks or changes, or a default the
/// apiserver does not publish. Below a `metadata` property only the type is
/// compared (kubegen keeps name, namespace, labels, annotations and
/// finalizers, as controller-gen's `generateEmbeddedObjectMeta`).
fn departures(emitted: &Value, published: &Value, at: &str, out: &mut Vec<String>) {
    let (Value::Object(e), Value::Object(p)) = (emitted, published) else {
        return out.push(format!("{at}: not both schemas"));
    };
    let same = [
        "type",
        "format",
        "x-kubernetes-int-or-string",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
    ];
    for k in same {
        if e.get(k) != p.get(k) {
            out.push(format!(
                "{at}/{k}: {} vs {}",
                shown(e.get(k)),
                shown(p.get(k))
            ));
        }
    }
    if p.contains_key("x-kubernetes-map-type")
        && e.get("x-kubernetes-map-type") != p.get("x-kubernetes-map-type")
    {
        out.push(format!(
            "{at}/x-kubernetes-map-type: {} vs {}",
            shown(e.get("x-kubernetes-map-type")),
            shown(p.get("x-kubernetes-map-type"))
        ));
    }
    if let Some(d) = e.get("default")
        && p.get("default") != Some(d)
    {
        out.push(format!("{at}/default: {d} vs {}", shown(p.get("default"))));
    }
    let none = Value::Null;
    let props = |m: &Map<String, Value>| {
        m.get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (ep, pp) = (props(e), props(p));
    let names: BTreeSet<&String> = ep.keys().chain(pp.keys()).collect();
    for n in names {
        let child = format!("{at}/properties/{n}");
        match (ep.get(n), pp.get(n)) {
            (Some(x), Some(y)) if n == "metadata" => {
                if x.get("type") != y.get("type") {
                    out.push(format!("{child}/type"));
                }
            }
            (Some(x), Some(y)) => departures(x, y, &child, out),
            (x, y) => out.push(format!("{child}: {} vs {}", shown(x), shown(y))),
        }
    }
    for k in ["items", "additionalProperties"] {
        match (e.get(k), p.get(k)) {
            (None, None) => {}
            (Some(x), Some(y)) if x.is_object() && y.is_object() => {
                departures(x, y, &format!("{at}/{k}"), out)
            }
            (x, y) if x.unwrap_or(&none) == y.unwrap_or(&none) => {}
            (x, y) => out.push(format!("{at}/{k}: {} vs {}", shown(x), shown(y))),
        }
    }
}

fn shown(v: Option<&Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let s = v.to_string();
            match s.char_indices().nth(120) {
                Some((cut, _)) => format!("{}…", &s[..cut]),
                None => s,
            }
        }
    }
}

/// The spec schema of a CRD.
fn spec_of(crd: &Value) -> &Value {
    &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

/// Every `default` in a schema.
fn count_defaults(v: &Value) -> usize {
    match v {
        Value::Object(m) => {
            usize::from(m.contains_key("default"))
                + m.iter()
                    .map(|(k, x)| match (k.as_str(), x) {
                        ("properties", Value::Object(p)) => p.values().map(count_defaults).sum(),
                        ("default", _) => 0,
                        (_, x) => count_defaults(x),
                    })
                    .sum::<usize>()
        }
        Value::Array(a) => a.iter().map(count_defaults).sum(),
        _ => 0,
    }
}

#[tokio::test]
async fn emitted_schemas_keep_the_apiservers_structure_and_declared_defaults() -> Result<()> {
    let (_, _, client) = setup("builtin-openapi").await?;
    let crds = [
        Carrier::crd_json()?,
        JobCarrier::crd_json()?,
        Workload::crd_json()?,
    ];
    let mut failures = Vec::new();
    let mut documents = std::collections::BTreeMap::new();
    let (mut emitted_defaults, mut published_defaults) = (0, 0);
    for (field, definition, document) in COMPARED {
        if !documents.contains_key(document) {
            let mut live = published(&client, document).await?;
            comparable(&mut live);
            documents.insert(*document, live);
        }
        let live = &documents[document];
        let expected = builtin::inline(live, &Map::new(), definition)
            .with_context(|| format!("inlining the live {definition}"))?;
        let emitted = crds
            .iter()
            .find_map(|crd| spec_of(crd)["properties"].get(field))
            .with_context(|| format!("no field {field}"))?;
        emitted_defaults += count_defaults(emitted);
        published_defaults += count_defaults(&expected);
        let mut diffs = Vec::new();
        departures(emitted, &expected, "", &mut diffs);
        if !diffs.is_empty() {
            diffs.truncate(20);
            failures.push(format!(
                "{definition} (emitted vs live):\n  {}",
                diffs.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("defaults: {emitted_defaults} emitted, {published_defaults} in the published schemas");
    assert!(
        emitted_defaults * 4 < published_defaults,
        "{emitted_defaults} vs {published_defaults}"
    );
    for crd in &crds {
        let crd: CustomResourceDefinition = serde_json::from_value(crd.clone())?;
        install_crd(&client, &crd).await?;
    }
    Ok(())
}

/// The apiserver stores a minimal Pod template as written (no `metadata: {}`,
/// `resources: {}`, `name: ""` added by zero-value defaults) and refuses a
/// container without a name, as for a Deployment.
#[tokio::test]
async fn pod_templates_are_stored_as_written_and_checked_as_upstream() -> Result<()> {
    let (_, ns, client) = setup("builtin-store").await?;
    let (resource, api) = served::<Workload>(&client, &ns).await?;
    let spec = json!({"template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}});
    let stored = api
        .create(&PostParams::default(), &object(&resource, "minimal", &spec))
        .await
        .map_err(|e| anyhow::anyhow!("{}", describe(&e)))?;
    assert_eq!(stored.data["spec"], spec);
    let nameless = json!({"template": {"spec": {"containers": [{"image": "nginx"}]}}});
    check_rejection(
        api.create(
            &PostParams::default(),
            &object(&resource, "nameless", &nameless),
        )
        .await,
        &["spec.template.spec.containers[0].name: Required value"],
    )
    .map_err(anyhow::Error::msg)?;
    let labelled = json!({"template": {"metadata": {"labels": {"app": "web"}, "uid": "x"},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}});
    let stored = api
        .create(
            &PostParams::default(),
            &object(&resource, "labelled", &labelled),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{}", describe(&e)))?;
    // Labels are kept; what a template's metadata cannot hold is pruned.
    assert_eq!(
        stored.data["spec"]["template"]["metadata"],
        json!({"labels": {"app": "web"}})
    );
    Ok(())
}

/// The containers of a Workload's template, by name, with their images.
fn containers(obj: &DynamicObject) -> Vec<(String, String)> {
    obj.data["spec"]["template"]["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("name"), s("image"))
        })
        .collect()
}

#[tokio::test]
async fn server_side_apply_merges_pod_template_containers_by_name() -> Result<()> {
    let (_, ns, client) = setup("builtin-ssa").await?;
    let (resource, api) = served::<Workload>(&client, &ns).await?;
    let applied = |container: Value| {
        object(
            &resource,
            "web",
            &json!({"template": {"spec": {"containers": [container]}}}),
        )
    };
    let apply = |manager: &'static str, obj: DynamicObject| {
        let api = api.clone();
        async move {
            api.patch("web", &PatchParams::apply(manager), &Patch::Apply(&obj))
                .await
                .map_err(|e| anyhow::anyhow!("{manager}'s apply: {}", describe(&e)))
        }
    };
    let a = json!({"name": "a", "image": "nginx:1", "ports": [{"containerPort": 80}]});
    let b = json!({"name": "b", "image": "busybox:1"});
    apply("manager-a", applied(a)).await?;
    let merged = apply("manager-b", applied(b)).await?;
    assert_eq!(
        containers(&merged),
        [
            ("a".into(), "nginx:1".into()),
            ("b".into(), "busybox:1".into())
        ],
        "manager-b's apply replaced the list instead of merging by name"
    );
    // The port list merged by (containerPort, protocol): protocol defaulted.
    assert_eq!(
        merged.data["spec"]["template"]["spec"]["containers"][0]["ports"],
        json!([{"containerPort": 80, "protocol": "TCP"}])
    );
    let a2 = json!({"name": "a", "image": "nginx:2", "ports": [{"containerPort": 80}]});
    let updated = apply("manager-a", applied(a2)).await?;
    assert_eq!(
        containers(&updated),
        [
            ("a".into(), "nginx:2".into()),
            ("b".into(), "busybox:1".into())
        ],
    );
    let b_fields = updated
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .find(|m| m.manager.as_deref() == Some("manager-b"))
        .context("manager-b owns no fields")?;
    let owned = serde_json::to_string(&b_fields.fields_v1)?;
    assert!(owned.contains(r#"k:{\"name\":\"b\"}"#), "{owned}");
    // `ConfigMapVolumeSource` is `+structType=atomic`: a forced apply of
    // another manager replaces it whole, as for Pods, instead of merging
    // into it field by field (which would keep manager-a's `optional`).
    let with_volume = |config_map: Value| {
        object(
            &resource,
            "web",
            &json!({"template": {"spec": {
                "containers": [{"name": "a", "image": "nginx:2", "ports": [{"containerPort": 80}]}],
                "volumes": [{"name": "config", "configMap": config_map}],
            }}}),
        )
    };
    apply(
        "manager-a",
        with_volume(json!({"name": "one", "optional": true})),
    )
    .await?;
    let forced = api
        .patch(
            "web",
            &PatchParams::apply("manager-c").force(),
            &Patch::Apply(&with_volume(json!({"name": "two"}))),
        )
        .await
        .map_err(|e| anyhow::anyhow!("manager-c's apply: {}", describe(&e)))?;
    assert_eq!(
        forced.data["spec"]["template"]["spec"]["volumes"][0]["configMap"],
        json!({"name": "two"}),
        "an atomic struct was merged field by field"
    );
    // Upstream's `required` holds inside the CRD: a Pod spec needs containers.
    let empty = object(&resource, "empty", &json!({"template": {"spec": {}}}));
    check_rejection(
        api.create(&PostParams::default(), &empty).await,
        &["spec.template.spec.containers: Required value"],
    )
    .map_err(anyhow::Error::msg)?;
    Ok(())
}

#[tokio::test]
async fn every_builtin_type_is_accepted_inside_a_crd() -> Result<()> {
    let (_, _, client) = setup("builtin-all").await?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    let mut refused = BTreeSet::new();
    let mut pending = Vec::new();
    for (i, t) in builtin::types().enumerate() {
        let schema = match t.schema() {
            Ok(s) => s,
            Err(e)
                if e.message.starts_with("a CRD cannot hold")
                    || e.message.starts_with("controller-gen cannot embed") =>
            {
                refused.insert(t.definition());
                continue;
            }
            Err(e) => bail!("{}: {e}", t.definition()),
        };
        let res = kubegen_core::model::ResourceModel {
            group: "all.kubegen.dev".into(),
            version: "v1".into(),
            kind: format!("T{i}"),
            plural: format!("t{i}s"),
            singular: format!("t{i}"),
            namespaced: true,
            served: true,
            storage: true,
            ..Default::default()
        };
        let spec = json!({"type": "object", "properties": {"x": schema}});
        let crd: CustomResourceDefinition =
            serde_json::from_value(kubegen_core::crd_json(&res, spec, None)?)?;
        pending.push((t.definition(), crd));
    }
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let mut failures = Vec::new();
    for chunk in pending.chunks(8) {
        let mut tasks = tokio::task::JoinSet::new();
        for (definition, crd) in chunk.iter().cloned() {
            let (crds, dry_run) = (crds.clone(), dry_run.clone());
            tasks.spawn(async move { (definition, crds.create(&dry_run, &crd).await) });
        }
        while let Some(done) = tasks.join_next().await {
            if let (definition, Err(e)) = done? {
                failures.push(format!("{definition}: {}", describe(&e)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(pending.len() > 600, "{}", pending.len());
    assert_eq!(refused.len(), 13, "{refused:#?}");
    Ok(())
}
