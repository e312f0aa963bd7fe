//! Least privilege, proven from the apiserver's audit log: the operator
//! runs a workload that takes every path of its reconcile (create, spec
//! change, drift on both children, a foreign object in the way, a write
//! refused by a quota and retried, recovery, children of an earlier
//! incarnation replaced, deletion) and leader election
//! (acquire, renew, release); the permissions it used — `(verb, group,
//! resource)` from the audit records of its ServiceAccount — must equal
//! what the generated ClusterRole grants, and nothing may have been
//! denied.
//!
//! The operator runs with paginated lists (LIST, then WATCH): the path its
//! informers fall back to when an apiserver rejects streaming lists, and a
//! superset of what streaming lists use (WATCH alone) — so `list` is
//! granted for a path that is proven here, not on faith.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kubegen::api::{DeleteParams, Patch, PatchParams, PostParams};
use kubegen_testenv::{TestEnv, eventually};
use my_application::api::{MyApplication, MyApplicationSpec};
use my_application::operator::{self, Options};
use support::Fixture;

const CONVERGE: Duration = Duration::from_secs(120);

fn spec(replicas: i32) -> MyApplicationSpec {
    MyApplicationSpec {
        image: "nginx".into(),
        replicas,
        port: 80,
    }
}

/// Every `(verb, group, resource)` the generated role grants.
fn granted() -> Result<BTreeSet<(String, String, String)>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/rbac/role.yaml");
    let value: serde_json::Value = serde_yaml::from_str(&std::fs::read_to_string(path)?)?;
    let role: ClusterRole = serde_json::from_value(value)?;
    let mut granted = BTreeSet::new();
    for rule in role.rules.unwrap_or_default() {
        for group in rule.api_groups.unwrap_or_default() {
            for resource in rule.resources.clone().unwrap_or_default() {
                for verb in &rule.verbs {
                    granted.insert((verb.clone(), group.clone(), resource.clone()));
                }
            }
        }
    }
    Ok(granted)
}

#[tokio::test]
async fn the_generated_role_grants_exactly_what_the_operator_uses() -> Result<()> {
    let mut f = Fixture::prepare(TestEnv::shared().await?, "least-privilege").await?;
    let options = Options {
        paginated_lists: true,
        ..Options::for_namespace(&f.ns)
    };
    f.operator = Some(operator::start(f.operator_client.clone(), options).await?);
    let apps = f.apps();

    // Create, then change the spec: both children written, status patched.
    apps.create(&PostParams::default(), &MyApplication::new("web", spec(1)))
        .await?;
    f.wait_ready("web", 1).await?;
    apps.patch(
        "web",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({ "spec": { "replicas": 2, "port": 8080 } })),
    )
    .await?;
    f.wait_ready("web", 2).await?;

    // Drift on the Service: a field the operator applied, changed by
    // another writer, is taken back (a conflict, then a forced apply).
    f.services()
        .patch(
            "web-service",
            &PatchParams::default(),
            &Patch::Merge(
                serde_json::json!({ "spec": { "selector": { "myapplication_cr": "other" } } }),
            ),
        )
        .await?;
    eventually(CONVERGE, "the Service selector to be reverted", || async {
        let service = f.services().get("web-service").await?;
        let selector = service.spec.and_then(|s| s.selector).unwrap_or_default();
        Ok((selector.get("myapplication_cr").map(String::as_str) == Some("web")).then_some(()))
    })
    .await?;

    // A foreign Deployment in the way: a Failed condition and an event.
    let foreign: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": { "name": "taken-deployment" },
        "spec": {
            "selector": { "matchLabels": { "app": "foreign" } },
            "template": { "metadata": { "labels": { "app": "foreign" } },
                          "spec": { "containers": [{ "name": "x", "image": "busybox" }] } },
        },
    }))?;
    f.deployments()
        .create(&PostParams::default(), &foreign)
        .await?;
    apps.create(
        &PostParams::default(),
        &MyApplication::new("taken", spec(1)),
    )
    .await?;
    eventually(CONVERGE, "the conflict to be reported", || async {
        Ok((f.events_with_reason("ErrResourceExists").await? >= 1).then_some(()))
    })
    .await?;

    // A refused Service, retried until the quota goes: the repeated
    // Warning event is patched into a series.
    let quotas = f.forbid_services().await?;
    apps.create(
        &PostParams::default(),
        &MyApplication::new("capped", spec(1)),
    )
    .await?;
    eventually(CONVERGE, "the refusal event to repeat", || async {
        let repeated = f
            .events_total()
            .await?
            .into_iter()
            .any(|(name, count)| name.starts_with("capped.") && count >= 2);
        Ok(repeated.then_some(()))
    })
    .await?;
    quotas
        .delete("no-services", &DeleteParams::default())
        .await?;
    f.wait_ready("capped", 1).await?;

    // Deleted and re-created while the garbage collector is down: the
    // children of the earlier incarnation are replaced, not a conflict.
    let earlier = apps.get("web").await?.metadata.uid;
    f.env.stop_controller_manager();
    apps.delete("web", &DeleteParams::default()).await?;
    eventually(CONVERGE, "web to be gone", || async {
        Ok(apps.get_opt("web").await?.is_none().then_some(()))
    })
    .await?;
    let reborn = apps
        .create(&PostParams::default(), &MyApplication::new("web", spec(1)))
        .await?
        .metadata
        .uid;
    assert_ne!(reborn, earlier);
    let controlled_by_reborn = |owners: Option<Vec<OwnerReference>>| {
        owners
            .unwrap_or_default()
            .iter()
            .any(|o| o.controller == Some(true) && Some(&o.uid) == reborn.as_ref())
    };
    eventually(CONVERGE, "the children to be replaced", || async {
        let deployment = f.deployments().get_opt("web-deployment").await?;
        let service = f.services().get_opt("web-service").await?;
        Ok(
            (deployment.is_some_and(|d| controlled_by_reborn(d.metadata.owner_references))
                && service.is_some_and(|s| controlled_by_reborn(s.metadata.owner_references)))
            .then_some(()),
        )
    })
    .await?;
    f.env.start_controller_manager()?;
    f.wait_for_events("Replaced", 1).await?;

    // Deletion, then a clean stop: the Lease is released.
    apps.delete("web", &DeleteParams::default()).await?;
    f.operator
        .take()
        .context("the operator runs")?
        .shutdown()
        .await?;

    // The apiserver writes an audit record as the response goes out: read
    // until two reads a second apart agree (the operator has stopped).
    let mut records = f.env.audit_records(&f.ns, "operator")?;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let again = f.env.audit_records(&f.ns, "operator")?;
        if again == records {
            break;
        }
        records = again;
    }
    assert!(!records.is_empty(), "no audit records of the operator");
    // Denied by RBAC (the quota's 403 came after an allowed request).
    let denied: Vec<_> = records.iter().filter(|r| !r.authorized).collect();
    assert!(denied.is_empty(), "the operator was denied: {denied:#?}");
    assert!(
        records
            .iter()
            .any(|r| r.code == 403 && r.resource == "services"),
        "the quota never refused a Service: the workload missed a path"
    );
    let used: BTreeSet<_> = records.iter().flat_map(|r| r.permissions()).collect();
    let granted = granted()?;
    let unused: Vec<_> = granted.difference(&used).collect();
    let ungranted: Vec<_> = used.difference(&granted).collect();
    assert!(
        unused.is_empty() && ungranted.is_empty(),
        "granted but never used: {unused:#?}\nused but not granted: {ungranted:#?}"
    );
    Ok(())
}
