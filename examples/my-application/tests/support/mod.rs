//! A per-test fixture: a namespace on the shared control plane, the CRD,
//! the generated ClusterRole bound to a ServiceAccount, and the operator
//! running in-process as that ServiceAccount, watching only the namespace.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, ResourceQuota, Service};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kubegen::conditions::find_condition;
use kubegen_testenv::{TestEnv, eventually};
use my_application::api::{MyApplication, MyApplicationStatus};
use my_application::operator::{self, Options, RunningOperator};

/// One test's world.
pub struct Fixture {
    pub env: &'static TestEnv,
    pub ns: String,
    pub admin: kubegen::Client,
    pub operator_client: kubegen::Client,
    pub operator: Option<RunningOperator>,
}

/// Applies the CRD and the generated ClusterRole (idempotent, shared).
pub async fn install(admin: &kubegen::Client) -> Result<()> {
    kubegen_testenv::install_crd(admin, &MyApplication::crd()?).await?;
    let manager = PatchParams::apply("operator-e2e").force();
    let role_yaml = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("config/rbac/role.yaml"),
    )?;
    let role: ClusterRole = serde_yaml_like(&role_yaml)?;
    Api::<ClusterRole>::all(admin.clone())
        .patch("my-application-controller", &manager, &Patch::Apply(&role))
        .await?;
    Ok(())
}

/// The generated role file is a single YAML document of plain maps/lists;
/// read it through kubectl-compatible JSON conversion.
fn serde_yaml_like<T: serde::de::DeserializeOwned>(yaml: &str) -> Result<T> {
    let value: serde_json::Value = serde_yaml::from_str(yaml).context("parsing generated YAML")?;
    Ok(serde_json::from_value(value)?)
}

impl Fixture {
    /// A fixture on the shared control plane with the operator running in-process.
    pub async fn start(prefix: &str) -> Result<Fixture> {
        let mut f = Fixture::prepare(TestEnv::shared().await?, prefix).await?;
        f.operator =
            Some(operator::start(f.operator_client.clone(), Options::for_namespace(&f.ns)).await?);
        Ok(f)
    }

    /// A fixture on `env` with everything but the operator.
    pub async fn prepare(env: &'static TestEnv, prefix: &str) -> Result<Fixture> {
        let admin = env.client().await?;
        install(&admin).await?;
        let ns = env.namespace(prefix).await?;
        let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
            "metadata": { "name": format!("{ns}-operator") },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "my-application-controller" },
            "subjects": [{ "kind": "ServiceAccount", "name": "operator", "namespace": ns }],
        }))?;
        Api::<ClusterRoleBinding>::all(admin.clone())
            .create(&PostParams::default(), &binding)
            .await?;
        // Creates the ServiceAccount the binding names.
        let operator_client = env.client_for_service_account(&ns, "operator").await?;
        Ok(Fixture {
            env,
            ns,
            admin,
            operator_client,
            operator: None,
        })
    }

    /// Starts the operator binary as the ServiceAccount, confined to the
    /// namespace, with a short Lease so failovers are quick.
    pub async fn spawn_operator(&self, name: &str) -> Result<OperatorProcess> {
        let kubeconfig = self
            .env
            .kubeconfig_for_service_account(&self.ns, "operator")
            .await?;
        let log_path = self
            .env
            .dir()
            .join(format!("operator-{}-{name}.log", self.ns));
        let log = std::fs::File::create(&log_path)?;
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_my-application-controller"))
            .args([
                "--namespace",
                &self.ns,
                "--lease-namespace",
                &self.ns,
                "--lease-duration",
                "3",
            ])
            .args(["--health-probe-bind-address", "127.0.0.1:0"])
            .args(["--metrics-bind-address", "127.0.0.1:0"])
            .env("KUBECONFIG", kubeconfig)
            .env("POD_NAME", name)
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        Ok(OperatorProcess {
            child: Some(child),
            log: log_path,
            name: name.to_string(),
        })
    }

    /// The identity holding the operator's Lease, if any.
    pub async fn lease_holder(&self) -> Result<Option<String>> {
        let leases = Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced(
            self.admin.clone(),
            &self.ns,
        );
        Ok(leases
            .get_opt("my-application-controller")
            .await?
            .and_then(|l| l.spec)
            .and_then(|s| s.holder_identity)
            .filter(|h| !h.is_empty()))
    }

    pub fn apps(&self) -> Api<MyApplication> {
        Api::namespaced(self.admin.clone(), &self.ns)
    }

    pub fn deployments(&self) -> Api<Deployment> {
        Api::namespaced(self.admin.clone(), &self.ns)
    }

    pub fn services(&self) -> Api<Service> {
        Api::namespaced(self.admin.clone(), &self.ns)
    }

    pub async fn wait_ready(&self, name: &str, replicas: i32) -> Result<MyApplicationStatus> {
        eventually(
            Duration::from_secs(120),
            &format!("{name} Ready with {replicas} available"),
            || async {
                let app = self.apps().get(name).await?;
                let generation = app.metadata.generation;
                let status = app.status.unwrap_or_default();
                let ready = condition(&status, "Ready") == Some("True")
                    && status.available_replicas == Some(replicas)
                    && status.observed_generation == generation;
                Ok(ready.then_some(status))
            },
        )
        .await
    }

    pub async fn pods_ready(&self, app: &str) -> Result<usize> {
        let pods = Api::<Pod>::namespaced(self.admin.clone(), &self.ns)
            .list(&ListParams::default().labels(&format!("myapplication_cr={app}")))
            .await?;
        Ok(pods
            .items
            .iter()
            .filter(|p| {
                p.spec
                    .as_ref()
                    .and_then(|s| s.node_name.as_deref())
                    .is_some_and(|n| n.starts_with("kwok-node-"))
                    && p.status
                        .as_ref()
                        .and_then(|s| s.conditions.as_ref())
                        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            })
            .count())
    }

    /// Creates the ResourceQuota `no-services` (no Service may be created
    /// in the namespace) and waits until the quota controller has counted,
    /// from when quota admission enforces it. Delete it to lift it.
    pub async fn forbid_services(&self) -> Result<Api<ResourceQuota>> {
        let quotas = Api::<ResourceQuota>::namespaced(self.admin.clone(), &self.ns);
        let quota: ResourceQuota = serde_json::from_value(serde_json::json!({
            "metadata": { "name": "no-services" },
            "spec": { "hard": { "services": "0" } },
        }))?;
        quotas.create(&PostParams::default(), &quota).await?;
        eventually(
            Duration::from_secs(120),
            "the quota to be counted",
            || async {
                let quota = quotas.get("no-services").await?;
                Ok(quota.status.and_then(|s| s.used).map(|_| ()))
            },
        )
        .await?;
        Ok(quotas)
    }

    pub async fn events_with_reason(&self, reason: &str) -> Result<usize> {
        let events = Api::<Event>::namespaced(self.admin.clone(), &self.ns)
            .list(&ListParams::default())
            .await?;
        Ok(events
            .items
            .iter()
            .filter(|e| e.reason.as_deref() == Some(reason))
            .count())
    }

    /// Waits (up to 30 s: the operator records events in the background)
    /// until at least `at_least` Events have `reason`, and fails otherwise.
    pub async fn wait_for_events(&self, reason: &str, at_least: usize) -> Result<()> {
        kubegen_testenv::eventually(
            Duration::from_secs(30),
            &format!("{at_least} `{reason}` event(s)"),
            || async { Ok((self.events_with_reason(reason).await? >= at_least).then_some(())) },
        )
        .await
    }

    pub async fn events_total(&self) -> Result<Vec<(String, i32)>> {
        let events = Api::<Event>::namespaced(self.admin.clone(), &self.ns)
            .list(&ListParams::default())
            .await?;
        let mut out: Vec<(String, i32)> = events
            .items
            .iter()
            .map(|e| {
                (
                    e.metadata.name.clone().unwrap_or_default(),
                    e.series.as_ref().map_or(1, |s| s.count),
                )
            })
            .collect();
        out.sort();
        Ok(out)
    }

    pub async fn resource_versions(&self, app: &str) -> Result<[Option<String>; 3]> {
        Ok([
            self.apps().get(app).await?.metadata.resource_version,
            self.deployments()
                .get(&format!("{app}-deployment"))
                .await?
                .metadata
                .resource_version,
            self.services()
                .get(&format!("{app}-service"))
                .await?
                .metadata
                .resource_version,
        ])
    }

    /// Write requests the operator made so far (its own counter, also
    /// served on /metrics as `my_application_writes_total`).
    pub fn write_count(&self) -> u64 {
        self.operator.as_ref().map_or(0, RunningOperator::writes)
    }

    pub async fn stop(mut self) -> Result<()> {
        if let Some(operator) = self.operator.take() {
            operator.shutdown().await?;
        }
        Ok(())
    }
}

/// An operator process, SIGKILLed when dropped.
pub struct OperatorProcess {
    child: Option<std::process::Child>,
    /// Its log file.
    pub log: std::path::PathBuf,
    /// Its POD_NAME, the prefix of its Lease identity.
    pub name: String,
}

impl OperatorProcess {
    /// SIGKILL, as a crashed node or OOM kill would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM and wait for a clean exit; returns whether it exited 0.
    pub fn terminate(&mut self) -> bool {
        let Some(mut child) = self.child.take() else {
            return false;
        };
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        child.wait().is_ok_and(|s| s.success())
    }

    /// Whether the identity belongs to this process.
    pub fn owns(&self, identity: &str) -> bool {
        identity.starts_with(&format!("{}_", self.name))
    }
}

impl Drop for OperatorProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The status of condition `type_`, if present.
pub fn condition<'a>(status: &'a MyApplicationStatus, type_: &str) -> Option<&'a str> {
    find_condition(&status.conditions, type_).map(|c| c.status.as_str())
}

/// The uid of the object's controller owner.
pub fn owner_uid(meta: &ObjectMeta) -> Option<String> {
    meta.owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))
        .map(|o| o.uid.clone())
}
