//! A webhook server that requires client certificates, on a private
//! control plane whose apiserver presents one to admission webhooks
//! (`--admission-control-config-file` giving the webhook plugins a
//! kubeconfig with a client certificate of our CA): the apiserver's
//! admissions keep working — a ConfigMap is admitted, another denied by
//! the webhook — while a caller without a certificate, or with one of
//! another CA, is refused in the TLS handshake.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::core::v1::ConfigMap;
use kubegen::api::{Api, PostParams};
use kubegen::server::{DevCa, ServingCert, WebhookServer};
use kubegen_testenv::TestEnv;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Denies ConfigMaps whose data holds the key `forbidden`.
fn validate(body: bytes::Bytes) -> Result<Vec<u8>, String> {
    let review: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let request = &review["request"];
    let denied = request["object"]["data"].get("forbidden").is_some();
    let mut response = json!({"uid": request["uid"], "allowed": !denied});
    if denied {
        response["status"] = json!({"code": 403, "message": "the key `forbidden` is forbidden"});
    }
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response,
    }))
    .map_err(|e| e.to_string())
}

/// A TLS client trusting `server_ca`, presenting `client` (certificate and
/// key files) when given.
fn connector(
    server_ca: &str,
    client: Option<(&std::path::Path, &std::path::Path)>,
) -> Result<tokio_rustls::TlsConnector> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(server_ca.as_bytes()) {
        roots.add(cert?)?;
    }
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots);
    let config = match client {
        Some((cert, key)) => builder.with_client_auth_cert(
            CertificateDer::pem_file_iter(cert)?.collect::<Result<Vec<_>, _>>()?,
            PrivateKeyDer::from_pem_file(key)?,
        )?,
        None => builder.with_no_client_auth(),
    };
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// Sends a validation review directly; the status line's code, or the
/// error that ended the exchange.
async fn direct(port: u16, tls: &tokio_rustls::TlsConnector) -> Result<String> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let mut stream = tls
        .connect(ServerName::try_from("127.0.0.1")?.to_owned(), tcp)
        .await?;
    let body = json!({"request": {"uid": "x", "object": {"data": {}}}}).to_string();
    let head = format!(
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await?;
    let text = String::from_utf8_lossy(&answer);
    Ok(text.split_whitespace().nth(1).unwrap_or("").to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_callers_with_a_client_certificate_are_answered() -> Result<()> {
    let env = TestEnv::start().await?;
    let dir = env.dir().join("mtls");
    let server_ca = DevCa::new("webhook-serving-ca")?;
    server_ca.issue(dir.join("serving"), &["127.0.0.1"])?;
    let client_ca = DevCa::new("webhook-client-ca")?;
    std::fs::write(dir.join("client-ca.crt"), client_ca.pem())?;
    client_ca.issue_client(dir.join("apiserver"), "kube-apiserver")?;
    let stranger_ca = DevCa::new("another-ca")?;
    stranger_ca.issue_client(dir.join("stranger"), "stranger")?;

    let server = WebhookServer::builder(ServingCert::from_dir(dir.join("serving")))
        .route("/validate", validate)
        .require_client_cert(dir.join("client-ca.crt"))
        .bind("127.0.0.1:0")
        .await?;
    let port = server.local_addr()?.port();
    tokio::spawn(server.serve(std::future::pending()));

    // The apiserver, restarted with a client certificate for webhooks.
    let apiserver = dir.join("apiserver");
    std::fs::write(
        dir.join("webhook-kubeconfig.yaml"),
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: \"*\"\n  user:\n    client-certificate: {}\n    client-key: {}\n",
            apiserver.join("client.crt").display(),
            apiserver.join("client.key").display()
        ),
    )?;
    let plugin = |name: &str| {
        format!(
            "- name: {name}\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {}\n",
            dir.join("webhook-kubeconfig.yaml").display()
        )
    };
    std::fs::write(
        dir.join("admission.yaml"),
        format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n{}{}",
            plugin("ValidatingAdmissionWebhook"),
            plugin("MutatingAdmissionWebhook")
        ),
    )?;
    env.kill_apiserver();
    let flag = format!(
        "--admission-control-config-file={}",
        dir.join("admission.yaml").display()
    );
    env.start_apiserver_with_flags(&[flag.as_str()]).await?;

    let client = env.client().await?;
    let configuration: ValidatingWebhookConfiguration = serde_json::from_value(json!({
        "metadata": {"name": "mtls-test"},
        "webhooks": [{
            "name": "mtls.example.com",
            "clientConfig": {
                "url": format!("https://127.0.0.1:{port}/validate"),
                "caBundle": k8s_openapi::ByteString(server_ca.pem().into_bytes()),
            },
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}],
            "objectSelector": {"matchLabels": {"mtls-test": "yes"}},
            "failurePolicy": "Fail",
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 5,
        }],
    }))?;
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &configuration)
        .await?;
    let ns = env.namespace("mtls").await?;
    let config_maps = Api::<ConfigMap>::namespaced(client, &ns);
    let config_map = |name: &str, key: &str| -> Result<ConfigMap> {
        Ok(serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"mtls-test": "yes"}},
            "data": {key: "v"},
        }))?)
    };
    // The configuration takes a moment to reach the admission plugin:
    // until the webhook denies, it is not in effect yet.
    let mut denied = None;
    for attempt in 0..60 {
        let name = format!("forbidden-{attempt}");
        match config_maps
            .create(&PostParams::default(), &config_map(&name, "forbidden")?)
            .await
        {
            Ok(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            Err(e) => {
                denied = Some(e.to_string());
                break;
            }
        }
    }
    let denied = denied.context("the webhook never denied: the apiserver never called it")?;
    ensure!(
        denied.contains("the key `forbidden` is forbidden"),
        "{denied}"
    );
    config_maps
        .create(&PostParams::default(), &config_map("allowed", "fine")?)
        .await
        .context("the apiserver, with its client certificate, is admitted")?;

    // Callers without our CA's certificate never reach HTTP.
    for (who, tls) in [
        ("no certificate", connector(&server_ca.pem(), None)?),
        (
            "another CA's certificate",
            connector(
                &server_ca.pem(),
                Some((
                    &dir.join("stranger/client.crt"),
                    &dir.join("stranger/client.key"),
                )),
            )?,
        ),
    ] {
        match direct(port, &tls).await {
            Ok(code) if code.is_empty() => {}
            Ok(code) => bail!("{who}: answered {code}"),
            Err(_) => {}
        }
    }
    let ours = connector(
        &server_ca.pem(),
        Some((&apiserver.join("client.crt"), &apiserver.join("client.key"))),
    )?;
    ensure!(
        direct(port, &ours).await? == "200",
        "our certificate is answered"
    );
    Ok(())
}
