//! `deploy/` on the real apiserver: every object passes validation (a
//! server-side dry run), and the operator's Deployment passes Pod Security
//! `restricted` — its pod template, created with a dry run in a namespace
//! that enforces `restricted`, is admitted, and a template that breaks the
//! profile is rejected there, so the check can fail.

use anyhow::{Context as _, Result};
use kubegen_testenv::{TestEnv, read_deployment};

#[tokio::test]
async fn deployment_passes_pod_security_restricted() -> Result<()> {
    let env = TestEnv::shared().await?;
    let deployment = read_deployment(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/deployment.yaml"),
    )?;
    let ns = env
        .pod_security_namespace("pss", "restricted", &deployment)
        .await?;
    env.dry_run_pod_of(&deployment, &ns)
        .await?
        .context("the operator's pod template is rejected under Pod Security `restricted`")?;

    // The same template without the dropped capabilities is rejected, so
    // the namespace really enforces the profile.
    let mut weaker = deployment.clone();
    let pod = weaker
        .spec
        .as_mut()
        .and_then(|s| s.template.spec.as_mut())
        .context("no pod spec")?;
    for container in &mut pod.containers {
        if let Some(sc) = container.security_context.as_mut() {
            sc.capabilities = None;
        }
    }
    let err = env
        .dry_run_pod_of(&weaker, &ns)
        .await?
        .expect_err("a pod keeping its capabilities must be rejected");
    assert!(err.to_string().contains("restricted"), "{err}");
    Ok(())
}

/// Every object `deploy/` holds (through its kustomization, the generated
/// CRD and role included) passes the apiserver's validation with a
/// server-side dry run, and the metrics objects are there: the Service on
/// the `https` port, the metrics-reader ClusterRole (`get` on `/metrics`
/// and nothing else) and the auth-delegator binding, and the conversion
/// webhook's Service.
#[tokio::test]
async fn deploy_manifests_are_accepted_by_the_apiserver() -> Result<()> {
    use k8s_openapi::api::core::v1::Namespace;
    use k8s_openapi::api::rbac::v1::ClusterRole;
    use kubegen::api::{Api, PostParams};

    let env = TestEnv::shared().await?;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    // Namespaced objects need their namespace to exist even in a dry run.
    let namespace: Namespace =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("namespace.yaml"))?)?;
    let namespaces = Api::<Namespace>::all(env.client().await?);
    if namespaces
        .get_opt(namespace.metadata.name.as_deref().context("unnamed")?)
        .await?
        .is_none()
    {
        namespaces
            .create(&PostParams::default(), &namespace)
            .await?;
    }
    let out = env
        .kubectl()
        .args(["apply", "--dry-run=server", "-o", "name", "-k"])
        .arg(&dir)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for object in [
        "customresourcedefinition.apiextensions.k8s.io/myapplications.stable.example.com",
        "clusterrole.rbac.authorization.k8s.io/my-application-controller",
        "clusterrolebinding.rbac.authorization.k8s.io/my-application-controller-auth-delegator",
        "clusterrole.rbac.authorization.k8s.io/my-application-metrics-reader",
        "service/my-application-controller-metrics",
        "service/my-application-webhook",
        "deployment.apps/my-application-controller",
    ] {
        assert!(
            stdout.lines().any(|l| l == object),
            "{object} not in\n{stdout}"
        );
    }
    let reader: ClusterRole = serde_yaml::from_str(&std::fs::read_to_string(
        dir.join("metrics_reader_role.yaml"),
    )?)?;
    let rules = reader.rules.unwrap_or_default();
    assert_eq!(rules.len(), 1);
    assert_eq!(
        rules[0].non_resource_urls.as_deref(),
        Some(&["/metrics".to_owned()][..])
    );
    assert_eq!(rules[0].verbs, ["get"]);
    assert_eq!(rules[0].resources, None);
    Ok(())
}
