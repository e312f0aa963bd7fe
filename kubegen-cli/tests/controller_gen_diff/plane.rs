//! The same verdicts on the real plane: both generators' CRDs of a kind
//! installed side by side (controller-gen's under the group `cg.<group>`),
//! the same objects created under each, and the verdicts (accepted, or
//! refused with which field errors) and the stored objects (after
//! defaulting and pruning) compared.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::api::{
    Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams,
};
use kubegen_testenv::eventually;
use serde_json::{Value, json};

use super::random::{Rng, Scalar, Wrap};

/// One object of the table.
pub struct Row {
    /// The row's label and the object's name.
    pub name: String,
    /// `group/Kind` of the pair of CRDs it is created under.
    pub kind: String,
    /// The object's `spec`.
    pub spec: Value,
    /// The object's `metadata.name`, when not `name`.
    pub object_name: Option<String>,
    /// Create with `fieldValidation=Strict` (server-side apply), so unknown
    /// fields are refused instead of pruned.
    pub strict: bool,
    /// A merge patch applied after a successful create.
    pub update: Option<Value>,
    /// The update goes to the status subresource.
    pub status_update: bool,
    /// Why the two CRDs are expected to give different outcomes (a known
    /// difference of `DIFFERENCES.toml`); `None`: the same.
    pub differs: Option<&'static str>,
}

fn row(name: &str, kind: &str, spec: Value) -> Row {
    Row {
        name: name.to_owned(),
        kind: kind.to_owned(),
        spec,
        object_name: None,
        strict: false,
        update: None,
        status_update: false,
        differs: None,
    }
}

impl Row {
    fn strict(mut self) -> Row {
        self.strict = true;
        self
    }

    fn status_update(mut self, patch: Value) -> Row {
        self.update = Some(patch);
        self.status_update = true;
        self
    }

    fn update(mut self, patch: Value) -> Row {
        self.update = Some(patch);
        self
    }

    fn named(mut self, name: String) -> Row {
        self.object_name = Some(name);
        self
    }

    fn differs(mut self, why: &'static str) -> Row {
        self.differs = Some(why);
        self
    }
}

/// What happened to one row under one CRD.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub create: String,
    pub update: Option<String>,
    /// The stored object, normalized (server-set metadata and the group
    /// dropped), canonical JSON.
    pub stored: Option<String>,
}

/// `accepted`, or the refusal: HTTP code, reason and each cause's field and
/// type (messages are left out, but for causes without a field: they quote
/// rules, whose text may differ).
fn verdict<T>(result: std::result::Result<T, kubegen_client::Error>) -> Result<String> {
    match result {
        Ok(_) => Ok("accepted".to_owned()),
        Err(kubegen_client::Error::Api(status)) => {
            let mut causes: Vec<String> = status
                .details
                .iter()
                .flat_map(|d| d.causes.iter())
                .map(|c| {
                    // A cause without a field says what it is in its message.
                    if c.field.is_empty() || c.field == "<nil>" {
                        format!("<nil> {}: {}", c.reason, c.message)
                    } else {
                        format!("{} {}", c.field, c.reason)
                    }
                })
                .collect();
            causes.sort();
            if causes.is_empty() {
                causes.push(status.message.clone());
            }
            Ok(format!(
                "refused {} {}: {}",
                status.code,
                status.reason,
                causes.join(CAUSES)
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// Between the causes of a refusal (messages may hold `; `).
const CAUSES: &str = " && ";

/// The group controller-gen's twin of a CRD is installed under.
pub fn controller_gen_group(group: &str) -> String {
    format!("cg.{group}")
}

/// Installs `crd` (under `group`) and waits until its storage version is
/// served; returns its resource.
pub async fn install(
    client: &kubegen_client::Client,
    crd: &Value,
    group: &str,
) -> Result<ApiResource> {
    let mut crd = crd.clone();
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_owned();
    let name = format!("{plural}.{group}");
    crd["metadata"] = json!({ "name": name });
    crd["spec"]["group"] = json!(group);
    let typed: CustomResourceDefinition = serde_json::from_value(crd.clone())?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    crds.patch(
        &name,
        &PatchParams::apply("kubegen-cgdiff").force(),
        &Patch::Apply(&typed),
    )
    .await
    .with_context(|| format!("the apiserver refused CRD {name}"))?;
    let version = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["storage"] == true)
        .and_then(|v| v["name"].as_str())
        .context("a CRD without a storage version")?
        .to_owned();
    let resource = ApiResource {
        group: group.to_owned(),
        version: version.clone(),
        api_version: format!("{group}/{version}"),
        kind: crd["spec"]["names"]["kind"].as_str().unwrap().to_owned(),
        plural,
    };
    let namespaced = crd["spec"]["scope"] == "Namespaced";
    let api: Api<DynamicObject> = if namespaced {
        Api::default_namespaced_with(client.clone(), &resource)
    } else {
        Api::all_with(client.clone(), &resource)
    };
    eventually(
        std::time::Duration::from_secs(60),
        &format!("{name} served"),
        || {
            let crds = crds.clone();
            let name = name.clone();
            let api = api.clone();
            async move {
                let current = crds.get(&name).await?;
                let established = current
                    .status
                    .and_then(|s| s.conditions)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Established" && c.status == "True");
                if !established {
                    return Ok(None);
                }
                match api.list(&ListParams::default().limit(1)).await {
                    Ok(_) => Ok(Some(())),
                    Err(kubegen_client::Error::Api(s)) if s.code == 404 || s.code == 503 => {
                        Ok(None)
                    }
                    Err(e) => Err(e.into()),
                }
            }
        },
    )
    .await?;
    Ok(resource)
}

/// The stored object without what the server sets, and without the group.
fn normalize(mut object: Value) -> String {
    let version = object["apiVersion"]
        .as_str()
        .and_then(|v| v.rsplit('/').next())
        .unwrap_or_default()
        .to_owned();
    object["apiVersion"] = json!(version);
    if let Some(meta) = object["metadata"].as_object_mut() {
        meta.retain(|k, _| matches!(k.as_str(), "name" | "labels" | "annotations" | "finalizers"));
    }
    serde_json::to_string(&object).unwrap()
}

/// Runs one row against one resource.
async fn run_row(
    client: &kubegen_client::Client,
    resource: &ApiResource,
    namespace: Option<&str>,
    row: &Row,
) -> Result<Outcome> {
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, resource),
        None => Api::all_with(client.clone(), resource),
    };
    let name = row.object_name.clone().unwrap_or_else(|| row.name.clone());
    let object: DynamicObject = serde_json::from_value(json!({
        "apiVersion": resource.api_version,
        "kind": resource.kind,
        "metadata": { "name": name },
        "spec": row.spec,
    }))?;
    // Messages may name the group, which differs between the two.
    let verdict = |result| verdict(result).map(|v| v.replace(&resource.group, "<group>"));
    let create = if row.strict {
        verdict(
            api.patch(
                &name,
                &PatchParams::apply("kubegen-cgdiff").validation_strict(),
                &Patch::Apply(&object),
            )
            .await,
        )?
    } else {
        verdict(api.create(&PostParams::default(), &object).await)?
    };
    if create != "accepted" {
        return Ok(Outcome {
            create,
            update: None,
            stored: None,
        });
    }
    let update = match &row.update {
        Some(patch) if row.status_update => Some(verdict(
            api.patch_status(&name, &PatchParams::default(), &Patch::Merge(patch))
                .await,
        )?),
        Some(patch) => Some(verdict(
            api.patch(&name, &PatchParams::default(), &Patch::Merge(patch))
                .await,
        )?),
        None => None,
    };
    let stored = api.get(&name).await?;
    Ok(Outcome {
        create,
        update,
        stored: Some(normalize(serde_json::to_value(stored)?)),
    })
}

/// Installs both CRDs of every kind the rows use, runs every row under
/// each, and returns the outcomes: (row, controller-gen's, kubegen's).
pub async fn run(
    client: &kubegen_client::Client,
    namespace: &str,
    pairs: &[(String, Value, Value)],
    rows: &[Row],
) -> Result<Vec<(Outcome, Outcome)>> {
    let mut out = Vec::new();
    let mut installed: Vec<(String, ApiResource, ApiResource, bool)> = Vec::new();
    for row in rows {
        if !installed.iter().any(|(k, ..)| *k == row.kind) {
            let Some((_, kubegen, controller_gen)) = pairs.iter().find(|(gk, ..)| *gk == row.kind)
            else {
                bail!("no CRD pair for {}", row.kind);
            };
            let group = kubegen["spec"]["group"].as_str().unwrap();
            let ours = install(client, kubegen, group).await?;
            let theirs = install(client, controller_gen, &controller_gen_group(group)).await?;
            let namespaced = kubegen["spec"]["scope"] == "Namespaced";
            installed.push((row.kind.clone(), theirs, ours, namespaced));
        }
        let (_, theirs, ours, namespaced) =
            installed.iter().find(|(k, ..)| *k == row.kind).unwrap();
        let ns = namespaced.then_some(namespace);
        let c = run_row(client, theirs, ns, row)
            .await
            .with_context(|| format!("{} under controller-gen's CRD", row.name))?;
        let k = run_row(client, ours, ns, row)
            .await
            .with_context(|| format!("{} under kubegen's CRD", row.name))?;
        out.push((c, k));
    }
    Ok(out)
}

/// The table: object, controller-gen CRD verdict, kubegen CRD verdict,
/// stored bytes.
pub fn table(rows: &[Row], outcomes: &[(Outcome, Outcome)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<34} {:<10} | {:<60} | {:<60} | stored",
        "object", "kind", "controller-gen CRD", "kubegen CRD"
    );
    for (row, (c, k)) in rows.iter().zip(outcomes) {
        let show = |o: &Outcome| match &o.update {
            Some(u) => format!("{}; update {}", o.create, u),
            None => o.create.clone(),
        };
        let stored = match (&c.stored, &k.stored) {
            (None, None) => "-".to_owned(),
            (Some(a), Some(b)) if a == b => format!("same {} B: {b}", b.len()),
            (a, b) => format!(
                "DIFFER: controller-gen {} | kubegen {}",
                a.as_deref().unwrap_or("-"),
                b.as_deref().unwrap_or("-")
            ),
        };
        let kind = row.kind.rsplit('/').next().unwrap();
        let mark = if c == k { ' ' } else { '!' };
        let _ = writeln!(
            s,
            "{mark}{:<33} {kind:<10} | {:<60} | {:<60} | {stored}",
            row.name,
            show(c),
            show(k)
        );
    }
    s
}

/// A valid Shapes spec.
fn shapes(patch: Value) -> Value {
    merge(
        json!({
            "replicas": 1, "count": 2, "small": 3, "enabled": true, "name": "n",
            "ratio": 0.5, "color": "Red", "tags": [], "items": [], "labels": {},
            "item": {"name": "i"}, "port": 8080, "memory": "1Gi",
            "since": "2026-01-01T00:00:00Z", "tiny": 1, "origin": "o"
        }),
        patch,
    )
}

/// A valid Constraints spec.
fn constraints(patch: Value) -> Value {
    merge(
        json!({
            "low": 1, "high": 5, "slug": "abc", "words": ["ab"], "version": "v1",
            "owner": "me", "must": "x", "fromName": "a"
        }),
        patch,
    )
}

/// A valid Workload spec.
fn workload(patch: Value) -> Value {
    merge(
        json!({
            "template": {"spec": {"containers": [
                {"name": "app", "image": "nginx", "ports": [{"containerPort": 80}]}
            ]}}
        }),
        patch,
    )
}

/// JSON merge patch (RFC 7386): `null` removes.
fn merge(mut base: Value, patch: Value) -> Value {
    match (base.as_object_mut(), patch) {
        (Some(b), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    b.remove(&k);
                } else {
                    let old = b.remove(&k).unwrap_or(Value::Null);
                    b.insert(k, merge(old, v));
                }
            }
            base
        }
        (_, patch) => patch,
    }
}

/// `spec` with `field` set to `null` (which a merge patch cannot say).
fn with_null(mut spec: Value, field: &str) -> Value {
    spec[field] = Value::Null;
    spec
}

const WORKLOAD: &str = "shapes.cgdiff.example.com/Workload";
const SHAPES: &str = "shapes.cgdiff.example.com/Shapes";
const CONSTRAINTS: &str = "shapes.cgdiff.example.com/Constraints";
const APP: &str = "stable.example.com/MyApplication";
const LOOSE: &str = "loose.cgdiff.example.com/Loose";
const LEGACY: &str = "shapes.cgdiff.example.com/Legacy";

/// The table's objects.
pub fn rows() -> Vec<Row> {
    let no_containers = json!({"template": {"spec": {"containers": null}}});
    vec![
        // Pod templates and other built-in types.
        row("w-valid-relies-on-defaults", WORKLOAD, workload(json!({}))),
        row("w-no-containers", WORKLOAD, workload(no_containers)),
        row(
            "w-empty-containers",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": []}}})),
        ),
        row(
            "w-container-without-name",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": [{"image": "nginx"}]}}})),
        ),
        row(
            "w-container-unknown-field",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": [
                {"name": "app", "image": "nginx", "bogus": 1}
            ]}}})),
        ),
        row(
            "w-container-unknown-field-strict",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": [
                {"name": "app", "image": "nginx", "bogus": 1}
            ]}}})),
        )
        .strict(),
        row(
            "w-template-metadata",
            WORKLOAD,
            workload(json!({"template": {"metadata": {
                "name": "t", "labels": {"app": "w"}, "annotations": {"a": "b"},
                "finalizers": ["x/y"], "generateName": "g-", "uid": "u"
            }}})),
        ),
        row(
            "w-job-template-no-containers",
            WORKLOAD,
            workload(json!({"jobTemplate": {"spec": {"template": {"spec": {}}}}})),
        ),
        row(
            "w-job-template-valid",
            WORKLOAD,
            workload(json!({"jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "job", "image": "busybox"}]
            }}}}})),
        ),
        row(
            "w-resources-bad-quantity",
            WORKLOAD,
            workload(json!({"resources": {"limits": {"cpu": "12abc"}}})),
        ),
        row(
            "w-resources-valid",
            WORKLOAD,
            workload(
                json!({"resources": {"limits": {"cpu": "500m"}, "requests": {"memory": 1024}}}),
            ),
        ),
        row(
            "w-service-relies-on-defaults",
            WORKLOAD,
            workload(json!({"service": {"ports": [{"port": 80}]}})),
        ),
        row(
            "w-service-port-without-port",
            WORKLOAD,
            workload(json!({"service": {"ports": [{"name": "http"}]}})),
        ),
        row(
            "w-volume-without-name",
            WORKLOAD,
            workload(json!({"volumes": [{"emptyDir": {}}]})),
        ),
        row(
            "w-volume-duplicate-name",
            WORKLOAD,
            workload(json!({"template": {"spec": {"volumes": [
                {"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}
            ]}}})),
        ),
        row(
            "w-selector-expression",
            WORKLOAD,
            workload(json!({"selector": {"matchExpressions": [
                {"key": "a", "operator": "In", "values": ["x"]}
            ]}})),
        ),
        row(
            "w-selector-expression-without-key",
            WORKLOAD,
            workload(json!({"selector": {"matchExpressions": [{"operator": "Exists"}]}})),
        ),
        row(
            "w-affinity-term-without-key",
            WORKLOAD,
            workload(json!({"affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"operator": "Exists"}]}]
                }
            }}})),
        ),
        row(
            "w-owner-reference",
            WORKLOAD,
            workload(json!({"owner": {"kind": "ConfigMap", "name": "c", "bogus": true}})),
        ),
        row(
            "w-container-duplicate-port",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": [{
                "name": "app", "image": "nginx",
                "ports": [{"containerPort": 80}, {"containerPort": 80}]
            }]}}})),
        ),
        row(
            "w-env-from-field",
            WORKLOAD,
            workload(json!({"template": {"spec": {"containers": [{
                "name": "app", "image": "nginx",
                "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]
            }]}}})),
        ),
        // Field shapes.
        row("s-valid", SHAPES, shapes(json!({}))),
        row("s-bad-enum", SHAPES, shapes(json!({"color": "Purple"}))),
        row(
            "s-primary-green",
            SHAPES,
            shapes(json!({"primary": "Green"})),
        ),
        row("s-primary-blue", SHAPES, shapes(json!({"primary": "Blue"})))
            .differs("controller-gen drops the field's enum over the type's: Blue is stored"),
        row(
            "s-primary-purple",
            SHAPES,
            shapes(json!({"primary": "Purple"})),
        )
        .differs("kubegen's CRD also reports the field's enum (under allOf)"),
        // controller-gen's CRD stores them, though a Rust (or Go) reader's
        // u8, i16 or u32 cannot hold them; kubegen's bounds the widths.
        row("s-octet-beyond-u8", SHAPES, shapes(json!({"octet": 300})))
            .differs("kubegen bounds a u8: maximum 255"),
        row("s-tiny-beyond-i16", SHAPES, shapes(json!({"tiny": 40000})))
            .differs("kubegen bounds an i16: maximum 32767"),
        row(
            "s-u32-beyond-i32",
            SHAPES,
            shapes(json!({"small": 3_000_000_000_u64})),
        )
        .differs("controller-gen's uint32 is format int32, which refuses 3e9; kubegen's u32 is int64 up to 4294967295"),
        row(
            "s-u32-beyond-u32",
            SHAPES,
            shapes(json!({"small": 5_000_000_000_u64})),
        )
        .differs("kubegen bounds a u32: maximum 4294967295"),
        row(
            "s-flattened-required-missing",
            SHAPES,
            shapes(json!({"origin": null})),
        ),
        row(
            "s-set-duplicate",
            SHAPES,
            shapes(json!({"members": ["a", "a"]})),
        ),
        row(
            "s-skipped-field-pruned",
            SHAPES,
            shapes(json!({"cache": "c"})),
        ),
        row("s-bad-quantity", SHAPES, shapes(json!({"memory": "12abc"}))),
        row(
            "s-int-or-string-as-string",
            SHAPES,
            shapes(json!({"port": "http"})),
        ),
        row(
            "s-int-or-string-as-bool",
            SHAPES,
            shapes(json!({"port": true})),
        ),
        row(
            "s-unknown-field-pruned",
            SHAPES,
            shapes(json!({"bogus": 1})),
        ),
        row(
            "s-open-keeps-unknown-fields",
            SHAPES,
            shapes(json!({"open": {"known": "k", "extra": {"a": 1}}})),
        ),
        row(
            "s-embedded-without-kind",
            SHAPES,
            shapes(json!({"template": {"metadata": {"name": "x"}}})),
        ),
        row(
            "s-embedded-valid",
            SHAPES,
            shapes(json!({"template": {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "x", "bogus": 1}, "data": {"a": "b"}}})),
        ),
        row(
            "s-conditions-duplicate-type",
            SHAPES,
            shapes(json!({"conditions": [
                {"type": "Ready", "status": "True", "reason": "R", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"type": "Ready", "status": "False", "reason": "R", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
            ]})),
        ),
        row("s-bad-time", SHAPES, shapes(json!({"since": "yesterday"}))),
        row("s-integer-for-float", SHAPES, shapes(json!({"ratio": 1}))),
        row("s-negative-unsigned", SHAPES, shapes(json!({"small": -1}))).differs(
            "on purpose: kubegen gives a u32 minimum: 0, controller-gen's uint32 has no bound",
        ),
        row(
            "s-float-for-integer",
            SHAPES,
            shapes(json!({"replicas": 1.5})),
        ),
        row(
            "s-missing-required",
            SHAPES,
            shapes(json!({"name": null, "tags": null})),
        ),
        row(
            "s-null-list",
            SHAPES,
            with_null(shapes(json!({})), "numbers"),
        ),
        row(
            "s-bad-base64",
            SHAPES,
            shapes(json!({"data": "not base64!"})),
        ),
        // Constraints.
        row(
            "c-valid-relies-on-defaults",
            CONSTRAINTS,
            constraints(json!({})),
        ),
        row(
            "c-low-below-minimum",
            CONSTRAINTS,
            constraints(json!({"low": 0})),
        ),
        row(
            "c-high-at-exclusive-maximum",
            CONSTRAINTS,
            constraints(json!({"high": 100})),
        ),
        row(
            "c-high-at-exclusive-minimum",
            CONSTRAINTS,
            constraints(json!({"low": 0, "high": 0})),
        ),
        row(
            "c-high-not-multiple",
            CONSTRAINTS,
            constraints(json!({"high": 7})),
        ),
        row(
            "c-low-above-high",
            CONSTRAINTS,
            constraints(json!({"low": 9, "high": 5})),
        ),
        row(
            "c-slug-pattern",
            CONSTRAINTS,
            constraints(json!({"slug": "Bad_Slug"})),
        ),
        row(
            "c-slug-too-long",
            CONSTRAINTS,
            constraints(json!({"slug": "a".repeat(64)})),
        ),
        row(
            "c-words-empty",
            CONSTRAINTS,
            constraints(json!({"words": []})),
        ),
        row(
            "c-word-too-short",
            CONSTRAINTS,
            constraints(json!({"words": ["a"]})),
        ),
        row(
            "c-word-pattern",
            CONSTRAINTS,
            constraints(json!({"words": ["ab1"]})),
        ),
        row(
            "c-unique-duplicate",
            CONSTRAINTS,
            constraints(json!({"unique": ["a", "a"]})),
        ),
        row(
            "c-entries-duplicate-key",
            CONSTRAINTS,
            constraints(json!({"entries": [{"name": "a"}, {"name": "a"}]})),
        ),
        row(
            "c-version-rule",
            CONSTRAINTS,
            constraints(json!({"version": "x1"})),
        ),
        row(
            "c-version-message-expression",
            CONSTRAINTS,
            constraints(json!({"version": "v123456789"})),
        ),
        row(
            "c-both-sources",
            CONSTRAINTS,
            constraints(json!({"fromNumber": 1})),
        ),
        row(
            "c-no-source",
            CONSTRAINTS,
            constraints(json!({"fromName": null})),
        ),
        row(
            "c-settings-too-many",
            CONSTRAINTS,
            constraints(json!({"settings": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}})),
        ),
        row(
            "c-must-missing",
            CONSTRAINTS,
            constraints(json!({"must": null})),
        ),
        row(
            "c-bad-email",
            CONSTRAINTS,
            constraints(json!({"email": "nope"})),
        ),
        row(
            "c-nullable-null",
            CONSTRAINTS,
            with_null(constraints(json!({})), "nothing"),
        ),
        row(
            "c-not-nullable-null",
            CONSTRAINTS,
            with_null(constraints(json!({})), "email"),
        ),
        row(
            "c-sizes-item-rule",
            CONSTRAINTS,
            constraints(json!({"sizes": ["1", "0"]})),
        ),
        row("c-owner-immutable", CONSTRAINTS, constraints(json!({})))
            .update(json!({"spec": {"owner": "someone-else"}})),
        row("c-owner-unchanged", CONSTRAINTS, constraints(json!({})))
            .update(json!({"spec": {"slug": "other"}})),
        // Package-level Optional, an unserved version, +k8s:enum, +default=.
        row("l-empty", LOOSE, json!({})),
        row("l-key-only", LOOSE, json!({"key": "k", "part": {}})),
        row(
            "g-relies-on-json-default",
            LEGACY,
            json!({"phase": "Pending"}),
        ),
        row("g-bad-phase", LEGACY, json!({"phase": "Gone"})),
        // The example.
        row(
            "m-status-condition-defaults",
            APP,
            json!({"image": "nginx"}),
        )
        .status_update(json!({"status": {"conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}
        ]}}))
        .differs("on purpose: kubegen's #[serde(default)] String fields default to \"\""),
        row("m-valid-relies-on-defaults", APP, json!({"image": "nginx"})),
        row("m-empty-image", APP, json!({"image": ""})),
        row("m-port-too-low", APP, json!({"image": "nginx", "port": 70})),
        row(
            "m-replicas-zero",
            APP,
            json!({"image": "nginx", "replicas": 0}),
        ),
        row("m-name-too-long", APP, json!({"image": "nginx"})).named("a".repeat(56)),
        row("m-name-pattern", APP, json!({"image": "nginx"})).named("bad.name".to_owned()),
    ]
}

/// A value for a field holding `scalar`: valid or not for the field's
/// constraints, the point is only that both CRDs judge it alike.
fn sample(rng: &mut Rng, scalar: Scalar) -> Value {
    let long = "a".repeat(300);
    let pool: Vec<Value> = match scalar {
        Scalar::I32 | Scalar::I64 => vec![
            json!(0),
            json!(1),
            json!(3),
            json!(7),
            json!(10),
            json!(5000),
            json!(-5),
        ],
        Scalar::Bool => vec![json!(true), json!(false)],
        Scalar::Str => vec![
            json!(""),
            json!("a"),
            json!("abc"),
            json!("ABC-1"),
            json!("v2"),
            json!("alpha"),
            json!("x@example.com"),
            json!("forbidden"),
            json!("http://example.com/a"),
            json!(long),
        ],
        Scalar::F64 => vec![json!(0.25), json!(1.0), json!(3)],
        Scalar::Color => vec![json!("Red"), json!("Green"), json!("Purple")],
        Scalar::IntOrString => vec![json!(80), json!("80%"), json!("http")],
        Scalar::Quantity => vec![json!("1Gi"), json!("500m"), json!("12abc"), json!(3)],
        Scalar::Time => vec![json!("2026-01-01T00:00:00Z"), json!("yesterday")],
        Scalar::Code => vec![
            json!("abc"),
            json!("ABC"),
            json!("abcdefghijklmnop"),
            json!(""),
        ],
        Scalar::Level => vec![json!("low"), json!("high"), json!("mid")],
        Scalar::Nested => vec![
            json!({"name": "a"}),
            json!({"name": "b", "count": 2}),
            json!({"count": 1}),
            json!({"name": "c", "extra": {"x": 1}}),
        ],
    };
    rng.pick(&pool).clone()
}

/// A random spec for a generated case's fields.
fn fuzzed(rng: &mut Rng, fields: &[(Scalar, Wrap)]) -> Value {
    let mut spec = serde_json::Map::new();
    for (j, (scalar, wrap)) in fields.iter().enumerate() {
        let present = *wrap == Wrap::Value || *wrap == Wrap::List || rng.chance(70, 100);
        if !present {
            continue;
        }
        let value = match wrap {
            Wrap::Value | Wrap::Optional => sample(rng, *scalar),
            Wrap::List | Wrap::OptionalList => {
                Value::Array((0..rng.below(4)).map(|_| sample(rng, *scalar)).collect())
            }
            Wrap::Map => Value::Object(
                (0..rng.below(4))
                    .map(|k| (format!("k{k}"), sample(rng, *scalar)))
                    .collect(),
            ),
        };
        spec.insert(format!("f{j}"), value);
    }
    if rng.chance(15, 100) {
        spec.insert("unknown".to_owned(), json!(1));
    }
    Value::Object(spec)
}

/// For the first `n` generated cases (of the generator seeded `seed`): an
/// object with an empty spec (refused for the same required fields, or
/// stored with the same defaults), one whose every field is `null`, and
/// `fuzz` objects with random values.
pub fn random_rows(seed: u64, n: usize, fuzz: usize) -> Vec<Row> {
    (0..n)
        .flat_map(|i| {
            let kind = format!("{}/Random{i:03}", super::random::GROUP);
            let fields = super::random::fields(seed, i);
            let nulls: serde_json::Map<String, Value> = (0..fields.len())
                .map(|j| (format!("f{j}"), Value::Null))
                .collect();
            let mut rows = vec![
                row(&format!("r{i:03}-empty"), &kind, json!({})),
                row(&format!("r{i:03}-nulls"), &kind, Value::Object(nulls)),
            ];
            let mut rng = Rng::new(seed ^ 0x5eed ^ i as u64);
            for k in 0..fuzz {
                rows.push(row(
                    &format!("r{i:03}-fuzz{k}"),
                    &kind,
                    fuzzed(&mut rng, &fields),
                ));
            }
            rows
        })
        .collect()
}
