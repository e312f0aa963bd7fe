//! Dropped into a crate that `kubegen import` wrote from cert-manager's
//! published Certificate CRD: the imported kind, installed on the real
//! control plane, is created, read, listed and watched through the typed
//! clientset, lister and informer `kubegen generate` wrote for it, and the
//! apiserver rejects invalid objects through the imported schema.

use std::time::Duration;

use anyhow::Result;
use import_e2e::apis::cert_manager_io::v1::Certificate;
use import_e2e::generated::clientset::Clientset;
use import_e2e::generated::informers::SharedInformerFactory;
use kubegen::api::{Api, ApiResource, DynamicObject, PostParams};
use kubegen::lister::parse_selector;
use kubegen_testenv::{TestEnv, eventually, install_crd};
use serde_json::json;

fn certificate(name: &str, dns: &str) -> Certificate {
    serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": { "name": name },
        "spec": {
            "secretName": format!("{name}-tls"),
            "dnsNames": [dns],
            "issuerRef": { "name": "ca", "kind": "ClusterIssuer" },
            "privateKey": { "algorithm": "ECDSA", "size": 256 },
        }
    }))
    .expect("a Certificate")
}

#[tokio::test]
async fn imported_kind_works_through_its_generated_client() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    // The CRD as the imported types' derive produces it.
    install_crd(&client, &Certificate::crd()?).await?;
    let ns = env.namespace("imported").await?;
    let clientset = Clientset::new(client.clone()).with_field_manager("import-e2e");
    let certificates = clientset.cert_manager_v1().certificates(&ns);

    let factory = SharedInformerFactory::new(client.clone());
    let informer = factory.cert_manager().v1().certificates();
    factory.start();
    assert!(factory.wait_for_cache_sync().await.values().all(|s| *s));

    let created = eventually(Duration::from_secs(30), "create to be accepted", || async {
        Ok(certificates.create(&certificate("web", "web.example.com")).await.ok())
    })
    .await?;
    let spec = created.spec.as_ref().expect("spec");
    assert_eq!(spec.secret_name, "web-tls");
    assert_eq!(spec.dns_names.as_deref(), Some(&["web.example.com".to_owned()][..]));
    certificates.create(&certificate("api", "api.example.com")).await?;

    // Read back and listed, typed.
    let got = certificates.get("web").await?;
    assert_eq!(got.spec.unwrap().issuer_ref.name, "ca");
    let lister = informer.lister();
    eventually(Duration::from_secs(30), "the informer to see both", || async {
        Ok((lister.namespace(&ns).list(&parse_selector("")?).len() == 2).then_some(()))
    })
    .await?;

    // Watched: an update reaches the informer's cache.
    let mut changed = certificates.get("web").await?;
    if let Some(spec) = changed.spec.as_mut() {
        spec.dns_names = Some(vec!["www.example.com".into()]);
    }
    certificates.update(&changed).await?;
    eventually(Duration::from_secs(30), "the update to be watched", || async {
        let cached = lister.namespace(&ns).get("web")?;
        let names = cached.spec.as_ref().and_then(|s| s.dns_names.clone());
        Ok((names == Some(vec!["www.example.com".to_owned()])).then_some(()))
    })
    .await?;

    // The imported schema is enforced: `issuerRef` is required and the
    // private key algorithm is an enum.
    let resource = ApiResource::erase::<Certificate>(&());
    let raw = Api::<DynamicObject>::namespaced_with(client.clone(), &ns, &resource);
    let missing = json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": { "name": "bad" }, "spec": { "secretName": "x" },
    });
    let err = raw
        .create(&PostParams::default(), &serde_json::from_value(missing)?)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("spec.issuerRef"), "{err}");
    let wrong = json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": { "name": "bad" },
        "spec": { "secretName": "x", "issuerRef": { "name": "ca" }, "privateKey": { "algorithm": "DSA" } },
    });
    let err = raw
        .create(&PostParams::default(), &serde_json::from_value(wrong)?)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("spec.privateKey.algorithm"), "{err}");
    factory.shutdown().await;
    Ok(())
}
