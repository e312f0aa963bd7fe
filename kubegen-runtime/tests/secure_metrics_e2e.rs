//! The manager's metrics server against a real API server: `/metrics` is
//! served over HTTPS only to callers the apiserver authenticates
//! (TokenReview) and authorizes (SubjectAccessReview for `get` on the
//! non-resource URL `/metrics`), with the operator holding nothing but the
//! `system:auth-delegator` ClusterRole; the probes answer without
//! credentials on their own plain port; a rotated certificate is served
//! without a restart.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use kubegen::Client;
use kubegen::api::{Api, ObjectMeta, PostParams};
use kubegen::logging::{LogFormat, init};
use kubegen::manager::Manager;
use kubegen::server::{DevCa, ServingCert};
use kubegen_testenv::{TestEnv, eventually, http_get, https_get};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);

/// Writes a fresh pair for `localhost` as `tls.crt`/`tls.key` into `dir`
/// (key first: the server reloads once both files changed) and returns
/// the certificate's DER.
fn write_cert(dir: &Path) -> Result<Vec<u8>> {
    DevCa::new("secure-metrics-e2e")?.issue(dir, &["localhost"])?;
    Ok(CertificateDer::from_pem_file(dir.join("tls.crt"))?.to_vec())
}

/// Binds `account` in `ns` to the ClusterRole `role`.
async fn bind(admin: &Client, ns: &str, account: &str, role: &str) -> Result<()> {
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some(format!("{ns}-{account}")),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: role.into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: account.into(),
            namespace: Some(ns.into()),
            ..Subject::default()
        }]),
    };
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&PostParams::default(), &binding)
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_a_token_the_apiserver_authorizes() -> Result<()> {
    init(LogFormat::Human);
    let env = TestEnv::shared().await?;
    let ns = env.namespace("secure-metrics").await?;
    let admin = env.client().await?;

    // The operator may review tokens and access, and nothing else.
    let operator = env.client_for_service_account(&ns, "operator").await?;
    bind(&admin, &ns, "operator", "system:auth-delegator").await?;
    // What `deploy/` ships as the metrics-reader ClusterRole.
    let reader = ClusterRole {
        metadata: ObjectMeta {
            name: Some(format!("{ns}-metrics-reader")),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            non_resource_urls: Some(vec!["/metrics".into()]),
            verbs: vec!["get".into()],
            ..PolicyRule::default()
        }]),
        ..ClusterRole::default()
    };
    Api::<ClusterRole>::all(admin.clone())
        .create(&PostParams::default(), &reader)
        .await?;
    let scraper = env.service_account_token(&ns, "scraper").await?;
    bind(&admin, &ns, "scraper", &format!("{ns}-metrics-reader")).await?;
    let stranger = env.service_account_token(&ns, "stranger").await?;

    let certs = tempfile::tempdir()?;
    let first = write_cert(certs.path())?;
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let manager = Manager::builder(operator)
        .health_probe_addr(loopback)
        .metrics_addr(loopback)
        .metrics_cert(ServingCert::from_dir(certs.path()))
        .build()
        .await?;
    let probes = manager.health_probe_addr().context("probe address")?;
    let metrics = manager.metrics_addr().context("metrics address")?;
    ensure!(probes != metrics, "probes and metrics share a port");
    let stop = CancellationToken::new();
    let running = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));

    // Probes: plain HTTP, no credentials, no metrics.
    assert_eq!(http_get(probes, "/healthz").await?, (200, "ok".into()));
    eventually(WAIT, "ready", || async {
        Ok((http_get(probes, "/readyz").await?.0 == 200).then_some(()))
    })
    .await?;
    assert_eq!(http_get(probes, "/metrics").await?.0, 404);

    // Metrics: no token, a forged one, one without the role, one with it.
    let anonymous = https_get(metrics, "/metrics", None).await?;
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    assert_eq!(anonymous.certificate, first);
    let forged = https_get(metrics, "/metrics", Some("not-a-token")).await?;
    assert_eq!(forged.status, 401, "{}", forged.body);
    let denied = https_get(metrics, "/metrics", Some(&stranger)).await?;
    assert_eq!(denied.status, 403, "{}", denied.body);
    assert!(denied.body.contains(":stranger"), "{}", denied.body);
    let allowed = https_get(metrics, "/metrics", Some(&scraper)).await?;
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    assert!(
        allowed.body.contains("\nprocess_cpu_seconds_total "),
        "{}",
        allowed.body
    );
    // The role covers /metrics only.
    assert_eq!(
        https_get(metrics, "/debug/pprof", Some(&scraper))
            .await?
            .status,
        403
    );
    // Plain HTTP on the metrics port gets no metrics.
    ensure!(
        !matches!(http_get(metrics, "/metrics").await, Ok((200, _))),
        "metrics served over plain HTTP"
    );

    // A rotated certificate is served without a restart.
    let second = write_cert(certs.path())?;
    eventually(WAIT, "the rotated certificate to be served", || async {
        let response = https_get(metrics, "/metrics", Some(&scraper)).await?;
        ensure!(response.status == 200, "{}", response.body);
        Ok((response.certificate == second).then_some(()))
    })
    .await?;

    stop.cancel();
    tokio::time::timeout(WAIT, running).await???;
    Ok(())
}
