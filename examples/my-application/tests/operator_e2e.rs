//! The MyApplication operator end to end on the real control plane with kwok
//! nodes, running under the ClusterRole that `kubegen generate` wrote from
//! its `#[rbac]` attributes (as a ServiceAccount bound to it, never as
//! system:masters).

mod support;

use std::time::Duration;

use anyhow::Result;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use kubegen::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kubegen_testenv::eventually;
use my_application::api::{MyApplication, MyApplicationSpec};
use support::{Fixture, condition, owner_uid};

const CONVERGE: Duration = Duration::from_secs(120);

fn spec(image: &str, replicas: i32, port: i32) -> MyApplicationSpec {
    MyApplicationSpec {
        image: image.into(),
        replicas,
        port,
    }
}

#[tokio::test]
async fn creates_children_and_reports_ready() -> Result<()> {
    let f = Fixture::start("op-create").await?;
    let app = f
        .apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("web", spec("nginx:latest", 3, 8080)),
        )
        .await?;
    let uid = app.metadata.uid.clone().unwrap();

    let ready = f.wait_ready("web", 3).await?;
    assert_eq!(
        ready.selector.as_deref(),
        Some("app=my-application,myapplication_cr=web")
    );
    assert_eq!(ready.observed_generation, Some(1));
    assert_eq!(condition(&ready, "Failed"), Some("False"));

    let deployment = f.deployments().get("web-deployment").await?;
    assert_eq!(
        owner_uid(&deployment.metadata),
        Some(uid.clone()),
        "controller owner reference"
    );
    let spec = deployment.spec.unwrap();
    assert_eq!(spec.replicas, Some(3));
    let container = &spec.template.spec.unwrap().containers[0];
    assert_eq!(container.name, "my-application");
    assert_eq!(container.image.as_deref(), Some("nginx:latest"));
    assert_eq!(container.ports.as_ref().unwrap()[0].container_port, 8080);
    let labels = deployment.metadata.labels.unwrap();
    assert_eq!(labels["app"], "my-application");
    assert_eq!(labels["myapplication_cr"], "web");
    assert_eq!(
        labels["app.kubernetes.io/managed-by"],
        "my-application-controller"
    );

    let service = f.services().get("web-service").await?;
    assert_eq!(owner_uid(&service.metadata), Some(uid));
    let svc = service.spec.unwrap();
    assert_eq!(svc.type_.as_deref(), Some("ClusterIP"));
    let port = &svc.ports.unwrap()[0];
    assert_eq!(port.port, 8080);
    assert_eq!(
        port.target_port,
        Some(k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(8080))
    );

    // The pods are real: scheduled onto kwok nodes and Ready.
    let pods = f.pods_ready("web").await?;
    assert_eq!(pods, 3);
    // Created events for the children.
    f.wait_for_events("Created", 2).await?;
    f.stop().await
}

#[tokio::test]
async fn follows_scale_and_spec_changes_and_reverts_drift() -> Result<()> {
    let f = Fixture::start("op-drift").await?;
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("app", spec("nginx:1", 2, 8080)),
        )
        .await?;
    f.wait_ready("app", 2).await?;

    // `kubectl scale ma/app --replicas=4`, through the scale subresource.
    let out = f
        .env
        .kubectl()
        .args(["-n", &f.ns, "scale", "ma/app", "--replicas=4"])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    f.wait_ready("app", 4).await?;
    assert_eq!(
        f.deployments()
            .get("app-deployment")
            .await?
            .spec
            .unwrap()
            .replicas,
        Some(4)
    );

    // Image and port changes reach the Deployment and the Service.
    f.apps()
        .patch(
            "app",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "image": "nginx:2", "port": 9090 } })),
        )
        .await?;
    eventually(CONVERGE, "image and port to propagate", || async {
        let d = f.deployments().get("app-deployment").await?;
        let c = d.spec.unwrap().template.spec.unwrap().containers[0].clone();
        let s = f
            .services()
            .get("app-service")
            .await?
            .spec
            .unwrap()
            .ports
            .unwrap()[0]
            .clone();
        Ok((c.image.as_deref() == Some("nginx:2")
            && c.ports.unwrap()[0].container_port == 9090
            && s.port == 9090)
            .then_some(()))
    })
    .await?;

    // Replicas edited by hand are reverted.
    f.deployments()
        .patch(
            "app-deployment",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "replicas": 1 } })),
        )
        .await?;
    eventually(CONVERGE, "hand-edited replicas to be reverted", || async {
        let d = f.deployments().get("app-deployment").await?;
        Ok((d.spec.unwrap().replicas == Some(4)).then_some(()))
    })
    .await?;

    // A deleted Deployment is recreated.
    let old_uid = f.deployments().get("app-deployment").await?.metadata.uid;
    f.deployments()
        .delete("app-deployment", &DeleteParams::default())
        .await?;
    eventually(CONVERGE, "the Deployment to be recreated", || async {
        let d = f.deployments().get_opt("app-deployment").await?;
        Ok(
            d.filter(|d| d.metadata.uid != old_uid && d.metadata.deletion_timestamp.is_none())
                .map(|_| ()),
        )
    })
    .await?;
    f.wait_ready("app", 4).await?;
    f.stop().await
}

#[tokio::test]
async fn deletion_garbage_collects_children() -> Result<()> {
    let f = Fixture::start("op-delete").await?;
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("gone", spec("nginx", 1, 80)),
        )
        .await?;
    f.wait_ready("gone", 1).await?;
    f.apps().delete("gone", &DeleteParams::background()).await?;
    eventually(CONVERGE, "children to be garbage-collected", || async {
        let d = f.deployments().get_opt("gone-deployment").await?;
        let s = f.services().get_opt("gone-service").await?;
        Ok((d.is_none() && s.is_none()).then_some(()))
    })
    .await?;
    f.stop().await
}

#[tokio::test]
async fn never_takes_over_a_foreign_deployment() -> Result<()> {
    let f = Fixture::start("op-foreign").await?;
    let foreign: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": { "name": "taken-deployment", "labels": { "owner": "someone-else" } },
        "spec": {
            "replicas": 1,
            "selector": { "matchLabels": { "app": "foreign" } },
            "template": { "metadata": { "labels": { "app": "foreign" } },
                          "spec": { "containers": [{ "name": "x", "image": "busybox" }] } },
        },
    }))?;
    let foreign = f
        .deployments()
        .create(&PostParams::default(), &foreign)
        .await?;
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("taken", spec("nginx", 2, 80)),
        )
        .await?;

    let status = eventually(CONVERGE, "the Failed condition", || async {
        let status = f.apps().get("taken").await?.status.unwrap_or_default();
        Ok((condition(&status, "Failed") == Some("True")).then_some(status))
    })
    .await?;
    let failed = status
        .conditions
        .iter()
        .find(|c| c.type_ == "Failed")
        .unwrap();
    assert_eq!(failed.reason, "ErrResourceExists");
    assert_eq!(condition(&status, "Ready"), Some("False"));
    // A Warning event.
    f.wait_for_events("ErrResourceExists", 1).await?;

    let after = f.deployments().get("taken-deployment").await?;
    // Its status moves with its own rollout; its spec and metadata must not.
    assert_eq!(
        after.metadata.generation, foreign.metadata.generation,
        "the foreign Deployment's spec changed"
    );
    assert_eq!(
        after.metadata.labels, foreign.metadata.labels,
        "the foreign Deployment's labels changed"
    );
    assert!(after.metadata.owner_references.is_none());
    f.stop().await
}

#[tokio::test]
async fn invalid_applications_are_rejected_naming_the_field() -> Result<()> {
    let f = Fixture::start("op-invalid").await?;
    let cases = [
        (
            serde_json::json!({ "image": "nginx", "replicas": 0 }),
            "spec.replicas",
            "greater than or equal to 1",
        ),
        (
            serde_json::json!({ "image": "nginx", "port": 79 }),
            "spec.port",
            "greater than or equal to 80",
        ),
        (
            serde_json::json!({ "image": "nginx", "port": 70000 }),
            "spec.port",
            "less than or equal to 65535",
        ),
        (
            serde_json::json!({ "image": "" }),
            "spec.image",
            "at least 1 chars long",
        ),
        (
            serde_json::json!({ "replicas": 2 }),
            "spec.image",
            "Required value",
        ),
    ];
    let raw = Api::<kubegen::api::DynamicObject>::namespaced_with(
        f.admin.clone(),
        &f.ns,
        &kubegen::api::ApiResource::erase::<MyApplication>(&()),
    );
    let mut failures = Vec::new();
    for (i, (spec, field, wording)) in cases.iter().enumerate() {
        let obj: kubegen::api::DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "stable.example.com/v1", "kind": "MyApplication",
            "metadata": { "name": format!("bad-{i}") }, "spec": spec,
        }))?;
        match raw.create(&PostParams::default(), &obj).await {
            Err(kubegen::Error::Api(s))
                if s.code == 422 && s.message.contains(field) && s.message.contains(wording) => {}
            other => failures.push(format!(
                "{spec}: expected 422 naming {field} ({wording}), got {other:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    f.stop().await
}

#[tokio::test]
async fn steady_state_makes_no_writes() -> Result<()> {
    let f = Fixture::start("op-steady").await?;
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("calm", spec("nginx", 2, 80)),
        )
        .await?;
    f.wait_ready("calm", 2).await?;
    // Let the rollout's last status updates settle.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let versions = f.resource_versions("calm").await?;
    let writes = f.write_count();
    let events = f.events_total().await?;
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(
        f.resource_versions("calm").await?,
        versions,
        "an object changed at steady state"
    );
    assert_eq!(
        f.write_count(),
        writes,
        "the operator wrote at steady state"
    );
    assert_eq!(
        f.events_total().await?,
        events,
        "events were recorded at steady state"
    );
    f.stop().await
}

#[tokio::test]
async fn the_generated_role_is_enough_and_needed() -> Result<()> {
    let f = Fixture::start("op-rbac").await?;
    // The operator's own identity may not touch what its role does not grant.
    let secrets =
        Api::<k8s_openapi::api::core::v1::Secret>::namespaced(f.operator_client.clone(), &f.ns);
    let denied = secrets.list(&Default::default()).await;
    assert!(
        matches!(denied, Err(kubegen::Error::Api(ref s)) if s.code == 403),
        "{denied:?}"
    );
    // ... and everything it needs for a full reconcile works (create, status, events).
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("rbac", spec("nginx", 1, 80)),
        )
        .await?;
    f.wait_ready("rbac", 1).await?;
    let _: Service = f.services().get("rbac-service").await?;
    f.stop().await
}

/// A child the apiserver refuses — here a ResourceQuota allows no
/// Services — is reported on the application (`Failed=True` with the
/// apiserver's message, one Warning event however often it is retried)
/// and retried with backoff, so the application recovers once the quota
/// is gone.
#[tokio::test]
async fn refused_children_are_reported_and_retried() -> Result<()> {
    let f = Fixture::start("op-refused").await?;
    let quotas = f.forbid_services().await?;
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new("capped", spec("nginx", 1, 80)),
        )
        .await?;

    let failed = eventually(CONVERGE, "the Failed condition", || async {
        let status = f.apps().get("capped").await?.status.unwrap_or_default();
        Ok(status
            .conditions
            .into_iter()
            .find(|c| c.type_ == "Failed" && c.status == "True"))
    })
    .await?;
    assert_eq!(failed.reason, "FailedCreate");
    assert!(
        failed
            .message
            .starts_with("creating Service capped-service: ")
            && failed.message.contains("exceeded quota"),
        "{}",
        failed.message
    );
    // Retries repeat the same event: one Event, counted in its series.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(f.events_with_reason("FailedCreate").await?, 1);

    quotas
        .delete("no-services", &DeleteParams::default())
        .await?;
    let status = f.wait_ready("capped", 1).await?;
    assert_eq!(condition(&status, "Failed"), Some("False"));
    f.stop().await
}

/// Names from which no valid child name can be made are refused by the
/// CRD at admission (`max_name_length`, `name_pattern`), with a message
/// that says why; the longest allowed name works end to end.
#[tokio::test]
async fn hostile_names_are_refused_at_admission() -> Result<()> {
    let f = Fixture::start("op-names").await?;
    for (name, message) in [
        (
            "a".repeat(56),
            "metadata.name must be at most 55 characters long",
        ),
        ("1web".to_owned(), "metadata.name must match"),
        ("web.v2".to_owned(), "metadata.name must match"),
    ] {
        let refused = f
            .apps()
            .create(
                &PostParams::default(),
                &MyApplication::new(&name, spec("nginx", 1, 80)),
            )
            .await;
        match refused {
            Err(kubegen::Error::Api(s)) if s.code == 422 && s.message.contains(message) => {}
            other => panic!("{name}: expected 422 saying {message:?}, got {other:?}"),
        }
    }
    let longest = "a".repeat(55);
    f.apps()
        .create(
            &PostParams::default(),
            &MyApplication::new(&longest, spec("nginx", 1, 80)),
        )
        .await?;
    f.wait_ready(&longest, 1).await?;
    f.stop().await
}
