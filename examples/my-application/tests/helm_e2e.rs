//! The Helm chart `kubegen generate` writes (`charts/my-application`),
//! checked by Helm itself and by the real apiserver:
//! - `helm lint --strict` passes with the default values and with a set
//!   that changes every one (cert-manager, no leader election, text logs,
//!   an existing ServiceAccount, the network policy …);
//! - values Helm would otherwise take silently (a misspelt key, a wrong
//!   type, two active replicas without leader election) are refused;
//! - what the chart holds of the model is what `config/` holds: the CRD,
//!   the RBAC rules and the conversion webhook's Service, with the
//!   release's namespace and the generated CA;
//! - the generated serving certificate is one the operator's TLS server
//!   serves and a client trusting the chart's CA accepts for the webhook
//!   Service's name;
//! - `helm template | kubectl apply --dry-run=server` is accepted with both
//!   value sets (cert-manager's own CRDs installed for the second), and the
//!   operator's pod passes Pod Security `restricted`, while a pod keeping
//!   its capabilities is rejected there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kubegen_testenv::TestEnv;
use serde_json::Value;

/// Values that change every default.
const OTHER_VALUES: &str = r#"
image: {repository: registry.example.com/ops/my-application, tag: "1.2.3", pullPolicy: Always}
imagePullSecrets: [{name: registry}]
replicas: 1
leaderElection: {enabled: false}
logFormat: text
extraArgs: ["--workers=4"]
resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 512Mi}}
crds: {install: true, keep: false}
serviceAccount: {create: false, name: existing-operator}
certManager: {enabled: true, issuerRef: {name: "", kind: Issuer}}
networkPolicy: {enabled: true, apiserverCIDR: 10.0.0.0/24}
podAnnotations: {team: ops}
podLabels: {tier: control}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]
fullnameOverride: myapp
"#;

fn chart() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("charts/my-application")
}

fn helm(args: &[&str], stdin: Option<&str>) -> Result<Output> {
    let mut command = Command::new(kubegen_testenv::helm()?);
    command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    if let Some(text) = stdin {
        use std::io::Write as _;
        child
            .stdin
            .take()
            .context("stdin")?
            .write_all(text.as_bytes())?;
    }
    Ok(child.wait_with_output()?)
}

/// `helm template` of the chart into `namespace`, with `values` (a YAML
/// values file's text) when given; the text, or Helm's error.
fn template(namespace: &str, values: Option<&str>) -> Result<String> {
    let chart = chart();
    let mut args = vec!["template", "rel", chart.to_str().unwrap(), "-n", namespace];
    if values.is_some() {
        args.extend(["-f", "-"]);
    }
    let out = helm(&args, values)?;
    if !out.status.success() {
        bail!("{}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8(out.stdout)?)
}

/// Every non-empty document of a multi-document YAML text.
fn documents(text: &str) -> Vec<Value> {
    use serde::Deserialize as _;
    serde_yaml::Deserializer::from_str(text)
        .map(|d| Value::deserialize(d).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

fn find<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The Deployment of a rendered chart.
fn deployment_in(rendered: &str) -> Result<Deployment> {
    let deployment = documents(rendered)
        .into_iter()
        .find(|d| d["kind"] == "Deployment")
        .context("no Deployment")?;
    Ok(serde_json::from_value(deployment)?)
}

fn read_yaml(path: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    documents(&std::fs::read_to_string(path).unwrap())
        .into_iter()
        .next()
        .unwrap()
}

#[test]
fn lint_passes_with_default_and_other_values() -> Result<()> {
    let chart = chart();
    let chart = chart.to_str().unwrap();
    for values in [None, Some(OTHER_VALUES)] {
        let mut args = vec!["lint", "--strict", chart];
        if values.is_some() {
            args.extend(["-f", "-"]);
        }
        let out = helm(&args, values)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("1 chart(s) linted, 0 chart(s) failed"),
            "{stdout}"
        );
    }
    Ok(())
}

#[test]
fn values_helm_would_take_silently_are_refused() -> Result<()> {
    for (values, expected) in [
        ("replica: 3", "replica"),
        ("replicas: two", "replicas"),
        ("logFormat: xml", "logFormat"),
        ("image: {repository: ''}", "repository"),
        ("certManager: {enabled: yes-please}", "enabled"),
        (
            "leaderElection: {enabled: false}\nreplicas: 2",
            "replicas > 1 needs leaderElection.enabled",
        ),
        (
            "networkPolicy: {enabled: true}",
            "networkPolicy.enabled needs networkPolicy.apiserverCIDR",
        ),
    ] {
        let err = template("ops", Some(values))
            .err()
            .with_context(|| format!("`{values}` was accepted"))?;
        assert!(err.to_string().contains(expected), "`{values}`: {err}");
    }
    // Leader election off with one replica is fine.
    template("ops", Some("leaderElection: {enabled: false}\nreplicas: 1"))?;
    Ok(())
}

#[test]
fn the_charts_model_objects_are_configs() -> Result<()> {
    let docs = documents(&template("ops", None)?);

    // The CRD: config/crd's, plus the chart's labels and annotations, with
    // the conversion webhook in the release's namespace under its CA.
    let mut crd = find(
        &docs,
        "CustomResourceDefinition",
        "myapplications.stable.example.com",
    )
    .clone();
    assert_eq!(
        crd["metadata"]["annotations"]["helm.sh/resource-policy"],
        "keep"
    );
    assert_eq!(
        crd["metadata"]["labels"]["app.kubernetes.io/instance"],
        "rel"
    );
    let client = &mut crd["spec"]["conversion"]["webhook"]["clientConfig"];
    assert_eq!(client["service"]["namespace"], "ops");
    let ca_bundle = client["caBundle"].take();
    client["service"]["namespace"] = "my-application-system".into();
    client.as_object_mut().unwrap().remove("caBundle");
    crd["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("annotations");
    crd["metadata"].as_object_mut().unwrap().remove("labels");
    assert_eq!(
        crd,
        read_yaml("config/crd/stable.example.com_myapplications.yaml"),
        "the chart's CRD differs from config/crd's"
    );

    // The ClusterRole: config/rbac's rules, under the release's name, bound
    // to the release's ServiceAccount.
    let role = find(&docs, "ClusterRole", "rel-my-application-manager");
    assert_eq!(role["rules"], read_yaml("config/rbac/role.yaml")["rules"]);
    let binding = find(&docs, "ClusterRoleBinding", "rel-my-application-manager");
    assert_eq!(binding["roleRef"]["name"], "rel-my-application-manager");
    assert_eq!(binding["subjects"][0]["name"], "rel-my-application");
    assert_eq!(binding["subjects"][0]["namespace"], "ops");

    // The Service the CRD's conversion names, on its port, to the pod's
    // webhook port.
    let service = find(&docs, "Service", "my-application-webhook");
    assert_eq!(service["spec"]["ports"][0]["port"], 443);
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "webhook");

    // The CA bundle is the CA of the Secret the pod mounts.
    let secret = find(&docs, "Secret", "rel-my-application-webhook-cert");
    assert_eq!(secret["data"]["ca.crt"], ca_bundle);
    let deployment = find(&docs, "Deployment", "rel-my-application");
    let volumes = &deployment["spec"]["template"]["spec"]["volumes"];
    assert_eq!(
        volumes[0]["secret"]["secretName"],
        "rel-my-application-webhook-cert"
    );
    let args = deployment["spec"]["template"]["spec"]["containers"][0]["args"].clone();
    assert_eq!(
        args,
        serde_json::json!([
            "--json-logs",
            "--lease-namespace=ops",
            "--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs"
        ])
    );
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "my-application-controller:0.1.0"
    );

    // cert-manager on: no generated Secret or CA, the injector's
    // annotation instead, and Certificates for both servers.
    let docs = documents(&template("ops", Some(OTHER_VALUES))?);
    assert!(!docs.iter().any(|d| d["kind"] == "Secret"));
    let crd = find(
        &docs,
        "CustomResourceDefinition",
        "myapplications.stable.example.com",
    );
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "ops/myapp-webhook"
    );
    assert!(
        crd["metadata"]["annotations"]
            .get("helm.sh/resource-policy")
            .is_none()
    );
    assert!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]
            .get("caBundle")
            .is_none()
    );
    let certificate = find(&docs, "Certificate", "myapp-webhook");
    assert_eq!(certificate["spec"]["secretName"], "myapp-webhook-cert");
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "my-application-webhook.ops.svc"
    );
    find(&docs, "Certificate", "myapp-metrics");
    find(&docs, "Issuer", "myapp-selfsigned");
    assert!(!docs.iter().any(|d| d["kind"] == "ServiceAccount"));
    let pod = &find(&docs, "Deployment", "myapp")["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], "existing-operator");
    assert_eq!(
        pod["containers"][0]["args"],
        serde_json::json!([
            "--no-leader-elect",
            "--lease-namespace=ops",
            "--metrics-cert-dir=/tmp/k8s-metrics-server/metrics-certs",
            "--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs",
            "--workers=4"
        ])
    );
    Ok(())
}

/// The generated certificate, served by the operator's own TLS server, is
/// accepted by a client that trusts only the chart's CA and asks for the
/// webhook Service's name (as the apiserver does); another name is not.
#[tokio::test]
async fn the_generated_certificate_serves_the_webhook() -> Result<()> {
    use kubegen::server::{ServingCert, WebhookServer};
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, ServerName};

    let docs = documents(&template("ops", None)?);
    let secret: Secret =
        serde_json::from_value(find(&docs, "Secret", "rel-my-application-webhook-cert").clone())?;
    let data = secret.data.context("no data")?;
    let dir = tempfile::tempdir()?;
    for key in ["tls.crt", "tls.key"] {
        std::fs::write(dir.path().join(key), &data[key].0)?;
    }
    let server = WebhookServer::builder(ServingCert::from_dir(dir.path()))
        .bind("127.0.0.1:0")
        .await?;
    let addr = server.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve(async {
        let _ = stopped.await;
    }));

    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from_pem_slice(&data["ca.crt"].0)?)?;
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    for (name, accepted) in [
        ("my-application-webhook.ops.svc", true),
        ("my-application-webhook.ops.svc.cluster.local", true),
        ("my-application-webhook.other.svc", false),
    ] {
        let tcp = tokio::net::TcpStream::connect(addr).await?;
        let result = connector
            .connect(ServerName::try_from(name.to_string())?, tcp)
            .await;
        assert_eq!(result.is_ok(), accepted, "{name}: {result:?}");
    }
    let _ = stop.send(());
    serving.await??;
    Ok(())
}

#[tokio::test]
async fn the_rendered_chart_is_accepted_by_the_apiserver() -> Result<()> {
    let env = TestEnv::shared().await?;
    // cert-manager's CRDs, so that its Issuer and Certificates are checked
    // against its real schemas.
    let crds = kubegen_testenv::cert_manager_module()?.join("deploy/crds");
    for crd in [
        "cert-manager.io_certificates.yaml",
        "cert-manager.io_issuers.yaml",
    ] {
        let out = env
            .kubectl()
            .args(["apply", "--server-side", "--force-conflicts", "-f"])
            .arg(crds.join(crd))
            .output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = env
        .kubectl()
        .args([
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/certificates.cert-manager.io",
            "crd/issuers.cert-manager.io",
        ])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    for (values, prefix) in [(None, "helm-default"), (Some(OTHER_VALUES), "helm-other")] {
        let ns = env.namespace(prefix).await?;
        let rendered = template(&ns, values)?;
        let mut apply = env
            .kubectl()
            .args(["apply", "--dry-run=server", "-o", "name", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        {
            use std::io::Write as _;
            apply
                .stdin
                .take()
                .context("stdin")?
                .write_all(rendered.as_bytes())?;
        }
        let out = apply.wait_with_output()?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{prefix}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let applied = stdout.lines().count();
        assert_eq!(applied, documents(&rendered).len(), "{stdout}");

        // The operator's pod under Pod Security `restricted`.
        let deployment = deployment_in(&rendered)?;
        let pss = env
            .pod_security_namespace(&format!("{prefix}-pss"), "restricted", &deployment)
            .await?;
        env.dry_run_pod_of(&deployment, &pss)
            .await?
            .with_context(|| format!("{prefix}: the pod is rejected under `restricted`"))?;
    }

    // Values that keep the capabilities (null removes a default in Helm's
    // merge) make a pod `restricted` rejects: the check above can fail.
    let ns = env.namespace("helm-weak").await?;
    let weak = template(&ns, Some("securityContext: {capabilities: null}"))?;
    let deployment = deployment_in(&weak)?;
    let pss = env
        .pod_security_namespace("helm-weak-pss", "restricted", &deployment)
        .await?;
    let err = env
        .dry_run_pod_of(&deployment, &pss)
        .await?
        .expect_err("a pod keeping its capabilities must be rejected");
    assert!(err.to_string().contains("restricted"), "{err}");
    Ok(())
}
