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
use kube::api::{Api, Patch, PatchParams};
use kubegen_core::rng::Rng;
use kubegen_testenv::{TestEnv, eventually};
use serde_json::Value;

#[path = "support/widgets.rs"]
mod widgets;
use widgets::{root_schema, widget, widget_crd};

/// The apiserver's answer to a dry-run create: accepted, or the unknown
/// fields strict validation refused, or the causes of a 422.
#[derive(Debug, PartialEq)]
enum Verdict {
    Accepted,
    Unknown(Vec<String>),
    Invalid(Vec<(String, String)>),
}

async fn dry_run(client: &kube::Client, group: &str, namespaced: bool, object: &Value) -> Verdict {
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
    match client.request_text(request).await {
        Ok(_) => Verdict::Accepted,
        Err(kube::Error::Api(status)) => {
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

fn ours(crd: &Value, object: &Value) -> Verdict {
    let outcome = kubegen_core::validate::validate_create(crd, object).expect("the CRD's kind");
    if !outcome.unknown_fields.is_empty() {
        return Verdict::Unknown(outcome.unknown_fields);
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
    let mut differences = Vec::new();
    for i in 0..crds {
        let group = format!("v{seed}x{i}.validate.kubegen.dev");
        let schema = root_schema(&mut rng);
        let namespaced = rng.chance(1, 2);
        let crd = widget_crd(&schema, &group, namespaced);
        let name = format!("widgets.{group}");
        // A generated CRD kubegen refuses (a rule over its cost budget, a
        // default failing its field's rules) must be refused by the
        // apiserver too, with the same messages.
        let mut problems: Vec<String> = kubegen_core::cel::check_schema(&schema, true, |_| true)
            .iter()
            .map(|p| p.error.message().to_string())
            .collect();
        if problems.is_empty() {
            problems = kubegen_core::validate::rules::failing_defaults(&schema)
                .iter()
                .map(|(_, _, e)| e.body())
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
                    assert!(e.contains(p.as_str()), "{p} not in {e}");
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
        "{} objects on {} CRDs ({refused_crds} more CRDs refused by both: a rule over its cost budget, or a default failing its field's rules): {accepted} accepted, {unknown} refused for unknown fields, {invalid} invalid; {} differences",
        accepted + unknown + invalid,
        crds - refused_crds,
        differences.len()
    );
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences
            .iter()
            .take(6)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
