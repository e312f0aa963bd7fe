//! Built-in Kubernetes types inside CRDs, against a real kube-apiserver
//! (kubegen-testenv):
//!
//! - the schema kubegen emits for a field of a k8s-openapi type equals the
//!   apiserver's own published schema of that type (`/openapi/v3/api/v1`,
//!   `/openapi/v3/apis/batch/v1`), inlined the same way, node for node;
//! - a CRD embedding a `PodTemplateSpec` is Established, and server-side
//!   apply merges `containers` by name across field managers, as for Pods;
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
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kubegen::{CustomResource, CustomResourceExt};
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

async fn setup(prefix: &str) -> Result<(&'static TestEnv, String, kube::Client)> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace(prefix).await?;
    let client = env.client().await?;
    Ok((env, ns, client))
}

/// Installs the CRD of `K` and returns a dynamic client once it is served.
async fn served<K>(client: &kube::Client, ns: &str) -> Result<(ApiResource, Api<DynamicObject>)>
where
    K: CustomResourceExt + kube::Resource<DynamicType = ()>,
{
    let crd: CustomResourceDefinition = serde_json::from_value(K::crd_json()?)?;
    install_crd(client, &crd).await?;
    let resource = ApiResource::erase::<K>(&());
    let api = dynamic_api(client, &resource, Some(ns));
    wait_served(&api).await?;
    Ok((resource, api))
}

/// The `components.schemas` the apiserver publishes at `path`.
async fn published(client: &kube::Client, path: &str) -> Result<Map<String, Value>> {
    let request = http::Request::get(path).body(Vec::new())?;
    let text = client.request_text(request).await?;
    let mut doc: Value = serde_json::from_str(&text)?;
    match doc["components"]["schemas"].take() {
        Value::Object(m) => Ok(m),
        _ => bail!("{path} publishes no components.schemas"),
    }
}

/// The live apiserver serves its types with the `OpenAPIEnums` annotations:
/// an `enum` on enum-typed strings and their values appended to the
/// description ("\n\nPossible enum values: …"). The spec checked into
/// Kubernetes, which kubegen's table copies, is generated without them.
/// Removes both, so that what remains is what the table must equal.
fn without_enum_annotations(schema: &mut Value) {
    let Value::Object(m) = schema else {
        return;
    };
    if let Some(Value::String(d)) = m.get_mut("description")
        && let Some(at) = d.find("\n\nPossible enum values:")
    {
        d.truncate(at);
    }
    m.remove("enum");
    for (k, sub) in m.iter_mut() {
        match (k.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                props.values_mut().for_each(without_enum_annotations)
            }
            ("allOf" | "anyOf" | "oneOf", Value::Array(all)) => {
                all.iter_mut().for_each(without_enum_annotations)
            }
            ("items" | "additionalProperties" | "not", sub) => without_enum_annotations(sub),
            _ => {}
        }
    }
}

/// Up to `max` JSON pointers where `a` and `b` differ, with both values.
fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<String>, max: usize) {
    if out.len() >= max || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let child = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => differences(p, q, &child, out, max),
                    (p, q) => out.push(format!("{child}: {} vs {}", shown(p), shown(q))),
                }
                if out.len() >= max {
                    return;
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(p, q, &format!("{at}/{i}"), out, max);
            }
        }
        _ => out.push(format!("{at}: {} vs {}", shown(Some(a)), shown(Some(b)))),
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

#[tokio::test]
async fn emitted_schemas_equal_the_apiservers_published_schemas() -> Result<()> {
    let (_, _, client) = setup("builtin-openapi").await?;
    let crds = [
        Carrier::crd_json()?,
        JobCarrier::crd_json()?,
        Workload::crd_json()?,
    ];
    let mut failures = Vec::new();
    let mut documents = std::collections::BTreeMap::new();
    for (field, definition, document) in COMPARED {
        if !documents.contains_key(document) {
            let mut live = published(&client, document).await?;
            live.values_mut().for_each(without_enum_annotations);
            documents.insert(*document, live);
        }
        let live = &documents[document];
        let expected = builtin::inline(live, definition)
            .with_context(|| format!("inlining the live {definition}"))?;
        let emitted = crds
            .iter()
            .find_map(|crd| spec_of(crd)["properties"].get(field))
            .with_context(|| format!("no field {field}"))?;
        assert!(
            !emitted.to_string().contains("\"enum\""),
            "{definition}: the table has enums of its own"
        );
        let mut diffs = Vec::new();
        differences(emitted, &expected, "", &mut diffs, 10);
        if !diffs.is_empty() {
            failures.push(format!(
                "{definition} (emitted vs live):\n  {}",
                diffs.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Unnormalised, the live `Container` differs exactly where the enum
    // annotations are: the comparison sees them, and sees nothing else.
    let raw = published(&client, CORE).await?;
    let raw = builtin::inline(&raw, "io.k8s.api.core.v1.Container")?;
    let emitted = &spec_of(&crds[0])["properties"]["container"];
    let mut diffs = Vec::new();
    differences(emitted, &raw, "", &mut diffs, 100);
    assert!(
        diffs
            .iter()
            .any(|d| d.starts_with("/properties/imagePullPolicy/enum: (absent)")),
        "{diffs:#?}"
    );
    assert!(
        diffs
            .iter()
            .all(|d| d.contains("/enum: (absent)") || d.contains("/description: ")),
        "{diffs:#?}"
    );
    for crd in &crds {
        let crd: CustomResourceDefinition = serde_json::from_value(crd.clone())?;
        install_crd(&client, &crd).await?;
    }
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
            Err(e) if e.message.starts_with("a CRD cannot hold") => {
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
