//! End-to-end smoke tests proving the local control plane is a real one:
//! controllers run, pods are scheduled onto kwok nodes, garbage collection,
//! CRD validation and RBAC are enforced by the real components.

use std::time::Duration;

use anyhow::Result;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_client::api::{Api, DeleteParams, DynamicObject, ListParams, PostParams};
use kubegen_client::core::{ApiResource, GroupVersionKind};
use kubegen_testenv::{TestEnv, eventually};
use serde_json::json;

fn from_json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("valid test object")
}

fn status_code(result: &Result<impl std::fmt::Debug, kubegen_client::Error>) -> Option<u16> {
    match result {
        Err(kubegen_client::Error::Api(status)) => Some(status.code),
        _ => None,
    }
}

#[tokio::test]
async fn deployment_becomes_available_on_kwok_nodes() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("smoke-deploy").await?;
    let client = env.client().await?;
    let deployments = Api::<Deployment>::namespaced(client.clone(), &ns);
    let deployment: Deployment = from_json(json!({
        "metadata": { "name": "web" },
        "spec": {
            "replicas": 3,
            "selector": { "matchLabels": { "app": "web" } },
            "template": {
                "metadata": { "labels": { "app": "web" } },
                "spec": { "containers": [{ "name": "web", "image": "nginx:latest" }] },
            },
        },
    }));
    deployments
        .create(&PostParams::default(), &deployment)
        .await?;

    let available = eventually(Duration::from_secs(90), "3 available replicas", || async {
        let d = deployments.get("web").await?;
        let available = d.status.and_then(|s| s.available_replicas).unwrap_or(0);
        Ok((available == 3).then_some(available))
    })
    .await?;
    assert_eq!(available, 3);

    // The pods are real objects, bound by the scheduler to kwok nodes and
    // marked Running and Ready by kwok.
    let pods = Api::<Pod>::namespaced(client, &ns)
        .list(&ListParams::default().labels("app=web"))
        .await?;
    assert_eq!(pods.items.len(), 3);
    for pod in &pods.items {
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        assert!(
            node.as_deref().is_some_and(|n| n.starts_with("kwok-node-")),
            "pod not bound to a kwok node: {node:?}"
        );
        let status = pod.status.as_ref().expect("pod status");
        assert_eq!(status.phase.as_deref(), Some("Running"));
        assert!(status.pod_ip.is_some(), "kwok assigns pod IPs");
    }
    Ok(())
}

#[tokio::test]
async fn garbage_collector_deletes_dependents() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("smoke-gc").await?;
    let configmaps = Api::<ConfigMap>::namespaced(env.client().await?, &ns);
    let owner = configmaps
        .create(
            &PostParams::default(),
            &from_json(json!({ "metadata": { "name": "owner" } })),
        )
        .await?;
    let uid = owner.metadata.uid.clone().expect("uid");
    let dependent: ConfigMap = from_json(json!({
        "metadata": {
            "name": "dependent",
            "ownerReferences": [{
                "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid,
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
    }));
    configmaps
        .create(&PostParams::default(), &dependent)
        .await?;
    let bystander: ConfigMap = from_json(json!({ "metadata": { "name": "bystander" } }));
    configmaps
        .create(&PostParams::default(), &bystander)
        .await?;

    configmaps
        .delete("owner", &DeleteParams::background())
        .await?;
    eventually(
        Duration::from_secs(60),
        "the dependent to be collected",
        || async {
            Ok(configmaps
                .get_opt("dependent")
                .await?
                .is_none()
                .then_some(()))
        },
    )
    .await?;
    assert!(
        configmaps.get_opt("bystander").await?.is_some(),
        "an object without owner references must survive"
    );
    Ok(())
}

#[tokio::test]
async fn crd_is_established_and_enforces_its_schema() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("smoke-crd").await?;
    let client = env.client().await?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    let crd: CustomResourceDefinition = from_json(json!({
        "metadata": { "name": "widgets.smoke.kubegen.dev" },
        "spec": {
            "group": "smoke.kubegen.dev",
            "names": { "kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList" },
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": { "openAPIV3Schema": {
                    "type": "object",
                    "properties": { "spec": {
                        "type": "object",
                        "required": ["size"],
                        "properties": { "size": { "type": "integer", "minimum": 1 } },
                    } },
                } },
            }],
        },
    }));
    kubegen_testenv::install_crd(&client, &crd).await?;
    assert!(
        crds.get("widgets.smoke.kubegen.dev")
            .await?
            .status
            .is_some()
    );

    let gvk = GroupVersionKind::gvk("smoke.kubegen.dev", "v1", "Widget");
    let widgets = Api::<DynamicObject>::namespaced_with(client, &ns, &ApiResource::from_gvk(&gvk));
    let widget = |name: &str, size: i64| -> DynamicObject {
        from_json(json!({
            "apiVersion": "smoke.kubegen.dev/v1", "kind": "Widget",
            "metadata": { "name": name }, "spec": { "size": size },
        }))
    };
    // The discovery of a new CRD can lag its Established condition.
    eventually(
        Duration::from_secs(30),
        "a valid Widget to be accepted",
        || async {
            Ok(widgets
                .create(&PostParams::default(), &widget("good", 3))
                .await
                .ok()
                .map(|_| ()))
        },
    )
    .await?;

    let rejected = widgets
        .create(&PostParams::default(), &widget("bad", 0))
        .await;
    assert_eq!(status_code(&rejected), Some(422), "{rejected:?}");
    let Err(kubegen_client::Error::Api(status)) = rejected else {
        unreachable!()
    };
    assert!(
        status.message.contains("spec.size")
            && status.message.contains("greater than or equal to 1"),
        "unexpected message: {}",
        status.message
    );
    assert!(widgets.get_opt("bad").await?.is_none());
    Ok(())
}

#[tokio::test]
async fn rbac_denies_unbound_user_and_allows_bound_one() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("smoke-rbac").await?;
    let admin = env.client().await?;
    let user = env.client_for_user("jane", Some("developers")).await?;

    let as_jane = Api::<ConfigMap>::namespaced(user.clone(), &ns);
    let denied = as_jane.list(&ListParams::default()).await;
    assert_eq!(status_code(&denied), Some(403), "{denied:?}");

    // Grant the group read access to ConfigMaps in this namespace only.
    let role: Role = from_json(json!({
        "metadata": { "name": "configmap-reader" },
        "rules": [{ "apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"] }],
    }));
    Api::<Role>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &role)
        .await?;
    let binding: RoleBinding = from_json(json!({
        "metadata": { "name": "developers-read" },
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "configmap-reader" },
        "subjects": [{ "apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "developers" }],
    }));
    Api::<RoleBinding>::namespaced(admin, &ns)
        .create(&PostParams::default(), &binding)
        .await?;

    eventually(
        Duration::from_secs(30),
        "the binding to take effect",
        || async { Ok(as_jane.list(&ListParams::default()).await.ok().map(|_| ())) },
    )
    .await?;
    // Still no write access, and nothing in other namespaces.
    let create = as_jane
        .create(
            &PostParams::default(),
            &from_json(json!({ "metadata": { "name": "x" } })),
        )
        .await;
    assert_eq!(status_code(&create), Some(403), "{create:?}");
    let elsewhere = Api::<ConfigMap>::namespaced(user, "default")
        .list(&ListParams::default())
        .await;
    assert_eq!(status_code(&elsewhere), Some(403), "{elsewhere:?}");
    Ok(())
}

#[tokio::test]
async fn service_account_token_has_only_its_permissions() -> Result<()> {
    let env = TestEnv::shared().await?;
    let ns = env.namespace("smoke-sa").await?;
    let robot = env.client_for_service_account(&ns, "robot").await?;
    let denied = Api::<ConfigMap>::namespaced(robot, &ns)
        .list(&ListParams::default())
        .await;
    assert_eq!(status_code(&denied), Some(403), "{denied:?}");
    let Err(kubegen_client::Error::Api(status)) = denied else {
        unreachable!()
    };
    assert!(
        status
            .message
            .contains(&format!("system:serviceaccount:{ns}:robot")),
        "the apiserver should name the ServiceAccount: {}",
        status.message
    );
    Ok(())
}
