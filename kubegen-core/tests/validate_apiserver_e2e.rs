//! `kubegen_core::validate` against the real kube-apiserver: seeded CRDs
//! are installed on the test plane and seeded objects — valid ones and ones
//! broken as users break them — are created with a server-side dry run and
//! strict field validation. Each verdict is compared with kubegen's: the
//! same objects accepted; unknown fields refused as the same fields; every
//! other refusal with the same causes (field and message) as the
//! apiserver's `Status`.
//!
//! `KUBEGEN_VALIDATE_E2E_CRDS` (default 6) CRDs of
//! `KUBEGEN_VALIDATE_E2E_OBJECTS` (default 80) objects each;
//! `KUBEGEN_VALIDATE_SEED` the seed.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::api::{Api, Patch, PatchParams};
use kubegen_core::rng::Rng;
use kubegen_testenv::{TestEnv, eventually};
use serde_json::Value;

#[path = "support/differences.rs"]
mod differences;
#[path = "support/widgets.rs"]
mod widgets;
use widgets::{mix, root_schema, widget, widget_crd};

/// The apiserver's answer to a dry-run create: accepted, or the unknown
/// fields strict validation refused, or the causes of a 422, or the
/// message of a 400 its decoding gave (kubegen's: every message the
/// apiserver may give, which depends on Go's map order).
#[derive(Debug)]
enum Verdict {
    Accepted,
    Unknown(Vec<String>),
    Invalid(Vec<(String, String)>),
    BadRequest(Vec<String>),
}

/// What the apiserver wraps a decoding error of a `Widget` in.
const UNDECODABLE: &str = "Widget in version \"v1\" cannot be handled as a Widget: ";

impl PartialEq for Verdict {
    /// The same verdict: for a 400, the apiserver's message is one of
    /// kubegen's.
    fn eq(&self, other: &Verdict) -> bool {
        match (self, other) {
            (Verdict::Accepted, Verdict::Accepted) => true,
            (Verdict::Unknown(a), Verdict::Unknown(b)) => a == b,
            (Verdict::Invalid(a), Verdict::Invalid(b)) => a == b,
            (Verdict::BadRequest(a), Verdict::BadRequest(b)) => {
                let one = |one: &[String], many: &[String]| {
                    one.len() == 1 && many.iter().any(|m| *m == one[0])
                };
                one(a, b) || one(b, a)
            }
            _ => false,
        }
    }
}

async fn dry_run(
    client: &kubegen_client::Client,
    group: &str,
    namespaced: bool,
    object: &Value,
) -> Verdict {
    let namespace = object
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("default");
    let path = if namespaced {
        format!("/apis/{group}/v1/namespaces/{namespace}/widgets?dryRun=All&fieldValidation=Strict")
    } else {
        format!("/apis/{group}/v1/widgets?dryRun=All&fieldValidation=Strict")
    };
    let request = http::Request::post(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(object).unwrap())
        .unwrap();
    verdict(client.request_text(request).await)
}

/// The verdict of a dry-run request's response.
fn verdict(response: Result<String, kubegen_client::Error>) -> Verdict {
    match response {
        Ok(_) => Verdict::Accepted,
        Err(kubegen_client::Error::Api(status)) => {
            let text = serde_json::to_value(&status).unwrap();
            let message = text["message"].as_str().unwrap_or("").to_string();
            if status.code == 400 && message.contains("strict decoding error") {
                let mut fields: Vec<String> = message
                    .split("unknown field \"")
                    .skip(1)
                    .map(|rest| rest.split('"').next().unwrap_or("").to_string())
                    .collect();
                fields.sort();
                return Verdict::Unknown(fields);
            }
            if status.code == 400 {
                let why = message.strip_prefix(UNDECODABLE).unwrap_or(&message);
                return Verdict::BadRequest(vec![why.to_string()]);
            }
            assert_eq!(status.code, 422, "{message}");
            let mut causes: Vec<(String, String)> = text["details"]["causes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|c| {
                    (
                        c["field"].as_str().unwrap_or("").to_string(),
                        c["message"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect();
            causes.sort();
            Verdict::Invalid(causes)
        }
        Err(e) => panic!("dry run: {e}"),
    }
}

/// `schema` without the rules its `allOf` entries hold: the apiserver
/// refuses them in a new CRD (`must be empty to be structural`; only a CRD
/// that already had them may keep them), so the plane cannot hold them.
/// `tests/validate_differential.rs` runs them through the apiserver's own
/// validator.
fn without_rules_under_all_of(mut schema: Value) -> Value {
    fn strip(v: &mut Value, inside: bool) {
        match v {
            Value::Object(m) => {
                if inside {
                    m.remove("x-kubernetes-validations");
                }
                for (k, sub) in m.iter_mut() {
                    strip(sub, inside || k == "allOf");
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| strip(i, inside)),
            _ => {}
        }
    }
    strip(&mut schema, false);
    schema
}

fn ours(crd: &Value, object: &Value) -> Verdict {
    let outcome = kubegen_core::validate::validate_create(crd, object).expect("the CRD's kind");
    verdict_of(&outcome)
}

/// kubegen's verdict as the apiserver would give it.
fn verdict_of(outcome: &kubegen_core::validate::Outcome) -> Verdict {
    if !outcome.undecodable.is_empty() {
        return Verdict::BadRequest(outcome.undecodable.clone());
    }
    if !outcome.unknown_fields.is_empty() {
        return Verdict::Unknown(outcome.unknown_fields.clone());
    }
    if outcome.errors.is_empty() {
        return Verdict::Accepted;
    }
    let mut causes: Vec<(String, String)> = outcome
        .errors
        .iter()
        .map(|e| (e.field.clone(), e.body()))
        .collect();
    causes.sort();
    Verdict::Invalid(causes)
}

#[tokio::test]
async fn dry_run_verdicts_agree_with_kubegens() {
    let var = |k: &str, d: usize| std::env::var(k).map_or(d, |v| v.parse().unwrap());
    let crds = var("KUBEGEN_VALIDATE_E2E_CRDS", 6);
    let objects = var("KUBEGEN_VALIDATE_E2E_OBJECTS", 80);
    let seed = var("KUBEGEN_VALIDATE_SEED", 42) as u64;
    let env = TestEnv::shared().await.expect("the test plane");
    let client = env.client().await.expect("a client");
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    // The namespace the generated metadata names.
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    let team = serde_json::from_value(serde_json::json!({"metadata": {"name": "team-a"}})).unwrap();
    let _ = namespaces.create(&Default::default(), &team).await;
    let mut rng = Rng::new(seed ^ 0xe2e);
    let (mut accepted, mut unknown, mut invalid, mut refused_crds) = (0, 0, 0, 0);
    let mut undecodable = 0;
    let mut differences = Vec::new();
    for i in 0..crds {
        let group = format!("v{seed}x{i}.validate.kubegen.dev");
        let schema = without_rules_under_all_of(root_schema(&mut rng));
        let namespaced = rng.chance(1, 2);
        let crd = widget_crd(&schema, &group, namespaced);
        let name = format!("widgets.{group}");
        // A generated CRD kubegen refuses (a default failing its field's
        // rules, a rule over its cost budget) must be refused by the
        // apiserver too, with the same messages — the defaults' only when
        // both, as the apiserver checks rules only on a schema whose
        // defaults pass (`ValidateDefaults` before any CEL context).
        let mut problems: Vec<String> = kubegen_core::validate::rules::failing_defaults(&schema)
            .iter()
            .map(|(_, _, e)| e.body())
            .collect();
        if problems.is_empty() {
            problems = kubegen_core::cel::check_schema(&schema, true, |_| true)
                .iter()
                .map(|p| p.error.message().to_string())
                .collect();
        }
        let installed = api
            .patch(
                &name,
                &PatchParams::apply("kubegen-validate-e2e").force(),
                &Patch::Apply(&crd),
            )
            .await;
        match (problems.is_empty(), installed) {
            (true, Ok(_)) => {}
            (false, Err(e)) => {
                let e = e.to_string();
                for p in &problems {
                    assert!(e.contains(p.as_str()), "{p} not in {e}\nschema {schema}");
                }
                refused_crds += 1;
                continue;
            }
            (true, Err(e)) => panic!("the apiserver refused the CRD {name}: {e}\n{crd}"),
            (false, Ok(_)) => {
                panic!("the apiserver accepted the CRD {name} kubegen refuses: {problems:?}")
            }
        }
        eventually(Duration::from_secs(60), "the CRD served", || async {
            let request = http::Request::get(format!("/apis/{group}/v1")).body(Vec::new())?;
            client.request_text(request).await?;
            Ok(Some(()))
        })
        .await
        .expect("served");
        for _ in 0..objects {
            let object = widget(&mut rng, &schema, &group);
            let theirs = dry_run(&client, &group, namespaced, &object).await;
            let mine = ours(&crd, &object);
            match &theirs {
                Verdict::Accepted => accepted += 1,
                Verdict::Unknown(_) => unknown += 1,
                Verdict::Invalid(_) => invalid += 1,
                Verdict::BadRequest(_) => undecodable += 1,
            }
            if theirs != mine {
                differences.push(format!(
                    "schema {schema}\nobject {object}\n  kubegen:   {mine:?}\n  apiserver: {theirs:?}"
                ));
            }
        }
        let _ = api.delete(&name, &Default::default()).await;
    }
    eprintln!(
        "{} objects on {} CRDs ({refused_crds} more CRDs refused by both: a rule over its cost budget, or a default failing its field's rules): {accepted} accepted, {unknown} refused for unknown fields, {undecodable} refused while decoded (400), {invalid} invalid; {} differences",
        accepted + unknown + invalid + undecodable,
        crds - refused_crds,
        differences.len()
    );
    differences::assert_none(&differences, 6);
}

/// A dry-run update (`PUT`) of `object` with strict field validation.
async fn dry_run_update(client: &kubegen_client::Client, group: &str, object: &Value) -> Verdict {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = object["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default");
    let path = format!(
        "/apis/{group}/v1/namespaces/{namespace}/widgets/{name}?dryRun=All&fieldValidation=Strict"
    );
    let request = http::Request::put(path)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(object).unwrap())
        .unwrap();
    verdict(client.request_text(request).await)
}

/// Updates on the real plane: objects stored under a CRD that accepted
/// anything, the CRD then given a generated schema (so many stored
/// objects break it, as after a CRD tightens), and each object replaced
/// by one keeping part of it, with a server-side dry run: the apiserver's
/// verdict — ratcheting, transition rules and all — against
/// `kubegen_core::validate::validate_update` of the object as the
/// apiserver returns it.
#[tokio::test]
async fn dry_run_updates_agree_with_kubegens() {
    let var = |k: &str, d: usize| std::env::var(k).map_or(d, |v| v.parse().unwrap());
    let crds = var("KUBEGEN_VALIDATE_E2E_CRDS", 6);
    let objects = var("KUBEGEN_VALIDATE_E2E_OBJECTS", 80) / 2;
    let seed = var("KUBEGEN_VALIDATE_SEED", 42) as u64;
    let env = TestEnv::shared().await.expect("the test plane");
    let client = env.client().await.expect("a client");
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut rng = Rng::new(seed ^ 0x0e2e0);
    let (mut compared, mut accepted, mut unknown, mut invalid, mut unevaluated) = (0, 0, 0, 0, 0);
    let mut unreadable = 0;
    let mut differences = Vec::new();
    for i in 0..crds {
        let group = format!("u{seed}x{i}.validate.kubegen.dev");
        let schema = without_rules_under_all_of(root_schema(&mut rng));
        if !kubegen_core::cel::check_schema(&schema, true, |_| true).is_empty()
            || !kubegen_core::validate::rules::failing_defaults(&schema).is_empty()
        {
            continue;
        }
        let crd = widget_crd(&schema, &group, true);
        let loose = widget_crd(
            &serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            &group,
            true,
        );
        let name = format!("widgets.{group}");
        let apply = PatchParams::apply("kubegen-validate-e2e").force();
        api.patch(&name, &apply, &Patch::Apply(&loose))
            .await
            .expect("the loose CRD");
        let collection = format!("/apis/{group}/v1/namespaces/default/widgets");
        eventually(Duration::from_secs(60), "the CRD served", || async {
            client
                .request_text(http::Request::get(collection.clone()).body(Vec::new())?)
                .await?;
            Ok(Some(()))
        })
        .await
        .expect("served");
        // Stored while the CRD accepted anything.
        let mut stored_first = Vec::new();
        for j in 0..objects {
            let mut old = widget(&mut rng, &schema, &group);
            old["metadata"] = serde_json::json!({"name": format!("w{j}"), "namespace": "default"});
            let request = http::Request::post(collection.clone())
                .header("content-type", "application/json")
                .body(serde_json::to_vec(&old).unwrap())
                .unwrap();
            client.request_text(request).await.expect("stored");
            stored_first.push(old);
        }
        api.patch(&name, &apply, &Patch::Apply(&crd))
            .await
            .expect("the schema");
        // The schema in effect: a spec that is no object is refused.
        eventually(Duration::from_secs(60), "the schema in effect", || async {
            let canary = serde_json::json!({"apiVersion": format!("{group}/v1"), "kind": "Widget",
                "metadata": {"name": "canary", "namespace": "default"}, "spec": 12345});
            let verdict = dry_run(&client, &group, true, &canary).await;
            Ok((verdict != Verdict::Accepted).then_some(()))
        })
        .await
        .expect("in effect");
        for first in &stored_first {
            let name = first["metadata"]["name"].as_str().unwrap_or_default();
            let request = http::Request::get(format!("{collection}/{name}"))
                .body(Vec::new())
                .unwrap();
            let old: Value = match client.request_text(request).await {
                Ok(text) => serde_json::from_str(&text).unwrap(),
                // An embedded resource's metadata the new schema cannot
                // read (stored as a string while the CRD took anything):
                // the apiserver cannot serve the object any more (500),
                // so no `--old` holds it.
                Err(kubegen_client::Error::Api(status)) if status.code == 500 => {
                    unreadable += 1;
                    continue;
                }
                Err(e) => panic!("read back: {e}"),
            };
            let other = widget(&mut rng, &schema, &group);
            let mut new = if rng.chance(1, 8) {
                first.clone()
            } else {
                mix(&mut rng, first, &other)
            };
            new["apiVersion"] = old["apiVersion"].clone();
            new["kind"] = old["kind"].clone();
            new["metadata"] = serde_json::json!({"name": name, "namespace": "default",
                "resourceVersion": old["metadata"]["resourceVersion"]});
            let theirs = dry_run_update(&client, &group, &new).await;
            let outcome =
                kubegen_core::validate::validate_update(&crd, &new, &old).expect("the CRD's kind");
            let mine = verdict_of(&outcome);
            if !outcome.rules_not_evaluated.is_empty() && theirs != mine {
                unevaluated += 1;
                continue;
            }
            compared += 1;
            match &theirs {
                Verdict::Accepted => accepted += 1,
                Verdict::Unknown(_) => unknown += 1,
                Verdict::Invalid(_) | Verdict::BadRequest(_) => invalid += 1,
            }
            if theirs != mine {
                differences.push(format!(
                    "schema {schema}\nold {old}\nnew {new}\n  kubegen:   {mine:?}\n  apiserver: {theirs:?}"
                ));
            }
        }
        let _ = api.delete(&name, &Default::default()).await;
    }
    eprintln!(
        "{compared} updates compared: {accepted} accepted, {unknown} refused for unknown fields, {invalid} invalid; {unevaluated} differing only where kubegen lists a rule as not evaluated; {unreadable} stored objects the apiserver could not read back under the new schema; {} differences",
        differences.len()
    );
    assert!(compared > 0, "no CRD took");
    differences::assert_none(&differences, 6);
}
