//! Pod Security admission checks of an operator's manifests: the pod a
//! Deployment's template makes, created with a server-side dry run in a
//! namespace that enforces a Pod Security level.

use std::path::Path;

use anyhow::{Context, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kubegen_client::api::{Api, ObjectMeta, PostParams};

use crate::TestEnv;

/// Reads a Deployment from a YAML file (one document).
pub fn read_deployment(path: &Path) -> Result<Deployment> {
    let yaml =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: serde_json::Value =
        serde_yaml::from_str(&yaml).with_context(|| format!("parsing {}", path.display()))?;
    serde_json::from_value(value).with_context(|| format!("{} is not a Deployment", path.display()))
}

impl TestEnv {
    /// Creates a namespace (named after `prefix`) that enforces the Pod
    /// Security `level` (`restricted`, `baseline`, `privileged`), with the
    /// ServiceAccount `deployment`'s pods run as, and returns its name.
    pub async fn pod_security_namespace(
        &self,
        prefix: &str,
        level: &str,
        deployment: &Deployment,
    ) -> Result<String> {
        let admin = self.client().await?;
        let ns = self.namespace(prefix).await?;
        let namespaces: Api<Namespace> = Api::all(admin.clone());
        let mut namespace = namespaces.get(&ns).await?;
        let labels = namespace
            .metadata
            .labels
            .get_or_insert_with(Default::default);
        labels.insert("pod-security.kubernetes.io/enforce".into(), level.into());
        labels.insert(
            "pod-security.kubernetes.io/enforce-version".into(),
            "latest".into(),
        );
        namespaces
            .replace(&ns, &PostParams::default(), &namespace)
            .await?;
        let account = template_of(deployment)?
            .spec
            .and_then(|spec| spec.service_account_name)
            .unwrap_or_else(|| "default".into());
        if account != "default" {
            let account = ServiceAccount {
                metadata: ObjectMeta {
                    name: Some(account),
                    ..ObjectMeta::default()
                },
                ..ServiceAccount::default()
            };
            Api::<ServiceAccount>::namespaced(admin, &ns)
                .create(&PostParams::default(), &account)
                .await?;
        }
        Ok(ns)
    }

    /// Creates the pod of `deployment`'s template in `ns` with a
    /// server-side dry run, as the ReplicaSet controller would: the outer
    /// error is a failure to try, the inner one the apiserver's refusal
    /// (naming the Pod Security violations).
    pub async fn dry_run_pod_of(
        &self,
        deployment: &Deployment,
        ns: &str,
    ) -> Result<Result<(), kubegen_client::Error>> {
        let template = template_of(deployment)?;
        let mut metadata = template.metadata.unwrap_or_default();
        metadata.name = Some("pod-security-check".into());
        metadata.namespace = Some(ns.into());
        let pod = Pod {
            metadata,
            spec: template.spec,
            ..Pod::default()
        };
        let params = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        Ok(Api::<Pod>::namespaced(self.client().await?, ns)
            .create(&params, &pod)
            .await
            .map(|_| ()))
    }
}

fn template_of(deployment: &Deployment) -> Result<k8s_openapi::api::core::v1::PodTemplateSpec> {
    Ok(deployment
        .spec
        .as_ref()
        .context("the Deployment has no spec")?
        .template
        .clone())
}
