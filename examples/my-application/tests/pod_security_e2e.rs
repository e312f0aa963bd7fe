//! The operator's Deployment passes Pod Security `restricted` on the real
//! apiserver: its pod template, created with a server-side dry run in a
//! namespace that enforces `restricted`, is admitted — and a template that
//! breaks the profile is rejected there, so the check can fail.

use anyhow::{Context as _, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kube::api::{Api, PostParams};
use kubegen::kube;
use kubegen_testenv::TestEnv;

fn deployment() -> Result<Deployment> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/deployment.yaml");
    let yaml = std::fs::read_to_string(&path)?;
    let value: serde_json::Value =
        serde_yaml::from_str(&yaml).context("parsing deploy/deployment.yaml")?;
    Ok(serde_json::from_value(value)?)
}

/// The Deployment's pod, as the ReplicaSet controller would create it.
fn pod_of(deployment: &Deployment, ns: &str) -> Result<Pod> {
    let template = deployment
        .spec
        .as_ref()
        .context("no spec")?
        .template
        .clone();
    let mut metadata = template.metadata.unwrap_or_default();
    metadata.name = Some("restricted-check".into());
    metadata.namespace = Some(ns.into());
    Ok(Pod {
        metadata,
        spec: template.spec,
        ..Pod::default()
    })
}

async fn dry_run(client: &kube::Client, ns: &str, pod: &Pod) -> Result<(), kube::Error> {
    let params = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    Api::<Pod>::namespaced(client.clone(), ns)
        .create(&params, pod)
        .await
        .map(|_| ())
}

#[tokio::test]
async fn deployment_passes_pod_security_restricted() -> Result<()> {
    let env = TestEnv::shared().await?;
    let admin = env.client().await?;
    let ns = env.namespace("pss").await?;
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let mut namespace = namespaces.get(&ns).await?;
    namespace
        .metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(
            "pod-security.kubernetes.io/enforce".into(),
            "restricted".into(),
        );
    namespaces
        .replace(&ns, &PostParams::default(), &namespace)
        .await?;

    let deployment = deployment()?;
    // The pod runs as the operator's ServiceAccount, which admission looks up.
    let account = deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.service_account_name.clone())
        .context("the pod template names no ServiceAccount")?;
    let account = ServiceAccount {
        metadata: kube::api::ObjectMeta {
            name: Some(account),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<ServiceAccount>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &account)
        .await?;
    dry_run(&admin, &ns, &pod_of(&deployment, &ns)?)
        .await
        .context("the operator's pod template is rejected under Pod Security `restricted`")?;

    // The same template without the dropped capabilities is rejected, so
    // the namespace really enforces the profile.
    let mut weaker = pod_of(&deployment, &ns)?;
    for container in &mut weaker.spec.as_mut().context("no pod spec")?.containers {
        if let Some(sc) = container.security_context.as_mut() {
            sc.capabilities = None;
        }
    }
    let err = dry_run(&admin, &ns, &weaker)
        .await
        .expect_err("a pod keeping its capabilities must be rejected");
    assert!(err.to_string().contains("restricted"), "{err}");
    Ok(())
}
